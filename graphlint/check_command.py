"""``graphlint check``: the static engine over the files (or stdin) the command line names.

Each file is checked with the configuration closest to it (:mod:`graphlint.config_files`),
the command line over it; files are grouped by configuration, each group with its own rules
and cache. A file named on the command line is checked even when ``exclude`` or
``.gitignore`` covers it, unless ``--force-exclude`` (ruff's rule; pre-commit passes names).
"""

from __future__ import annotations

import gc
import os
import sys

import click

from graphlint.cli_options import command_line_layer, shared_options, view, warn
from graphlint.config import ConfigError, env_flag

STDIN = "-"


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@shared_options
@click.option("--fix", is_flag=True, help="Apply the safe fixes (GL103) in place.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and change nothing (exit 1 if there is one).")
@click.option("--show-fixes", is_flag=True, help="List what --fix fixed (or, without --fix, would fix), per file and code.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: the cores this process may use, within a container's CPU quota).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache (also GRAPHLINT_NO_CACHE=1).")
@click.option("--cache-dir", type=click.Path(file_okay=False), help="The cache folder (default: .graphlint_cache in the project root; also GRAPHLINT_CACHE_DIR, or cache-dir in the configuration).")
@click.option("--force-exclude", is_flag=True, default=None, help="Apply exclude also to the paths named on the command line (for pre-commit).")
@click.option("--stdin-filename", metavar="PATH", help="Check the source read from stdin as the file PATH (its configuration, its name in findings).")
def check(paths, select, extend_select, ignore, fmt, output, exit_zero, statistics, config_file, no_plugins,
          fix, diff, show_fixes, jobs, no_cache, cache_dir, force_exclude, stdin_filename):
    """Check PATHS (files or directories, default .; - for stdin) statically, without running them.

    Files are parsed with Python's ast module; nothing is imported or executed. Findings go
    to stdout (or --output FILE); errors to stderr.
    """
    from graphlint.cli import EXIT_FINDINGS, EXIT_OK, _emit, _end, _fail, own_process

    if own_process():
        # The process ends with os._exit (_end): nothing the run keeps need ever be freed. A
        # collection would walk every module imported from here on and, after the run, every
        # tree and model kept (0.4 s of a -j1 corpus run).
        gc.disable()
    from graphlint.config_files import Resolver
    from graphlint.output import check_writable
    from graphlint.registry import discover_rules

    use_stdin = STDIN in paths or stdin_filename is not None  # (as ruff: stdin wins over paths)
    stdin: tuple[str, bytes] | None = None  # (its file name, its bytes) when checking stdin
    passed: bytes | None = None  # stdin's bytes when --force-exclude leaves it unchecked
    try:
        no_cache = no_cache or env_flag("GRAPHLINT_NO_CACHE")
        resolver = Resolver(config_file, command_line_layer(select, extend_select, ignore))
        rules = discover_rules(plugins=not no_plugins, warn=warn)
        if output:
            check_writable(output)
        if use_stdin:
            files = []
            for path in dict.fromkeys(p for p in paths if p != STDIN):
                warn(f"graphlint: warning: ignoring {path} in favor of standard input")
            stdin = _read_stdin(stdin_filename)
            if stdin_filename is not None and _named_excluded(resolver, force_exclude)(stdin[0], False):
                passed, stdin = stdin[1], None  # excluded, as ruff: not checked (--fix: given back)
        else:
            files = _collect(list(paths) or ["."], resolver, force_exclude)
        groups = _groups(files, resolver)
        if stdin is not None:
            groups.setdefault(id(resolver.for_path(stdin[0])), (resolver.for_path(stdin[0]), []))
        for config in resolver.configs():  # every configuration met, also one with no file to check
            config.validate(rules)
    except ConfigError as exc:
        _fail(str(exc))
    results = []
    in_use: set[str] = set()  # the run's context files: its caches never prune each other
    for config, group in groups.values():
        static = _static_rules(rules, config)
        if stdin is not None and config is resolver.for_path(stdin[0]):
            results.append(_check_stdin(stdin, static, config))
        if group:
            _recover(group, static, config, fix and not diff)
            cache = None if no_cache else _open_cache(config, static, cache_dir, in_use)
            results += _check(group, static, config, jobs, cache)
    findings = [f for r in results for f in r.findings]
    noqa_warnings(findings, stdin)
    if diff:
        _end(_show_diff(results, show_fixes, stdin, exit_zero))
    from graphlint.findings import sorted_findings

    fixes: dict = {}
    if fix or show_fixes or any(r.edits for r in results):  # (else no finding has a fix to show)
        from graphlint.fix_view import fix_list, fixes_of

        fixes = fixes_of(results, stdin)
    if fix and stdin is not None:
        _fix_stdin(results[0], stdin, findings, fixes, fmt, output, rules, statistics, exit_zero)
    if fix and passed is not None:
        _pass_stdin(passed, _truncated(_stdin_path(stdin_filename), passed), fmt, output, rules, statistics)
    if fix:
        findings = _apply(results, findings, fixes, show_fixes)
        fixes = {}
    elif show_fixes:
        warn(fix_list([f for f in findings if f in fixes], applied=False).rstrip("\n"))
    findings = sorted_findings(findings)
    _emit(findings, fmt, output, rules, statistics, sys.stdout, fixes=fixes)
    _end(EXIT_FINDINGS if findings and not exit_zero else EXIT_OK)


