"""GL201's runtime form: each variable's requested and given names, and Keras layer names given twice."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graphlint.rules.variable_renamed import VariableRenamed
from graphlint.rules._state import KeepsVariableSites, two_sites

if TYPE_CHECKING:
    from graphlint.stacks import Frame, Stack


_DEFAULT_NAMES = {None, "", "Variable"}


_SUFFIX = re.compile(r"^(?P<base>.+)_(?P<n>\d+)$")


# TensorFlow's Trackable API, through which Keras' add_weight() makes every weight it tracks
_TRACKED_BY_OBJECT = "_add_variable_with_custom_getter"


class Runtime(VariableRenamed, KeepsVariableSites):
    """VariableRenamed at runtime: the hooks, and the state they keep."""

    def graphlint_variable_created(
        self, graph_id: int, name: str, requested_name: object, site: Frame | None, stack: Stack
    ) -> None:
        self.sites.add(graph_id, name, stack)
        if requested_name in _DEFAULT_NAMES:
            return
        wanted = str(requested_name).rstrip("/").rsplit("/", 1)[-1]
        prefix, _, got = name.rpartition("/")
        match = _SUFFIX.match(got)
        if got == wanted or not match or match.group("base") != wanted:
            return
        from graphlint.stacks import passes_through

        if passes_through(_TRACKED_BY_OBJECT):
            # A weight a Keras layer, metric or optimizer made for itself (`add_weight`:
            # 'total', 'gamma', 'moving_mean'): nobody chose that name, and the object that
            # made it keeps the variable and saves it by object, not by its graph name.
            return
        original = f"{prefix}/{wanted}" if prefix else wanted
        self.report(
            f"variable '{original}' was silently renamed to '{name}': the name was already "
            "taken in this graph",
            site,
            related=two_sites(
                self.sites.stack(graph_id, original),
                stack,
                f"'{original}' was created here",
                f"'{name}' was created here",
            ),
        )

    def graphlint_keras_layer_name_reused(
        self, name: str, first_site: Frame | None, site: Frame | None, rejected: bool
    ) -> None:
        """The Keras form: two layers of one model given the same ``name=``."""
        consequence = (
            "Keras refuses the model with a ValueError that names neither line"
            if rejected
            else "Keras keeps both, and their weights get the same paths in checkpoints and saved models"
        )
        self.report(
            f"layer name '{name}' is given to two layers of one model: {consequence}",
            site,
            related=[(first_site, f"the first layer named '{name}' is created here")],
            fix=self.keras_fix,
        )

