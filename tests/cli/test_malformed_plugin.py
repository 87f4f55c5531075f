"""A third-party rule whose declaration is malformed is skipped with one warning line; every
other rule, and every command, works as without it (issue 23: ``options = ["limit"]`` made
``graphlint check`` and ``graphlint rules`` fail for everything with "internal error")."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from graphlint.cli import main

PLUGIN = '''
from graphlint import Rule, Severity


class Broken(Rule):
    """x

    ## What it does
    x
    ## Why is this bad?
    x
    ## Example
    x
    ## Use instead
    x
    """

    code = "XY500"
    name = "broken"
    severity = Severity.WARNING
    summary = "broken"
    fix = "none"
    {declaration}

    def graphlint_graph_entered(self, site):
        pass
'''

MALFORMED = {
    "options as a list": ('options = ["limit"]', "`options` must be a dict"),
    "severity as a string": ('severity = "warning"', "`severity` must be a graphlint.Severity"),
    "frameworks as a string": ('frameworks = "keras"', "`frameworks` must be a tuple"),
    "code with a space": ('code = "XY 500"', "`code` must be a word"),
}


@pytest.fixture
def install(tmp_path, monkeypatch):
    def install(declaration: str) -> None:
        site = tmp_path / "site"
        site.mkdir()
        (site / "xy_broken.py").write_text(PLUGIN.format(declaration=declaration))
        info = site / "xy_broken-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xy-broken\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text("[graphlint]\nXY500 = xy_broken:Broken\n")
        monkeypatch.syspath_prepend(str(site))
        monkeypatch.delitem(sys.modules, "xy_broken", raising=False)  # another test's version
        monkeypatch.delenv("GRAPHLINT_DISABLE_PLUGINS", raising=False)
        work = tmp_path / "work"
        work.mkdir()
        (work / "a.py").write_text("import tensorflow as tf\n\nwith tf.Graph():\n    pass\n")
        monkeypatch.chdir(work)

    return install


@pytest.mark.parametrize("declaration, reason", MALFORMED.values(), ids=list(MALFORMED))
def test_a_malformed_plugin_rule_is_skipped_with_one_warning(install, declaration, reason):
    install(declaration)
    runner = CliRunner()
    listed = runner.invoke(main, ["rules", "--format", "json"])
    assert listed.exit_code == 0, listed.output
    assert "XY500" not in {r["code"] for r in json.loads(listed.stdout)}
    warnings = [line for line in listed.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "XY500" in warnings[0] and reason in warnings[0] and "skipped" in warnings[0]
    checked = runner.invoke(main, ["check", "--no-cache", "--format", "json", "a.py"])
    assert checked.exit_code == 1, checked.output  # the other rules found the file's GL103
    assert [f["code"] for f in json.loads(checked.stdout)["findings"]] == ["GL103"]
    assert [line for line in checked.stderr.splitlines() if line.strip()] == warnings


def test_a_well_formed_plugin_rule_of_the_same_shape_is_loaded(install):
    install('options = {"limit": 2}')
    listed = CliRunner().invoke(main, ["rules", "--format", "json"])
    assert listed.exit_code == 0 and listed.stderr == ""
    assert "XY500" in {r["code"] for r in json.loads(listed.stdout)}
