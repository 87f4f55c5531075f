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

import itertools
import os
import sys
import weakref
from typing import Callable

from graphlint.events import Argument, summarize
from graphlint.probes._base import Probe
from graphlint.stacks import Frame, is_user_file, user_site

# pytest leaves the frames of these wrappers out of a failing test's traceback.
__tracebackhide__ = True

def _arguments(function_type, args, kwargs) -> tuple[Argument, ...]:
    names = list(getattr(function_type, "parameters", {}) or ())
    out = []
    for i, value in enumerate(args or ()):
        out.append(summarize(names[i] if i < len(names) else f"args[{i}]", value))
    for key, value in (kwargs or {}).items():
        out.append(summarize(str(key), value))
    return tuple(out)


def _definition(python_function) -> Frame | None:
    """The user's ``def`` line of the function a tf.function wraps, if it is user code."""
    fn = python_function
    for _ in range(8):
        wrapped = getattr(fn, "__wrapped__", None)  # functools.wraps: the decorated function
        if callable(wrapped):
            fn = wrapped
            continue
        code = getattr(fn, "__code__", None)
        if code is not None:
            if is_user_file(code.co_filename):
                return Frame(code.co_filename, code.co_firstlineno, code.co_name)
            return None
        nxt = getattr(fn, "__func__", None) or getattr(fn, "func", None) or getattr(fn, "__wrapped__", None)
        if nxt is None:
            nxt = getattr(type(fn), "__call__", None)
            if nxt is None or nxt is fn:
                return None
        fn = nxt
    return None


def _display_name(python_function, fallback: str) -> str:
    fn = python_function
    for _ in range(4):
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None)
        if isinstance(name, str):
            return name
        fn = getattr(fn, "__func__", None) or getattr(fn, "func", None)
        if fn is None:
            break
    return type(python_function).__name__ if fallback == "function" else fallback


class _FunctionInfo:
    __slots__ = ("fid", "name", "definition", "ref", "traces", "input_signature", "reduce_retracing")

    def __init__(self, fid, name, definition, ref, input_signature, reduce_retracing):
        self.fid = fid
        self.name = name
        self.definition = definition
        self.ref = ref
        self.traces = 0
        self.input_signature = input_signature
        self.reduce_retracing = reduce_retracing


def _building_tf1_graph() -> bool:
    """Building a graph: TF1 graph mode, tf.Graph().as_default(), or tracing an outer
    tf.function (the new function is part of that trace, made once per outer trace)."""
    from tensorflow.python.eager import context

    return not context.executing_eagerly()


