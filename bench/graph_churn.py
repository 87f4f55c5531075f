"""Peak memory while building and dropping many graphs, without and with graphlint.

Each phase builds N small graphs (a few ops, a variable, an initializer, a session that runs
and is closed), drops each one, and reports the Python heap peak (tracemalloc), the heap still
allocated after a final ``gc.collect()`` (what leaked), and the process's peak RSS growth.
Phases run in separate subprocesses so that their RSS figures do not mix.

Run: ``python bench/graph_churn.py [--graphs N]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _rss_kib() -> tuple[int, int]:
    """(current, peak) resident set size of this process in KiB, from /proc."""
    cur = peak = 0
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    cur = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    peak = int(line.split()[1])
    except OSError:
        import resource

        peak = cur = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return cur, peak


def churn(n: int) -> None:
    import numpy as np
    import tensorflow as tf

    v1 = tf.compat.v1
    for i in range(n):
        graph = tf.Graph()
        with graph.as_default():
            x = v1.placeholder(tf.float32, [4], name="x")
            w = v1.Variable(tf.ones([4]), name="w")
            y = tf.reduce_sum(x * w + 1.0)
            init = v1.global_variables_initializer()
        with v1.Session(graph=graph) as sess:
            sess.run(init)
            sess.run(y, {x: np.full(4, i, np.float32)})
        del graph, sess, x, w, y, init


def phase(mode: str, n: int) -> dict:
    import tracemalloc

    import tensorflow as tf  # noqa: F401  (imported before the baseline)

    churn(5)  # warm-up: TensorFlow's own one-time allocations
    gc.collect()
    rss0, _ = _rss_kib()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    if mode == "graphlint":
        import graphlint
        from graphlint.linter import Linter

        linter = Linter(warn=lambda msg: None)
        with graphlint.instrument(linter, warn=lambda msg: None):
            churn(n)
            gc.collect()
            kept_inside = tracemalloc.get_traced_memory()[0] - base
            findings = len(linter.finish())
    else:
        churn(n)
        gc.collect()
        kept_inside = tracemalloc.get_traced_memory()[0] - base
        findings = 0
    gc.collect()
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss1, hwm = _rss_kib()
    return {
        "mode": mode,
        "graphs": n,
        "heap_peak_mib": (peak - base) / 2**20,
        "heap_kept_mib": kept_inside / 2**20,
        "heap_after_mib": (current - base) / 2**20,
        "rss_growth_mib": (rss1 - rss0) / 1024,
        "rss_peak_mib": hwm / 1024,
        "findings": findings,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=int, default=500)
    parser.add_argument("--phase", choices=["plain", "graphlint"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        print(json.dumps(phase(args.phase, args.graphs)))
        return 0
    rows = []
    for mode in ("plain", "graphlint"):
        out = subprocess.run(
            [sys.executable, __file__, "--phase", mode, "--graphs", str(args.graphs)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
    print(f"{args.graphs} graphs built, run and dropped (tracemalloc: Python heap; RSS: whole process)")
    head = f"{'mode':<11}{'heap peak':>11}{'heap kept':>11}{'RSS growth':>12}{'RSS peak':>11}{'findings':>10}"
    print(head)
    print("-" * len(head))
    for r in rows:
        print(
            f"{r['mode']:<11}{r['heap_peak_mib']:>9.1f}Mi{r['heap_kept_mib']:>9.2f}Mi"
            f"{r['rss_growth_mib']:>10.1f}Mi{r['rss_peak_mib']:>9.0f}Mi{r['findings']:>10}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
