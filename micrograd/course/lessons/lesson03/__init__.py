"""Checkers for lesson 3, backpropagation by hand.

Each expected gradient is worked out here with the derivative rules
(sum, product, tanh) written out for that one expression, never by running
``backward()``, so an engine bug cannot make a wrong answer look right.
"""

import math

from micrograd.course.lessons.build import (
    Unwritten,
    attempt,
    check_classes,
    first_wrong,
    inputs_of,
    nodes_below,
    wrong_gradient,
)
from micrograd.course.verdicts import fmt, as_number, checker, close, decimals_kept, failed, number_problem, passed

from .step import check_step, data_of, expected_after, step_untouched

__all__ = ["my_backward_step", "walk_by_hand", "sum_times_gradients", "step_downhill", "sigmoid_local_grad"]


def _number_problem(name, answer):
    """A failure message when answer is not one finite number, else None."""
    number = as_number(answer)
    if number is not None and not math.isfinite(number):
        return f"{name} is {number}; every gradient here is a finite number"
    return number_problem(answer, f"{name} is", "it should be one number, e.g. -1.5")


@checker("Build it: local derivatives and one node's backward step")
def my_backward_step(cls):
    return check_classes((cls,), "check.my_backward_step(MyValue)", step_untouched, check_step,
                         "the three local_grads and _backward")


@checker("Build it: backprop by hand with _backward()")
def walk_by_hand(root, walk):
    if not hasattr(root, "data"):
        return failed("root should be the L you built from MyValues")
    nodes = nodes_below(root, inputs_of)
    if isinstance(walk, (str, bytes)) or not hasattr(walk, "__iter__"):
        return failed(f"walk is {walk!r:.40}; give a list of nodes, e.g. [L, d, e]")
    walk = list(walk)
    label = lambda n: getattr(n, "label", "") or repr(n)  # noqa: E731
    known = {id(n) for n in nodes}
    strangers = [w for w in walk if id(w) not in known]
    if strangers:
        stranger = strangers[0]
        if isinstance(stranger, str):
            return failed(f"{stranger!r} is a label, text; list the nodes themselves, e.g. [L, d, e], without quotes")
        if callable(stranger) and id(getattr(stranger, "__self__", None)) in known:
            return failed(f"{label(stranger.__self__)}._backward is the node's method; list the nodes themselves, "
                          "e.g. [L, d, e]: the check calls _backward() on each")
        if stranger is None:
            return failed("the walk holds None, what _backward() returns: list the nodes themselves, e.g. [L, d, e], "
                          "without calling anything; the check calls _backward() on each")
        return failed(f"{label(stranger)} is not a node of L's graph; list the nodes you built (L, d, e, ...)")
    ops = [n for n in nodes if inputs_of(n)]
    missing = [n for n in ops if id(n) not in {id(w) for w in walk}]
    if missing:
        return failed(f"{label(missing[0])} is missing from the walk: every node made by an operation must pass its gradient on")
    position = {}
    for i, w in enumerate(walk):
        if id(w) in position and inputs_of(w):
            return failed(f"{label(w)} is called twice: its inputs would receive its gradient twice")
        position.setdefault(id(w), i)
    for node in ops:
        for child in inputs_of(node):
            if inputs_of(child) and position[id(child)] < position[id(node)]:
                return failed(
                    f"{label(child)} comes before {label(node)}, which uses it: when {label(child)}._backward() runs, "
                    f"its own grad is not complete yet. Start at the output and walk towards the inputs"
                )
    for n in nodes:
        n.grad = 0.0
    root.grad = 1.0
    try:
        for w in walk:
            attempt("_backward", w._backward)
    except Unwritten:
        return failed("the walk can't run yet: write _backward in your MyValue class above first")
    # The expected gradients, by the rules, in the same order.
    expected = expected_after(root, walk)
    found = first_wrong(root, expected)
    if found:
        n = found[0]
        return wrong_gradient(f"the order is right, but {label(n)}.grad is {fmt(n.grad)}, expected "
                              f"{fmt(expected[id(n)])}: check your class with the cell above first", root, expected)
    leaves = ", ".join(f"{label(n)} {fmt(n.grad)}" for n in nodes if not inputs_of(n))
    return passed(f"output first, each node before its inputs: {leaves}")



