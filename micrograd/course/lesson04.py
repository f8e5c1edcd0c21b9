"""Checkers for lesson 4, autograd.

The lecture's exercise is checked the way the lecture suggests: a gradient
worked out by hand must agree with finite differences of the function
itself, at the lecture's point and at a second one (so a list of numbers
copied from somewhere does not pass).
"""

import inspect
import math
import traceback

from ..engine import Value
from ..gradcheck import central_difference
from ..graphs import post_order
from .build import root_down, wrong_gradient
from .verdicts import fmt, as_number, checker, close, failed, number_problem, passed

__all__ = ["my_topological_order", "my_backward", "analytic_gradient", "sin_op", "grad_after_three_backwards"]


# Build it yourself, part 3: topological order and backward() -------------------


class _Node:
    """The checker's own nodes, with the interface of the lesson's MyValue.

    While a learner's backward() runs, ``_Node.reads`` is a list, and every read of a node's
    ``_local_grads`` (in the learner's loop, or in the node's ``_backward``) is noted in it,
    with the node's gradient at that moment: the order in which the walk reached the nodes.
    """

    reads = None

    def __init__(self, data, _children=(), _op="", label="", _local_grads=()):
        self.data, self.grad, self.label = data, 0.0, label
        self._prev, self._op, self._locals = tuple(_children), _op, tuple(_local_grads)

    @property
    def _local_grads(self):
        if _Node.reads is not None:
            _Node.reads.append((self, self.grad))
        return self._locals

    def __add__(self, other):
        return _Node(self.data + other.data, (self, other), "+", _local_grads=(1.0, 1.0))

    def __mul__(self, other):
        return _Node(self.data * other.data, (self, other), "*", _local_grads=(other.data, self.data))

    def tanh(self):
        t = math.tanh(self.data)
        return _Node(t, (self,), "tanh", _local_grads=(1 - t * t,))

    def _backward(self):
        for child, local in zip(self._prev, self._local_grads):
            child.grad += local * self.grad

    def __repr__(self):
        return f"MyValue(data={self.data:.4g}, grad={self.grad:.4g}, label={self.label!r})"


def _named(node, label):
    node.label = label
    return node


def _graphs(cls):
    """(name, root, leaves) for each graph the checkers use, built with cls (the checker's nodes, or Value)."""
    graphs = []
    a, b, c, f = (cls(v, label=n) for v, n in ((2.0, "a"), (-3.0, "b"), (10.0, "c"), (-2.0, "f")))
    e = _named(a * b, "e")
    d = _named(e + c, "d")
    graphs.append(("L = (a*b + c)*f", _named(d * f, "L"), (a, b, c, f)))
    a = cls(3.0, label="a")
    graphs.append(("b = a + a", _named(a + a, "b"), (a,)))
    a, k1, k2 = cls(-2.0, label="a"), cls(3.0, label="k1"), cls(0.5, label="k2")
    p, q = _named(a * k1, "p"), _named(a + k2, "q")
    graphs.append(("the diamond out = (a*k1) * (a + k2)", _named(p * q, "out"), (a, k1, k2)))
    x, y, z = cls(1.5, label="x"), cls(-1.0, label="y"), cls(0.5, label="z")
    m = _named(x * y, "m")  # reached by two paths, one longer than the other
    s = _named(m + z, "s")
    t = _named(s.tanh(), "t")
    graphs.append(("out = tanh(x*y + z) * (x*y), where x*y is reached by two paths", _named(t * m, "out"), (x, y, z)))
    # Nodes told apart only by being different objects: two labelled alike, then none labelled
    # at all, some holding the same number.
    x1, x2 = cls(2.0, label="x"), cls(-1.0, label="x")
    graphs.append(("out = (x*x' + x') * x, where x and x' are two nodes both labelled 'x'",
                   _named((x1 * x2 + x2) * x1, "out"), (x1, x2)))
    ws = [cls(v) for v in (0.5, -1.0, 0.5)]  # two weights holding the same number
    xs = [cls(v) for v in (2.0, 2.0, -1.0)]  # and two inputs
    bias = cls(0.25)
    total = bias
    for w_, x_ in zip(ws, xs):
        total = total + w_ * x_
    graphs.append(("a neuron tanh(w·x + b) of unlabelled nodes, some holding the same number",
                   total.tanh(), (*ws, *xs, bias)))
    return graphs


