"""The folder ``graphlint run`` puts first on the program's ``PYTHONPATH``: its
``sitecustomize`` is graphlint's start-up hook in the program's own Python (see there)."""
