"""Adding a rule is one unit plus its samples (issue 27): a rule made from the template below,
in a folder added to ``graphlint.rules``' package path, is found by the registry (no entry
point, no reinstall, no list edited), its bad sample gives exactly its markers in both
engines and its good twin nothing — and the files written to get there are counted.

Before rules were units, the same took ~10 files: the rule class, the static analysis, the
``pyproject.toml`` entry point (and a reinstall), ``conftest.py``'s routing of samples by code,
``test_rule_samples.py``'s list of codes, a second class for notebooks, the samples.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from harness import assert_exactly_markers, expected_markers, run_in_process, sample_driver

CODE, NAME = "GL990", "constant-in-loop"
UNIT = NAME.replace("-", "_")

#: A rule unit: the rule (docs and metadata), its runtime form (a subclass of the rule with the
#: hooks), its static form (a function of the model).
TEMPLATE = {
    "__init__.py": '''
        """{code} {name}."""

        from graphlint.findings import Severity
        from graphlint.rules._base import Rule


        class ConstantInLoop(Rule):
            """A constant built again and again at one line.

            ## What it does
            Flags `tf.constant` called in a loop of a TF1 graph program.

            ## Why is this bad?
            Every iteration adds another op to the graph.

            ## Example
            ```python
            for step in range(5):
                c = tf.constant(step)
            ```

            ## Use instead
            ```python
            step = tf.compat.v1.placeholder(tf.int32)
            ```
            """

            code = "{code}"
            name = "{name}"
            severity = Severity.WARNING
            summary = "a constant built again and again at one line"
            fix = "Feed the value to a placeholder built once, outside the loop."
            frameworks = ("tensorflow-v1",)
            options = {{"limit": 2}}
    ''',
    "runtime.py": '''
        """{code}'s runtime form: the constants built per line."""

        from graphlint.rules.{unit} import ConstantInLoop


        class Runtime(ConstantInLoop):
            def __init__(self, sink, options=None):
                super().__init__(sink, options)
                self.seen = {{}}

            def graphlint_op_added(self, op, stack):
                site = stack.site
                if op.type == "Const" and site is not None:
                    n = self.seen[site[:2]] = self.seen.get(site[:2], 0) + 1
                    if n == self.config["limit"] + 1:
                        self.report(f"{{n}} constants built at this line", site)
    ''',
    "check.py": '''
        """{code}'s static form: ``tf.constant`` in a loop."""

        from graphlint.static.hits import Hit


        def check(module, options):
            return [
                Hit(call.node, "`tf.constant()` in a loop: a new op on every iteration")
                for call in module.calls
                if call.name == "tensorflow.constant" and call.loops
            ]
    ''',
}
SAMPLES = {
    f"{CODE.lower()}_bad.py": """
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()
        for step in range(5):
            c = tf.constant(step)  # {code}
    """,
    f"{CODE.lower()}_good.py": """
        import tensorflow as tf

        tf.compat.v1.disable_eager_execution()
        step = tf.compat.v1.placeholder(tf.int32)
        for i in range(5):
            pass
    """,
}


@pytest.fixture
def new_rule(tmp_path, monkeypatch):
    """Write the unit and its samples, counting the files written; put the unit's folder on
    the rules' package path. ``(the rule class, the samples folder, the files written)``."""
    import graphlint.rules
    from graphlint.registry import discover_rules

    written: list[Path] = []

    def write(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip().format(code=CODE, name=NAME, unit=UNIT))
        written.append(path)

    units, samples = tmp_path / "units", tmp_path / "samples" / "rules"
    for name, text in TEMPLATE.items():
        write(units / UNIT / name, text)
    for name, text in SAMPLES.items():
        write(samples / name, text)
    monkeypatch.setattr(graphlint.rules, "__path__", [*graphlint.rules.__path__, str(units)])
    yield discover_rules(plugins=False)[CODE], samples, written
    for module in [m for m in sys.modules if m == f"graphlint.rules.{UNIT}" or m.startswith(f"graphlint.rules.{UNIT}.")]:
        del sys.modules[module]


def test_a_new_rule_is_one_unit_and_its_samples_and_runs_in_both_engines(new_rule, monkeypatch):
    import conftest
    from graphlint.config import Config
    from graphlint.static import check_file

    rule, samples, written = new_rule
    assert len(written) == 5  # __init__.py, runtime.py, check.py; the bad sample and its good twin
    assert {p.parent.name for p in written} == {UNIT, "rules"}
    assert rule.engines == ("runtime", "static") and rule.docs()["What it does"]
    monkeypatch.setattr(conftest, "SAMPLES", samples.parent)
    bad, good = samples / f"{CODE.lower()}_bad.py", samples / f"{CODE.lower()}_good.py"
    assert sample_driver(bad) == sample_driver(good) == "tf1"  # by the frameworks it declares
    assert expected_markers(bad) == {(CODE, 5)}
    config = Config(select=[CODE])
    assert_exactly_markers(bad, check_file(str(bad), [rule], config).findings)
    assert check_file(str(good), [rule], config).findings == []
    assert_exactly_markers(bad, run_in_process(bad, config=config)[0])
    assert run_in_process(good, config=config)[0] == []
