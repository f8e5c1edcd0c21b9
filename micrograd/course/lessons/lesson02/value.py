"""Lesson 2's build-it, judged: a learner's Value class, checked node by node against the package's
own Value on the lesson's expression (data, op, inputs kept in order, labels, repr), and the
operations beyond + and * it may define."""

import re

from micrograd.engine import Value
from micrograd.course.lessons.build import attempt, nodes_below, renamed_only, still_stub
from micrograd.course.carry.pieces import no_prev
from micrograd.course.verdicts import close, failed, fmt, fmt_expected, passed

__all__ = ["check_value_class", "untouched"]


# Build it yourself, part 1: a minimal Value --------------------------------


def _inputs_problem(node, expected, text):
    """What is wrong with node._prev for `text`, whose inputs should be `expected` (in order), or None."""
    if not hasattr(node, "_prev"):
        return no_prev(node)
    prev = getattr(node, "_prev", None)
    if prev is ...:
        return f"{text}: _prev is still ...; store the inputs: self._prev = tuple(_children)"
    if isinstance(prev, (set, frozenset)):  # the lecture's way: right, though it keeps no order to check
        if {id(p) for p in prev} == {id(e) for e in expected}:
            return None
        prev = list(prev)
    elif not isinstance(prev, (tuple, list)):
        return f"{text}: _prev is {type(prev).__name__}; make it a tuple of the input Values"
    if [id(p) for p in prev] == [id(e) for e in expected]:
        return None
    if isinstance(getattr(node, "_prev", None), (tuple, list)) and len(prev) == len(expected) \
            and [id(p) for p in prev] == [id(e) for e in reversed(expected)]:
        return f"{text}: _prev has the inputs the other way round; keep them in operand order, (self, other)"
    if any(not hasattr(p, "data") for p in prev):
        return f"{text}: _prev holds {prev!r:.60}; keep the input Values themselves, not their numbers"
    if len(prev) == len(expected) and sorted(p.data for p in prev) == sorted(e.data for e in expected) \
            and not {id(p) for p in prev} & {id(e) for e in expected}:
        return (f"{text}: _prev holds copies of the inputs (new values with the same numbers), not the inputs "
                "themselves: keep (self, other), so that walking back from the result reaches the very Values "
                "you made, and a gradient can reach them")
    return f"{text}: _prev has {len(prev)} entr{'y' if len(prev) == 1 else 'ies'}; it should hold the {len(expected)} inputs, (self, other)"


def _node_problem(node, cls, text, data, op, inputs):
    if node is None:
        return f"{text} returned None; the operator must return the new {cls.__name__}"
    for operand in inputs:
        if node is operand:
            return (f"{text} returned one of its operands ({_called(operand)}) instead of a new value: an operation "
                    f"must return a new {cls.__name__}, e.g. {cls.__name__}(self.data + other.data, (self, other), '+'), "
                    "and leave its operands as they were")
    if not isinstance(node, cls):
        return f"{text} returned a {type(node).__name__}; return a new {cls.__name__} so it can be used again"
    if not close(node.data, data, 1e-12):
        return f"{text} holds data {fmt_expected(node.data, data)}"
    if getattr(node, "_op", None) != op:
        return f"{text} has _op {getattr(node, '_op', None)!r}, expected {op!r}"
    return _inputs_problem(node, inputs, text)


def _called(node):
    return getattr(node, "label", "") or "the first operand"


def _changed(operands, before, cls, text):
    """Which operand an operation changed, as a message, or None."""
    for operand, data in zip(operands, before):
        if getattr(operand, "data", None) != data:
            return (f"{text} changed {_called(operand)}: its data went from {fmt(data)} to {fmt(operand.data)}. "
                    f"Compute the result into a new {cls.__name__} and leave the operands alone: "
                    "a value used again later must still hold its number")
    return None


def _make(cls, text, make, operands):
    """make(), then a message if it changed one of its operands: (result, problem)."""
    before = [o.data for o in operands]
    result = make()
    return result, _changed(operands, before, cls, text)


def untouched(cls):
    leaf = cls(2.0, label="a")
    if getattr(leaf, "_prev", None) is not ... or getattr(leaf, "_op", None) is not ...:
        return False
    return still_stub(lambda: leaf + cls(1.0)) and still_stub(lambda: leaf * cls(1.0))


