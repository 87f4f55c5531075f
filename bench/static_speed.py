"""Speed of `graphlint check`: against what no checker can skip, against its own start, and
against ruff.

Every figure is measured in rounds: each round runs every command of a target once, in turn
(after one warm-up round), and a ratio is the median of the per-round ratios of two commands,
so both sides carry the same minute of the machine's load. Each is given for the wall time and
for the CPU time (user + system of the command and every process it waited for: on a machine
other work shares, the wall time also counts the waits for a core).

* corpus / tensorflow: ``../shared/corpus`` (real TensorFlow user code) and the installed
  TensorFlow's ``python/`` tree. ``graphlint check --no-cache`` against the *floor*, ``ast.parse``
  of every ``.py`` file on all cores and nothing else (this script with ``--parse-only DIR``, the
  files in runs of neighbours as graphlint's pool takes them): the ratio the issue-27 goal is
  about (<= 1.5x). In the same rounds: graphlint with its analysis taken out (no model built, no
  rule run: ``--no-analysis ARGS``), what a faster model or faster rules could never remove (the
  walk, reads, import scans, parse, notebooks, pool), and ``ruff check --select E,F,B --isolated
  --no-cache``. *warm*: both tools with the cache the warm-up round filled (``GRAPHLINT_CACHE_DIR``
  and ``--cache-dir`` in a temporary folder).
* one file: ``graphlint check --no-cache FILE`` on one sample (the pre-commit case), wall time
  against the 0.10 s goal, and as ratios against ``graphlint --version`` (the CLI's own start)
  and ``python -c pass`` (the interpreter's) in the same rounds. ``--instructions`` also counts
  each one-file command's instructions under ``valgrind --tool=callgrind`` (``PYTHONHASHSEED=0``):
  the same to 0.001% from run to run, whatever else the machine runs.

Every timed command's exit status is checked: graphlint and ruff run with ``--exit-zero``, so a
command that crashes or reports a usage error (anything but 0) stops the benchmark instead of
looking fast.

    .venv/bin/python bench/static_speed.py [--pairs 3] [--corpus DIR] [--no-compile] [--baseline DIR] [--only corpus]
        [--instructions]

``--baseline DIR`` also times the graphlint package in DIR (``git archive REV graphlint | tar -x
-C DIR``) in the same rounds: before -> after in one run (for one file, its ``--version`` too).

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
#: ``../shared/corpus`` beside the checkout (``/work/main``), or beside its worktrees' folder (``/work/wt/NAME``).
DEFAULT_CORPUS = next(
    (p for p in (os.path.normpath(os.path.join(ROOT, *[".."] * up, "shared", "corpus")) for up in (1, 2)) if os.path.isdir(p)),
    os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus")),
)
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


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd: list[str], cwd: str, env: dict | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the command and every process it waited for:
    on a shared machine the wall time also holds the waits for a core, the CPU time does not)."""
    cpu = _cpu()
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env or ENV)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:  # every command runs with --exit-zero: anything else is a crash or a usage error
        err = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
        sys.exit(f"static_speed: {shlex.join(cmd)} exited {proc.returncode}: {err[0]}")
    return elapsed, _cpu() - cpu


class Rounds:
    """Commands timed in the same rounds, each round every command once in turn (after one
    warm-up round: the file cache, the bytecode): the medians of each, and the median of the
    per-round ratios of two of them (both measured in the same minute of the machine's load)."""

    def __init__(self, commands: dict[str, tuple[list[str], dict | None]], cwd: str, n: int):
        self.wall: dict[str, list[float]] = {label: [] for label in commands}
        self.cpu: dict[str, list[float]] = {label: [] for label in commands}
        for cmd, env in commands.values():
            timed(cmd, cwd, env)
        for _ in range(n):
            for label, (cmd, env) in commands.items():
                wall, cpu = timed(cmd, cwd, env)
                self.wall[label].append(wall)
                self.cpu[label].append(cpu)

    def line(self, label: str) -> str:
        return f"{statistics.median(self.wall[label]):6.3f} s  [cpu {statistics.median(self.cpu[label]):.3f} s]"

    def ratio(self, a: str, b: str) -> str:
        wall = statistics.median(x / y for x, y in zip(self.wall[a], self.wall[b]))
        cpu = statistics.median(x / y for x, y in zip(self.cpu[a], self.cpu[b]))
        return f"wall {wall:5.2f}x  cpu {cpu:5.2f}x"


def instructions(cmd: list[str], cwd: str, env: dict | None = None) -> int:
    """The instructions ``cmd`` executes, counted by callgrind (hash randomisation off: the same
    count run after run); its exit status is checked as :func:`timed` checks it."""
    env = dict(env or ENV, PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory(prefix="static_speed.") as out:
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.path.join(out, 'callgrind.out')}", *cmd],
            cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
        )
    err = proc.stderr.decode(errors="replace")
    if proc.returncode != 0:
        sys.exit(f"static_speed: {shlex.join(cmd)} under callgrind exited {proc.returncode}: {err.strip()[-300:]}")
    found = [line for line in err.splitlines() if "Collected :" in line]
    if not found:
        sys.exit(f"static_speed: no instruction count from callgrind for {shlex.join(cmd)}")
    return int(found[-1].rsplit(":", 1)[1])


