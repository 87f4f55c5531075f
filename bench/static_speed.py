"""Speed of `graphlint check` against ruff, on code where the work is.

Three targets, each measured side by side in this one run (graphlint and ruff alternating, the
median of ``--pairs`` pairs), each as a ratio against ruff, cold and warm:

* corpus:     ``../shared/corpus`` (real TensorFlow user code: nearly every file imports TF);
* tensorflow: the installed TensorFlow package's ``python/`` tree;
* one file:   ``graphlint check FILE`` on one sample (the pre-commit case), wall time.

For each tree, two *floor* lines. The first times what no ``ast``-based checker can do
without: ``ast.parse`` of every ``.py`` file on all cores, nothing else (this script run with
``--parse-only DIR``), against ruff in the same rounds: how much of graphlint's ratio is
Python's parser. The second times graphlint's own run with the analysis taken out (no model
built, no rule run; this script with ``--no-analysis ARGS``): what a faster model or faster
rules could never remove (the walk, reads, import scan, parse, notebooks, pool, cache).

Each line ends with the median CPU seconds (user + system, all processes) of both tools: on a
machine other work shares, the wall time also counts the waits for a core.

*cold* is both tools with ``--no-cache`` (every file read, parsed and analysed); *warm* is both
with their cache filled by the run before on the unchanged tree (``.graphlint_cache`` and
``.ruff_cache``, here in a temporary folder: ``GRAPHLINT_CACHE_DIR`` and ``--cache-dir``).

Every timed command's exit status is checked: both tools run with ``--exit-zero``, so a tool
that crashes or reports a usage error (anything but 0) stops the benchmark instead of looking
fast. ruff runs as
``ruff check --select E,F,B --isolated``; graphlint as ``graphlint check --exit-zero``
(pass ``--graphlint-args`` to add options).

    .venv/bin/python bench/static_speed.py [--pairs 3] [--corpus DIR] [--no-compile] [--baseline DIR] [--only corpus]

``--baseline DIR`` also times the graphlint package in DIR, cold, against ruff in rounds of its
own right after this tree's: before -> after, each against ruff measured beside it.

ruff is not a test dependency: ``.venv/bin/pip install ruff``.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
ONE_FILE = os.path.join(ROOT, "samples", "rules", "gl101_bad.py")
TARGETS = {"corpus": 2.0, "tensorflow": 2.0}
ENV = dict(os.environ)


def tool(name: str) -> str | None:
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)


def tensorflow_tree() -> str:
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or spec.origin is None:
        sys.exit("static_speed: TensorFlow is not installed in this interpreter")
    return os.path.join(os.path.dirname(spec.origin), "python")


def python_lines(root: str) -> tuple[int, int]:
    files = lines = 0
    for directory, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".git")]
        for name in names:
            if name.endswith(".py"):
                files += 1
                with open(os.path.join(directory, name), "rb") as fh:
                    lines += fh.read().count(b"\n")
    return files, lines


def stale_bytecode() -> int:
    """How many of graphlint's modules have no cached bytecode as new as their source."""
    stale = 0
    for directory, _, names in os.walk(os.path.join(ROOT, "graphlint")):
        for name in names:
            if name.endswith(".py"):
                source = os.path.join(directory, name)
                cached = importlib.util.cache_from_source(source)
                stale += not os.path.exists(cached) or os.path.getmtime(cached) < os.path.getmtime(source)
    return stale


#: CPU seconds (user + system) of every timed run, by command: on a shared machine the
#: wall time also holds the waits for a core; the CPU time does not.
CPU: dict[str, list[float]] = {}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], cwd: str, env: dict | None = None) -> float:
    cpu = _cpu()
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env or ENV)
    elapsed = time.perf_counter() - start
    CPU.setdefault(cmd[0], []).append(_cpu() - cpu)
    if proc.returncode != 0:  # both run with --exit-zero: anything else is a crash or a usage error
        err = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        sys.exit(f"static_speed: {shlex.join(cmd)} exited {proc.returncode}: {err[0]}")
    return elapsed


