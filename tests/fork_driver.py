"""Run programs twice each, plainly and under graphlint, in children forked from one process
that imported TensorFlow once (a TensorFlow import costs seconds; a fork, milliseconds).

``python tests/fork_driver.py OUTDIR [--imports MODULE,...] PROGRAM.py... [--imports ...] ...``
writes, per program ``i`` (its place among all the programs given) and mode (``plain``,
``graphlint``): ``i.MODE.out`` and ``i.MODE.err`` (the child's stdout and stderr bytes) and
``i.MODE.json`` (``{"status": ..., "codes": [...], "warnings": [...]}``: the program's exit
status, the codes graphlint found and its warnings). Under graphlint the child is set up as
``graphlint run``'s child is (its start-up hook installed, the engine started since TensorFlow
is imported already) and its record is read back as the parent reads it. TF1 programs turn
eager execution off and TF2 ones need it on: each child starts from the parent's pristine
state, so both kinds can be given.

``--imports`` starts a group of programs (those up to the next ``--imports``) and names the
modules its programs import (``keras``, ``torch``, ``jax``: a second or more each): the group's
children are forked from a parent forked for the group that imported them once, so that no
child imports them again. Programs before any ``--imports`` are a group that imports nothing
more than TensorFlow.
"""

from __future__ import annotations

import json
import os
import sys
import traceback

import tensorflow  # noqa: F401  imported once, before any fork; no session or eager op yet

# here, while this folder is sys.path[0]: a child puts its program's folder there instead (an
# import of harness in the child failed, and every child ran nothing in either mode)
from harness import run_main


def plain(path: str) -> int:
    """As ``python PATH`` would run it: its exit status."""
    return run_main(path).status


def linted(path: str, channel: str):
    """As ``graphlint run PATH``'s child runs it (its report is written at os._exit)."""
    from graphlint._boot import sitecustomize as hook

    hook.install(channel).start_engine()
    return plain(path)


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


def _forked(failed: int, body, *args) -> int:
    """The pid of a child forked from this process to run ``body(*args)``. The child never
    returns: it exits 0 when ``body`` returns, ``failed`` (its traceback printed) when it raises."""
    pid = os.fork()
    if pid == 0:
        code = failed
        try:
            body(*args)
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    return pid


def _run_program(path: str, base: str, run) -> None:
    """In a forked child: run ``path`` with ``run``, its stdout and stderr into ``base``'s files."""
    for fd, suffix in ((1, ".out"), (2, ".err")):
        os.dup2(os.open(base + suffix, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    os.chdir(os.path.dirname(path))
    sys.argv = [path]
    sys.path[0] = os.path.dirname(path)
    _deterministic()
    status = run(path)
    with open(base + ".json", "w") as fh:
        json.dump({"status": status}, fh)


def _group_parent(outdir: str, modules: list[str], programs: list[tuple[int, str]]) -> None:
    """In a group's forked parent: import the group's modules, then run its programs."""
    import importlib

    for name in modules:
        importlib.import_module(name)
    _run_group(outdir, programs)


def _run_group(outdir: str, programs: list[tuple[int, str]]) -> None:
    """Run ``programs`` (index, path), each twice, in children forked from this process."""
    import pickle
    import shutil
    import tempfile

    from graphlint._boot.sitecustomize import SETTINGS
    from graphlint.channel import outcome_of, read_records
    from graphlint.config import Config

    for i, path in programs:
        path = os.path.abspath(path)
        for mode in ("plain", "graphlint"):
            channel = tempfile.mkdtemp(prefix="graphlint-run-")
            with open(os.path.join(channel, SETTINGS), "wb") as fh:
                pickle.dump({"config": Config(), "plugins": True}, fh)
            run = plain if mode == "plain" else (lambda path: linted(path, channel))
            base = os.path.join(outdir, f"{i}.{mode}")
            pid = _forked(99, _run_program, path, base, run)
            os.waitpid(pid, 0)
            reported = outcome_of(read_records(channel), pid, 0)
            shutil.rmtree(channel)
            result = {"status": None}
            if os.path.exists(base + ".json"):
                with open(base + ".json") as fh:
                    result = json.load(fh)
            result.update(codes=[f.code for f in reported.findings], warnings=reported.warnings)
            with open(base + ".json", "w") as fh:
                json.dump(result, fh)


def groups(args: list[str]) -> list[tuple[list[str], list[tuple[int, str]]]]:
    """The command line's groups: (modules to import, [(index, program path)])."""
    found: list[tuple[list[str], list[tuple[int, str]]]] = [([], [])]
    args, index = list(args), 0
    while args:
        arg = args.pop(0)
        if arg == "--imports":
            found.append(([name for name in args.pop(0).split(",") if name], []))
        else:
            found[-1][1].append((index, arg))
            index += 1
    return [group for group in found if group[1]]


def main(outdir: str, args: list[str]) -> int:
    """Each group in a parent of its own, forked from this process (which imported TensorFlow
    and graphlint's harness); that parent imports the group's modules, then forks its children.
    The groups run one after another; the exit status is 1 if a group's parent failed."""
    outdir = os.path.abspath(outdir)
    failed = 0
    for modules, programs in groups(args):
        pid = _forked(1, _group_parent, outdir, modules, programs)
        _, status = os.waitpid(pid, 0)
        failed |= status != 0
    return int(failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
