"""The command line: ``graphlint run``, ``graphlint check`` (:mod:`graphlint.check_command`),
``graphlint rules``, ``graphlint rule CODE``, ``graphlint clean``, ``graphlint server``.

Shell completion is click's: ``eval "$(_GRAPHLINT_COMPLETE=bash_source graphlint)"`` (``zsh_source``,
``fish_source`` for those shells).
"""

from __future__ import annotations

import errno
import os
import sys
from typing import NoReturn  # click imports typing already: no cost at start

import click

from graphlint import __version__
from graphlint.check_command import check
from graphlint.cli_options import VALUED, command_line_layer, shared_options, use_color, view, warn
from graphlint.config import Config, ConfigError, env_flag
from graphlint.output import check_writable, flush, fresh_line, write_report

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _fail(message: str) -> NoReturn:
    click.echo(f"graphlint: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def _config(config_file, start, select, extend_select, ignore) -> Config:
    """The configuration for ``start`` (a script's folder): the closest file's, the command
    line over it."""
    from graphlint.config_files import Resolver

    return Resolver(config_file, command_line_layer(select, extend_select, ignore)).for_path(start)


#: ``run`` and ``check`` share these (``graphlint.cli_options``).
selection_options = shared_options


class _Main(click.Group):
    """Click's usage errors as one line (``graphlint: error: ...``) and exit 2, like every
    other error graphlint reports."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            status = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            exc.show()  # `graphlint` alone: the help, as click gives it
            _end(exc.exit_code)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "graphlint"
            _fail(f"{exc.format_message()} (see `{where} --help`)")
        except click.ClickException as exc:
            click.echo(f"graphlint: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("graphlint: aborted", err=True)
            sys.exit(130)
        except Exception as exc:  # graphlint's own failure: exit 2, never 1 (that is "findings")
            _internal_error(exc)
        try:
            sys.stdout.flush()  # `>/dev/full`: said now, as one line, not at interpreter exit
        except (OSError, ValueError) as exc:
            _internal_error(exc)
        except AttributeError:  # stdout closed at start (`>&-`): None
            pass
        _end(status if isinstance(status, int) else EXIT_OK)


#: ``GRAPHLINT_TRACEBACK=1`` (or ``graphlint --verbose``): an internal error shows its traceback.
TRACEBACK_ENV = "GRAPHLINT_TRACEBACK"
_OUTPUT_ERRORS = {errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT, errno.EBADF}


def _internal_error(exc: BaseException) -> NoReturn:
    """One line and exit 2; the traceback only on request, so CI tells a crash from findings."""
    if isinstance(exc, OSError) and exc.errno in _OUTPUT_ERRORS and exc.filename is None:
        message = f"cannot write the output: {exc.strerror}"
        _abandon_stdout()
    else:
        message = (
            f"internal error: {type(exc).__name__}: {exc} (run with --verbose or "
            f"{TRACEBACK_ENV}=1 for the traceback, and report it)"
        )
    try:
        wanted = _VERBOSE or env_flag(TRACEBACK_ENV)
    except ConfigError:
        wanted = True  # a value that is not false asks for it
    if wanted:
        import traceback

        try:
            traceback.print_exception(exc, file=sys.stderr)
        except (AttributeError, OSError, ValueError):
            pass
    _fail(message.replace("\n", " "))


def _abandon_stdout() -> None:
    """Point a failed stdout at /dev/null: its unwritten buffer must not fail again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):
        pass


_VERBOSE = False


def set_verbose(value: bool) -> None:
    """``--verbose``, before or after the subcommand."""
    global _VERBOSE
    _VERBOSE = value


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="graphlint")
@click.option("--verbose", is_flag=True, help="Show graphlint's own traceback if it fails.")
def main(verbose=False):
    """Find graph-construction anti-patterns in TensorFlow, Keras and JAX programs.

    Shell completion: eval "$(_GRAPHLINT_COMPLETE=bash_source graphlint)" (zsh_source, fish_source).
    """
    set_verbose(verbose)


main.add_command(check)


