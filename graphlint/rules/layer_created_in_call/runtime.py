"""GL505's runtime form: layers and variables created while a layer's call() runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphlint.rules.layer_created_in_call import LayerCreatedInCall

if TYPE_CHECKING:  # the runtime engine's: `graphlint check` never imports it
    from graphlint.findings import FindingSink
    from graphlint.stacks import Frame


_TF_VARIABLES = frozenset({"ResourceVariable", "UninitializedVariable", "Variable"})


@dataclass(slots=True)
class _Site:
    """The layer parts made at one line of a ``call()``: the first one, and how many in all."""

    site: Frame  # the line
    layer_class: str  # the layer whose call() made it
    part: str  # "layer" or "variable"
    part_class: str
    state: str  # "weights", "seed generator" or "variable"
    call_count: int  # the layer object's call that made the first one
    call_site: Frame | None  # where that call was made
    n: int = 1


class Runtime(LayerCreatedInCall):
    """LayerCreatedInCall at runtime: the hooks, and the state they keep."""

    def __init__(self, sink: FindingSink, options: dict[str, Any] | None = None) -> None:
        super().__init__(sink, options)
        self.sites: dict[tuple[str, int], _Site] = {}  # (path, line) -> the parts made there

    # -- runtime form ----------------------------------------------------------------------
    def graphlint_layer_part_created(
        self, layer_class: str, call_count: int, part: str, part_class: str, site: Frame | None,
        call_site: Frame | None, state: str,
    ) -> None:
        if call_count < 2 or site is None:
            return  # the first call builds the layer
        entry = self.sites.get(site[:2])
        if entry is None:
            self.sites[site[:2]] = _Site(site, layer_class, part, part_class, state, call_count, call_site)
        else:
            entry.n += 1

    def graphlint_run_finished(self) -> None:
        for entry in self.sites.values():
            site, layer_class, part_class, call_count, n = (
                entry.site, entry.layer_class, entry.part_class, entry.call_count, entry.n
            )
            if entry.part == "layer" and entry.state == "seed generator":
                what = f"a new `{part_class}` layer, and with it a new seed generator (a variable),"
                made = f"the `{part_class}`"
            elif entry.part == "layer":
                what, made = f"a new `{part_class}` layer", f"the `{part_class}`"
            else:
                what = made = "a new variable" if part_class in _TF_VARIABLES else f"a new `{part_class}`"
                made = "the variable"
            again = f", {n} times in all" if n > 1 else ""
            call_site = entry.call_site
            related = [(call_site, f"call {call_count} of the `{layer_class}` object is made here")] if call_site else []
            why = (
                "under `tf.function` (as in `fit`) it fails with \"tf.function only supports singleton "
                "tf.Variables created on the first call\""
                if entry.state == "seed generator"
                else "its weights start from fresh values on every call and no optimizer ever trains them"
            )
            self.report(
                f"`{layer_class}.{site.function}()` created {what} on call {call_count} of the same "
                f"`{layer_class}` object{again}: {why}",
                site,
                related=related,
                fix=(
                    f"Create {made} once in `{layer_class}.__init__` (or, for weights whose shape "
                    "depends on the input, in `build()` with `self.add_weight`) and only use it in "
                    f"`{site.function}()`."
                ),
            )
        self.sites.clear()

