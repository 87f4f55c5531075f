"""GL504's static form: Keras ``model.predict`` called again and again on one sample at a time.

The runtime counts ``predict`` calls per line whose input fits in one batch. Statically, a
``predict`` call (or one of Keras 2's ``predict_proba`` and ``predict_classes``, which call
``predict``; not ``predict_on_batch``, the way out) is reported only when the source shows all
three:

- the receiver is a Keras model: made by ``keras.Sequential``/``keras.Model``/``load_model``/
  ``clone_model``, a ``keras.applications`` constructor (``MobileNetV2(...)``), a class of the
  file that derives from a Keras model, or a builder of the file that makes one
  (``self.model = self._build_model()``);
- the input is one sample: ``x[None]``, ``x[np.newaxis, ...]``, ``np.expand_dims(x, 0)``,
  ``np.reshape(x, [1, ...])``, ``x.reshape(1, ...)``, ``np.array([x])``, ``np.zeros((1, ...))``
  filled in place, ``pad_sequences([seq])``, ``x[:1]``, and those cast, scaled by a number,
  preprocessed, sliced along another axis or joined along one, which keeps the rows
  (``.astype(...)``, ``np.float32(...)``, ``/ 255.0``, ``preprocess_input(...)``, a scaler's
  ``transform([state])``, ``x[:, :, 0:3]``, ``np.append(frame, stack[..., :3], axis=3)``, ``np.hstack([state, a])``),
  given a new axis after the rows or reshaped keeping them (``np.expand_dims(x, -1)``,
  ``x[..., np.newaxis]``, ``x.reshape(x.shape + (1,))``, ``x.reshape(x.shape[0], -1)``) or
  passed through a function of another module that returns its parameter so
  (``preprocess_input(face)`` of the user's ``utils``, casting and scaling its ``x``); a
  list of a model's inputs (``[token, h, c]``, ``[target] + states``) when one of them is;
- the call runs again and again: in a loop the source does not bound to ``max-calls`` runs
  (and that does not wait for ``input()``), or in a function that runs per call.

Both the model and the sample are followed through names (the nearest binding before the
read; a global's every binding, also in the functions that declare it ``global``, past a
``= None`` placeholder), unpackings, the returns of the file's functions (and, for the
sample, of another module's: ``encode(text)`` returning ``pad_sequences([encoded])``)
(``state = env.reset()``), the attributes of the file's objects (``self.agent.model``, a
global ``brain.model``), parameters (what every caller passes: a helper given the model) and the
elements of a replay memory (``for state, ... in random.sample(self.memory, n)``: what every
``self.memory.append((state, ...))`` stores there, when nothing else fills it).
A part of a stored step (``memory.append((state, action, reward, next_state, done))``: a tuple
of at least four parts) whose value the file does not show (``remember()`` called from nowhere
here, ``env.step()``'s result) is one sample too when only row 0 of the answer is used
(``predict(state)[0]``, or ``q = predict(state)`` then ``q[0]``). A ``self.target`` that is never
assigned but given a Keras model's weights (``self.target.set_weights(self.model.get_weights())``)
is a Keras model, and so is ``obj.model`` when ``obj`` is certainly an object of a class of
another module of the tree whose methods make ``self.model`` only as Keras models; a
``self.model`` that stays ``None`` in its class is what the file assigns it from outside
(``agent.model = Networks.dqn(...)``, a builder of another module); a setter no call of the
file names (``def update_model(self, model): self.model = model``) says nothing of it.
A parameter sample is judged by the callers that reach the call's branch (``if target:`` on a
flag the caller fixes): every one passes one sample and the function runs per call, or one of
them runs again and again itself (the agent's ``act(state)`` called per step) — so the batch
branch of a ``predict(rows, target=False)`` wrapper stays silent. ``model.predict(batch)`` per
batch, ``model(x)``, a scikit-learn ``predict`` and a call under a graph's ``as_default()``
(TF1 Keras, where ``model(x)`` would build ops: ``predict`` is the way there) stay silent.
A function that makes its one sample itself and that no caller of the file runs per step is
also judged by the callers in the other modules of the checked tree that import this one: one
that calls it, on an object certainly of its class, in a loop that runs more than ``max-calls``
times (``agent = Agent(...)``, then ``agent.choose_action(obs)`` per step of ``main.py``).
"""

from __future__ import annotations

import ast
import os

from graphlint.static.hits import Hit, once_per_line
from graphlint.static.model.api import is_keras_loader, is_keras_model, is_pretrained_model
from graphlint.static.model.models import builder, model_classes
from graphlint.static.model.names import keras_api
from graphlint.static.model.project import resolve_call, resolve_class, resolve_global, resolve_reference
from graphlint.static.model.scopes import ClassInfo, Function, passed_for
from graphlint.static.model.repeats import guarded, isolated, per_call, per_call_by_kind, runs_at_most
from graphlint.static.model.values import LEAVES, walk_scope

_LOADERS = frozenset({"keras.models.load_model", "keras.saving.load_model", "keras.models.clone_model"})
_EXPAND = frozenset({"numpy.expand_dims", "tensorflow.expand_dims"})
_RESHAPE = frozenset({"numpy.reshape", "tensorflow.reshape"})
_ARRAY = frozenset({"numpy.array", "numpy.asarray", "tensorflow.constant", "tensorflow.convert_to_tensor"})
_NEWAXIS = frozenset({"numpy.newaxis", "tensorflow.newaxis"})
#: ``predict`` and the Keras 2 ``Sequential`` methods that call it (``predict_proba``,
#: ``predict_classes``: gone in TF 2.6); ``predict_on_batch`` runs one batch without it.
_PREDICTS = frozenset({"predict", "predict_proba", "predict_classes"})


def check(module, options) -> list[Hit]:
    return list(once_per_line(predict_in_loop(module, options)))


def predict_in_loop(module, options: dict) -> list[Hit]:
    """The ``predict`` calls on one sample that run again and again (see the module docstring)."""
    found = []
    limit = options.get("max-calls", 5)
    for call in module.calls:
        if call.method not in _PREDICTS or call.receiver is None:
            continue
        if call.name is not None and resolve_global(module, call.receiver) is None:
            continue  # a library's function (a model imported from a module of the tree goes on)
        module.cache[_BUDGET] = [_STEPS]
        node = call.node
        arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "x"), None)
        if arg is None or _once(module, call) or call.under_graph_default():
            continue  # under a graph's as_default(): TF1 Keras, where model(x) would build ops
        if any(_waits_for_user(call, loop) for loop in call.loops):
            continue  # at the pace of a person
        if call.loops and not runs_at_most(module, call, limit):
            found_here = (_one_sample(module, arg, call.scope, call.line) or _one_transition(module, call, arg)) and (
                (call.loops[-1].node, "the loop"),
            )
            why = "in a loop"
        elif call.scope is not None:
            why, found_here = _repeated_on_one_sample(module, call, arg, limit)
        else:
            continue
        if found_here is False or why is None or not _keras_model(module, call):
            continue
        found.append(
            Hit(
                node,
                f"`{call.method}` on one sample {why}: every call sets up a data pipeline and callbacks for a "
                "single row (and may trace again), many times the cost of the model itself",
                found_here,
            )
        )
    return found


