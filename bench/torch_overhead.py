"""Whole-process overhead of ``graphlint run`` against ``python`` on a torch.compile training loop.

The program (written to a temporary file) trains a small MLP with a compiled model and a
compiled loss for ``--steps`` steps (2,000 by default), the optimizer step outside the compiled
code, as a PyTorch 2 training script does, on one intra-op thread. Each pair runs ``python PROGRAM`` and ``graphlint run
PROGRAM`` one after the other (alternating which goes first); the figure is the median ratio over
``--pairs`` pairs, of wall time and of CPU time (on a loaded machine CPU time is the one to
compare: waiting for a core is not in it). Start-up (torch's import, graphlint's own) is part of
the figure: this is what a user waits for.

The program times its own phases and the benchmark prints their medians side by side: the first
step (dynamo's trace and the backend's compile: graphlint's probe runs here, once per compile)
and the 2,000 steps (compiled code from dynamo's cache: graphlint is not on that path at all).

``--backend inductor`` (the default, torch.compile's own; compiled in-process,
``TORCHINDUCTOR_COMPILE_THREADS=1``, so that a compile worker pool's start-up is not in the
figure) or ``aot_eager``/``eager``. Every timed command must exit 0 (the program is clean, so
graphlint finds nothing): anything else stops the benchmark rather than looking fast.

A third figure isolates the per-step cost: the same loop timed in one process, plain and inside
``graphlint.instrument()`` (what ``graphlint run`` installs), alternating, a fresh model compiled
outside the timed loop each repetition; ratio of the minima (``--reps``).

    .venv/bin/python bench/torch_overhead.py [--pairs 3] [--steps 2000] [--backend inductor] [--reps 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

from timing import timed_cpu

PROGRAM = textwrap.dedent(
    """
    import json, sys, time
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)  # no OpenMP threads spinning against each other on a shared machine
    model = torch.nn.Sequential(
        torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)
    )
    fast = torch.compile(model, backend={backend!r})
    loss_fn = torch.compile(torch.nn.functional.mse_loss, backend={backend!r})
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(128, 16)
    y = x.sum(dim=1, keepdim=True)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(fast(x), y)
        loss.backward()
        opt.step()
        return loss

    start = time.perf_counter()
    step()
    compiled = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range({steps}):
        loss = step()
    steps = time.perf_counter() - start
    with open(sys.argv[1], "w") as fh:
        json.dump({{"compile": compiled, "steps": steps, "loss": float(loss)}}, fh)
    """
)


IN_PROCESS = textwrap.dedent(
    """
    import sys, time
    import torch
    from graphlint.instrument import instrument
    from graphlint.linter import Linter

    torch.set_num_threads(1)
    x = torch.randn(128, 16)
    y = x.sum(dim=1, keepdim=True)

    def run(steps):
        torch.manual_seed(0)
        model = torch.nn.Sequential(
            torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)
        )
        fast = torch.compile(model, backend={backend!r})
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def step():
            opt.zero_grad(set_to_none=True)
            torch.nn.functional.mse_loss(fast(x), y).backward()
            opt.step()

        step(), step()  # compiled (and the first backward) outside the timed loop
        start = time.perf_counter()
        for _ in range(steps):
            step()
        return time.perf_counter() - start

    plain, inst = [], []
    for _ in range({reps}):
        torch._dynamo.reset()
        plain.append(run({steps}))
        torch._dynamo.reset()
        with instrument(Linter(), warn=lambda m: None):
            inst.append(run({steps}))
    print(min(plain), min(inst))
    """
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=2_000)
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    graphlint = os.path.join(os.path.dirname(sys.executable), "graphlint")
    env = {**os.environ, "TORCHINDUCTOR_COMPILE_THREADS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        program, phases = os.path.join(tmp, "train.py"), os.path.join(tmp, "phases.json")
        with open(program, "w") as fh:
            fh.write(PROGRAM.format(steps=args.steps, backend=args.backend))
        commands = {"python": [sys.executable, program, phases], "graphlint": [graphlint, "run", program, phases]}
        timed_cpu(commands["python"], env), timed_cpu(commands["graphlint"], env)  # caches written, untimed
        runs: dict[str, list] = {"python": [], "graphlint": []}
        for i in range(args.pairs):
            for name in (("graphlint", "python") if i % 2 else ("python", "graphlint")):
                wall, cpu = timed_cpu(commands[name], env)
                with open(phases) as fh:
                    runs[name].append((wall, cpu, json.load(fh)))
        inproc = os.path.join(tmp, "inproc.py")
        with open(inproc, "w") as fh:
            fh.write(IN_PROCESS.format(backend=args.backend, steps=args.steps // 4, reps=args.reps))
        proc = subprocess.run([sys.executable, inproc], capture_output=True, text=True, env=env)
        if proc.returncode != 0:
            sys.exit(f"torch_overhead: the in-process run exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
        one, two = map(float, proc.stdout.split()[-2:])
    plain, linted = runs["python"], runs["graphlint"]
    ratio = statistics.median(g[0] / p[0] for g, p in zip(linted, plain))
    cpu_ratio = statistics.median(g[1] / p[1] for g, p in zip(linted, plain))

    def median(rows, key):
        return statistics.median(r[2][key] for r in rows)

    print(
        f"{args.steps:,}-step torch.compile training loop ({args.backend}), whole process, median of {args.pairs} "
        f"pairs: python {statistics.median(p[0] for p in plain):.2f} s, graphlint run "
        f"{statistics.median(g[0] for g in linted):.2f} s: ratio {ratio:.3f} wall, {cpu_ratio:.3f} CPU (goal <= 1.05)"
    )
    print(
        f"inside the program: first step (compile) python {median(plain, 'compile'):.2f} s, graphlint run "
        f"{median(linted, 'compile'):.2f} s; {args.steps:,} steps python {median(plain, 'steps'):.2f} s, graphlint "
        f"run {median(linted, 'steps'):.2f} s; same loss: {plain[0][2]['loss'] == linted[0][2]['loss']}"
    )
    print(
        f"in one process, {args.steps // 4:,} steps, min of {args.reps}: plain {one:.3f} s, instrumented "
        f"{two:.3f} s, ratio {two / one:.3f} ({(two - one) * 1e6 / (args.steps // 4):+.1f} µs per step)"
    )


if __name__ == "__main__":
    main()
