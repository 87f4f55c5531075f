"""The static model of a checked file: what every static check reads, and nothing else.

- :mod:`~graphlint.static.model.names`: canonical API names, resolved through imports and
  aliases (``tf1.Session`` is ``tensorflow.compat.v1.Session``); :mod:`.api`: what a canonical
  name does (builds ops, a model, a session).
- :mod:`.scopes`: the parts of a module (calls, loops, ``with`` items, functions, classes) and
  the scope a name is bound in.

The static checks (``graphlint/rules/<rule>/check.py``) import the model and nothing of each
other; an analysis two checks share lives here.
"""
