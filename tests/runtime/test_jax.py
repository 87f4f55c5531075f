"""JAX: GL501/GL502 on `jax.jit` at runtime (the static form: tests/static/test_jax_static.py;
under pytest: tests/pytest_plugin/test_framework_plugins.py), the lazily installed JAX probe,
and `assert_max_traces` on jitted functions. Real JAX on the CPU; every test that needs JAX skips on
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

from harness import HANG_GUARD, SAMPLES, only

pytestmark = pytest.mark.sample_batch("jax")  # its `runs` are sample_runs("jax")

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
    proc = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, timeout=HANG_GUARD)
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
        capture_output=True, text=True, env=env, timeout=HANG_GUARD,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    report = json.loads((tmp_path / "out.json").read_text())
    lines = {(f["code"], f["line"]) for f in report["findings"]}
    assert lines == {("GL501", 14), ("GL501", 15)}, report["findings"]


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
        capture_output=True, text=True, env=env, timeout=HANG_GUARD,
    )
    assert proc.returncode == 1, proc.stderr[-2000:]  # the program's status: it raised
    trace = proc.stderr[proc.stderr.index("Original stack trace for 'needs_feed':"):].splitlines()
    assert trace[1].startswith(f'  File "{prog}", line 3')
    assert "click" not in proc.stderr and "graphlint/cli.py" not in proc.stderr


@needs_jax
def test_gl502_runtime_counts_jit_inside_vmap_made_in_a_loop():
    import jax
    import jax.numpy as jnp

    def run():
        for i in range(4):
            jax.vmap(jax.jit(lambda x: x * 2))(jnp.ones((3, 2)))

    assert [f.code for f in _findings(run)] == ["GL502"]
