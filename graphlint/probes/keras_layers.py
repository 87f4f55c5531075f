"""Probes for Keras layers: what a layer creates while its ``call()`` runs.

:class:`KerasLayerProbe` wraps ``Layer.__call__`` of Keras 3 (``flavor="keras"``) or of tf-keras
(``flavor="tf_keras"``) to keep, per thread, the stack of layer calls running and, per layer
object, how many times it was called; it wraps ``Layer.__init__`` and (Keras 3) the Keras
``Variable`` constructor to fire ``graphlint_layer_part_created`` when a layer or variable is
created while a layer call runs and holds state: a variable, a layer with weights (known when
its first call has built it) or a Keras 3 seed generator; a layer that never makes a variable
(``Flatten``, pooling) fires nothing. :class:`TFVariableProbe` does the same for ``tf.Variable``
(tf-keras' ``add_weight``, or a ``tf.Variable`` made in ``call()``). Only the outermost creation
is reported (a layer's own sublayers and a Keras variable's inner ``tf.Variable`` are part of
it). Whether it is a mistake is the rules' business: the first call of a layer builds it.
Layers are tracked by weak reference only.
"""

from __future__ import annotations

import itertools
import sys
import threading
import weakref
from types import FrameType
from typing import TYPE_CHECKING, Any, Callable

from graphlint.probes._base import Probe
from graphlint.probes.patching import unwound
from graphlint.stacks import user_site_from, walk_out

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TypedDict

    from graphlint.dispatch import Hooks
    from graphlint.stacks import Frame

    #: a layer call running: (id of the layer, its class name, its call count, the frame that called it)
    _Call = tuple[int, str, int, FrameType]

    class _Event(TypedDict):
        """The arguments of ``graphlint_layer_part_created`` but ``state``."""

        layer_class: str
        layer_id: int
        call_count: int
        part: str
        part_class: str
        site: Frame | None
        call_site: Frame | None

    #: a patch's ``make``: the original in, its wrapper out
    _Wrap = Callable[[Callable[..., Any]], Callable[..., Any]]

__tracebackhide__ = True

_order = itertools.count()  # creation order of layers given a name=
_local = threading.local()  # .calls: [(layer id, class name, call count, caller frame)], .creating


def _drop_with(obj: object, table: dict[int, Any], key: int) -> None:
    """Drop ``table[key]`` when ``obj`` is collected (not at exit)."""
    try:
        fin = weakref.finalize(obj, table.pop, key, None)
        fin.atexit = False
    except TypeError:  # pragma: no cover
        pass


def _running() -> _Call | None:
    calls = getattr(_local, "calls", None)
    if not calls or getattr(_local, "creating", False):
        return None
    return calls[-1]


