"""A program's traceback under graphlint is python's: an exception raised through a patched
function (a TensorFlow, Keras, JAX or PyTorch entry point a probe wraps, ``os._exit``, a
framework's import) shows no frame of graphlint's between the caller's and the raising one.

TF1 programs in this process (plainly, then under the probes); TF2 and JAX programs in their
sample batches, whose tracebacks must hold no frame of graphlint's; the start-up hook's
``os._exit`` through ``graphlint run`` against ``python``."""

from __future__ import annotations

import textwrap

import pytest

from harness import ROOT, SAMPLES, assert_same, batch_programs, run_both, run_linted, run_main, write_program

import tensorflow as tf  # noqa: E402  (a test dependency: if missing, this module fails loudly instead of skipping)

#: What marks a frame of graphlint's in a printed traceback: a wrapper's disguised file name,
#: or a file of the graphlint package.
OWN_FRAMES = ('File "<embedded graphlint probe>"', f'File "{ROOT / "graphlint"}/')

HEADER = "import tensorflow as tf\ntf1 = tf.compat.v1\ntf1.disable_eager_execution()\n"

#: TF1 programs raising through each wrapper of the graph and session probes.
TF1_RAISING = {
    "get_variable": """\
        with tf1.variable_scope("s"):
            tf1.get_variable("w", [1])
        with tf1.variable_scope("s"):
            tf1.get_variable("w", [1])
        """,
    "op_created": """\
        tf.matmul(tf.zeros([2, 3]), tf.zeros([4, 5]))
        """,
    "variable_created": """\
        tf1.Variable()
        """,
    "initializer": """\
        tf1.variables_initializer(5)
        """,
    "session_created": """\
        tf1.Session(graph=5)
        """,
    "session_run": """\
        x = tf1.placeholder(tf.float32, [2])
        with tf1.Session() as sess:
            sess.run(x * 2, {x: [1.0, 2.0, 3.0]})
        """,
    "restore": """\
        v = tf1.get_variable("v", [1])
        with tf1.Session() as sess:
            tf1.train.Saver().restore(sess, "no/such/checkpoint")
        """,
}


def _traceback(capsys, run) -> str:
    """What ``run()`` printed on stderr from its ``Traceback`` line on."""
    capsys.readouterr()
    outcome = run()
    err = capsys.readouterr().err
    assert outcome.status == 1, err
    return err[err.index("Traceback (most recent call last):"):]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # (a Session never made: its __del__)
@pytest.mark.parametrize("name", [*TF1_RAISING, "story"])
def test_a_tf1_error_raised_through_a_probe_has_pythons_traceback(tmp_path, capsys, name):
    """The README's story (``Variable ... already exists`` raised in ``get_variable``'s store)
    and a program raising through each other TF1 wrapper: the same traceback, to the byte."""
    if name == "story":
        path = SAMPLES / "story" / "forecast_1_rebuilt.py"
    else:
        path = write_program(tmp_path, TF1_RAISING[name], header=HEADER)

    def plain():
        tf.compat.v1.reset_default_graph()
        return run_main(path)

    python = _traceback(capsys, plain)
    ours = _traceback(capsys, lambda: run_linted(path, warn=lambda m: None, reset_tf1=True)[1])
    assert not any(mark in python for mark in OWN_FRAMES), python
    assert ours == python


#: TF2 and Keras programs raising through a probe's wrapper; each prints its own traceback
#: (``traceback.print_exc``), which the batch keeps.
TF2_RAISING = {
    "tf_function_trace": """\
        import tensorflow as tf

        @tf.function
        def f(x):
            return tf.matmul(x, tf.zeros([4, 5]))

        f(tf.zeros([2, 3]))
        """,
    "keras_layer_call": """\
        import keras
        import numpy as np

        layer = keras.layers.Dense(2)
        layer(np.zeros((2, 3), "float32"))
        layer(np.zeros((2, 4), "float32"))
        """,
    "keras_model_init": """\
        import keras

        keras.Model(inputs=5, outputs=6)
        """,
    "keras_predict": """\
        import keras
        import numpy as np

        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
        model.predict(np.zeros((2, 4), "float32"), verbose=0)
        """,
}
JAX_RAISING = {
    "jax_jit_trace": """\
        import jax
        import jax.numpy as jnp

        @jax.jit
        def f(x):
            if x > 0:
                return x
            return -x

        f(jnp.ones(()))
        """,
}