def pairs(a: list[str], b: list[str], cwd: str, n: int, env: dict | None = None) -> tuple[float, float, float]:
    """Median seconds of ``a`` and ``b`` over ``n`` alternating pairs, and the median ratio."""
    timed(a, cwd, env), timed(b, cwd)  # warm the file cache for both
    ta, tb = [], []
    CPU.clear()
    for _ in range(n):
        ta.append(timed(a, cwd, env))
        tb.append(timed(b, cwd))
    ratio = statistics.median(x / y for x, y in zip(ta, tb))
    return statistics.median(ta), statistics.median(tb), ratio


def cpu_note() -> str:
    """The median CPU seconds of the last pairs, graphlint's and ruff's."""
    (g, r) = (statistics.median(CPU[cmd]) for cmd in CPU)
    return f"  [cpu {g:.2f} s / {r:.2f} s]"


def baseline_command(directory: str) -> tuple[list[str], dict]:
    """``graphlint`` from the package in ``directory`` (first on ``PYTHONPATH``), and its env."""
    env = dict(ENV, PYTHONPATH=os.pathsep.join(filter(None, [directory, ENV.get("PYTHONPATH")])))
    launcher = "import sys; from graphlint.cli import main; sys.argv[0] = 'graphlint'; sys.exit(main())"
    return [sys.executable, "-P", "-c", launcher], env  # -P: the checked folder is not on sys.path


