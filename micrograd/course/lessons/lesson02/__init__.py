"""Checkers for lesson 2, Values and graphs.

They look at the graph a learner built (its nodes, operations and labels),
not just at the final number: a right number computed from plain floats
has no graph to backpropagate through.
"""

import math

from micrograd.engine import Value, topological_order
from micrograd.course.lessons.build import check_classes
from .value import check_value_class, untouched
from micrograd.course.verdicts import as_number, as_whole_number, checker, close, decimals_kept, failed, passed, whole_number_problem

__all__ = ["my_value", "neuron_graph", "division_local_grads", "count_nodes_and_edges"]

# Lesson 1's tolerance for a slope measured by nudging (h around 0.001 is off by about 3h).
_MEASURED_TOL = 0.01

_NEURON_LEAVES = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432}


# Build it yourself, part 1: a minimal Value (judged in value.py) ------------------


@checker("Build it: your own Value")
def my_value(cls):
    return check_classes((cls,), "check.my_value(MyValue)", untouched, check_value_class,
                         "_prev, _op, __add__, __mul__ and __repr__")


def _product_of(node, first, second):
    return node.op == "*" and {i.label for i in node.inputs} == {first, second}


@checker("Exercise 1: the neuron's graph")
def neuron_graph(n):
    if not isinstance(n, Value):
        return failed(f"n is {type(n).__name__}; build it from the Values x1, w1, x2, w2 and b, so it is a Value too")
    nodes = topological_order(n)
    leaves = {node.label: node for node in nodes if not node.op}
    missing = [name for name in _NEURON_LEAVES if name not in leaves]
    if missing:
        return failed(
            f"the graph below n has no leaf labelled {', '.join(missing)}; make each input a Value "
            "with its label, e.g. Value(2.0, label='x1'), and use it in n"
        )
    for name, data in _NEURON_LEAVES.items():
        if leaves[name].data != data:
            return failed(f"{name} holds {leaves[name].data!r}; the exercise gives {name} = {data!r}")
    if not any(_product_of(node, "x1", "w1") for node in nodes) or not any(_product_of(node, "x2", "w2") for node in nodes):
        return failed("n should contain the products x1*w1 and x2*w2: each input times its own weight")
    expected = sum(_NEURON_LEAVES[x] * _NEURON_LEAVES[w] for x, w in (("x1", "w1"), ("x2", "w2"))) + _NEURON_LEAVES["b"]
    if not close(n.data, expected, 1e-12):
        if close(n.data, math.tanh(expected), 1e-12):
            return failed(f"n.data is {n.data!r}, tanh of x1*w1 + x2*w2 + b: this exercise's n is the sum itself, "
                          f"{expected!r}, before any activation (the tanh comes in lesson 3, as o = n.tanh())")
        return failed(f"n.data is {n.data!r}, but x1*w1 + x2*w2 + b gives {expected!r}: each input times its own "
                      "weight, the two products added, and b added once")
    unlabelled = [node for node in nodes if node.op and not node.label]
    if n.label != "n" and not unlabelled:
        return failed(f"the numbers are right and every node has a label; the last one's is {n.label!r}: label it 'n', "
                      "as the exercise names it")
    if n.label != "n" or unlabelled:
        return failed(
            f"the numbers are right; now label every node you made ({len(unlabelled)} without a label), "
            "the last one 'n', e.g. x1w1 = x1 * w1; x1w1.label = 'x1w1'"
        )
    return passed(f"n = {n.data:.4f}, and every node has a name to find it by in the drawing")


def _two_numbers(answer):
    if isinstance(answer, Value) or isinstance(answer, (str, bytes)):
        return None
    try:
        values = [as_number(v) for v in answer]
    except TypeError:
        return None
    if len(values) != 2 or any(v is None for v in values):
        return None
    return [float(v) for v in values]


