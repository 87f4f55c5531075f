"""TensorFlow's stack-trace filter, told to leave graphlint's own files out.

TensorFlow records the Python stack of each op it builds and prints it in its error messages
("Original stack trace for ..."). :func:`hide_files` keeps the given files (graphlint's
launcher, its probe wrappers) out of those stacks for this thread, so the messages read as
they do under plain ``python``. TensorFlow is not imported here: when the program has not
imported it yet, the filter is entered in this thread once it does.
"""

from __future__ import annotations

import contextlib
import sys
import threading


def hide_files(files):
    """A context manager hiding ``files`` from TensorFlow's recorded stacks in this thread;
    nothing when this TensorFlow has no such filter."""
    if "tensorflow.python.util.tf_stack" not in sys.modules:
        return _HideWhenImported(files)  # graphlint installs TensorFlow's probes when it is imported
    return _hide_frames(files)


def _hide_frames(files):
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
