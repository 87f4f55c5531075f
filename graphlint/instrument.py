"""``graphlint.instrument()``: run code with the probes installed, collect findings."""

from __future__ import annotations

import contextlib
import sys
import threading
from typing import Iterator

from graphlint.config import Config, ConfigError
from graphlint.engine import Linter

_active = threading.Lock()


class TensorFlowMissing(ConfigError):
    """TensorFlow cannot be imported, so nothing can be instrumented."""


def _probes(linter: Linter, warn):
    try:
        import tensorflow  # noqa: F401  (the probes patch its internals)
    except ImportError as exc:
        raise TensorFlowMissing(
            f"TensorFlow is not installed ({exc}); install it: pip install 'graphlint[tensorflow]'"
        ) from None
    from graphlint.probes.tf_function import FunctionProbe
    from graphlint.probes.tf_graph import GraphProbe

    return [GraphProbe(linter.hook, warn=warn), FunctionProbe(linter.hook, warn=warn)]


@contextlib.contextmanager
def instrument(linter: Linter | None = None, *, config: Config | None = None, warn=None) -> Iterator[Linter]:
    """Install the probes for the duration of the ``with`` block.

    Everything patched is restored to the identical object on exit, also when the block
    raises. Findings are in ``linter.finish()`` (or ``linter.sink``) afterwards::

        with graphlint.instrument() as linter:
            forecast(x); forecast(x)
        for finding in linter.finish():
            print(finding.code, finding.message)
    """
    warn = warn or (lambda msg: print(msg, file=sys.stderr))
    linter = linter or Linter(config, warn=warn)
    if not _active.acquire(blocking=False):
        raise RuntimeError("graphlint.instrument() is already active in this process")
    probes = []
    try:
        probes = _probes(linter, warn)
        for probe in probes:
            probe.install()
        yield linter
    finally:
        for probe in reversed(probes):
            probe.uninstall()
        _active.release()