def _repeated_on_one_sample(module, call, arg, limit: int):
    """``(why, related)`` when ``call``, in a function, runs again and again on one sample;
    ``(None, False)`` else. The sample is the function's own, or a parameter: then every
    caller that reaches the call's branch passes one sample and the function runs per call
    (:func:`per_call`), or one such caller runs again and again itself — a loop around it, or
    a function of its own that runs per call (the agent's ``act(state)`` called per step)."""
    fn = call.scope
    params: set = set()
    if not _one_sample(module, arg, fn, call.line, params=params):
        return None, False
    reason = per_call(module, fn)
    if not params:
        if reason is None:
            return _called_across_modules(module, fn, limit)
        return f"each time {fn.display} runs: it {reason.text}", _called_here(reason.site) + reason.loop_sites()
    callers = [s for s in fn.callers if _reaches(module, fn, call.ifs, s)]
    passing = [s for s in callers if all(_passed_one_sample(module, fn, p, s) for p in params)]
    if reason is not None and reason.site is not None and callers and passing == callers:
        return f"each time {fn.display} runs: it {reason.text}", _called_here(reason.site) + reason.loop_sites()
    direct = [_repeats(module, site, limit) for site in passing]
    through = [_repeats_through(module, fn, params, site, limit, 0) for site in callers if site not in passing]
    found = [repeats for repeats in direct + through if repeats is not None]
    if found:
        # one reason in words; every caller that repeats it on one sample among the locations
        related = tuple(dict.fromkeys(loc for _, locs in found for loc in locs))
        return f"each time {fn.display} runs: it is called on one sample {found[0][0]}", related
    if reason is not None and passing and (reason.site is None or reason.site in passing):
        return f"each time {fn.display} runs: it {reason.text}", _called_here(reason.site) + reason.loop_sites()
    return _called_across_modules(module, fn, limit, params)


def _repeats_through(module, fn, params: set, site, limit: int, depth: int):
    """:func:`_repeats`'s ``(words, related)`` for a call ``site`` of ``fn`` that passes for
    ``params`` parameters of its own function (``sample_action(self, state)`` calling
    ``self.q.predict(state)``), when a caller of that function passes one sample for them and
    runs again and again (``self.sample_action(state.reshape(1, -1))`` per step), though
    another of its callers may not; else None."""
    outer = site.scope
    if outer is None or depth > 1:
        return None
    inner: set = set()
    for p in params:
        arg = _passed(fn, p, site)
        if arg is None or not _one_sample(module, arg, outer, site.line, params=inner):
            return None
    if not inner:
        return None
    for caller in outer.callers:
        if all(_passed_one_sample(module, outer, p, caller) for p in inner):
            repeats = _repeats(module, caller, limit)
        else:
            repeats = _repeats_through(module, outer, inner, caller, limit, depth + 1)
        if repeats is not None:
            text, related = repeats
            return f"from {outer.display} (line {site.line}), called on one sample {text}", ((site.node, "called here"),) + related
    return None


def _called_across_modules(module, fn, limit: int, params: set | frozenset = frozenset()):
    """``(why, related)`` when another module of the checked tree that imports this one
    (:meth:`~graphlint.static.model.project.Project.importers`) calls ``fn`` again and again:
    in a loop that runs more than ``limit`` times, on what certainly is ``fn`` (``Agent``
    imported from here, ``agent = Agent(...)``, then ``agent.choose_action(...)`` per step),
    passing one sample, as that module shows it, for each of ``params`` (``agent.act(state)``
    after ``state = env.preprocess(obs)``, whose ``reshape(1, -1)`` may lie in a third module);
    ``(None, False)`` else. The related locations lie in that module."""
    here = (os.path.abspath(module.path), fn.node.lineno, fn.node.name)
    for importer in module.project.importers(module):
        for site in importer.calls:
            if site.target is not None or site.local_class is not None:
                continue  # a function or class of the importer's own
            found = resolve_call(importer, site)
            if found is None:
                continue
            owner, target = found
            if not (isinstance(target, Function) and (os.path.abspath(owner.path), target.node.lineno, target.node.name) == here):
                continue  # a function of another module, or none certainly
            if _once(importer, site) or isolated(site, importer):
                continue
            if not site.loops:
                by_kind = per_call_by_kind(importer, site.scope) if site.scope is not None else None
                if by_kind is None or (params and not all(_passed_one_sample(importer, target, p, site) for p in params)):
                    continue
                name = os.path.basename(importer.path)
                return f"each time {fn.display} runs: {site.scope.display} of {name} calls it, and {by_kind.text}", (
                    (importer.location(site.node), "called here"),
                )
            loop = site.loops[-1]
            if runs_at_most(importer, site, limit) or _waits_for_user(site, loop):
                continue
            if params and not all(_passed_one_sample(importer, target, p, site) for p in params):
                continue
            name = os.path.basename(importer.path)
            related = ((importer.location(site.node), "called here"), (importer.location(loop.node), "the loop"))
            return f"each time {fn.display} runs: it is called in a loop of {name} (line {site.line})", related
    return None, False


def _once(module, site) -> bool:
    """Whether a first-time guard lets ``site`` run once (:func:`guarded`); ``if not flag:`` on
    a parameter its function never sets is a mode switch, no such guard, and so is ``if not
    done:`` on a target of a loop around ``site`` (each pass tests a new value)."""
    fn = site.scope
    ifs = [
        (node, branch) for node, branch in site.ifs
        if not (
            fn is not None and isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
            and isinstance(node.test.operand, ast.Name) and node.test.operand.id in fn.params
            and node.test.operand.id not in _binding_table(module, fn)
        ) and not _tests_loop_target(node, site)
    ]
    return guarded(ifs)


def _tests_loop_target(node, site) -> bool:
    """Whether ``node`` is ``if not x:``, inside a loop around ``site``, on a name the loop
    binds on each pass (its target, or ``state, ..., done = batch[i]`` in its body)."""
    test = node.test
    if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name)):
        return False
    name = test.operand.id
    for loop in site.loops:
        if not loop.node.lineno < node.lineno <= (loop.node.end_lineno or 0):
            continue
        target = loop.node.target if isinstance(loop.node, (ast.For, ast.AsyncFor)) else None
        if target is not None and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
            return True
        if any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and n.lineno < node.lineno
            for statement in loop.node.body for n in ast.walk(statement)
        ):
            return True
    return False


def _waits_for_user(site, loop) -> bool:
    """Whether each pass of ``loop`` that runs ``site`` also waits for the user (``input()``
    under no condition ``site`` is not under): the loop runs at the pace of a person."""
    branches = {(id(node), branch) for node, branch in loop.inner_ifs(site)}
    return any(
        isinstance(c.node, ast.Call) and isinstance(c.node.func, ast.Name) and c.node.func.id == "input"
        and c.name is None and {(id(node), branch) for node, branch in loop.inner_ifs(c)} <= branches
        for c in loop.calls
    )


def _called_here(site) -> tuple:
    """The related locations of a call site that makes a function run again and again: the
    call, and the loop it is in."""
    if site is None:
        return ()
    return ((site.node, "called here"),) + (((site.loops[-1].node, "the loop"),) if site.loops else ())


def _repeats(module, site, limit: int):
    """``(words, related)`` when the call ``site`` runs again and again: in a loop, or in a
    function that runs per call; else None."""
    if _once(module, site) or isolated(site, module):
        return None
    if site.loops and not runs_at_most(module, site, limit) and not _waits_for_user(site, site.loops[-1]):
        loop = site.loops[-1]
        return f"in a loop (line {site.line})", ((site.node, "called here"), (loop.node, "the loop"))
    if site.scope is not None:
        reason = per_call(module, site.scope)
        if reason is not None:
            related = ((site.node, "called here"),) + _called_here(reason.site) + reason.loop_sites()
            return f"from {site.scope.display} (line {site.line}), which {reason.text}", related
    return None


def _reaches(module, fn, ifs, site) -> bool:
    """Whether the call ``site`` of ``fn`` may reach the branches ``ifs`` of ``fn``: an ``if``
    on a flag parameter (``if target:``, ``if not target:``) whose value the caller fixes, by a
    constant or a default it leaves as it is, decides it; any other ``if`` may go either way."""
    for node, branch in ifs:
        test, negate = node.test, False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negate = test.operand, True
        if not (isinstance(test, ast.Name) and test.id in fn.params):
            continue
        truth = _truth_passed(module, fn, test.id, site, 0)
        if truth is not None and (truth != negate) != (branch == "body"):
            return False
    return True


