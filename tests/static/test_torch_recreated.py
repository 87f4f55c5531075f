"""GL502's PyTorch form in ``graphlint check``: ``torch.compile``, ``torch.jit.script``/``trace``
and ``torch.export.export`` applied again and again to one target — in a loop, or in a function
called in a loop — reported; a target made anew on every pass (a sweep over models), the loop's
own items, a parameter's unknown object, a loop within ``max-per-site`` passes, a compile in
``__init__`` or behind a first-time guard, silent (issue 28)."""

from __future__ import annotations

import textwrap

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file

HEADER = "import torch\n\nmodel = torch.nn.Linear(4, 1)\n\n\ndef normalize(x):\n    return x - x.mean()\n\n\n"

REPORTED = {
    "compile in a loop": ("for epoch in range(10):\n    fast = torch.compile(model)\n", "inside a loop"),
    "compile of a compiled model in a loop": ("for epoch in range(10):\n    model = torch.compile(model)\n", "inside a loop"),
    "jit.trace per call": (
        "def step(x):\n    return torch.jit.trace(normalize, (x,))(x)\n\n\nfor i in range(10):\n    step(torch.ones(3))\n",
        "is called in a loop",
    ),
    "jit.script of an attribute in forward": (
        "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.inner = model\n\n"
        "    def __call__(self, x):\n        return torch.jit.script(self.inner)(x)\n",
        "per-call method",
    ),
    "export in a loop": ("for i in range(10):\n    torch.export.export(model, (torch.ones(1, 4),))\n", "inside a loop"),
    "decorator on a nested def per call": (
        "def make():\n    @torch.compile(backend='eager')\n    def f(x):\n        return x + 1\n    return f(torch.ones(1))\n\n\n"
        "for i in range(10):\n    make()\n",
        "on a nested def",
    ),
    "an alias of torch.compile": (
        "from torch import compile as tc\n\nfor i in range(10):\n    tc(normalize)\n", "inside a loop",
    ),
}

SILENT = {
    "compiled once": "fast = torch.compile(model)\nfor epoch in range(10):\n    fast(torch.ones(1, 4))\n",
    "a new model per pass (a sweep)": (
        "for width in range(10):\n    net = torch.nn.Linear(4, width)\n    fast = torch.compile(net)\n"
    ),
    "the loop's own items": "for net in [model, model]:\n    torch.compile(net)\n",
    "a parameter, per call": "def serve(net, x):\n    return torch.compile(net)(x)\n\n\nfor i in range(10):\n    serve(model, 1)\n",
    "a new model per call": (
        "def build(width):\n    net = torch.nn.Linear(4, width)\n    return torch.compile(net)\n\n\n"
        "for width in range(10):\n    build(width)\n"
    ),
    "in __init__": (
        "class Service:\n    def __init__(self):\n        self.fast = torch.compile(model)\n\n\n"
        "for i in range(10):\n    Service()\n"
    ),
    "behind a first-time guard": (
        "fast = None\nfor i in range(10):\n    if fast is None:\n        fast = torch.compile(model)\n"
    ),
    "at max-per-site passes": "for i in range(2):\n    torch.compile(model)\n",
}


def _gl502(tmp_path, body: str) -> list:
    path = tmp_path / "prog.py"
    path.write_text(HEADER + textwrap.dedent(body))
    rules = [discover_rules(plugins=False)["GL502"]]
    return [f for f in check_file(str(path), rules, Config()).findings if f.code == "GL502"]


@pytest.mark.parametrize("body, said", REPORTED.values(), ids=REPORTED)
def test_the_same_target_compiled_again_and_again_is_reported_with_the_fix(tmp_path, body, said):
    (finding,) = _gl502(tmp_path, body)
    assert said in finding.message
    assert finding.fix.startswith(("Apply torch.compile once", "Trace once", "Script once", "Export once"))


@pytest.mark.parametrize("body", SILENT.values(), ids=SILENT)
def test_a_target_compiled_once_each_is_silent(tmp_path, body):
    assert _gl502(tmp_path, body) == []


def test_one_pass_over_max_per_site_is_reported(tmp_path):
    assert len(_gl502(tmp_path, "for i in range(3):\n    torch.compile(model)\n")) == 1
