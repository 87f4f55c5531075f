"""The options ``graphlint run`` and ``graphlint check`` share, and how a report is shown.

Rule selection on the command line is one more layer over every configuration file (ruff's
order, :mod:`graphlint.config`). ``--output-format`` (also ``--format``) names the format;
``--quiet``/``-q``, ``--verbose`` and ``--color`` change how it is shown, not what is found:
they travel in the click context (:func:`view`), so a command's signature does not grow with
them.
"""

from __future__ import annotations

import os

import click

from graphlint.config import ConfigError, Layer, layer_of
from graphlint.report import FORMATS

#: The options of ``run`` that take a value (``graphlint.cli._RunCommand`` needs to know where
#: the script starts).
VALUED = frozenset({"--select", "--extend-select", "--ignore", "--extend-ignore", "--format", "--output-format",
                    "--output", "-o", "--config", "--color"})
_VIEW = "graphlint.view"


class View:
    """How findings are shown (nothing of what is found): these defaults, each replaced on the
    instance by its option (:func:`_store`). A plain class: a dataclass costs ~2M instructions
    to create, at every start."""

    quiet: bool = False
    color: str = "auto"
    extend_ignore: tuple[str, ...] = ()


def view() -> View:
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return View()
    return ctx.find_root().meta.setdefault(_VIEW, View())


def _store(attr):
    def callback(ctx, param, value):
        if value is not None and value != ():
            setattr(view(), attr, value)
        return value

    return callback


def _verbose(ctx, param, value):
    if value:
        from graphlint import cli

        cli.set_verbose(True)
    return value


def shared_options(func):
    """The options of ``run`` and ``check``."""
    options = [
        click.option("--select", multiple=True, metavar="CODES", help="Only these codes or prefixes (comma-separated; over the configuration's)."),
        click.option("--extend-select", multiple=True, metavar="CODES", help="Add codes to the selection."),
        click.option("--ignore", multiple=True, metavar="CODES", help="Leave out these codes or prefixes (wins over --select at equal specificity)."),
        click.option("--extend-ignore", multiple=True, metavar="CODES", expose_value=False, callback=_store("extend_ignore"),
                     help="Like --ignore (ruff's synonym)."),
        click.option("--output-format", "--format", "fmt", type=click.Choice(FORMATS), default="full", show_default=True,
                     help="full: findings with related sites and the fix; concise: one line each; text: full."),
        click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write findings to FILE instead of stdout (check) or stderr (run)."),
        click.option("--exit-zero", is_flag=True, help="Exit 0 whatever was found (run: a failed program's own status stays the exit code)."),
        click.option("--statistics", is_flag=True, help="Count findings per code (every format)."),
        click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Read settings from this TOML file, for every checked file."),
        click.option("--no-plugins", is_flag=True, help="Load only graphlint's built-in rules (also GRAPHLINT_DISABLE_PLUGINS=1)."),
        click.option("--quiet", "-q", is_flag=True, default=None, expose_value=False, callback=_store("quiet"),
                     help="Print the findings and errors, nothing else (no summary, no warnings)."),
        click.option("--color", type=click.Choice(["auto", "always", "never"]), default=None, expose_value=False,
                     callback=_store("color"), help="Colour text output (auto: on a terminal, unless NO_COLOR; FORCE_COLOR forces it)."),
        click.option("--verbose", is_flag=True, expose_value=False, callback=_verbose, help="Show graphlint's own traceback if it fails."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def split_codes(values) -> list[str]:
    codes = []
    for value in values:
        codes += [c.strip().upper() for c in value.split(",") if c.strip()]
    return codes


def command_line_layer(select=(), extend_select=(), ignore=()) -> Layer:
    """The command line's selection, the top layer (codes checked like a file's)."""
    section: dict = {}
    if select:
        section["select"] = split_codes(select)
    section["extend-select"] = split_codes(extend_select)
    section["ignore"] = split_codes(ignore) + split_codes(view().extend_ignore)
    return layer_of(section, " on the command line")


def use_color(stream, *, to_file: bool = False) -> bool:
    """``--color always``/``never`` decide; else (``auto``) never into a file, never with
    ``NO_COLOR`` set, always with ``FORCE_COLOR`` set (the conventions pytest follows too),
    else on a terminal that is not ``TERM=dumb``."""
    choice = view().color
    if choice != "auto":
        return choice == "always"
    if to_file or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


def warn(message: str) -> None:
    """A warning line on stderr, unless ``--quiet``."""
    if not view().quiet:
        click.echo(message, err=True)


__all__ = ["ConfigError", "VALUED", "View", "command_line_layer", "shared_options", "split_codes", "use_color", "view", "warn"]