def _name(node):
    label = getattr(node, "label", "")
    if label:
        return label
    return f"the unlabelled node holding {fmt(node.data)}"


def _copy(root):
    """A new graph of the checker's nodes, shaped like root's: other objects, the same structure."""
    new = {}
    for node in post_order(root):
        new[id(node)] = _Node(node.data, tuple(new[id(c)] for c in node._prev), node._op, node.label, node._locals)
    return new[id(root)]


def _shape(order, root):
    """Where each node of order stands in the graph (its place in the reference order): the order's structure."""
    place = {id(n): i for i, n in enumerate(post_order(root))}
    return [place.get(id(n)) for n in order]


def _changes_between_copies(topo, root, shape, copies=16):
    """Does topo give differently shaped orders on copies of the same graph, as a set's order does?"""
    for _ in range(copies):
        twin = _copy(root)
        try:
            if _shape(topo(twin), twin) != shape:
                return True
        except Exception:
            return False
    return False


def _missing_problem(missing, order, graph):
    """Why a node is missing: told apart from another by label or value, or just left out."""
    listed = list(order)
    name = _name(missing)
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


def _order_problem(order, root, graph, topo=None):
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
            return (f"on {graph}, {_name(item)} appears twice: remember the nodes you have visited (a set) "
                    "and skip one you have seen")
        seen.add(id(item))
    missing = [n for n in want if id(n) not in seen]
    if missing:
        return _missing_problem(missing[0], order, graph)
    position = {id(n): i for i, n in enumerate(order)}
    broken = [(node, child) for node in order for child in node._prev if position[id(child)] > position[id(node)]]
    if not broken:
        return None
    reverse = order[0] is root and all(position[id(c)] > position[id(n)] for n in order for c in n._prev)
    if reverse and (topo is None or not _changes_between_copies(topo, root, _shape(order, root))):
        return (f"on {graph} the root {_name(root)} comes first: that is the backward order. Build the list so that "
                "each node comes after its inputs (append a node once its inputs are in), and reverse it in backward()")
    node, child = broken[0]
    if topo is not None and _changes_between_copies(topo, root, _shape(order, root)):
        return (f"on {graph} the nodes come in a set's order ({_name(node)} before its input {_name(child)}), which "
                "changes from one graph to the next: a set has no order of its own. Keep the set for 'visited' "
                "only, and build the order in a list, appending each node after all of its inputs")
    return (f"on {graph}, {_name(node)} comes before its input {_name(child)}: a node goes into the list "
            "only after all of its inputs")


def _deep_chain(depth):
    x = _Node(1.0, label="x")
    y = x
    for _ in range(depth):
        y = y + _Node(1.0)
    return y


@checker("Build it: topological order")
def my_topological_order(topo):
    if not callable(topo):
        return failed(f"pass the function itself, check.my_topological_order(my_topological_order), not {type(topo).__name__}")
    for graph, root, _ in _graphs(_Node):
        problem = _order_problem(topo(root), root, graph, topo)
        if problem:
            return failed(problem)
    note = ""
    try:
        topo(_deep_chain(5000))
    except RecursionError:
        note = (" (It is recursive: on a chain 5 000 nodes deep Python gives up. That is fine for these graphs; "
                "the lesson's section on deep graphs shows the way round it.)")
    return passed("every node once, each after its inputs, on a value used twice, a diamond, a node reached "
                  "by two paths and nodes with the same label, no label or the same number" + note)


# Wrong ways to write backward(), run on the same graph to recognise a learner's slip by its numbers.

