"""Lesson 4's backward() check: a learner's backward() run on the checker's graphs, and its slips recognised by their numbers."""

from micrograd.graphs import post_order
from micrograd.course.lessons.build import root_down
from .order import Node, node_name
from micrograd.course.verdicts import close, fmt_expected
from micrograd.course.carry.yours import whose

# Wrong ways to write backward(), run on the same graph to recognise a learner's slip by its numbers.

def walk(root, order, overwrite=False, seed=1.0, chain=True, sign=1.0):
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


def seeded_late(root):
    walk(root, list(reversed(post_order(root))), seed=0.0)
    root.grad = 1.0


def recursive(root):
    """Each node passes its gradient down as soon as it gets a share, once per path (the graphs are small)."""
    for node in post_order(root):
        node.grad = 0.0
    root.grad = 1.0

    def down(node):
        for child, local in zip(node._prev, node._locals):
            child.grad += local * node.grad
            down(child)

    down(root)


BACKWARD_SLIPS = {
    "overwrite": lambda root: walk(root, list(reversed(post_order(root))), overwrite=True),
    "forwards": lambda root: walk(root, post_order(root)),
    "unseeded": lambda root: walk(root, list(reversed(post_order(root))), seed=0.0),
    "seeded late": seeded_late,
    "no chain": lambda root: walk(root, list(reversed(post_order(root))), chain=False),
    "per path": recursive,
    "minus": lambda root: walk(root, list(reversed(post_order(root))), sign=-1.0),
}

SLIP_MESSAGES = {
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
    "recursion": ("your my_backward goes down recursively, calling each node's _backward() as soon as it is "
                  "reached and then its inputs', with no order, so"),
}


def grads(root):
    return [n.grad for n in post_order(root)]


def walk_order(reads):
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
        return "forwards", SLIP_MESSAGES["forwards"]
    child, node = early[0]
    return "arbitrary", (f"{node_name(child)} passed its gradient on before {node_name(node)}, which uses it, had passed it "
                         "its share: walk the nodes in reverse topological order, for node in "
                         "reversed(my_topological_order(root)). A set, or any other order, passes some gradients on "
                         "too early")


class BackwardRun:
    """One graph, the learner's backward() run on it, and the right gradients."""

    def __init__(self, graph, root, leaves, value_root, value_leaves, backward):
        Node.reads = []
        try:
            backward(root)
        finally:
            self.reads, Node.reads = Node.reads, None
        value_root.backward()
        self.graph, self.root = graph, root
        self.order = post_order(root)
        self.got = grads(root)
        want = [leaf.grad for leaf in value_leaves]
        self.wrong = [(leaf, w) for leaf, w in zip(leaves, want) if not close(leaf.grad, w, 1e-9)]
        walk(root, list(reversed(self.order)))
        self.right = grads(root)
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
                return f"{node_name(node)}.grad is {fmt_expected(self.got[k], self.right[k])}"
        leaf, w = self.wrong[0]
        return f"{node_name(leaf)}.grad is {fmt_expected(self.got[self.order.index(leaf)], w)}"


def walked(reads):
    """The nodes a walk passed gradients on from, in its order (a node read again at once counts once)."""
    visits = []
    for node, _ in reads:
        if not (visits and visits[-1] is node):
            visits.append(node)
    return [node for node in visits if node._prev]


def walked_twice(run):
    """The node a walk passed on twice, when a right loop over that walk gives the learner's numbers; else None.

    That is a right backward() walking an order that lists a node twice (one from a topological order
    without a visited set): the loop is right, the order is not.
    """
    visits, seen = walked(run.reads), set()
    twice = next((n for n in visits if id(n) in seen or seen.add(id(n))), None)
    if twice is None:
        return None
    for node in run.order:
        node.grad = 0.0
    run.root.grad = 1.0
    for node in visits:
        for child, local in zip(node._prev, node._locals):
            child.grad += local * node.grad
    replayed = grads(run.root)
    run.restore()
    return twice if all(close(g, r, 1e-9) for g, r in zip(run.got, replayed)) else None

