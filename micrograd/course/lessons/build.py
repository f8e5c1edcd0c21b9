"""What the build-it-yourself checkers (lessons 2 to 6) share.

The learner's classes and functions are run on graphs the checker builds
itself; a piece still raising NotImplementedError (or still holding ``...``)
is "not written yet", and a class whose every piece is untouched is "not
attempted".
"""

from micrograd.graphs import inputs_of, is_node, post_order
from micrograd.course.carry import stale
from micrograd.course.verdicts import failed, not_attempted

__all__ = [
    "Unwritten",
    "attempt",
    "still_stub",
    "check_classes",
    "nodes_below",
    "inputs_of",
    "is_value_like",
    "root_down",
    "first_wrong",
    "wrong_gradient",
    "renamed_only",
    "unrun_cell_problem",
]

# The pieces' names: a NameError for one of them means the cell that makes it has not run in this kernel.
_PIECE_NAMES = ("MyValue", "my_topological_order", "my_backward", "MyNeuron", "MyLayer", "MyMLP", "my_train")


class Unwritten(Exception):
    """A piece of the learner's code that still raises NotImplementedError."""

    def __init__(self, piece):
        super().__init__(piece)
        self.piece = piece


def attempt(piece, make):
    """make(), with NotImplementedError turned into Unwritten(piece)."""
    try:
        return make()
    except NotImplementedError:
        raise Unwritten(piece) from None


def still_stub(call):
    """Does call() still raise NotImplementedError, as the stub given in the lesson does?

    Anything else it does (return, or raise another error) means the learner changed it.
    """
    try:
        call()
    except NotImplementedError:
        return True
    except Exception:
        return False
    return False


def check_classes(classes, call, untouched, check, pieces):
    """The verdict on the learner's classes, as every build-it checker of a class gives it.

    ``call`` is how the checker is called (for the message when something other than
    the classes is passed), ``untouched(*classes)`` says whether they are still the
    stubs as given, ``check(*classes)`` runs them, and ``pieces`` names what to fill in.
    """
    if not all(isinstance(c, type) for c in classes):
        passed = ", ".join(type(c).__name__ for c in classes)
        return failed(f"pass the class itself: {call}, not an instance or a value ({passed})")
    left = stale.problem(*classes)
    if left:
        return failed(left)
    if untouched(*classes):
        return not_attempted(f"not attempted yet: fill in {pieces}, then run the cell again")
    try:
        return check(*classes)
    except Unwritten as missing:
        return failed(f"{missing.piece} is not written yet (it still raises NotImplementedError)")
    except NameError as error:
        problem = unrun_cell_problem(error)
        if problem is None:
            raise
        return failed(problem)


def unrun_cell_problem(error):
    """For a NameError of one of the pieces' names (MyValue, my_topological_order, ...): what to run first."""
    name = getattr(error, "name", None)
    if name not in _PIECE_NAMES:
        return None
    return (f"your code uses {name}, which this kernel does not have yet: it comes from a cell above that this "
            "kernel has not run (after a restart, say). Run > Run All Above, then this check again")


def _names_in(code):
    """The global and attribute names code (and the functions defined in it) reads."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_in(const)
    return names


def renamed_only(cls):
    """Why cls makes values of another class named Value, or None: a copied class renamed MyValue whose
    methods still say Value(...), which is the package's class (or another) in the notebook."""
    for method, attr in vars(cls).items():
        function = getattr(attr, "__func__", attr)
        code = getattr(function, "__code__", None)
        if code is None or "Value" not in _names_in(code):
            continue
        other = getattr(function, "__globals__", {}).get("Value")
        if not isinstance(other, type) or other is cls or issubclass(cls, other):
            continue
        whose = "the package's class" if other.__module__.startswith("micrograd") else f"a class of {other.__module__}"
        mine = cls.__name__
        return (f"your {mine}'s {method} makes a Value ({whose}), not a {mine}: the class was renamed, but not the "
                f"Value inside it. Write {mine} wherever the lecture's code says Value: {mine}(self.data + other.data, "
                f"(self, other), '+'), isinstance(other, {mine})")
    return None


def nodes_below(root, inputs_of):
    """Every node reachable from root through inputs_of(node), each once."""
    seen, stack, order = {id(root)}, [root], []
    while stack:
        node = stack.pop()
        order.append(node)
        for child in inputs_of(node):
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return order


def is_value_like(x):
    """Is x a micrograd-style value (the package's Value, a learner's MyValue, the lecture's)?

    It holds a number in ``.data``, has + and * and tanh, and keeps its inputs under any name a graph
    is read by (the lecture's ``_prev``, microgpt's ``_children``, ...).
    """
    cls = type(x)
    data = getattr(x, "data", None)
    return (
        isinstance(data, (int, float))
        and not isinstance(data, bool)
        and all(hasattr(cls, name) for name in ("__add__", "__mul__", "tanh"))
        and is_node(x)
    )


def root_down(root):
    """Every node below root, from the root down: each node before all of its inputs."""
    return post_order(root)[::-1]


def first_wrong(root, expected, tol=1e-9):
    """The first node from the root down whose .grad is not expected[id(node)]: (node, got, want), or None."""
    from micrograd.course.verdicts import close

    for node in root_down(root):
        want = expected.get(id(node))
        if want is not None and not close(getattr(node, "grad", None), want, tol):
            return node, getattr(node, "grad", None), want
    return None


def wrong_gradient(message, root, expected, tol=1e-9):
    """failed(message), with the learner's graph drawn under it and its first wrong gradient marked.

    ``expected`` maps id(node) to the gradient the node should hold.  Without a wrong node
    (or when the graph cannot be drawn) the verdict is the message alone.
    """
    found = first_wrong(root, expected, tol)
    if found is None:
        return failed(message)
    node, got, want = found
    from micrograd.course.figures import wrong_gradient_figure  # on first use: it imports the drawings

    try:
        figure = wrong_gradient_figure(root, node, got, want)
    except Exception:  # a drawing that fails must not hide the verdict on the learner's code
        figure = ""
    return failed(message, figure)