def check_value_class(cls):
    problem = renamed_only(cls)
    if problem:
        return failed(problem)
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
    e, changed = _make(cls, "a * b", lambda: attempt("__mul__", lambda: a * b), (a, b))
    problem = _node_problem(e, cls, "a * b (a = 2, b = -3)", (pa * pb).data, "*", (a, b)) or changed
    if problem:
        return failed(problem)
    e.label = e.label or "e"
    d, changed = _make(cls, "e + c", lambda: attempt("__add__", lambda: e + c), (e, c))
    problem = _node_problem(d, cls, "e + c (e = a * b = -6, c = 10)", (pa * pb + pc).data, "+", (e, c)) or changed
    if problem:
        return failed(problem)
    d.label = d.label or "d"
    L, changed = _make(cls, "d * f", lambda: d * f, (d, f))
    problem = _node_problem(L, cls, "L = d * f", ((pa * pb + pc) * pf).data, "*", (d, f)) or changed
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
        return failed(f"(x + y) * x + y at x = 1.5, y = -0.5 gives {fmt_expected(z.data, ((px + py) * px + py).data)}")

    if "__str__" in vars(cls) and not any("__repr__" in vars(k) for k in cls.__mro__[:-1]):
        return failed("your MyValue has __str__ but no __repr__: the notebook shows a value with repr(), which falls "
                      "back to Python's '<MyValue object at ...>'; name the method __repr__")
    try:
        text = attempt("__repr__", lambda: repr(cls(4.0, label="x")))
    except TypeError as error:
        if "returned non-string" not in str(error):
            raise
        shown = str(error).rpartition("(type ")[2].rstrip(")")
        shown = "None" if shown == "NoneType" else f"a {shown}"
        return failed(f"__repr__ gives {shown}, not text: return the text, e.g. return f\"MyValue(data={{self.data}})\", "
                      "rather than print it")
    if not isinstance(text, str) or not _shows(4.0, text) or "object at 0x" in text:
        return failed(f"repr(MyValue(4.0)) is {text!r:.60}; show the data, e.g. MyValue(data=4.0)")
    problem = _extra_ops_problem(cls)
    if problem:
        return failed(problem)
    if isinstance(getattr(L, "_prev", None), (set, frozenset)):
        return passed("L = -8.0, built node by node with every input remembered; your Value makes graphs. Your _prev "
                      "is a set, as in the lecture, and that is right; the course keeps a tuple because a set holds "
                      "a + a's input once, not twice, and has no stable order: it follows memory addresses, which change "
                      "from run to run")
    return passed("L = -8.0, built node by node with every input remembered in order; your Value makes graphs")



# Operations the lesson does not ask for, checked when a learner's class has them (the lecture adds
# them one by one): (method, expression, how to compute it, expected data, a slip's data and its message).
_EXTRA_OPS = (
    ("__neg__", "-a", lambda a, b: -a, -5.0, None),
    ("__sub__", "a - b", lambda a, b: a - b, 8.0,
     (2.0, "that is a + b: a - b adds the negated b, self + (-other)")),
    ("__sub__", "b - a", lambda a, b: b - a, -8.0, (8.0, "that is a - b: subtract the second operand from the first")),
    ("__rsub__", "2 - a", lambda a, b: 2 - a, -3.0,
     (3.0, "that is a - 2: in __rsub__, self is the right-hand operand, so return other - self "
           "(e.g. MyValue(other) + (-self)), not self - other")),
    ("__radd__", "2 + a", lambda a, b: 2 + a, 7.0, None),
    ("__rmul__", "2 * a", lambda a, b: 2 * a, 10.0, None),
    ("__truediv__", "a / b", lambda a, b: a / b, -5.0 / 3.0,
     (-0.6, "that is b / a: divide self by other")),
)


def _extra_ops_problem(cls):
    """What is wrong with an operation beyond + and * that the learner's class defines, or None."""
    for method, text, make, want, slip in _EXTRA_OPS:
        if not hasattr(cls, method):
            continue
        a, b = cls(5.0, label="a"), cls(-3.0, label="b")
        where = f"{text} (a = 5, b = -3)" if "b" in text else f"{text} (a = 5)"
        try:
            out, changed = _make(cls, text, lambda: make(a, b), (a, b))
        except Exception as error:  # the lesson does not ask for it: say how it fails, not crash
            return f"your {method} raised {type(error).__name__} on {where}: {error}"
        if changed:
            return changed
        if out is a or out is b:
            return f"{where} returned one of its operands; return a new {cls.__name__}"
        if not hasattr(out, "data") or not hasattr(out, "_prev"):
            return f"{where} returned {type(out).__name__}; return a new {cls.__name__} so backward can reach a and b"
        if not close(out.data, want, 1e-12):
            if slip is not None and close(out.data, slip[0], 1e-12):
                return f"{where} holds {fmt_expected(out.data, want)}: {slip[1]}"
            return f"{where} holds {fmt_expected(out.data, want)}"
        reached = {id(n) for n in nodes_below(out, lambda n: tuple(getattr(n, "_prev", ())))}
        if id(a) not in reached:
            return f"{where}: a is not among the inputs below the result; keep the operands in _prev so the graph reaches them"
    return None


def _shows(number, text):
    """Does text show number, in any of the ways a learner prints one (4.0, 4, 4.000, 4e+00)?"""
    return any(float(found) == number for found in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", text))