class _Creation(Probe):
    """Fires the event for a part created while a layer call runs (shared by both probes)."""

    def _wrap_init(self, part: str, *, skip_self: bool, names: bool = False) -> _Wrap:
        probe = self

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def __init__(self: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    if names and probe.active and isinstance(kwargs.get("name"), str):
                        probe.guarded("layer names", probe._named, self, kwargs["name"], sys._getframe(1))
                    running = _running() if probe.active else None
                    if running is None:
                        return original(self, *args, **kwargs)
                    _local.creating = True
                    try:
                        result = original(self, *args, **kwargs)
                    finally:
                        _local.creating = False
                    probe.guarded("layer parts", probe._created, running, part, self, sys._getframe(1), skip_self)
                    return result
                except BaseException as exc:
                    unwound(exc)
                    raise

            return __init__

        return wrap

    def _created(self, running: _Call, part: str, obj: object, caller: FrameType, skip_self: bool) -> None:
        layer_id, layer_class, count, call_frame = running
        site = user_site_from(caller, obj if skip_self else None)
        if site is None:
            return
        event: _Event = dict(
            layer_class=layer_class,
            layer_id=layer_id,
            call_count=count,
            part=part,
            part_class=type(obj).__name__,
            site=site,
            call_site=user_site_from(call_frame),
        )
        if part == "variable" and _in_layer_init(caller, call_frame):
            return  # a part of a layer under construction (a Keras 3 seed generator): the layer's
        state = "variable" if part == "variable" else _layer_state(obj)
        if state is None:
            self._await_build(obj, event)  # a layer makes its weights when first called
        else:
            self._fire(self.hook.graphlint_layer_part_created, state=state, **event)

    def _named(self, layer: object, name: str, caller: FrameType) -> None:
        """A layer created with ``name=`` (see :class:`KerasLayerProbe`); by default ignored."""

    def _await_build(self, obj: object, event: _Event) -> None:
        """A layer holding no variable yet: the event waits for its first call (see
        :class:`KerasLayerProbe`); by default it is dropped."""

    def _built(self, obj: object, event: _Event) -> None:
        """A layer that was made in a call has run its first call: the event, if it made state."""
        state = _layer_state(obj)
        if state is not None:
            self._fire(self.hook.graphlint_layer_part_created, state=state, **event)


def _is_layer(obj: object) -> bool:
    return any(
        c.__name__ == "Layer" and c.__module__.split(".", 1)[0] in ("keras", "tf_keras") for c in type(obj).__mro__
    )


def _in_layer_init(frame: FrameType, stop: FrameType) -> bool:
    """Whether a frame from ``frame`` out to ``stop`` is the ``__init__`` of a Keras layer."""
    found = walk_out(frame, lambda f: f is not stop and not (f.f_code.co_name == "__init__" and _is_layer(f.f_locals.get("self"))))
    return found is not None and found is not stop


def _layer_state(layer: object) -> str | None:
    """What a Keras layer holds: ``"weights"``, ``"seed generator"`` (Keras 3 seed variables,
    which ``layer.weights`` leaves out) or None."""
    try:
        if list(getattr(layer, "weights", ()) or ()):
            return "weights"
        if list(getattr(layer, "variables", ()) or ()):
            return "seed generator"
    except Exception:  # pragma: no cover - a layer whose properties fail
        pass
    return None


class KerasLayerProbe(_Creation):
    """Layer calls and the layers and Keras variables created inside them."""

    name = "keras-layers"

    def __init__(self, hook: Hooks, flavor: str = "keras", warn: Callable[[str], None] | None = None) -> None:
        super().__init__(hook, warn)
        self.flavor = flavor
        self._counts: dict[int, list[Any]] = {}  # id(layer) -> [weak reference, calls]
        # id(layer) -> (weak reference, event): made in a call, no state yet
        self._unbuilt: dict[int, tuple[weakref.ref[Any], _Event]] = {}
        # id(layer) -> (weak reference, name, site, order): name= given
        self._names: dict[int, tuple[weakref.ref[Any], str, Frame, int]] = {}
        self._model: type | None = None  # Keras' Model, once the names step is installed
        self._functional: tuple[type, ...] | None = None  # Functional, Sequential: Keras rejects their reused names

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        steps: list[tuple[str, Callable[[], None]]] = [("Keras layer calls", self._patch_call), ("Keras layer creation", self._patch_layer_init)]
        if self.flavor == "keras":
            steps.append(("Keras variables", self._patch_variable))
        steps.append(("Keras layer names", self._patch_names))
        return steps

    def forget(self) -> None:
        self._counts.clear()
        self._unbuilt.clear()
        self._names.clear()

    def _await_build(self, obj: object, event: _Event) -> None:
        key = id(obj)
        self._unbuilt[key] = (weakref.ref(obj), event)
        _drop_with(obj, self._unbuilt, key)

    def _layer_class(self) -> type:
        if self.flavor == "keras":
            from keras.src.layers.layer import Layer
        else:
            from tf_keras.src.engine.base_layer import Layer
        return Layer

    def _patch_call(self) -> None:
        probe = self
        counts = self._counts

        def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
            def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    if not probe.active:
                        return original(self, *args, **kwargs)
                    key = id(self)
                    entry = counts.get(key)
                    if entry is None or entry[0]() is not self:
                        entry = counts[key] = [weakref.ref(self), 0]
                        _drop_with(self, counts, key)
                    entry[1] += 1
                    calls = getattr(_local, "calls", None)
                    if calls is None:
                        calls = _local.calls = []
                    calls.append((key, type(self).__name__, entry[1], sys._getframe(1)))
                    try:
                        result = original(self, *args, **kwargs)
                    finally:
                        calls.pop()
                    if entry[1] == 1 and key in probe._unbuilt:
                        ref, event = probe._unbuilt.pop(key)
                        if ref() is self:
                            probe.guarded("layer parts", probe._built, self, event)
                    if entry[1] == 1 and probe._model is not None and isinstance(self, probe._model):
                        probe.guarded("layer names", probe._check_subclassed, self)
                    return result
                except BaseException as exc:
                    unwound(exc)
                    raise

            return __call__

        # Not disguised: tf.function(layer) has AutoGraph convert Layer.__call__ from its source.
        self.patcher.patch(self._layer_class(), "__call__", wrap, disguise=False)

    def _patch_layer_init(self) -> None:
        self.patcher.patch(self._layer_class(), "__init__", self._wrap_init("layer", skip_self=True, names=True))

    # -- layer names: two layers of one model given the same name= -------------------------
    def _named(self, layer: object, name: str, caller: FrameType) -> None:
        site = user_site_from(caller, layer)
        if site is None:
            return
        key = id(layer)
        self._names[key] = (weakref.ref(layer), name, site, next(_order))
        _drop_with(layer, self._names, key)

    def _named_entry(self, layer: object) -> tuple[Frame, int] | None:
        """(site, creation order) of a layer created with ``name=`` that still has that name."""
        entry = self._names.get(id(layer))
        if entry is None or entry[0]() is not layer or entry[1] != getattr(layer, "name", None):
            return None
        return entry[2], entry[3]

    def _duplicates(self, layers: Iterable[object], rejected: bool) -> None:
        seen: dict[str, object] = {}
        for layer in layers:
            name = getattr(layer, "name", None)
            if not isinstance(name, str):
                continue
            first = seen.get(name)
            if first is None:
                seen[name] = layer
                continue
            if first is layer:
                continue
            made = sorted(filter(None, (self._named_entry(first), self._named_entry(layer))), key=lambda e: e[1])
            if len(made) == 2:
                (first_site, _), (site, _) = made
                self._fire(
                    self.hook.graphlint_keras_layer_name_reused,
                    name=name,
                    first_site=first_site,
                    site=site,
                    rejected=rejected,
                )

    @staticmethod
    def _sequential_layers(model: object) -> list[Any]:
        """The layers already in a Sequential model (Keras 3: ``_layers``; tf-keras tracks them)."""
        for attr in ("_layers", "_self_tracked_trackables"):
            layers = getattr(model, attr, None)
            if layers:
                return list(layers)
        return []

    def _check_subclassed(self, model: object) -> None:
        if self._functional is not None and isinstance(model, self._functional):
            return  # Keras itself rejects those (see _patch_names)
        self._duplicates(list(getattr(model, "layers", ()) or ()), rejected=False)

    def _patch_names(self) -> None:
        probe = self
        if self.flavor == "keras":
            from keras.src.models.functional import Functional
            from keras.src.models.model import Model
            from keras.src.models.sequential import Sequential
            from keras.src.ops import function as graph_module

            graph_fn = "map_graph"

            def build(inputs: Any, outputs: Any) -> Any:
                return graph_module._build_map(inputs, outputs)[1]
        else:
            from tf_keras.src.engine import functional as graph_module
            from tf_keras.src.engine.sequential import Sequential
            from tf_keras.src.engine.training import Model

            Functional, graph_fn = graph_module.Functional, "_map_graph_network"

            def build(inputs: Any, outputs: Any) -> Any:
                return graph_module._build_map(outputs)[1]

        self._model, self._functional = Model, (Functional, Sequential)

        def wrap_graph(original: Callable[..., Any]) -> Callable[..., Any]:
            def map_graph(inputs: Any, outputs: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    return original(inputs, outputs, *args, **kwargs)
                except BaseException as exc:
                    if probe.active and isinstance(exc, ValueError) and "times in the model" in str(exc):
                        probe.guarded("layer names", lambda: probe._duplicates(list(build(inputs, outputs)), rejected=True))
                    unwound(exc)
                    raise

            return map_graph

        def wrap_add(original: Callable[..., Any]) -> Callable[..., Any]:
            def add(self: Any, layer: Any, *args: Any, **kwargs: Any) -> Any:
                try:
                    if probe.active:
                        probe.guarded("layer names", lambda: probe._duplicates([*probe._sequential_layers(self), layer], rejected=True))
                    return original(self, layer, *args, **kwargs)
                except BaseException as exc:
                    unwound(exc)
                    raise

            return add

        self.patcher.patch(graph_module, graph_fn, wrap_graph)
        self.patcher.patch(Sequential, "add", wrap_add)

    def _patch_variable(self) -> None:
        from keras.src.backend.common.variables import Variable

        self.patcher.patch(Variable, "__init__", self._wrap_init("variable", skip_self=False))


class TFVariableProbe(_Creation):
    """``tf.Variable``s created while a Keras layer call runs (tf-keras weights, raw variables)."""

    name = "tf-variables"

    def steps(self) -> list[tuple[str, Callable[[], None]]]:
        return [("tf.Variable creation", self._patch)]

    def _patch(self) -> None:
        from tensorflow.python.ops.resource_variable_ops import ResourceVariable

        self.patcher.patch(ResourceVariable, "__init__", self._wrap_init("variable", skip_self=False))