def _truth_passed(module, fn, param: str, site, depth: int) -> bool | None:
    """Whether the value ``site`` passes for ``fn``'s flag ``param`` is true: a constant, the
    parameter's constant default, or a flag of the caller's own that its callers fix; None
    when unknown."""
    value = _passed(fn, param, site)
    if value is None:
        value = _default(fn, param)
    if isinstance(value, ast.Constant):
        return bool(value.value)
    caller = site.scope
    if not (isinstance(value, ast.Name) and caller is not None and depth < 4):
        return None
    binding = _binding_before(module, caller, value.id, site.line)
    if binding is None or binding[0] != "param":
        return None
    if not caller.callers:
        default = _default(caller, value.id)
        return bool(default.value) if isinstance(default, ast.Constant) else None
    truths = {_truth_passed(module, caller, value.id, s, depth + 1) for s in caller.callers}
    return truths.pop() if len(truths) == 1 else None


def _default(fn, param: str):
    """The default value of ``fn``'s parameter ``param``, or None."""
    args = fn.node.args
    positional = args.posonlyargs + args.args
    names = [a.arg for a in positional]
    if param in names:
        i = names.index(param) - (len(positional) - len(args.defaults))
        return args.defaults[i] if i >= 0 else None
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        if a.arg == param:
            return d
    return None


def _keras_model(module, call) -> bool:
    """Whether the receiver of ``.predict`` was made (only) as a Keras model in this file: by a
    Keras constructor or loader, a class of the file deriving from a Keras model, or — for
    ``self.model`` — a method or function of the file that builds one (``self.model =
    self._build_model()``); or, followed through names, parameters, the returns of the file's
    functions and the attributes of the file's objects (``self.agent.model``, a global
    ``brain.model``, a helper's ``model`` parameter), to such a call."""
    receiver = call.receiver
    if isinstance(receiver, ast.Call):
        labels = {module.bindings.resolve(receiver.func) or "?"}
    else:
        labels = module.origins(receiver, call.scope)
    if labels and all(_is_model_label(module, label) for label in labels):
        return True
    if call.cls is not None and isinstance(receiver, ast.Attribute) and _is_self(receiver.value):
        values = _attribute_values(module, call.cls, receiver.attr)
        if _all_models(module, [v for v in values if not _unused_setter(module, v)]):
            return True
        if not values and _copies_a_model(module, call.cls, receiver.attr):
            return True
    if _all_leaves(module, receiver, call.scope, call.line, 0, _model_leaf):
        return True
    if _imported_model(module, receiver, call.scope):
        return True
    return isinstance(receiver, ast.Attribute) and _model_of_foreign_object(module, receiver, call.scope, call.line)


def _imported_model(module, receiver, scope) -> bool:
    """Whether ``receiver`` is a Keras model another module of the tree makes at its top and
    this one imports (``from nets import model``, ``nets.model``, ``from nets import *``):
    every binding of that name there is one, judged in that module. A name this module binds
    itself is not the import's."""
    if isinstance(receiver, ast.Name):
        if receiver.id in _binding_table(module, None) or (scope is not None and (
            receiver.id in scope.params or receiver.id in _binding_table(module, scope)
        )):
            return False
    elif not (isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)):
        return False
    found = resolve_global(module, receiver)
    if found is None:
        return False
    other, name = found

    def question() -> bool:
        bindings = _global_bindings(other, name)
        return bool(bindings) and all(
            kind == "assign" and _all_leaves(other, value, owner, where, 1, _model_leaf)
            for owner, (where, kind, value) in bindings
        )

    return _asked_in(other, ("gl504-imported-model", name), False, question)  # once per name


def _model_of_foreign_object(module, receiver: ast.Attribute, scope, line: int) -> bool:
    """Whether ``obj.attr`` is a Keras model because ``obj`` is certainly an object of a class
    of another module of the checked tree (``actor = ActorNetwork(...)`` imported from it,
    ``self.actor = Actor(...)``) whose methods make ``self.attr`` only as Keras models."""
    owner = None
    for leaf in _leaves(module, receiver.value, scope, line, 1):
        site = _sites(module).get(id(leaf[0])) if leaf is not _UNKNOWN else None
        found = resolve_call(module, site) if site is not None else None
        if found is not None and isinstance(found[1], Function):
            found = _made_by_factory(module, site, found)
        if found is None or not isinstance(found[1], ClassInfo) or (owner is not None and found[1] is not owner[1]):
            return False
        owner = found
    if owner is None:
        return False
    other, cls = owner
    values = _self_assignments(other, cls).get(receiver.attr)
    if not values:
        return False
    return all(
        all(leaf is not _UNKNOWN and _model_leaf(other, leaf[0], leaf[1], leaf[2], leaf[3], None) for leaf in _leaves(other, value, method, where, 1, index))
        for value, index, method, where in values
    )


def _made_by_factory(module, site, found):
    """The class of the object a factory of another module returns, when every return of it
    is an object of the class it is given (``def load_model(model_class, folder): model =
    model_class(*params); ...; return model``): the class ``site`` passes for that parameter
    (``load_model(VariationalAutoencoder, RUN_FOLDER)``), as ``(module, ClassInfo)``; else None."""
    other, fn = found
    returns = _returns(other, fn)
    param = None
    for ret in returns:
        for leaf in _leaves(other, ret.value, fn, ret.lineno, 1):
            made = leaf[0] if leaf is not _UNKNOWN else None
            if not (isinstance(made, ast.Call) and isinstance(made.func, ast.Name) and made.func.id in fn.params):
                return None
            if param is not None and made.func.id != param:
                return None
            param = made.func.id
    if param is None:
        return None
    if _binding_table(other, fn).get(param):
        return None  # the parameter is rebound in the factory
    arg = _passed(fn, param, site)
    return resolve_class(module, arg) if arg is not None else None


def _copies_a_model(module, cls, attr: str) -> bool:
    """Whether ``self.attr``, never assigned in the class, is given the weights of a Keras
    model the class builds (``self.target_model.set_weights(self.model.get_weights())``): a
    copy of that model, made where the file does not show."""
    for site in module.calls:
        receiver, node = site.receiver, site.node
        if not (
            site.cls is cls and site.method == "set_weights" and isinstance(receiver, ast.Attribute)
            and _is_self(receiver.value) and receiver.attr == attr and len(node.args) == 1
        ):
            continue
        source = node.args[0]
        if not (
            isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr == "get_weights"
            and isinstance(source.func.value, ast.Attribute) and _is_self(source.func.value.value)
            and source.func.value.attr != attr
        ):
            continue
        if _all_models(module, _self_assignments(module, cls).get(source.func.value.attr)):
            return True
    return False


def _unused_setter(module, value) -> bool:
    """Whether an assignment (:func:`_self_assignments`) is ``self.attr = param`` of a method's
    own parameter, in a method whose name no call of the file spells (``def update_model(self,
    model): self.model = model``, never called): it says nothing of what the class builds there
    itself, and a caller elsewhere would hand over the same kind of object."""
    node, index, method, _ = value
    return (
        index is None and isinstance(node, ast.Name) and method is not None and node.id in method.params
        and method.name != "__init__" and not method.callers and method.name not in _called_methods(module)
    )


def _called_methods(module) -> frozenset:
    """The method names the file's calls spell (``x.update_model(...)``), found once per file."""
    found = module.cache.get("gl504-called-methods")
    if found is None:
        found = module.cache["gl504-called-methods"] = frozenset(site.method for site in module.calls)
    return found


def _all_models(module, values) -> bool:
    """Whether there are assignments ``values`` (:func:`_self_assignments`) and each makes a
    Keras model by itself (not a part of an unpacking)."""
    return bool(values) and all(index is None and _builds_model(module, value) for value, index, _, _ in values)


def _is_self(node) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _is_model_label(module, label: str) -> bool:
    return (
        is_keras_model(label) or is_pretrained_model(label) or label in _LOADERS or is_keras_loader(label)
        or (label.startswith("class:") and label[6:] in model_classes(module))
    )


