"""``python -m graphlint ...`` runs none of the user's code.

``python -m`` puts the current folder first on ``sys.path``, so every module graphlint imports
later — lazily, most of them: ``tomllib``, ``symtable``, ``pathspec``, ``concurrent``,
``multiprocessing``, ``typing_extensions`` — would be found first in the folder being checked,
and run. The ``graphlint`` command (a console script) puts its own folder there instead. So,
the first thing graphlint's package does when ``-m`` names graphlint or one of its modules, is
to take the current folder off ``sys.path`` again — unless graphlint itself is imported from
there (a source checkout, run from its root).

A worker process of ``graphlint check -j`` that starts a fresh interpreter (``forkserver``,
where ``fork`` is not safe) would put its own current folder there: see
:func:`safe_path_for_children`.

The ``graphlint`` command itself starts here (:func:`console`).
"""

from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager

#: Options of the interpreter that take the next argument as their value.
_VALUED = frozenset({"-X", "-W", "--check-hash-based-pycs"})


def main_module(argv: list[str]) -> str | None:
    """The module ``python ... -m MODULE`` runs, from the interpreter's own command line
    (``sys.orig_argv``); None for a script, ``-c`` or stdin."""
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _VALUED:
            i += 2
        elif arg in ("-", "--") or not arg.startswith("-"):
            return None  # the end of the options: a script, stdin
        elif arg.startswith("--"):  # --version, --help-env, ...
            i += 1
        else:  # one or more one-letter flags; -m, -c, -X and -W end them
            for j, flag in enumerate(arg[1:], 1):
                if flag == "m":
                    return arg[j + 1 :] or (args[i + 1] if i + 1 < len(args) else None)
                if flag == "c":
                    return None
                if flag in "XW":  # its value is the rest of this argument
                    break
            i += 1
    return None


def forget_start_folder() -> None:
    """Take the current folder off ``sys.path`` when ``python -m graphlint...`` put it there."""
    if sys.argv[:1] != ["-m"]:  # (while -m looks for its module, argv[0] is "-m")
        return
    module = main_module(list(getattr(sys, "orig_argv", ())))
    if module is None or module.split(".", 1)[0] != "graphlint" or not sys.path:
        return
    first = sys.path[0]
    try:
        here = os.getcwd()
    except OSError:  # the current folder is gone: it holds nothing to import either
        here = None
    if first != "" and (here is None or os.path.abspath(first) != here):
        return  # -P or PYTHONSAFEPATH: the interpreter added nothing
    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # where graphlint is imported from
    if here is not None and os.path.abspath(first or here) == home:
        return
    del sys.path[0]


def quiet_imports() -> None:
    """``graphlint run`` under ``PYTHONVERBOSE`` (``-v``): the import messages of graphlint's
    own Python left out from here on. Its stderr is the program's, and the messages python
    prints for the program are its child's; graphlint's own (click, its commands, the report:
    some 330 lines) would bury them. Only what the interpreter printed before graphlint
    was imported is left (its start-up, the console script's ``import re``)."""
    if not sys.flags.verbose or not _is_the_command() or _command(sys.argv[1:]) != "run":
        return
    bootstrap = sys.modules.get("_frozen_importlib")
    if bootstrap is not None and hasattr(bootstrap, "_verbose_message"):
        # (importlib's one printer of these messages; _frozen_importlib_external calls it too)
        setattr(bootstrap, "_verbose_message", _silent)


def _silent(message: str, *args: object, verbosity: int = 1) -> None:
    pass


def _is_the_command() -> bool:
    """Whether this process is the ``graphlint`` command (its console script, or ``python -m
    graphlint``), not a program that imports graphlint."""
    if sys.argv[:1] == ["-m"]:
        return main_module(list(getattr(sys, "orig_argv", ()))) in ("graphlint", "graphlint.__main__")
    name = os.path.basename(sys.argv[0]) if sys.argv else ""
    return name in ("graphlint", "graphlint.exe", "graphlint-script.py")


def _command(args: list[str]) -> str | None:
    """The subcommand of ``graphlint ARGS`` (the group's options come before it)."""
    for arg in args:
        if not arg.startswith("-"):
            return arg
    return None


def console() -> None:
    """The ``graphlint`` command (its console script) and ``python -m graphlint``.

    The cyclic garbage collector is paused before the command line is imported: click and
    the ~100 modules a command imports free nothing a collection could find, and the seven
    collections they would trigger cost 1% of a one-file ``graphlint check``. It stays paused
    through ``check`` (which ends the process with ``os._exit``); every other command gets it
    back before it runs (:mod:`graphlint.cli`). A program that imports graphlint is never
    touched: only this function, the process's own entry point, pauses it."""
    collecting = gc.isenabled()
    gc.disable()
    from graphlint.cli import console as run

    run(collector_paused=collecting)


@contextmanager
def safe_path_for_children():
    """``PYTHONSAFEPATH=1`` for the interpreters started in the block (``forkserver``
    workers start with ``-c``, which puts their current folder first on ``sys.path``: the
    folder being checked); put back as it was after."""
    previous = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = previous
