"""Run a program exactly as ``python SCRIPT ARGS`` or ``python -m MODULE ARGS`` would."""

from __future__ import annotations

import importlib.machinery
import os
import runpy
import sys
import threading
import traceback
import types
from dataclasses import dataclass

from graphlint.probes.patching import WRAPPER_FILENAME

_OWN_FILES = (os.path.abspath(__file__), runpy.__file__)
_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


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
    if not os.path.exists(path):
        raise ProgramNotFound(f"no such file: {path}")
    if os.path.isdir(path):
        if os.path.isfile(os.path.join(path, "__main__.py")):
            return path
        raise ProgramNotFound(f"{path} is a directory without __main__.py")
    return path


def _exit_status(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF if code >= 0 else code % 256
    # sys.exit("message") prints the message to stderr and exits 1, as Python does
    print(code, file=sys.stderr)
    return 1


def _print_program_traceback(exc: BaseException) -> None:
    """The traceback Python would print, without graphlint's (and runpy's) own frames."""
    report = traceback.TracebackException.from_exception(exc)
    _drop_own_frames(report, set())
    sys.stdout.flush()
    sys.stderr.write("".join(report.format()))
    sys.stderr.flush()


def _drop_own_frames(report: traceback.TracebackException, seen: set) -> None:
    if id(report) in seen:
        return
    seen.add(id(report))
    frames = [
        f
        for f in report.stack
        if os.path.abspath(f.filename) not in _OWN_FILES
        and not os.path.abspath(f.filename).startswith(_PKG_DIR)
        and f.filename != WRAPPER_FILENAME
    ]
    report.stack = traceback.StackSummary.from_list(frames)
    for nested in (report.__cause__, report.__context__):
        if nested is not None:
            _drop_own_frames(nested, seen)


def run_program(script: str | None, module: str | None, args: tuple[str, ...]) -> Outcome:
    """Run the program in this process as ``__main__``; return how it ended.

    The program's own traceback is printed as Python would print it; ``SystemExit`` gives its
    status; ``KeyboardInterrupt`` gives 130.
    """
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    saved_main = sys.modules.get("__main__")
    outcome = Outcome()
    hidden = _hide_launcher_frames()
    hidden.__enter__()
    try:
        if module is not None:
            sys.argv = [module, *args]  # runpy replaces argv[0] by the module's file
            sys.path[0:1] = [os.getcwd()]
            outcome.namespace = runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            path = os.path.abspath(script)
            sys.argv = [script, *args]
            if os.path.isdir(path):
                sys.path[0:1] = [path]
                outcome.namespace = runpy.run_path(path, run_name="__main__")
            else:
                sys.path[0:1] = [os.path.dirname(path)]
                _run_file(path, outcome)
    except SystemExit as exc:
        outcome.status = _exit_status(exc.code)
        outcome.failed = outcome.status != 0
    except KeyboardInterrupt as exc:
        _print_program_traceback(exc)
        outcome.status, outcome.failed, outcome.interrupted = 130, True, True
    except ImportError as exc:
        if module is not None and str(exc).startswith("No module named") and _no_frames(exc):
            raise ProgramNotFound(f"no module named {module!r}") from None
        _print_program_traceback(exc)
        outcome.status, outcome.failed = 1, True
    except BaseException as exc:  # the program's own error: report it as Python would
        _print_program_traceback(exc)
        outcome.status, outcome.failed = 1, True
    finally:
        hidden.__exit__(None, None, None)
        sys.stdout.flush()
        sys.argv = saved_argv
        if saved_path0 is not None:
            sys.path[0:1] = [saved_path0]
        if saved_main is not None:
            sys.modules["__main__"] = saved_main
    return outcome


def _hide_launcher_frames():
    """Keep graphlint's launcher frames (the entry script, click, the CLI, this runner) and its
    probe wrappers out of the stacks TensorFlow records for each op, so that TensorFlow's own
    error messages ("Original stack trace for ...") read as they do under plain ``python``.

    Uses TensorFlow's stack-trace filter for this thread; nothing when TensorFlow is absent.
    """
    files = {WRAPPER_FILENAME}
    frame = sys._getframe(1)
    while frame is not None:
        files.add(frame.f_code.co_filename)
        frame = frame.f_back
    if "tensorflow.python.util.tf_stack" not in sys.modules:
        return _HideWhenImported(files)  # graphlint installs TensorFlow's probes when it is imported
    return _hide_frames(files)


def _hide_frames(files):
    import contextlib

    tf_stack = sys.modules.get("tensorflow.python.util.tf_stack")
    base = getattr(tf_stack, "StackTraceFilter", None)
    if base is None:
        return contextlib.nullcontext()

    class _HideLauncher(base):
        def get_filtered_filenames(self):
            parent = self.parent.get_filtered_filenames() if self.parent is not None else ()
            return frozenset(files).union(parent)

    try:
        return _HideLauncher()
    except Exception:  # a TensorFlow without this machinery: its messages keep our frames
        return contextlib.nullcontext()


class _HideWhenImported:
    """The launcher filter, entered in this thread when the program imports TensorFlow."""

    def __init__(self, files):
        self.files = files
        self.thread = threading.get_ident()
        self.entered = None
        self.cancel = lambda: None

    def _now(self) -> None:
        if self.entered is None and threading.get_ident() == self.thread:
            hide = _hide_frames(self.files)
            hide.__enter__()
            self.entered = hide

    def __enter__(self):
        from graphlint.probes.lazy import on_import

        self.cancel = on_import("tensorflow", self._now)
        return self

    def __exit__(self, *exc):
        self.cancel()
        if self.entered is not None:
            self.entered.__exit__(None, None, None)
            self.entered = None


def _no_frames(exc: BaseException) -> bool:
    """True when the ImportError came from runpy looking the module up, not from its code."""
    from graphlint.sites import is_user_file

    tb = exc.__traceback__
    while tb is not None:
        if is_user_file(tb.tb_frame.f_code.co_filename):
            return False
        tb = tb.tb_next
    return True


def _run_file(path: str, outcome: Outcome) -> None:
    with open(path, "rb") as fh:
        source = fh.read()
    code = compile(source, path, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__builtins__ = __builtins__
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
    sys.modules["__main__"] = main
    outcome.namespace = main.__dict__
    exec(code, main.__dict__)