@checker("Exercise 2: the local derivatives of a / b")
def division_local_grads(answer):
    values = _two_numbers(answer)
    if values is None:
        text = isinstance(answer, (str, bytes)) or (
            isinstance(answer, (list, tuple)) and any(isinstance(v, (str, bytes)) for v in answer))
        hint = ", written without quotes" if text else ""
        return failed(f"your answer is {answer!r:.60}; give two numbers{hint}, (dq/da, dq/db), e.g. (0.5, -1.0)")
    a, b = 6.0, 3.0
    expected = (1 / b, -a / b**2)  # q = a * b**-1: the power rule for b
    d_a, d_b = values
    if close(d_a, expected[0]) and close(d_b, expected[1]):
        return passed("q grows by 1/b per unit of a, and falls by a/b² per unit of b")
    kept = [decimals_kept(got, want) for got, want in zip(values, expected)]
    if all(kept):  # typed from a printed number: 0.33, -0.667
        return passed(f"q grows by 1/b per unit of a, and falls by a/b² per unit of b: (1/3, -2/3), which you gave "
                      f"to {min(kept)} decimal{'s' if min(kept) > 1 else ''}")
    if all(abs(got - want) <= _MEASURED_TOL for got, want in zip(values, expected)):
        # Measured by nudging, as lesson 1 did: near enough, and the exact values are the rule's.
        return passed(f"q grows by 1/b per unit of a, and falls by a/b² per unit of b; yours ({d_a:.6g}, {d_b:.6g}) "
                      "are nudged slopes, the rules give exactly (1/3, -2/3)")
    if close(d_a, expected[1]) and close(d_b, expected[0]):
        return failed("the two are swapped: the first belongs to the first input, a")
    if close(d_a, b) and close(d_b, a):
        return failed("(b, a) is the rule for a * b; for a / b, ask how far q moves when a moves by 1")
    if close(d_a, expected[0]) and close(d_b, -expected[1]):
        return failed("dq/da is right; for dq/db mind the sign: does a / b grow or shrink when b grows?")
    if abs(d_a - expected[0]) <= _MEASURED_TOL and close(d_b, -a / b):
        return failed(f"dq/da is right; dq/db = {d_b:.6g} is -a/b, which divides by b once: q = a * b**-1, and the "
                      "power rule makes b**-1 into -b**-2, so dq/db = -a/b²")
    if abs(d_a - expected[0]) <= _MEASURED_TOL and close(d_b, -1 / b**2):
        return failed(f"dq/da is right; dq/db = {d_b:.6g} is -1/b², which leaves out a: q = a * b**-1, so dq/db = -a/b²")
    # A one-sided nudge of b by h gives (a/(b + h) - a/b)/h = -a/(b(b + h)) exactly: find the h.
    h = -a / (b * d_b) - b if d_b < 0 else 0.0
    if abs(d_a - expected[0]) <= _MEASURED_TOL and _MEASURED_TOL / 3 < abs(h) <= 10:
        return failed(f"dq/da is right; dq/db = {d_b:.6g} is what a nudge of h = {h:.3g} gives: over a step that big "
                      "q bends, so the measured slope is off. Use a small h, such as 0.0001")
    if abs(d_a - expected[0]) <= _MEASURED_TOL:
        return failed(f"dq/da is right; dq/db ({d_b:.6g}) is not: nudge only b by a small h, say 0.0001, and divide "
                      "the change in q by h (lesson 1), or write a / b as a * b**-1 and use the power rule")
    return failed("not yet; nudge a, then b, by a small h (lesson 1) and see how far q moves per unit")


def _count(root):
    """Nodes and edges below root, walked here rather than taken from the engine."""
    seen, stack, edges = {root}, [root], 0
    while stack:
        node = stack.pop()
        for child in node.inputs:
            edges += 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return len(seen), edges


@checker("Exercise 3: nodes and edges of a * a + a")
def count_nodes_and_edges(nodes, edges):
    for name, answer in (("nodes", nodes), ("edges", edges)):
        problem = whole_number_problem(answer, f"{name} is", "give a whole number, e.g. 7")
        if problem:
            return failed(problem)
    nodes, edges = as_whole_number(nodes), as_whole_number(edges)
    a = Value(2.0, label="a")
    want_nodes, want_edges = _count(a * a + a)
    operations = 2
    if (nodes, edges) == (want_nodes, want_edges):
        return passed("a is one node however often it is used; each use is an edge of its own")
    if (nodes, edges) == (want_nodes + operations, want_edges + operations):
        return failed(f"{nodes} nodes and {edges} edges are the shapes and arrows of the drawing: draw_dot draws each "
                      "operation as a small circle of its own, with an arrow from it to the Value it makes. The circle "
                      "is part of that Value's node and its arrow is not an input: count the Values (the leaf a and "
                      "each result) and one edge per input of an operation")
    if edges == want_edges + operations and nodes == want_nodes:
        return failed(f"the {nodes} nodes are right; {edges} edges counts the drawing's arrows, and the arrow from an "
                      "operation's circle to its result is not an input: one edge per input of an operation")
    if (nodes, edges) == (want_edges, want_nodes):
        return failed(f"{nodes} and {edges} are the two counts swapped: nodes first ({want_nodes}), then edges")
    if nodes != want_nodes:
        if nodes > want_nodes:
            return failed(f"{nodes} nodes is too many: a Value is one node, however often it is used, and an "
                          "operation's circle in the drawing is part of the Value it makes")
        return failed(f"{nodes} nodes is too few: count the leaf a and every result an operation made")
    if edges > want_edges:
        return failed(f"the {nodes} nodes are right; {edges} edges is too many: an edge is one input of one operation, "
                      "so count the inputs of each operation and nothing else")
    return failed(f"the {nodes} nodes are right, the edges are not: a * a uses a twice, and each use is an edge")