def baseline_command(directory: str) -> tuple[list[str], dict]:
    """``graphlint`` from the package in ``directory`` (first on ``PYTHONPATH``), and its env."""
    env = dict(ENV, PYTHONPATH=os.pathsep.join(filter(None, [directory, ENV.get("PYTHONPATH")])))
    # console(), as the installed script: graphlint is the whole process (it ends with os._exit);
    # graphlint._start's where the tree has it (the script's entry point since it pauses the
    # garbage collector), graphlint.cli's before
    launcher = (
        "import sys\nsys.argv[0] = 'graphlint'\ntry:\n    from graphlint._start import console\n"
        "except ImportError:\n    from graphlint.cli import console\nconsole()"
    )
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
    parser.add_argument("--pairs", type=int, default=3, help="rounds per figure (median; the one file: at least 10)")
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
    parser.add_argument(
        "--instructions", action="store_true",
        help="also count the one-file commands' instructions under valgrind --tool=callgrind (needs valgrind)",
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
        f"{os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f}); median of {args.pairs} rounds; "
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
    n = args.pairs
    try:
        for label, tree in trees.items():
            if not os.path.isdir(tree):
                print(f"{label:10s} skipped: {tree} is not a directory")
                continue
            files, lines = python_lines(tree)
            print(f"{label:10s} {files:,d} .py files, {lines:,d} lines: {tree}")
            (g_cold, r_cold), (g_warm, r_warm) = modes["cold"], modes["warm"]
            cold = {
                "graphlint": (g_cold + ["."], None),
                "floor": ([sys.executable, __file__, "--parse-only", "."], None),
                "bare": ([sys.executable, __file__, "--no-analysis", *g_cold[1:], "."], None),
                "ruff": (r_cold + ["."], None),
            }
            if args.baseline:
                before, env = baseline_command(args.baseline)
                cold["baseline"] = (before + g_cold[1:] + ["."], env)
            r = Rounds(cold, tree, n)
            print(f"{label:10s} cold  graphlint check --no-cache              {r.line('graphlint')}")
            if args.baseline:
                print(f"{label:10s} cold  baseline ({args.baseline})  {r.line('baseline')}")
            print(f"{label:10s} floor ast.parse of every .py file, {os.cpu_count()} cores  {r.line('floor')}")
            print(f"{label:10s} floor graphlint, no model and no rule   {r.line('bare')}")
            print(f"{label:10s} ruff  check --no-cache                   {r.line('ruff')}")
            print(f"{label:10s} cold  vs the ast.parse floor: {r.ratio('graphlint', 'floor')}  (goal <= 1.5x)")
            if args.baseline:
                print(f"{label:10s} cold  baseline vs the floor:  {r.ratio('baseline', 'floor')}")
            print(f"{label:10s} floor no analysis vs ast.parse: {r.ratio('bare', 'floor')}")
            print(f"{label:10s} cold  vs ruff: {r.ratio('graphlint', 'ruff')}  (goal <= {TARGETS[label]:.1f}x, bar <= 3.0x)")
            w = Rounds({"graphlint": (g_warm + ["."], None), "ruff": (r_warm + ["."], None)}, tree, n)
            print(f"{label:10s} warm  graphlint {w.line('graphlint')}  ruff {w.line('ruff')}  vs ruff: {w.ratio('graphlint', 'ruff')}")
        if "one-file" in only:
            g_cold, r_cold = modes["cold"]
            one = {
                "graphlint": (g_cold + [ONE_FILE], None),
                "version": ([graphlint, "--version"], None),
                "python": ([sys.executable, "-c", "pass"], None),
                "ruff": (r_cold + [ONE_FILE], None),
            }
            if args.baseline:  # before and after started alike (the launcher of baseline_command)
                before, env = baseline_command(args.baseline)
                one["baseline"] = (before + g_cold[1:] + [ONE_FILE], env)
                one["baseline version"] = (before + ["--version"], env)
                after, env = baseline_command(ROOT)
                one["after"] = (after + g_cold[1:] + [ONE_FILE], env)
                one["after version"] = (after + ["--version"], env)
            r = Rounds(one, ROOT, max(n, 10))
            print(f"one file   graphlint check --no-cache FILE  {r.line('graphlint')}  (goal <= 0.10 s wall, bar <= 0.15 s)")
            if args.baseline:
                print(f"one file   baseline ({args.baseline})  {r.line('baseline')}")
                print(f"one file   this tree, started as the baseline is  {r.line('after')}")
            print(f"one file   graphlint --version             {r.line('version')}")
            if args.baseline:
                print(f"one file   baseline --version               {r.line('baseline version')}")
                print(f"one file   this tree --version, started alike  {r.line('after version')}")
            print(f"one file   python -c pass                  {r.line('python')}")
            print(f"one file   ruff check --no-cache FILE       {r.line('ruff')}")
            print(f"one file   vs graphlint --version: {r.ratio('graphlint', 'version')}")
            print(f"one file   vs python -c pass:      {r.ratio('graphlint', 'python')}")
            if args.baseline:
                print(f"one file   baseline vs --version:  {r.ratio('baseline', 'version')}")
                print(f"one file   this tree vs the baseline, started alike: {r.ratio('after', 'baseline')}")
                print(f"one file   --version, this tree vs the baseline:      {r.ratio('after version', 'baseline version')}")
            if args.instructions:
                if shutil.which("valgrind") is None:
                    sys.exit("static_speed: --instructions needs valgrind")
                counted = {label: instructions(cmd, ROOT, env) for label, (cmd, env) in one.items() if label != "ruff"}
                for label, count in counted.items():
                    print(f"one file   instructions  {label:18s} {count / 1e6:9.2f}M")
                if args.baseline:
                    change = counted["after"] / counted["baseline"] - 1
                    print(f"one file   instructions, this tree vs the baseline, started alike: {change:+.1%}")
        print(f"load average at the end: {os.getloadavg()[0]:.1f} (other work on the machine slows the wall times)")
    finally:
        shutil.rmtree(caches, ignore_errors=True)


if __name__ == "__main__":
    main()
