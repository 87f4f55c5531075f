"""Run sample programs under graphlint in ONE fresh process; write what each did as JSON.

``python tests/sample_driver.py {tf2,jax,torch} [--options FILE.json] [--parts N] OUT.json SAMPLE.py...``: each sample runs as
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
- ``--parts N``: the samples run in N children side by side (child ``i`` runs every N-th from
  the ``i``-th), forked from this process once it imported the framework (TensorFlow: 4-5 s of
  CPU, once instead of once per part; no op has run yet, so each child starts as a fresh
  process would, as tests/fork_driver.py's children do).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import traceback

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


def main_in_parts(kind: str, out: str, paths: list[str], parts: int, options: dict | None = None) -> int:
    """:func:`main` on every ``parts``-th path in each of ``parts`` children forked once the
    framework is imported (TensorFlow for ``tf2``), their results joined in ``out``."""
    if parts == 1:
        return main(kind, out, paths, options)
    if kind == "tf2":
        import tensorflow  # noqa: F401  imported once, before any fork; no eager op yet
    import graphlint.instrument  # noqa: F401
    import graphlint.linter  # noqa: F401

    children = []
    for i in range(parts):
        part, part_out = paths[i::parts], f"{out}.part{i}"
        if not part:
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: its programs, then out at once (the parent ends the process's work)
            status = 1
            try:
                status = main(kind, part_out, part, options)
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        children.append((pid, part_out))
    results, failed = {}, []
    for pid, part_out in children:
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if status != 0:
            failed.append(f"{part_out}: exit status {status}")
            continue
        with open(part_out, encoding="utf-8") as fh:
            results.update(json.load(fh))
    if failed:
        print("sample_driver: a part failed: " + "; ".join(failed), file=sys.stderr)
        return 1
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(results, fh)
    return 0


if __name__ == "__main__":
    kind, *args = sys.argv[1:]
    assert kind in ("tf2", "jax", "torch"), (
        f"usage: {sys.argv[0]} {{tf2,jax,torch}} [--options FILE.json] [--parts N] OUT.json SAMPLE.py...")
    options, parts = None, 1
    if args[0] == "--options":
        with open(args[1], encoding="utf-8") as fh:
            options = json.load(fh)
        args = args[2:]
    if args[0] == "--parts":
        parts, args = int(args[1]), args[2:]
    sys.exit(main_in_parts(kind, args[0], [os.path.abspath(p) for p in args[1:]], parts, options=options))
