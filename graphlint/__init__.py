"""graphlint: find graph-construction anti-patterns in TensorFlow programs.

Importing graphlint imports neither TensorFlow nor the runtime engine: ``graphlint check`` starts
without pluggy or entry-point scanning, and the names below are loaded on first use.
"""

from __future__ import annotations

import sys as _sys

if _sys.argv[:1] == ["-m"]:  # `python -m graphlint...`: before any other import (graphlint._start)
    from graphlint._start import forget_start_folder

    forget_start_folder()
    del forget_start_folder
if _sys.flags.verbose:  # PYTHONVERBOSE: `graphlint run`'s own imports are not the program's
    from graphlint._start import quiet_imports

    quiet_imports()
    del quiet_imports
del _sys

import importlib  # noqa: E402

__version__ = "0.1.0"  # the one source: pyproject.toml reads it ([tool.setuptools.dynamic])
#: The distribution's name (``pip install graphlint-ml``): ``graphlint`` on PyPI is another project.
DISTRIBUTION = "graphlint-ml"

# Bound after the submodule's import so that `graphlint.instrument` is the function, not the
# module `graphlint.instrument` (which importing it would otherwise leave here). The submodule
# itself is cheap: it imports the engine only when a block is entered.
from graphlint.instrument import instrument  # noqa: E402

_LAZY = {
    "hookimpl": "graphlint._hookspecs",
    "Linter": "graphlint.linter",
    "Finding": "graphlint.findings",
    "FindingSink": "graphlint.findings",
    "Location": "graphlint.findings",
    "Related": "graphlint.findings",
    "Severity": "graphlint.findings",
    "Rule": "graphlint.rules._base",
}

__all__ = ["Finding", "FindingSink", "Linter", "Location", "Related", "Rule", "Severity", "__version__", "hookimpl", "instrument"]


def load_ipython_extension(ipython) -> None:
    """``%load_ext graphlint``: findings under each notebook cell (graphlint.jupyter)."""
    from graphlint.jupyter import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext graphlint``: everything patched is restored."""
    from graphlint.jupyter import unload_ipython_extension as unload

    unload(ipython)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'graphlint' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
