"""What a node of any micrograd is: a number in ``.data`` and its inputs, under any of their names.

The package's ``Value`` keeps its inputs in ``._inputs``; micrograd 0.1.0 and the lecture in
``._prev`` (a set); Karpathy's microgpt in ``._children``; other classes in ``.inputs``,
``.children``, ``.prev``, ``._parents``, ``.parents`` or ``._operands``.  This module reads all
of them alike and puts inputs held in a set into a *stable order* that depends only on the graph:
by label, then data, then op, then the expression below them.  Two inputs that tie on all of
these are the same expression with the same numbers, so either order gives the same picture, and
drawings of set-based graphs stay byte-identical in every process (a set's own order follows
memory addresses).

It sits below everything else in the package, the engine included (whose ``Value(data, {a, b})``
orders a set of inputs with ``stable_order``), and imports none of it.
"""

import hashlib
import math
import numbers

__all__ = [
    "SETS", "INPUT_NAMES", "INPUT_NAMES_TEXT", "LOCAL_GRAD_NAMES", "sort_key", "expression_digests", "is_node", "has_data",
    "inputs_of", "raw_inputs", "recorded_local_grads", "post_order", "stable_order", "class_name", "not_a_node",
    "node_number", "node_text"]

SETS = (set, frozenset)
SEQUENCES = (tuple, list)
# The package's own name first: it holds a tuple, in operand order, so reading it costs nothing.
# Then micrograd 0.1.0's and the lecture's, microgpt's, and the names other classes were found
# using; a class that has several is read by the first (a set, tuple or list) it has.
INPUT_NAMES = ("_inputs", "_prev", "inputs", "_children", "children", "prev", "_parents", "parents", "_operands")
# How a message lists them: the package's own private name is no business of a learner's class.
INPUT_NAMES_TEXT = ", ".join(f".{name}" for name in INPUT_NAMES[1:])
# Where a node keeps one local derivative per input: microgpt's and lesson 3's name, then the
# package's public one (a class written after the package's Value may copy it).
LOCAL_GRAD_NAMES = ("_local_grads", "local_grads")


def class_name(obj):
    """``int``, or ``Value (from module __main__)`` for a class outside the builtins: a learner's
    class called ``Value`` is never mistaken for the package's."""
    cls = type(obj)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__qualname__} (from module {cls.__module__})"


_HELD = SETS + SEQUENCES
_ABSENT = object()


def raw_inputs(node):
    """The inputs as the node holds them (under the first of ``INPUT_NAMES`` it has), or None."""
    for name in INPUT_NAMES:
        # getattr with a default: a missing name raises no exception for Python to catch, which
        # on a graph of twenty thousand nodes, read name by name, would cost most of the reading.
        inputs = getattr(node, name, _ABSENT)
        if isinstance(inputs, _HELD):
            return inputs
    return None


def recorded_local_grads(node):
    """(name, what the node keeps there) for the first of ``LOCAL_GRAD_NAMES`` it has, or (None, None)."""
    for name in LOCAL_GRAD_NAMES:
        recorded = getattr(node, name, _ABSENT)
        if recorded is not _ABSENT and not callable(recorded):
            return name, recorded
    return None, None


def is_node(obj):
    """Does ``obj`` look like a micrograd node: ``.data`` and its inputs (see ``INPUT_NAMES``)?"""
    return hasattr(obj, "data") and raw_inputs(obj) is not None


def has_data(obj):
    """Does ``obj`` hold a number in ``.data``?  All that a model's output, a parameter or a loss
    needs for the views that read numbers only (``draw_model``, the training loop); its inputs
    may be kept under any name, or none."""
    if isinstance(obj, (numbers.Number, str, bytes, type)):
        return False
    data = getattr(obj, "data", None)
    return not isinstance(data, (bool, str, bytes)) and (isinstance(data, numbers.Real) or hasattr(data, "__float__"))