def recurses_through_backward(function):
    """Does function (or a function it defines or names) call itself and each node's _backward()?

    That backward() goes down from each node at once, along every path, with no order at all: a node
    reached twice passes its gradient on twice, which looks like an order that lists it twice."""
    code, names = getattr(function, "__code__", None), getattr(function, "__globals__", {})
    if code is None:
        return False
    codes, seen = [code], set()
    while codes:
        code = codes.pop()
        if code in seen:
            continue
        seen.add(code)
        own = set(code.co_names) | set(code.co_freevars) | set(code.co_cellvars)
        if code.co_name in own and "_backward" in code.co_names:
            return True
        codes.extend(const for const in code.co_consts if hasattr(const, "co_name"))
        codes.extend(names[name].__code__ for name in code.co_names if hasattr(names.get(name), "__code__"))
    return False


def whose_class(cls):
    """The class as an output names it: "your MyValue", or "the worked answer's MyValue" when yours.use gave the worked
    answer (the learner's lesson-3 class not written yet, or failing its check).  A class made in the notebook by
    other means is the learner's."""
    try:
        return whose(cls)
    except ValueError:
        return f"your {getattr(cls, '__name__', 'MyValue')}"


def on_your_value(backward):
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
        owner = whose_class(cls)
        if owner.startswith("the worked answer's"):
            # Not the learner's class: this lesson runs on the worked answer's until theirs passes lesson 3's check.
            return (f"my_backward is right on the checker's nodes, but the next cells run it on {owner}, this lesson's "
                    "while your lesson-3 MyValue is not written or not right yet (the line under yours.use above says "
                    f"why), and there it raises AttributeError: {error}. The worked answer's nodes keep their inputs in "
                    "._prev: read only .grad, ._prev and _backward(), or get yours past lesson 3's check, so "
                    "that this lesson runs on it")
        hint = ("call each node's _backward(), root first, which works on either kind of node"
                if "_local_grads" in str(missing) else "use only what your MyValue has: .grad, ._prev and _backward()")
        return (f"my_backward is right on the checker's nodes, but the next cells run it on {owner} (lesson 3), "
                f"and there it raises AttributeError: {error}. Your nodes don't keep what it reads: {hint}")
    return None


def backward_problem(run):
    root, got, graph, detail = run.root, run.got, run.graph, run.detail()
    seeded = [grad for node, grad in run.reads if node is root][:1]  # the root's gradient when the walk reached it
    if not seeded and any(node._prev for node, _ in run.reads) and close(root.grad, 1.0, 1e-12):
        return (f"on {graph}: {detail}: the root is seeded with 1, but the walk skips it, so its inputs never get "
                "their share and nothing below it does. The seed is the root's gradient; the root still passes "
                "it on like every other node, first: walk all of reversed(order), the root included")
    for slip, simulate in BACKWARD_SLIPS.items():
        if slip in ("seeded late", "forwards") and seeded and seeded[0] != 0.0:
            continue
        simulate(root)
        if all(close(g, s, 1e-9) for g, s in zip(got, grads(root))):
            return f"on {graph}: {detail}: {SLIP_MESSAGES[slip]}"
    kind, problem = walk_order(run.reads)  # after the slips the numbers show: the walk is read less directly
    if problem:
        return f"on {graph}: {detail}: {problem}"
    if seeded and seeded[0] != 0.0 and all(close(g, 0.0, 1e-12) for g in got[:-1]):
        return (f"on {graph}: {detail}: every gradient below the root is 0, though the root was seeded. Each node "
                "passes on local × its own gradient: child.grad += local * node.grad")
    if run.wrong:
        return f"on {graph}: {detail} (what the package's backward() gives)"
    return f"on {graph}: the leaves are right but {detail}"
