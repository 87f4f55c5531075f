"""Overhead of graphlint's instrumentation on a TF2 training loop, measured in one process.

The workload: ``STEPS`` calls of a small ``@tf.function`` training step (a two-layer MLP,
GradientTape, SGD update on ``tf.Variable``s) on a 32×16 batch — the pattern where per-call
overhead shows most, since each step is tiny. Timed without graphlint ("plain") and inside
``graphlint.instrument()`` with every built-in rule enabled (as ``graphlint run`` does),
alternating repetitions after a warm-up; each repetition makes a fresh function and traces it
once, outside the timed loop.

Prints seconds (min and median over the repetitions) and the ratio instrumented/plain (of the
minima, the least noisy figure on a shared machine). Run: ``python bench/tf2_overhead.py [--reps N]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf  # noqa: E402

import graphlint  # noqa: E402
from graphlint.linter import Linter  # noqa: E402
from tf2_workload import STEPS, make_step, train  # noqa: E402


# -- timing -----------------------------------------------------------------------------------
def timed(instrumented: bool, n: int) -> float:
    gc.collect()
    if instrumented:
        with graphlint.instrument(Linter()) as linter:
            step = make_step()
            train(step, 3)  # the trace: not measured
            start = time.perf_counter()
            train(step, n)
            elapsed = time.perf_counter() - start
            del step
            linter.finish()
    else:
        step = make_step()
        train(step, 3)
        start = time.perf_counter()
        train(step, n)
        elapsed = time.perf_counter() - start
    return elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="repetitions per variant (default 7)")
    parser.add_argument("--steps", type=int, default=STEPS)
    args = parser.parse_args(argv)

    timed(False, args.steps // 10)  # warm-up, both ways
    timed(True, args.steps // 10)
    plain, inst = [], []
    for rep in range(args.reps):
        order = (False, True) if rep % 2 == 0 else (True, False)
        for instrumented in order:
            (inst if instrumented else plain).append(timed(instrumented, args.steps))

    print(f"TensorFlow {tf.__version__}, Python {sys.version.split()[0]}, {args.reps} reps each")
    head = f"{'workload':<26}{'plain min':>11}{'instr min':>11}{'plain med':>11}{'instr med':>11}{'ratio min':>11}{'ratio med':>11}"
    print(head)
    print("-" * len(head))
    pm, im = min(plain), min(inst)
    pd, id_ = statistics.median(plain), statistics.median(inst)
    name = f"{args.steps} tf.function steps"
    print(f"{name:<26}{pm:>10.3f}s{im:>10.3f}s{pd:>10.3f}s{id_:>10.3f}s{im / pm:>11.3f}{id_ / pd:>11.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
