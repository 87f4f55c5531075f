"""graphlint: find graph-construction anti-patterns in TensorFlow programs.

Importing graphlint does not import TensorFlow; the probes import it when installed.
"""

__version__ = "0.1.0"

from graphlint._hookspecs import hookimpl  # noqa: E402
from graphlint.engine import Linter  # noqa: E402
from graphlint.findings import Finding, Location, Related, Severity  # noqa: E402
from graphlint.rules._base import Rule  # noqa: E402

# Bound after the submodule's import so that `graphlint.instrument` is the function, not the
# module `graphlint.instrument` (which importing it would otherwise leave here).
from graphlint.instrument import instrument  # noqa: E402

__all__ = ["Finding", "Linter", "Location", "Related", "Rule", "Severity", "__version__", "hookimpl", "instrument"]
