"""Checkers for lesson 9, debugging autograd: repair the broken ops, find the broken one.

Every op is checked the way the lesson teaches: its output against plain
float arithmetic, and its gradients against finite differences
(``gradcheck``), at several points, because a wrong derivative can agree with
the right one at a lucky point.  The repairs must be the learner's own: the
result has to be a node made by ``Value.from_op`` (the engine's built-in
``a - b``, ``n - a`` or ``a ** b`` would pass every numeric test while the
learner wrote no local derivative), which the check sees by watching what
``Value.from_op`` makes while it runs the learner's function.
"""

import contextlib
import math
import traceback

from micrograd import errors
from micrograd.engine import Value
from micrograd.gradcheck import gradcheck
from micrograd.course.verdicts import checker, class_name, failed, passed, value_wanted

__all__ = ["subtraction", "power", "reflected", "broken_op", "suspects", "suspect_function"]


# -- checking one op ---------------------------------------------------------------


def _fmt(x):
    return f"{x:g}"


def _at(names, point):
    return ", ".join(f"{name} = {_fmt(x)}" for name, x in zip(names, point))


@contextlib.contextmanager
def _watching_from_op():
    """The local derivatives of every node ``Value.from_op`` makes while the block runs.

    Watched where ``from_op`` checks its arguments (``errors.custom_op``), not by replacing
    ``from_op`` itself: a learner may have taken the method earlier (``F = Value.from_op``),
    and a wrong call should fail in ``from_op``'s own words.  A node is from_op's if its
    ``local_grads`` is one of these tuples (the very object, not an equal one)."""
    made = []
    original = errors.custom_op

    def custom_op(*args, **kwargs):
        checked = original(*args, **kwargs)
        made.append(checked[2])
        return checked

    errors.custom_op = custom_op
    try:
        yield made
    finally:
        errors.custom_op = original


_FROM_OP = "Value.from_op(data, (a, b), (local_a, local_b), op)"


def _from_op_problem(error):
    """What a learner's call of Value.from_op got wrong, from the error it raised (None if not from there)."""
    frames = [frame.name for frame in traceback.extract_tb(error.__traceback__)]
    if "from_op()" in str(error):  # the call itself: arguments missing or too many
        return (f"Value.from_op(data, inputs, local_grads, op) takes four arguments: the output's number, "
                f"a tuple of the inputs, a tuple with one local derivative per input, and the op's name, "
                f"e.g. {_FROM_OP}")
    if "from_op" not in frames:
        return None
    if isinstance(error, ValueError):  # the engine's own words: one local derivative per input
        return f"Value.from_op(data, inputs, local_grads, op) refused them: {error}"
    return (f"Value.from_op(data, inputs, local_grads, op) wants the inputs and their local derivatives as tuples, "
            f"even for a single input, e.g. {_FROM_OP} or Value.from_op(data, (a,), (local_a,), op)")


def _not_from_op(out):
    """Why ``out``, a Value that Value.from_op did not make, is not the learner's own op."""
    if out.op in ("+", "-", "*", "/", "**", "neg"):
        made_by = f"the engine's own {out.op!r} operator"
    else:
        made_by = f"an op {out.op!r} that is not yours" if out.op else "a plain Value(...), with no inputs"
    return (
        f"the result was made by {made_by}, not by Value.from_op, so the local derivatives are not "
        "ones you wrote; hint: return Value.from_op(data, inputs, local_grads, op) with the op's value "
        "and one local derivative per input"
    )


def _problem(op, reference, points, names, hints, forward_hint=None):
    """What is wrong with ``op``, or None, checking point by point.

    At each point the forward value comes first (gradcheck cannot see a wrong
    one: it compares gradients with whatever function was computed), then
    whether the result is a node of ``Value.from_op``, then the gradients.
    ``hints`` maps an input's name to a hint about its local derivative.
    """
    forward_hint = forward_hint or "get the forward value right first; gradcheck cannot catch it"
    for point in points:
        with _watching_from_op() as made:
            try:
                out = op(*[Value(x) for x in point])
            except (TypeError, ValueError) as error:
                problem = _from_op_problem(error)
                if problem is None:
                    raise
                return problem
        if not isinstance(out, Value):
            return (
                f"it returned {class_name(out)} {out!r}, not {value_wanted(out)}; hint: build the result with "
                "Value.from_op(data, inputs, local_grads, op), so backward() can reach the inputs"
            )
        expected = reference(*point)
        if not math.isclose(out.data, expected, rel_tol=1e-9, abs_tol=1e-12):
            return (
                f"at {_at(names, point)} it computes {_fmt(out.data)}, but the answer is "
                f"{_fmt(expected)}; hint: {forward_hint}"
            )
        if not any(out.local_grads is local_grads for local_grads in made):
            return _not_from_op(out)
        report = gradcheck(op, point, names=names)
        if not report.ok:
            row = report.failures[0]
            return (
                f"at {_at(names, point)} backward() gives {_fmt(row.analytic)} for {row.name}, "
                f"but the slope measured by finite differences is {_fmt(row.numeric)}; hint: {hints[row.name]}"
            )
    return None


def _verdict(problem, praise):
    return failed(problem) if problem else passed(praise)


# -- exercise 1: subtraction -------------------------------------------------------

_SUBTRACTION_POINTS = [(5.0, 3.0), (-2.0, 0.5), (0.25, -4.0)]


