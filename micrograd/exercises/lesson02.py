"""Checkers for lesson 2, Values and graphs.

They look at the graph a learner built (its nodes, operations and labels),
not just at the final number: a right number computed from plain floats
has no graph to backpropagate through.
"""

import numbers

from ..engine import Value, topological_order
from .checking import checker, close, failed, passed

__all__ = ["neuron_graph", "division_local_grads", "count_nodes_and_edges"]

_NEURON_LEAVES = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432}


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
        return failed(f"n.data is {n.data!r}, but x1*w1 + x2*w2 + b gives a different number; is b added once?")
    unlabelled = [node for node in nodes if node.op and not node.label]
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
        values = list(answer)
    except TypeError:
        return None
    if len(values) != 2 or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        return None
    return [float(v) for v in values]


@checker("Exercise 2: the local derivatives of a / b")
def division_local_grads(answer):
    values = _two_numbers(answer)
    if values is None:
        return failed(f"your answer is {answer!r:.60}; give two numbers, (dq/da, dq/db), e.g. (0.5, -1.0)")
    a, b = 6.0, 3.0
    expected = (1 / b, -a / b**2)  # q = a * b**-1: the power rule for b
    d_a, d_b = values
    if close(d_a, expected[0]) and close(d_b, expected[1]):
        return passed("q grows by 1/b per unit of a, and falls by a/b² per unit of b")
    if close(d_a, expected[1]) and close(d_b, expected[0]):
        return failed("the two are swapped: the first belongs to the first input, a")
    if close(d_a, b) and close(d_b, a):
        return failed("(b, a) is the rule for a * b; for a / b, ask how far q moves when a moves by 1")
    if close(d_a, expected[0]) and close(d_b, -expected[1]):
        return failed("dq/da is right; for dq/db mind the sign: does a / b grow or shrink when b grows?")
    if close(d_a, expected[0]):
        return failed("dq/da is right; for dq/db nudge b a little (lesson 1) or write a / b as a * b**-1")
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
        if isinstance(answer, bool) or not isinstance(answer, numbers.Integral):
            return failed(f"{name} is {answer!r}; give a whole number")
    a = Value(2.0, label="a")
    want_nodes, want_edges = _count(a * a + a)
    if (nodes, edges) == (want_nodes, want_edges):
        return passed("a is one node however often it is used; each use is an edge of its own")
    if nodes != want_nodes:
        if nodes > want_nodes:
            return failed(f"{nodes} nodes is too many: a Value is one node, however often it is used")
        return failed(f"{nodes} nodes is too few: count the leaf a and every result an operation made")
    return failed(f"the {nodes} nodes are right, the edges are not: a * a uses a twice, and each use is an edge")
