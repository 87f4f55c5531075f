"""graphlint's built-in rules, one module per rule or small family.

Each is registered through the ``graphlint`` entry-point group, exactly like a third-party
rule (see ``pyproject.toml``).
"""

from graphlint.rules._base import Rule

__all__ = ["Rule"]
