"""Probe for tf-keras (Keras 2, ``import tf_keras``): model construction and ``predict``.

The same events as the Keras 3 part of :mod:`graphlint.probes.tf_function`
(``graphlint_keras_model_built``, ``graphlint_predict_called``), so GL503 and GL504 watch
TensorFlow Probability's and other tf-keras users' models too. Installed when the program
imports ``tf_keras`` (graphlint never imports it). tf-keras' ``clear_session()`` replaces its
backend graph (a ``FuncGraph`` in eager mode, the default graph otherwise): that graph's
identity numbers the session.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Callable

from graphlint.probes._base import Probe
from graphlint.probes._models import WatchedModels
from graphlint.stacks import in_init_of, is_user_file, walk_out

if TYPE_CHECKING:
    from types import FrameType

    from graphlint.dispatch import Hooks

__tracebackhide__ = True


class TfKerasModelProbe(WatchedModels, Probe):
    """Fires ``graphlint_keras_model_built`` and ``graphlint_predict_called`` for tf-keras."""

    name = "tf-keras"

    def __init__(self, hook: Hooks, warn: Callable[[str], None] | None = None) -> None:
        super().__init__(hook, warn)
        self._init_models()
        self._session = 0
        self._graph: weakref.ref[Any] | None = None  # tf-keras' backend graph of the current session

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        return [("tf-keras models", self._patch_models), ("tf-keras predict", self._patch_predict)]

    def forget(self) -> None:
        self._models.clear()
        self._graph = None

    def _patch_models(self) -> None:
        from tf_keras.src.engine import training

        self._patch_model_init(training.Model)

    def _session_number(self) -> int:
        from tf_keras.src import backend  # imported by the Model it watches

        graph = getattr(backend._GRAPH, "graph", None)
        if graph is None:
            graph = backend.get_graph()
        if self._graph is None or self._graph() is not graph:
            self._session = self._new_session()  # clear_session() replaced tf-keras' backend graph
            self._graph = weakref.ref(graph)
        return self._session

    def _model_built(self, model: Any, caller: FrameType) -> None:
        self._track_model(model)
        session = self._session_number()
        # The user's line that builds the model: past tf-keras' and TensorFlow's own frames
        # (its __init__ chain runs through tracking decorators) and a subclass's
        # super().__init__().
        frame = walk_out(caller, lambda f: not is_user_file(f.f_code.co_filename) or in_init_of(f, model))
        if frame is None:
            return
        self._fire_model_built(self._new_model_id(), model, frame, session)

    def _patch_predict(self) -> None:
        from tf_keras.src.engine import training

        self._patch_predict_of(training.Model)
