"""graphlint in Jupyter: ``%load_ext graphlint`` (needs ``pip install 'graphlint[jupyter]'``).

See :mod:`graphlint.jupyter.extension`; ``graphlint check`` reads ``.ipynb`` files through
:mod:`graphlint.static.notebook`, which needs no Jupyter package.
"""

from graphlint.jupyter.extension import load_ipython_extension, unload_ipython_extension

__all__ = ["load_ipython_extension", "unload_ipython_extension"]
