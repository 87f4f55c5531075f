"""``graphlint check`` on one generated file from 100 kB to 9 MB: the cost per line must stay flat.

    .venv/bin/python bench/large_file.py [--shape NAME] [--sizes 0.1,0.3,1,3,9]

Each file is one of the shapes of ``tests/static/test_static_cost.py`` (the test counts the
work on small files; this times it on large ones), repeated until it reaches the size in MB.
Issue 23's case is the default shape, "functions that get_variable and rebuild in a loop": it
took 7 s at 0.85 MB, 80 s at 3.4 MB and never ended at 9.5 MB (an analysis that, for every
function that rebuilds, went over every get_variable of the file). Prints, per size, the
lines, the wall and CPU seconds of ``graphlint check --no-cache`` (user + system of the
child) and the CPU microseconds per line, and the ratio of the largest file's cost per line to
the smallest's (flat: ~1). Every run must exit 0 (a crash must not look fast).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "static"))
from test_static_cost import HEAD, SHAPES  # noqa: E402

GRAPHLINT = os.path.join(os.path.dirname(sys.executable), "graphlint")


def generate(shape: str, megabytes: float) -> str:
    head, part = SHAPES[shape]
    out, size, i = [HEAD + head], len(HEAD + head), 0
    while size < megabytes * 1e6:
        text = part.format(i=i)
        out.append(text)
        size += len(text)
        i += 1
    return "".join(out)


def timed(path: str) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([GRAPHLINT, "check", "--no-cache", "--exit-zero", "--format", "json", path], capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"graphlint check exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    if b'"GL0' in proc.stdout:
        sys.exit("graphlint check reported a GL000/GL001 on the generated file: " + proc.stdout.decode()[:500])
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="functions that get_variable and rebuild in a loop", choices=list(SHAPES))
    parser.add_argument("--sizes", default="0.1,0.3,1,3,9", help="file sizes in MB, comma-separated")
    args = parser.parse_args()
    sizes = [float(s) for s in args.sizes.split(",")]
    print(f"shape: {args.shape}")
    print(f"{'MB':>6} {'lines':>9} {'wall s':>8} {'CPU s':>8} {'CPU µs/line':>12}")
    per_line = []
    with tempfile.TemporaryDirectory() as tmp:
        for megabytes in sizes:
            path = os.path.join(tmp, "large.py")
            text = generate(args.shape, megabytes)
            with open(path, "w") as fh:
                fh.write(text)
            lines = text.count("\n")
            wall, cpu = timed(path)
            per_line.append(cpu / lines * 1e6)
            print(f"{len(text) / 1e6:>6.2f} {lines:>9} {wall:>8.2f} {cpu:>8.2f} {per_line[-1]:>12.1f}")
    print(f"cost per line, largest / smallest file: {per_line[-1] / per_line[0]:.2f}")


if __name__ == "__main__":
    main()