def _model_leaf(module, expr, scope, line, depth, stop) -> bool:
    return isinstance(expr, ast.Call) and _builds_model(module, expr)


def _self_assignments(module, cls) -> dict:
    """``{attr: [(value, index, method, line), ...]}`` of every ``self.attr = value`` in the
    class's methods (``index``: the place of ``self.attr`` in an unpacking, ``self.a, self.b =
    f()``, else None), and those of the file's classes it derives from that it does not make itself."""
    key = ("self-assignments", id(cls))
    found = module.cache.get(key)
    if found is None:
        found = {}
        module.cache[key] = found
        for method in cls.methods.values():
            for node in _walk(method.node.body):
                if not isinstance(node, ast.Assign):
                    continue
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and _is_self(target.value):
                        found.setdefault(target.attr, []).append((node.value, None, method, node.lineno))
                    elif isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
                        for i, elt in enumerate(target.elts):
                            if isinstance(elt, ast.Attribute) and _is_self(elt.value):
                                found.setdefault(elt.attr, []).append((node.value, i, method, node.lineno))
        for base in cls.node.bases:
            parent = module.classes.get(base.id) if isinstance(base, ast.Name) else None
            if parent is not None and parent is not cls:
                for attr, values in _self_assignments(module, parent).items():
                    found.setdefault(attr, values)
    return found


def _builds_model(module, value) -> bool:
    """A call that makes a Keras model: a constructor or loader, or the user's builder (of
    this file, or of another module of the tree: ``Networks.dqn(...)`` from ``networks.py``)."""
    if not isinstance(value, ast.Call):
        return False
    name = module.bindings.resolve(value.func)
    site = _sites(module).get(id(value))
    if name is not None and _is_model_label(module, name):
        return True
    if isinstance(value.func, ast.Subscript):
        return _made_by_a_registry(module, value.func.value, site.scope if site is not None else None)
    if site is None:
        return False
    if site.local_class is not None:
        return site.local_class.name in model_classes(module)
    if site.target is not None:
        return builder(module, site.target, model_classes(module)) is not None
    found = resolve_call(module, site)
    if found is None:
        return False
    other, target = found
    if isinstance(target, ClassInfo):
        return target.name in model_classes(other)
    return builder(other, target, model_classes(other)) is not None or _returns_a_model_elsewhere(other, target)


def _made_by_a_registry(module, registry, scope) -> bool:
    """Whether ``registry[key](...)`` makes a Keras model: ``registry`` a dict of the user's
    builders that this module, or another module of the tree it imports (``from
    .models.all_models import model_from_name``, in the function or at the top), binds at its
    top and fills there only by a dict display and ``registry["fcn_8"] = fcn.fcn_8``
    statements, every builder of which makes one (judged in its module). A registry filled
    anywhere else (in a function, by ``.update()``) cannot be told."""
    if not isinstance(registry, ast.Name):
        return False
    if scope is not None and (registry.id in scope.params or registry.id in _binding_table(module, scope)):
        return False
    if registry.id in _binding_table(module, None):
        other, name = module, registry.id
    else:
        found = resolve_global(module, registry)
        if found is None:
            return False
        other, name = found

    def question() -> bool:
        values = _registry_values(other, name)
        if not values:
            return False
        for value in values:
            found = resolve_reference(other, value)
            if found is None:
                return False
            owner, target = found
            if isinstance(target, ClassInfo):
                if target.name not in model_classes(owner):
                    return False
            elif builder(owner, target, model_classes(owner)) is None and not _returns_a_model_elsewhere(owner, target):
                return False
        return True

    return _asked_in(other, ("gl504-registry", name), False, question)  # once per registry


_FILLS = frozenset({"update", "setdefault", "__setitem__", "fromkeys", "__ior__"})


def _registry_values(module, name: str) -> list | None:
    """The values a top-level dict ``name`` of ``module`` is given: its display's and those of
    the top's ``name[key] = value``; None when it is bound or filled any other way."""
    values: list = []
    top = set()
    for node in module.tree.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == name:
            if not isinstance(node.value, ast.Dict) or any(k is None for k in node.value.keys):
                return None
            values.extend(node.value.values)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name:
            values.append(node.value)
            top.add(id(target))
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
            if isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in top:
                return None
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            if node.attr in _FILLS:
                return None
        elif isinstance(node, ast.Global) and name in node.names:
            return None
    return values


def _returns_a_model_elsewhere(other, fn) -> bool:
    """Whether every return of ``fn``, a function of another module of the tree, is a Keras
    model, judged in that module through its names and calls (``model =
    get_segmentation_model(img_input, o); return model``, the helper making ``Model(...)``
    there or in a third module): a builder whose model its own helper makes. Once per function."""
    def question() -> bool:
        returns = _returns(other, fn)
        return bool(returns) and all(_all_leaves(other, ret.value, fn, ret.lineno, 1, _model_leaf) for ret in returns)

    return _asked_in(other, ("gl504-returns-a-model", id(fn)), False, question)


def _attribute_values(module, cls, attr: str) -> list:
    """``[(value, index, scope, line)]`` of every assignment to ``self.attr`` in ``cls``'s
    methods and to ``obj.attr`` on an object certainly of ``cls`` elsewhere in the file
    (``agent.model = Networks.dqn(...)`` after ``agent = Agent(...)``), but the ``None`` that
    stands for "not made yet"."""
    key = ("attribute-values", id(cls), attr)
    found = module.cache.get(key)
    if found is None:
        found = [v for v in _self_assignments(module, cls).get(attr, ()) if not _is_none(v[0])]
        for scope, node in _outside_assignments(module, attr):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == attr and not _is_self(target.value):
                    if _class_of(module, target.value, scope, node.lineno, 1) is cls and not _is_none(node.value):
                        found.append((node.value, None, scope, node.lineno))
        module.cache[key] = found
    return found


def _outside_assignments(module, attr: str) -> list:
    """``[(scope, ast.Assign)]`` of the assignments ``obj.attr = value`` (``obj`` not ``self``)
    at the top level of the file and in its functions."""
    key = ("outside-assignments", attr)
    found = module.cache.get(key)
    if found is None:
        found = []
        for scope in [None, *module.functions]:
            body = scope.node.body if scope is not None else module.tree.body
            for node in _walk(body):
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Attribute) and t.attr == attr and not _is_self(t.value) for t in node.targets
                ):
                    found.append((scope, node))
        module.cache[key] = found
    return found


def _is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _sites(module) -> dict:
    found = module.cache.get("sites-by-node")
    if found is None:
        found = module.cache["sites-by-node"] = {id(c.node): c for c in module.calls}
    return found


# -- what a value may be ----------------------------------------------------------------------
#: How many steps (a name to its binding, a parameter to its callers, a call to its returns...)
#: a value is followed.
_DEPTH = 12
#: And how many steps one ``predict`` call's questions take at most (each caller of each
#: function is one): past it, what a value is cannot be told.
_STEPS = 2000
_BUDGET = "gl504-steps"


def _asked_in(other, key, while_asked, question):
    """``question()``, a question about another module (``other``'s model), answered once per
    ``key`` in that module's cache (``while_asked`` while it is being answered: what a cycle of
    modules gets, and what stays if it raises) with a step budget of its own; the module's own
    question goes on with its budget afterwards, whatever happened here."""
    if key in other.cache:
        return other.cache[key]
    other.cache[key] = while_asked
    budget = other.cache.get(_BUDGET)
    other.cache[_BUDGET] = [_STEPS]
    try:
        answer = question()
    finally:
        if budget is None:
            other.cache.pop(_BUDGET, None)
        else:
            other.cache[_BUDGET] = budget
    other.cache[key] = answer
    return answer
_UNKNOWN = None


def _all_leaves(module, expr, scope, line: int, depth: int, test, stop=None) -> bool:
    """Whether every expression ``expr`` may come from (:func:`_leaves`) is known and passes
    ``test(module, expr, scope, line, depth, stop)``."""
    for leaf in _leaves(module, expr, scope, line, depth, None, stop):
        if leaf is _UNKNOWN or not test(module, *leaf, stop):
            return False
    return True


