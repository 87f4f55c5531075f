"""The test-shaped samples under samples/pytest/, run by pytest itself: plain and with
``--graphlint``. Each is a test module; a bad one yields exactly the findings its ``# GLnnn``
markers declare, its good twin none, and every test passes both ways (the plugin changes
no outcome). The modules run in two fresh pytest processes, one plain and one watched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from harness import HANG_GUARD, PYTEST_ENV, SAMPLES, expected_markers, is_bad_sample, line_of

PYTEST_SAMPLES = SAMPLES / "pytest"
PATHS = sorted(PYTEST_SAMPLES.glob("*.py"))

pytestmark = pytest.mark.slow


def _run(out: Path, *args: str) -> dict[str, str]:
    junit = out / "junit.xml"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", *args,
         *(str(p) for p in PATHS)],
        cwd=PYTEST_SAMPLES, capture_output=True, text=True, timeout=HANG_GUARD, env={**os.environ, **PYTEST_ENV},
    )
    assert junit.exists(), result.stdout[-3000:] + result.stderr[-3000:]
    outcomes = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        failed = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        outcomes[f"{case.get('classname')}::{case.get('name')}"] = failed[0] if failed else "passed"
    return outcomes


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    plain_dir, watched_dir = tmp_path_factory.mktemp("plain"), tmp_path_factory.mktemp("watched")
    report = watched_dir / "report.json"
    plain = _run(plain_dir)
    watched = _run(watched_dir, "--graphlint", "--graphlint-fail-on=never", f"--graphlint-report={report}")
    findings = json.loads(report.read_text())["findings"]
    return plain, watched, findings


def test_every_sample_test_passes_plain_and_watched_alike(runs):
    plain, watched, _ = runs
    assert plain and set(plain.values()) == {"passed"}, plain
    assert watched == plain


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.name)
def test_bad_sample_yields_exactly_its_markers_and_good_twin_nothing(path, runs):
    findings = [f for f in runs[2] if Path(f["path"]).name == path.name]
    got = {(f["code"], f["line"]) for f in findings}
    if is_bad_sample(path):
        assert got == expected_markers(path), findings
        for f in findings:
            assert all(Path(r["path"]).name == path.name for r in f["related"]), f
    else:
        assert "GL" not in path.read_text(), "a good sample must not mention rule codes"
        assert findings == []


def test_a_rebuilt_fit_names_only_the_fit_calls_as_its_copies(runs):
    path = PYTEST_SAMPLES / "gl101_bad_refit.py"
    (finding,) = [f for f in runs[2] if Path(f["path"]).name == path.name]
    assert "`fit()`" in finding["message"] and "3 times" in finding["message"]
    lines = [r["line"] for r in finding["related"]]
    assert lines == [line_of(path, "first = model.fit(X, Y)"), line_of(path, "        model.fit(X, Y)"),
                     line_of(path, "assert model.fit(X, Y) < first")]
    assert line_of(path, "model.test_on_batch(X, Y)") not in lines