def _walk(root, order, overwrite=False, seed=1.0, chain=True, sign=1.0):
    for node in order:
        node.grad = 0.0
    root.grad = seed
    for node in order:
        for child, local in zip(node._prev, node._locals):
            step = sign * (local * node.grad if chain else local)
            if overwrite:
                child.grad = step
            else:
                child.grad += step


def _seeded_late(root):
    _walk(root, list(reversed(post_order(root))), seed=0.0)
    root.grad = 1.0


def _recursive(root):
    """Each node passes its gradient down as soon as it gets a share, once per path (the graphs are small)."""
    for node in post_order(root):
        node.grad = 0.0
    root.grad = 1.0

    def down(node):
        for child, local in zip(node._prev, node._locals):
            child.grad += local * node.grad
            down(child)

    down(root)


_BACKWARD_SLIPS = {
    "overwrite": lambda root: _walk(root, list(reversed(post_order(root))), overwrite=True),
    "forwards": lambda root: _walk(root, post_order(root)),
    "unseeded": lambda root: _walk(root, list(reversed(post_order(root))), seed=0.0),
    "seeded late": _seeded_late,
    "no chain": lambda root: _walk(root, list(reversed(post_order(root))), chain=False),
    "per path": _recursive,
    "minus": lambda root: _walk(root, list(reversed(post_order(root))), sign=-1.0),
}

_SLIP_MESSAGES = {
    "overwrite": ("your loop sets each input's gradient instead of adding to it, so a value used twice keeps only "
                  "the last edge's share. A gradient is the sum over every path: use += (in your loop, or in _backward)"),
    "forwards": ("the walk goes from the leaves to the root, so each node passes on its gradient before it has "
                 "received it. Walk the topological order in reverse: reversed(order)"),
    "unseeded": "every gradient is 0: seed the root first, root.grad = 1.0 (dL/dL = 1), then walk",
    "seeded late": ("every gradient below the root is 0: the root is seeded after the walk, so the walk had nothing "
                    "to pass on. Set root.grad = 1.0 before the loop"),
    "no chain": ("each input gets its local derivative alone: multiply it by the node's own gradient, "
                 "child.grad += local * node.grad (the chain rule)"),
    "minus": "right size, wrong sign: add local × grad to each input's gradient (+=), don't subtract it",
    "per path": ("a node reached by two paths passes its gradient down once per path, the second time with the "
                 "first share in it again: pass a node's gradient on only once all of it has arrived, walking "
                 "reversed(my_topological_order(root)) once, instead of going down from each node at once"),
}


def _grads(root):
    return [n.grad for n in post_order(root)]


def _walk_order(reads):
    """How the walk reached the nodes: (None, "") in a backward order (or unknown), ("forwards", message),
    or ("arbitrary", message) for an order that is neither, as a set's."""
    first, seen = [], set()
    for node, _ in reads:
        if node._prev and id(node) not in seen:
            seen.add(id(node))
            first.append(node)
    position = {id(n): i for i, n in enumerate(first)}
    edges = [(child, node) for node in first for child in node._prev if id(child) in position]
    early = [(child, node) for child, node in edges if position[id(child)] < position[id(node)]]
    if not early:
        return None, ""
    if len(early) == len(edges):
        return "forwards", _SLIP_MESSAGES["forwards"]
    child, node = early[0]
    return "arbitrary", (f"{_name(child)} passed its gradient on before {_name(node)}, which uses it, had passed it "
                         "its share: walk the nodes in reverse topological order, for node in "
                         "reversed(my_topological_order(root)). A set, or any other order, passes some gradients on "
                         "too early")


