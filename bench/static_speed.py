"""Speed of `graphlint check` against ruff and pylint on a corpus no one here wrote.

The corpus is the Python sources of the installed TensorFlow package (~650k lines). All three
tools run in this one process's run, on the same files, each as a fresh subprocess on all
cores. pylint is slow (minutes for the whole corpus), so by default it is timed on a
deterministic subset (every Nth file, sorted by path) and extrapolated per line; the output
says so. `--pylint-full` runs it on everything.

    .venv/bin/python bench/static_speed.py [--pylint-every 40] [--pylint-full]

ruff and pylint are not test dependencies: install them into the venv to compare
(`.venv/bin/pip install ruff pylint`).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import time


def tensorflow_files() -> tuple[str, list[str]]:
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or spec.origin is None:
        sys.exit("TensorFlow is not installed in this interpreter")
    root = os.path.dirname(spec.origin)
    files = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".py")]
    return root, files


def count_lines(files: list[str]) -> int:
    total = 0
    for path in files:
        with open(path, "rb") as fh:
            total += fh.read().count(b"\n")
    return total


def tool(name: str) -> str | None:
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)


def timed(cmd: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pylint-every", type=int, default=40, help="time pylint on every Nth file")
    parser.add_argument("--pylint-full", action="store_true", help="time pylint on the whole corpus")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs for graphlint and ruff")
    args = parser.parse_args()

    root, files = tensorflow_files()
    lines = count_lines(files)
    jobs = os.cpu_count() or 1
    print(f"corpus: {len(files)} files, {lines:,} lines under {root} ({jobs} cores)")
    graphlint = tool("graphlint")
    results: dict[str, float] = {}
    # graphlint and ruff are given the directory; exit codes are ignored (findings are fine).
    results["graphlint"] = min(
        timed([graphlint, "check", "--exit-zero", "."], root) for _ in range(args.repeat)
    )
    ruff = tool("ruff")
    if ruff:
        results["ruff"] = min(
            timed([ruff, "check", "--no-cache", "--exit-zero", "--quiet", "--isolated", "."], root)
            for _ in range(args.repeat)
        )
    else:
        print("ruff: not installed (pip install ruff) — skipped")
    pylint = tool("pylint")
    pylint_note = ""
    if pylint:
        subset = files if args.pylint_full else files[:: args.pylint_every]
        subset_lines = count_lines(subset)
        seconds = timed([pylint, f"--jobs={jobs}", "--exit-zero", "--rcfile=/dev/null", *subset], root)
        results["pylint"] = seconds * lines / subset_lines
        if not args.pylint_full:
            pylint_note = (
                f" (extrapolated per line from {len(subset)} files / {subset_lines:,} lines, every "
                f"{args.pylint_every}th file, measured {seconds:.1f} s)"
            )
    else:
        print("pylint: not installed (pip install pylint) — skipped")

    for name, seconds in results.items():
        note = pylint_note if name == "pylint" else ""
        print(f"{name:9s} {seconds:8.2f} s  {lines / seconds:12,.0f} lines/s{note}")
    g = results["graphlint"]
    if "pylint" in results:
        print(f"graphlint is {results['pylint'] / g:.1f}x faster than pylint (target: >= 30x)")
    if "ruff" in results:
        print(f"graphlint takes {g / results['ruff']:.2f}x ruff's time (target: <= 2x)")


if __name__ == "__main__":
    main()
