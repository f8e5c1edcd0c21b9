"""Checkers for lesson 3, backpropagation by hand.

Each expected gradient is worked out here with the derivative rules
(sum, product, tanh) written out for that one expression, never by running
``backward()``, so an engine bug cannot make a wrong answer look right.
"""

import math
import numbers

from .checking import checker, close, failed, passed

__all__ = ["sum_times_gradients", "step_downhill", "tanh_local_grad"]


def _number_problem(name, answer):
    """A failure message when answer is not one finite number, else None."""
    answer = getattr(answer, "data", answer)
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return f"{name} is {answer!r} ({type(answer).__name__}); it should be one number, e.g. -1.5"
    if not math.isfinite(answer):
        return f"{name} is {answer}; every gradient here is a finite number"
    return None


def _data(answer):
    return getattr(answer, "data", answer)


@checker("Exercise 1: the gradients of g = (x + y) * z")
def sum_times_gradients(dx, dy, dz):
    answers = {"dx": dx, "dy": dy, "dz": dz}
    for name, answer in answers.items():
        problem = _number_problem(name, answer)
        if problem:
            return failed(problem)
    dx, dy, dz = (_data(a) for a in (dx, dy, dz))
    x, y, z = -2.0, 5.0, -4.0
    s = x + y
    # Product rule at g = s * z, then a sum passes s's gradient to both addends.
    expected = {"dx": z * 1.0, "dy": z * 1.0, "dz": s}
    got = {"dx": dx, "dy": dy, "dz": dz}
    wrong = [name for name in got if not close(got[name], expected[name])]
    if not wrong:
        return passed(f"∂g/∂x = ∂g/∂y = {z:g} (the sum hands z's factor to both) and ∂g/∂z = x + y = {s:g}")
    if "dz" not in wrong and all(close(got[n], 1.0) for n in ("dx", "dy")):
        return failed("1 is the local derivative of the sum; multiply it by the gradient arriving from g (the chain rule)")
    if "dz" in wrong and (close(dz, x) or close(dz, y)):
        return failed("dz: z is multiplied by the whole sum x + y, so its gradient is the value of that sum")
    if wrong == ["dz"]:
        return failed("dx and dy are right; dz is not: which number is z multiplied by?")
    if any(close(got[n], -expected[n]) for n in wrong):
        return failed(f"{', '.join(wrong)}: right size, wrong sign; a gradient through * is the other factor's value, sign and all")
    return failed(f"{', '.join(wrong)} not right yet; hint: start at g with gradient 1, the product first, then the sum")


def _lesson_L(a, b, c, f):
    return (a * b + c) * f


@checker("Exercise 2: a step that makes L smaller")
def step_downhill(new_L):
    problem = _number_problem("new_L", new_L)
    if problem:
        return failed(problem)
    new_L = _data(new_L)
    a, b, c, f = 2.0, -3.0, 10.0, -2.0
    d = a * b + c
    # The gradients of L = (a*b + c) * f from the product and sum rules.
    grads = {"a": b * f, "b": a * f, "c": f, "f": d}
    lr = 0.01

    def stepped(sign):
        return _lesson_L(*(v + sign * lr * grads[k] for k, v in zip("abcf", (a, b, c, f))))

    downhill, uphill = stepped(-1), stepped(+1)
    if close(new_L, downhill, 1e-6):
        return passed(f"L went from -8 to {downhill:.4f}: a step against the gradient lowers L")
    if close(new_L, uphill, 1e-6):
        return failed("that is the step along the gradient, which raises L; subtract lr × grad instead of adding it")
    if close(new_L, _lesson_L(a, b, c, f)):
        return failed("L has not changed: did the leaves move before you recomputed L?")
    if new_L < -8:
        return failed(f"{new_L:g} is lower, but not what one step of 0.01 gives; move every leaf by -0.01 × its grad and recompute L")
    return failed(f"{new_L:g} is not lower than -8; a step against the gradient (-0.01 × grad on each leaf) should lower L")


@checker("Exercise 3: tanh's local derivative from its output")
def tanh_local_grad(local_grad):
    if not callable(local_grad):
        return failed(f"pass the function itself (check.tanh_local_grad(local_grad)), not {type(local_grad).__name__}")
    for n in (0.8813735870195432, -0.3, 0.0, 2.0):
        o = math.tanh(n)
        # d tanh(n)/dn = 1 / cosh(n)², an independent form of 1 - tanh(n)²
        expected = 1.0 / math.cosh(n) ** 2
        result = local_grad(o)
        problem = _number_problem(f"local_grad({o:.4f})", result)
        if problem:
            return failed(problem)
        result = _data(result)
        if close(result, expected, 1e-9):
            continue
        if close(result, 1 - o, 1e-9):
            return failed("it returns 1 - o; the derivative of tanh is 1 minus o squared")
        if close(result, 1 - math.tanh(o) ** 2, 1e-9):
            return failed("it applies tanh to o again; o is already tanh(n), so square o itself")
        if close(result, o**2 - 1, 1e-9):
            return failed("its sign is flipped: tanh always rises, so its slope is positive")
        return failed(f"local_grad({o:.4f}) gives {result!r}, not the slope of tanh at n = {n:g}; hint: write it with o alone")
    return passed("do/dn = 1 - o²: tanh's slope comes from its own output, no n needed")
