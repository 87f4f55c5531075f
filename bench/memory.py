"""Peak memory of two long-running programs, plain and under graphlint.

    python bench/memory.py [--graphs 10000] [--runs 1000000]

Program *graphs* builds, runs and drops N graphs (three sessions each, one op added after the
first run); program *runs* calls ``sess.run`` N times on one session. Each runs in a fresh
process, plainly and under ``graphlint.instrument()``, once measuring Python allocations with
tracemalloc (peak above the state right after importing TensorFlow) and once measuring the
process's peak RSS (ru_maxrss, without tracemalloc's own overhead). graphlint's memory is
bounded when the differences stay flat as N grows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def graphs(n: int) -> None:
    import numpy as np
    import tensorflow as tf

    v1 = tf.compat.v1
    feed = np.ones(2, np.float32)
    for _ in range(n):
        graph = tf.Graph()
        with graph.as_default():
            x = v1.placeholder(tf.float32, [2])
            w = v1.Variable(tf.ones([2]))
            y = x * w
            init = v1.global_variables_initializer()
        for _ in range(3):
            with v1.Session(graph=graph) as sess:
                sess.run(init)
                sess.run(y, {x: feed})
                with graph.as_default():
                    z = y + 1.0
                sess.run(z, {x: feed})


def runs(n: int) -> None:
    import tensorflow as tf

    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [])
        y = x + 1.0
    with v1.Session(graph=graph) as sess:
        run = sess.run
        for i in range(n):
            run(y, {x: 1.0})


def child(program: str, n: int, linted: bool, trace: bool) -> None:
    import resource
    import tracemalloc

    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    if trace:
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    body = {"graphs": graphs, "runs": runs}[program]
    findings = None
    if linted:
        import graphlint

        with graphlint.instrument(warn=lambda m: None) as linter:
            body(n)
        findings = len(linter.finish())
    else:
        body(n)
    result = {
        "seconds": round(time.perf_counter() - start, 1),
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "findings": findings,
    }
    if trace:
        result["traced_peak_mb"] = (tracemalloc.get_traced_memory()[1] - base) / 2**20
    print(json.dumps(result))


def measure(program: str, n: int, linted: bool, trace: bool) -> dict:
    args = [sys.executable, __file__, "--child", program, str(n)]
    args += ["--linted"] if linted else []
    args += ["--trace"] if trace else []
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    out = subprocess.run(args, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--linted", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        child(opts.child[0], int(opts.child[1]), opts.linted, opts.trace)
        return
    print(f"{'program':<22} {'mode':<10} {'tracemalloc peak':>17} {'peak RSS':>10} {'time':>8}  findings")
    for program, n in (("graphs", opts.graphs), ("runs", opts.runs)):
        for linted in (False, True):
            traced = measure(program, n, linted, trace=True)
            rss = measure(program, n, linted, trace=False)
            mode = "graphlint" if linted else "plain"
            print(
                f"{program + ' ' + format(n, ','):<22} {mode:<10} {traced['traced_peak_mb']:>14.1f} MB"
                f" {rss['maxrss_mb']:>7.0f} MB {rss['seconds']:>7.1f}s  {rss['findings'] if linted else '-'}",
                flush=True,
            )


if __name__ == "__main__":
    main()
