"""GL501's PyTorch form in ``graphlint check`` (issue 28), judged against what torch 2.13 really
recompiles (docs/torch.md, 12 calls each): an int attribute of a compiled ``nn.Module`` changed in
``forward`` (8 compiles, the limit, whatever ``dynamic`` says), and ``dynamic=False`` with a
shape or a Python number that follows the loop (8) — reported; the default ``dynamic=None``
(2 compiles), ``mark_dynamic``, a tensor buffer, a loop within ``max-traces``, a compile that
is not certain (under an ``if``, of a parameter) — silent."""

from __future__ import annotations

import textwrap

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file

STEP = (
    "class Warmup(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.step = 0\n"
    "        self.lin = torch.nn.Linear(4, 4)\n\n    def forward(self, x):\n        self.step += 1\n"
    "        return self.lin(x)\n\n\n"
)
ENCODE = "def encode(tokens):\n    return tokens.cumsum(0)\n\n\n"
BASE = "base = torch.ones(20, 3)\n"
WIDE = "wide = torch.ones(3, 40)\n"

REPORTED = {
    "torch.compile(Module())": (STEP + "model = torch.compile(Warmup())\nfor i in range(12):\n    model(x)\n", "error"),
    "a name, then torch.compile(name)": (
        STEP + "net = Warmup().to('cpu')\nfast = torch.compile(net, backend='eager')\nfor i in range(12):\n    fast(x)\n", "error",
    ),
    "compiled in place": (STEP + "model = Warmup()\nmodel.compile()\nfor batch in loader:\n    model(batch)\n", "warning"),
    "forward decorated": (
        STEP.replace("    def forward", "    @torch.compile\n    def forward") + "model = Warmup()\nwhile True:\n    model(x)\n",
        "warning",
    ),
    "self.step = self.step + 1": (
        STEP.replace("self.step += 1", "self.step = self.step + 1") + "model = torch.compile(Warmup())\n"
        "for i in range(6):\n    model(x)\n", "warning",
    ),
    "inside main()": (
        STEP + "def main():\n    model = Warmup()\n    model = torch.compile(model)\n    for i in range(100):\n"
        "        model(x)\n", "error",
    ),
    "from a function called in a loop": (
        STEP + "model = torch.compile(Warmup())\n\n\ndef train_step(batch):\n    return model(batch)\n\n\n"
        "for i in range(12):\n    train_step(x)\n", "error",
    ),
    "dynamic=False, torch.randn(i, 3)": (
        ENCODE + "fast = torch.compile(encode, dynamic=False)\nfor i in range(1, 12):\n    fast(torch.randn(i, 3))\n", "error",
    ),
    "dynamic=False, a slice x[:i]": (
        BASE + ENCODE + "fast = torch.compile(encode, dynamic=False)\nfor i in range(1, 8):\n    fast(base[:i])\n", "warning",
    ),
    "dynamic=False, a slice x[:, :n] named in the loop": (
        WIDE + ENCODE + "fast = torch.compile(encode, dynamic=False)\nfor n in range(1, 20):\n    chunk = wide[:, :n]\n"
        "    fast(chunk)\n", "error",
    ),
    "dynamic=False decorator, arange": (
        "@torch.compile(dynamic=False)\ndef f(x):\n    return x * 2\n\n\nfor n in range(1, 10):\n    f(torch.arange(n))\n", "error",
    ),
    "dynamic=False on a module, a new batch size": (
        "net = torch.nn.Linear(3, 3)\n" + STEP.replace("self.step += 1\n", "")
        + "model = torch.compile(Warmup(), dynamic=False)\nfor b in range(1, 9):\n    model(torch.ones(b, 4))\n", "warning",
    ),
    "dynamic=False, an int that changes": (
        "@torch.compile(dynamic=False)\ndef f(x, n):\n    return x * n\n\n\nfor n in range(10):\n    f(x, n)\n", "error",
    ),
}

