"""Checkers for lesson 1, derivatives: slopes measured by nudging an input.

The expected slopes come from the derivative rules (the power rule, the
product rule), not from a difference quotient, so a measured answer is held
against the exact slope it should approach.
"""

import math

from micrograd.course.verdicts import as_number, checker, close, failed, number_problem, passed

__all__ = ["slope_at_minus_one", "slope_function", "two_input_slopes"]

# A nudged slope with h around 0.001 is off by about 3h from the exact one:
# near enough to count, and the verdict then says how to get nearer.
_MEASURED_TOL = 0.01
_EXACT_TOL = 1e-4


def _lesson_f(x):
    return 3 * x**2 - 4 * x + 5


def _lesson_f_slope(x):
    return 6 * x - 4  # power rule on 3x² − 4x + 5


def _not_a_number(answer, what="your answer is", want="the answer is one number, e.g. 1.5"):
    """A failure message when answer is not one finite number, else None."""
    number = as_number(answer)
    if number is not None and not math.isfinite(number):
        return f"{what} {number}; a slope of this smooth curve is a finite number (is h zero?)"
    return number_problem(answer, what, want)


def _measured(answer, expected, what):
    """passed() for an answer near expected, with a note when it is only roughly there."""
    if close(answer, expected, _EXACT_TOL):
        return passed(f"{what} is {expected:g}")
    return passed(f"{what} is {expected:g}; yours ({answer:.6g}) is a nudge with a largish h, a smaller h gets closer")


@checker("Exercise 1: the slope of f at x = -1")
def slope_at_minus_one(answer):
    problem = _not_a_number(answer)
    if problem:
        return failed(problem)
    answer = as_number(answer)
    x = -1.0
    expected = _lesson_f_slope(x)
    if abs(answer - expected) <= _MEASURED_TOL:
        return _measured(answer, expected, "the slope at -1")
    if close(answer, _lesson_f(x), _MEASURED_TOL):
        return failed(
            f"{answer:g} is f(-1), the height of the curve there; the slope is how fast that height "
            "changes: (f(x + h) - f(x)) / h"
        )
    if abs(answer + expected) <= _MEASURED_TOL:
        return failed(f"{answer:g} has the right size but the wrong sign: is f(-1 + h) above or below f(-1)?")
    for x0, where in _OTHER_POINTS:
        if abs(answer - _lesson_f_slope(x0)) <= 3 * 0.1 + _MEASURED_TOL:  # measured there with h up to 0.1
            return failed(f"{answer:g} is {where}; set x = -1 and measure again")
    if abs(answer - _wrong_rule(x)) <= 3 * 0.1 + _MEASURED_TOL:
        return failed(f"{answer:g} is 6x + 4 at x = -1, a derivative with the wrong sign on its last term: the "
                      "-4x in f falls by 4 for every unit of x, so f'(x) = 6x - 4; or measure it by nudging")
    if answer > 0 and abs(answer + expected) <= 3:
        # f(-1 - h) - f(-1) over h, or the change taken the wrong way round, with h up to 1: 10 + 3h.
        return failed(f"{answer:g} has the right size but the wrong sign: is f(-1 + h) above or below f(-1)? Take "
                      "f at the larger x minus f at the smaller x, and divide by the distance between them")
    if abs(answer - 2 * expected) <= 2 * _MEASURED_TOL:
        return failed(f"{answer:g} is twice the slope: a central difference steps h both ways, 2h in all, so divide by 2h")
    if abs(answer) < 1:
        return failed(_undivided(answer, x))
    # A one-sided nudge of f at -1 gives exactly -10 + 3h: recognise a step that is far too big.
    h = (answer - expected) / 3
    if _MEASURED_TOL / 3 < abs(h) <= 2:
        return failed(
            f"{answer:g} is what a nudge of h = {h:.3g} gives: over a step that big the curve bends, so the "
            "measured slope is off. Use a small h, such as 0.0001"
        )
    return failed(f"{answer:g} is not the slope at -1; hint: nudge x = -1 by a small h (say 0.0001) and divide the change in f by h")


