"""``python -m graphlint ...``: the same as the ``graphlint`` command."""

from graphlint.cli import console

if __name__ == "__main__":
    console()
