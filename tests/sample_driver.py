"""Run sample programs under graphlint in ONE fresh process; write what each did as JSON.

``python tests/sample_driver.py {tf2,jax,torch} [--options FILE.json] OUT.json SAMPLE.py...``: each sample runs as
``__main__`` with fresh rules and the configuration of its folder (as ``graphlint run`` would
there: the closest ``graphlint.toml`` or ``pyproject.toml``), one after the other; the tests read
OUT.json (sample path -> status, findings, stdout, stderr, whether ``tensorflow`` was imported).

- ``tf2``: TensorFlow in eager mode, seeded before each sample (the same values with and without
  graphlint). TF1 samples must not be given: they turn eager execution off for the whole process.
- ``jax``, ``torch``: TensorFlow is never imported here, so ``tensorflow_imported`` tells whether
  graphlint imported it for a JAX or PyTorch program. dynamo's caches are emptied before each
  torch sample (``torch._dynamo.reset()``), as a fresh process would have them.
- ``--options FILE.json``: what some programs (a test module's, beside the samples) run with,
  program path -> ``{"sys_path": [...], "env": {...}}``: folders put first on ``sys.path``
  (a rule plugin's distribution) and environment variables, for that program only.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def main(kind: str, out: str, paths: list[str], options: dict | None = None) -> int:
    from graphlint.config import load
    from graphlint.findings import finding_to_dict
    from graphlint.instrument import instrument
    from graphlint.linter import Linter
    from harness import run_main

    tf = None
    if kind == "tf2":
        import tensorflow as tf

    results = {}
    for path in paths:
        if tf is not None:
            assert tf.executing_eagerly(), f"eager execution is off before {path}"
            tf.keras.utils.set_random_seed(0)
        if kind == "torch" and "torch._dynamo" in sys.modules:
            sys.modules["torch._dynamo"].reset()
        extra = (options or {}).get(path, {})
        env = extra.get("env", {})
        saved_path, saved_env = sys.path[:], {name: os.environ.get(name) for name in env}
        sys.path[:0] = extra.get("sys_path", [])
        os.environ.update(env)
        cwd = os.getcwd()
        stdout, stderr = io.StringIO(), io.StringIO()
        try:
            linter = Linter(load(None, start=os.path.dirname(path)))
            os.chdir(os.path.dirname(path))
            with instrument(linter), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                outcome = run_main(path)
                findings = linter.finish(outcome.status)
        finally:
            os.chdir(cwd)
            sys.path[:] = saved_path
            for name, value in saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
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
    kind, *args = sys.argv[1:]
    assert kind in ("tf2", "jax", "torch"), (
        f"usage: {sys.argv[0]} {{tf2,jax,torch}} [--options FILE.json] OUT.json SAMPLE.py...")
    options = None
    if args[0] == "--options":
        with open(args[1], encoding="utf-8") as fh:
            options = json.load(fh)
        args = args[2:]
    sys.exit(main(kind, args[0], [os.path.abspath(p) for p in args[1:]], options=options))