def _leaves(module, expr, scope, line: int, depth: int, index=None, stop=None):
    """What ``expr`` may be: :func:`_follow`, remembered (without ``stop``) per expression,
    scope, line and index, so that a value reached on many paths is followed once."""
    if stop is not None:
        return _follow(module, expr, scope, line, depth, index, stop)
    key = ("gl504-leaves", id(expr), id(scope), line, index)
    found = module.cache.get(key)
    if found is None:
        found = module.cache[key] = list(_follow(module, expr, scope, line, depth, index, None))
    return found


def _follow(module, expr, scope, line: int, depth: int, index=None, stop=None):
    """What ``expr`` (read at ``line`` in ``scope``) may be: ``(expr, scope, line, depth)`` of
    each expression it comes from, following a name to its nearest binding before ``line`` (a
    global to its every binding), a parameter to what every caller passes, a call of the
    file's own function to its returns, ``self.x`` and ``obj.x`` on an object of a class of
    the file to that class's assignments, and ``index`` into an unpacking (``a, b = f()``);
    ``_UNKNOWN`` for a part that cannot be told. ``stop``, ``(function, names)``: a parameter
    of that function is not followed but added to ``names`` (its callers are judged apart)."""
    budget = module.cache.get(_BUDGET)
    if budget is not None:
        budget[0] -= 1
    if depth > _DEPTH or (budget is not None and budget[0] < 0):
        yield _UNKNOWN
    elif index is not None and isinstance(expr, (ast.Tuple, ast.List)):
        if index < len(expr.elts) and not any(isinstance(e, ast.Starred) for e in expr.elts):
            yield from _leaves(module, expr.elts[index], scope, line, depth + 1, None, stop)
        else:
            yield _UNKNOWN
    elif isinstance(expr, ast.Name):
        yield from _name_leaves(module, expr.id, scope, line, depth, index, stop)
    elif isinstance(expr, ast.Attribute):
        owner = _class_of(module, expr.value, scope, line, depth)
        values = _attribute_values(module, owner, expr.attr) if owner is not None else None
        if not values or (index is not None and any(i is not None for _, i, _, _ in values)):
            yield _UNKNOWN
            return
        for value, i, method, where in values:
            yield from _leaves(module, value, method, where, depth + 1, index if i is None else i)
    elif isinstance(expr, ast.Call):
        site = _sites(module).get(id(expr))
        fn = site.target if site is not None else None
        if fn is None:
            if index is None or _unpacks_a_model_elsewhere(module, expr, index):
                yield (expr, scope, line, depth)  # (the call itself: a model, by its builder)
            else:
                yield _UNKNOWN
            return
        returns = _returns(module, fn)
        if not returns:
            yield _UNKNOWN
        for ret in returns:
            yield from _leaves(module, ret.value, fn, ret.lineno, depth + 1, index, stop)
    elif isinstance(expr, ast.Subscript) and (stored := _stored_item(module, expr, scope, line, depth, index)) is not None:
        yield from stored
    else:
        yield (expr, scope, line, depth) if index is None else _UNKNOWN


def _name_leaves(module, name: str, scope, line: int, depth: int, index, stop):
    binding = _binding_before(module, scope, name, line)
    if binding is None:
        if scope is None or name in _binding_table(module, scope):
            yield _UNKNOWN  # bound only later in the function (a loop's carry) or not at all
            return
        found = _global_bindings(module, name)  # a global read in a function
        if not found:
            yield _UNKNOWN
        for owner, (where, kind, value) in found:
            if kind == "assign":
                yield from _leaves(module, value, owner, where, depth + 1, index)
            elif kind == "unpack" and index is None:
                yield from _leaves(module, value[0], owner, where, depth + 1, value[1])
            else:
                yield _UNKNOWN
        return
    kind, where, value = binding
    if kind == "assign":
        yield from _leaves(module, value, scope, where, depth + 1, index, stop)
    elif kind == "unpack" and index is None:
        yield from _leaves(module, value[0], scope, where, depth + 1, value[1], stop)
    elif kind == "other" and (stored := _loop_item(module, scope, name, where, depth, index)) is not None:
        yield from stored
    elif kind == "param" and stop is not None and scope is stop[0]:
        stop[1].add(name)
    elif kind == "param" and scope is not None and not scope.callers and scope.name == "__init__" and scope.cls is not None:
        # ``self.actor = actor`` in ``__init__``: what every construction of the class passes
        made = [site for site in module.calls if site.local_class is scope.cls]
        if not made:
            yield _UNKNOWN
        for site in made:
            arg = _passed(scope, name, site)
            if arg is None:
                yield _UNKNOWN
            else:
                yield from _leaves(module, arg, site.scope, site.line, depth + 1, index)
    elif kind == "param" and scope is not None and scope.callers:
        for site in scope.callers:
            arg = _passed(scope, name, site)
            if arg is None:
                yield _UNKNOWN
            else:
                yield from _leaves(module, arg, site.scope, site.line, depth + 1, index)
    else:
        yield _UNKNOWN


# -- what a replay memory holds --------------------------------------------------------------
# ``for state, action, reward, next_state, done in random.sample(self.memory, n):`` (or
# ``... = self.memory[i]``): a part of an element of a list or deque kept in ``self.attr`` or a
# global is what every ``.append((state, ...))`` into it stores at that place, followed like any
# value (``remember(state, ...)``'s callers). Any other way in (``extend``, ``memory[i] = x``,
# another list assigned, the memory given to a function or another name) makes it unknown.

#: Calls that pick elements of a memory (their first argument) without changing them.
_PICKS = frozenset({"random.sample", "random.choices", "list", "tuple", "sorted", "reversed"})
#: Calls a memory may be given without anything stored into it.
_READS = _PICKS | {"len", "random.shuffle", "enumerate", "print"}
#: Methods of a memory that store nothing into it.
_TAKES = frozenset({"pop", "popleft", "clear", "count", "index", "copy"})


def _stored_item(module, expr, scope, line: int, depth: int, index):
    """The leaves of ``memory[i]``'s part ``index`` (or of ``memory[i][k]``), or None when
    ``expr`` is not an element of a memory."""
    if index is None and _is_int_index(expr.slice) and isinstance(expr.value, ast.Subscript):
        expr, index = expr.value, expr.slice.value
    if index is None or isinstance(expr.slice, ast.Slice):
        return None
    memory = _memory(module, expr.value, scope, line, depth)
    return None if memory is None else _stored_leaves(module, memory, index, depth)


def _loop_item(module, scope, name: str, where: int, depth: int, index):
    """The leaves of ``name`` bound by ``for ... in memory`` at line ``where`` (the whole
    element with ``index``, a part of it as ``for s, a, r, s2, done in memory``), or None."""
    body = scope.node.body if scope is not None else module.tree.body
    for node in _walk(body):
        if not (isinstance(node, (ast.For, ast.AsyncFor)) and node.lineno == where):
            continue
        target, position = node.target, index
        if isinstance(target, ast.Tuple) and index is None:
            names = [e.id if isinstance(e, ast.Name) else None for e in target.elts]
            position = names.index(name) if name in names and not any(isinstance(e, ast.Starred) for e in target.elts) else None
        elif not (isinstance(target, ast.Name) and target.id == name):
            position = None
        memory = _memory(module, node.iter, scope, where, depth) if position is not None else None
        return None if memory is None else _stored_leaves(module, memory, position, depth)
    return None


