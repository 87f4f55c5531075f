"""What torch.compile really recompiles, measured on the installed torch: 12 calls per case.

For each shape of code in issue #28 (and two neighbours), a fresh function or module is compiled
with a counting backend (``--backend eager``, the default, or ``aot_eager``/``inductor``: dynamo's
guards and recompiles do not depend on the backend) and called 12 times. Printed per case, as a
Markdown table: how many times dynamo compiled the frame, how many of the 12 calls ran a compiled
graph, and whether the frame hit ``torch._dynamo.config.recompile_limit`` (then the remaining
calls run eagerly). docs/torch.md quotes the table.

    .venv/bin/python bench/torch_recompiles.py [--backend eager] [--calls 12]
"""

from __future__ import annotations

import argparse
import logging

import torch
import torch._dynamo


def case_step_counter(compile_):
    class Counter(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.step = 0
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x):
            self.step += 1
            return self.lin(x) * self.step

    model, x = compile_(Counter()), torch.ones(2, 4)
    return lambda i: model(x)


def case_static_lengths(compile_):
    f = compile_(lambda x: x.sin() + 1, dynamic=False)
    return lambda i: f(torch.ones(i + 1))


def case_default_lengths(compile_):
    f = compile_(lambda x: x.sin() + 1)
    return lambda i: f(torch.ones(i + 1))


def case_int_threshold(compile_):
    def f(x, n):
        if n > 5:
            return x + 1
        return x * n

    g, x = compile_(f), torch.ones(3)
    return lambda i: g(x, i)


def case_int_modulo(compile_):
    def f(x, n):
        if n % 3 == 0:
            return x + 1
        if n % 3 == 1:
            return x - 1
        return x * 2

    g, x = compile_(f), torch.ones(3)
    return lambda i: g(x, i)


def case_float(compile_):
    def f(x, lr):
        return x * lr

    g, x = compile_(f), torch.ones(3)
    return lambda i: g(x, 0.1 / (i + 1))


def case_int_static(compile_):
    g, x = compile_(lambda x, n: x * n, dynamic=False), torch.ones(3)
    return lambda i: g(x, i)


def case_scalar_tensor(compile_):
    def f(x, lr):
        return x * lr

    g, x = compile_(f), torch.ones(3)
    return lambda i: g(x, torch.tensor(0.1 / (i + 1)))


CASES = [
    ("`self.step += 1` (an int attribute of the module) in `forward`", case_step_counter),
    ("`dynamic=False`, a new input length per call", case_static_lengths),
    ("default `dynamic=None`, a new input length per call", case_default_lengths),
    ("an int argument in control flow, `if n > 5:`", case_int_threshold),
    ("an int argument in control flow, `n % 3 == 0` / `== 1`", case_int_modulo),
    ("`dynamic=False`, an int argument that changes", case_int_static),
    ("a float argument that changes (`lr = 0.1 / (i + 1)`)", case_float),
    ("the same float passed as a 0-d tensor", case_scalar_tensor),
]


def measure(make, backend: str, calls: int) -> tuple[int, int, bool]:
    torch._dynamo.reset()
    compiles, ran = [0], [0]
    hit = []

    def counting(gm, example_inputs):
        compiles[0] += 1
        inner = torch._dynamo.lookup_backend(backend)(gm, example_inputs) if backend != "eager" else gm.forward

        def run(*args):
            ran[0] += 1
            return inner(*args)

        return run

    class Limit(logging.Handler):
        def emit(self, record):
            if "recompile_limit" in record.getMessage():
                hit.append(True)

    handler = Limit()
    log = logging.getLogger("torch._dynamo.convert_frame")
    log.addHandler(handler)
    try:
        call = make(lambda fn, **kw: torch.compile(fn, backend=counting, **kw))
        for i in range(calls):
            call(i)
    finally:
        log.removeHandler(handler)
    return compiles[0], ran[0], bool(hit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--calls", type=int, default=12)
    args = parser.parse_args()
    limit = torch._dynamo.config.recompile_limit
    print(f"torch {torch.__version__}, backend {args.backend}, {args.calls} calls each, recompile_limit {limit}\n")
    print(f"| code | compiles | calls that ran compiled | hit the limit |")
    print("|---|---|---|---|")
    for label, make in CASES:
        compiles, ran, hit = measure(make, args.backend, args.calls)
        print(f"| {label} | {compiles} | {ran} of {args.calls} | {'yes: eager from then on' if hit else 'no'} |")


if __name__ == "__main__":
    main()
