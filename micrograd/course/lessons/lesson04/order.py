"""Lesson 4's topological-order check: the small graphs it runs a learner's order on, and how a wrong order is named."""

import contextlib
import inspect
import math

from micrograd.graphs import post_order
from micrograd.course.verdicts import fmt

class Node:
    """The checker's own nodes, with the interface of the lesson's MyValue.

    While a learner's backward() runs, ``Node.reads`` is a list, and every read of a node's
    ``_local_grads`` (in the learner's loop, or in the node's ``_backward``) is noted in it,
    with the node's gradient at that moment: the order in which the walk reached the nodes.
    """

    reads = None
    # Other names for the inputs (microgpt keeps them in _children): code written for a class that keeps
    # them under one of these reads the checker's nodes as it reads its own.
    INPUT_NAMES = frozenset({"_children", "children", "inputs", "_inputs", "prev", "_parents", "parents", "_operands"})

    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        self.data, self.grad, self.label = data, 0.0, label
        self._prev, self._op, self._locals = tuple(_children), _op, tuple(_local_grads)

    def __getattr__(self, name):  # only for what the node does not have
        if name in Node.INPUT_NAMES:
            return self._prev
        raise AttributeError(f"the check's nodes, made like the lesson's MyValue (data, grad, label, _prev, _op, "
                             f"_local_grads and _backward()), have no attribute {name!r}")

    @property
    def _local_grads(self):
        if Node.reads is not None:
            Node.reads.append((self, self.grad))
        return self._locals

    def __add__(self, other):
        return Node(self.data + other.data, (self, other), "+", _local_grads=(1.0, 1.0))

    def __mul__(self, other):
        return Node(self.data * other.data, (self, other), "*", _local_grads=(other.data, self.data))

    def tanh(self):
        t = math.tanh(self.data)
        return Node(t, (self,), "tanh", _local_grads=(1 - t * t,))

    def _backward(self):
        for child, local in zip(self._prev, self._local_grads):
            child.grad += local * self.grad

    def __repr__(self):
        return f"MyValue(data={self.data:.4g}, grad={self.grad:.4g}, label={self.label!r})"


def named(node, label):
    node.label = label
    return node


def order_graphs(cls):
    """(name, root, leaves) for each graph the checkers use, built with cls (the checker's nodes, or Value)."""
    graphs = []
    a, b, c, f = (cls(v, label=n) for v, n in ((2.0, "a"), (-3.0, "b"), (10.0, "c"), (-2.0, "f")))
    e = named(a * b, "e")
    d = named(e + c, "d")
    graphs.append(("L = (a*b + c)*f", named(d * f, "L"), (a, b, c, f)))
    a = cls(3.0, label="a")
    graphs.append(("b = a + a", named(a + a, "b"), (a,)))
    a, k1, k2 = cls(-2.0, label="a"), cls(3.0, label="k1"), cls(0.5, label="k2")
    p, q = named(a * k1, "p"), named(a + k2, "q")
    graphs.append(("the diamond out = (a*k1) * (a + k2)", named(p * q, "out"), (a, k1, k2)))
    x, y, z = cls(1.5, label="x"), cls(-1.0, label="y"), cls(0.5, label="z")
    m = named(x * y, "m")  # reached by two paths, one longer than the other
    s = named(m + z, "s")
    t = named(s.tanh(), "t")
    graphs.append(("out = tanh(x*y + z) * (x*y), where x*y is reached by two paths", named(t * m, "out"), (x, y, z)))
    # Nodes told apart only by being different objects: two labelled alike, then none labelled
    # at all, some holding the same number.
    x1, x2 = cls(2.0, label="x"), cls(-1.0, label="x")
    graphs.append(("out = (x*x' + x') * x, where x and x' are two nodes both labelled 'x'",
                   named((x1 * x2 + x2) * x1, "out"), (x1, x2)))
    ws = [cls(v) for v in (0.5, -1.0, 0.5)]  # two weights holding the same number
    xs = [cls(v) for v in (2.0, 2.0, -1.0)]  # and two inputs
    bias = cls(0.25)
    total = bias
    for w_, x_ in zip(ws, xs):
        total = total + w_ * x_
    graphs.append(("a neuron tanh(w·x + b) of unlabelled nodes, some holding the same number",
                   total.tanh(), (*ws, *xs, bias)))
    return graphs


def node_name(node):
    label = getattr(node, "label", "")
    if label:
        return label
    return f"the unlabelled node holding {fmt(node.data)}"