def _memory(module, expr, scope, line: int, depth: int):
    """``("self", attr)`` or ``("global", name)``: the memory whose elements ``expr`` holds
    (the memory itself, a slice of it, ``random.sample(memory, n)``...), followed through
    names; or None."""
    for _ in range(_DEPTH):
        if isinstance(expr, ast.Attribute) and _is_self(expr.value) and scope is not None and scope.cls is not None:
            return ("self", expr.attr)
        if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Slice):
            expr = expr.value
        elif isinstance(expr, ast.Call) and _called(module, expr) in _PICKS and expr.args:
            expr = expr.args[0]
        elif isinstance(expr, ast.Name):
            binding = _binding_before(module, scope, expr.id, line)
            if binding is not None and binding[0] == "assign":
                line, expr = binding[1], binding[2]
            elif binding is None and (scope is None or expr.id not in _binding_table(module, scope)) and expr.id in _binding_table(module, None):
                return ("global", expr.id)
            else:
                return None
        else:
            return None
    return None


class _Transition:
    """A leaf for a part of one environment step stored in a replay memory
    (``memory.append((state, action, reward, next_state, done))``) whose value cannot be told
    (``remember(state, ...)`` called from nowhere the file shows): no test but
    :func:`_one_transition` accepts it."""


_TRANSITION = _Transition()
#: The fewest parts of a stored tuple read as one environment step (state, action, reward, next).
_STEP_PARTS = 4


def _stored_leaves(module, memory, position: int, depth: int) -> list:
    """The leaves of the part ``position`` of what every ``.append(...)`` into ``memory``
    stores; ``[_UNKNOWN]`` when nothing is appended or it is filled another way too. A part of
    a stored step (a tuple of at least four parts) that cannot be told is a :class:`_Transition`."""
    stores = _stores(module, memory)
    if not stores:
        return [_UNKNOWN]
    found = []
    for value, scope, line in stores:
        step = isinstance(value, ast.Tuple) and len(value.elts) >= _STEP_PARTS and not any(
            isinstance(e, ast.Starred) for e in value.elts
        ) and isinstance(value.elts[position] if position < len(value.elts) else None, ast.Name)
        for leaf in _leaves(module, value, scope, line, depth + 1, position):
            found.append((_TRANSITION, scope, line, depth) if leaf is _UNKNOWN and step else leaf)
    return found


def _one_transition(module, call, arg) -> bool:
    """Whether ``predict(arg)`` reads a part of one stored environment step (a
    :class:`_Transition`, or a part visibly one row) and uses one row of what it gives
    (``predict(state)[0]``, or ``q = predict(state)`` then ``q[0]``): a DQN's replay loop
    scoring each sampled step on its own, whoever stores the steps."""
    def leaf(module, expr, scope, line, depth, stop) -> bool:
        return expr is _TRANSITION or _one_sample_leaf(module, expr, scope, line, depth, stop)

    leaves = _leaves(module, arg, call.scope, call.line, 0)
    if not any(found is not _UNKNOWN and found[0] is _TRANSITION for found in leaves):
        return False
    return _all_leaves(module, arg, call.scope, call.line, 0, leaf) and _uses_one_row(module, call)


def _uses_one_row(module, call) -> bool:
    """Whether the result of ``call`` is read at row 0: ``call(...)[0]``, or the name it is
    assigned to read as ``name[0]`` / ``name[0, k]`` later in the same scope."""
    node = call.node
    body = call.scope.node.body if call.scope is not None else module.tree.body
    names = set()
    for inner in _walk(body):
        if isinstance(inner, ast.Subscript) and inner.value is node and _row_zero(inner.slice):
            return True
        if isinstance(inner, ast.Assign) and inner.value is node and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name):
            names.add(inner.targets[0].id)
    return bool(names) and any(
        isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and inner.value.id in names
        and inner.lineno >= call.line and _row_zero(inner.slice)
        for inner in _walk(body)
    )


def _row_zero(index) -> bool:
    first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
    return _is_int(first, 0)


def _stores(module, memory) -> list | None:
    """``[(value, scope, line)]`` of the ``.append(value)`` calls into ``memory``, or None
    when it may be filled another way (see above)."""
    key = ("gl504-stores", memory)
    if key in module.cache:
        return module.cache[key]
    kind, attr = memory

    def is_memory(node) -> bool:
        if kind == "self":
            return isinstance(node, ast.Attribute) and _is_self(node.value) and node.attr == attr
        return isinstance(node, ast.Name) and node.id == attr

    stores: list = []
    other = False  # filled another way
    for site in module.calls:
        if is_memory(site.receiver):
            if site.method in ("append", "appendleft") and len(site.node.args) == 1 and not site.node.keywords:
                stores.append((site.node.args[0], site.scope, site.line))
            else:
                other = other or site.method not in _TAKES
        elif isinstance(site.node, ast.Call) and any(is_memory(a) for a in [*site.node.args, *(k.value for k in site.node.keywords)]):
            other = other or _called(module, site.node) not in _READS
    for node in ast.walk(module.tree) if not other else ():
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.Return)) and is_memory(node.value):
            other = True  # another name for it (``buffer = self.memory``), or given away
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            parts = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
            other = other or (
                any(is_memory(p) or (isinstance(p, ast.Subscript) and is_memory(p.value)) for p in parts)
                and not (isinstance(node, ast.Assign) and is_memory(target) and _empty(module, node.value))
            )
    found = None if other else stores
    module.cache[key] = found
    return found


def _called(module, node: ast.Call) -> str | None:
    """The API name ``node`` calls, or the builtin's (``len``, ``list``) when the file binds
    that name nowhere."""
    name = module.bindings.resolve(node.func)
    if name is None and isinstance(node.func, ast.Name) and node.func.id not in _binding_table(module, None):
        if node.func.id not in module.module_functions and node.func.id not in module.classes:
            return node.func.id if node.func.id in _BUILTINS else None
    return name


_BUILTINS = frozenset({"len", "list", "tuple", "sorted", "reversed", "enumerate", "print"})


def _empty(module, value) -> bool:
    """``[]``, ``list()``, ``deque(maxlen=n)``: a new empty container."""
    if isinstance(value, ast.List):
        return not value.elts
    if isinstance(value, ast.Call) and module.bindings.resolve(value.func) in ("list", "collections.deque"):
        return not value.args or (isinstance(value.args[0], ast.List) and not value.args[0].elts)
    return False


