"""``graphlint.instrument()``: run code with the probes installed, collect findings."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator

from graphlint.config import Config, ConfigError

if TYPE_CHECKING:  # the engine (pluggy, entry points) is imported when a block is entered
    from graphlint.linter import Linter
    from graphlint.probes._base import Probe
    from graphlint.probes.lazy import ProbeSet

#: where a probe's warning goes (stderr unless the caller says otherwise)
Warn = Callable[[str], None]

_active = threading.Lock()


class TensorFlowMissing(ConfigError):
    """Neither TensorFlow nor JAX nor PyTorch can be imported, so nothing can be instrumented."""


def _available(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _tf_probes(linter: Linter, warn: Warn) -> list[Probe]:
    from graphlint.probes.keras_layers import TFVariableProbe
    from graphlint.probes.tf_function import FunctionProbe
    from graphlint.probes.tf_graph import GraphProbe

    return [
        GraphProbe(linter.hook, warn=warn),
        FunctionProbe(linter.hook, warn=warn),
        TFVariableProbe(linter.hook, warn=warn),
    ]


def _keras_probes(linter: Linter, warn: Warn, flavor: str) -> list[Probe]:
    from graphlint.probes.keras_layers import KerasLayerProbe

    probes: list[Probe] = [KerasLayerProbe(linter.hook, flavor=flavor, warn=warn)]
    if flavor == "tf_keras":
        from graphlint.probes.tf_keras_models import TfKerasModelProbe

        probes.append(TfKerasModelProbe(linter.hook, warn=warn))
    return probes


def _jax_probes(linter: Linter, warn: Warn) -> list[Probe]:
    from graphlint.probes.jax_jit import JaxProbe

    return [JaxProbe(linter.hook, warn=warn)]


def _torch_probes(linter: Linter, warn: Warn) -> list[Probe]:
    from graphlint.probes.torch_api import TorchApiProbe

    return [TorchApiProbe(linter.hook, warn=warn)]


def _dynamo_probes(linter: Linter, warn: Warn) -> list[Probe]:
    from graphlint.probes.torch_dynamo import DynamoProbe

    return [DynamoProbe(linter.hook, warn=warn)]


def require_framework() -> None:
    """:class:`TensorFlowMissing` unless TensorFlow, JAX or PyTorch can be imported."""
    if not any(_available(name) for name in ("tensorflow", "jax", "torch")):
        raise TensorFlowMissing(
            "TensorFlow is not installed (nor JAX, nor PyTorch); install it: pip install 'graphlint[tensorflow]' "
            "(or 'graphlint[jax]' for JAX programs, 'graphlint[torch]' for PyTorch ones)"
        )


def _probes(linter: Linter, warn: Warn, finders: list[Any] | None = None) -> ProbeSet:
    """The probes of each framework, installed when the program imports it (at once if it has);
    ``finders``: where the import watcher goes (default: ``sys.meta_path``)."""
    from graphlint.probes.lazy import ProbeSet

    return ProbeSet(
        [
            ("tensorflow", lambda: _tf_probes(linter, warn)),
            ("keras", lambda: _keras_probes(linter, warn, "keras")),
            ("tf_keras", lambda: _keras_probes(linter, warn, "tf_keras")),
            ("jax", lambda: _jax_probes(linter, warn)),
            ("torch", lambda: _torch_probes(linter, warn)),
            # dynamo is imported by the program's first torch.compile, not by `import torch`
            ("torch._dynamo", lambda: _dynamo_probes(linter, warn)),
        ],
        watched=("tensorflow", "keras", "tf_keras", "jax", "torch", "torch._dynamo"),
        warn=warn,
        finders=finders,
    )


@contextlib.contextmanager
def instrument(
    linter: Linter | None = None, *, config: Config | None = None, warn: Warn | None = None
) -> Iterator[Linter]:
    """Install the probes for the duration of the ``with`` block.

    The probes of TensorFlow (and Keras), of JAX and of PyTorch are installed when the block
    starts if the framework is imported by then, else as soon as the code in the block imports
    it (torch.compile's, when the program imports ``torch._dynamo``): graphlint itself imports
    none of them.

    Everything patched is restored to the identical object on exit, also when the block
    raises. Findings are in ``linter.finish()`` (or ``linter.sink``) afterwards::

        with graphlint.instrument() as linter:
            forecast(x); forecast(x)
        for finding in linter.finish():
            print(finding.code, finding.message)
    """
    from graphlint.linter import Linter

    warn = warn or (lambda msg: print(msg, file=sys.stderr))
    linter = linter or Linter(config, warn=warn)
    if not _active.acquire(blocking=False):
        outer = _outermost[0] if _outermost else None
        if outer is None:  # pragma: no cover - another thread is installing the probes
            raise RuntimeError("graphlint.instrument() is being set up in another thread")
        with _nested(outer, linter):
            yield linter
        return
    _outermost.append(linter)
    probes = None
    try:
        require_framework()
        probes = _probes(linter, warn)
        probes.start()
        yield linter
    finally:
        if probes is not None:
            probes.stop()
        _outermost.clear()
        _active.release()


def watch_process(linter: Linter, warn: Warn, finders: list[Any] | None = None) -> bool:
    """Install the probes for the rest of this process, on ``linter`` (``graphlint run``'s
    child, graphlint.child): what ``instrument()`` does for a block, never undone. A block the
    program opens itself nests under it. False when the program's own block is already open
    (its probes are installed: graphlint leaves them alone). ``finders``: the start-up hook's
    own finders, consulted before ``sys.meta_path`` (the program's ``sys.meta_path`` is
    python's), where the import watcher goes."""
    if not _active.acquire(blocking=False):
        return False
    _outermost.append(linter)
    _probes(linter, warn, finders).start()
    return True


#: The linter of the active outermost ``instrument()`` block, whose probes are installed.
_outermost: list[Linter] = []


@contextlib.contextmanager
def _nested(outer: Linter, inner: Linter) -> Iterator[None]:
    """An ``instrument()`` inside another (a program using graphlint under ``graphlint run``):
    the probes stay the outer block's; every hook they call on it is also called on ``inner``
    while the inner block is open."""
    undo = outer.relay(inner)
    try:
        yield
    finally:
        undo()
