"""The selected rules' static forms run on one module model; their hits become findings.

A rule's static form is ``check(module, options) -> Iterable[Hit]`` (``Rule.static_form()``):
a plain function, no rule instance. Its hits are reported here as findings of the rule, with
its name, severity and fix. A check that raises is a GL000 finding on the file; the other
checks carry on. A plugin rule written for the interface before it (a ``check_module(self,
module)`` method that reports through ``self.report``) is made as the runtime makes a rule,
``cls(sink, options)``, and its ``check_module`` called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from graphlint.findings import Finding, FindingSink, Related
from graphlint.static.hits import Hit, located

if TYPE_CHECKING:
    from graphlint.config import Config
    from graphlint.static.hits import StaticRule
    from graphlint.static.model.module import Module


def run(module: Module, rules: Iterable[type[StaticRule]], config: Config, sink: FindingSink) -> None:
    """Run each rule's static form on ``module``, reporting into ``sink`` (``add`` and
    ``internal_error``, as :class:`graphlint.static.engine.FileSink`)."""
    for cls in rules:
        if not cls.may_report_on(module.text):
            continue  # (Rule.static_words: its form could find nothing here, and is not imported)
        try:
            form = cls.static_form()
            if form is not None:
                report(cls, module, form(module, {**cls.options, **config.options_for(cls)}), sink)
            elif callable(getattr(cls, "check_module", None)):
                getattr(cls(sink, config.options_for(cls)), "check_module")(module)  # a plugin's own
        except RecursionError:
            sink.internal_error(cls, RecursionError("too deeply nested"), "check_module")
        except KeyboardInterrupt:  # the user's, not the rule's
            raise
        except BaseException as exc:  # a failing rule must not stop the others, nor the run (SystemExit)
            sink.internal_error(cls, exc, "check_module")


def report(rule: type[StaticRule], module: Module, hits: Iterable[Hit], sink: FindingSink) -> None:
    """Each hit as a finding of ``rule`` in ``sink``."""
    for hit in hits:
        location, related = located(module, hit)
        sink.add(
            Finding(
                code=rule.code,
                name=rule.name,
                severity=rule.severity if hit.severity is None else hit.severity,
                message=hit.message,
                location=location,
                fix=rule.fix if hit.fix is None else hit.fix,
                related=tuple(Related(where, text) for where, text in related),
            )
        )
