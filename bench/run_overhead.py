"""Whole-process overhead of ``graphlint run`` against ``python``, side by side in one run.

The program (written to a temporary file) builds a graph of ``--ops`` ops through nested user
functions, then calls ``sess.run`` ``--runs`` times: what a TF1 training script does. Each pair
runs ``python PROGRAM`` and ``graphlint run PROGRAM`` one after the other (alternating which goes
first); the figure is the median ratio over ``--pairs`` pairs. Start-up (TensorFlow's import,
graphlint's own) is part of the figure: this is what a user waits for.

Every timed command must exit 0 (the program is clean, so graphlint finds nothing): anything
else stops the benchmark rather than looking fast.

``--baseline DIR`` also times another graphlint — a folder holding its ``graphlint`` package,
e.g. ``git archive REV graphlint | tar -x -C DIR`` — in the same pairs (put first on
``PYTHONPATH``), so a change is measured before → after side by side in one run.

    .venv/bin/python bench/run_overhead.py [--pairs 3] [--ops 40000] [--runs 40000] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import textwrap

from timing import timed_cpu

PROGRAM = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {bench!r})
    from workload import build_model, np, tf, v1  # the graph bench/overhead.py builds too

    graph, x = build_model({ops})
    with graph.as_default():
        small = v1.placeholder(tf.float32, [None, 8])
        y = tf.reduce_sum(tf.nn.relu(small))
    with v1.Session(graph=graph) as sess:
        feed = np.ones((2, 8), np.float32)
        for i in range({runs}):
            feed[0, 0] = i
            sess.run(y, {{small: feed}})
    """
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--ops", type=int, default=40_000)
    parser.add_argument("--runs", type=int, default=40_000)
    parser.add_argument("--baseline", metavar="DIR", help="a folder with another graphlint package to time too")
    args = parser.parse_args()
    graphlint = os.path.join(os.path.dirname(sys.executable), "graphlint")
    variants = {"python": None, "graphlint run": None}
    if args.baseline:
        base = os.path.abspath(args.baseline)
        if not os.path.isfile(os.path.join(base, "graphlint", "__init__.py")):
            sys.exit(f"run_overhead: {base} holds no graphlint package")
        variants["baseline graphlint run"] = dict(os.environ, PYTHONPATH=base)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    with tempfile.TemporaryDirectory() as tmp:
        program = os.path.join(tmp, "train.py")
        with open(program, "w") as fh:
            fh.write(PROGRAM.format(bench=os.path.dirname(os.path.abspath(__file__)), ops=args.ops, runs=args.runs))
        commands = {name: [sys.executable, program] if name == "python" else [graphlint, "run", program] for name in variants}
        names = list(variants)
        for i in range(args.pairs):
            for name in names[i % len(names):] + names[: i % len(names)]:  # each goes first in turn
                times[name].append(timed_cpu(commands[name], variants[name]))
    plain = times["python"]
    print(f"{args.ops:,} ops built + {args.runs:,} sess.run, whole process, median of {args.pairs} runs each:")
    print(f"  python: wall {statistics.median(t[0] for t in plain):.2f} s, CPU {statistics.median(t[1] for t in plain):.2f} s")
    for name in names[1:]:
        wall = statistics.median(g[0] / p[0] for g, p in zip(times[name], plain))
        cpu = statistics.median(g[1] / p[1] for g, p in zip(times[name], plain))
        print(
            f"  {name}: wall {statistics.median(t[0] for t in times[name]):.2f} s, "
            f"CPU {statistics.median(t[1] for t in times[name]):.2f} s; ratio wall {wall:.3f}, CPU {cpu:.3f} "
            f"(medians of the rounds' ratios)"
        )
    print("goal <= 1.05, bar <= 1.10; on a loaded machine trust the CPU ratio (waiting for a core is not in it)")


if __name__ == "__main__":
    main()
