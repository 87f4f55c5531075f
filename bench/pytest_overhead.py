"""Overhead of the pytest plugin: one TensorFlow test suite with and without ``--graphlint``.

Writes a suite of N tests (default 60) into a temporary directory — TF1-style models built in
their own graphs, trained and evaluated for a few steps, a few with findings — and runs
``pytest`` on it, alternating plain and ``--graphlint`` runs, each in a fresh process (as a
user would). Prints wall times of the whole run (min and median of the repetitions) and the
ratio. (pytest's own "in N s" is not comparable: with --graphlint TensorFlow is imported at
session start, before pytest's clock, instead of during collection.) Target: ≤ 1.10. The plain run must exit
0 and the ``--graphlint`` run 0 or 1 (1: it reports the suite's rebuilds), each with every test
passed: anything else stops the benchmark rather than looking fast.

``--baseline DIR`` also times another graphlint's plugin — a folder holding its ``graphlint``
package, e.g. ``git archive REV graphlint | tar -x -C DIR`` — in the same rounds (put first on
``PYTHONPATH``): before → after side by side in one run.

    .venv/bin/python bench/pytest_overhead.py [--tests 60] [--reps 3] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import textwrap

TEST = textwrap.dedent(
    """
    def test_model_{i}():
        graph = tf.Graph()
        with graph.as_default():
            x = tf1.placeholder(tf.float32, [None, 8])
            y = tf1.placeholder(tf.float32, [None, 1])
            h = tf.nn.relu(tf.matmul(x, tf1.get_variable("w1", [8, 16])) + tf1.get_variable("b1", [16]))
            out = tf.matmul(h, tf1.get_variable("w2", [16, 1]))
            loss = tf.reduce_mean(tf.square(out - y))
            train = tf1.train.GradientDescentOptimizer(0.01).minimize(loss)
            init = tf1.global_variables_initializer()
        graph.finalize()
        with tf1.Session(graph=graph) as sess:
            sess.run(init)
            for _ in range(20):
                sess.run(train, {{x: X, y: Y}})
            assert sess.run(loss, {{x: X, y: Y}}) >= 0
    """
)

BAD = textwrap.dedent(
    """
    def forecast_{i}(sess, data):
        inputs = tf1.placeholder(tf.float32, [None, 8])
        return sess.run(tf.reduce_sum(inputs), {{inputs: data}})


    def test_rebuilds_{i}():
        with tf1.Session() as sess:
            assert forecast_{i}(sess, X) == forecast_{i}(sess, X)
    """
)

HEADER = textwrap.dedent(
    """
    import numpy as np
    import tensorflow as tf

    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    X = np.ones((32, 8), np.float32)
    Y = np.ones((32, 1), np.float32)
    """
)


def write_suite(root: str, n: int) -> None:
    per_file = 10
    for f in range(0, n, per_file):
        body = [HEADER]
        for i in range(f, min(n, f + per_file)):
            body.append((BAD if i % 10 == 9 else TEST).format(i=i))
        with open(os.path.join(root, f"test_suite_{f // per_file}.py"), "w") as fh:
            fh.write("\n".join(body))


def run(root: str, *extra: str, pythonpath: str | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, every thread) of one pytest run."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *extra, root],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    allowed = (0, 1) if extra else (0,)
    if proc.returncode not in allowed or "passed" not in tail or "failed" in tail or "error" in tail:
        sys.exit(f"pytest failed unexpectedly (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=60)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--baseline", metavar="DIR", help="a folder with another graphlint package to time too")
    args = parser.parse_args()
    variants: dict[str, tuple[tuple[str, ...], str | None]] = {
        "plain": ((), None),
        "--graphlint": (("--graphlint",), None),
    }
    if args.baseline:
        base = os.path.abspath(args.baseline)
        if not os.path.isfile(os.path.join(base, "graphlint", "__init__.py")):
            sys.exit(f"pytest_overhead: {base} holds no graphlint package")
        variants["baseline --graphlint"] = (("--graphlint",), base)
    names = list(variants)
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as root:
        write_suite(root, args.tests)
        run(root)  # warm the file system caches and the bytecode
        for i in range(args.reps):
            for name in names[i % len(names):] + names[: i % len(names)]:  # each goes first in turn
                extra, pythonpath = variants[name]
                results[name].append(run(root, *extra, pythonpath=pythonpath))
    print(f"pytest suite of {args.tests} TensorFlow tests, {args.reps} runs each (fresh process per run)")
    print(f"{'':22}" + "".join(f"{name:>22}" for name in names))
    for label, pick, i in (("wall, min", min, 0), ("wall, median", statistics.median, 0), ("CPU, median", statistics.median, 1)):
        print(f"{label:22}" + "".join(f"{pick(r[i] for r in results[name]):>21.2f}s" for name in names))
    plain = results["plain"]
    for name in names[1:]:
        wall = statistics.median(r[0] / p[0] for r, p in zip(results[name], plain))
        cpu = statistics.median(r[1] / p[1] for r, p in zip(results[name], plain))
        print(f"ratio {name} / plain, median of the rounds: wall {wall:.3f}, CPU {cpu:.3f}")
    print("target: ratio <= 1.10 (goal 1.05)")


if __name__ == "__main__":
    main()
