"""GL102's static form: ops built inside the loop that runs a session.

A *run loop* is a loop whose body runs a session. Every op built in it is built again at each
step: an op-building call (``tf.assign``), a method that builds ops on a variable
(``v.assign(x)``, ``optimizer.lr.assign(lr)``), a SavedModel export that makes a saver of its
own (``tf.saved_model.simple_save``, ``builder.add_meta_graph_and_variables(sess, tags)``
without ``saver=``), an operator on a tensor (``x = x + 1``), or a call of the user's
function — in this file or in a module of the checked tree — that builds ops. A function
that runs a session and builds ops, and runs per call (``agent.learn()`` called at every step),
is reported at those ops. A function with a run loop of its own is a whole run: a loop calling
it is a sweep, not a run loop.

Under a graph made outside the loop, only ops built alike at each pass (``Saver()``); ops
built from the pass's values there are a sweep over cases. Not reported: ops under the
iteration's own ``as_default()`` graph or a first-time guard
(``if op is None:``; not ``if proc_id() == 0:``, which picks a process), ``get_variable``
under ``reuse=True`` (no op), a variable assigned in the loop itself (a weight load, one op
per variable), and loops that the source says run fewer times than the runtime's
``min-repeats``.
"""

from __future__ import annotations

import ast

from graphlint.rules.op_in_run_loop.tensor_operators import tensor_operators
from graphlint.rules.op_in_run_loop.variable_loops import ASSIGN_METHODS, per_variable
from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model import project
from graphlint.static.model.api import builds_ops, is_minimize
from graphlint.static.model.rebuilds import rebuilds
from graphlint.static.model.repeats import bound_in, guard_bound, guarded, loop_count, memoized, per_call, times_run
from graphlint.static.model.sessions import has_run_loop, is_session_run, runs_session
from graphlint.static.model.variables import reusing

_DEPTH = 3  # how deep calls of the user's functions are followed


def builds_op(module, call, ifs=None) -> bool:
    """Whether this call adds an op to the default graph each time it runs (``ifs``: the
    ``if`` parts that repeat with it, when not all of those around it in its function: a
    guard outside the run loop does not make what the loop builds once, and a graph's
    ``as_default()`` outside it does not give each pass a graph of its own — the caller
    has looked at the ``with`` items that repeat)."""
    if ifs is None and call.under_graph_default():
        return False
    if guarded(call.ifs if ifs is None else ifs, module):
        return False
    if builds_ops(call.name):
        return not reusing(module, call) and call.api != "train.get_or_create_global_step"
    if call.name is None and call.method in ASSIGN_METHODS and call.receiver is not None:
        return bool(call.node.args)  # a variable takes the value positionally; pandas' df.assign(col=...) does not
    if call.name is None and call.method in _QUEUE_METHODS and call.receiver is not None:
        return _made_by(module, call, _QUEUES)
    if call.name is None and call.method in _BUILDER_METHODS and call.receiver is not None:
        return _makes_a_saver(call) and _made_by(module, call, _BUILDERS)
    return is_minimize(module, call)


#: Methods of a TF1 queue that add an op at every call, and the queue classes.
_QUEUE_METHODS = frozenset({"enqueue", "enqueue_many", "dequeue", "dequeue_many", "dequeue_up_to", "size", "close"})
_QUEUES = frozenset({"FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue"})
#: The methods of a ``SavedModelBuilder`` that make a new ``tf.train.Saver`` in the default
#: graph at each call unless given the user's ``saver=`` (``simple_save``, a builder and its
#: ``add_meta_graph_and_variables`` in one call, is a saver by its name: ``api.builds_ops``).
_BUILDER_METHODS = frozenset({"add_meta_graph_and_variables", "add_meta_graph"})
_BUILDERS = frozenset({"SavedModelBuilder", "Builder"})


def _makes_a_saver(call) -> bool:
    """Whether a builder's ``add_meta_graph(...)`` makes its own saver: no ``saver=`` is given
    (or ``saver=None``); with the user's saver it adds no op."""
    saver = next((k.value for k in call.node.keywords if k.arg == "saver"), None)
    if any(k.arg is None for k in call.node.keywords):
        return False  # ``**kwargs``: it may be there
    return saver is None or (isinstance(saver, ast.Constant) and saver.value is None)


def _made_by(module, call, classes: frozenset) -> bool:
    """Whether ``call``'s receiver is an object of one of TensorFlow's ``classes``
    (``tf.FIFOQueue(...)``, ``tf.saved_model.builder.SavedModelBuilder(path)``), by its origin."""
    receiver = call.receiver
    if isinstance(receiver, ast.Call):
        labels = {module.bindings.resolve(receiver.func) or "?"}
    else:
        labels = module.origins(receiver, call.scope)
    return bool(labels) and all(label.startswith("tensorflow") and label.rpartition(".")[2] in classes for label in labels)


