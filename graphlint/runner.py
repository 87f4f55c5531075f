"""Run a program exactly as ``python SCRIPT ARGS`` or ``python -m MODULE ARGS`` would."""

from __future__ import annotations

import builtins
import importlib.machinery
import os
import runpy
import sys
import threading
import traceback
import types
import zipfile
from dataclasses import dataclass

from graphlint.probes.patching import WRAPPER_FILENAME

_OWN_FILES = (os.path.abspath(__file__), runpy.__file__)
_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


#: What runpy does not set and python gives ``__main__``: ``__builtins__`` is the module.
_INIT = {"__builtins__": builtins}


class ProgramNotFound(Exception):
    """The script or module to run does not exist; the message is one line."""


@dataclass
class Outcome:
    """How the program ended: its exit status and whether it failed."""

    status: int = 0
    failed: bool = False
    interrupted: bool = False
    #: The program's globals, kept alive until the findings are in: a session the program still
    #: holds when it ends is open, not leaked.
    namespace: dict | None = None


def check_script(path: str) -> str:
    """The script as python would accept it, or ProgramNotFound with python's reason."""
    if not os.path.exists(path):
        raise ProgramNotFound(f"no such file: {path}")
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "__main__.py")):
            return path
        raise ProgramNotFound(f"{path} is a directory without __main__.py")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise ProgramNotFound(
            f"can't open file {os.path.abspath(path)!r}: [Errno {exc.errno}] {exc.strerror}"
        ) from None
    return path


def _exit_status(code) -> int:
    """The status python exits with for ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        if not -(2**63) <= code < 2**63:  # python: does not fit a C long, so -1
            return 255
        return code & 0xFF
    # sys.exit("message") prints the message to stderr and exits 1, as Python does; a message
    # whose __str__ fails prints nothing
    try:
        print(code, file=sys.stderr)
    except Exception:
        pass
    return 1


def _own(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path in _OWN_FILES or path.startswith(_PKG_DIR) or filename == WRAPPER_FILENAME


def _print_program_traceback(exc: BaseException) -> None:
    """The traceback Python would print, without graphlint's (and runpy's) own frames; or
    the program's own ``sys.excepthook``, as python calls it."""
    _flush(sys.stdout)
    hook = sys.excepthook
    if hook is not sys.__excepthook__:
        tb = exc.__traceback__
        while tb is not None and _own(tb.tb_frame.f_code.co_filename):
            tb = tb.tb_next
        try:
            hook(type(exc), exc, tb)
            return
        except Exception as hook_error:  # python: "Error in sys.excepthook:", then the original
            _write_stderr("Error in sys.excepthook:\n" + _format(hook_error) + "\nOriginal exception was:\n")
    _write_stderr(_format(exc))


def _format(exc: BaseException) -> str:
    report = traceback.TracebackException.from_exception(exc)
    _drop_own_frames(report, set())
    return "".join(report.format())


def _write_stderr(text: str) -> None:
    stream = sys.stderr if sys.stderr is not None else sys.__stderr__
    try:
        stream.write(text)
        stream.flush()
    except (AttributeError, OSError, ValueError):
        pass


def _flush(stream) -> None:
    try:
        stream.flush()
    except (AttributeError, OSError, ValueError):  # None, closed by the program, or gone
        pass


def _drop_own_frames(report: traceback.TracebackException, seen: set) -> None:
    if id(report) in seen:
        return
    seen.add(id(report))
    frames = [f for f in report.stack if not _own(f.filename)]
    report.stack = traceback.StackSummary.from_list(frames)
    for nested in (report.__cause__, report.__context__):
        if nested is not None:
            _drop_own_frames(nested, seen)


def _module_details(module: str):
    """runpy's lookup of ``-m MODULE``; its failure is python's own one-line message."""
    try:
        return runpy._get_module_details(module)
    except ImportError as exc:
        raise ProgramNotFound(str(exc)) from None
    except Exception as exc:  # a parent package failing to import: python says it this way
        raise ProgramNotFound(f"Error while finding module specification for {module!r} ({type(exc).__name__}: {exc})") from None


def _set_path0(value: str | None) -> None:
    """sys.path[0] as python sets it for the program (graphlint's own entry is replaced);
    with ``PYTHONSAFEPATH`` (``-P``) python adds nothing, and neither does graphlint."""
    if getattr(sys.flags, "safe_path", False):
        return
    if value is None:
        del sys.path[0:1]
    else:
        sys.path[0:1] = [value]


