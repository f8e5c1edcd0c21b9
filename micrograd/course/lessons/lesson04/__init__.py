"""Checkers for lesson 4, autograd.

The lecture's exercise is checked the way the lecture suggests: a gradient
worked out by hand must agree with finite differences of the function
itself, at the lecture's point and at a second one (so a list of numbers
copied from somewhere does not pass).
"""

import math
import traceback

from micrograd.engine import Value
from micrograd.gradcheck import central_difference
from micrograd.course.carry import stale
from micrograd.course.lessons.build import unrun_cell_problem, wrong_gradient
from micrograd.course.verdicts import (as_number, checker, class_name, close, failed, fmt_apart, number_problem, passed,
                       value_wanted)

from .order import Node, deep_chain, node_name, order_graphs, order_problem

from .backward import SLIP_MESSAGES, BackwardRun, backward_problem, on_your_value, recurses_through_backward, whose_class, \
    walk_order, walked_twice

__all__ = ["my_topological_order", "my_backward", "analytic_gradient", "sin_op", "grad_after_three_backwards"]


# Build it yourself, part 3: topological order and backward() -------------------


@checker("Build it: topological order")
def my_topological_order(topo):
    if not callable(topo):
        return failed(f"pass the function itself, check.my_topological_order(my_topological_order), not {type(topo).__name__}")
    if stale.problem(topo):
        return failed(stale.problem(topo))
    for graph, root, _ in order_graphs(Node):
        problem = order_problem(topo(root), root, graph, topo)
        if problem:
            return failed(problem)
    note = ""
    try:
        with deep_chain(5000) as root:
            topo(root)
    except RecursionError:
        note = (" (It is recursive: on a chain 5 000 nodes deep Python gives up. That is fine for these graphs; "
                "the package's topological_order, under \"The package's version\", shows the way round it: its own "
                "stack in a list.)")
    return passed("every node once, each after its inputs, on a value used twice, a diamond, a node reached "
                  "by two paths and nodes with the same label, no label or the same number" + note)


@checker("Build it: backward()")
def my_backward(backward):
    if not callable(backward):
        return failed(f"pass the function itself, check.my_backward(my_backward), not {type(backward).__name__}")
    if stale.problem(backward):
        return failed(stale.problem(backward))
    try:
        runs = [BackwardRun(graph, root, leaves, value_root, value_leaves, backward)
                for (graph, root, leaves), (_, value_root, value_leaves) in zip(order_graphs(Node), order_graphs(Value))]
    except NameError as error:  # my_topological_order, say, after a restart that skipped its cell
        if unrun_cell_problem(error) is None:
            raise
        return failed(unrun_cell_problem(error))
    failing = [run for run in runs if run.failed]
    if not failing:
        problem = on_your_value(backward)
        if problem:
            return failed(problem)
        return passed("seeded with 1, walked in reverse topological order, gradients added up along every path: "
                      "the same numbers as the package on all six graphs")
    run = failing[0]
    for twice_run in failing:  # before the walk's order is judged: a node walked twice looks out of order too
        twice = walked_twice(twice_run)
        if twice is not None and recurses_through_backward(backward):
            name = node_name(twice)
            return wrong_gradient(
                f"on {twice_run.graph}: {twice_run.detail()}: {SLIP_MESSAGES['recursion']} {name}, reached by two "
                f"paths, passes its gradient on twice, the second time with the first share in it again. Walk "
                "reversed(my_topological_order(root)) once, so that a node passes its gradient on once all of it "
                "has arrived", twice_run.root, twice_run.expected())
        if twice is not None:
            name = node_name(twice)
            return wrong_gradient(
                f"on {twice_run.graph}: {twice_run.detail()}: the loop is right, but the order it walks lists {name} "
                f"twice, so {name} passes its gradient to its inputs twice. my_topological_order must list every "
                "node once: remember the nodes you have visited (a set) and skip one you have seen",
                twice_run.root, twice_run.expected())
    # A walk in no fixed order (a set's) can look like another slip on one graph: judge it on all of them.
    arbitrary = [(r, text) for r in runs for kind, text in [walk_order(r.reads)] if kind == "arbitrary"]
    if arbitrary:
        shown, text = next(((r, t) for r, t in arbitrary if r.failed), arbitrary[0])
        run = shown if shown.failed else run
        where = "" if shown is run else f"on {shown.graph}, "
        message = f"on {run.graph}: {run.detail()}: {where}{text}"
    else:
        message = backward_problem(run)
    run.restore()
    return wrong_gradient(message, run.root, run.expected())


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
            return failed(f"sin(Value({x0})) returned {class_name(out)}; return {value_wanted(out)}, e.g. from "
                          "Value.from_op(...)")
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
    x = Value(0.7)
    (sin(x) + x).backward()  # x used twice: the + hands x its 1 first, then sin's share must add to it
    want = 1 + math.cos(0.7)
    if not close(x.grad, want, 1e-6):
        got, want = fmt_apart(x.grad, want)
        if close(x.grad, math.cos(0.7), 1e-6):
            return failed(f"sin's _backward sets x.grad (=) where it must add to it (+=): in sin(x) + x at x = 0.7, "
                          f"x.grad is {got}, the sine's share alone; expected 1 + cos(0.7) = {want}. The gradients "
                          "from every use of a value add up (the lecture's bug of a node used twice): "
                          "x.grad += math.cos(x.data) * out.grad")
        return failed(f"sin(x) + x at x = 0.7 gives x.grad = {got}, expected 1 + cos(0.7) = {want}: each use of x "
                      "adds its share to x.grad")
    return passed("sin is now an operation like any other: backward() handles sin(3 * b) by itself, and in sin(x) + x "
                  "adds sin's share to the other use's")


