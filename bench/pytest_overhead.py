"""Overhead of the pytest plugin: one TensorFlow test suite with and without ``--graphlint``.

Writes a suite of N tests (default 60) into a temporary directory — TF1-style models built in
their own graphs, trained and evaluated for a few steps, a few with findings — and runs
``pytest`` on it, alternating plain and ``--graphlint`` runs, each in a fresh process (as a
user would). Prints wall times of the whole run (min and median of the repetitions) and the
ratio. (pytest's own "in N s" is not comparable: with --graphlint TensorFlow is imported at
session start, before pytest's clock, instead of during collection.) Target: ≤ 1.10.

    .venv/bin/python bench/pytest_overhead.py [--tests 60] [--reps 3]
"""

from __future__ import annotations

import argparse
import os
import re
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


_SECONDS = re.compile(r" in ([0-9.]+)s")


def run(root: str, *extra: str) -> tuple[float, float]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *extra, root],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
    )
    wall = time.perf_counter() - start
    tail = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    if proc.returncode not in (0, 1) or "passed" not in tail:
        sys.exit(f"pytest failed unexpectedly:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    match = _SECONDS.search(tail)
    return wall, float(match.group(1)) if match else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=60)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        write_suite(root, args.tests)
        run(root)  # warm the file system caches and the bytecode
        results: dict[str, list[tuple[float, float]]] = {"plain": [], "graphlint": []}
        for _ in range(args.reps):
            results["plain"].append(run(root))
            results["graphlint"].append(run(root, "--graphlint"))
    print(f"pytest suite of {args.tests} TensorFlow tests, {args.reps} runs each (fresh process per run)")
    print(f"{'':22}{'plain':>10}{'--graphlint':>13}{'ratio':>8}")
    for label, pick in (("wall, min", min), ("wall, median", statistics.median)):
        plain = pick(r[0] for r in results["plain"])
        linted = pick(r[0] for r in results["graphlint"])
        print(f"{label:22}{plain:>9.2f}s{linted:>12.2f}s{linted / plain:>8.3f}")
    print("target: ratio <= 1.10")


if __name__ == "__main__":
    main()
