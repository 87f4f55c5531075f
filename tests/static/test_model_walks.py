"""The model's builder walks the expressions of a run of simple statements in one go: the
calls, their places and the comprehensions' loops come out as one walk per statement gives."""

from __future__ import annotations

import ast
import textwrap

from harness import SAMPLES
from graphlint.static.model import build
from graphlint.static.model.module import Module

SOURCE = textwrap.dedent(
    """\
    import tensorflow as tf
    x = tf.constant([f(i) for i in range(3)])
    y, z = tf.Variable(x), g(h(x))
    print(x); k += tf.ones(2)
    if x:
        w: int = tf.zeros([q(j) for j in {r(x): s(x) for x in y}])
        return tf.add(w, [t(v) for v in w])
    for a in b(c()):
        d(a); e = {u(n) for n in a}
    """
)


def shape(module: Module) -> list:
    """What the builder recorded, in its order: each call with its place, each loop."""
    calls = [
        (ast.dump(c.node), c.name, c.parent is not None, [id(loop.node) for loop in c.loops], c.block)
        for c in module.calls
    ]
    loops = [(ast.dump(loop.node), len(loop.calls)) for loop in module.loops]
    return [calls, loops, [(key[-1], sorted(labels)) for key, labels in module.origin_items()]]


def test_a_run_of_simple_statements_is_walked_once(monkeypatch):
    walks = []
    real = build._Builder._exprs
    monkeypatch.setattr(build._Builder, "_exprs", lambda self, stack: (walks.append(len(stack)), real(self, stack)))
    Module("m.py", "import tensorflow as tf\nx = tf.constant(1)\ny = f(x)\nprint(y)\n", ast.parse(
        "import tensorflow as tf\nx = tf.constant(1)\ny = f(x)\nprint(y)\n"
    ))
    assert walks == [3]


def test_one_walk_per_run_records_what_one_walk_per_statement_does(monkeypatch):
    sources = [SOURCE] + [p.read_text() for p in sorted(SAMPLES.rglob("*.py"))]
    trees = [ast.parse(text) for text in sources]  # one tree each: the places name its nodes
    together = [shape(Module("m.py", text, tree)) for text, tree in zip(sources, trees)]
    monkeypatch.setattr(build._Builder, "_flush", lambda self, pending: [self._exprs(part) for part in pending])
    apart = [shape(Module("m.py", text, tree)) for text, tree in zip(sources, trees)]
    assert together == apart
    assert len(together[0][0]) == 18 and len(together[0][1]) == 6  # the source above: its calls, its loops


def test_a_call_site_keeps_its_common_fields_in_slots():
    """~40,000 sites on the corpus: the fields every one has are slots (no dict per site);
    the rare ones (an argument's parent call) and the stored properties still go in its dict."""
    text = "import tensorflow as tf\nx = tf.constant(tf.ones(2))\n"
    module = Module("m.py", text, ast.parse(text))
    outer, inner = module.calls
    assert (outer.name, outer.method, outer.parent) == ("tensorflow.constant", "constant", None)
    assert outer.__dict__ == {}
    assert inner.parent is outer.node and inner.__dict__ == {"parent": outer.node}
    assert outer.line == 2 and outer.__dict__ == {"line": 2}


def test_resolve_names_what_the_dotted_name_canonicalises_to():
    """:meth:`Bindings.resolve` reads the commonest callees (``f``, ``tf.f``) itself: the same
    names as canonicalising :meth:`Bindings.dotted`, for every expression of the samples."""
    from graphlint.static.model.names import canonical

    seen = 0
    for path in sorted(SAMPLES.rglob("*.py")):
        text = path.read_text()
        tree = ast.parse(text)
        bindings = Module("m.py", text, tree).bindings
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                dotted = bindings.dotted(node)
                assert bindings.resolve(node) == (None if dotted is None else canonical(dotted)), ast.dump(node)
                seen += dotted is not None
    assert seen > 500


def test_an_assigned_name_gets_the_origins_assign_origin_gives(monkeypatch):
    """The builder files ``x = ...`` (the commonest target) itself: the same origins, in the
    same order, as :meth:`_Builder._assign_origin` files for every target."""
    sources = [SOURCE, "import tensorflow as tf\nclass Net: pass\na = b = Net()\nc = tf.zeros(1)\nd = f().g()\n"]
    sources += [p.read_text() for p in sorted(SAMPLES.rglob("*.py"))]
    trees = [ast.parse(text) for text in sources]

    def origins(module: Module) -> list:
        return [(key[-1], sorted(labels)) for key, labels in module.origin_items()]

    inline = [origins(Module("m.py", text, tree)) for text, tree in zip(sources, trees)]
    real = build._Builder._simple

    def through_assign_origin(self, node, cls, ctx):
        if cls is not ast.Assign:
            return real(self, node, cls, ctx)
        for target in node.targets:
            self._assign_origin(target, node.value, ctx)
        stack = [] if type(node.value) in (ast.Name, ast.Constant) else [(node.value, ctx, None)]
        stack += [(t, ctx, None) for t in reversed(node.targets) if type(t) not in (ast.Name, ast.Constant)]
        return stack

    monkeypatch.setattr(build._Builder, "_simple", through_assign_origin)
    assert inline == [origins(Module("m.py", text, tree)) for text, tree in zip(sources, trees)]
    assert ("a", ["class:Net"]) in inline[1] and ("c", ["tensorflow.zeros"]) in inline[1]
