"""``graphlint check`` over many files: worker processes, each checking runs of neighbouring
files (graphlint.static.engine checks one file, and few files in turn).

The workers are forked where that is safe (the cheapest start: they have the rules already),
else fresh interpreters (``forkserver``), started with ``PYTHONSAFEPATH=1`` so that none finds
the checked folder first on its path. Ctrl-C reaches every process of the terminal's group:
the workers ignore it, and the parent stops the run (one line, exit 130) and ends them.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING

from graphlint._start import safe_path_for_children
from graphlint.config import Config
from graphlint.static.depth import on_deep_stack
from graphlint.static.engine import FileResult, check_file
from graphlint.static.model.project import Project

if TYPE_CHECKING:
    from graphlint.static.hits import StaticRule

#: Runs of neighbouring files per worker process: enough to even out the workers' loads.
BATCHES_PER_JOB = 10

#: A worker's rules, configuration, and the project its files are read in (one per worker).
_worker_state: tuple[list[type[StaticRule]], Config, Project] | None = None


def _init_worker(rules: list[type[StaticRule]], config: Config, record: bool = True) -> None:
    global _worker_state
    import gc
    import signal

    gc.disable()  # short-lived trees of many small objects; the process exits after
    # Ctrl-C reaches every process of the terminal's group: the parent stops the run (one line,
    # exit 130) and ends the workers; a worker of its own would print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # blocked from its start until now (check_in_pool)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _worker_state = (rules, config, Project(record=record))


def _work(paths: list[str]) -> list[FileResult]:
    return on_deep_stack(_work_on, paths)


def _work_on(paths: list[str]) -> list[FileResult]:
    assert _worker_state is not None, "a pool worker's initializer sets it"
    rules, config, project = _worker_state
    out = []
    for path in paths:
        result = check_file(path, rules, config, project=project)
        out.append(result if (result.findings or result.edits) else FileResult(path, read=result.read))
    return out


def check_in_pool(
    paths: list[str], rule_classes: list[type[StaticRule]], config: Config, jobs: int, progress, *, record: bool = True
) -> list[FileResult]:
    """Every file's result, the files checked over ``jobs`` worker processes, in batches.
    ``record``: whether each result carries what it was computed from (for a cache)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    results: list[FileResult] = []
    batches = _batches(paths, jobs * BATCHES_PER_JOB)
    context = multiprocessing.get_context(_start_method(multiprocessing.get_all_start_methods()))
    # a worker (or the pool's resource tracker) that is a fresh interpreter must not find the
    # checked folder first on its path: they all start here, with the pool and its batches
    fresh = context.get_start_method() != "fork"
    if not fresh:
        _import_for_workers(rule_classes, paths)
    before = set(multiprocessing.active_children())
    pool = None
    try:
        with safe_path_for_children() if fresh else contextlib.nullcontext(), _sigint_held():
            pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker, initargs=(rule_classes, config, record))
            done = pool.map(_work, batches)
        for batch in done:
            results.extend(batch)
            if progress:
                progress(len(batch))
    except BaseException:  # Ctrl-C (the workers ignore it), or a failure: the run stops here
        _stop(before)
        if pool is not None:
            # the workers are gone, so this returns once the pool's manager thread has seen
            # them end (a first shutdown(wait=False) would forget the thread, and a second
            # could not join it); left running, the thread closes its wake-up pipe while the
            # interpreter's exit hook writes to it (CPython 3.11: "Exception ignored ... Bad
            # file descriptor" after "graphlint: aborted")
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return results


def _import_for_workers(rules: list[type[StaticRule]], paths: list[str]) -> None:
    """Import here, once, what each forked worker would otherwise import on its first files:
    the model's builder, the built-in rules' static forms, the notebook reader when there
    are notebooks, and hashlib (a large file's digest). The workers inherit them. A plugin's
    form is left to the workers, as it was: what its import starts (a thread) must not be
    forked."""
    import hashlib  # noqa: F401

    from graphlint.static.model import build  # noqa: F401

    for cls in rules:
        if cls.__module__.startswith("graphlint.rules."):
            cls.static_form()
    if any(path.endswith(".ipynb") for path in paths):
        from graphlint.static import notebook  # noqa: F401


@contextlib.contextmanager
def _sigint_held():
    """SIGINT blocked while the workers start (``map`` starts them): a worker inherits the
    mask, so a Ctrl-C before its initializer ignores SIGINT cannot raise in it (a traceback
    on the user's terminal); the parent receives a Ctrl-C of that moment right after."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stop(before: set) -> None:
    """End the workers started since ``before`` (``multiprocessing.active_children()``) at once:
    their batches are of no use any more, and a worker left to finish one would hold the exit."""
    import multiprocessing

    for process in set(multiprocessing.active_children()) - before:
        process.terminate()


#: Libraries that run threads of their own once imported (not always Python threads).
_THREADED = ("jax", "tensorflow", "torch")


def _start_method(methods: list[str]) -> str | None:
    """``fork`` where it is safe: the cheapest start (the workers have the rules already),
    as from ``graphlint check``. In a process with other threads running (graphlint called
    from a program or a test that loaded JAX or TensorFlow), a forked child could inherit a
    lock held by one of them: the workers then start from a fresh interpreter."""
    import threading

    if "fork" in methods and threading.active_count() == 1 and not any(m in sys.modules for m in _THREADED):
        return "fork"
    return "forkserver" if "forkserver" in methods else None  # None: the platform's default


def _batches(paths: list[str], n: int) -> list[list[str]]:
    """``paths`` cut, in their order, into ``n`` runs of as many files, the runs of the most
    source first. Neighbours stay together: a package's modules, which its files' analyses
    follow, are parsed once in the worker that checks them (graphlint.static.model.project)."""
    step = -(-len(paths) // max(1, n))
    runs = [paths[i:i + step] for i in range(0, len(paths), step)]
    return sorted(runs, key=lambda run: sum(map(_work_size, run)), reverse=True)


def _work_size(path: str) -> int:
    """About how much work a file is: its bytes (a notebook's are mostly outputs, not code)."""
    return _size(path) // (10 if path.endswith(".ipynb") else 1)


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
