"""Run programs twice each, plainly and under graphlint, in children forked from one process
that imported TensorFlow once (a TensorFlow import costs seconds; a fork, milliseconds).

``python tests/fork_driver.py OUTDIR PROGRAM.py...`` writes, per program ``i`` and mode
(``plain``, ``graphlint``): ``i.MODE.out`` and ``i.MODE.err`` (the child's stdout and stderr
bytes) and ``i.MODE.json`` (``{"status": ..., "codes": [...]}``: the program's exit status and
the codes graphlint found). TF1 programs turn eager execution off and TF2 ones need it on: each
child starts from the parent's pristine state, so both kinds can be given.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import traceback

import tensorflow  # noqa: F401  imported once, before any fork; no session or eager op yet


def _status(code) -> int:
    """What python's exit status is for ``sys.exit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def plain(path: str):
    """As ``python PATH`` would run it (runpy's own frames aside)."""
    try:
        runpy.run_path(path, run_name="__main__")
        return 0, []
    except SystemExit as exc:
        return _status(exc.code), []
    except BaseException:
        traceback.print_exc()
        return 1, []


def linted(path: str):
    """As ``graphlint run PATH`` runs it."""
    from graphlint.linter import Linter
    from graphlint.instrument import instrument
    from graphlint.runner import run_program

    linter = Linter(warn=lambda message: print(message, file=sys.stderr))
    with instrument(linter):
        outcome = run_program(path, None, ())
        findings = linter.finish(outcome.status)
    return outcome.status, [f.code for f in findings]


def _deterministic() -> None:
    """Seed what an unseeded sample draws from, identically in both runs, so that any
    difference in what it prints is graphlint's doing and not chance."""
    import random

    import numpy as np
    import tensorflow as tf
    from tensorflow.python.framework import ops

    random.seed(0)
    np.random.seed(0)
    tf.random.set_seed(0)
    init = ops.Graph.__init__

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self._seed = 0  # graph-level seed: op seeds then follow from the op count

    ops.Graph.__init__ = __init__
    ops.get_default_graph()._seed = 0


def main(outdir: str, paths: list[str]) -> None:
    outdir = os.path.abspath(outdir)
    for i, path in enumerate(paths):
        path = os.path.abspath(path)
        for mode, run in (("plain", plain), ("graphlint", linted)):
            base = os.path.join(outdir, f"{i}.{mode}")
            pid = os.fork()
            if pid == 0:  # the child: never returns
                code = 99
                try:
                    for fd, suffix in ((1, ".out"), (2, ".err")):
                        os.dup2(os.open(base + suffix, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
                    os.chdir(os.path.dirname(path))
                    sys.argv = [path]
                    sys.path[0] = os.path.dirname(path)
                    _deterministic()
                    status, codes = run(path)
                    with open(base + ".json", "w") as fh:
                        json.dump({"status": status, "codes": codes}, fh)
                    code = 0
                except BaseException:
                    traceback.print_exc()
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            os.waitpid(pid, 0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
