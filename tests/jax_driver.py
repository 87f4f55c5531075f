"""Run JAX sample programs under graphlint in ONE process; write their findings as JSON.

``python tests/jax_driver.py OUT.json SAMPLE.py...``: each sample runs as ``__main__`` with fresh
rules (as ``graphlint run`` would). graphlint itself must not import TensorFlow here: the JSON
records, per sample, whether ``tensorflow`` was in ``sys.modules`` after it ran.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys


def main(out: str, paths: list[str]) -> int:
    from graphlint.linter import Linter
    from graphlint.findings import finding_to_dict
    from graphlint.instrument import instrument
    from graphlint.runner import run_program

    results = {}
    for path in paths:
        linter = Linter()
        cwd = os.getcwd()
        os.chdir(os.path.dirname(path))
        stdout, stderr = io.StringIO(), io.StringIO()
        try:
            with instrument(linter), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                outcome = run_program(path, None, [])
                findings = linter.finish(outcome.status)
        finally:
            os.chdir(cwd)
        results[path] = {
            "status": outcome.status,
            "findings": [finding_to_dict(f) for f in findings],
            "stdout": stdout.getvalue(),
            "stderr": stderr.getvalue(),
            "tensorflow_imported": "tensorflow" in sys.modules,
        }
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(results, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], [os.path.abspath(p) for p in sys.argv[2:]]))