@checker("Exercise 1: the gradients of g = (x + y) * z")
def sum_times_gradients(dx, dy, dz):
    answers = {"dx": dx, "dy": dy, "dz": dz}
    for name, answer in answers.items():
        problem = _number_problem(name, answer)
        if problem:
            return failed(problem)
    dx, dy, dz = (data_of(a) for a in (dx, dy, dz))
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
    new_L = data_of(new_L)
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
    decimals = decimals_kept(new_L, downhill, fewest=2)  # as the lesson prints L after a step: -7.286
    if decimals:
        return passed(f"L went from -8 to {downhill:.6f}, {new_L:.{decimals}f} to {decimals} decimals: a step against "
                      "the gradient lowers L")
    if close(new_L, uphill, 1e-6):
        return failed("that is the step along the gradient, which raises L; subtract lr × grad instead of adding it")
    if close(new_L, _lesson_L(a, b, c, f)):
        return failed("L has not changed: did the leaves move before you recomputed L?")
    if abs(new_L - downhill) < 0.1:
        return failed(f"{new_L:g} is near, but rounded too far to tell it from other steps: give at least two "
                      "decimals, as the lesson prints L (-7.286 after the step up the gradient)")
    if new_L < -8:
        return failed(f"{new_L:g} is lower, but not what one step of 0.01 gives; move every leaf by -0.01 × its grad and recompute L")
    return failed(f"{new_L:g} is not lower than -8; a step against the gradient (-0.01 × grad on each leaf) should lower L")


@checker("Exercise 3: the sigmoid's local derivative from its output")
def sigmoid_local_grad(local_grad):
    """local_grad(s) must be dσ/dn written with the output s = σ(n) alone: s · (1 − s)."""
    if not callable(local_grad):
        return failed(f"pass the function itself (check.sigmoid_local_grad(local_grad)), not {type(local_grad).__name__}")
    for n in (1.2, -0.7, 3.0, 0.0):  # not 0 first: there s = 1 - s = 0.5 hides which one was written
        s = 1.0 / (1.0 + math.exp(-n))
        expected = math.exp(-n) / (1.0 + math.exp(-n)) ** 2  # the lesson's form, in n: independent of s(1 - s)
        result = local_grad(s)
        problem = _number_problem(f"local_grad({s:.4f})", result)
        if problem:
            return failed(problem)
        result = data_of(result)
        if close(result, expected, 1e-6):  # not tighter: np.float32 keeps about 7 digits
            continue
        if close(result, 1 - s * s, 1e-9):
            return failed("it returns 1 - s², tanh's slope written with tanh's output; the sigmoid's is another "
                          "function of its output: start from e^(-n) / (1 + e^(-n))² and use 1 + e^(-n) = 1/s")
        if close(result, s, 1e-9):
            return failed("it returns s itself: that is how e^n behaves, its own slope; the sigmoid's slope is "
                          "smaller, and falls to 0 on both sides")
        if close(result, 1 - s, 1e-9) or close(result, s * s, 1e-9):
            return failed(f"local_grad({s:.4f}) gives {result:.4g}, one factor of the answer: with 1 + e^(-n) = 1/s, "
                          "e^(-n) = (1 - s)/s, and the slope is that times s²")
        if close(result, -expected, 1e-9):
            return failed("its sign is flipped: the sigmoid always rises, so its slope is positive")
        return failed(f"local_grad({s:.4f}) gives {result!r}, not the slope of the sigmoid at n = {n:g}; hint: write "
                      "e^(-n) / (1 + e^(-n))² with s alone, using 1 + e^(-n) = 1/s")
    return passed("dσ/dn = s(1 - s): like tanh's 1 - o², the sigmoid's slope comes from its own output, no n needed")
