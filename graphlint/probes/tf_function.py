"""Probes for TensorFlow 2: ``tf.function`` creation and tracing, Keras models and ``predict``.

Like the graph probes, each one wraps a TensorFlow (or Keras) entry point, calls the original
unchanged, and fires a ``graphlint_*`` hook with plain data. Tracing is seen where TensorFlow
builds a new concrete function (``tracing_compilation._create_concrete_function``), which runs
only when a call misses the trace cache: calls that reuse a trace cost nothing extra. The
arguments of a trace are summarised (:class:`graphlint.events.Argument`: kind, type, shape, dtype, a truncated
repr, an identity) — no tensor or user object is kept. Functions and models are tracked by
weak reference only.
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import TYPE_CHECKING, Any, Callable

from graphlint.events import Argument, summarize
from graphlint.probes._base import Probe
from graphlint.probes._functions import FunctionInfo, WatchedFunctions, definition, display_name
from graphlint.probes._models import WatchedModels
from graphlint.probes.patching import unwound
from graphlint.stacks import in_init_of, is_user_file, user_site_from, walk_out

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import FrameType

    from graphlint.dispatch import Hooks

# pytest leaves the frames of these wrappers out of a failing test's traceback.
__tracebackhide__ = True


def _arguments(function_type: Any, args: Sequence[Any] | None, kwargs: Mapping[Any, Any] | None) -> tuple[Argument, ...]:
    names = list(getattr(function_type, "parameters", {}) or ())
    out: list[Argument] = []
    for i, value in enumerate(args or ()):
        out.append(summarize(names[i] if i < len(names) else f"args[{i}]", value))
    for key, value in (kwargs or {}).items():
        out.append(summarize(str(key), value))
    return tuple(out)


def _building_tf1_graph() -> bool:
    """Building a graph: TF1 graph mode, tf.Graph().as_default(), or tracing an outer
    tf.function (the new function is part of that trace, made once per outer trace)."""
    from tensorflow.python.eager import context

    return not context.executing_eagerly()


class FunctionProbe(WatchedFunctions, WatchedModels, Probe):
    """Installs the TF2 probes; they fire hooks on ``hook`` until :meth:`uninstall`."""

    name = "tf-function"
    framework = "tensorflow"

    def __init__(self, hook: Hooks, warn: Callable[[str], None] | None = None) -> None:
        super().__init__(hook, warn)
        self._functions: dict[int, FunctionInfo] = {}  # id(function cache) -> info
        self._init_models()
        self._tf_dir = ""
        self._applying_dirs: tuple[str, ...] = ()
        self._session = 0
        self._tracker: weakref.ref[Any] | None = None  # weak reference to Keras' global state of the current session
        self._model_class: type | None = None  # keras.Model, once patched

    # -- install / uninstall ---------------------------------------------------------------
    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        import tensorflow

        self._tf_dir = os.path.dirname(os.path.abspath(tensorflow.__file__)) + os.sep
        # tf.function's own modules, between its caller and Function.__init__
        self._applying_dirs = tuple(
            os.path.join(self._tf_dir, *parts) + os.sep
            for parts in (("python", "eager"), ("python", "util"), ("python", "framework"))
        )
        return [
            ("tf.function creation", self._patch_function_init),
            ("tf.function tracing", self._patch_tracing),
            ("Keras models", self._patch_keras_models),
            ("Keras predict", self._patch_predict),
        ]

    def forget(self) -> None:
        self._functions.clear()
        self._models.clear()
        self._tracker = None

    # -- tf.function -----------------------------------------------------------------------
    def _patch_function_init(self) -> None:
        from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf

        probe = self

        def wrap(original: Callable[..., None]) -> Callable[..., None]:
            def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
                try:
                    original(self, *args, **kwargs)
                    if probe.active:
                        probe.guarded("function created", probe._function_created, self, sys._getframe(1))
                except BaseException as exc:
                    unwound(exc)
                    raise

            return __init__

        self.patcher.patch(pf.Function, "__init__", wrap)

    def _function_created(self, function: Any, caller: FrameType) -> None:
        cache = function._function_cache
        python_function = function._python_function
        info = FunctionInfo(
            self._new_id(),
            display_name(python_function, function._name),
            definition(python_function),
            weakref.ref(function),
            function.input_signature is not None,
            bool(getattr(function, "_reduce_retracing", False)),
        )
        # Made by the user's own tf.function(...) call, or by a library (Keras), by TensorFlow
        # itself (tf.data's map/filter functions, SavedModel loading) or by the per-instance
        # copy TensorFlow makes for a decorated method (Function._clone)? The frame that
        # applied tf.function is the first one outside tf.function's own code.
        frame = walk_out(caller, lambda f: f.f_code.co_filename.startswith(self._applying_dirs) and not self._clone(f))
        by_user = frame is not None and not self._clone(frame) and is_user_file(frame.f_code.co_filename)
        if by_user and _building_tf1_graph():
            by_user = False  # made while building a TF1 graph: part of that graph's build (GL101/GL102)
        self._watch(id(cache), function, info, user_site_from(caller), by_user)

    def _clone(self, frame: FrameType) -> bool:
        """TensorFlow's per-instance copy of a decorated method (``Function._clone``)."""
        return frame.f_code.co_name == "_clone" and frame.f_code.co_filename.startswith(self._tf_dir)

    def _patch_tracing(self) -> None:
        from tensorflow.python.eager.polymorphic_function import tracing_compilation as tc

        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def _create_concrete_function(function_type: Any, type_context: Any, func_graph: Any, tracing_options: Any) -> Any:
                try:
                    if probe.active:
                        probe.guarded("traced", probe._traced, function_type, tracing_options, sys._getframe(1))
                    return original(function_type, type_context, func_graph, tracing_options)
                except BaseException as exc:
                    unwound(exc)
                    raise

            return _create_concrete_function

        self.patcher.patch(tc, "_create_concrete_function", wrap)

    def _traced(self, function_type: Any, tracing_options: Any, caller: FrameType) -> None:
        cache = tracing_options.function_cache
        info = self._functions.get(id(cache)) if cache is not None else None
        if info is None:
            return  # tf.data's and TensorFlow's own helper functions: not a tf.function
        function = info.handle()
        if function is None or function._function_cache is not cache:
            return
        # The arguments as the call gave them (canonicalised to the parameters) are the
        # caller's locals; if TensorFlow ever renames them, the traced types stand in.
        local_vars = caller.f_locals if caller.f_code.co_name == "_maybe_define_function" else {}
        if "args" in local_vars:
            arguments = _arguments(tracing_options.polymorphic_type, local_vars["args"], local_vars.get("kwargs"))
        else:
            arguments = tuple(
                summarize(name, getattr(p, "type_constraint", None))
                for name, p in getattr(function_type, "parameters", {}).items()
            )
        self._fire_traced(info, arguments, user_site_from(caller), self._ahead_of_time(caller))

    def _ahead_of_time(self, frame: FrameType) -> bool:
        """Was this trace asked for by ``get_concrete_function`` (for the function's graph or
        output signature: an export, shape inference), not by a call?"""
        tf_dir = self._tf_dir
        found = walk_out(
            frame, lambda f: f.f_code.co_filename.startswith(tf_dir) and f.f_code.co_name != "get_concrete_function"
        )
        return found is not None and found.f_code.co_filename.startswith(tf_dir)

    # -- Keras -----------------------------------------------------------------------------
    def _patch_keras_models(self) -> None:
        from keras.src.backend.common import global_state
        from keras.src.models import functional, model

        self._global_state = global_state
        self._model_class = model.Model
        self._patch_model_init(model.Model)
        if "__init__" in vars(functional.Functional):
            self._patch_model_init(functional.Functional)

    def _model_built(self, model: Any, caller: FrameType) -> None:
        if not self.active:
            return
        self._track_model(model)
        tracker = self._global_state.GLOBAL_STATE_TRACKER
        if self._tracker is None or self._tracker() is not tracker:
            self._session = self._new_session()  # clear_session() replaced Keras' global state
            self._tracker = weakref.ref(tracker)
        # The line that builds the model, not the super().__init__() of a model subclass; a
        # model Keras builds for itself (Sequential's inner Functional, made in a model's own
        # method) is not the user's; one a loader makes (`load_model`, `model_from_json`,
        # `Model.from_config`) is, at the user's line that called the loader.
        frame = walk_out(caller, lambda f: in_init_of(f, model))
        if frame is not None and not is_user_file(frame.f_code.co_filename):
            frame = walk_out(frame, lambda f: not is_user_file(f.f_code.co_filename) and not self._in_model(f))
        if frame is None or not is_user_file(frame.f_code.co_filename):
            return
        self._fire_model_built(self._new_model_id(), model, frame, self._session)

    def _in_model(self, frame: FrameType) -> bool:
        """Whether ``frame`` runs a method of a Keras model (Keras building a model's parts)."""
        cls = self._model_class
        return cls is not None and isinstance(frame.f_locals.get("self"), cls)

    def _patch_predict(self) -> None:
        from keras.src.backend.tensorflow.trainer import TensorFlowTrainer

        self._patch_predict_of(TensorFlowTrainer)