@checker("Exercise 1: subtraction")
def subtraction(sub):
    """``sub(a, b)`` must compute a − b with the right gradient for both inputs."""
    problem = _problem(
        sub,
        lambda a, b: a - b,
        _SUBTRACTION_POINTS,
        ["a", "b"],
        {
            "a": "how does a − b change when a alone grows by 1?",
            "b": "how does a − b change when b alone grows by 1? The sign matters",
        },
    )
    return _verdict(problem, "a − b passes gradcheck at every point: b's gradient has its minus sign back")


# -- exercise 2: the power with a Value exponent -------------------------------------

_POWER_POINTS = [(1.5, 3.0), (2.0, 0.5), (0.7, -1.2), (4.0, 2.0)]


@checker("Exercise 2: a ** b with a Value exponent")
def power(pow_op):
    """``pow_op(a, b)`` must compute a ** b (a > 0) with both gradients right."""
    problem = _problem(
        pow_op,
        lambda a, b: a**b,
        _POWER_POINTS,
        ["a", "b"],
        {
            "a": "with the exponent held fixed, a ** b follows the power rule",
            "b": "with the base held fixed, a ** b = exp(b · ln a) is an exponential in b, "
            "not a power of b",
        },
    )
    return _verdict(problem, "both local derivatives are right: the power rule for a, out · ln(a) for b")


# -- exercise 3: the reflected operators -------------------------------------------

_REFLECTED_POINTS = [5.0, -1.5, 0.25]
_NUMBERS = [2.0, -3.0]


@checker("Exercise 3: 2 − a and 2 / a")
def reflected(rsub, rtruediv):
    """``rsub(a, n)`` must compute n − a and ``rtruediv(a, n)`` n / a."""
    for name, op, reference, symbol, dunder in (
        ("rsub", rsub, lambda a, n: n - a, "−", "__rsub__"),
        ("rtruediv", rtruediv, lambda a, n: n / a, "/", "__rtruediv__"),
    ):
        for n in _NUMBERS:
            problem = _problem(
                lambda a, op=op, n=n: op(a, n),
                lambda a, reference=reference, n=n: reference(a, n),
                [(a,) for a in _REFLECTED_POINTS],
                ["a"],
                {"a": f"differentiate {_fmt(n)} {symbol} a with respect to a"},
                forward_hint=f"for 2 {symbol} a Python calls a.{dunder}(2): the number is the LEFT operand",
            )
            if problem:
                return failed(f"{name}(a, {_fmt(n)}) should compute {_fmt(n)} {symbol} a: {problem}")
    return passed("the number is on the left where it belongs, and the gradients match")


# -- exercise 4: find the broken op ------------------------------------------------
# Four small ops, one with a wrong local derivative.  The wrong one agrees with
# the right one at 0, so checking a single convenient point is not enough.


def cube(x):
    """x³."""
    return Value.from_op(x.data**3, (x,), (3 * x.data**2,), "cube")


def softplus(x):
    """ln(1 + eˣ), a smooth ReLU."""
    e = math.exp(-abs(x.data))
    out = max(x.data, 0.0) + math.log1p(e)
    return Value.from_op(out, (x,), (1.0 / (1.0 + math.exp(x.data)),), "softplus")


def gauss(x):
    """exp(−x²), a bump."""
    out = math.exp(-x.data * x.data)
    return Value.from_op(out, (x,), (-2.0 * x.data * out,), "gauss")


def hypot(x, y):
    """√(x² + y²), the length of (x, y)."""
    r = math.hypot(x.data, y.data)
    return Value.from_op(r, (x, y), (x.data / r, y.data / r), "hypot")


suspects = {"cube": cube, "softplus": softplus, "gauss": gauss, "hypot": hypot}


def suspect_function(x, y):
    """A function built from the four suspects: one of them is broken."""
    return hypot(cube(x), softplus(y)) * gauss(x)


_PROBE_POINTS = [-1.3, -0.4, 0.0, 0.6, 1.7]


def _broken_suspects():
    """The suspects that fail gradcheck somewhere, found the way the learner should."""
    broken = []
    for name, op in suspects.items():
        arity = op.__code__.co_argcount
        for x in _PROBE_POINTS:
            point = [x + 0.5 * i for i in range(arity)]  # never (0, 0), where hypot has no slope
            if not gradcheck(op, point):
                broken.append(name)
                break
    return broken


@checker("Exercise 4: the broken op")
def broken_op(answer):
    """``answer`` names the suspect (or is the suspect) with the wrong derivative."""
    name = getattr(answer, "__name__", answer)
    if isinstance(name, str) and not callable(answer):
        name = name.strip().lower()  # "Softplus", "softplus " name the same suspect
    if name == "suspect_function":
        return failed("suspect_function is built from the four suspects, and its gradient is wrong because one of "
                      "them is: gradcheck each suspect on its own and answer with the one that fails")
    if not isinstance(name, str) or name not in suspects:
        given = (f"the function {name}" if callable(answer) and name != "<lambda>" else
                 "a lambda" if callable(answer) else f"{answer!r:.60}")
        return failed(f"{given} is not one of the suspects; answer with one of {', '.join(map(repr, suspects))}")
    if name in _broken_suspects():
        return passed(f"{name} records the wrong local derivative: gradcheck fails at every point except 0")
    return failed(
        f"{name} passes gradcheck everywhere; hint: gradcheck each suspect on its own, at several "
        "points, not just 0: some wrong derivatives agree with the right one at a special point"
    )