class _RunCommand(click.Command):
    """``run -m MODULE ARGS``: everything after MODULE belongs to the module, as with
    ``python -m`` (``run -m mod --help`` is the module's help, not graphlint's)."""

    _VALUED = VALUED | {"-X", "-W"}  # and the options passed to the program's python

    def parse_args(self, ctx, args):
        args = list(args)
        i = 0
        while i < len(args):
            arg = args[i]
            if arg == "--" or arg == "-" or not arg.startswith("-"):
                if arg == "-":  # the script on stdin: the rest is its own
                    args[i:i] = ["--"]
                break  # the script: the rest is its own
            if arg == "-m" and i + 1 < len(args):
                args[i:] = ["-m", args[i + 1], "--", *args[i + 2 :]]
                break
            if arg.startswith("-m") and len(arg) > 2:  # -mMODULE
                args[i:] = ["-m", arg[2:], "--", *args[i + 1 :]]
                break
            i += 2 if arg in self._VALUED else 1
        return super().parse_args(ctx, args)


@main.command(cls=_RunCommand, context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("-m", "module", metavar="MODULE", help="Run a library module as a script, like python -m.")
@click.option("-X", "xoptions", multiple=True, metavar="OPT", help="Give the program's python -X OPT.")
@click.option("-W", "warnoptions", multiple=True, metavar="ARG", help="Give the program's python -W ARG.")
@selection_options
@click.argument("script", required=False)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(module, xoptions, warnoptions, script, args, select, extend_select, ignore, fmt, output, exit_zero,
        statistics, config_file, no_plugins):
    """Run SCRIPT (or -m MODULE, or - for stdin) under instrumentation and report its findings.

    The program runs as `python SCRIPT ARGS`, in a Python of its own; its output is untouched
    and the findings go to stderr (or --output FILE) once it has ended. graphlint exits with
    the program's status when it failed, else 1 if there are findings (0 with --exit-zero).
    """
    from graphlint.instrument import require_framework
    from graphlint.registry import discover_rules
    from graphlint.runner import LaunchError, Program, ProgramNotFound
    from graphlint.runner import run as run_program

    if module is None and script is None:
        _fail("give a SCRIPT to run, or -m MODULE")
    if module is None and script != "-" and script.startswith("-") and not os.path.exists(script):
        _fail(f"no such option: {script} (see `graphlint run --help`)")
    if module is not None and script is not None:
        args = (script, *args)
        script = None
    program = Program(script, module, tuple(args), tuple(xoptions), tuple(warnoptions))
    if output:
        output = os.path.abspath(output)
    warned: list[str] = []

    def warn(message: str) -> None:
        warned.append(message)
        click.echo(message, err=True)

    try:
        program.check()
        start = os.path.dirname(os.path.abspath(script)) if script and script != "-" else os.getcwd()
        config = _config(config_file, start, select, extend_select, ignore)
        rules = discover_rules(plugins=not no_plugins, warn=warn)
        config.validate(rules)
        require_framework()
        if output:
            check_writable(output)
        outcome = run_program(program, config, plugins=not no_plugins)
    except (ConfigError, ProgramNotFound, LaunchError) as exc:
        _fail(str(exc))
    for message in outcome.warnings:
        if message not in warned:
            click.echo(message, err=True)
    if not outcome.watched:
        _fail(f"graphlint could not watch the program ({outcome.error or 'no report: its Python did not start graphlint'})")
    if not output:
        fresh_line(sys.stderr)
    _emit(outcome.findings, fmt, output, rules, statistics, sys.stderr, program=outcome)
    _end_run(outcome, outcome.exit_code(exit_zero))


def _end_run(outcome, code: int) -> NoReturn:
    """graphlint's exit; as its own process, a program killed by a signal kills it by the same
    signal, once the report is out (so that a shell sees what it would have seen)."""
    signum = outcome.signal
    if _OWN_PROCESS and signum is not None:
        import signal

        for stream in (sys.stdout, sys.stderr):
            flush(stream)
        try:
            signal.signal(signum, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL, SIGSTOP: never handled
            pass
        os.kill(os.getpid(), signum)
    sys.exit(code)


#: Set by :func:`console`: graphlint is the whole process (not a test's CliRunner, not a caller).
_OWN_PROCESS = False


def _end(code: int) -> NoReturn:
    """The end of ``graphlint check``, and of every command that returns (``--version``,
    ``--help``, ``rules``, ``rule``, ``clean``). In its own process (:func:`console`) the
    output is flushed and the process ends without the interpreter's teardown, which would free
    every module, tree and model one by one: up to a second after a large tree checked in one
    process, a tenth of ``graphlint --version`` (mypy ends the same way). ``graphlint run``
    never ends so: the program it ran may hold open files and ``atexit`` handlers of its own."""
    if _OWN_PROCESS:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (AttributeError, OSError, ValueError):
            sys.exit(code)  # a stream closed or failing: said as at any exit
        os._exit(code)
    sys.exit(code)


def own_process() -> bool:
    return _OWN_PROCESS


def console() -> None:
    """The ``graphlint`` command and ``python -m graphlint``: :func:`main` as the process."""
    global _OWN_PROCESS
    _OWN_PROCESS = True
    main(prog_name="graphlint")


def _emit(findings, fmt, output, rules, statistics, stream, fixes=None, program=None) -> None:
    """Findings to ``--output`` FILE, else to ``stream``: stdout for ``check`` (as ruff, flake8
    and mypy do), stderr for ``run`` (the program owns stdout). ``program`` (``run``): how the
    program ended, a line of its own in text and a ``"program"`` field in JSON."""
    from graphlint.registry import describe
    from graphlint.report import TEXT_FORMATS, render

    shown = view()
    color = fmt in TEXT_FORMATS and use_color(stream, to_file=bool(output))
    text = render(fmt, findings, describe(rules), statistics=statistics, color=color, fixes=fixes, quiet=shown.quiet)
    if program is not None:
        text = program.annotate(text, fmt)
    flush(sys.stdout)
    if output:
        try:
            # a non-UTF-8 file name (surrogate-escaped) is written escaped, never a crash
            with open(output, "w", encoding="utf-8", errors="backslashreplace") as fh:
                fh.write(text)
        except OSError as exc:
            _fail(f"cannot write --output {output}: {exc.strerror}")
    elif text:
        write_report(text, stream)


@main.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--no-plugins", is_flag=True, help="Only graphlint's built-in rules.")
def rules_command(fmt, no_plugins):
    """List every rule: code, name, severity, engines, summary."""
    from graphlint.registry import describe, discover_rules
    from graphlint.report import rule_list

    try:
        rules = discover_rules(plugins=not no_plugins, warn=warn)
    except ConfigError as exc:
        _fail(str(exc))
    click.echo(rule_list(describe(rules).values(), fmt), nl=False)


@main.command("rule")
@click.argument("code")
def rule_command(code):
    """Print the documentation of rule CODE (or its name)."""
    from graphlint.registry import describe, discover_rules
    from graphlint.report import rule_doc

    try:
        rules = describe(discover_rules(warn=lambda m: click.echo(m, err=True)))
    except ConfigError as exc:
        _fail(str(exc))
    wanted = code.strip()
    rule = rules.get(wanted.upper()) or next((r for r in rules.values() if r.name == wanted.lower()), None)
    if rule is None:
        _fail(f"unknown rule {code!r} (see `graphlint rules`)")
    click.echo(rule_doc(rule), nl=False)


@main.command("clean")
@click.argument("paths", nargs=-1, type=click.Path(file_okay=False))
@click.option("--cache-dir", type=click.Path(file_okay=False), help="Clean this cache folder.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="The configuration that says where the cache is.")
def clean_command(paths, cache_dir, config_file):
    """Remove the cache of the projects of PATHS (default .): only the files graphlint wrote."""
    from graphlint.cache_dir import cache_folder, clean
    from graphlint.config_files import Resolver
    from graphlint.text import plural

    try:
        resolver = Resolver(config_file)
        folders = sorted({cache_folder(resolver.for_path(p), cache_dir) for p in (paths or (".",))})
    except ConfigError as exc:
        _fail(str(exc))
    for folder in folders:
        removed = clean(folder)
        warn(f"graphlint: removed {plural(removed, 'cache file')} from {folder}")


@main.command("server")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning", show_default=True, help="What the server logs to stderr (the editor's log of it).")
def server_command(log_level):
    """Run the language server (LSP over stdio): findings in the editor as you type (docs/editors.md)."""
    from graphlint.server import ServerUnavailable, serve

    try:
        status = serve(log_level)
    except ServerUnavailable as exc:
        _fail(str(exc))
    _end(status)


if __name__ == "__main__":  # pragma: no cover
    main()
