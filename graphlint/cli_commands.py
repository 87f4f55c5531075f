"""``graphlint rules``, ``graphlint rule CODE``, ``graphlint clean``, ``graphlint server``."""

from __future__ import annotations

import click

from graphlint.cli import _end, _fail
from graphlint.cli_options import warn
from graphlint.config import ConfigError


@click.command("rules")
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


@click.command("rule")
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


@click.command("clean")
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


@click.command("server")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="warning", show_default=True, help="What the server logs to stderr (the editor's log of it).")
def server_command(log_level):
    """Run the language server (LSP over stdio): findings in the editor as you type (docs/editors.md)."""
    from graphlint.server import ServerUnavailable, serve

    try:
        status = serve(log_level)
    except ServerUnavailable as exc:
        _fail(str(exc))
    _end(status)
