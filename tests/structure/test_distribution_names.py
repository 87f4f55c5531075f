"""A distribution's name is normalised as PEP 503 says (``re.sub(r"[-_.]+", "-", name).lower()``)
by graphlint.registry without compiling that pattern: the same result for every spelling."""

from __future__ import annotations

import itertools
import re

from graphlint.registry import normalized


def test_names_are_normalised_as_the_pattern_normalises_them():
    names = ["".join(chars) for n in range(7) for chars in itertools.product("a_-.Z", repeat=n)]
    names += ["graphlint_ml", "Graphlint.ML", "typing_extensions", "zope.interface", "a__-._b", "_x_", "..."]
    for name in names:
        assert normalized(name) == re.sub(r"[-_.]+", "-", name).lower(), name