class _Run:
    """One graph, the learner's backward() run on it, and the right gradients."""

    def __init__(self, graph, root, leaves, value_root, value_leaves, backward):
        _Node.reads = []
        try:
            backward(root)
        finally:
            self.reads, _Node.reads = _Node.reads, None
        value_root.backward()
        self.graph, self.root = graph, root
        self.order = post_order(root)
        self.got = _grads(root)
        want = [leaf.grad for leaf in value_leaves]
        self.wrong = [(leaf, w) for leaf, w in zip(leaves, want) if not close(leaf.grad, w, 1e-9)]
        _walk(root, list(reversed(self.order)))
        self.right = _grads(root)
        self.inner = [n for n, g, r in zip(self.order, self.got, self.right) if not close(g, r, 1e-9)]
        self.restore()

    def restore(self):
        """The learner's numbers back on the graph (the slips tried overwrite them)."""
        for node, g in zip(self.order, self.got):
            node.grad = g

    @property
    def failed(self):
        return bool(self.wrong or self.inner)

    def expected(self):
        return {id(n): r for n, r in zip(self.order, self.right)}

    def detail(self):
        """The first wrong gradient from the root down: the node the drawing under the verdict marks."""
        place = {id(n): k for k, n in enumerate(self.order)}
        for node in root_down(self.root):
            k = place[id(node)]
            if not close(self.got[k], self.right[k], 1e-9):
                return f"{_name(node)}.grad is {fmt(self.got[k])}, expected {fmt(self.right[k])}"
        leaf, w = self.wrong[0]
        return f"{_name(leaf)}.grad is {fmt(self.got[self.order.index(leaf)])}, expected {fmt(w)}"


def _walked(reads):
    """The nodes a walk passed gradients on from, in its order (a node read again at once counts once)."""
    visits = []
    for node, _ in reads:
        if not (visits and visits[-1] is node):
            visits.append(node)
    return [node for node in visits if node._prev]


def _walked_twice(run):
    """The node a walk passed on twice, when a right loop over that walk gives the learner's numbers; else None.

    That is a right backward() walking an order that lists a node twice (one from a topological order
    without a visited set): the loop is right, the order is not.
    """
    visits, seen = _walked(run.reads), set()
    twice = next((n for n in visits if id(n) in seen or seen.add(id(n))), None)
    if twice is None:
        return None
    for node in run.order:
        node.grad = 0.0
    run.root.grad = 1.0
    for node in visits:
        for child, local in zip(node._prev, node._locals):
            child.grad += local * node.grad
    replayed = _grads(run.root)
    run.restore()
    return twice if all(close(g, r, 1e-9) for g, r in zip(run.got, replayed)) else None


@checker("Build it: backward()")
def my_backward(backward):
    if not callable(backward):
        return failed(f"pass the function itself, check.my_backward(my_backward), not {type(backward).__name__}")
    runs = [_Run(graph, root, leaves, value_root, value_leaves, backward)
            for (graph, root, leaves), (_, value_root, value_leaves) in zip(_graphs(_Node), _graphs(Value))]
    failing = [run for run in runs if run.failed]
    if not failing:
        problem = _on_your_value(backward)
        if problem:
            return failed(problem)
        return passed("seeded with 1, walked in reverse topological order, gradients added up along every path: "
                      "the same numbers as the package on all six graphs")
    run = failing[0]
    for twice_run in failing:  # before the walk's order is judged: a node walked twice looks out of order too
        twice = _walked_twice(twice_run)
        if twice is not None:
            name = _name(twice)
            return wrong_gradient(
                f"on {twice_run.graph}: {twice_run.detail()}: the loop is right, but the order it walks lists {name} "
                f"twice, so {name} passes its gradient to its inputs twice. my_topological_order must list every "
                "node once: remember the nodes you have visited (a set) and skip one you have seen",
                twice_run.root, twice_run.expected())
    # A walk in no fixed order (a set's) can look like another slip on one graph: judge it on all of them.
    arbitrary = [(r, text) for r in runs for kind, text in [_walk_order(r.reads)] if kind == "arbitrary"]
    if arbitrary:
        shown, text = next(((r, t) for r, t in arbitrary if r.failed), arbitrary[0])
        run = shown if shown.failed else run
        where = "" if shown is run else f"on {shown.graph}, "
        message = f"on {run.graph}: {run.detail()}: {where}{text}"
    else:
        message = _backward_problem(run)
    run.restore()
    return wrong_gradient(message, run.root, run.expected())


