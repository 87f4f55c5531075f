"""Third-party rules load from the `graphlint` entry-point group, exactly like the built-in ones."""

from __future__ import annotations

import textwrap

import pytest

from graphlint.linter import Linter
from graphlint.registry import discover_rules
from graphlint.findings import Severity
from graphlint.instrument import instrument
from graphlint.rules import Rule

PLUGIN = '''
from graphlint import Rule, Severity


class ManyConstants(Rule):
    """Flags every graph that gets more than two Const ops from one line."""

    code = "XY100"
    name = "many-constants"
    severity = Severity.WARNING
    summary = "constants built in a loop"
    fix = "Build the constant once."
    options = {"limit": 2}

    def __init__(self, sink, options=None):
        super().__init__(sink, options)
        self.seen = {}

    def graphlint_op_added(self, op, site):
        if op.type == "Const" and site is not None:
            n = self.seen[site[:2]] = self.seen.get(site[:2], 0) + 1
            if n == self.config["limit"] + 1:
                self.report(f"{n} constants built on this line", site)


class Broken(Rule):
    """Always raises."""

    code = "XY200"
    name = "broken"
    summary = "raises"

    def graphlint_graph_entered(self, site):
        raise KeyError("oops")
'''


@pytest.fixture
def plugin_dist(tmp_path, monkeypatch):
    (tmp_path / "xy_rules.py").write_text(PLUGIN)
    info = tmp_path / "xy_rules-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xy-rules\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[graphlint]\nXY100 = xy_rules:ManyConstants\nXY200 = xy_rules:Broken\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _run(linter, source_path):
    import tensorflow as tf

    from harness import run_main

    tf.compat.v1.reset_default_graph()
    with instrument(linter):
        outcome = run_main(source_path)
        return linter.finish(outcome.status)


PROGRAM = textwrap.dedent(
    """\
    import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    for i in range(4):
        c = tf.constant(float(i))
    with tf.Graph():
        pass
    """
)


def test_rule_from_entry_point_is_discovered_next_to_builtins(plugin_dist):
    rules = discover_rules()
    assert {"XY100", "XY200", "GL101", "GL000"} <= set(rules)
    assert rules["XY100"].severity is Severity.WARNING


def test_plugin_rule_reports_and_broken_rule_becomes_gl000(plugin_dist, tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    findings = _run(Linter(), prog)
    codes = {(f.code, f.location.line) for f in findings if f.location.path == str(prog)}
    assert ("XY100", 4) in codes
    assert ("GL103", 5) in codes  # the built-in rule still ran after the plugin raised
    (internal,) = [f for f in findings if f.code == "GL000"]
    assert "rule XY200 failed in graphlint_graph_entered: KeyError: 'oops'" in internal.message


def test_plugin_options_from_config(plugin_dist, tmp_path):
    from graphlint.config import from_mapping

    prog = tmp_path / "prog.py"
    prog.write_text(PROGRAM)
    config = from_mapping({"rules": {"XY100": {"limit": 10}}, "ignore": ["XY200"]})
    findings = _run(Linter(config), prog)
    assert not [f for f in findings if f.code in ("XY100", "GL000")]


@pytest.mark.parametrize("how", ["env", "flag"])
def test_plugins_can_be_disabled(plugin_dist, monkeypatch, how):
    if how == "env":
        monkeypatch.setenv("GRAPHLINT_DISABLE_PLUGINS", "1")
        rules = discover_rules()
    else:
        rules = discover_rules(plugins=False)
    assert "XY100" not in rules and "GL101" in rules


def test_broken_entry_point_is_one_warning_not_a_crash(tmp_path, monkeypatch):
    info = tmp_path / "bad_rules-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bad-rules\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[graphlint]\nZZ1 = no_such_module_zz:Rule\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    warnings = []
    rules = discover_rules(warn=warnings.append)
    assert "GL101" in rules
    assert len(warnings) == 1 and "cannot load rule plugin ZZ1" in warnings[0]


def test_builtin_rules_are_units_found_without_entry_points():
    """graphlint's own rules are the packages of graphlint/rules/ (no entry point lists them:
    an install made before still does, and is not read), each named after its rule."""
    from importlib import metadata

    from graphlint.registry import builtin_units

    rules = discover_rules(plugins=False)
    assert sorted(cls.__module__ for cls in rules.values()) == builtin_units()
    for code, cls in rules.items():
        assert issubclass(cls, Rule) and cls.code == code and cls.name and cls.fix
        assert cls.__module__ == "graphlint.rules." + cls.name.replace("-", "_")
        docs = cls.docs()
        for section in ("What it does", "Why is this bad?", "Example", "Use instead"):
            assert docs.get(section), f"{code} lacks '## {section}'"
    listed = [ep for ep in metadata.entry_points(group="graphlint") if ep.dist.metadata["Name"] == "graphlint"]
    assert all(discover_rules(plugins=True)[ep.name] is rules[ep.name] for ep in listed if ep.name in rules)
