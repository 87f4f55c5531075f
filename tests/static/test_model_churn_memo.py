"""GL503 remembers what a helper builds (graphlint.rules.keras_model_churn.check._built_in):
a helper reached again on another path through a cycle of calls is searched again when the
functions on that path change what the search may enter."""

from __future__ import annotations

import textwrap

from graphlint.config import load
from graphlint.registry import discover_rules
from graphlint.static import check_file

# h1 is searched first from the loop over h1(): there g() -> h1() is a cycle, cut, so g builds
# nothing on that path. From the loop over h2(), g() -> h1() is no cycle: h1 builds the model.
CYCLE = '''
import keras


def h1():
    g()
    return keras.Sequential()


def g():
    h1()


def h2():
    g()


for i in range(10):
    h1()

for i in range(10):
    h2()
'''


def test_a_helper_met_through_a_cycle_is_searched_again_on_another_path(tmp_path):
    path = tmp_path / "cycle.py"
    path.write_text(textwrap.dedent(CYCLE))
    config = load(None, start=str(tmp_path))
    rules = [cls for code, cls in discover_rules(plugins=False).items() if code == "GL503"]
    found = check_file(str(path), rules, config).findings
    assert [(f.code, f.location.line) for f in found] == [("GL503", 19), ("GL503", 22)]
    assert [r.location.line for r in found[1].related] == [15, 11, 7]