def _on_your_value(backward):
    """Why backward, right on the checker's nodes, fails on the learner's own MyValue, or None.

    The lesson runs my_backward on the MyValue its namespace holds (lesson 3's), whose nodes may keep
    their local derivatives in _backward closures, the lecture's way, and no _local_grads.  Only what
    the class lacks is judged here: wrong numbers from the class itself are lesson 3's check's business.
    """
    cls = getattr(backward, "__globals__", {}).get("MyValue")
    if not isinstance(cls, type):
        return None
    try:
        a, b, c, f = (cls(v) for v in (2.0, -3.0, 10.0, -2.0))
        root = (a * b + c) * f
    except Exception:
        return None
    try:
        backward(root)
    except AttributeError as error:
        missing = getattr(error, "name", None) or str(error)
        hint = ("call each node's _backward(), root first, which works on either kind of node"
                if "_local_grads" in str(missing) else "use only what your MyValue has: .grad, ._prev and _backward()")
        return (f"my_backward is right on the checker's nodes, but the next cells run it on your MyValue (lesson 3), "
                f"and there it raises AttributeError: {error}. Your nodes don't keep what it reads: {hint}")
    return None


def _backward_problem(run):
    root, got, graph, detail = run.root, run.got, run.graph, run.detail()
    seeded = [grad for node, grad in run.reads if node is root][:1]  # the root's gradient when the walk reached it
    if not seeded and any(node._prev for node, _ in run.reads) and close(root.grad, 1.0, 1e-12):
        return (f"on {graph}: {detail}: the root is seeded with 1, but the walk skips it, so its inputs never get "
                "their share and nothing below it does. The seed is the root's gradient; the root still passes "
                "it on like every other node, first: walk all of reversed(order), the root included")
    for slip, simulate in _BACKWARD_SLIPS.items():
        if slip in ("seeded late", "forwards") and seeded and seeded[0] != 0.0:
            continue
        simulate(root)
        if all(close(g, s, 1e-9) for g, s in zip(got, _grads(root))):
            return f"on {graph}: {detail}: {_SLIP_MESSAGES[slip]}"
    kind, problem = _walk_order(run.reads)  # after the slips the numbers show: the walk is read less directly
    if problem:
        return f"on {graph}: {detail}: {problem}"
    if seeded and seeded[0] != 0.0 and all(close(g, 0.0, 1e-12) for g in got[:-1]):
        return (f"on {graph}: {detail}: every gradient below the root is 0, though the root was seeded. Each node "
                "passes on local × its own gradient: child.grad += local * node.grad")
    if run.wrong:
        return f"on {graph}: {detail} (what the package's backward() gives)"
    return f"on {graph}: the leaves are right but {detail}"


def _lecture_f(a, b, c):
    return -(a**3) + math.sin(3 * b) - 1.0 / c + b**2.5 - a**0.5


def _finite_difference_gradient(f, point):
    slopes = []
    for i in range(len(point)):
        def along_i(xi, i=i):
            return f(*point[:i], xi, *point[i + 1 :])

        slopes.append(central_difference(along_i, point[i], 1e-6))
    return slopes


# Typical slips, one per input, each with the term it points at.  A slip is
# recognised by computing what the slipped derivative gives at the point.
_SLIPS = {
    "a": [
        (lambda a, b, c: -3 * a**2, "the −a^0.5 term depends on a too"),
        (lambda a, b, c: -3 * a**2 + 0.5 * a**-0.5, "the −a^0.5 term keeps its minus sign"),
        (lambda a, b, c: 3 * a**2 - 0.5 * a**-0.5, "the −a³ term keeps its minus sign"),
    ],
    "b": [
        (lambda a, b, c: math.cos(3 * b) + 2.5 * b**1.5, "sin(3b): the inner 3b has a slope of its own (chain rule)"),
        (lambda a, b, c: -3 * math.cos(3 * b) + 2.5 * b**1.5, "the slope of sin is cos, not −cos"),
        (lambda a, b, c: 3 * math.cos(3 * b), "the b^2.5 term depends on b too"),
    ],
    "c": [
        (lambda a, b, c: -1.0 / c**2, "mind the sign: −1/c rises as c grows (for c > 0)"),
    ],
}

