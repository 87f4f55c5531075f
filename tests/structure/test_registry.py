"""Rule discovery reads the ``graphlint`` entry points without importing ``importlib.metadata``,
finds exactly what ``importlib.metadata`` finds, and never loads code from the current folder."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from importlib import metadata

from graphlint import registry
from graphlint.registry import discover_rules


def write_dist(folder, dist, section):
    info = folder / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(section)
    return info


def importlib_view(plugins=True):
    out = {}
    for ep in metadata.entry_points(group="graphlint"):
        if plugins or ep.dist.metadata["Name"] == "graphlint":
            out[ep.name] = ep.value
    return out


def test_the_fast_scan_finds_what_importlib_metadata_finds(tmp_path, monkeypatch):
    (tmp_path / "registry_scan_rules.py").write_text(
        "from graphlint import Rule\n"
        "class XY(Rule):\n    code = 'XY300'\n    name = 'xy'\n    summary = 's'\n"
    )
    write_dist(tmp_path, "registry_scan_rules", "[console_scripts]\nxy = registry_scan_rules:main\n\n[graphlint]\nXY300 = registry_scan_rules:XY\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(os.path.dirname(__file__))
    fast = {name: value for _, name, value in registry._declared()}
    assert fast == importlib_view()
    assert "XY300" in discover_rules() and "XY300" not in discover_rules(plugins=False)


def test_checking_needs_no_importlib_metadata_nor_pluggy():
    code = (
        "import sys; from graphlint.registry import discover_rules; discover_rules();"
        "print(sorted(m for m in ('importlib.metadata', 'pluggy', 'email') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_runtime_loads_the_rules_without_the_static_engine():
    """``graphlint run`` and ``pytest --graphlint`` discover every rule (GL001's class included)
    without importing the static engine and its analyses (~20 ms of their start-up)."""
    code = (
        "import sys; from graphlint.registry import discover_rules; rules = discover_rules();"
        "print('GL001' in rules, sorted(m for m in sys.modules if m.startswith('graphlint.static')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True []"


def test_a_dist_info_in_the_current_folder_is_never_loaded(tmp_path, monkeypatch):
    (tmp_path / "evil_rules.py").write_text("raise SystemExit('evil code ran')\n")
    write_dist(tmp_path, "evil_rules", "[graphlint]\nEV1 = evil_rules:Rule\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend("")
    warnings = []
    rules = discover_rules(warn=warnings.append)
    assert "GL101" in rules and "EV1" not in rules and not warnings


def test_a_zip_on_the_path_uses_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("zz_rules.py", "from graphlint import Rule\nclass ZZ(Rule):\n    code = 'ZZ400'\n    name = 'zz'\n")
        zf.writestr("zz_rules-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: zz-rules\nVersion: 0.1\n")
        zf.writestr("zz_rules-0.1.dist-info/entry_points.txt", "[graphlint]\nZZ400 = zz_rules:ZZ\n")
    monkeypatch.syspath_prepend(str(archive))
    assert "ZZ400" in discover_rules()


def test_a_rule_class_is_used_as_defined_and_an_inherited_hook_is_isolated():
    from graphlint.linter import Linter
    from graphlint.rules._base import Rule

    class Parent(Rule):
        code, name = "XY910", "xy-parent"

        def graphlint_graph_entered(self, site):
            raise KeyError("parent")

    class Child(Parent):
        code, name = "XY911", "xy-child"

        def graphlint_session_created(self, graph_id, site):
            raise ValueError("child")

    defined = {(cls, hook): cls.__dict__[hook] for cls, hook in
               ((Parent, "graphlint_graph_entered"), (Child, "graphlint_session_created"))}
    linter = Linter(rules=[Child], scoped=True)
    scope = linter.open_scope()
    linter.hook.graphlint_graph_entered(graph=None, graph_id=1, site=None)
    linter.hook.graphlint_session_created(session_id=1, graph_id=1, site=None)  # failed before: not called
    assert [f.message for f in scope.finish()] == ["rule XY911 failed in graphlint_graph_entered: KeyError: 'parent'"]
    assert all(cls.__dict__[hook] is function for (cls, hook), function in defined.items())  # nothing wrapped