def not_a_node(caller, obj, what="the graph below one node (usually the loss)"):
    """The TypeError for something that is not a graph node, saying what a node needs."""
    hint = ""
    if isinstance(obj, type):
        module = "" if obj.__module__ == "builtins" else f" (from module {obj.__module__})"
        return TypeError(f"{caller} takes {what}, made with your class; got the class {obj.__qualname__}{module} itself")
    if isinstance(obj, SETS + SEQUENCES) and obj and is_node(next(iter(obj))):
        hint = f"; pass one node, not a {type(obj).__name__} of them"
    elif hasattr(obj, "data") and not isinstance(obj, (numbers.Number, str, bytes)):
        names, last = INPUT_NAMES_TEXT.rsplit(", ", 1)
        hint = f"; it has .data but no {names} or {last} holding its inputs (a set, tuple or list)"
    first, others = INPUT_NAMES_TEXT.split(", ", 1)
    return TypeError(
        f"{caller} takes {what}: an object with a number in .data and its inputs in {first} "
        f"(or {others}); got {class_name(obj)}{hint}"
    )


def inputs_of(node):
    """The node's inputs as a tuple: in operand order, or in stable order when held in a set."""
    inputs = raw_inputs(node)
    if isinstance(inputs, SETS):
        return stable_order(inputs)
    return tuple(inputs) if inputs is not None else ()


def post_order(root, inputs=inputs_of):
    """Every node below ``root`` once, each after all of its ``inputs(node)``, root last.

    Depth first with an explicit stack, so a chain a million deep is fine; nodes are told apart
    by identity, never by ``==`` or ``hash``, which a learner's class may define otherwise.
    """
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(inputs(node)) if id(child) not in seen)
    return order


def node_number(node, name, default=None):
    value = getattr(node, name, default)
    if type(value) is float:  # the common case, before the slower checks for every other number
        return value
    if value is None and default is not None:
        return float(default)
    if isinstance(value, numbers.Real) or hasattr(value, "__float__"):
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            pass
    raise TypeError(
        f"a node's .{name} must be a number; a {class_name(node)} in the graph holds "
        f"{value!r:.60} ({type(value).__name__})"
    )


def node_text(node, *names):
    for name in names:
        value = getattr(node, name, None)
        if value is not None and not callable(value):
            return value if isinstance(value, str) else str(value)
    return ""


def sort_key(node):
    """What orders inputs held in a set, before the expression below them is needed."""
    data = getattr(node, "data", 0.0)
    try:
        data = float(data)
    except (TypeError, ValueError, OverflowError):
        data = math.nan
    return (node_text(node, "label"), (math.isnan(data), 0.0 if math.isnan(data) else data), node_text(node, "_op", "op"))


def _held_inputs(node):
    """The inputs as the node holds them, unordered sets included: all a digest needs."""
    return raw_inputs(node) or ()


def expression_digests(root, held_inputs=_held_inputs):
    """{id(node): a digest of the expression below node}, for every node below root (each node's
    inputs read once, by ``held_inputs``)."""
    digests, held = {}, {}

    def read(node):
        inputs = held[id(node)] = held_inputs(node)
        return tuple(inputs)

    for node in post_order(root, read):
        inputs = held[id(node)]
        below = [digests[id(child)] for child in inputs]
        if isinstance(inputs, SETS):
            below.sort()
        text = "\x1f".join(map(str, sort_key(node))) + "\x1e" + "\x1e".join(below)
        digests[id(node)] = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
    return digests


def stable_order(inputs, digests=None):
    """``inputs`` (a set) as a tuple in an order that depends only on the graph: by label, data and
    op, and where those tie, by the expression below each input."""
    inputs = list(inputs)
    keys = [sort_key(node) for node in inputs]
    if len(set(keys)) < len(keys):  # a tie: look below (rare, and only then worth the walk)
        if digests is None:
            digests = {}
            for node in inputs:
                digests.update(expression_digests(node))
        keys = [key + (digests[id(node)],) for key, node in zip(keys, inputs)]
    return tuple(inputs[i] for i in sorted(range(len(inputs)), key=keys.__getitem__))