SILENT = {
    "a tensor buffer": (
        STEP.replace("self.step = 0", "self.register_buffer('step', torch.zeros((), dtype=torch.long))")
        + "model = torch.compile(Warmup())\nfor i in range(12):\n    model(x)\n"
    ),
    "the attribute not changed in forward": (
        STEP.replace("self.step += 1\n", "") + "model = torch.compile(Warmup())\nfor i in range(12):\n    model(x)\n"
    ),
    "a float attribute (not judged: 2 compiles when forward computes with it)": (
        STEP.replace("self.step = 0", "self.step = 0.0").replace("self.step += 1", "self.step += 0.5")
        + "model = torch.compile(Warmup())\nfor i in range(12):\n    model(x)\n"
    ),
    "changed only in training": (
        STEP.replace("        self.step += 1", "        if self.training:\n            self.step += 1")
        + "model = torch.compile(Warmup())\nfor i in range(12):\n    model(x)\n"
    ),
    "allow_unspec_int_on_nn_module": (
        "torch._dynamo.config.allow_unspec_int_on_nn_module = True\n" + STEP
        + "model = torch.compile(Warmup())\nfor i in range(12):\n    model(x)\n"
    ),
    "not compiled": STEP + "model = Warmup()\nfor i in range(12):\n    model(x)\n",
    "compiled under a flag": (
        STEP + "model = Warmup()\nif args.compile:\n    model = torch.compile(model)\nfor i in range(12):\n    model(x)\n"
    ),
    "a parameter compiled": STEP + "def run(net):\n    fast = torch.compile(net)\n    for i in range(12):\n        fast(x)\n",
    "from a function called a few times": (
        STEP + "model = torch.compile(Warmup())\n\n\ndef train_step(batch):\n    return model(batch)\n\n\n"
        "for i in range(3):\n    train_step(x)\n"
    ),
    "from a function called once": (
        STEP + "model = torch.compile(Warmup())\n\n\ndef evaluate(batch):\n    return model(batch)\n\n\nevaluate(x)\n"
    ),
    "at max-traces calls": STEP + "model = torch.compile(Warmup())\nfor i in range(5):\n    model(x)\n",
    "default dynamic, a new length": ENCODE + "fast = torch.compile(encode)\nfor i in range(1, 12):\n    fast(torch.randn(i, 3))\n",
    "dynamic=True, a new length": (
        ENCODE + "fast = torch.compile(encode, dynamic=True)\nfor i in range(1, 12):\n    fast(torch.randn(i, 3))\n"
    ),
    "dynamic=False, marked dynamic": (
        ENCODE + "fast = torch.compile(encode, dynamic=False)\nfor i in range(2, 12):\n    t = torch.randn(i, 3)\n"
        "    torch._dynamo.mark_dynamic(t, 0)\n    fast(t)\n"
    ),
    "dynamic=False, fixed shapes": (
        BASE + ENCODE + "fast = torch.compile(encode, dynamic=False)\nfor i in range(12):\n    fast(base[i])\n"
        "    fast(base[i:i + 4])\n    fast(torch.randn(4, 3) * i)\n"
    ),
    "dynamic=False, a slice clipped at a size of 3": (
        BASE + ENCODE + "fast = torch.compile(encode, dynamic=False)\nfor n in range(1, 20):\n    fast(base[:, :n])\n"
    ),
    "dynamic=False, a length of few values": (
        BASE + ENCODE + "fast = torch.compile(encode, dynamic=False)\nfor i in range(12):\n    fast(base[:i % 3 + 1])\n"
    ),
    "dynamic=False, the loop within max-traces": (
        ENCODE + "fast = torch.compile(encode, dynamic=False)\nfor i in range(1, 6):\n    fast(torch.randn(i, 3))\n"
    ),
    "dynamic=False, arguments the function never reads (1 compile)": (
        "@torch.compile(dynamic=False)\ndef f(x, n, t):\n    return x * 2\n\n\n"
        "for n in range(10):\n    f(x, n, torch.ones(n + 1))\n"
    ),
    "dynamic=False, a tensor that changes value only": (
        "@torch.compile(dynamic=False)\ndef f(x, lr):\n    return x * lr\n\n\n"
        "for n in range(10):\n    f(x, torch.tensor(0.1 / (n + 1)))\n"
    ),
}


def _gl501(tmp_path, body: str) -> list:
    path = tmp_path / "prog.py"
    path.write_text("import torch\n\nx = torch.ones(2, 4)\n" + textwrap.dedent(body))
    rules = [discover_rules(plugins=False)["GL501"]]
    return [f for f in check_file(str(path), rules, Config()).findings if f.code == "GL501"]


@pytest.mark.parametrize("body, severity", REPORTED.values(), ids=REPORTED)
def test_what_recompiles_on_every_call_is_reported_with_the_fix(tmp_path, body, severity):
    (finding,) = _gl501(tmp_path, body)
    assert "is compiled again on every" in finding.message
    assert finding.severity.value == severity
    if "self.step" in finding.message:
        assert "register_buffer('step'" in finding.fix and "allow_unspec_int_on_nn_module" in finding.fix
    else:
        assert "dynamic=False" in finding.message and "dynamic=False" in finding.fix
    lines = (tmp_path / "prog.py").read_text().splitlines()
    assert "(" in lines[finding.location.line - 1]  # the calling line, in the loop
    assert lines[finding.location.line - 1].startswith((" ", "\t"))


@pytest.mark.parametrize("body", SILENT.values(), ids=SILENT)
def test_what_compiles_a_few_times_or_is_not_certain_is_silent(tmp_path, body):
    assert _gl501(tmp_path, body) == []


def test_the_shape_fix_names_the_dimension_that_varies(tmp_path):
    body = WIDE + ENCODE + "fast = torch.compile(encode, dynamic=False)\nfor n in range(1, 20):\n    fast(wide[:, :n])\n"
    (finding,) = _gl501(tmp_path, body)
    assert "`tokens` is a tensor whose shape (`wide[:, :n]`) follows `n` (19 values)" in finding.message
    assert "torch._dynamo.mark_dynamic(tokens, 1)" in finding.fix


def test_one_call_over_max_traces_is_reported(tmp_path):
    assert len(_gl501(tmp_path, STEP + "model = torch.compile(Warmup())\nfor i in range(6):\n    model(x)\n")) == 1
