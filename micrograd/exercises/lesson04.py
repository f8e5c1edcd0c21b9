"""Checkers for lesson 4, autograd.

The lecture's exercise is checked the way the lecture suggests: a gradient
worked out by hand must agree with finite differences of the function
itself, at the lecture's point and at a second one (so a list of numbers
copied from somewhere does not pass).
"""

import math
import numbers

from ..engine import Value
from ..gradcheck import central_difference
from .checking import checker, close, failed, passed

__all__ = ["analytic_gradient", "sin_op", "grad_after_three_backwards"]


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
    try:
        values = list(result)
    except TypeError:
        return None
    if len(values) != 3 or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
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
        for i, name in enumerate("abc"):
            if not close(values[i], numeric[i], 1e-5):
                return failed(f"at (a, b, c) = {point}: " + _wrong_partial(name, values[i], point))
    return passed("every partial derivative agrees with finite differences, at (2, 3, 4) and at (1, 0.5, -2)")


@checker("Exercise 2: sin as an operation of the engine")
def sin_op(sin):
    if not callable(sin):
        return failed(f"pass the function itself (check.sin_op(sin)), not {type(sin).__name__}")
    for x0 in (0.7, -2.0, 3.0):
        x = Value(x0)
        out = sin(x)
        if not isinstance(out, Value):
            return failed(f"sin(Value({x0})) returned {type(out).__name__}; return a Value, e.g. from Value.from_op(...)")
        if not close(out.data, math.sin(x0), 1e-12):
            return failed(f"sin(Value({x0})).data is {out.data!r}; it should hold math.sin of the input's data")
        if not any(node is x for node in out.inputs):
            return failed(
                "the result does not list x among its inputs (a new Value(x.data) is a different node): "
                "backward follows .inputs to reach x"
            )
        out.backward()
        slope = math.cos(x0)
        if close(x.grad, slope, 1e-9):
            continue
        if close(x.grad, math.sin(x0), 1e-9):
            return failed("the local derivative is sin(x) itself; it should be the slope of sin at x")
        if close(x.grad, -slope, 1e-9):
            return failed("the local derivative has the wrong sign: sin rises where cos is positive")
        return failed(f"at x = {x0} backward gives x.grad = {x.grad!r}, which is not the slope of sin there")
    x = Value(3.0)
    (sin(3 * x)).backward()
    if not close(x.grad, 3 * math.cos(9.0), 1e-9):
        return failed("sin(3 * x) gets the wrong gradient; is the local derivative computed from the input's data?")
    return passed("sin is now an operation like any other: backward() handles sin(3 * b) by itself")


@checker("Exercise 3: a.grad after three backward() calls")
def grad_after_three_backwards(answer):
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return failed(f"your answer is {answer!r} ({type(answer).__name__}); the answer is one number")
    a = 2.0
    once = 2 * a + 1  # dy/da for y = a*a + a
    if close(answer, 3 * once):
        return passed("each backward() adds dy/da = 5 into a.grad, and a leaf keeps what it has")
    if close(answer, once):
        return failed(f"{answer:g} is what one backward() leaves in a.grad; what happens to a leaf's grad on the next call?")
    if close(answer, 3 * 2 * a) or close(answer, 2 * a):
        return failed(f"{answer:g} misses part of y: a appears in a*a (twice) and once more on its own")
    return failed(f"{answer:g} is not it; hint: work out dy/da once, then think about what backward() does to a leaf's grad")
