"""``python -m graphlint ...``: the same as the ``graphlint`` command."""

from graphlint._start import console

if __name__ == "__main__":
    console()
