"""Checkers for lesson 2, Values and graphs.

They look at the graph a learner built (its nodes, operations and labels),
not just at the final number: a right number computed from plain floats
has no graph to backpropagate through.
"""

import numbers

from ..engine import Value, topological_order
from .build import attempt, check_classes, fmt, nodes_below, still_stub
from .checking import checker, close, failed, passed

__all__ = ["my_value", "neuron_graph", "division_local_grads", "count_nodes_and_edges"]

_NEURON_LEAVES = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432}


# Build it yourself, part 1: a minimal Value --------------------------------


def _inputs_problem(node, expected, text):
    """What is wrong with node._prev for `text`, whose inputs should be `expected` (in order), or None."""
    prev = getattr(node, "_prev", None)
    if prev is ...:
        return f"{text}: _prev is still ...; store the inputs: self._prev = tuple(_children)"
    if isinstance(prev, (set, frozenset)):
        return (
            f"{text}: _prev is a set; keep a tuple, in order: a set loses the order of a - b, "
            "and a * a would have one input instead of two"
        )
    if not isinstance(prev, (tuple, list)):
        return f"{text}: _prev is {type(prev).__name__}; make it a tuple of the input Values"
    if [id(p) for p in prev] == [id(e) for e in expected]:
        return None
    if len(prev) == len(expected) and [id(p) for p in prev] == [id(e) for e in reversed(expected)]:
        return f"{text}: _prev has the inputs the other way round; keep them in operand order, (self, other)"
    if any(not hasattr(p, "data") for p in prev):
        return f"{text}: _prev holds {prev!r:.60}; keep the input Values themselves, not their numbers"
    return f"{text}: _prev has {len(prev)} entries; it should hold the {len(expected)} inputs, (self, other)"


def _node_problem(node, cls, text, data, op, inputs):
    if node is None:
        return f"{text} returned None; the operator must return the new {cls.__name__}"
    if not isinstance(node, cls):
        return f"{text} returned a {type(node).__name__}; return a new {cls.__name__} so it can be used again"
    if not close(node.data, data, 1e-12):
        return f"{text} holds data {fmt(node.data)}, expected {fmt(data)}"
    if getattr(node, "_op", None) != op:
        return f"{text} has _op {getattr(node, '_op', None)!r}, expected {op!r}"
    return _inputs_problem(node, inputs, text)


def _untouched(cls):
    leaf = cls(2.0, label="a")
    if getattr(leaf, "_prev", None) is not ... or getattr(leaf, "_op", None) is not ...:
        return False
    return still_stub(lambda: leaf + cls(1.0)) and still_stub(lambda: leaf * cls(1.0))


@checker("Build it: your own Value")
def my_value(cls):
    return check_classes((cls,), "check.my_value(MyValue)", _untouched, _check_value_class,
                         "_prev, _op, __add__, __mul__ and __repr__")


def _check_value_class(cls):
    a, b = cls(2.0, label="a"), cls(-3.0, label="b")
    c, f = cls(10.0, label="c"), cls(-2.0, label="f")
    if a.data != 2.0 or a.label != "a":
        return failed(f"MyValue(2.0, label='a') has data {a.data!r} and label {a.label!r}; keep both as given")
    if getattr(a, "grad", None) != 0.0:
        return failed("a new value should start with grad = 0.0")
    if getattr(a, "_op", None) != "":
        return failed(f"a leaf has _op {getattr(a, '_op', None)!r}; a value nobody computed has _op '' (the default)")
    problem = _inputs_problem(a, (), "a leaf")
    if problem:
        return failed(problem)

    # The lesson's expression, checked node by node against the package's own Value.
    pa, pb, pc, pf = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    e = attempt("__mul__", lambda: a * b)
    problem = _node_problem(e, cls, "a * b (a = 2, b = -3)", (pa * pb).data, "*", (a, b))
    if problem:
        return failed(problem)
    d = attempt("__add__", lambda: e + c)
    problem = _node_problem(d, cls, "e + c (e = a * b = -6, c = 10)", (pa * pb + pc).data, "+", (e, c))
    if problem:
        return failed(problem)
    L = d * f
    problem = _node_problem(L, cls, "L = d * f", ((pa * pb + pc) * pf).data, "*", (d, f))
    if problem:
        return failed(problem)
    if (a.data, b.data, c.data, f.data) != (2.0, -3.0, 10.0, -2.0):
        return failed("an operation changed its inputs' data; compute a new value and leave the inputs alone")
    leaves = {node.label for node in nodes_below(L, lambda n: n._prev) if not tuple(node._prev)}
    if leaves != {"a", "b", "c", "f"}:
        return failed(f"walking back from L through _prev reaches the leaves {sorted(leaves)}, expected a, b, c, f")

    # A graph of the checker's own: a value used twice, other numbers.
    x, y = cls(1.5, label="x"), cls(-0.5, label="y")
    xx = x * x
    problem = _node_problem(xx, cls, "x * x (x = 1.5)", 2.25, "*", (x, x))
    if problem:
        return failed(problem)
    z = (x + y) * x + y
    px, py = Value(1.5), Value(-0.5)
    if not close(z.data, ((px + py) * px + py).data, 1e-12):
        return failed(f"(x + y) * x + y at x = 1.5, y = -0.5 gives {fmt(z.data)}, expected {fmt(((px + py) * px + py).data)}")

    text = attempt("__repr__", lambda: repr(cls(4.0, label="x")))
    if not isinstance(text, str) or "4.0" not in text or "object at 0x" in text:
        return failed(f"repr(MyValue(4.0)) is {text!r:.60}; show the data, e.g. MyValue(data=4.0)")
    return passed("L = -8.0, built node by node with every input remembered in order; your Value makes graphs")



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
