"""Whole-process cost of ``graphlint run`` against ``python``, side by side in one run.

Three programs (written to a temporary folder), each run as ``python PROGRAM`` and as
``graphlint run PROGRAM`` in alternating pairs (each goes first in turn):

- ``empty``: an empty script: the start-up cost, in milliseconds (the median difference of
  ``--startup-pairs`` pairs), split into graphlint's own process (the command line, the rules'
  discovery, the configuration) and the child's start-up hook (``python`` with graphlint's
  start-up folder and channel in its environment, against plain ``python``);
- ``tf1``: a graph of ``--ops`` ops built through nested user functions, then ``--runs`` calls of
  ``sess.run``: what a TF1 training script does;
- ``tf2``: ``--steps`` calls of a small ``@tf.function`` training step.

For the TensorFlow programs the figure is the median ratio over ``--pairs`` pairs (TensorFlow's
import and graphlint's own start are in it: this is what a user waits for); the goal is <= 1.05.
Every timed command must exit 0 (the programs are clean, so graphlint finds nothing): anything
else stops the benchmark rather than looking fast. Bytecode caches are on for the timed
processes, as in a user's install (one untimed run of each command writes them).

``--baseline DIR`` also times another graphlint — a folder holding its ``graphlint`` package,
e.g. ``git archive REV graphlint | tar -x -C DIR`` — in the same pairs (put first on
``PYTHONPATH``), so a change is measured before → after side by side in one run.

    .venv/bin/python bench/run_overhead.py [--pairs 3] [--ops 40000] [--runs 40000] [--steps 20000]
        [--startup-pairs 20] [--only empty,tf1,tf2] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import sys
import tempfile
import textwrap

from timing import timed_cpu

TF1 = textwrap.dedent(
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
TF2 = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {bench!r})
    from tf2_workload import make_step, train  # the step bench/tf2_overhead.py times too

    print(train(make_step(), {steps}))
    """
)


def _pairs(commands: dict[str, tuple[list[str], dict | None]], n: int) -> dict[str, list[tuple[float, float]]]:
    """``n`` rounds of every command, each going first in turn: name -> [(wall, cpu)]."""
    names = list(commands)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for i in range(n):
        for name in names[i % len(names):] + names[: i % len(names)]:
            command, env = commands[name]
            times[name].append(timed_cpu(command, env))
    return times


def _ratios(times, name: str, plain: str = "python") -> tuple[float, float]:
    wall = statistics.median(g[0] / p[0] for g, p in zip(times[name], times[plain]))
    cpu = statistics.median(g[1] / p[1] for g, p in zip(times[name], times[plain]))
    return wall, cpu


def _median(times, name: str, i: int) -> float:
    return statistics.median(t[i] for t in times[name])


def _hook_env(tmp: str) -> dict:
    """The environment ``graphlint run`` gives its child (graphlint.runner), for timing the
    start-up hook alone."""
    from graphlint.config import Config
    from graphlint.runner import _child_env

    channel = os.path.join(tmp, "channel")
    os.mkdir(channel)
    with open(os.path.join(channel, "settings.pickle"), "wb") as fh:
        pickle.dump({"config": Config(), "plugins": True}, fh)
    return _child_env(channel)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--startup-pairs", type=int, default=20)
    parser.add_argument("--ops", type=int, default=40_000)
    parser.add_argument("--runs", type=int, default=40_000)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--only", default="empty,tf1,tf2", help="which programs, comma-separated")
    parser.add_argument("--baseline", metavar="DIR", help="a folder with another graphlint package to time too")
    args = parser.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    graphlint = os.path.join(os.path.dirname(sys.executable), "graphlint")
    baseline = None
    if args.baseline:
        base = os.path.abspath(args.baseline)
        if not os.path.isfile(os.path.join(base, "graphlint", "__init__.py")):
            sys.exit(f"run_overhead: {base} holds no graphlint package")
        baseline = dict(os.environ, PYTHONPATH=base)
    # bytecode caches on, as in a user's install (one untimed run of each command writes them)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    if baseline:
        baseline = {**env, "PYTHONPATH": baseline["PYTHONPATH"]}
    with tempfile.TemporaryDirectory() as tmp:
        programs = {
            "empty": "",
            "tf1": TF1.format(bench=os.path.dirname(os.path.abspath(__file__)), ops=args.ops, runs=args.runs),
            "tf2": TF2.format(bench=os.path.dirname(os.path.abspath(__file__)), steps=args.steps),
        }
        for which in args.only.split(","):
            path = os.path.join(tmp, f"{which}.py")
            with open(path, "w") as fh:
                fh.write(programs[which])
            commands = {"python": ([sys.executable, path], env), "graphlint run": ([graphlint, "run", path], env)}
            if which == "empty":
                commands["python + start-up hook"] = ([sys.executable, path], {**env, **_hook_env(tmp)})
            if baseline:
                commands["baseline graphlint run"] = ([graphlint, "run", path], baseline)
            for command, command_env in commands.values():
                timed_cpu(command, command_env)  # untimed: the caches written, the exit status checked
            if which == "empty":
                times = _pairs(commands, args.startup_pairs)
                plain = _median(times, "python", 0)
                print(f"empty script, median of {args.startup_pairs} runs each: python {plain * 1000:.1f} ms wall, "
                      f"{_median(times, 'python', 1) * 1000:.1f} ms CPU")
                for name in list(commands)[1:]:
                    wall, cpu = (statistics.median(g[i] - p[i] for g, p in zip(times[name], times["python"]))
                                 for i in (0, 1))
                    print(f"  {name}: {_median(times, name, 0) * 1000:.1f} ms, +{wall * 1000:.1f} ms wall, "
                          f"+{cpu * 1000:.1f} ms CPU (medians of the rounds' differences)")
                continue
            times = _pairs(commands, args.pairs)
            what = (f"{args.ops:,} ops built + {args.runs:,} sess.run" if which == "tf1"
                    else f"{args.steps:,} tf.function training steps")
            print(f"{what}, whole process, median of {args.pairs} runs each:")
            print(f"  python: wall {_median(times, 'python', 0):.2f} s, CPU {_median(times, 'python', 1):.2f} s")
            for name in list(commands)[1:]:
                wall, cpu = _ratios(times, name)
                print(f"  {name}: wall {_median(times, name, 0):.2f} s, CPU {_median(times, name, 1):.2f} s; "
                      f"ratio wall {wall:.3f}, CPU {cpu:.3f} (medians of the rounds' ratios)")
    print("goal <= 1.05, bar <= 1.10; on a loaded machine trust the CPU ratio (waiting for a core is not in it)")


if __name__ == "__main__":
    main()
