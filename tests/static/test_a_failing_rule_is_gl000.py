"""A static rule that fails is one GL000 on that file, whatever it raises but
KeyboardInterrupt (issue 23): a `check_module` raising `SystemExit(7)` made `graphlint check`
exit 7 and print nothing. The other rules and files are checked; the run exits by its own
rules."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner
from harness import install_plugin

from graphlint.cli import main
from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file

FIXABLE = "import tensorflow as tf\nwith tf.Graph():\n    pass\n"

PLUGIN = textwrap.dedent(
    '''
    from graphlint import Rule


    class Exits(Rule):
        """Raises."""

        code = "XZ100"
        name = "exits"
        summary = "raises"
        engines = ("static",)

        def check_module(self, module):
            raise {raised}
    '''
)


def failing(raised: BaseException) -> type:
    """The plugin's rule class, raising ``raised``."""
    namespace = {"_raised": raised}
    exec(PLUGIN.format(raised="_raised"), namespace)
    return namespace["Exits"]


def builtin_static_rules() -> list[type]:
    return [c for c in discover_rules(plugins=False).values() if c.checks_statically()]


@pytest.mark.parametrize(
    "raised",
    [SystemExit(7), SystemExit(0), GeneratorExit(), ValueError("boom"), type("Custom", (BaseException,), {})()],
    ids=["exit7", "exit0", "generator-exit", "value-error", "base-exception"],
)
def test_whatever_a_rule_raises_is_gl000_and_the_others_still_run(tmp_path, raised):
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    rules = [failing(raised), *builtin_static_rules()]
    found = check_file(str(path), rules, Config()).findings
    assert sorted(f.code for f in found) == ["GL000", "GL103"]
    (internal,) = [f for f in found if f.code == "GL000"]
    assert "XZ100" in internal.message and type(raised).__name__ in internal.message


def test_keyboard_interrupt_is_the_users_and_stops_the_check(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    with pytest.raises(KeyboardInterrupt):
        check_file(str(path), [failing(KeyboardInterrupt())], Config())


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    def install(raised: str, module: str):
        """A distribution whose rule XZ100 raises ``raised``, in a module of its own name (a
        module imported once is not imported again), off the current folder (never searched)."""
        site = install_plugin(tmp_path / "site", module, PLUGIN.format(raised=raised), {"XZ100": "Exits"})
        monkeypatch.syspath_prepend(str(site))

    return install


@pytest.mark.parametrize("n, raised", enumerate(["SystemExit(7)", "SystemExit(0)", "SystemExit('bye')"]))
def test_check_goes_on_and_exits_by_its_own_rules(tmp_path, plugin, monkeypatch, n, raised):
    plugin(raised, f"xz_rules_{n}")
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text(FIXABLE)
    (project / "b.py").write_text("import tensorflow as tf\n")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", "a.py", "b.py"], catch_exceptions=False)
    assert result.exit_code == 1, (result.exit_code, result.output)
    found = sorted((f["path"], f["code"]) for f in json.loads(result.stdout)["findings"])
    assert found == [("a.py", "GL000"), ("a.py", "GL103"), ("b.py", "GL000")]
