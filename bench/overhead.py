"""Overhead of graphlint's instrumentation, measured in one process.

Two workloads, each timed without graphlint ("plain") and inside ``graphlint.instrument()``
with every built-in rule enabled (as ``graphlint run`` does), alternating repetitions after a
warm-up, a fresh ``tf.Graph`` per repetition:

* build: a graph of ~20,000 ops (matmul/add/relu chains built by nested user functions, so that
  the probes capture realistic user stacks);
* run:   20,000 ``sess.run`` calls of a tiny graph (same fetches, changing feed values).

Prints seconds (min and median over the repetitions) and the ratio instrumented/plain (of the
minima, the least noisy figure on a shared machine). Run: ``python bench/overhead.py [--reps N]``.

``--clock cpu`` times the process's CPU (every thread) instead of the wall clock: on a loaded
machine, waiting for a core is then left out. ``--baseline DIR`` compares two graphlints: this one and the ``graphlint`` package in DIR (e.g.
``git archive REV graphlint | tar -x -C DIR``). Each repetition then runs in a fresh process per
graphlint (DIR first on its ``PYTHONPATH``), the two alternating, each timing plain and
instrumented in that process; it prints both rows: before → after side by side in one run.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time

from workload import build_model, np, tf, v1  # puts TensorFlow in graph mode

import graphlint
from graphlint.linter import Linter

BUILD_OPS = 20_000
RUNS = 20_000
clock = time.perf_counter  # --clock cpu: time.process_time (every thread's CPU, no waiting for a core)


# -- the workloads: plain user code (the graph: bench/workload.py) ---------------------------
def build_tiny():
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2], name="x")
        y = x * 2.0 + 1.0
    sess = v1.Session(graph=graph)
    return graph, sess, x, y


def run_loop(sess, x, y, n: int) -> float:
    total = 0.0
    feed = np.zeros(2, dtype=np.float32)
    for i in range(n):
        feed[0] = i
        total += float(sess.run(y, {x: feed})[0])
    return total


# -- timing -----------------------------------------------------------------------------------
def timed_build(instrumented: bool, n_ops: int) -> float:
    gc.collect()
    if instrumented:
        with graphlint.instrument(Linter()) as linter:
            start = clock()
            graph, _ = build_model(n_ops)
            del graph
            gc.collect()
            elapsed = clock() - start
            linter.finish()
    else:
        start = clock()
        graph, _ = build_model(n_ops)
        del graph
        gc.collect()
        elapsed = clock() - start
    return elapsed


def timed_runs(instrumented: bool, n_runs: int) -> float:
    gc.collect()
    if instrumented:
        with graphlint.instrument(Linter()) as linter:
            graph, sess, x, y = build_tiny()
            run_loop(sess, x, y, 10)  # first run: executor creation, not measured
            start = clock()
            run_loop(sess, x, y, n_runs)
            elapsed = clock() - start
            sess.close()
            del graph, sess
            linter.finish()
    else:
        graph, sess, x, y = build_tiny()
        run_loop(sess, x, y, 10)
        start = clock()
        run_loop(sess, x, y, n_runs)
        elapsed = clock() - start
        sess.close()
    return elapsed


def measure(fn, size: int, reps: int) -> tuple[list[float], list[float]]:
    fn(False, max(1, size // 10))  # warm-up, both ways
    fn(True, max(1, size // 10))
    plain, inst = [], []
    for rep in range(reps):
        order = (False, True) if rep % 2 == 0 else (True, False)
        for instrumented in order:
            (inst if instrumented else plain).append(fn(instrumented, size))
    return plain, inst


def compare(args) -> list[tuple[str, list[float], list[float]]]:
    """``--baseline``: every repetition in two fresh processes, this graphlint's and DIR's."""
    base = os.path.abspath(args.baseline)
    if not os.path.isfile(os.path.join(base, "graphlint", "__init__.py")):
        sys.exit(f"overhead: {base} holds no graphlint package")
    variants = {"": None, "baseline ": dict(os.environ, PYTHONPATH=base)}
    cmd = [sys.executable, os.path.abspath(__file__), "--reps", "1", "--ops", str(args.ops), "--runs", str(args.runs), "--clock", args.clock, "--json"]
    if args.only:
        cmd += ["--only", args.only]
    rows: dict[str, tuple[list[float], list[float]]] = {}
    for rep in range(args.reps):
        for prefix in (list(variants) if rep % 2 == 0 else list(variants)[::-1]):
            proc = subprocess.run(cmd, env=variants[prefix], capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"overhead: the {prefix or 'current '}run exited {proc.returncode}:\n{proc.stderr[-2000:]}")
            for name, plain, inst in json.loads(proc.stdout.splitlines()[-1]):
                row = rows.setdefault(prefix + name, ([], []))
                row[0].extend(plain)
                row[1].extend(inst)
    order = list(dict.fromkeys(name.removeprefix("baseline ") for name in rows))
    return sorted(
        ((name, plain, inst) for name, (plain, inst) in rows.items()),
        key=lambda row: (order.index(row[0].removeprefix("baseline ")), row[0].startswith("baseline ")),
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per variant (default 5)")
    parser.add_argument("--ops", type=int, default=BUILD_OPS)
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--only", choices=["build", "run"])
    parser.add_argument("--baseline", metavar="DIR", help="a folder with another graphlint package to compare")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall", help="cpu: process CPU time, for a loaded machine")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # --baseline's child processes
    args = parser.parse_args(argv)
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter

    rows = []
    if args.baseline:
        rows = compare(args)
    else:
        if args.only in (None, "build"):
            rows.append((f"build {args.ops} ops", *measure(timed_build, args.ops, args.reps)))
        if args.only in (None, "run"):
            rows.append((f"{args.runs} sess.run", *measure(timed_runs, args.runs, args.reps)))
    if args.json:
        print(json.dumps(rows))
        return 0

    print(f"TensorFlow {tf.__version__}, Python {sys.version.split()[0]}, {args.reps} reps each, {args.clock} time")
    head = f"{'workload':<31}{'plain min':>11}{'instr min':>11}{'plain med':>11}{'instr med':>11}{'ratio min':>11}{'ratio med':>11}"
    print(head)
    print("-" * len(head))
    for name, plain, inst in rows:
        pm, im = min(plain), min(inst)
        pd, id_ = statistics.median(plain), statistics.median(inst)
        print(f"{name:<31}{pm:>10.3f}s{im:>10.3f}s{pd:>10.3f}s{id_:>10.3f}s{im / pm:>11.3f}{id_ / pd:>11.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