_TERMS = {
    "a": "only −a³ and −a^0.5 involve a: apply the power rule to each",
    "b": "only sin(3b) and b^2.5 involve b: chain rule for the first, power rule for the second",
    "c": "only −1/c involves c: write it as −c^(−1) and apply the power rule",
}


def _as_three_numbers(result):
    if isinstance(result, (str, bytes)):
        return None
    try:
        values = [as_number(v) for v in result]
    except TypeError:
        return None
    if len(values) != 3 or any(v is None for v in values):
        return None
    return [float(v) for v in values]


def _wrong_partial(name, got, point):
    for slip, hint in _SLIPS[name]:
        try:
            if close(got, slip(*point), 1e-6):
                return f"∂f/∂{name} is off: {hint}"
        except (ValueError, ZeroDivisionError):
            continue
    return f"∂f/∂{name} is off: {_TERMS[name]}"


@checker("Exercise 1: the gradient of f(a, b, c) by hand")
def analytic_gradient(gradf):
    if not callable(gradf):
        return failed(f"pass the function itself (check.analytic_gradient(gradf)), not {type(gradf).__name__}")
    for point in [(2.0, 3.0, 4.0), (1.0, 0.5, -2.0)]:
        result = gradf(*point)
        values = _as_three_numbers(result)
        if values is None:
            return failed(f"gradf{point} returned {result!r:.60}; return a list of three numbers [∂f/∂a, ∂f/∂b, ∂f/∂c]")
        numeric = _finite_difference_gradient(_lecture_f, list(point))
        if not all(close(v, n, 1e-5) for v, n in zip(values, numeric)) and \
                all(close(v, n, 1e-5) for v, n in zip(sorted(values), sorted(numeric))):
            return failed(f"at (a, b, c) = {point} the three partial derivatives are all there, in another order: "
                          "return them as [∂f/∂a, ∂f/∂b, ∂f/∂c]")
        for i, name in enumerate("abc"):
            if not close(values[i], numeric[i], 1e-5):
                return failed(f"at (a, b, c) = {point}: " + _wrong_partial(name, values[i], point))
    return passed("every partial derivative agrees with finite differences, at (2, 3, 4) and at (1, 0.5, -2)")


_FROM_OP = "Value.from_op(out_data, (x,), (local_grad,), 'sin')"


def _from_op_problem(error):
    """What a learner's call of Value.from_op got wrong, from the error it raised (None if it did not come from there)."""
    text = str(error)
    frames = {frame.name for frame in traceback.extract_tb(error.__traceback__)}
    if "must be real number" in text:
        return "math.sin needs a plain number, and x is a Value: take the sine of its number, math.sin(x.data)"
    if "from_op" not in frames and "from_op()" not in text:
        return None
    if "from_op()" in text:  # the call itself: arguments missing or too many
        return (f"Value.from_op takes four arguments, from_op(data, inputs, local_grads, op): the output's number, "
                f"a tuple of the inputs, a tuple with one local derivative per input, and the op's name, e.g. {_FROM_OP}")
    if isinstance(error, ValueError):  # the engine's own words: one local derivative per input
        return f"Value.from_op(data, inputs, local_grads, op) refused them: {text}"
    return (f"Value.from_op(data, inputs, local_grads, op) wants the inputs and their local derivatives as tuples, "
            f"even for a single input: {_FROM_OP}, with (x,) a tuple of one input and (local_grad,) a tuple of "
            "one number")