def _named_excluded(resolver, force_flag):
    """Whether a path named on the command line (or ``--stdin-filename``) is left out: only
    with ``--force-exclude`` (or ``force-exclude = true``), when ``exclude`` covers it or a
    folder above it, up to its configuration's root; else it is checked, as ruff does."""

    def named_excluded(path: str, is_dir: bool) -> bool:
        config = resolver.for_path(path)
        if not (force_flag or config.force_exclude):
            return False  # named on the command line: checked, as ruff does
        here = os.path.abspath(path)
        while True:  # the path or a folder above it, up to the configuration's root
            if config.excluded(here, here != os.path.abspath(path) or is_dir):
                return True
            parent = os.path.dirname(here)
            if parent == here or not parent.startswith(config.root):
                return False
            here = parent

    return named_excluded


def _collect(paths, resolver, force_flag):
    from graphlint.static import collect

    named_excluded = _named_excluded(resolver, force_flag)
    return collect(paths, resolver.for_path("."), warn=warn, excluded=resolver.excluded, named_excluded=named_excluded)


def _groups(files, resolver) -> dict:
    groups: dict = {}
    for path in files:
        config = resolver.for_path(path)
        groups.setdefault(id(config), (config, []))[1].append(path)
    return groups


def _static_rules(rules, config):
    return [
        cls
        for code, cls in rules.items()
        if cls.checks_statically() and config.is_selected(code)
    ]


def _open_cache(config, static, cache_dir, in_use):
    from graphlint.cache_dir import cache_folder
    from graphlint.static.cache import Cache

    return Cache.open(config.root, static, config, folder=cache_folder(config, cache_dir), in_use=in_use)


def _recover(files, static, config, fix):
    """The backups a killed ``--fix`` left beside ``files``: said, and with ``fix`` restored or
    removed (graphlint.static.fixes.recover), before the files are checked."""
    from graphlint.static import check_file
    from graphlint.static.fixes import recover

    recover(files, lambda path, data: check_file(path, static, config, data=data), fix, warn)


def _check(files, static, config, jobs, cache):
    from graphlint.static import check_files

    if sys.stderr is not None and sys.stderr.isatty() and len(files) >= 200 and not view().quiet:
        with click.progressbar(length=len(files), label="graphlint check", file=sys.stderr) as bar:
            return check_files(files, static, config, jobs=jobs, progress=bar.update, cache=cache)
    return check_files(files, static, config, jobs=jobs, cache=cache)


def _read_stdin(name: str | None) -> tuple[str, bytes]:
    """``(the path stdin is checked as, its bytes)``: at most one byte more than the engine
    checks (:func:`graphlint.static.engine.read_limit`), as for a file: a stream may never end
    (``< /dev/zero`` took every byte of memory), and a larger source is one GL001 whatever its
    size. What is left unread is given back by ``--fix`` (:func:`_write_rest`)."""
    from graphlint.static.engine import read_limit

    path = _stdin_path(name)
    if sys.stdin is None:  # `<&-`: the interpreter found no stdin to open
        raise ConfigError("cannot read the source from stdin: it is closed")
    # one read: it returns at the end (a terminal's ^D), another would wait for a second
    return path, _read_chunk(read_limit(path) + 1)


def _read_chunk(size: int) -> bytes:
    """At most ``size`` bytes of stdin (its text encoded where it has no bytes: a test's
    StringIO); an error reading it is one line (EIO: a terminal gone; EISDIR; ...)."""
    stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    try:
        data = stream.read(size)
    except OSError as exc:
        raise ConfigError(f"cannot read the source from stdin: {exc.strerror or exc}") from None
    return data.encode("utf-8") if isinstance(data, str) else data


def _stdin_path(name: str | None) -> str:
    """The path stdin is checked as: ``--stdin-filename``'s, else ``-`` in the current folder."""
    return os.path.abspath(name) if name else os.path.join(os.getcwd(), STDIN)


