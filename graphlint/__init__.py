"""graphlint: find graph-construction anti-patterns in TensorFlow programs."""

from graphlint._hookspecs import hookimpl
from graphlint.findings import Finding, Location, Related, Severity
from graphlint.rules._base import Rule

__version__ = "0.1.0"

__all__ = ["hookimpl", "Finding", "Location", "Related", "Rule", "Severity", "instrument", "__version__"]


def __getattr__(name):  # keep `import graphlint` light: no TensorFlow until needed
    if name == "instrument":
        from graphlint.instrument import instrument

        # Importing the submodule bound `graphlint.instrument` to the module; the public name
        # is the function, on every access after this one too.
        globals()["instrument"] = instrument
        return instrument
    if name == "Linter":
        from graphlint.engine import Linter

        return Linter
    raise AttributeError(name)