@checker("Exercise 2: sin as an operation of the engine")
def sin_op(sin):
    if not callable(sin):
        return failed(f"pass the function itself (check.sin_op(sin)), not {type(sin).__name__}")
    for x0 in (0.7, -2.0, 3.0):
        x = Value(x0)
        try:
            out = sin(x)
        except (TypeError, ValueError) as error:
            problem = _from_op_problem(error)
            if problem is None:
                raise
            return failed(problem)
        if not isinstance(out, Value):
            return failed(f"sin(Value({x0})) returned {type(out).__name__}; return a Value, e.g. from Value.from_op(...)")
        if not close(out.data, math.sin(x0), 1e-6):  # not tighter: np.float32 keeps about 7 digits
            return failed(f"sin(Value({x0})).data is {out.data!r}; it should hold math.sin of the input's data")
        if not any(node is x for node in out.inputs):
            return failed(
                "the result does not list x among its inputs (a new Value(x.data) is a different node): "
                "backward follows .inputs to reach x"
            )
        try:
            out.backward()
        except RuntimeError as error:
            if "no way to pass gradients" not in str(error):
                raise
            return failed(f"sin(x) has x as its input but no local derivative, so backward() can't pass a gradient "
                          f"to x: make it with {_FROM_OP}")
        slope = math.cos(x0)
        if close(x.grad, slope, 1e-6):
            continue
        if close(x.grad, math.cos(math.sin(x0)), 1e-9):
            return failed("the local derivative is cos of sin's output; the slope of sin at x is cos of the input, "
                          "math.cos(x.data)")
        if close(x.grad, math.sin(x0), 1e-9):
            return failed("the local derivative is sin(x) itself; it should be the slope of sin at x")
        if close(x.grad, -slope, 1e-9):
            return failed("the local derivative has the wrong sign: sin rises where cos is positive")
        return failed(f"at x = {x0} backward gives x.grad = {x.grad!r}, which is not the slope of sin there")
    x = Value(3.0)
    (sin(3 * x)).backward()
    if not close(x.grad, 3 * math.cos(9.0), 1e-6):
        return failed("sin(3 * x) gets the wrong gradient; is the local derivative computed from the input's data?")
    return passed("sin is now an operation like any other: backward() handles sin(3 * b) by itself")


@checker("Exercise 3: a.grad after three backward() calls")
def grad_after_three_backwards(answer):
    problem = number_problem(answer, want="the answer is one number, a.grad after the third call")
    if problem:
        return failed(problem)
    answer = as_number(answer)
    a = 2.0
    once = 2 * a + 1  # dy/da for y = a*a + a
    if close(answer, 3 * once):
        return passed("each backward() adds dy/da = 5 into a.grad, and a leaf keeps what it has")
    if close(answer, 27.0) or close(answer, 14.0):
        calls = "three" if close(answer, 27.0) else "two"
        return failed(
            f"{answer:g} is what the lecture's code (and micrograd 0.1.0) gives after {calls} calls: its backward() "
            "leaves the gradients of the nodes in between from the call before and passes them down again, so the "
            "a*a node hands a 1, then 2, then 3 times its share (a.grad 5, 14, 27). This engine starts the nodes "
            "in between from 0 on every call and only the leaves keep adding up (the README explains why): what "
            "does one call add to a.grad, and what does a leaf keep from the calls before?")
    if close(answer, once):
        return failed(f"{answer:g} is what one backward() leaves in a.grad; what happens to a leaf's grad on the next call?")
    if close(answer, 2 * once):
        return failed(f"{answer:g} is what two backward() calls leave in a.grad; the cell calls it three times")
    if close(answer, 3 * 2 * a) or close(answer, 2 * a):
        return failed(f"{answer:g} misses part of y: a appears in a*a (twice) and once more on its own")
    return failed(f"{answer:g} is not it; hint: work out dy/da once, then think about what backward() does to a leaf's grad")