def copy(root):
    """A new graph of the checker's nodes, shaped like root's: other objects, the same structure."""
    new = {}
    for node in post_order(root):
        new[id(node)] = Node(node.data, tuple(new[id(c)] for c in node._prev), node._op, node.label, node._locals)
    return new[id(root)]


def order_shape(order, root):
    """Where each node of order stands in the graph (its place in the reference order): the order's structure."""
    place = {id(n): i for i, n in enumerate(post_order(root))}
    return [place.get(id(n)) for n in order]


def changes_between_copies(topo, root, shape, copies=16):
    """Does topo give differently shaped orders on copies of the same graph, as a set's order does?"""
    for _ in range(copies):
        twin = copy(root)
        try:
            if order_shape(topo(twin), twin) != shape:
                return True
        except Exception:
            return False
    return False


def missing_problem(missing, order, graph):
    """Why a node is missing: told apart from another by label or value, or just left out."""
    listed = list(order)
    name = node_name(missing)
    if any(getattr(n, "label", "") == getattr(missing, "label", "") for n in listed):
        if not getattr(missing, "label", ""):
            return (f"on {graph}, {name} is missing: your order keeps one unlabelled node and drops the others, "
                    "so it tells nodes apart by their label. Remember the nodes themselves (visited.add(node), "
                    "if node not in visited), not their labels")
        return (f"on {graph}, one of the two nodes labelled {missing.label!r} is missing: your order tells nodes "
                "apart by their label. Remember the nodes themselves (visited.add(node)), not their labels")
    if any(n.data == missing.data for n in listed):
        return (f"on {graph}, {name} is missing: another node holds the same number, and your order keeps only "
                "one of them, so it tells nodes apart by value. Remember the nodes themselves (visited.add(node)), "
                "not their .data")
    return f"on {graph}, {name} is missing: the order lists every node below the root, leaves included"


def order_problem(order, root, graph, topo=None):
    if isinstance(order, (str, bytes)) or not isinstance(order, (list, tuple)):
        if inspect.isgenerator(order):
            return (f"on {graph} it returns a generator (it yields); my_backward walks the order backwards, "
                    "reversed(order), which a generator can't do: return a list of the nodes")
        return f"on {graph} it returns {type(order).__name__}; return a list of the nodes"
    want = post_order(root)
    known = {id(n) for n in want}
    for item in order:
        if id(item) not in known:
            return f"on {graph} the order holds {item!r:.40}, which is not a node of the graph; list the nodes themselves"
    seen = set()
    for item in order:
        if id(item) in seen:
            return (f"on {graph}, {node_name(item)} appears twice: remember the nodes you have visited (a set) "
                    "and skip one you have seen")
        seen.add(id(item))
    missing = [n for n in want if id(n) not in seen]
    if missing:
        return missing_problem(missing[0], order, graph)
    position = {id(n): i for i, n in enumerate(order)}
    broken = [(node, child) for node in order for child in node._prev if position[id(child)] > position[id(node)]]
    if not broken:
        return None
    reverse = order[0] is root and all(position[id(c)] > position[id(n)] for n in order for c in n._prev)
    if reverse and (topo is None or not changes_between_copies(topo, root, order_shape(order, root))):
        return (f"on {graph} the root {node_name(root)} comes first: that is the backward order. Build the list so that "
                "each node comes after its inputs (append a node once its inputs are in), and reverse it in backward()")
    node, child = broken[0]
    if topo is not None and changes_between_copies(topo, root, order_shape(order, root)):
        return (f"on {graph} the nodes come in a set's order ({node_name(node)} before its input {node_name(child)}), which "
                "changes from one graph to the next: a set has no order of its own. Keep the set for 'visited' "
                "only, and build the order in a list, appending each node after all of its inputs")
    return (f"on {graph}, {node_name(node)} comes before its input {node_name(child)}: a node goes into the list "
            "only after all of its inputs")


@contextlib.contextmanager
def deep_chain(depth):
    """A chain of ``depth`` additions, taken apart node by node once the ``with`` block ends.

    Freed whole, the chain would be freed one link inside the next, a C call per link.  Under
    the browser app's Pyodide that overflows the browser's stack and kills the kernel (freeing a
    chain some 3 000 deep is enough); CPython's guard against deep freeing does not see that
    stack.  Unlinked first, each node is freed on its own.
    """
    x = Node(1.0, label="x")
    y = x
    for _ in range(depth):
        y = y + Node(1.0)
    try:
        yield y
    finally:
        nodes = [y]
        while nodes:
            node = nodes.pop()
            nodes.extend(node._prev)
            node._prev = ()
