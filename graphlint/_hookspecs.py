"""The runtime events graphlint's probes emit, as pluggy hook specifications.

Probes call these hooks (how: :mod:`graphlint.dispatch`); rules implement the ones they need,
declaring only the arguments they use (they are passed by name). Objects such as ``graph``,
``op`` and ``session`` are *borrowed*: use them during the call, never keep a reference to them
(keep ``graph_id`` / ``session_id`` instead), so that instrumented programs do not leak.

Every id (``graph_id``, ``session_id``, ``function_id``, ``model_id``) and a Keras ``session`` is
an ``int``, never reused while the probes are installed, whichever probe made it (TensorFlow's,
JAX's, tf-keras'); ``layer_id`` is the layer's ``id()``, unique while the layer lives.
``site`` is always a :class:`graphlint.stacks.Frame` in the user's own code (never a
TensorFlow-internal frame), or ``None``; ``stack`` is a :class:`graphlint.stacks.Stack`, the
user's frames outermost first. Event payloads that are not framework objects (argument
summaries, shapes) are defined in :mod:`graphlint.events`. Specs only ever gain optional
arguments.

Hooks marked *plugin-only* have no built-in rule: they are fired for third-party rules
(``tests/runtime/test_faults.py`` registers a plugin on every hook and checks it is called).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from graphlint.events import Argument, Guard
    from graphlint.stacks import Frame, LazyStack, Stack

hookspec = pluggy.HookspecMarker("graphlint")
#: Marks a hook implementation on a plugin that is not a :class:`graphlint.Rule`.
hookimpl = pluggy.HookimplMarker("graphlint")


# -- TensorFlow 1: graphs, ops, variables, sessions ---------------------------------------------
@hookspec
def graphlint_graph_created(graph: Any, graph_id: int, kind: str, site: Frame | None) -> None:
    """A graph was seen for the first time (``kind``: ``"graph"`` or ``"function"``)."""


@hookspec
def graphlint_graph_released(graph_id: int) -> None:
    """A graph was garbage-collected; drop any state kept for ``graph_id``."""


@hookspec
def graphlint_graph_entered(graph: Any, graph_id: int, site: Frame | None) -> None:
    """``with graph:`` was entered directly, without ``.as_default()``."""


# ``index`` is the graph's op count after the op. ``inputs`` are the op's input tensors as
# TensorFlow was given them, or ``None`` when the op came from the C API (then read
# ``op.inputs``, which is slower). ``stack`` is lazy: its ``site`` and ``call`` (the innermost
# frame's invocation id) are free, ``frames`` and ``calls`` walk the outer frames when first read.
@hookspec
def graphlint_op_added(
    graph: Any, graph_id: int, graph_kind: str, op: Any, inputs: Sequence[Any] | None, index: int,
    stack: Stack | LazyStack, site: Frame | None,
) -> None:
    """An operation was added to a graph."""


@hookspec
def graphlint_variable_requested(graph_id: int, name: str | None, reuse: object, site: Frame | None) -> None:
    """``get_variable`` asked the variable store for ``name`` in ``reuse`` mode (plugin-only)."""


# ``name`` is the variable's final name, ``requested_name`` the name asked for; ``via`` is
# ``"get_variable"`` or ``"Variable"``.
@hookspec
def graphlint_variable_created(
    graph: Any, graph_id: int, name: str, requested_name: str | None, via: str, site: Frame | None, stack: Stack
) -> None:
    """A graph variable was created."""


@hookspec
def graphlint_variable_refused(
    graph_id: int, name: str | None, reason: str, error: str, site: Frame | None, stack: Stack
) -> None:
    """``get_variable`` refused ``name``: ``reason`` is ``"exists"`` or ``"missing"``."""


@hookspec
def graphlint_initializer_built(graph_id: int, name: str, variables: list[str], site: Frame | None) -> None:
    """A variables initializer op ``name`` was built covering ``variables`` (their names)."""


@hookspec
def graphlint_initializer_run(graph_id: int, name: str, session_id: int, site: Frame | None) -> None:
    """A session ran the initializer op ``name`` (plugin-only)."""


@hookspec
def graphlint_session_created(session_id: int, graph_id: int, site: Frame | None) -> None:
    """A ``Session`` (or ``InteractiveSession``) was created for the graph ``graph_id``."""


# Fired for a run that differs from all before it: a new fetch/feed/target ``signature``
# (``new_signature``), or the graph grew by ``ops_added`` ops since the session's last run.
# Identical repeated runs are only counted: ``runs`` is the session's run count so far.
@hookspec
def graphlint_session_run(
    session_id: int, graph_id: int, site: Frame | None, signature: tuple[Any, ...], new_signature: bool,
    ops_added: int, runs: int, fetches: Any, feed_dict: Mapping[Any, Any] | None,
) -> None:
    """A session run that differs from every run before it."""


@hookspec
def graphlint_session_closed(session_id: int, graph_id: int, site: Frame | None, runs: int) -> None:
    """``close()`` was called on an open session."""


@hookspec
def graphlint_session_released(
    session_id: int, graph_id: int, closed: bool, created_site: Frame | None, runs: int
) -> None:
    """A session was garbage-collected; ``closed`` tells whether it had been closed, ``runs``
    how many times it ran."""


@hookspec
def graphlint_checkpoint_restore(
    graph: Any, graph_id: int, saver_names: list[str], checkpoint_names: list[str], save_path: str,
    site: Frame | None,
) -> None:
    """``Saver.restore`` is about to run: the saver's variable names and the checkpoint's."""


@hookspec
def graphlint_run_finished(exit_status: int) -> None:
    """The program (or test) finished; rules report what they found over its whole run."""


# -- TensorFlow 2, JAX and PyTorch: tf.function, jax.jit, torch.compile, Keras -----------------
# ``framework`` is ``"tensorflow"`` (a tf.function), ``"jax"`` (a jax.jit function) or ``"torch"``;
# ``definition_site`` is the ``def`` line of the wrapped function, ``None`` when that is not user
# code; ``by_user`` is false when a library (Keras) or TensorFlow's per-instance copy of a
# decorated method made it. For PyTorch, two kinds: what ``api`` (``"torch.compile"``,
# ``"torch.jit.trace"``, ``"torch.jit.script"``, ``"torch.export.export"``) made at ``site``, and
# (``api`` ``None``, ``by_user`` false) each frame dynamo compiles, whose compiles are its traces.
# ``target`` is a plain key of what ``api`` was applied to, equal for the same function code or
# the same ``nn.Module`` object (``None`` when unknown, and for the other frameworks).
@hookspec
def graphlint_function_created(
    function_id: int, name: str, definition_site: Frame | None, site: Frame | None, by_user: bool, framework: str,
    api: str | None, target: object,
) -> None:
    """A ``tf.function``, ``jax.jit`` or torch compiled function around ``name`` was made at ``site``."""


# ``arguments`` is a tuple of :class:`graphlint.events.Argument` (plain data: kind, type, shape,
# dtype, truncated value, identity); ``trace_count`` counts the function's traces so far;
# ``input_signature`` and ``reduce_retracing`` tell how it was declared; ``ahead_of_time`` is
# true for a trace asked for by ``get_concrete_function`` (for its graph or output signature),
# not by a call. For a frame torch.compile compiled: ``trace_count`` is dynamo's count of its
# compiles, ``reduce_retracing`` whether automatic dynamic shapes were on, ``guard`` the
# :class:`graphlint.events.Guard` whose failure made dynamo compile again (``None`` for a first
# compile, and for the other frameworks); ``arguments`` also summarise the guarded value.
@hookspec
def graphlint_function_traced(
    function_id: int, name: str, definition_site: Frame | None, site: Frame | None, arguments: tuple[Argument, ...],
    trace_count: int, input_signature: bool, reduce_retracing: bool, ahead_of_time: bool, guard: Guard | None,
) -> None:
    """Function ``function_id`` traced a new graph for the call at ``site``."""


@hookspec
def graphlint_function_released(function_id: int) -> None:
    """A watched function was garbage-collected; drop any state kept for ``function_id``."""


# ``session`` numbers Keras' global state: ``clear_session()`` starts a new one.
@hookspec
def graphlint_keras_model_built(model_id: int, class_name: str, site: Frame | None, session: int) -> None:
    """A Keras model was constructed at ``site``."""


# ``rows`` is ``None`` when unknown (a dataset), ``batch_size`` ``None`` for Keras' default of 32.
@hookspec
def graphlint_predict_called(model_class: str, rows: int | None, batch_size: int | None, site: Frame | None) -> None:
    """``Model.predict`` was called at ``site`` on ``rows`` samples with ``batch_size``."""


# ``rejected``: Keras refuses the model (Functional, Sequential); else (a subclassed model) it
# keeps both layers, their weights under one path.
@hookspec
def graphlint_keras_layer_name_reused(name: str, first_site: Frame | None, site: Frame | None, rejected: bool) -> None:
    """Two layers of one Keras model were given the same ``name=`` at ``first_site`` and ``site``."""


# ``part`` is ``"layer"`` or ``"variable"``; ``layer_id`` (class ``layer_class``) is the innermost
# layer call running, its call number ``call_count``; ``call_site`` is the user's line that called it;
# ``state`` what the part holds: ``"weights"``, ``"seed generator"`` or ``"variable"`` (a layer that
# holds none is not reported).
@hookspec
def graphlint_layer_part_created(
    layer_class: str, layer_id: int, call_count: int, part: str, part_class: str, site: Frame | None,
    call_site: Frame | None, state: str,
) -> None:
    """A layer or variable that holds state was created while a Keras layer's ``call()`` ran."""