def _summary(module, fn, depth=0, seen=None) -> tuple:
    """``(op calls, runs a session)`` of a user's function, following its calls of the user's
    functions ``_DEPTH`` deep. Op calls are ``(module, CallSite)`` pairs."""
    key = ("summary", id(fn))
    cached = module.cache.get(key)
    if cached is not None:
        return cached
    seen = seen or set()
    if id(fn) in seen or depth > _DEPTH:
        return (), False
    seen = seen | {id(fn)}
    ops, runs = [], False
    if not fn.resets_state() and not memoized(fn):
        for call in fn.calls:
            if is_session_run(module, call):
                runs = True
            elif builds_op(module, call):
                ops.append((module, call))
            elif not guarded(call.ifs, module) and not call.under_graph_default():
                found = project.resolve_function(module, call)
                if found is not None:
                    inner_ops, inner_runs = _summary(found[0], found[1], depth + 1, seen)
                    ops.extend(inner_ops[:3])
                    runs = runs or inner_runs
    result = (tuple(ops), runs)
    if depth == 0:
        module.cache[key] = result
    return result


def _runs(module, loop) -> bool:
    """Whether a loop runs a session at each step: directly, or through a thin wrapper of the
    user's (``def evaluate(sess): return sess.run(acc, ...)``) that builds nothing and has no
    loop of its own."""
    if loop.is_comprehension:
        return False  # one pass over a collection, not a run loop (its outer loop may be one)
    key = ("runs", id(loop.node))
    if key not in module.cache:
        module.cache[key] = any(is_session_run(module, call) for call in loop.calls) or any(
            _thin_runner(module, call) for call in loop.calls if call.name is None
        )
    return module.cache[key]


def _thin_runner(module, call) -> bool:
    found = project.resolve_function(module, call)
    if found is None:
        return False
    other, fn = found
    key = ("thin-runner", id(fn))
    if key not in other.cache:  # once per function, however many loops call it
        other.cache[key] = runs_session(other, fn) and id(fn) not in _loop_scopes(other) and not any(
            builds_op(other, c) or project.resolve_function(other, c) for c in fn.calls
        )
    return other.cache[key]


def _loop_scopes(module) -> set:
    """The functions with a loop of their own, once per module."""
    found = module.cache.get("loop-scopes")
    if found is None:
        found = module.cache["loop-scopes"] = {id(loop.scope) for loop in module.loops if loop.scope is not None}
    return found


def _repeats(module, call, options) -> bool:
    """Whether the loops around ``call`` can run it ``min-repeats`` times."""
    n = times_run(module, call)
    if n is None or n >= options.get("min-repeats", 3):
        return True
    return call.scope is not None and per_call(module, call.scope) is not None


def _passes_repeat(module, loop, ifs, options) -> bool:
    """:func:`_repeats` for what sits under ``ifs`` directly in ``loop``'s body (no call site
    of its own: an operator): the passes the ``if`` parts let through, times the loops around."""
    bound = guard_bound(module, loop, ifs)
    if bound is None:
        return True
    if loop.scope is not None and per_call(module, loop.scope) is not None:
        return True
    site = next((c for c in loop.calls if loop in c.loops), None)
    total = bound
    for outer in site.loops[: site.loops.index(loop)] if site is not None else ():
        n = loop_count(module, outer)
        if n is None:
            return True
        total *= n
    return total >= options.get("min-repeats", 3)


def _same_each_pass(module, loop, call) -> bool:
    """Whether ``call`` builds the same op at every pass of ``loop``: nothing it reads is
    assigned in the loop (``tf1.train.Saver()``, ``tf.add(x, y)``). Under a graph made
    outside the loop that is the sign of a run loop; ops built from the pass's values
    (``tf.constant(np.ones(size))`` for each ``size``) are a sweep over cases, each built and
    run once, as a loop in a test is."""
    bound = bound_in(module, loop)
    return not any(isinstance(n, ast.Name) and n.id in bound for n in ast.walk(call.node))


def _step_elsewhere(module, call):
    """A call, in a loop, of a function of another module that itself builds ops and runs a
    session (``agent.learn()``, ``model.train_step(batch)``) with no run loop of its own:
    ``(that module, the function, its first op call)`` or None."""
    found = project.resolve_function(module, call)
    if found is None or found[0] is module:
        return None
    other, fn = found
    if fn.resets_state() or memoized(fn) or not runs_session(other, fn):
        return None
    if has_run_loop(other, fn):
        return None
    direct = [c for c in fn.calls if all(loop.is_comprehension for loop in c.loops) and builds_op(other, c)]
    if not direct or any(c.api in ("placeholder", "get_variable", "Variable") for c in direct):
        return None  # a model built per call: a rebuild, not ops in a run loop
    return other, fn, direct[0]