def _depth() -> int:
    frame, n = sys._getframe(1), 0
    while frame is not None:
        n, frame = n + 1, frame.f_back
    return n


def run_program(script: str | None, module: str | None, args: tuple[str, ...]) -> Outcome:
    """Run the program in this process as ``__main__``; return how it ended.

    The program's own traceback is printed as Python would print it; ``SystemExit`` gives its
    status; ``KeyboardInterrupt`` gives 130.
    """
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    before = set(threading.enumerate())
    saved_main = sys.modules.get("__main__")
    # the frames of graphlint's launcher sit under the program: the recursion limit grows by
    # as many, so that a recursion that fits under python fits here
    saved_limit = sys.getrecursionlimit()
    raised_limit = saved_limit + _depth() + 4
    sys.setrecursionlimit(raised_limit)
    outcome = Outcome()
    hidden = _hide_launcher_frames()
    hidden.__enter__()
    try:
        if module is not None:
            sys.argv = [module, *args]  # runpy replaces argv[0] by the module's file
            _set_path0(os.getcwd())
            _, spec, code = _module_details(module)
            sys.argv[0] = spec.origin
            _run_code(code, spec, spec.parent, outcome)
        elif os.path.isdir(script) or zipfile.is_zipfile(script):
            # python: the folder or archive, absolute, first on sys.path (also with
            # PYTHONSAFEPATH), its __main__ run; argv[0] as given
            sys.argv = [script, *args]
            sys.path[0:1] = [os.path.abspath(script)]
            _, spec, code = runpy._get_main_module_details()
            _run_code(code, spec, "", outcome)
        else:
            sys.argv = [script, *args]
            # python: the script's real folder (a symlink resolved)
            _set_path0(os.path.dirname(os.path.realpath(script)))
            _run_file(script, outcome)
    except ProgramNotFound:
        raise
    except SystemExit as exc:
        outcome.status = _exit_status(exc.code)
        outcome.failed = outcome.status != 0
    except KeyboardInterrupt as exc:
        _print_program_traceback(exc)
        outcome.status, outcome.failed, outcome.interrupted = 130, True, True
    except BaseException as exc:  # the program's own error: report it as Python would
        _print_program_traceback(exc)
        outcome.status, outcome.failed = 1, True
    finally:
        hidden.__exit__(None, None, None)
        _flush(sys.stdout)
        if sys.getrecursionlimit() == raised_limit:
            sys.setrecursionlimit(saved_limit)
        sys.argv = saved_argv
        sys.path[:] = saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
    _join_threads(outcome, before)
    return outcome


def _join_threads(outcome: Outcome, before: set) -> None:
    """Python waits for the program's non-daemon threads before it ends; so does the report
    (a thread still working when the main code returns adds its findings). Threads that were
    there before the program (an embedding test runner's) are not the program's."""
    me = threading.current_thread()
    try:
        while True:
            alive = [
                t for t in threading.enumerate()
                if t is not me and t not in before and not t.daemon and t.is_alive()
            ]
            if not alive:
                return
            for thread in alive:
                thread.join()
    except KeyboardInterrupt as exc:  # python: the traceback, and it stops waiting
        _print_program_traceback(exc)
        outcome.status, outcome.failed, outcome.interrupted = 130, True, True


def _hide_launcher_frames():
    """Keep graphlint's launcher frames (the entry script, click, the CLI, this runner) and its
    probe wrappers out of the stacks TensorFlow records for each op, so that TensorFlow's own
    error messages ("Original stack trace for ...") read as they do under plain ``python``."""
    from graphlint.probes.tf_stack import hide_files

    files = {WRAPPER_FILENAME}
    frame = sys._getframe(1)
    while frame is not None:
        files.add(frame.f_code.co_filename)
        frame = frame.f_back
    return hide_files(files)


def _run_code(code, spec, package: str, outcome: Outcome) -> None:
    """runpy's way (a fresh ``__main__`` module for the run), argv untouched."""
    with runpy._TempModule("__main__") as temp:
        outcome.namespace = temp.module.__dict__
        runpy._run_code(code, outcome.namespace, _INIT, "__main__", spec, package)


def _run_file(script: str, outcome: Outcome) -> None:
    # python: __file__ is the path as given made absolute, not normalised (`sub/../x.py`)
    path = script if os.path.isabs(script) else os.path.join(os.getcwd(), script)
    with open(path, "rb") as fh:
        source = fh.read()
    code = compile(source, path, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = builtins  # the module, as python gives __main__
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    sys.modules["__main__"] = main
    outcome.namespace = main.__dict__
    exec(code, main.__dict__)