TORCH_RAISING = {
    "torch_jit_script": """\
        import torch

        def f(x: int):
            return x + "a"

        torch.jit.script(f)
        """,
    "torch_compile_graph_break": """\
        import torch

        @torch.compile(fullgraph=True, backend="eager")
        def g(x):
            torch._dynamo.graph_break()
            return x + 1

        g(torch.ones(2))
        """,
}


def _printing(body: str) -> str:
    """``body`` run in a ``try`` whose ``except`` prints the traceback as python would."""
    indented = "".join(f"    {line}\n" for line in body.splitlines())
    return f"import traceback\ntry:\n{indented}except Exception:\n    traceback.print_exc()\n"


@batch_programs("tf2", "tracebacks")
def _tf2_programs(folder):
    return {name: write_program(folder / name, _printing(textwrap.dedent(body))) for name, body in TF2_RAISING.items()}


@batch_programs("jax", "tracebacks")
def _jax_programs(folder):
    return {name: write_program(folder / name, _printing(textwrap.dedent(body))) for name, body in JAX_RAISING.items()}


@batch_programs("torch", "tracebacks")
def _torch_programs(folder):
    return {name: write_program(folder / name, _printing(textwrap.dedent(body))) for name, body in TORCH_RAISING.items()}


@pytest.mark.sample_batch("tf2")
@pytest.mark.parametrize("name", TF2_RAISING)
def test_a_tf2_or_keras_error_raised_through_a_probe_shows_no_frame_of_graphlints(batch_runs, name):
    result = batch_runs("tf2", "tracebacks")[name]
    err = result["stderr"]
    assert "Traceback (most recent call last):" in err, err
    assert f'File "{result["path"]}", line ' in err, err
    assert not any(mark in err for mark in OWN_FRAMES), err


@pytest.mark.sample_batch("jax")
@pytest.mark.parametrize("name", JAX_RAISING)
def test_a_jax_error_raised_through_a_probe_shows_no_frame_of_graphlints(batch_runs, name):
    pytest.importorskip("jax")
    result = batch_runs("jax", "tracebacks")[name]
    err = result["stderr"]
    assert "Traceback (most recent call last):" in err, err
    assert f'File "{result["path"]}", line ' in err, err
    assert not any(mark in err for mark in OWN_FRAMES), err


@pytest.mark.sample_batch("torch")
@pytest.mark.parametrize("name", TORCH_RAISING)
def test_a_torch_error_raised_through_a_probe_shows_no_frame_of_graphlints(batch_runs, name):
    pytest.importorskip("torch")
    result = batch_runs("torch", "tracebacks")[name]
    err = result["stderr"]
    assert "Traceback (most recent call last):" in err, err
    assert f'File "{result["path"]}", line ' in err, err
    assert not any(mark in err for mark in OWN_FRAMES), err


@pytest.mark.parametrize("call", ["os._exit('0')", "os._exit(status=2.5)"])
def test_os_exit_given_no_int_raises_pythons_error_from_the_programs_line(tmp_path, call):
    """graphlint's ``os._exit`` (it reports first) raises what the builtin does, from the
    program's own line: no frame of the start-up hook's. (Called with too few or too many
    arguments, its message is a Python function's, not the builtin's: its signature is the
    builtin's, ``(status)``.)"""
    py, ours = run_both(tmp_path, {"prog.py": f"import os\nprint('before')\n{call}\n"}, ["prog.py"])
    assert py.returncode == 1 and b'File "<embedded' not in py.stderr, py.stderr
    assert_same(py, ours)


def test_a_framework_whose_import_fails_shows_pythons_traceback(tmp_path):
    """A framework's import (graphlint's engine starts and watches it) that raises: a
    ``jax.py`` of the program's own, beside the script."""
    files = {"prog.py": "import jax\n", "jax.py": "def load():\n    raise ValueError('no jax here')\n\nload()\n"}
    py, ours = run_both(tmp_path, files, ["prog.py"])
    assert py.stderr.endswith(b"ValueError: no jax here\n"), py.stderr
    assert_same(py, ours)


def test_an_error_of_a_finder_of_the_programs_shows_pythons_traceback(tmp_path):
    """graphlint's finders are consulted before sys.meta_path's, by importlib's own
    ``_find_spec`` as graphlint replaces it: no frame of it in the program's traceback."""
    finder = """\
        import sys

        class Refusing:
            def find_spec(self, name, path, target=None):
                if name == "refused":
                    raise ValueError("not this one")

        sys.meta_path.insert(0, Refusing())
        import refused
        """
    py, ours = run_both(tmp_path, {"prog.py": finder}, ["prog.py"])
    assert py.stderr.count(b"in _find_spec\n") == 1 and py.stderr.endswith(b"not this one\n"), py.stderr
    assert_same(py, ours)
