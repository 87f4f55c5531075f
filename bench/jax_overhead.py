"""Whole-process overhead of ``graphlint run`` against ``python`` on a jitted JAX training loop.

The program (written to a temporary file) trains a small MLP with a ``jax.jit`` SGD step for
``--steps`` steps: what a JAX training script does. Each pair runs ``python PROGRAM`` and
``graphlint run PROGRAM`` one after the other (alternating which goes first); the figure is the
median ratio over ``--pairs`` pairs. Start-up (JAX's import, graphlint's own) is part of the
figure: this is what a user waits for. graphlint imports no TensorFlow for this program.

Every timed command must exit 0 (the program is clean, so graphlint finds nothing): anything
else stops the benchmark rather than looking fast.

    .venv/bin/python bench/jax_overhead.py [--pairs 3] [--steps 20000]
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

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


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        sys.exit(f"jax_overhead: {shlex.join(cmd)} exited {proc.returncode}: {err[0]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=20_000)
    args = parser.parse_args()
    graphlint = os.path.join(os.path.dirname(sys.executable), "graphlint")
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    with tempfile.TemporaryDirectory() as tmp:
        program = os.path.join(tmp, "train.py")
        with open(program, "w") as fh:
            fh.write(PROGRAM.format(steps=args.steps))
        plain_cmd, gl_cmd = [sys.executable, program], [graphlint, "run", program]
        plain, instrumented = [], []
        os.environ.update(env)
        for i in range(args.pairs):
            if i % 2:
                instrumented.append(timed(gl_cmd))
                plain.append(timed(plain_cmd))
            else:
                plain.append(timed(plain_cmd))
                instrumented.append(timed(gl_cmd))
    ratio = statistics.median(g / p for g, p in zip(instrumented, plain))
    print(
        f"{args.steps:,}-step jitted training loop, whole process, median of {args.pairs} pairs: "
        f"python {statistics.median(plain):.2f} s, graphlint run {statistics.median(instrumented):.2f} s, "
        f"ratio {ratio:.3f} (goal <= 1.05)"
    )


if __name__ == "__main__":
    main()