class _Line:
    """What GL102 reports at one line: its first node, the ops built there, related places."""

    __slots__ = ("node", "why", "whats", "related")

    def __init__(self, node: ast.AST, why: str) -> None:
        self.node, self.why = node, why
        self.whats: list[str] = []
        self.related: list = []


def check(module, options) -> list[Hit]:
    return list(once_per_line(op_in_run_loop(module, options)))


def op_in_run_loop(module, options: dict) -> list[Hit]:
    """The ops built in run loops, one hit per line (see the module docstring)."""
    cached = module.cache.get("GL102")
    if cached is not None:
        return cached
    rebuilt = {id(r.function) for r in rebuilds(module)}
    by_line: dict[int, _Line] = {}
    done = set()
    every_step = "on every step of a loop that runs a session"
    elsewhere = project.reaches_elsewhere(module)  # (else no call leads to another module's step)

    def add(node, what, related=(), why=every_step):
        entry = by_line.setdefault(node.lineno, _Line(node, why))
        if what not in entry.whats:
            entry.whats.append(what)
        entry.related.extend(related)

    for loop in module.loops:
        if loop.is_comprehension:
            continue
        if not elsewhere and not _runs(module, loop):
            continue  # a loop that runs no session reports only another module's step: none is reached
        if project.loop_starts_fresh(module, loop):
            continue
        runs_here = _runs(module, loop)
        for call in loop.calls:  # how many times the loops run it is asked last: the dearest
            if id(call.node) in done:
                continue
            step = None if runs_here else _step_elsewhere(module, call)
            if not runs_here and step is None:
                continue  # a loop that runs no session reports only another module's step
            inner_ifs = loop.inner_ifs(call)
            if any(w.is_as_default for w in loop.inner_withs(call)) or guarded(inner_ifs, module):
                continue
            if step is not None:
                if _repeats(module, call, options):
                    done.add(id(call.node))
                    other, fn, first = step
                    add(call.node, f"`{fn.name}()`", [(other.location(first.node), "it builds ops here and runs them")])
                continue
            if builds_op(module, call, inner_ifs):
                if per_variable(module, loop, call) or not _repeats(module, call, options):
                    continue
                if call.under_graph_default() and not _same_each_pass(module, loop, call):
                    continue  # one graph made for a sweep: each pass builds another case's ops
                done.add(id(call.node))
                add(call.node, f"`{call.api or call.method}()`")
                continue
            found = project.resolve_function(module, call)
            if found is None or (found[0] is module and id(found[1]) in rebuilt) or has_run_loop(*found):
                continue
            ops, runs = _summary(*found)
            if ops and not (runs and found[0] is module and per_call(module, found[1]) is not None) and _repeats(
                module, call, options
            ):
                done.add(id(call.node))
                first_module, first = ops[0]
                where = first_module.location(first.node) if first_module is not module else first.node
                add(call.node, f"`{found[1].name}()`", [(where, "it builds ops here")])
        if runs_here:
            for node, ifs in tensor_operators(module, loop):
                if ifs and not _passes_repeat(module, loop, ifs, options):
                    continue
                add(node, "an operator on a tensor")
    # a function that runs a session, builds ops and runs per call: at its ops
    for fn in module.functions:
        if id(fn) in rebuilt or not runs_session(module, fn):
            continue
        if fn.resets_state() or memoized(fn) or has_run_loop(module, fn):
            continue
        # also in the function's own loops (none runs a session: has_run_loop): an op per
        # variable (``for a, b in zip(src, dst): ops.append(b.assign(a))``) is built again
        # at each call, whatever the loop
        direct = [c for c in fn.calls if builds_op(module, c)]
        why = per_call(module, fn) if direct else None
        if why is None:
            continue
        related = [(why.site.node, "called here")] if why.site else []
        for call in direct:
            if id(call.node) not in done:
                done.add(id(call.node))
                add(call.node, f"`{call.api or call.method}()`", related, f"each time {fn.display} runs: it {why.text}")
    hits = []
    for line in sorted(by_line):
        entry = by_line[line]
        verb = "adds ops" if len(entry.whats) == 1 else "add ops"
        message = f"{', '.join(entry.whats)} {verb} to the graph {entry.why}"
        hits.append(Hit(entry.node, message, tuple(entry.related[:3])))
    module.cache["GL102"] = hits
    return hits