# Points whose slope the lesson shows, or a slip of the sign of -1 lands on.
_OTHER_POINTS = ((3.0, "the slope at x = 3 from the lesson"), (0.0, "the slope at x = 0 from the lesson"),
                 (1.0, "the slope at x = 1, not at x = -1 (is the minus sign of -1 lost?)"))
_USUAL_STEPS = (0.1, 0.05, 0.01, 0.005, 0.001, 5e-4, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8)


def _wrong_rule(x):
    return 6 * x + 4  # the power rule with the sign of -4x lost


def _undivided(answer, x):
    """Why an answer near 0 is not the slope at x: the change in f, not divided by h (or times h)."""
    if answer == 0:
        return ("0 would mean f is flat at -1, as it is only at its bottom (x = 2/3); nudge x = -1 by a small h "
                "and divide the change in f by h")
    near = lambda a, b: math.isclose(a, b, rel_tol=1e-6)  # noqa: E731  relative only: these are all tiny
    changes = [(h, way, change) for h in _USUAL_STEPS for way, change in
               (("one way", _lesson_f(x + h) - _lesson_f(x)), ("both ways", _lesson_f(x + h) - _lesson_f(x - h)))]
    for h, way, change in changes:
        if near(abs(answer), abs(change)):
            return (f"{answer:g} is the change in f over a step of h = {h:g} ({way}), not divided by h: the "
                    "slope is the change per unit of x, (f(-1 + h) - f(-1)) / h")
    for h, way, change in changes:
        if near(abs(answer), abs(change * h)):
            return (f"{answer:g} is the change in f over a step of h = {h:g} ({way}) times h: divide the change "
                    "by h instead, (f(-1 + h) - f(-1)) / h")
    return (f"{answer:g} is nearly 0, the size of the change in f over a small step, while f falls about 10 "
            "per unit of x here: divide the change in f by h (not multiply), (f(-1 + h) - f(-1)) / h")


def _difference_quotients(g, x, h):
    forward = (g(x + h) - g(x)) / h
    central = (g(x + h) - g(x - h)) / (2 * h)
    backward = (g(x) - g(x - h)) / h  # a nudge to the left measures the slope just as well
    return forward, central, backward


_FLOAT32_UNIT = 2.0**-24  # a float32 keeps 24 bits: each step of arithmetic may be off by this much, relatively


def _rounding(g, x, h, slope):
    """How far a difference quotient of g at x, worked out in np.float32, may stray: rounding in
    x ± h and in g's values, of the size of g's values, over a step of h.  Far below what
    the slips below are off by, since each case's h is large enough for its quotients to differ."""
    size = abs(g(x + h)) + abs(g(x)) + abs(g(x - h)) + abs(x * slope)
    return 16 * _FLOAT32_UNIT * size / h


def _diagnose_slope(result, g, x, h, slope):
    """Why result is not a difference quotient of g at x, or None if it is one.  ``slope`` is g's exact slope at x."""
    problem = _not_a_number(result, "it returns", "return the slope, one finite number")
    if problem:
        return problem
    result = as_number(result)
    forward, central, backward = _difference_quotients(g, x, h)
    # An answer worked out in np.float32 (about 7 digits) is as right as one in float64.
    tolerance = max(1e-6 * abs(slope), _rounding(g, x, h, slope))
    if any(abs(result - quotient) <= tolerance for quotient in (forward, central, backward)):
        return None
    change = g(x + h) - g(x)
    if close(result, change, 1e-9) or close(result, g(x + h) - g(x - h), 1e-9):
        return "it returns the change in f but not per unit of x: divide the change by the size of the step"
    if any(close(result, -quotient, 1e-9) for quotient in (forward, central, backward)):
        return "its sign is flipped: subtract f at the smaller x from f at the larger x"
    if close(result, forward / 2, 1e-9):
        return "it halves the slope: a step of h divides by h (2h only when you step h both ways)"
    if close(result, 2 * central, 1e-9):
        return "it steps h both ways but divides by h: the two steps span 2h, so divide by 2h"
    if abs(result - slope) <= tolerance:
        return (f"it gives {slope:g}, the exact slope, where nudging by the h it is given (h = {h:g}) measures "
                f"{forward:g} one way or {central:g} both ways: a step of its own, too small to tell apart here, "
                "or a derivative worked out by hand; nudge by the argument h")
    for other in (1.0, 0.5, 0.1, 0.01, 0.001, 1e-4, 1e-5, 1e-6):
        quotients = [q for q in _difference_quotients(g, x, other) if abs(q - slope) > tolerance]  # other's own
        if other != h and any(close(result, q, 1e-9) for q in quotients):
            return f"it nudges by h = {other:g}, not by the h it is given ({h:g}): use the argument h"
    if close(result, g(x), 1e-9):
        return "it returns f(x), the value; the slope is how fast the value changes"
    if close(result, change * h, 1e-9):
        return "it multiplies the change in f by h: divide the change by h, the size of the step"
    lessons = [q for q in _difference_quotients(_lesson_f, x, h) if not close(q, _lesson_f_slope(x), 1e-9)]
    if any(close(result, q, 1e-9) for q in lessons):  # a nudge of the lesson's f, not its slope typed in
        return "it measures the lesson's f, not the function it is given: call the argument f inside slope"
    return f"for h = {h} it gives {result!r}, not (f(x + h) - f(x)) / h"


