"""The distribution as a user installs it: its name, one version, extras bounded to what the
tests run, and a wheel built from the checkout that carries the command and the plugins."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

import graphlint
from harness import HANG_GUARD

ROOT = Path(__file__).resolve().parents[2]


def test_the_distribution_is_graphlint_ml_with_the_packages_one_version():
    dist = metadata.distribution(graphlint.DISTRIBUTION)
    assert dist.metadata["Name"] == "graphlint-ml"
    assert dist.version == graphlint.__version__
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["dynamic"] == ["version"] and "version" not in project


def test_framework_extras_are_bounded_to_the_versions_the_tests_run():
    requires = metadata.requires(graphlint.DISTRIBUTION)
    for name in ("jax", "tensorflow", "tensorflow-cpu"):
        spec = next(r for r in requires if r.startswith(name + "<") or r.startswith(name + ">"))
        assert "<" in spec, spec  # an upper bound: the probes patch internals
        installed = metadata.version("jax" if name == "jax" else "tensorflow")
        low = re.search(r">=([\d.]+)", spec).group(1)
        high = re.search(r"<([\d.]+)", spec).group(1)
        version = tuple(map(int, installed.split(".")[:2]))
        assert tuple(map(int, low.split(".")[:2])) <= version < tuple(map(int, high.split(".")[:2])), (spec, installed)


def test_the_cache_folder_is_git_ignored():
    assert ".graphlint_cache/" in (ROOT / ".gitignore").read_text().splitlines()


@pytest.mark.slow
def test_a_wheel_built_from_the_checkout_has_the_command_the_plugins_and_the_metadata(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, timeout=HANG_GUARD,
    )
    (wheel,) = tmp_path.glob("graphlint_ml-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        info = f"graphlint_ml-{graphlint.__version__}.dist-info"
        entry_points = zf.read(f"{info}/entry_points.txt").decode()
        meta = zf.read(f"{info}/METADATA").decode()
        names = zf.namelist()
    assert "graphlint = graphlint._start:console" in entry_points
    # the built-in rules are the units of graphlint/rules/, found without an entry point
    assert "[pytest11]" in entry_points and "[graphlint]" not in entry_points
    assert {"graphlint/rules/graph_not_default/__init__.py", "graphlint/rules/graph_not_default/check.py"} <= set(names)
    assert f"Version: {graphlint.__version__}" in meta and "Name: graphlint-ml" in meta
    assert "graphlint/py.typed" in names
    assert "Project-URL" not in meta  # no public home yet: no URL that is not this project's
    # the licence the metadata names travels with the wheel, as Apache-2.0 asks (section 4a)
    assert f"{info}/licenses/LICENSE" in names or f"{info}/LICENSE" in names, [n for n in names if "dist-info" in n]
    assert "Apache-2.0" in meta
