"""torch.compile through graphlint's other surfaces: ``assert_max_traces`` on compiled functions
and modules, the pytest plugin, the IPython extension, ``graphlint run`` (the probes wait for
the program's own imports), and a rule failing in a torch hook (GL000, the others carry on)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from harness import HANG_GUARD, PYTEST_ENV
from torch_support import fresh_dynamo  # noqa: F401 - a fixture

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

#: torch, imported as this module's first test starts (``_torch``), not as pytest collects it:
#: every pytest-xdist worker collects every module, and importing torch is 2 s of CPU.
torch = None


@pytest.fixture(scope="module", autouse=True)
def _torch():
    global torch
    import torch  # the test extra installs it: a missing torch is an error, never a silent skip


def _compiled_function():
    return torch.compile(lambda v: v * 2, backend="eager", dynamic=False)


def _compiled_module():
    return torch.compile(torch.nn.Linear(3, 3), backend="eager", dynamic=False)


@pytest.mark.parametrize("make, rows", [(_compiled_function, lambda n: (n,)), (_compiled_module, lambda n: (n, 3))],
                         ids=["function", "module"])
@pytest.mark.parametrize("compiles, fails", [(2, False), (3, True)])
def test_assert_max_traces_counts_a_compiled_functions_compiles(make, rows, compiles, fails):
    from graphlint.testing import GraphlintAssertion, assert_max_traces

    fast = make()
    fast(torch.ones(rows(1)))  # compiled before the block: not counted

    def block():
        with assert_max_traces(fast, 2):
            for n in range(2, compiles + 2):
                fast(torch.ones(rows(n)))
            fast(torch.ones(rows(2)))  # cached: no compile

    if fails:
        with pytest.raises(GraphlintAssertion, match=r"compiled 3 times in the block \(at most 2 expected\)") as info:
            block()
        assert "mark_dynamic" in str(info.value) and "tf." not in str(info.value)
    else:
        block()


def test_assert_max_traces_on_torch_works_under_instrumentation_and_restores_dynamo():
    import torch._dynamo.convert_frame as convert_frame

    from graphlint.instrument import instrument
    from graphlint.linter import Linter
    from graphlint.testing import GraphlintAssertion, assert_max_traces

    with instrument(Linter()):
        probe_wrapper = convert_frame._compile
        fast = _compiled_function()
        with pytest.raises(GraphlintAssertion):
            with assert_max_traces(fast, 1):
                fast(torch.ones(1))
                fast(torch.ones(2))
        assert convert_frame._compile is probe_wrapper


def test_assert_max_traces_refuses_what_torch_compile_did_not_make():
    from graphlint.testing import assert_max_traces

    with pytest.raises(TypeError, match="tf.function, jax.jit or torch.compile function"):
        with assert_max_traces(torch.nn.Linear(2, 2), 1):
            pass


def test_a_rule_raising_in_a_torch_hook_is_gl000_and_the_others_carry_on():
    from graphlint import Rule
    from graphlint.instrument import instrument
    from graphlint.linter import Linter
    from graphlint.registry import discover_rules

    hooks = ["graphlint_graph_break", "graphlint_recompile_limit_reached"]

    def raising(hook):
        def method(self):
            raise ZeroDivisionError(f"raised in {hook}")

        method.__name__ = hook
        return type(f"Raises_{hook}", (Rule,), {"__doc__": "Raises.", "code": "XY999", "name": "raises",
                                                "summary": "raises", hook: method})

    for hook in hooks:
        torch._dynamo.reset()
        linter = Linter(rules=[*discover_rules(plugins=False).values(), raising(hook)], warn=lambda m: None)
        with instrument(linter, warn=lambda m: None):
            f = torch.compile(lambda v: v + 1, backend="eager", dynamic=False, recompile_limit=2)
            for n in range(1, 4):
                f(torch.ones(n))

            @torch.compile(backend="eager")
            def noisy(v):
                print("n", v.shape)
                return v + 1

            noisy(torch.ones(2))
        findings = linter.finish()
        internal = [f for f in findings if f.code == "GL000"]
        assert [f.message for f in internal] == [f"rule XY999 failed in {hook}: ZeroDivisionError: raised in {hook}"]
        assert {f.code for f in findings} >= {"GL501", "GL506"}, hook


# -- in fresh processes -----------------------------------------------------------------------------
def _run(args, cwd, **kwargs):
    env = {**os.environ, **PYTEST_ENV, "TORCHINDUCTOR_COMPILE_THREADS": "1"}
    return subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env, timeout=HANG_GUARD, **kwargs)


@pytest.mark.slow
def test_graphlint_imports_no_framework_and_dynamos_probe_waits_for_torch_compile(tmp_path):
    prog = tmp_path / "lazy.py"
    prog.write_text(textwrap.dedent(
        """
        import sys
        from graphlint.linter import Linter
        from graphlint.instrument import instrument

        linter = Linter()
        with instrument(linter):
            assert not {"torch", "tensorflow", "jax"} & set(sys.modules)
            import torch
            assert torch.compile.__code__.co_filename == "<embedded graphlint probe>"
            assert "torch._dynamo" not in sys.modules  # not imported for the program
            f = torch.compile(lambda v: v + 1, backend="eager", dynamic=False)
            for n in range(1, 8):
                f(torch.ones(n))
        print(sorted({f.code for f in linter.finish()}), "tensorflow" in sys.modules)
        """
    ))
    proc = _run([sys.executable, str(prog)], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "['GL501'] False"


@pytest.mark.slow
def test_pytest_graphlint_reports_a_torch_tests_recompiles_with_the_test(tmp_path):
    (tmp_path / "test_model.py").write_text(textwrap.dedent(
        """
        import torch

        fast = torch.compile(lambda v: v.sin(), backend="eager", dynamic=False)

        def test_lengths():
            for n in range(1, 8):
                assert fast(torch.ones(n)).shape == (n,)

        def test_clean():
            assert fast(torch.ones(3)).shape == (3,)
        """
    ))
    proc = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--graphlint",
                 "--graphlint-report", str(tmp_path / "report.json")], tmp_path)
    report = json.loads((tmp_path / "report.json").read_text())
    found = [(f["code"], f["test"], f["line"]) for f in report["findings"]]
    assert found == [("GL501", "test_model.py::test_lengths", 8)], proc.stdout[-3000:]


TERMINAL = """\
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
for cell in [
    "%load_ext graphlint",
    "import torch\\nfast = torch.compile(lambda v: v + 1, backend='eager', dynamic=False)",
    "for n in range(1, 8):\\n    fast(torch.ones(n))",
    "@torch.compile(backend='eager')\\ndef noisy(v):\\n    print('shape', v.shape)\\n    return v * 2\\nnoisy(torch.ones(2))",
    "%unload_ext graphlint",
    "import torch._dynamo.convert_frame as cf\\nprint('restored:', cf._compile.__code__.co_filename != '<embedded graphlint probe>')",
]:
    shell.run_cell(cell, store_history=True)
"""


@pytest.mark.slow
def test_ipython_extension_shows_recompiles_and_graph_breaks_under_their_cells(tmp_path):
    pytest.importorskip("IPython")
    proc = _run([sys.executable, "-c", TERMINAL], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    shown = re.findall(r"^(In \[\d+\], line \d+): (GL\d+) ", proc.stdout, re.M)
    assert shown == [("In [3], line 2", "GL501"), ("In [4], line 3", "GL506")], proc.stdout
    assert "restored: True" in proc.stdout
