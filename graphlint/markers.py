"""``@pytest.mark.graphlint(...)``: a test's settings read from its markers, as a
:class:`graphlint.config.Config` narrowed from the session's. Plain functions of a test item:
the pytest plugin (:mod:`graphlint.plugin`) calls them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphlint.config import ConfigError
from graphlint.findings import Severity

if TYPE_CHECKING:
    import pytest

    from graphlint.config import Config
    from graphlint.rules import Rule

LEVELS = {"error": Severity.ERROR.rank, "warning": Severity.WARNING.rank, "never": 99}
MARKER_HELP = (
    "graphlint(select=None, ignore=None, fail_on=None, rules=None, **thresholds): "
    "graphlint settings for this test or module, e.g. ignore=['GL301'], fail_on='warning', "
    "max_combinations=20"
)


class MarkerError(Exception):
    """A ``@pytest.mark.graphlint(...)`` with arguments graphlint cannot use."""


def marker_config(item: pytest.Item, base: Config) -> tuple[Config, str | None]:
    """The test's configuration: ``base`` narrowed by its ``graphlint`` markers (closest wins),
    their ``select``/``ignore`` one more layer over the session's (as the command line's)."""
    from graphlint.config import from_mapping, layer_of

    settings: dict[str, Any] = {}
    for mark in reversed(list(item.iter_markers("graphlint"))):  # farthest first
        if mark.args:
            raise MarkerError(f"{item.nodeid}: @pytest.mark.graphlint takes keyword arguments only")
        settings.update(mark.kwargs)
    if not settings:
        return base, None
    fail_on = settings.pop("fail_on", None)
    if fail_on is not None and (not isinstance(fail_on, str) or fail_on not in LEVELS):
        raise MarkerError(f"{item.nodeid}: graphlint fail_on must be error, warning or never; got {fail_on!r}")
    mapping: dict[str, Any] = {}
    for key in ("select", "ignore"):
        if key in settings:
            mapping[key] = settings.pop(key)
    raw_rules = settings.pop("rules", None) or {}
    if not isinstance(raw_rules, dict):
        raise MarkerError(
            f"{item.nodeid}: graphlint rules must be a table like rules={{'GL302': {{'max-combinations': 20}}}}; got {raw_rules!r}"
        )
    for code, opts in raw_rules.items():
        if not isinstance(opts, dict):
            raise MarkerError(f"{item.nodeid}: graphlint rules.{code} must be a table of options; got {opts!r}")
    rules = {str(code): dict(opts) for code, opts in raw_rules.items()}
    for key, value in settings.items():
        option = key.replace("_", "-")
        owners = [cls for cls in rule_classes() if option in cls.options]
        if not owners:
            raise MarkerError(f"{item.nodeid}: unknown graphlint marker argument {key!r}")
        for cls in owners:
            rules.setdefault(cls.code, {})[option] = value
    if rules:
        mapping["rules"] = rules
    try:
        narrowed = from_mapping(mapping, source=f"the graphlint marker of {item.nodeid}")
    except ConfigError as exc:
        raise MarkerError(str(exc)) from None
    layer = layer_of(mapping, f" in the graphlint marker of {item.nodeid}")
    merged = base.with_layer(layer).replace(rule_options={**base.rule_options, **narrowed.rule_options})
    return merged, fail_on


def marker_problem(item: pytest.Item, base: Config) -> str | None:
    """What is wrong with the test's ``graphlint`` markers (unknown arguments, wrong types,
    values a rule cannot take), or None: checked at collection, with or without ``--graphlint``."""
    from graphlint.config import check_rule_options

    try:
        config, _ = marker_config(item, base)
        check_rule_options(config, {cls.code: cls for cls in rule_classes()})
        config.validate_codes({cls.code for cls in rule_classes()})
    except (MarkerError, ConfigError) as exc:
        message = str(exc)
        return message if message.startswith(item.nodeid) else f"{item.nodeid}: {message}"
    except (TypeError, ValueError, AttributeError) as exc:  # any other unusable argument
        return f"{item.nodeid}: bad @pytest.mark.graphlint arguments: {exc}"
    return None


_RULES_CACHE: list[type[Rule]] = []


def rule_classes() -> list[type[Rule]]:
    if not _RULES_CACHE:
        from graphlint.registry import discover_rules

        _RULES_CACHE.extend(discover_rules().values())
    return _RULES_CACHE
