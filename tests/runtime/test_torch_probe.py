"""The torch probes in this process, on real torch (CPU, ``backend="eager"``): every compile of
every frame and what it carries, thresholds at and just over each limit, what is never reported,
everything patched restored, no user object kept, and the version bound."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest

from torch_support import fresh_dynamo  # noqa: F401 - a fixture

pytestmark = pytest.mark.usefixtures("fresh_dynamo")

#: torch, imported as this module's first test starts (``_torch``), not as pytest collects it:
#: every pytest-xdist worker collects every module, and importing torch is 2 s of CPU.
torch = None


@pytest.fixture(scope="module", autouse=True)
def _torch():
    global torch
    import torch  # the test extra installs it: a missing torch is an error, never a silent skip


def _findings(fn, config=None, codes=("GL501", "GL502", "GL506"), warn=None):
    from graphlint.instrument import instrument
    from graphlint.linter import Linter

    linter = Linter(config, warn=warn)
    with instrument(linter, warn=warn):
        fn()
    return [f for f in linter.finish() if f.code in codes]


def _events(fn):
    from graphlint._hookspecs import hookimpl
    from graphlint.instrument import instrument
    from graphlint.linter import Linter

    seen = []

    class Recorder:
        @hookimpl
        def graphlint_function_created(self, function_id, name, site, by_user, framework, api, target):
            seen.append(("created", function_id, name, by_user, framework, api, target))

        @hookimpl
        def graphlint_function_traced(self, function_id, site, arguments, trace_count, guard):
            seen.append(("traced", function_id, site, arguments, trace_count, guard))

        @hookimpl
        def graphlint_recompile_limit_reached(self, function_id, compiles, limit, limit_type):
            seen.append(("limit", function_id, compiles, limit, limit_type))

    linter = Linter()
    linter.pm.register(Recorder())
    with instrument(linter):
        fn()
    return seen


def _lengths(n, **options):
    def run():
        f = torch.compile(lambda v: v + 1, backend="eager", dynamic=False, **options)
        for length in range(1, n + 1):
            f(torch.ones(length))

    return run


@pytest.mark.parametrize("compiles, reported", [(5, False), (6, True)])
def test_gl501_at_and_just_over_max_traces(compiles, reported):
    found = _findings(_lengths(compiles))
    assert [(f.code, f.severity.value) for f in found] == ([("GL501", "warning")] if reported else [])


@pytest.mark.parametrize("limit, calls, error", [(3, 3, False), (3, 4, True)])
def test_reaching_a_recompile_limit_is_an_error_even_below_max_traces(limit, calls, error):
    found = _findings(_lengths(calls, recompile_limit=limit))
    assert [(f.code, f.severity.value) for f in found] == ([("GL501", "error")] if error else [])
    if error:
        assert "(3 compiles, torch._dynamo.config.recompile_limit = 3)" in found[0].message


def test_every_compile_carries_the_calling_line_the_arguments_the_guard_and_dynamos_count():
    x = torch.ones(3)

    def run():
        f = torch.compile(lambda v, lr: v * lr, backend="eager", dynamic=False)
        for i in range(3):
            f(x, 0.5 / (i + 1))  # the calling line

    seen = _events(run)
    frames = [e for e in seen if e[0] == "created" and e[5] is None]
    assert [(e[3], e[4]) for e in frames] == [(False, "torch")]  # one frame, dynamo's
    traced = [e for e in seen if e[0] == "traced"]
    assert [e[4] for e in traced] == [1, 2, 3]
    assert {e[2].line for e in traced} == {run.__code__.co_firstlineno + 3}
    assert [[(a.name, a.kind, a.value or a.shape) for a in e[3]] for e in traced][1] == [
        ("v", "tensor", (3,)), ("lr", "python", "0.25")
    ]
    assert traced[0][5] is None and [e[5].text for e in traced[1:]] == ["lr == 0.5", "lr == 0.25"]
    assert traced[1][5].source == "lr"


def test_a_guarded_attribute_global_or_closure_value_is_read_without_running_user_code():
    class Box:
        def __init__(self, n):
            self.n = n

        @property
        def boom(self):  # never read by graphlint
            raise AssertionError("graphlint ran a property")

    x = torch.ones(2)

    def run():
        f = torch.compile(lambda v, box: v * box.n, backend="eager", dynamic=False)
        for n in range(3):
            f(x, Box(n))

    traced = [e for e in _events(run) if e[0] == "traced"]
    values = [[a for a in e[3] if a.name == "box.n"] for e in traced]
    assert [[a.value for a in v] for v in values] == [[], ["1"], ["2"]]


def test_a_torch_dynamo_reset_starts_a_frames_count_again():
    x = torch.ones(2)

    def run():
        f = torch.compile(lambda v: v * 2, backend="eager")
        for _ in range(7):
            torch._dynamo.reset()
            f(x)

    assert _findings(run) == []


@pytest.mark.parametrize("made, reported", [(2, False), (3, True)])
def test_gl502_same_module_compiled_at_and_over_max_per_site(made, reported):
    model = torch.nn.Linear(2, 2)
    x = torch.ones(1, 2)

    def run():
        for _ in range(made):
            torch.compile(model, backend="eager")(x)

    assert [f.code for f in _findings(run)] == (["GL502"] if reported else [])


def test_gl502_a_new_model_each_time_and_compile_in_init_are_not_reported():
    x = torch.ones(1, 2)

    class Service:
        def __init__(self):
            self.fast = torch.compile(torch.nn.Linear(2, 2), backend="eager")

    def run():
        for _ in range(4):  # a sweep: each new model compiled once
            torch.compile(torch.nn.Linear(2, 2), backend="eager")(x)
        for _ in range(4):
            Service().fast(x)

    assert _findings(run) == []


def test_gl502_a_fresh_lambda_per_call_is_the_same_function():
    x = torch.ones(2)

    def predict(v):
        return torch.compile(lambda t: t * 3, backend="eager")(v)

    def run():
        for _ in range(3):
            predict(x)

    (finding,) = _findings(run)
    assert finding.code == "GL502" and "predict.<locals>.<lambda>` 3 times" in finding.message


def test_the_decorator_form_and_module_compile_are_the_users_line():
    seen = []

    def run():
        @torch.compile(backend="eager")
        def f(v):
            return v + 1

        m = torch.nn.Linear(2, 2)
        m.compile(backend="eager")
        seen.extend([f(torch.ones(2)), m(torch.ones(1, 2))])

    made = [e for e in _events(run) if e[0] == "created" and e[5] == "torch.compile"]
    assert [(e[2], e[3]) for e in made] == [("test_the_decorator_form_and_module_compile_are_the_users_line.<locals>.run.<locals>.f", True), ("Linear", True)]


def test_graph_breaks_asked_for_are_not_reported_and_each_compile_counts():
    @torch.compiler.disable
    def helper(v):
        return v * 3

    def run():
        @torch.compile(backend="eager")
        def asked(v):
            torch._dynamo.graph_break()
            return helper(v) + 1

        @torch.compile(backend="eager", dynamic=False)
        def noisy(v):
            print("shape", v.shape)
            return v + 1

        asked(torch.ones(2))
        for n in (2, 3, 3):
            noisy(torch.ones(n))

    (finding,) = _findings(run)
    assert finding.code == "GL506" and "(2 compiles broke here)" in finding.message


def test_jit_script_still_resolves_names_in_the_callers_frame():
    def run():
        scale = 3.0  # noqa: F841 - read by TorchScript from this frame

        class Scaled:
            def __init__(self, x: torch.Tensor):
                self.x = x

            def get(self) -> torch.Tensor:
                return self.x * 2

        scripted = torch.jit.script(Scaled)
        assert float(scripted(torch.ones(1)).get()) == 2.0

    run()  # plain
    _findings(run)  # the same under the probe


def test_everything_patched_is_restored_and_nothing_is_kept():
    import torch._dynamo.convert_frame as convert_frame
    from torch._dynamo.symbolic_convert import InstructionTranslatorBase

    def patched():
        return (
            torch.compile, torch.jit.trace, torch.jit.trace_module, torch.jit.script, torch.export.export,
            convert_frame._compile, convert_frame.get_and_maybe_log_recompilation_reasons,
            convert_frame.exceeds_recompile_limit, vars(InstructionTranslatorBase)["log_graph_break"],
        )

    before, meta = patched(), list(sys.meta_path)
    refs = []

    def run():
        assert all(now is not then for now, then in zip(patched(), before))
        model = torch.nn.Linear(3, 3)
        fast = torch.compile(model, backend="eager")
        for n in range(1, 8):
            fast(torch.ones(n, 3))
        refs.extend([weakref.ref(model), weakref.ref(fast)])

    _findings(run)
    gc.collect()
    assert [ref() for ref in refs] == [None, None]
    assert patched() == before and sys.meta_path == meta


def test_outside_the_tested_torch_versions_one_warning_and_the_probe_stays_off(monkeypatch):
    import torch._dynamo.convert_frame as convert_frame

    monkeypatch.setattr(torch, "__version__", "2.99.0")
    said = []
    original = convert_frame._compile

    def run():
        assert convert_frame._compile is original
        _lengths(7)()

    found = _findings(run, warn=said.append)
    assert found == []
    assert said == [
        "graphlint: torch 2.99.0 is not a version the torch.compile probe knows (>=2.13,<2.14); "
        "torch.compile is not watched"
    ]


def test_the_tested_versions_are_the_extras():
    import tomllib
    from pathlib import Path

    from graphlint.probes.torch_dynamo import TESTED

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    (low, high) = TESTED
    spec = f"torch>={low[0]}.{low[1]},<{high[0]}.{high[1]}"
    assert project["optional-dependencies"]["torch"] == [spec]
    # the tests run one release of that range, pinned (its CPU build, never a later CUDA one)
    pinned = [r for r in project["optional-dependencies"]["test"] if r.startswith("torch")]
    assert len(pinned) == 1 and pinned[0].startswith("torch==")
    release = tuple(int(part) for part in pinned[0].removeprefix("torch==").split(".")[:2])
    assert low <= release < high


@pytest.mark.parametrize("api, make", [
    ("exported", lambda m, x: torch.export.export(m, (x,))),
    ("scripted", lambda m, x: torch.jit.script(m)),
    ("traced", lambda m, x: torch.jit.trace_module(m, {"forward": (x,)})),
], ids=["export", "script", "trace_module"])
@pytest.mark.parametrize("made, reported", [(2, False), (3, True)])
def test_gl502_export_script_and_trace_of_the_same_module_in_a_loop(api, make, made, reported):
    model = torch.nn.Linear(2, 2)
    x = torch.ones(1, 2)

    def run():
        for _ in range(made):
            make(model, x)

    found = _findings(run)
    assert [f.code for f in found] == (["GL502"] if reported else [])
    if reported:
        assert found[0].message.startswith(f"this line {api} `Linear` 3 times")
