"""Whole-process overhead of ``graphlint run`` against ``python`` on a jitted JAX training loop.

The program (written to a temporary file) trains a small MLP with a ``jax.jit`` SGD step for
``--steps`` steps: what a JAX training script does. Each pair runs ``python PROGRAM`` and
``graphlint run PROGRAM`` one after the other (alternating which goes first); the figure is the
median ratio over ``--pairs`` pairs. Start-up (JAX's import, graphlint's own) is part of the
figure: this is what a user waits for. graphlint imports no TensorFlow for this program.

A second figure isolates the per-step cost: the same loop timed in one process, plain and
inside ``graphlint.instrument()`` (what ``graphlint run`` installs), alternating, a fresh jitted
step per repetition traced outside the timed loop; ratio of the minima (``--reps``).

Bytecode caches are on for the timed processes, as in a user's install (a
``PYTHONDONTWRITEBYTECODE`` of the calling shell is dropped for them, and one untimed run of each
command writes the caches). Besides the ratio, the fixed start-up difference (``graphlint run``
against ``python`` on an empty program, same pairing) is printed, and what is left per step.

Every timed command must exit 0 (the program is clean, so graphlint finds nothing): anything
else stops the benchmark rather than looking fast.

    .venv/bin/python bench/jax_overhead.py [--pairs 3] [--steps 20000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

from timing import pairs

PROGRAM = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp


    def init(key, sizes):
        params = []
        for n_in, n_out in zip(sizes[:-1], sizes[1:]):
            key, sub = jax.random.split(key)
            params.append((jax.random.normal(sub, (n_in, n_out)) * 0.1, jnp.zeros(n_out)))
        return params


    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jax.nn.relu(h @ w + b)
        w, b = params[-1]
        return jnp.mean((h @ w + b - y) ** 2)


    @jax.jit
    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return [(w - 0.01 * gw, b - 0.01 * gb) for (w, b), (gw, gb) in zip(params, grads)], value


    key = jax.random.PRNGKey(0)
    params = init(key, [16, 64, 64, 1])
    x = jax.random.normal(key, (128, 16))
    y = jnp.sum(x, axis=1, keepdims=True)
    for i in range({steps}):
        params, value = step(params, x, y)
    print("loss", float(value))
    """
)


IN_PROCESS = textwrap.dedent(
    """
    import time
    from graphlint.linter import Linter
    from graphlint.instrument import instrument
    {program}

    def make():
        @jax.jit
        def fresh(params, x, y):
            return step(params, x, y)
        return fresh

    def run(fn):
        p, v = fn(params, x, y)
        v.block_until_ready()
        start = time.perf_counter()
        for _ in range({steps}):
            p, v = fn(p, x, y)
        v.block_until_ready()
        return time.perf_counter() - start

    plain, inst = [], []
    for _ in range({reps}):
        plain.append(run(make()))
        with instrument(Linter(), warn=lambda m: None):
            inst.append(run(make()))
    print(min(plain), min(inst))
    """
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    graphlint = os.path.join(os.path.dirname(sys.executable), "graphlint")
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        program, empty = os.path.join(tmp, "train.py"), os.path.join(tmp, "empty.py")
        with open(program, "w") as fh:
            fh.write(PROGRAM.format(steps=args.steps))
        with open(empty, "w") as fh:
            fh.write("pass\n")
        plain, instrumented = pairs([sys.executable, program], [graphlint, "run", program], args.pairs, warm_up=True)
        start_plain, start_gl = pairs([sys.executable, empty], [graphlint, "run", empty], args.pairs, warm_up=True)
        inproc = os.path.join(tmp, "inproc.py")
        body = PROGRAM.format(steps=0).replace('print("loss", float(value))', "")
        with open(inproc, "w") as fh:
            fh.write(IN_PROCESS.format(program=body, steps=args.steps // 4, reps=args.reps))
        proc = subprocess.run([sys.executable, inproc], capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"jax_overhead: the in-process run exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
        one, two = map(float, proc.stdout.split())
    ratio = statistics.median(g / p for g, p in zip(instrumented, plain))
    startup = statistics.median(g - p for g, p in zip(start_gl, start_plain))
    rest = statistics.median(g - p for g, p in zip(instrumented, plain)) - startup
    print(
        f"{args.steps:,}-step jitted training loop, whole process, median of {args.pairs} pairs: "
        f"python {statistics.median(plain):.2f} s, graphlint run {statistics.median(instrumented):.2f} s, "
        f"ratio {ratio:.3f} (goal <= 1.05); graphlint's start-up +{startup:.2f} s, "
        f"the rest {rest * 1e6 / args.steps:+.1f} µs per step"
    )
    print(
        f"in one process, {args.steps // 4:,} steps, min of {args.reps}: plain {one:.3f} s, instrumented "
        f"{two:.3f} s, ratio {two / one:.3f} ({(two - one) * 1e6 / (args.steps // 4):+.1f} µs per step)"
    )


if __name__ == "__main__":
    main()