def _check_stdin(stdin, static, config):
    """The source from stdin as the file ``stdin[0]``: never cached, every rule run on it."""
    from graphlint.static.engine import FileResult, check_file, read_limit, too_large

    path, data = stdin
    limit = read_limit(path)
    if len(data) > limit:  # (read no further: its size is not known)
        return FileResult(path, [too_large(path, None, limit, what="source")])
    return check_file(path, static, config, full=True, data=data)


def _apply(results, findings, fixes, show_fixes):
    from graphlint.fix_view import fix_list
    from graphlint.static import apply_fixes
    from graphlint.text import plural

    fixed = apply_fixes(results, warn=warn)
    if not fixed:
        if show_fixes:
            warn(fix_list([], applied=True).rstrip("\n"))
        return findings
    done = [f for f in findings if (f.location.path, f.code, f.location.line, f.location.cell) in fixed]
    if show_fixes:
        warn(fix_list(done, applied=True).rstrip("\n"))
    else:
        n_files = len({p for p, *_ in fixed})
        warn(f"graphlint: fixed {plural(len(fixed), 'finding')} in {plural(n_files, 'file')}.")
    return [f for f in findings if f not in done]


def _show_diff(results, show_fixes, stdin, exit_zero=False) -> int:
    """``--diff``: the diff on stdout, what it would fix on stderr; 1 when there is a diff
    (0 with ``--exit-zero``, as ruff)."""
    from graphlint.cli import EXIT_FINDINGS, EXIT_OK
    from graphlint.fix_view import diffs, fix_list, fixes_of
    from graphlint.text import plural

    text, n_fixes, n_files = diffs(results, stdin=stdin)
    if text:
        from graphlint.output import write_bytes

        write_bytes(text, sys.stdout)
    if show_fixes:
        warn(fix_list(list(fixes_of(results, stdin)), applied=False).rstrip("\n"))
    elif n_fixes:
        warn(f"graphlint: would fix {plural(n_fixes, 'finding')} in {plural(n_files, 'file')}.")
    return EXIT_FINDINGS if text and not exit_zero else EXIT_OK


def _fix_stdin(result, stdin, findings, fixes, fmt, output, rules, statistics, exit_zero):
    """``--fix`` on stdin, as ruff does it: the fixed source to stdout, what is left to stderr."""
    from graphlint.cli import EXIT_FINDINGS, EXIT_OK, _emit, _end
    from graphlint.fix_view import fixed_stdin
    from graphlint.findings import sorted_findings

    _write_source(fixed_stdin(result, stdin), _truncated(*stdin))
    left = sorted_findings([f for f in findings if f not in fixes])
    _emit(left, fmt, output, rules, statistics, sys.stderr)
    _end(EXIT_FINDINGS if left and not exit_zero else EXIT_OK)


def _pass_stdin(data, truncated, fmt, output, rules, statistics):
    """``--fix`` on an excluded ``--stdin-filename`` (``--force-exclude``), as ruff: the source
    given back unchanged on stdout, no finding."""
    from graphlint.cli import EXIT_OK, _emit, _end

    _write_source(data, truncated)
    _emit([], fmt, output, rules, statistics, sys.stderr)
    _end(EXIT_OK)


def _write_source(source: bytes, truncated: bool = False) -> None:
    """The source (fixed, or given back) on stdout, byte for byte; ``truncated``: stdin was
    read only up to the engine's limit, and the rest follows as it comes (as ``cat``). Only
    then is stdin read again: a terminal at its end would wait for another end."""
    from graphlint.output import flush

    if sys.stdout is None:  # `>&-`: the fixed source has nowhere to go
        from graphlint.cli import _fail

        _fail("cannot write the fixed source: stdout is closed")
    if hasattr(sys.stdout, "buffer"):
        flush(sys.stdout)
        write = sys.stdout.buffer.write
    else:
        def write(data: bytes) -> None:
            sys.stdout.write(data.decode("utf-8", "replace"))
    write(source)
    while truncated and (chunk := _read_chunk(1 << 20)):
        write(chunk)


def _truncated(path: str, data: bytes) -> bool:
    """Whether stdin was read only up to the engine's limit (:func:`_read_stdin`)."""
    from graphlint.static.engine import read_limit

    return len(data) > read_limit(path)


def noqa_warnings(findings, stdin=None) -> None:
    """One warning per invalid ``# noqa`` directive in a file with findings (they are kept)."""
    from graphlint.suppression import invalid_directives

    paths: dict[str, object] = {}
    for f in findings:
        paths.setdefault(f.location.path, f)
    for path in sorted(paths):
        data = stdin[1] if stdin is not None and path == stdin[0] else None
        for message in invalid_directives(path, data):
            warn(message)
