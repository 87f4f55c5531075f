"""JAX: GL501/GL502 on `jax.jit` (runtime and static), the lazily installed JAX probe, and
`assert_max_traces` on jitted functions. Real JAX on the CPU; every test that needs JAX skips on
its own when JAX is not installed.

The samples under ``samples/jax/`` run in ONE subprocess (the ``sample_runs`` fixture,
``tests/sample_driver.py jax``) that never imports TensorFlow, so the tests also see that graphlint
does not import it for a JAX program; that every sample yields exactly its markers (and a JAX fix
names no TensorFlow API) is tests/runtime/test_samples.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

from harness import SAMPLES, expected_markers, only

JAX = SAMPLES / "jax"
BAD = sorted(JAX.glob("*_bad*.py"))
GOOD = sorted(JAX.glob("*_good*.py"))
HAS_JAX = importlib.util.find_spec("jax") is not None
needs_jax = pytest.mark.skipif(not HAS_JAX, reason="JAX is not installed (pip install 'graphlint[jax]')")


@pytest.fixture
def runs(sample_runs):
    """Every JAX sample run under graphlint, in one subprocess: path -> result."""
    if not HAS_JAX:
        pytest.skip("JAX is not installed (pip install 'graphlint[jax]')")
    return sample_runs("jax")


def test_each_jax_code_has_bad_and_good_samples():
    for code in ("gl501", "gl502"):
        assert list(JAX.glob(f"{code}_jax_bad*.py")), code
        assert (JAX / f"{code}_jax_good.py").is_file(), code


@needs_jax
def test_jax_programs_run_without_tensorflow_being_imported(runs):
    assert not any(result["tensorflow_imported"] for result in runs.values())


@needs_jax
def test_gl501_names_the_changing_shape_the_definition_and_pad_or_bucket(runs):
    finding = only(runs[str(JAX / "gl501_jax_bad_shape.py")]["findings"], "GL501")
    assert "`loss()` was traced 8 times (limit 5)" in finding.message
    assert "`x` shape (1, 3) → (2, 3) → (3, 3) → (4, 3) → … (8 distinct)" in finding.message
    assert "`w`" not in finding.message  # unchanged
    assert finding.fix.startswith("Pad or bucket `x`")
    assert [r.location.line for r in finding.related] == [11]  # @jax.jit def loss


@needs_jax
def test_gl501_names_a_static_argument_and_its_values(runs):
    finding = only(runs[str(JAX / "gl501_jax_bad_static.py")]["findings"], "GL501")
    assert "static argument `steps` (int) 1 → 2 → 3 → 4 → … (8 distinct)" in finding.message
    assert "`x`" not in finding.message  # same shape every time, its values never retrace
    assert "Make `steps` a traced argument" in finding.fix


@needs_jax
def test_gl501_tells_python_scalars_weak_type_from_arrays(runs):
    finding = only(runs[str(JAX / "gl501_jax_bad_weak.py")]["findings"], "GL501")
    assert "`scale` Python float (weak float32) → float32 array → Python int (weak int32)" in finding.message
    assert "weakly typed" in finding.fix


@needs_jax
def test_gl502_counts_jitted_functions_made_at_one_line(runs):
    finding = only(runs[str(JAX / "gl502_jax_bad.py")]["findings"], "GL502")
    assert finding.message.startswith("`jax.jit` made 3 new functions at this line")
    assert finding.related == ()  # a lambda is defined on the line that jits it
    assert "Apply jax.jit once" in finding.fix


# -- in-process: thresholds, the lazy probe, assert_max_traces ----------------------------------
def _findings(fn, config=None):
    from graphlint.linter import Linter
    from graphlint.instrument import instrument

    linter = Linter(config)
    with instrument(linter):
        fn()
    return [f for f in linter.finish() if f.code in ("GL501", "GL502")]


@needs_jax
@pytest.mark.parametrize("shapes, reported", [(5, False), (6, True)])
def test_gl501_at_and_just_over_the_limit(shapes, reported):
    import jax.numpy as jnp
    from jax import jit

    def run():
        double = jit(lambda x: x * 2)
        for n in range(1, shapes + 1):
            double(jnp.ones((n,)))

    found = _findings(run)
    assert [f.code for f in found] == (["GL501"] if reported else [])


@needs_jax
@pytest.mark.parametrize("made, reported", [(2, False), (3, True)])
def test_gl502_at_and_just_over_max_per_site(made, reported):
    import jax
    import jax.numpy as jnp

    def run():
        for i in range(made):
            jax.jit(lambda x: x + 1)(jnp.ones((2,)))

    found = _findings(run)
    assert [f.code for f in found] == (["GL502"] if reported else [])


@needs_jax
def test_jax_helpers_jitted_inside_jax_are_not_the_users():
    import jax.numpy as jnp

    def run():  # jnp.ones/.at[].set jit helpers of their own, traced per shape
        for n in range(1, 9):
            jnp.zeros((n, 3)).at[0].set(1.0)

    assert _findings(run) == []


@needs_jax
def test_probe_is_installed_only_while_instrumenting_and_restored_identically():
    import jax
    from jax._src import pjit

    from graphlint.linter import Linter
    from graphlint.instrument import instrument

    before = (pjit.make_jit, pjit._trace_for_jit, jax.jit)
    meta = list(sys.meta_path)
    with instrument(Linter()):
        assert pjit.make_jit is not before[0] and pjit._trace_for_jit is not before[1]
    assert (pjit.make_jit, pjit._trace_for_jit, jax.jit) == before
    assert sys.meta_path == meta


@pytest.mark.slow
def test_probe_waits_for_the_program_to_import_jax_and_graphlint_imports_no_framework(tmp_path):
    if not HAS_JAX:
        pytest.skip("JAX is not installed")
    script = textwrap.dedent(
        """
        import sys
        from graphlint.linter import Linter
        from graphlint.instrument import instrument

        linter = Linter()
        with instrument(linter):
            assert "jax" not in sys.modules and "tensorflow" not in sys.modules
            import jax, jax.numpy as jnp
            from jax._src import pjit
            assert pjit._trace_for_jit.__code__.co_filename == "<embedded graphlint probe>"
            f = jax.jit(lambda x: x)
            for n in range(1, 8):
                f(jnp.ones((n,)))
        print(sorted({f.code for f in linter.finish()}), "tensorflow" in sys.modules)
        """
    )
    prog = tmp_path / "lazy.py"  # a file: code from `python -c` is not user code
    prog.write_text(script)
    proc = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "['GL501'] False"


@needs_jax
@pytest.mark.parametrize("traces, fails", [(2, False), (3, True)])
def test_assert_max_traces_counts_a_jitted_functions_traces(traces, fails):
    import jax
    import jax.numpy as jnp

    from graphlint.testing import GraphlintAssertion, assert_max_traces

    f = jax.jit(lambda x: x - 1)
    f(jnp.ones((1,)))  # traced before the block: not counted

    def block():
        with assert_max_traces(f, 2):
            for n in range(1, traces + 1):
                f(jnp.ones((n + 1,)))
            f(jnp.ones((2,)))  # a cached shape: no trace

    if fails:
        with pytest.raises(GraphlintAssertion, match=r"traced 3 times in the block \(at most 2 expected\)"):
            block()
    else:
        block()


@needs_jax
def test_assert_max_traces_on_jax_gives_jax_advice_and_works_under_instrumentation():
    import jax
    import jax.numpy as jnp

    from graphlint.linter import Linter
    from graphlint.instrument import instrument
    from graphlint.testing import GraphlintAssertion, assert_max_traces

    with instrument(Linter()):
        f = jax.jit(lambda x: x * 3)
        with pytest.raises(GraphlintAssertion) as info:
            with assert_max_traces(f, 1):
                f(jnp.ones((1,)))
                f(jnp.ones((2,)))
    assert "pad or bucket" in str(info.value) and "tf." not in str(info.value)


# -- both frameworks in one program ---------------------------------------------------------------
@pytest.mark.slow
def test_a_program_using_tensorflow_and_jax_is_watched_for_both(tmp_path):
    if not HAS_JAX:
        pytest.skip("JAX is not installed")
    prog = tmp_path / "both.py"
    prog.write_text(
        textwrap.dedent(
            """
            import jax, jax.numpy as jnp
            import tensorflow as tf

            @tf.function
            def tf_step(x, lr):
                return x * lr

            @jax.jit
            def jax_step(x):
                return x * 2

            for i in range(7):
                tf_step(tf.ones((2,)), 0.1 * (i + 1))  # tf
                jax_step(jnp.ones((i + 1,)))  # jax
            """
        )
    )
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run(
        [sys.executable, "-c", "from graphlint.cli import main; main()", "run", "--format", "json", "--output", str(tmp_path / "out.json"), str(prog)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    report = json.loads((tmp_path / "out.json").read_text())
    lines = {(f["code"], f["line"]) for f in report["findings"]}
    assert lines == {("GL501", 14), ("GL501", 15)}, report["findings"]


# -- static GL502 for jax.jit ---------------------------------------------------------------------
STATIC_CASES = [
    ("import jax\nfor i in range(3):\n    f = jax.jit(lambda x: x + i)  # hit\n", True),
    ("from jax import jit as j\ndef predict(x):\n    return j(lambda v: v)(x)  # hit\nfor i in range(3):\n    predict(i)\n", True),
    ("import jax\ndef serve(x):\n    @jax.jit  # hit\n    def inner(v):\n        return v\n    return inner(x)\nfor i in range(3):\n    serve(i)\n", True),
    ("import jax\nfrom functools import partial\ndef serve(x):\n    @partial(jax.jit, static_argnums=1)  # hit\n    def inner(v, n):\n        return v\n    return inner(x, 1)\nfor i in range(3):\n    serve(i)\n", True),
    ("import jax\nfor i in range(3):\n    g = jax.vmap(jax.jit(lambda x: x))  # hit\n", True),
    ("import jax\n\n@jax.jit\ndef f(x):\n    return x\nfor i in range(3):\n    f(i)\n", False),
    ("import jax\nclass Model:\n    def __init__(self):\n        self.fast = jax.jit(self.slow)\n    def slow(self, x):\n        return x\n", False),
    ("import jax\nfast = jax.jit(lambda x: x)\ndef predict(x):\n    return fast(x)\nfor i in range(3):\n    predict(i)\n", False),
]


@pytest.mark.parametrize("source, hit", STATIC_CASES, ids=range(len(STATIC_CASES)))
def test_static_gl502_for_jax_jit(tmp_path, source, hit):
    """No JAX needed: `graphlint check` only parses."""
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import check_file

    path = tmp_path / "prog.py"
    path.write_text(source)
    rules = [cls for cls in discover_rules(plugins=False).values() if "static" in cls.engines]
    found = [f for f in check_file(str(path), rules, Config(select=["GL502"])).findings]
    want = [n for n, line in enumerate(source.splitlines(), 1) if "# hit" in line]
    assert [f.location.line for f in found] == (want if hit else [])
    for f in found:
        assert "jitted function" in f.message and "jax.jit" in f.fix


# -- TensorFlow's probes are installed lazily too: its own messages stay as under python -----------
@pytest.mark.slow
def test_tensorflow_imported_by_the_program_still_hides_graphlints_launcher_frames(tmp_path):
    """TensorFlow's probes (and the filter that keeps graphlint's launcher out of the op stacks
    TensorFlow records) are installed when the program imports TensorFlow, not before."""
    prog = tmp_path / "unfed.py"
    prog.write_text(
        "import tensorflow as tf\n"
        "tf.compat.v1.disable_eager_execution()\n"
        "x = tf.compat.v1.placeholder(tf.float32, [2], name='needs_feed')\n"
        "with tf.compat.v1.Session() as sess:\n"
        "    sess.run(x * 2)\n"
    )
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    proc = subprocess.run(
        [sys.executable, "-c", "from graphlint.cli import main; main()", "run", str(prog)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]  # the program's status: it raised
    trace = proc.stderr[proc.stderr.index("Original stack trace for 'needs_feed':"):].splitlines()
    assert trace[1].startswith(f'  File "{prog}", line 3')
    assert "click" not in proc.stderr and "graphlint/cli.py" not in proc.stderr


@pytest.mark.slow
def test_pytest_graphlint_reports_a_jax_tests_retracing(tmp_path):
    if not HAS_JAX:
        pytest.skip("JAX is not installed")
    (tmp_path / "test_model.py").write_text(
        textwrap.dedent(
            """
            import jax
            import jax.numpy as jnp

            @jax.jit
            def norm(x):
                return jnp.sqrt(jnp.sum(x * x))

            def test_norms():
                for n in range(1, 8):
                    assert norm(jnp.ones((n,))) > 0

            def test_clean():
                assert norm(jnp.ones((3,))) > 0
            """
        )
    )
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--graphlint",
         "--graphlint-report", str(tmp_path / "report.json")],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600,
    )
    report = json.loads((tmp_path / "report.json").read_text())
    found = [(f["code"], f["test"], f["line"]) for f in report["findings"]]
    assert found == [("GL501", "test_model.py::test_norms", 11)], proc.stdout[-3000:]


def test_graphlint_rules_shows_each_rules_frameworks():
    from click.testing import CliRunner

    from graphlint.cli import main

    result = CliRunner().invoke(main, ["rules", "--format", "json"])
    frameworks = {r["code"]: r["frameworks"] for r in json.loads(result.output)}
    assert frameworks["GL501"] == frameworks["GL502"] == ["tensorflow", "jax", "torch"]
    assert frameworks["GL505"] == ["keras", "tf-keras"]
    assert frameworks["GL101"] == ["tensorflow-v1"] and frameworks["GL001"] == []
    text = CliRunner().invoke(main, ["rules"]).output
    assert any(line.startswith("GL501") and " tensorflow+jax+torch " in line for line in text.splitlines())


@pytest.mark.parametrize(
    "jitted, words",
    [
        ("lambda v: v", "a new jitted function, traced and compiled again, on every call"),
        ("inner", "a new jitted function, traced and compiled again, on every call"),
        ("f", "a new jitted wrapper around `f`, which JAX may trace and compile again, on every call"),
        ("fn", "traced again unless JAX finds the same function object in its cache, on every call"),
    ],
)
def test_static_gl502_says_what_rejitting_costs_by_what_is_jitted(tmp_path, jitted, words):
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import check_file

    path = tmp_path / "prog.py"
    path.write_text(
        "import jax\n\ndef f(x):\n    return x\n\ndef predict(x, fn):\n    def inner(v):\n        return v\n"
        f"    return jax.jit({jitted})(x)\n\nfor i in range(3):\n    predict(i, f)\n"
    )
    rules = [cls for cls in discover_rules(plugins=False).values() if "static" in cls.engines]
    (finding,) = check_file(str(path), rules, Config(select=["GL502"])).findings
    assert finding.location.line == 9 and finding.message.endswith(words), finding.message


@needs_jax
def test_gl502_runtime_counts_jit_inside_vmap_made_in_a_loop():
    import jax
    import jax.numpy as jnp

    def run():
        for i in range(4):
            jax.vmap(jax.jit(lambda x: x * 2))(jnp.ones((3, 2)))

    assert [f.code for f in _findings(run)] == ["GL502"]


def test_graphlint_check_on_the_jax_samples_finds_only_the_static_gl502():
    """No JAX needed: the static engine reads JAX-only files too (none imports TensorFlow)."""
    from graphlint.config import Config
    from graphlint.registry import discover_rules
    from graphlint.static import check_file

    rules = [cls for cls in discover_rules(plugins=False).values() if cls.checks_statically()]
    found = {
        (path.name, f.code, f.location.line)
        for path in BAD + GOOD
        for f in check_file(str(path), rules, Config()).findings
    }
    bad = JAX / "gl502_jax_bad.py"
    assert found == {(bad.name, code, line) for code, line in expected_markers(bad)}