def _is_int_index(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _class_of(module, expr, scope, line: int, depth: int):
    """The class of the file ``expr`` is an object of (``self`` in a method; a name or
    attribute made by ``Cls(...)``), or None."""
    if _is_self(expr) and scope is not None and scope.cls is not None and "self" in scope.params:
        return scope.cls
    found = None
    for leaf in _leaves(module, expr, scope, line, depth + 1):
        site = _sites(module).get(id(leaf[0])) if leaf is not _UNKNOWN else None
        cls = site.local_class if site is not None else None
        if cls is None or (found is not None and cls is not found):
            return None
        found = cls
    return found


def _walk(body):
    """The nodes of a block in its own scope (not in the functions or classes it defines)."""
    return walk_scope([node for node in body if not isinstance(node, _DEFS)], LEAVES)


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _returns(module, fn) -> list:
    """The ``return value`` statements of ``fn`` (none when it also returns nothing or yields:
    then what it gives cannot be told)."""
    key = ("returns", id(fn))
    found = module.cache.get(key)
    if found is None:
        found = []
        for node in _walk(fn.node.body):
            if isinstance(node, ast.Return):
                if node.value is None:
                    found = []
                    break
                found.append(node)
            elif isinstance(node, (ast.Yield, ast.YieldFrom)):
                found = []
                break
        module.cache[key] = found
    return found


def _one_sample(module, expr, scope, line: int, depth: int = 0, params: set | None = None) -> bool:
    """Whether ``expr`` (read at ``line``) is visibly a batch of one sample (see the module
    docstring), followed through :func:`_leaves`. With ``params``, the parameters of ``scope``
    it comes from are added there instead of judged by the callers."""
    return _all_leaves(module, expr, scope, line, depth, _one_sample_leaf, (scope, params) if params is not None else None)


def _one_sample_leaf(module, expr, scope, line: int, depth: int, stop) -> bool:
    def again(inner) -> bool:
        return _all_leaves(module, inner, scope, line, depth + 1, _one_sample_leaf, stop)

    if isinstance(expr, ast.Subscript):
        index = expr.slice
        first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
        if isinstance(first, ast.Slice) and first.lower is None and first.step is None:
            if first.upper is None:
                return isinstance(index, ast.Tuple) and again(expr.value)  # x[:, :, 0:3]: the same rows
            return _is_int(first.upper, 1)  # x[:1]: the first row
        if _is_ellipsis(first) and isinstance(index, ast.Tuple):
            # x[..., np.newaxis], x[..., 0:3]: new or sliced trailing axes, the same rows (an
            # integer index could take the rows' axis itself of a one-axis array)
            rest = index.elts[1:]
            return all(isinstance(e, ast.Slice) or _is_newaxis(module, e) for e in rest) and again(expr.value)
        return _is_newaxis(module, first)
    if isinstance(expr, ast.List):
        if len(expr.elts) == 1:
            return not isinstance(expr.elts[0], ast.Starred)
        # the inputs of a model with several (``[tokens, h, c]``) share one batch size
        return any(not isinstance(e, ast.Starred) and again(e) for e in expr.elts)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) and (
        isinstance(expr.left, ast.List) or isinstance(expr.right, ast.List)
    ):  # ``[target_seq] + states``: a list of inputs
        return any(
            not isinstance(e, ast.Starred) and again(e)
            for side in (expr.left, expr.right) if isinstance(side, ast.List) for e in side.elts
        )
    if isinstance(expr, ast.Call):
        name = module.bindings.resolve(expr.func)
        args, keywords = expr.args, {k.arg: k.value for k in expr.keywords if k.arg}
        if name in _EXPAND:
            # a new axis in front is the one row; one anywhere else keeps the rows of what it
            # is given (np.expand_dims(np.expand_dims(face, 0), -1): still one face)
            axis = args[1] if len(args) > 1 else keywords.get("axis")
            return _is_int(axis, 0) or (bool(args) and not _several(args[0]) and again(args[0]))
        if name in _RESHAPE:
            shape = args[1] if len(args) > 1 else keywords.get("newshape", keywords.get("shape"))
            return _leads_with_one(shape) or (
                bool(args) and not _several(args[0]) and _keeps_rows(shape, args[0]) and again(args[0])
            )
        if name in _FILLED:  # np.zeros((1, maxlen, n)), filled in place
            return _leads_with_one(args[0] if args else keywords.get("shape"))
        if name in _JOIN:  # np.append(frame, stack[..., :3], axis=3): joined along a feature axis
            appends = name == "numpy.append"
            at = 2 if appends else 1
            if not _feature_axis(args[at] if len(args) > at else keywords.get("axis")):
                return False
            parts = args[:2] if appends else (args[0].elts if args and isinstance(args[0], (ast.List, ast.Tuple)) else [])
            return any(not isinstance(part, ast.Starred) and again(part) for part in parts)
        if name in _STACK_COLUMNS:  # np.hstack([state, action.reshape(1, -1)]): its parts' rows
            parts = args[0].elts if args and isinstance(args[0], (ast.List, ast.Tuple)) else []
            return any(not isinstance(part, ast.Starred) and again(part) for part in parts)
        if name in _ARRAY:
            if args and isinstance(args[0], ast.List):  # np.array([x]): one row whatever x is
                return len(args[0].elts) == 1 and not isinstance(args[0].elts[0], ast.Starred)
            return bool(args) and again(args[0])
        if _pads(name):  # pad_sequences([encoded], maxlen=...)
            return bool(args) and isinstance(args[0], ast.List) and len(args[0].elts) == 1
        if name is None and isinstance(expr.func, ast.Attribute) and expr.func.attr == "reshape" and args:
            shape = args[0] if len(args) == 1 else ast.Tuple(elts=list(args), ctx=ast.Load())
            if _leads_with_one(shape):
                return True
            return _keeps_rows(shape, expr.func.value) and again(expr.func.value)
        if name is None and isinstance(expr.func, ast.Attribute) and expr.func.attr == "astype":
            return again(expr.func.value)  # a cast keeps the shape
        if name is None and isinstance(expr.func, ast.Attribute) and expr.func.attr == "transform" and len(args) == 1:
            return again(args[0])  # a scikit-learn scaler's transform([state]) keeps the rows
        if (name in _CASTS or _keeps_shape(name)) and args:
            return again(args[0])
        elsewhere = _returns_one_sample_elsewhere(module, expr)
        if elsewhere is None:
            return False
        fn, params = elsewhere  # one sample by itself, or when what is passed for params is
        return all((arg := passed_for(fn, p, expr)) is not None and again(arg) for p in sorted(params))
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _SCALAR_OPS):
        # ``np.expand_dims(frame, 0) / 255.0``, ``(row - mean) * scale``: a number keeps the shape
        if _is_number(expr.right):
            return again(expr.left)
        if _is_number(expr.left):
            return again(expr.right)
    return False


def _function_elsewhere(module, call: ast.Call):
    """``(other module, function)`` when ``call``, a plain call of a name, reaches a function of
    another module of the tree; else None."""
    site = _sites(module).get(id(call))
    if site is None or site.target is not None or site.local_class is not None:
        return None
    found = resolve_call(module, site)
    return found if found is not None and isinstance(found[1], Function) else None


def _unpacks_a_model_elsewhere(module, call: ast.Call, index: int) -> bool:
    """Whether part ``index`` of what ``call`` returns is a Keras model, ``call`` reaching a
    function of another module of the tree every return of which is a tuple whose part
    ``index`` is one, judged in that module (``model, att_model = create_network(...)``
    imported from ``models/rnn.py``, which ``return model, att_model`` after ``model =
    Model(...)``). A part that may also be None (``Model(...) if use_attention else None``)
    counts: ``.predict`` can only run on the model."""
    found = _function_elsewhere(module, call)
    if found is None:
        return False
    other, fn = found

    def question() -> bool:
        parts = []
        for ret in _returns(other, fn):
            value = ret.value
            if not isinstance(value, (ast.Tuple, ast.List)) or index >= len(value.elts):
                return False
            if any(isinstance(e, ast.Starred) for e in value.elts):
                return False
            parts.append((value.elts[index], ret.lineno))
        leaves = [leaf for part, where in parts for leaf in _every_binding(other, fn, part, where)]
        while any(leaf is not _UNKNOWN and isinstance(leaf[0], ast.IfExp) for leaf in leaves):
            leaves = [
                inner
                for leaf in leaves
                for inner in (
                    [x for branch in (leaf[0].body, leaf[0].orelse) for x in _leaves(other, branch, *leaf[1:])]
                    if leaf is not _UNKNOWN and isinstance(leaf[0], ast.IfExp) else [leaf]
                )
            ]
        real = [leaf for leaf in leaves if leaf is _UNKNOWN or not _is_none(leaf[0])]
        return bool(real) and all(leaf is not _UNKNOWN and _model_leaf(other, leaf[0], leaf[1], leaf[2], leaf[3], None) for leaf in real)

    return _asked_in(other, ("gl504-unpacks-a-model", id(fn), index), False, question)  # once per function and part


def _every_binding(module, fn, part, where: int) -> list:
    """The leaves of a returned ``part``: for a name the function binds, those of every one of
    its bindings there, whatever the path (``att_model = Model(...)`` under an ``if``,
    ``att_model = None`` in its ``else``), a value that must pass for each; else
    :func:`_leaves` of the part."""
    bindings = _binding_table(module, fn).get(part.id, ()) if isinstance(part, ast.Name) else ()
    if not bindings:
        return list(_leaves(module, part, fn, where, 1))
    out: list = [_UNKNOWN] if part.id in fn.params else []  # (what a caller passes: not told here)
    for line, kind, value in bindings:
        if kind == "assign":
            out += _leaves(module, value, fn, line, 1)
        elif kind == "unpack":
            out += _leaves(module, value[0], fn, line, 1, value[1])
        else:
            out.append(_UNKNOWN)
    return out