def _three_backwards(value_class):
    """a.grad after y.backward() three times on one graph, y = a*a + a at a = 2, on value_class's engine."""
    a = value_class(2.0)
    y = a * a + a
    for _ in range(3):
        y.backward()
    return as_number(a.grad)


_RESETS = ("the package's backward() starts the nodes in between from 0 on every call and only the leaves keep "
           "adding up (the course site's page on micrograd 0.1.0 explains why)")


def _package_problem(answer, mine, owner):
    """What is wrong with a prediction for the package's Value (15), or None; owner names the other class."""
    a = 2.0
    once = 2 * a + 1  # dy/da for y = a*a + a
    if close(answer, 3 * once):
        return None
    if close(answer, 27.0) or close(answer, 14.0):
        calls = "three" if close(answer, 27.0) else "two"
        yours = f", and {owner}," if close(mine, 27.0) else ""
        return (f"{answer:g} is what the lecture's code (and micrograd 0.1.0){yours} gives after {calls} calls: its "
                "backward() leaves the gradients of the nodes in between from the call before and passes them down "
                "again, so the a*a node hands a 1, then 2, then 3 times its share (a.grad 5, 14, 27). The answer asked "
                f"for is the package's Value's: {_RESETS}. What does one call add to a.grad, and what does a leaf "
                "keep from the calls before?")
    if close(answer, once):
        return f"{answer:g} is what one backward() leaves in a.grad; what happens to a leaf's grad on the next call?"
    if close(answer, 2 * once):
        return f"{answer:g} is what two backward() calls leave in a.grad; the cell calls it three times"
    if close(answer, 3 * 2 * a) or close(answer, 2 * a):
        return f"{answer:g} misses part of y: a appears in a*a (twice) and once more on its own"
    return f"{answer:g} is not it; hint: work out dy/da once, then think about what backward() does to a leaf's grad"


def _mine_problem(answer, mine, owner):
    """What is wrong with a prediction for the learner's MyValue (owner: whose it is), judged by what it computes,
    or None."""
    if close(answer, mine):
        return None
    if close(answer, 15.0) and close(mine, 27.0):
        return (f"15 is the package's Value's; {owner}'s backward() is my_backward, which seeds the root "
                "and calls each node's _backward(), as the lecture's does: what does the a*a node hold when the "
                "second call starts, and what does it pass down then?")
    if close(mine, 27.0) and close(answer, 14.0):
        return f"14 is what {owner} leaves after two calls; the cell calls y.backward() three times"
    return (f"{answer:g} is not what {owner} gives; hint: follow its my_backward through the calls, node by "
            "node: which gradients does it start from 0, and which keep what the call before left?")


@checker("Exercise 3: a.grad after three backward() calls")
def grad_after_three_backwards(answer, answer_mine, my_value):
    """``answer`` on the package's Value, ``answer_mine`` on the learner's class ``my_value``, each
    judged by what that engine computes."""
    for name, given in (("answer", answer), ("answer_mine", answer_mine)):
        problem = number_problem(given, f"{name} is", want="each answer is one number, a.grad after the third call")
        if problem:
            return failed(problem)
    if not callable(getattr(my_value, "backward", None)):
        return failed(f"pass your class, check.grad_after_three_backwards(answer, answer_mine, MyValue), and run the "
                      f"'more operations' cell above first, which gives it backward(); {type(my_value).__name__} "
                      "has no backward()")
    package, mine = _three_backwards(Value), _three_backwards(my_value)
    answer, answer_mine = as_number(answer), as_number(answer_mine)
    owner = whose_class(my_value)
    problem = _package_problem(answer, mine, owner)
    if problem:
        return failed(f"on the package's Value: {problem}")
    problem = _mine_problem(answer_mine, mine, owner)
    if problem:
        return failed(f"on {owner}: {problem}")
    said = f"{package:g} on the package's Value: each backward() adds dy/da = 5 into a.grad, and a leaf keeps what it has"
    if close(mine, package):
        return passed(f"{said}; {mine:g} on {owner} too: its my_backward starts the nodes in between from 0, "
                      "as the package's does")
    if close(mine, 27.0):
        return passed(f"{said}; {mine:g} on {owner}, whose my_backward leaves the gradients of the nodes in "
                      "between from the call before and passes them down again (5, 14, 27), as the lecture's code "
                      "and micrograd 0.1.0 do")
    return passed(f"{said}; {mine:g} on {owner}, as it computes")
