"""``graphlint check`` on samples/ gives exactly the findings of a committed snapshot.

The static engine's findings on every sample are a fixed point while the engine's insides
change (issue 27: the model and the checks were rearranged without changing a finding). The
snapshot holds what a user reads of each finding in the JSON report; fields the report gains
later do not make it stale. After an intended change of a finding, write it again:

    .venv/bin/python tests/static/test_samples_report.py
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = Path(__file__).with_name("samples_report.json")
#: The fields of a finding the snapshot keeps, as the JSON report names them.
FIELDS = ("code", "name", "severity", "message", "path", "line", "column", "related", "fix")


def samples_report() -> list[dict]:
    """The findings of ``graphlint check --no-cache --format json samples``, run from the
    repository's root, with the fields of :data:`FIELDS`."""
    from click.testing import CliRunner

    from graphlint.cli import main

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(
            main, ["check", "--no-cache", "--no-plugins", "--format", "json", "--exit-zero", "samples"],
            catch_exceptions=False,
        )
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    return [{k: f.get(k) for k in FIELDS} for f in json.loads(result.stdout)["findings"]]


def test_samples_report_matches_the_snapshot():
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert samples_report() == expected


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    SNAPSHOT.write_text(json.dumps(samples_report(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT.relative_to(ROOT)}")