def _returns_one_sample_elsewhere(module, call: ast.Call):
    """``(function, parameters)`` when ``call`` reaches a function of another module of the
    tree every return of which is one sample, judged in that module: by itself (``encode(text)``
    imported from ``utils`` returning ``pad_sequences([encoded], maxlen=n)``: no parameters), or
    when what is passed for those parameters is (``preprocess_input(face)`` returning
    ``x.astype('float32') / 255.0`` of its ``x``: the call keeps the rows it is given); else None."""
    found = _function_elsewhere(module, call)
    if found is None:
        return None
    other, fn = found

    def question():
        returns = _returns(other, fn)
        params: set = set()
        if returns and all(_one_sample(other, r.value, fn, r.lineno, params=params) for r in returns):
            return (fn, frozenset(params))
        return None

    return _asked_in(other, ("gl504-returns-one-sample", id(fn)), None, question)  # once per function


def _passed(fn, param: str, site):
    """What the call ``site`` of ``fn`` passes for ``param``, or None."""
    return passed_for(fn, param, site.node) if isinstance(site.node, ast.Call) else None


def _passed_one_sample(module, fn, param: str, site) -> bool:
    """Whether the call ``site`` of ``fn`` passes one sample for ``param``."""
    arg = _passed(fn, param, site)
    return arg is not None and _one_sample(module, arg, site.scope, site.line)


def _binding_table(module, scope) -> dict:
    """``{name: [(line, kind, value)]}`` of the bindings in ``scope`` (the module's top level
    for None): ``("assign", value)`` for a plain ``name = value``, ``("unpack", (value, i))``
    for ``a, name = value``, ``("other", None)`` for any other binding (a loop target, ``+=``...)."""
    key = ("bindings-by-line", id(scope))
    table = module.cache.get(key)
    if table is None:
        table = {}
        module.cache[key] = table
        body = scope.node.body if scope is not None else module.tree.body
        for node in _walk(body):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                table.setdefault(node.targets[0].id, []).append((node.lineno, "assign", node.value))
            elif (
                isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List))
                and not any(isinstance(e, ast.Starred) for e in node.targets[0].elts)
            ):
                for i, elt in enumerate(node.targets[0].elts):
                    for n in ast.walk(elt):
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                            entry = (node.lineno, "unpack", (node.value, i)) if n is elt else (node.lineno, "other", None)
                            table.setdefault(n.id, []).append(entry)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and isinstance(node.op, _SCALAR_OPS):
                # ``image /= 255.0``: the value before, with the number applied (read as ``image / 255.0``)
                value = ast.BinOp(left=ast.Name(id=node.target.id, ctx=ast.Load()), op=node.op, right=node.value)
                table.setdefault(node.target.id, []).append((node.lineno, "assign", value))
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.withitem, ast.NamedExpr)):
                targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None) or getattr(node, "optional_vars", None)]
                where = getattr(node, "lineno", None) or getattr(getattr(node, "target", None), "lineno", 0)
                for target in targets:
                    for n in ast.walk(target) if target is not None else ():
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):  # not ``x[0] = v``
                            table.setdefault(n.id, []).append((where, "other", None))
    return table


def _global_bindings(module, name: str) -> list:
    """``[(scope, binding)]`` of the global ``name``: the top level's bindings and those of the
    functions that declare it ``global`` (``def load_model(): global model; model = ResNet50()``),
    but a ``name = None`` that only says "not made yet" when something else is assigned."""
    key = ("global-bindings", name)
    found = module.cache.get(key)
    if found is None:
        found = [(None, b) for b in _binding_table(module, None).get(name, ())]
        for fn in module.functions:
            if any(isinstance(n, ast.Global) and name in n.names for n in _walk(fn.node.body)):
                found.extend((fn, b) for b in _binding_table(module, fn).get(name, ()))
        real = [(scope, b) for scope, b in found if not (b[1] == "assign" and _is_none(b[2]))]
        found = module.cache[key] = real if real else found
    return found


def _binding_before(module, scope, name: str, line: int):
    """The binding of ``name`` in ``scope`` nearest before ``line``, ``(kind, line, value)``
    (:func:`_binding_table`), or ``("param", 0, name)`` for a parameter bound by no statement
    before it; None when the scope binds it nowhere before."""
    before = [b for b in _binding_table(module, scope).get(name, ()) if b[0] < line]
    if before:
        where, kind, value = max(before, key=lambda b: b[0])
        return kind, where, value
    if scope is not None and name in scope.params:
        return "param", 0, name
    return None


#: Calls that join arrays: along an axis other than the first, the rows stay as they were.
_JOIN = frozenset({"numpy.append", "numpy.concatenate"})
#: Calls that join arrays side by side: a result has the rows of each part.
_STACK_COLUMNS = frozenset({"numpy.hstack", "numpy.column_stack"})
#: Calls that make an array of the shape they are given, to be filled in place.
_FILLED = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full"})


def _pads(name: str | None) -> bool:
    return keras_api(name) in ("preprocessing.sequence.pad_sequences", "utils.pad_sequences")


def _keeps_shape(name: str | None) -> bool:
    """``preprocess_input(x)`` of ``keras.applications``, ``tf.cast(x, ...)``: the shape of ``x``."""
    k = keras_api(name)
    return name == "tensorflow.cast" or (k is not None and k.startswith("applications.") and k.endswith(".preprocess_input"))


#: Casts that keep an array's shape.
_CASTS = frozenset({"numpy.float32", "numpy.float64", "numpy.float16", "numpy.int32", "numpy.uint8"})
_SCALAR_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv)


def _is_number(node) -> bool:
    """A number: a constant, or ``float(...)`` / ``int(...)`` of something (``x / float(n_vocab)``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int") and len(node.args) == 1:
        return True
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_newaxis(module, node) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    return module.bindings.resolve(node) in _NEWAXIS


def _is_int_constant(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _feature_axis(axis) -> bool:
    """An axis given as a number other than 0 (``axis=3``, ``axis=-1``): not the rows'."""
    if isinstance(axis, ast.UnaryOp) and isinstance(axis.op, ast.USub):
        return _is_int_constant(axis.operand)
    return _is_int_constant(axis) and axis.value != 0


def _is_int(node, value: int) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == value


def _keeps_rows(shape, array) -> bool:
    """Whether a new ``shape`` for ``array`` keeps its first axis: it begins with
    ``array.shape[0]``, ``len(array)`` or ``*array.shape``, or is ``array.shape + (...)``."""
    if isinstance(shape, ast.BinOp) and isinstance(shape.op, ast.Add):
        return _is_shape_of(shape.left, array)
    if not isinstance(shape, (ast.Tuple, ast.List)) or not shape.elts:
        return False
    first = shape.elts[0]
    if isinstance(first, ast.Starred):
        return _is_shape_of(first.value, array)
    if isinstance(first, ast.Subscript) and _is_int(first.slice, 0):
        return _is_shape_of(first.value, array)
    return (
        isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "len"
        and len(first.args) == 1 and _same(first.args[0], array)
    )


def _is_shape_of(node, array) -> bool:
    """``array.shape`` (or ``np.shape(array)``) of the very expression ``array``."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return _same(node.value, array)
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "shape"
        and len(node.args) == 1 and _same(node.args[0], array)
    )


def _same(a, b) -> bool:
    """The same name or attribute chain (``frame``, ``self.state``)."""
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return a.id == b.id
    if isinstance(a, ast.Attribute) and isinstance(b, ast.Attribute):
        return a.attr == b.attr and _same(a.value, b.value)
    return False


def _several(node) -> bool:
    """A list or tuple of more than one part: an array of that many rows (not a model's inputs)."""
    return isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) != 1


def _is_ellipsis(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _leads_with_one(shape) -> bool:
    return isinstance(shape, (ast.Tuple, ast.List)) and bool(shape.elts) and _is_int(shape.elts[0], 1)