@checker("Exercise 2: slope(f, x, h)")
def slope_function(slope):
    if not callable(slope):
        return failed(f"pass the function itself (check.slope_function(slope)), not {type(slope).__name__}")
    # Three different functions, so a derivative typed in for one of them
    # fails on the others; a largish h keeps the mistakes (no division, 2h
    # for a one-sided step, a step of its own) apart from the right answer:
    # for x**3 at -2 every quotient over h = 0.25 is off the exact slope 12.
    cases = [
        ("x**2", lambda x: x**2, 3.0, 0.25, 6.0),
        ("5*x - 2", lambda x: 5 * x - 2, 1.0, 0.01, 5.0),
        ("x**3", lambda x: x**3, -2.0, 0.25, 12.0),
    ]
    for name, g, x, h, exact in cases:
        result = slope(g, x, h)
        problem = _diagnose_slope(result, g, x, h, exact)
        if (problem and as_number(result) is not None and "the lesson's f" not in problem
                and slope(lambda t, g=g: g(t) + 7 * t, x, h) == result):
            problem = (f"it gives {as_number(result)!r}, and the same for f(x) + 7x, whose slope is 7 more: it "
                       "ignores the function it is given (a slope typed in?); call the argument f inside slope")
        if problem:
            return failed(f"slope(f, {x:g}, h={h:g}) with f(x) = {name}: {problem}")
    return passed("it measures slopes of any function (try it on f from the lesson)")


def _lesson_g(x, y):
    return x**2 * y + 3 * y


@checker("Exercise 3: both slopes of g(x, y) at (1.5, -2)")
def two_input_slopes(slope_x, slope_y):
    for name, answer in (("slope_x", slope_x), ("slope_y", slope_y)):
        problem = _not_a_number(answer, f"{name} is")
        if problem:
            return failed(problem)
    slope_x, slope_y = as_number(slope_x), as_number(slope_y)
    x, y = 1.5, -2.0
    exact_x = 2 * x * y  # nudging x: y stays fixed, so x**2 * y changes like x**2 does
    exact_y = x**2 + 3  # nudging y: g is a straight line in y with this slope
    ok_x = abs(slope_x - exact_x) <= _MEASURED_TOL
    ok_y = abs(slope_y - exact_y) <= _MEASURED_TOL
    if ok_x and ok_y:
        rough = not (close(slope_x, exact_x, _EXACT_TOL) and close(slope_y, exact_y, _EXACT_TOL))
        note = "; a smaller h gets even closer" if rough else ""
        return passed(f"∂g/∂x = {exact_x:g} and ∂g/∂y = {exact_y:g}{note}")
    if abs(slope_x - exact_y) <= _MEASURED_TOL and abs(slope_y - exact_x) <= _MEASURED_TOL:
        return failed("the two slopes are swapped: slope_x is what you measure when only x moves")
    if ok_x:
        return failed("slope_x is right; slope_y is not: keep x at 1.5 and nudge only y")
    if ok_y:
        return failed("slope_y is right; slope_x is not: keep y at -2 and nudge only x")
    return failed("neither slope is right; nudge one input at a time by a small h, keep the other fixed, and divide the change in g by h")
