"""Probe for tf-keras (Keras 2, ``import tf_keras``): model construction and ``predict``.

The same events as the Keras 3 part of :mod:`graphlint.probes.tf_function`
(``graphlint_keras_model_built``, ``graphlint_predict_called``), so GL503 and GL504 watch
TensorFlow Probability's and other tf-keras users' models too. Installed when the program
imports ``tf_keras`` (graphlint never imports it). tf-keras' ``clear_session()`` replaces its
backend graph (a ``FuncGraph`` in eager mode, the default graph otherwise): that graph's
identity numbers the session.
"""

from __future__ import annotations

import itertools
import sys
import weakref

from graphlint.probes._base import Probe
from graphlint.probes.tf_function import FunctionProbe
from graphlint.stacks import Frame, is_user_file

__tracebackhide__ = True


class TfKerasModelProbe(Probe):
    """Fires ``graphlint_keras_model_built`` and ``graphlint_predict_called`` for tf-keras."""

    name = "tf-keras"

    def __init__(self, hook, warn=None):
        super().__init__(hook, warn)
        self._models: dict[int, weakref.ref] = {}
        self._mids = itertools.count(1)
        self._session = 0
        self._graph = None  # weak reference to tf-keras' backend graph of the current session
        self._backend = None

    def steps(self):
        return [("tf-keras models", self._patch_models), ("tf-keras predict", self._patch_predict)]

    def forget(self) -> None:
        self._models.clear()
        self._graph = None

    def _patch_models(self):
        from tf_keras.src import backend
        from tf_keras.src.engine import training

        self._backend = backend
        probe = self

        def wrap(original):
            def __init__(self, *args, **kwargs):
                original(self, *args, **kwargs)
                seen = probe._models.get(id(self))
                if probe.active and (seen is None or seen() is not self):
                    try:
                        probe._model_built(self)
                    except Exception:  # pragma: no cover - never break the program
                        pass

            return __init__

        self.patcher.patch(training.Model, "__init__", wrap)

    def _session_number(self) -> tuple:
        graph = getattr(self._backend._GRAPH, "graph", None)
        if graph is None:
            graph = self._backend.get_graph()
        if self._graph is None or self._graph() is not graph:
            self._session += 1  # clear_session() replaced tf-keras' backend graph
            self._graph = weakref.ref(graph)
        return ("tf_keras", self._session)

    def _model_built(self, model) -> None:
        key = id(model)
        self._models[key] = weakref.ref(model)
        fin = weakref.finalize(model, self._models.pop, key, None)
        fin.atexit = False
        session = self._session_number()
        # The user's line that builds the model: past tf-keras' and TensorFlow's own frames
        # (its __init__ chain runs through tracking decorators) and a subclass's
        # super().__init__().
        frame = sys._getframe(2)
        while frame is not None:
            code = frame.f_code
            if is_user_file(code.co_filename) and not (
                code.co_name == "__init__" and frame.f_locals.get("self") is model
            ):
                break
            frame = frame.f_back
        if frame is None:
            return
        self._fire(
            self.hook.graphlint_keras_model_built,
            model_id=("tf_keras", next(self._mids)),
            class_name=type(model).__name__,
            site=Frame(frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name),
            session=session,
        )

    def _patch_predict(self):
        from tf_keras.src.engine import training

        probe = self

        def wrap(original):
            def predict(self, x, batch_size=None, *args, **kwargs):
                if probe.active:
                    try:
                        probe._predict(self, x, batch_size)
                    except Exception:  # pragma: no cover - never break the program
                        pass
                return original(self, x, batch_size, *args, **kwargs)

            return predict

        self.patcher.patch(training.Model, "predict", wrap)

    _predict = FunctionProbe._predict  # the same reading of the batch as for Keras 3
