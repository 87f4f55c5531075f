"""Event payloads: the plain data probes hand to rules through the hooks.

Both sides import this module, neither imports the other: a probe summarises what it saw
(:func:`summarize`), a rule reads the summary (:class:`Argument`, :func:`shape_text`). Nothing
here imports a framework or keeps a user's object.
"""

from __future__ import annotations

from typing import Any, NamedTuple

_REPR_MAX = 40
ITEMS_MAX = 4  # elements of a list/tuple/dict argument summarised
_PYTHON_VALUES = (bool, int, float, complex, str, bytes, type(None))


class Argument(NamedTuple):
    """One argument of a traced call, as plain data.

    ``kind`` is ``"tensor"`` (a tensor, variable, NumPy array or TensorSpec: ``shape`` and
    ``dtype`` set), ``"python"`` (a number, string, bool or None: ``value`` is its repr,
    truncated), ``"object"`` (any other Python object: ``identity`` is its ``id()`` at the
    call) or ``"structure"`` (a list, tuple or dict: ``value`` summarises its items). A
    dimension of ``shape`` is ``None`` when unknown, and its text when symbolic (JAX's shape
    polymorphism, ``jax.export``: ``"b"``).
    """

    name: str
    kind: str
    type: str
    shape: tuple[int | str | None, ...] | None = None
    dtype: str | None = None
    value: str | None = None
    identity: int | None = None

    @property
    def key(self) -> tuple:
        """What tf.function's trace cache tells apart (two equal keys: no retrace).

        A tensor is its shape and dtype: an EagerTensor and a graph tensor of the same shape
        are the same to the cache."""
        if self.kind == "tensor":
            return (self.kind, self.shape, self.dtype)
        return (self.kind, self.type, self.shape, self.dtype, self.value, self.identity)

    def describe(self) -> str:
        if self.kind == "tensor":
            return f"{self.dtype} {shape_text(self.shape)}"
        if self.kind == "python":
            return f"{self.type} {self.value}"
        if self.kind == "structure":
            return f"{self.type} {self.value}"
        return f"`{self.type}` object"


class Guard(NamedTuple):
    """A guard of torch.compile's dynamo that failed, so that a frame compiled again, as plain
    data: ``text`` is dynamo's (``self.step == 7``, ``tensor 'x' size mismatch at index 0.
    expected 8, actual 9``), ``source`` the expression it guards when the text names one
    (``self.step``, ``x``, ``G['scale']``), ``hint`` the advice dynamo appended to it, if any."""

    text: str
    source: str | None = None
    hint: str | None = None


def shape_text(shape: tuple[int | str | None, ...] | None) -> str:
    if shape is None:
        return "(unknown rank)"
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _short_repr(value: object) -> str:
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ is the program's business
        text = f"<{type(value).__name__}>"
    if len(text) <= _REPR_MAX:
        return text
    head = (_REPR_MAX - 1) // 2  # both ends: values that differ at the end still read apart
    return text[:head] + "…" + text[-(_REPR_MAX - 1 - head) :]


def _told_apart(value: object, text: str) -> int | None:
    """For a value shown shortened, a hash of the whole value: two values whose shortened
    texts are equal are still two values to tf.function's cache, and to the rule."""
    return hash(value) if "…" in text else None


def summarize(name: str, value: Any) -> Argument:
    """The plain-data summary of one argument value (never keeps ``value``)."""
    kind = type(value)
    if kind is float:
        text = repr(value)
        if len(text) > 8:  # 0.03333333333333333 -> 0.03333…
            short = f"{value:.4g}"
            text = short if float(short) == value else short + "…"
        return Argument(name, "python", "float", value=text, identity=_told_apart(value, text))
    if kind in _PYTHON_VALUES:
        text = _short_repr(value)
        return Argument(name, "python", kind.__name__, value=text, identity=_told_apart(value, text))
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None and not isinstance(value, type):
        try:
            dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
            dims = tuple(None if d is None else int(d) for d in dims)
        except (ValueError, TypeError):  # unknown rank
            dims = None
        dtype_name = getattr(dtype, "name", None) or str(dtype)
        return Argument(name, "tensor", kind.__name__, shape=dims, dtype=str(dtype_name))
    if kind in (list, tuple, dict):
        items = list(value.items()) if kind is dict else list(enumerate(value))
        parts = []
        for key, item in items[:ITEMS_MAX]:
            part = summarize("", item).describe()
            parts.append(f"{key!r}: {part}" if kind is dict else part)
        more = ", …" if len(items) > ITEMS_MAX else ""
        return Argument(name, "structure", kind.__name__, value=f"[{len(items)}: {', '.join(parts)}{more}]")
    return Argument(name, "object", kind.__name__, identity=id(value))
