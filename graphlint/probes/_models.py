"""What the Keras 3 and tf-keras probes share: a model class's ``__init__`` and ``predict``
wrapped, each model built counted once (tracked by weak reference), and the batch ``predict``
was given read — so both fire ``graphlint_keras_model_built`` and
``graphlint_predict_called`` the same way."""

from __future__ import annotations

import itertools
import sys
import weakref
from types import FrameType
from typing import Any, Callable

from graphlint.dispatch import Hooks
from graphlint.probes.patching import Patcher, unwound
from graphlint.stacks import frame_of, user_site_from


#: One number space for every probe's models and Keras sessions: a ``model_id`` or ``session`` is an
#: int that no model or session of another probe (Keras 3, tf-keras) has.
_model_ids = itertools.count(1)
_session_ids = itertools.count(1)


class WatchedModels:
    """Mixin for a :class:`~graphlint.probes._base.Probe`; the probe implements
    ``_model_built(model, caller)`` (where the model was built, from the frame that called its
    ``__init__``, in which Keras session)."""

    # What the Probe it is mixed into provides (graphlint.probes._base.Probe)
    hook: Hooks
    patcher: Patcher
    active: bool
    _fire: Callable[..., None]
    guarded: Callable[..., Any]
    # What the probe itself implements
    _model_built: Callable[[Any, FrameType], None]

    def _init_models(self) -> None:
        self._models: dict[int, weakref.ref[Any]] = {}

    @staticmethod
    def _new_model_id() -> int:
        return next(_model_ids)

    @staticmethod
    def _new_session() -> int:
        """The number of a Keras session just seen for the first time (``clear_session()``)."""
        return next(_session_ids)

    def _patch_model_init(self, cls: type) -> None:
        probe = self

        def wrap(original: Callable[..., None]) -> Callable[..., None]:
            def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
                try:
                    original(self, *args, **kwargs)
                    seen = probe._models.get(id(self))
                    if probe.active and (seen is None or seen() is not self):
                        probe.guarded("model built", probe._model_built, self, sys._getframe(1))
                except BaseException as exc:
                    unwound(exc)
                    raise

            return __init__

        self.patcher.patch(cls, "__init__", wrap)

    def _patch_predict_of(self, cls: type) -> None:
        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def predict(self: Any, x: Any, batch_size: Any = None, *args: Any, **kwargs: Any) -> Any:
                try:
                    if probe.active:
                        probe.guarded("predict", probe._predict, self, x, batch_size, sys._getframe(1))
                    return original(self, x, batch_size, *args, **kwargs)
                except BaseException as exc:
                    unwound(exc)
                    raise

            return predict

        self.patcher.patch(cls, "predict", wrap)

    def _track_model(self, model: object) -> None:
        """Remember ``model`` (weakly) so that a subclass's chain of ``__init__`` counts once."""
        key = id(model)
        self._models[key] = weakref.ref(model)
        fin = weakref.finalize(model, self._models.pop, key, None)
        fin.atexit = False

    def _fire_model_built(self, model_id: int, model: object, frame: FrameType, session: int) -> None:
        """Fire ``graphlint_keras_model_built`` for ``model``, built at ``frame`` (the user's)."""
        self._fire(
            self.hook.graphlint_keras_model_built,
            model_id=model_id,
            class_name=type(model).__name__,
            site=frame_of(frame),
            session=session,
        )

    def _predict(self, model: object, x: object, batch_size: int | None, caller: FrameType) -> None:
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
            site=user_site_from(caller),
        )
