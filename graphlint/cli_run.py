"""``graphlint run``: a program under instrumentation, in a Python of its own
(:mod:`graphlint.runner`), its findings reported once it has ended."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

import click

from graphlint.cli import _config, _emit, _end, _fail, own_process, selection_options
from graphlint.cli_options import VALUED
from graphlint.config import ConfigError
from graphlint.output import check_writable, flush, fresh_line


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


@click.command(cls=_RunCommand, context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
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
    if own_process() and signum is not None:
        import signal

        for stream in (sys.stdout, sys.stderr):
            flush(stream)
        try:
            signal.signal(signum, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL, SIGSTOP: never handled
            pass
        os.kill(os.getpid(), signum)
    if own_process() and sys.flags.verbose:
        _quiet_exit(code)
    sys.exit(code)


def _quiet_exit(code: int) -> NoReturn:
    """The end of ``graphlint run`` under ``PYTHONVERBOSE`` (``-v``): without the interpreter's
    teardown, which lists every module graphlint imported (some 400 lines) on stderr, the
    program's, after the program's own (graphlint's ``atexit`` handlers run first)."""
    import atexit

    atexit._run_exitfuncs()
    _end(code)
