"""Run TF2 sample programs under graphlint in ONE eager process; write their findings as JSON.

``python tests/tf2_driver.py OUT.json SAMPLE.py...``: each sample runs as ``__main__`` with
fresh rules (as ``graphlint run`` would), one after the other; TF1 samples must not be given
(they turn eager execution off for the whole process). The tests read OUT.json.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main(out: str, paths: list[str], plain: bool = False) -> int:
    """``plain``: run the samples under no instrumentation (what python prints and returns)."""
    import tensorflow as tf

    from graphlint.linter import Linter
    from graphlint.findings import finding_to_dict
    from graphlint.instrument import instrument
    from graphlint.runner import run_program

    results = {}
    for path in paths:
        assert tf.executing_eagerly(), f"eager execution is off before {path}"
        tf.keras.utils.set_random_seed(0)  # the same values with and without graphlint
        linter = Linter()
        cwd = os.getcwd()
        os.chdir(os.path.dirname(path))
        stdout, stderr = io.StringIO(), io.StringIO()
        try:
            watched = contextlib.nullcontext() if plain else instrument(linter)
            with watched, contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                outcome = run_program(path, None, [])
                findings = [] if plain else linter.finish(outcome.status)
        finally:
            os.chdir(cwd)
        results[path] = {
            "status": outcome.status,
            "findings": [finding_to_dict(f) for f in findings],
            "stdout": stdout.getvalue(),
        }
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(results, fh)
    return 0


if __name__ == "__main__":
    plain = sys.argv[1] == "--plain"
    args = sys.argv[2:] if plain else sys.argv[1:]
    sys.exit(main(args[0], [os.path.abspath(p) for p in args[1:]], plain=plain))
