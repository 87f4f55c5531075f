"""The command line: the ``graphlint`` group, its errors and exit codes, and the report's way
out. The commands are in their modules (:data:`COMMANDS`): ``graphlint check``
(:mod:`graphlint.check_command`), ``graphlint run`` (:mod:`graphlint.cli_run`), ``graphlint
rules``, ``graphlint rule CODE``, ``graphlint clean`` and ``graphlint server``
(:mod:`graphlint.cli_commands`).

Shell completion is click's: ``eval "$(_GRAPHLINT_COMPLETE=bash_source graphlint)"`` (``zsh_source``,
``fish_source`` for those shells).
"""

from __future__ import annotations

import errno
import gc
import importlib
import os
import sys
from typing import NoReturn  # click imports typing already: no cost at start

import click

from graphlint import __version__
from graphlint.cli_options import command_line_layer, shared_options, use_color, view
from graphlint.config import Config, ConfigError, env_flag
from graphlint.output import flush, write_report

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


#: The subcommands, ``module:attribute`` each: a command's module is imported when it runs, or
#: when ``--help`` or shell completion lists the commands (click's lazily loaded subcommands),
#: so ``graphlint check`` makes no option of the other commands and ``--version`` none at all.
COMMANDS = {
    "check": "graphlint.check_command:check",
    "clean": "graphlint.cli_commands:clean_command",
    "rule": "graphlint.cli_commands:rule_command",
    "rules": "graphlint.cli_commands:rules_command",
    "run": "graphlint.cli_run:run",
    "server": "graphlint.cli_commands:server_command",
}


class _Main(click.Group):
    """The commands of :data:`COMMANDS`; click's usage errors as one line (``graphlint: error:
    ...``) and exit 2, like every other error graphlint reports."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        return getattr(importlib.import_module(module), attr)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and args[0] not in COMMANDS:  # a wrong name: click suggests names from the commands it holds
            for name in COMMANDS:
                self.add_command(self.get_command(ctx, name), name)  # type: ignore[arg-type]
        resolved = super().resolve_command(ctx, args)
        if _RESUME_COLLECTOR and resolved[0] != "check":
            gc.enable()  # paused for the imports (graphlint._start.console): on before the command runs
        return resolved

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
    elif isinstance(exc, FileNotFoundError) and exc.filename is None and not _cwd_exists():
        message = "the current folder no longer exists"  # (os.getcwd() names no file)
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


def _cwd_exists() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return False
    return True


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


#: Set by :func:`console`: graphlint is the whole process (not a test's CliRunner, not a caller).
_OWN_PROCESS = False
#: Set by :func:`console`: the garbage collector was on, and paused for the command line's imports.
_RESUME_COLLECTOR = False


def _end(code: int) -> NoReturn:
    """The end of ``graphlint check``, and of every command that returns (``--version``,
    ``--help``, ``rules``, ``rule``, ``clean``). In its own process (:func:`console`) the
    output is flushed and the process ends without the interpreter's teardown, which would free
    every module, tree and model one by one: up to a second after a large tree checked in one
    process, a tenth of ``graphlint --version`` (mypy ends the same way). ``graphlint run``
    ends so only under ``-v`` (:func:`graphlint.cli_run._quiet_exit`, once its ``atexit``
    handlers ran), where the teardown would list every module graphlint imported."""
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


def console(*, collector_paused: bool = False) -> None:
    """The ``graphlint`` command and ``python -m graphlint``: :func:`main` as the process
    (started by :func:`graphlint._start.console`, which pauses the garbage collector first and
    says so: ``collector_paused``; every command but ``check`` turns it back on).

    ``PYTHONINSPECT`` in the environment is the program's (``graphlint run``): graphlint's own
    Python, started with it too, would print its ``SystemExit`` as a traceback, exit 1 and
    then read a prompt; it ends with its exit status instead."""
    global _OWN_PROCESS, _RESUME_COLLECTOR
    _OWN_PROCESS = True
    _RESUME_COLLECTOR = collector_paused
    try:
        main(prog_name="graphlint")
    except SystemExit as exc:
        if not os.environ.get("PYTHONINSPECT"):
            raise
        code = exc.code
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (AttributeError, OSError, ValueError):
            pass
        os._exit(code or 0)


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


if __name__ == "__main__":  # pragma: no cover
    main()
