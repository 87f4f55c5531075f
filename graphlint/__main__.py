"""``python -m graphlint ...``: the same as the ``graphlint`` command."""

from graphlint.cli import main

if __name__ == "__main__":
    main(prog_name="graphlint")