def _parse(path: str) -> bool:
    import ast

    with open(path, "rb") as fh:
        data = fh.read()
    try:
        ast.parse(data, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def parse_only(root: str) -> int:
    """``ast.parse`` of every ``.py`` file under ``root`` in a process per core (the files in
    runs of neighbours, as graphlint's pool takes them), nothing else: the floor line."""
    import multiprocessing

    paths = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        paths += [os.path.join(directory, n) for n in sorted(names) if n.endswith(".py")]
    with multiprocessing.get_context("fork").Pool(os.cpu_count()) as pool:
        parsed = pool.map(_parse, paths, chunksize=max(1, len(paths) // (10 * (os.cpu_count() or 1))))
    return 0 if parsed else 1


def no_analysis(argv: list[str]) -> None:
    """``graphlint check`` with its analysis taken out: each file's model is not built and no
    rule looks at it; all the rest (the walk, reading, import scan, parse, notebooks, pool,
    cache, report) runs as usual. The line it gives is the floor of graphlint's own pipeline:
    what no faster model or rule can take away."""
    import graphlint.static.model.module as module
    from graphlint.registry import discover_rules

    kept = []  # as a real model's cycles keep it (the process exits without freeing them)

    def bare(self, path, text, tree, project=None):
        self.path, self.text, self.tree, self.project = path, text, tree, project
        self.edits, self.cache, self.in_tests = [], {}, False
        kept.append(self)

    module.Module.__init__ = bare  # the pool's workers are forked from here: they inherit it
    for cls in discover_rules(plugins=False).values():
        if cls.checks_statically():
            cls._forms["static"] = lambda module, options: ()  # the static form, taken out
    from graphlint.cli import console

    sys.argv = ["graphlint", *argv]
    console()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3, help="alternating pairs per figure (median)")
    parser.add_argument("--corpus", default=DEFAULT_CORPUS, help="real TF user code (default: ../shared/corpus)")
    parser.add_argument("--graphlint-args", default="", help="extra options for graphlint check")
    parser.add_argument(
        "--no-compile", action="store_true",
        help="leave graphlint's bytecode as it is (stale or missing .pyc: every start compiles those sources)",
    )
    parser.add_argument(
        "--only", choices=["corpus", "tensorflow", "one-file"], action="append",
        help="time only this target (repeatable; default: all three)",
    )
    parser.add_argument("--parse-only", metavar="DIR", help=argparse.SUPPRESS)  # the floor: see above
    parser.add_argument("--no-analysis", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)  # see no_analysis
    parser.add_argument(
        "--baseline", metavar="DIR",
        help="also time the graphlint package in DIR (e.g. `git archive REV graphlint | tar -x -C DIR`), "
        "cold, in the same rounds: before -> after in one run",
    )
    args = parser.parse_args()
    if args.parse_only:
        sys.exit(parse_only(args.parse_only))
    if args.no_analysis is not None:
        no_analysis(args.no_analysis)

    graphlint, ruff = tool("graphlint"), tool("ruff")
    if graphlint is None or ruff is None:
        sys.exit("static_speed: needs graphlint and ruff in the venv (.venv/bin/pip install ruff)")
    extra = shlex.split(args.graphlint_args)
    caches = tempfile.mkdtemp(prefix="static_speed.")
    ENV["GRAPHLINT_CACHE_DIR"] = os.path.join(caches, "graphlint")
    ENV.pop("GRAPHLINT_NO_CACHE", None)
    gl = [graphlint, "check", "--exit-zero", *extra]
    rf = [ruff, "check", "--select", "E,F,B", "--isolated", "--exit-zero", "--quiet", "--cache-dir", os.path.join(caches, "ruff")]
    modes = {"cold": (gl + ["--no-cache"], rf + ["--no-cache"]), "warm": (gl, rf)}
    print(
        f"{os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f}); median of {args.pairs} alternating pairs; "
        "exit statuses checked"
    )
    if not args.no_compile:
        # What `pip install` does for an installed package; an editable install under
        # PYTHONDONTWRITEBYTECODE=1 (these machines) otherwise compiles every edited module at
        # every start, which no user's pre-commit hook pays.
        compileall.compile_dir(os.path.join(ROOT, "graphlint"), quiet=1)
        if args.baseline:
            compileall.compile_dir(os.path.join(args.baseline, "graphlint"), quiet=1)
        print("graphlint's bytecode compiled first, as pip install does (--no-compile: as the tree is)")
    elif stale_bytecode():
        print(f"note: {stale_bytecode()} of graphlint's modules have no up-to-date bytecode here: each start compiles them")
    only = set(args.only or ["corpus", "tensorflow", "one-file"])
    trees = {}
    if "corpus" in only:
        trees["corpus"] = args.corpus
    if "tensorflow" in only:
        trees["tensorflow"] = tensorflow_tree()
    try:
        for label, tree in trees.items():
            if not os.path.isdir(tree):
                print(f"{label:10s} skipped: {tree} is not a directory")
                continue
            files, lines = python_lines(tree)
            for mode, (g_cmd, r_cmd) in modes.items():
                g, r, ratio = pairs(g_cmd + ["."], r_cmd + ["."], tree, args.pairs)
                print(
                    f"{label:10s} {mode}  {files:6,d} files {lines:9,d} lines  graphlint {g:6.2f} s  ruff {r:6.2f} s  "
                    f"ratio {ratio:5.2f}x (goal <= {TARGETS[label]:.1f}x, bar <= 3.0x)" + cpu_note()
                )
                if mode == "cold":
                    g, r, ratio = pairs([sys.executable, __file__, "--parse-only", "."], r_cmd + ["."], tree, args.pairs)
                    print(
                        f"{label:10s} floor ast.parse alone, every .py file on {os.cpu_count()} cores  {g:6.2f} s  ruff {r:6.2f} s  "
                        f"ratio {ratio:5.2f}x" + cpu_note()
                    )
                    bare = [sys.executable, __file__, "--no-analysis", *g_cmd[1:], "."]
                    g, r, ratio = pairs(bare, r_cmd + ["."], tree, args.pairs)
                    print(
                        f"{label:10s} floor graphlint check with no model built and no rule run  {g:6.2f} s  ruff {r:6.2f} s  "
                        f"ratio {ratio:5.2f}x" + cpu_note()
                    )
                if args.baseline and mode == "cold":
                    before, env = baseline_command(args.baseline)
                    g, r, ratio = pairs(before + g_cmd[1:] + ["."], r_cmd + ["."], tree, args.pairs, env)
                    print(
                        f"{label:10s} {mode}  baseline ({args.baseline})  graphlint {g:6.2f} s  ruff {r:6.2f} s  "
                        f"ratio {ratio:5.2f}x" + cpu_note()
                    )
        for mode, (g_cmd, r_cmd) in modes.items() if "one-file" in only else ():
            g, r, ratio = pairs(g_cmd + [ONE_FILE], r_cmd + [ONE_FILE], ROOT, max(args.pairs, 5))
            print(
                f"one file   {mode}  graphlint {g:6.3f} s  ruff {r:6.3f} s  ratio {ratio:5.1f}x (goal <= 0.10 s, bar <= 0.15 s wall)"
                + cpu_note()
            )
        print(f"load average at the end: {os.getloadavg()[0]:.1f} (other work on the machine slows the wall times)")
    finally:
        shutil.rmtree(caches, ignore_errors=True)


if __name__ == "__main__":
    main()