class FunctionProbe(Probe):
    """Installs the TF2 probes; they fire hooks on ``hook`` until :meth:`uninstall`."""

    name = "tf-function"

    def __init__(self, hook, warn: Callable[[str], None] | None = None):
        super().__init__(hook, warn)
        self._functions: dict[int, _FunctionInfo] = {}  # id(function cache) -> info
        self._models: dict[int, weakref.ref] = {}
        self._fids = itertools.count(1)
        self._mids = itertools.count(1)
        self._tf_dir = ""
        self._applying_dirs: tuple[str, ...] = ()
        self._session = 0
        self._tracker = None  # weak reference to Keras' global state of the current session

    # -- install / uninstall ---------------------------------------------------------------
    def steps(self):
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
    def _patch_function_init(self):
        from tensorflow.python.eager.polymorphic_function import polymorphic_function as pf

        probe = self

        def wrap(original):
            def __init__(self, *args, **kwargs):
                original(self, *args, **kwargs)
                if probe.active:
                    try:
                        probe._function_created(self, sys._getframe(1))
                    except Exception as exc:  # never break the program; said once
                        probe.internal(exc, "function created")

            return __init__

        self.patcher.patch(pf.Function, "__init__", wrap)

    def _function_created(self, function, caller) -> None:
        cache = function._function_cache
        python_function = function._python_function
        info = _FunctionInfo(
            next(self._fids),
            _display_name(python_function, function._name),
            _definition(python_function),
            weakref.ref(function),
            function.input_signature is not None,
            bool(getattr(function, "_reduce_retracing", False)),
        )
        self._functions[id(cache)] = info
        fin = weakref.finalize(function, self._function_released, id(cache), info.fid)
        fin.atexit = False
        # Made by the user's own tf.function(...) call, or by a library (Keras), by TensorFlow
        # itself (tf.data's map/filter functions, SavedModel loading) or by the per-instance
        # copy TensorFlow makes for a decorated method (Function._clone)? The frame that
        # applied tf.function is the first one outside tf.function's own code.
        by_user = False
        frame = caller
        while frame is not None:
            code = frame.f_code
            filename = code.co_filename
            if code.co_name == "_clone" and filename.startswith(self._tf_dir):
                break
            if not filename.startswith(self._applying_dirs):
                by_user = is_user_file(filename)
                break
            frame = frame.f_back
        if by_user and _building_tf1_graph():
            by_user = False  # made while building a TF1 graph: part of that graph's build (GL101/GL102)
        self._fire(
            self.hook.graphlint_function_created,
            function_id=info.fid,
            name=info.name,
            definition_site=info.definition,
            site=user_site(2),
            by_user=by_user,
            framework="tensorflow",
        )

    def _function_released(self, key, fid):
        info = self._functions.get(key)
        if info is not None and info.fid == fid:
            del self._functions[key]
        self._fire_release(self.hook.graphlint_function_released, function_id=fid)

    def _patch_tracing(self):
        from tensorflow.python.eager.polymorphic_function import tracing_compilation as tc

        probe = self

        def wrap(original):
            def _create_concrete_function(function_type, type_context, func_graph, tracing_options):
                if probe.active:
                    try:
                        probe._traced(function_type, tracing_options, sys._getframe(1))
                    except Exception as exc:  # never break the program; said once
                        probe.internal(exc, "traced")
                return original(function_type, type_context, func_graph, tracing_options)

            return _create_concrete_function

        self.patcher.patch(tc, "_create_concrete_function", wrap)

    def _traced(self, function_type, tracing_options, caller) -> None:
        cache = tracing_options.function_cache
        info = self._functions.get(id(cache)) if cache is not None else None
        if info is None:
            return  # tf.data's and TensorFlow's own helper functions: not a tf.function
        function = info.ref()
        if function is None or function._function_cache is not cache:
            return
        info.traces += 1
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
        self._fire(
            self.hook.graphlint_function_traced,
            function_id=info.fid,
            name=info.name,
            definition_site=info.definition,
            site=user_site(3),
            arguments=arguments,
            trace_count=info.traces,
            input_signature=info.input_signature,
            reduce_retracing=info.reduce_retracing,
        )

    # -- Keras -----------------------------------------------------------------------------
    def _patch_keras_models(self):
        from keras.src.backend.common import global_state
        from keras.src.models import functional, model

        self._global_state = global_state
        probe = self

        def wrap(original):
            def __init__(self, *args, **kwargs):
                original(self, *args, **kwargs)
                seen = probe._models.get(id(self))
                if probe.active and (seen is None or seen() is not self):
                    try:
                        probe._model_built(self)
                    except Exception as exc:  # never break the program; said once
                        probe.internal(exc, "model built")

            return __init__

        self.patcher.patch(model.Model, "__init__", wrap)
        if "__init__" in vars(functional.Functional):
            self.patcher.patch(functional.Functional, "__init__", wrap)

    def _model_built(self, model) -> None:
        if not self.active:
            return
        key = id(model)
        self._models[key] = weakref.ref(model)
        fin = weakref.finalize(model, self._models.pop, key, None)
        fin.atexit = False
        tracker = self._global_state.GLOBAL_STATE_TRACKER
        if self._tracker is None or self._tracker() is not tracker:
            self._session += 1  # clear_session() replaced Keras' global state
            self._tracker = weakref.ref(tracker)
        # The line that builds the model, not the super().__init__() of a model subclass; a
        # model Keras builds for itself (Sequential's inner Functional) is not the user's.
        frame = sys._getframe(2)
        while frame is not None:
            code = frame.f_code
            if not (code.co_name == "__init__" and frame.f_locals.get("self") is model):
                break
            frame = frame.f_back
        if frame is None or not is_user_file(frame.f_code.co_filename):
            return
        site = Frame(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        self._fire(
            self.hook.graphlint_keras_model_built,
            model_id=next(self._mids),
            class_name=type(model).__name__,
            site=site,
            session=self._session,
        )

    def _patch_predict(self):
        from keras.src.backend.tensorflow.trainer import TensorFlowTrainer

        probe = self

        def wrap(original):
            def predict(self, x, batch_size=None, *args, **kwargs):
                if probe.active:
                    try:
                        probe._predict(self, x, batch_size)
                    except Exception as exc:  # never break the program; said once
                        probe.internal(exc, "predict")
                return original(self, x, batch_size, *args, **kwargs)

            return predict

        self.patcher.patch(TensorFlowTrainer, "predict", wrap)

    def _predict(self, model, x, batch_size) -> None:
        leaf = x
        for _ in range(4):
            if isinstance(leaf, dict) and leaf:
                leaf = next(iter(leaf.values()))
            elif isinstance(leaf, (list, tuple)) and leaf:
                leaf = leaf[0]
            else:
                break
        rows = None
        shape = getattr(leaf, "shape", None)
        if shape is not None and len(shape) > 0:
            try:
                rows = int(shape[0])
            except (TypeError, ValueError):
                rows = None
        self._fire(
            self.hook.graphlint_predict_called,
            model_class=type(model).__name__,
            rows=rows,
            batch_size=batch_size,
            site=user_site(2),
        )
