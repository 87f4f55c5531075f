"""GL506's static form (issue 28): the lines of a def torch.compile certainly compiles where
dynamo breaks the graph in torch 2.13 — as the runtime probe reports them (print, ``.item()``,
``float()`` of a tensor, ``.tolist()``, a logging call, ``if``/``while`` on a tensor's value, in
a helper the compiled code calls) — at error severity in a loop (dynamo skips the frame); what
does not break in 2.13 (``.numpy()``, ``assert``, an ``if`` on a shape), code that may not run,
a def not certainly compiled, and the configs that lift a break, silent."""

from __future__ import annotations

import textwrap

import pytest

from graphlint.config import Config
from graphlint.registry import discover_rules
from graphlint.static import check_file

HEADER = "import logging\n\nimport torch\n\nlog = logging.getLogger(__name__)\n\n\n"
DEC = "@torch.compile(backend='eager')\ndef f(x):\n"

REPORTED = {
    "print": (DEC + "    y = x * 2\n    print('y', y)  # here\n    return y\n", "print(", "warning"),
    ".item()": (DEC + "    s = x.sum().item()  # here\n    return x * s\n", ".item()", "warning"),
    "float() of a tensor": (DEC + "    return x * float(x.sum())  # here\n", "float(x.sum())", "warning"),
    ".tolist()": (DEC + "    vals = x.tolist()  # here\n    return x * len(vals)\n", ".tolist()", "warning"),
    "a logger": (DEC + "    log.info('x %s', x)  # here\n    return x\n", "log.info", "warning"),
    "if on a tensor": (DEC + "    if x.sum() > 0:  # here\n        return x * 2\n    return x\n", "if x.sum() > 0", "warning"),
    "if on a torch function of a local": (
        DEC + "    m = x > 0\n    if torch.any(m):  # here\n        x = x * 2\n    return x\n", "if torch.any(m)", "warning",
    ),
    "while on a tensor": (DEC + "    while x.sum() < 10:  # here\n        x = x * 2\n    return x\n", "while", "warning"),
    "print in a loop": (DEC + "    for i in range(3):\n        x = x + 1\n        print(i)  # here\n    return x\n",
                        "skips the whole frame", "error"),
    "print in a try block": (DEC + "    try:\n        print(x)  # here\n    except Exception:\n        pass\n    return x\n",
                             "in a `try` block of", "error"),
    "print in a finally part, and in torch.autocast": (
        DEC + "    try:\n        y = x * 2\n    finally:\n        with torch.autocast('cpu'):\n            print(y)  # here\n"
        "    return y\n", "print(", "warning",
    ),
    "compiled by torch.compile(fn)": (
        "def g(x):\n    print(x)  # here\n    return x\n\n\nfast = torch.compile(g)\n", "print(", "warning",
    ),
    "a module's forward": (
        "class M(torch.nn.Module):\n    def forward(self, x):\n        print(x.shape)  # here\n        return x\n\n\n"
        "model = torch.compile(M().eval())\n", "`M.forward()`", "warning",
    ),
    "a module compiled in place": (
        "class M(torch.nn.Module):\n    def forward(self, x):\n        return x * x.max().item()  # here\n\n\n"
        "model = M()\nmodel.compile()\n", ".item()", "warning",
    ),
    "a helper the compiled forward calls": (
        "class M(torch.nn.Module):\n    def forward(self, x):\n        return self.scale(x)\n\n"
        "    def scale(self, x):\n        return x * x.max().item()  # here\n\n\nmodel = torch.compile(M())\n",
        "which the compiled `M.forward()` calls", "warning",
    ),
}

SILENT = {
    "not compiled": "def f(x):\n    print(x)\n    return x.sum().item()\n",
    "compiled under a flag": "def g(x):\n    print(x)\n    return x\n\n\nif args.compile:\n    g = torch.compile(g)\n",
    "fullgraph=True (torch raises)": "@torch.compile(fullgraph=True)\ndef f(x):\n    print(x)\n    return x\n",
    ".numpy() (traced in 2.13)": DEC + "    a = x.numpy()\n    return x * 2\n",
    "assert on a tensor (traced)": DEC + "    assert x.sum() > 0\n    return x\n",
    "if on a shape": DEC + "    if x.shape[0] > 1 and x.dim() == 2:\n        return x * 2\n    return x\n",
    "if on a flag": "@torch.compile\ndef f(x, training=True):\n    if training:\n        return x * 2\n    return x\n",
    "if x is None": DEC + "    if x is None:\n        return 0\n    return x\n",
    "print under is_compiling()": DEC + "    if not torch.compiler.is_compiling():\n        print(x)\n    return x\n",
    "print in a nested def": DEC + "    def show():\n        print(x)\n    return x\n",
    "print in an except part": DEC + "    try:\n        y = x * 2\n    except Exception:\n        print(x)\n    return x\n",
    "print in a with block of the user's": (
        "import contextlib\n\n\n@contextlib.contextmanager\ndef span():\n    yield\n\n\n" + DEC
        + "    with span():\n        print(x)\n    return x\n"
    ),
    "after the return": DEC + "    return x\n    print(x)\n",
    "a helper under torch.compiler.disable": (
        "@torch.compiler.disable\ndef show(x):\n    print(x)\n\n\n" + DEC + "    show(x)\n    return x\n"
    ),
    "print that dynamo reorders": "torch._dynamo.config.reorderable_logging_functions.add(print)\n" + DEC + "    print(x)\n    return x\n",
    ".item() with capture_scalar_outputs": "torch._dynamo.config.capture_scalar_outputs = True\n" + DEC + "    return x * x.sum().item()\n",
    "a print of the file's own": "def print(*a):\n    pass\n\n\n" + DEC + "    print(x)\n    return x\n",
    "a list's items": DEC + "    for k, v in {'a': 1}.items():\n        x = x + v\n    return x\n",
    "a module not compiled": "class M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n\n\nmodel = M()\n",
}


def _gl506(tmp_path, body: str) -> tuple[list, list[str]]:
    path = tmp_path / "prog.py"
    path.write_text(HEADER + textwrap.dedent(body))
    rules = [discover_rules(plugins=False)["GL506"]]
    return [f for f in check_file(str(path), rules, Config()).findings], path.read_text().splitlines()


@pytest.mark.parametrize("body, said, severity", REPORTED.values(), ids=REPORTED)
def test_a_line_dynamo_breaks_at_is_reported_with_the_fix(tmp_path, body, said, severity):
    (finding,), lines = _gl506(tmp_path, body)
    assert lines[finding.location.line - 1].endswith("# here")
    assert finding.message.startswith("graph break in ")
    assert said in finding.message or said in lines[finding.location.line - 1]
    assert finding.severity.value == severity
    assert finding.fix.startswith(("Move the print", "Keep the value a tensor", "Keep it a tensor", "Log outside", "Make the branch"))
    assert any("is compiled here" in r.message for r in finding.related)


@pytest.mark.parametrize("body", SILENT.values(), ids=SILENT)
def test_what_does_not_break_or_may_not_run_compiled_is_silent(tmp_path, body):
    assert _gl506(tmp_path, body)[0] == []


def test_the_column_is_the_call_that_breaks(tmp_path):
    (finding,), lines = _gl506(tmp_path, DEC + "    s = x.sum().item()  # here\n    return x * s\n")
    assert lines[finding.location.line - 1][finding.location.column - 1:].startswith("x.sum().item()")