# -- PyTorch 2: torch.compile ----------------------------------------------------------------------
# ``compiles`` is how many times dynamo compiled the frame when it reached
# ``torch._dynamo.config.<limit_type>`` (``limit``): from then on the frame runs eagerly.
# ``arguments`` and ``guard`` as in ``graphlint_function_traced``.
@hookspec
def graphlint_recompile_limit_reached(
    function_id: int, name: str, definition_site: Frame | None, site: Frame | None, arguments: tuple[Argument, ...],
    guard: Guard | None, compiles: int, limit: int | None, limit_type: str,
) -> None:
    """dynamo refused to compile the frame ``function_id`` once more for the call at ``site``."""


# ``reason`` is dynamo's one-line cause (``"Failed to trace builtin operator"``), ``explanation``
# and ``hints`` (a tuple of strings) what it says about it; ``skipped``: the whole frame runs
# eagerly instead (a graph break in a loop); ``call_site`` is the user's line that called the
# compiled code. Fired once per compile of the frame that breaks there.
@hookspec
def graphlint_graph_break(
    function_id: int, name: str, site: Frame | None, call_site: Frame | None, reason: str, explanation: str,
    hints: tuple[str, ...], skipped: bool,
) -> None:
    """dynamo split the frame ``function_id`` (named ``name``) at the user's line ``site``."""
