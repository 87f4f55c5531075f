"""Whole processes timed for the overhead benchmarks (``run_overhead.py``, ``jax_overhead.py``):
one command (it must exit 0: a failing command stops the benchmark rather than looking fast),
and alternating pairs of ``python PROGRAM`` / ``graphlint run PROGRAM``."""

from __future__ import annotations

import os
import resource
import shlex
import subprocess
import sys
import time


def timed(cmd: list[str], env: dict | None = None) -> float:
    """Seconds ``cmd`` takes (in ``env``, default this one); the benchmark stops if it exits
    other than 0."""
    return timed_cpu(cmd, env)[0]


def timed_cpu(cmd: list[str], env: dict | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, every thread) of ``cmd``, as :func:`timed`.
    CPU time is the figure to compare on a loaded machine: waiting for a core is not in it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        bench = os.path.splitext(os.path.basename(sys.argv[0]))[0]
        sys.exit(f"{bench}: {shlex.join(cmd)} exited {proc.returncode}: {err[0]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def pairs(plain_cmd: list[str], gl_cmd: list[str], n: int, warm_up: bool = False) -> tuple[list[float], list[float]]:
    """``n`` pairs, alternating which goes first: (plain seconds, instrumented seconds).
    ``warm_up``: one untimed run of each first (bytecode caches written)."""
    if warm_up:
        timed(plain_cmd), timed(gl_cmd)
    plain, instrumented = [], []
    for i in range(n):
        if i % 2:
            instrumented.append(timed(gl_cmd))
            plain.append(timed(plain_cmd))
        else:
            plain.append(timed(plain_cmd))
            instrumented.append(timed(gl_cmd))
    return plain, instrumented
