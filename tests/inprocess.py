"""The tests' fast way to run a sample: as ``__main__`` in this process, under whatever
instrumentation the caller set up (``graphlint run`` itself starts a Python of its own:
graphlint.runner; tests/runtime/ checks that one).

The program's globals are kept until the caller has its findings, also when it raised (under
``graphlint run`` the rules judge at exit, while ``__main__`` still exists).
"""

from __future__ import annotations

import builtins
import os
import sys
import traceback
import types
from dataclasses import dataclass


@dataclass
class Outcome:
    """How the program ended."""

    status: int = 0
    failed: bool = False
    namespace: dict | None = None


def exit_status(code) -> int:
    """python's exit status for ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run_main(path, args=()) -> Outcome:
    """Run the file ``path`` as ``__main__`` with ``args``, as python would (its folder first on
    ``sys.path``); the program's traceback is printed; ``sys`` is restored afterwards."""
    path = os.path.abspath(str(path))
    saved_argv, saved_path, saved_main = sys.argv[:], sys.path[:], sys.modules.get("__main__")
    outcome = Outcome()
    main = types.ModuleType("__main__")
    main.__file__, main.__builtins__, main.__cached__ = path, builtins, None
    outcome.namespace = main.__dict__
    try:
        sys.argv = [path, *map(str, args)]
        sys.path.insert(0, os.path.dirname(os.path.realpath(path)))
        sys.modules["__main__"] = main
        with open(path, "rb") as fh:
            code = compile(fh.read(), path, "exec", dont_inherit=True)
        exec(code, main.__dict__)
    except SystemExit as exc:
        outcome.status = exit_status(exc.code)
    except BaseException:  # the program's own error, as python would print it
        traceback.print_exc()
        outcome.status = 1
    finally:
        sys.stdout.flush()
        sys.argv, sys.path[:] = saved_argv, saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
    outcome.failed = outcome.status != 0
    return outcome
