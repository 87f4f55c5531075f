"""Where a method of a class of the file is looked for: one walk of the file's own base
classes (graphlint.static.model.project.lineage) with two stops. A call resolved across
modules (``_inherited_method``) stops at a base of elsewhere, which may define the method
first, and looks four levels up; a tf.function's method (``tf_functions._method``) passes
such a base over and looks all the way up."""

from __future__ import annotations

import ast

from graphlint.static.model.module import Module
from graphlint.static.model.project import _inherited_method
from graphlint.static.model.tf_functions import _method

SOURCE = """
import tensorflow as tf

class Base:
    def save(self):
        pass

class Mid(Base):
    pass

class Leaf(Mid):
    pass

class Keras(tf.keras.Model, Base):
    pass

class Plain(object, Base):
    pass

class C0:
    def save(self):
        pass

class C1(C0): pass
class C2(C1): pass
class C3(C2): pass
class C4(C3): pass
class C5(C4): pass

class Again(Base):
    pass

class Again(Again):
    pass
"""


def module() -> Module:
    return Module("m.py", SOURCE, ast.parse(SOURCE))


def names(classes) -> list[str]:
    return [c.node.name for c in classes]


def test_the_two_stops_of_one_walk():
    from graphlint.static.model.project import lineage

    m = module()
    walks = {
        name: (names(lineage(m, m.classes[name], elsewhere_stops=True, depth=4)), names(lineage(m, m.classes[name])))
        for name in ("Leaf", "Keras", "Plain", "C5", "Again")
    }
    assert walks == {
        "Leaf": (["Leaf", "Mid", "Base"], ["Leaf", "Mid", "Base"]),
        "Keras": (["Keras"], ["Keras", "Base"]),
        "Plain": (["Plain", "Base"], ["Plain", "Base"]),
        "C5": (["C5", "C4", "C3", "C2", "C1"], ["C5", "C4", "C3", "C2", "C1", "C0"]),
        "Again": (["Again"], ["Again"]),
    }


def test_each_lookup_finds_what_it_found_before_the_walk_was_one():
    m = module()
    found = {}
    for name in ("Leaf", "Keras", "Plain", "C5", "Again"):
        resolved = _inherited_method(m, m.classes[name], "save")
        method = _method(m, m.classes[name], "save")
        found[name] = (resolved[1].node.lineno if resolved else None, method.node.lineno if method else None)
    assert found == {"Leaf": (5, 5), "Keras": (None, 5), "Plain": (5, 5), "C5": (None, 21), "Again": (None, None)}


FRAMEWORK_CLASSES = """
import tensorflow as tf
import torch

class Net(tf.keras.Model):
    pass

class Deeper(Net):
    pass

class Torch(torch.nn.Module):
    pass

class Mixed(object, Torch):
    pass

class Plain:
    pass

class Plain(Plain):
    pass
"""


def test_which_classes_derive_from_a_framework_class_through_the_files_own():
    from graphlint.static.model.tf_functions import is_keras_class
    from graphlint.static.model.torch_compiled import is_nn_module

    m = Module("m.py", FRAMEWORK_CLASSES, ast.parse(FRAMEWORK_CLASSES))
    kinds = {name: (is_keras_class(m, cls), is_nn_module(m, cls)) for name, cls in m.classes.items()}
    assert kinds == {
        "Net": (True, False), "Deeper": (True, False), "Torch": (False, True), "Mixed": (False, True), "Plain": (False, False),
    }
    assert not is_keras_class(m, None) and not is_nn_module(m, None)
