"""The pieces a learner writes in lessons 2 to 6, and how each is checked when a later lesson loads it.

Each piece is checked with the checker of the lesson that wrote it, imported only when a piece is
checked, so this module stays below the lessons' checkers.
"""

import math

from . import gpt_pieces

__all__ = ["Piece", "PIECES", "BY_KEY", "COMPANIONS", "no_prev"]

# Where classes written after others' code keep a node's inputs when not in _prev (microgpt's _children first).
_OTHER_INPUT_NAMES = ("_children", "children", "inputs", "_inputs", "prev", "_parents", "parents", "_operands")


def no_prev(node):
    """What to say about a MyValue node without _prev, the name lesson 2 asks for and the given code reads."""
    kept = next((name for name in _OTHER_INPUT_NAMES if hasattr(node, name)), None)
    where = (f"; yours keeps them in {kept}" + (", microgpt's name for them" if kept == "_children" else "")
             if kept else "")
    return (f"your MyValue has no _prev: lesson 2 asks for it, the tuple of the Values a node is made from{where}. "
            "The lessons' code reads _prev, the lecture's name: self._prev = tuple(_children)")


class Piece:
    """One section a lesson writes: its key, the names it defines, and how it is checked."""

    def __init__(self, lesson, name, defines, check):
        self.lesson, self.name, self.defines, self.check = lesson, name, defines, check

    @property
    def key(self):
        return f"lesson {self.lesson}: {self.name}"


def _checker(module, name):
    """The undecorated checker lesson<module>.<name>: returns (status, message[, figure])."""

    def run(*args):
        import importlib

        checker = getattr(importlib.import_module(f"micrograd.course.lessons.lesson{module:02d}"), name)
        return checker.__wrapped__(*args)

    return run


def _check_value_2(ns):
    return _checker(2, "my_value")(ns["MyValue"])


def _check_value_3(ns):
    return _checker(3, "my_backward_step")(ns["MyValue"])


def _check_order(ns):
    return _checker(4, "my_topological_order")(ns["my_topological_order"])


def _check_backward(ns):
    return _checker(4, "my_backward")(ns["my_backward"])


def _check_operations(ns):
    """Lesson 4's operations are given code: check they give the package's numbers on MyValue."""
    from micrograd.engine import Value

    cls = ns["MyValue"]
    x, px = cls(3.0), Value(3.0)
    cases = {
        "2 * x": (lambda v: 2 * v), "x * 2": (lambda v: v * 2), "x + 1": (lambda v: v + 1),
        "1 + x": (lambda v: 1 + v), "x - 1": (lambda v: v - 1), "1 - x": (lambda v: 1 - v),
        "-x": (lambda v: -v), "x ** 2": (lambda v: v**2), "x / 2": (lambda v: v / 2),
        "2 / x": (lambda v: 2 / v), "x.exp()": (lambda v: v.exp()), "sum([x, x])": (lambda v: sum([v, v])),
    }
    for text, op in cases.items():
        got, want = op(x), op(px).data
        if not isinstance(got, cls) or not math.isclose(got.data, want, rel_tol=1e-12, abs_tol=1e-12):
            shown = got.data if isinstance(got, cls) else got
            return ("failed", f"with x = MyValue(3.0), {text} gives {shown!r}, expected {want!r}")
    y = x * x + 2 * x
    y.backward()
    if not math.isclose(x.grad, 8.0):
        return ("failed", f"y = x * x + 2 * x at x = 3: y.backward() gives x.grad = {x.grad!r}, expected 8.0")
    return ("passed", "every operation gives the package's number, and y.backward() runs my_backward")


def _check_network(ns):
    return _checker(5, "my_mlp")(ns["MyNeuron"], ns["MyLayer"], ns["MyMLP"])


def _check_train(ns):
    return _checker(6, "my_training_loop")(ns["my_train"])


PIECES = [
    Piece(2, "MyValue", ("MyValue",), _check_value_2),
    Piece(3, "MyValue", ("MyValue",), _check_value_3),
    Piece(4, "my_topological_order", ("my_topological_order",), _check_order),
    Piece(4, "my_backward", ("my_backward",), _check_backward),
    Piece(4, "more operations", ("MyValue",), _check_operations),
    Piece(5, "MyNeuron, MyLayer, MyMLP", ("MyNeuron", "MyLayer", "MyMLP"), _check_network),
    Piece(6, "my_train", ("my_train",), _check_train),
    *(Piece(11, key.split(": ", 1)[1], gpt_pieces.DEFINES[key], check) for key, check in gpt_pieces.CHECKS.items()),
]
BY_KEY = {piece.key: piece for piece in PIECES}

# Shown with a piece that passes: the pieces folded into it, mentioned only when they did not.
COMPANIONS = {"lesson 3: MyValue": ["lesson 4: more operations", "lesson 11: more operations"], "lesson 4: my_backward": ["lesson 4: my_topological_order"]}
