"""graphlint's built-in rules, one unit (a package) per rule.

``graphlint/rules/<name>/`` holds a rule whole: its class, docs and metadata in
``__init__.py``, its runtime form in ``runtime.py``, its static form in ``check.py`` and its
kernel form in ``kernel.py`` (each form when it has one; see :class:`Rule`). Its samples are
``samples/rules/<code>_bad*.py`` and ``<code>_good*.py``. The registry finds the units by
listing this folder (graphlint.registry); a third-party rule is an entry point of the
``graphlint`` group and is registered the same way.
"""

from graphlint.rules._base import Rule

__all__ = ["Rule"]
