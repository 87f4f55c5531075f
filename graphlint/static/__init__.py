"""The static engine behind ``graphlint check``: parse with ``ast``, resolve names, run rules.

Nothing here imports or executes the files it checks.
"""

from graphlint.static.engine import FileResult, check_file, check_files
from graphlint.static.fixes import apply_fixes
from graphlint.static.files import collect
from graphlint.static.model.module import Module
from graphlint.static.model.names import Bindings, canonical
from graphlint.static.model.scopes import CallSite, Function

__all__ = [
    "Bindings",
    "CallSite",
    "FileResult",
    "Function",
    "Module",
    "apply_fixes",
    "canonical",
    "check_file",
    "check_files",
    "collect",
]
