"""Checkers for lesson 3, backpropagation by hand.

Each expected gradient is worked out here with the derivative rules
(sum, product, tanh) written out for that one expression, never by running
``backward()``, so an engine bug cannot make a wrong answer look right.
"""

import math
import numbers

from .build import (
    Unwritten,
    attempt,
    check_classes,
    first_wrong,
    nodes_below,
    root_down,
    still_stub,
    wrong_gradient,
)
from .verdicts import fmt, as_number, checker, close, decimals_kept, failed, number_problem, passed

__all__ = ["my_backward_step", "walk_by_hand", "sum_times_gradients", "step_downhill", "tanh_local_grad"]


def _number_problem(name, answer):
    """A failure message when answer is not one finite number, else None."""
    number = as_number(answer)
    if number is not None and not math.isfinite(number):
        return f"{name} is {number}; every gradient here is a finite number"
    return number_problem(answer, f"{name} is", "it should be one number, e.g. -1.5")


def _data(answer):
    return as_number(answer)


# Build it yourself, part 2: local derivatives and one node's backward step ------


def _rule(node):
    """The local derivatives node should record, from the derivative rules (None for an op not checked here)."""
    inputs = [p.data for p in node._prev]
    if node._op == "+" and len(inputs) == 2:
        return (1.0, 1.0)
    if node._op == "-" and len(inputs) == 2:
        return (1.0, -1.0)
    if node._op == "*" and len(inputs) == 2:  # a * a held in a set has one input: no rule per input then
        return (inputs[1], inputs[0])
    if node._op == "tanh" and len(inputs) == 1:
        return (1 - node.data**2,)
    return None


def _records_local_grads(node):
    """Does node record its local derivatives as numbers, as the lesson's template does?

    The lecture's way, a ``_backward`` closure on each node and no ``_local_grads``, is right too:
    such a class is judged by the gradients its ``_backward`` gives, not by what it records.
    """
    if "_backward" in getattr(node, "__dict__", {}):
        return False
    return getattr(node, "_local_grads", None) not in (None, ())


def _as_numbers(local_grads):
    if isinstance(local_grads, (tuple, list)) and all(
        isinstance(x, numbers.Real) and not isinstance(x, bool) for x in local_grads
    ):
        return tuple(float(x) for x in local_grads)
    return None


def _local_grads_problem(node, text, why):
    got = getattr(node, "_local_grads", None)
    want = _rule(node)
    if got is ...:
        return f"{text}: its local_grads are still ...; record them, {why}"
    numbers_ = _as_numbers(got)
    if numbers_ is None:
        return f"{text} records local_grads = {got!r:.60}; give a tuple with one number per input, e.g. {want}"
    if len(numbers_) != len(want):
        return f"{text} records {len(numbers_)} local derivatives for {len(want)} input(s); give one per input, e.g. {want}"
    if all(close(g, w, 1e-12) for g, w in zip(numbers_, want)):
        return None
    if len(want) == 2 and all(close(g, w, 1e-12) for g, w in zip(numbers_, reversed(want))):
        return f"{text} records {numbers_}, expected {want}: the two are swapped; {why}"
    return f"{text} records {numbers_}, expected {want}: {why}"


def _step_untouched(cls):
    a, b = cls(2.0), cls(-3.0)
    try:
        s, p, t = a + b, a * b, a.tanh()
    except Exception:
        return False
    if any(getattr(n, "_local_grads", None) is not ... for n in (s, p, t)):
        return False
    return still_stub(p._backward)


@checker("Build it: local derivatives and one node's backward step")
def my_backward_step(cls):
    return check_classes((cls,), "check.my_backward_step(MyValue)", _step_untouched, _check_step,
                         "the three local_grads and _backward")


def _expected_after(root, walk):
    """The gradients every node below root should hold after root.grad = 1 and walk's _backward() calls."""
    expected = {id(n): 0.0 for n in nodes_below(root, lambda n: n._prev)}
    expected[id(root)] = 1.0
    for w in walk:
        for child, local in zip(w._prev, _rule(w) or ()):
            expected[id(child)] += local * expected[id(w)]
    return expected


def _check_step(cls):
    a, b = cls(2.0, label="a"), cls(-3.0, label="b")
    recorded = _records_local_grads(a + b)
    # Inputs in a set have no operand order to pair local derivatives with: the gradients below judge them.
    in_order = not isinstance((a + b)._prev, (set, frozenset))
    for node, text, why in () if not (recorded and in_order) else (
        (a + b, "+ (at a = 2, b = -3)", "a sum passes a nudge of either input through unchanged, so (1.0, 1.0)"),
        (a * b, "* (at a = 2, b = -3)", "each factor's local derivative is the other factor's value, (b, a)"),
        (a * a, "a * a (at a = 2)", "each factor's local derivative is the other factor's value"),
        (cls(0.8813735870195432).tanh(), "tanh (at n = 0.8814, t = 0.7071)", "d tanh(n)/dn = 1 - t**2 with t = tanh(n)"),
        (cls(-0.5).tanh(), "tanh (at n = -0.5)", "d tanh(n)/dn = 1 - t**2 with t = tanh(n)"),
    ):
        problem = _local_grads_problem(node, text, why)
        if problem:
            return failed(problem)
    if recorded and in_order and hasattr(cls, "__sub__"):  # not asked for, but a subtraction of one's own is checked too
        diff = a - b
        if _rule(diff) is not None:  # a - b made by an op "-" of its own, not as a + (-b)
            problem = _local_grads_problem(
                diff, "a - b (at a = 2, b = -3)",
                "a - b grows with a but falls as b grows, so (1.0, -1.0): b's local derivative is -1")
            if problem:
                return failed(problem)

    # One step at a time on the lesson's graph, each checked before the next.
    c, f = cls(10.0, label="c"), cls(-2.0, label="f")
    e = a * b
    d = e + c
    L = d * f
    names = {id(a): "a", id(b): "b", id(c): "c", id(d): "d", id(e): "e", id(f): "f", id(L): "L"}
    for node, name in ((d, "d"), (e, "e"), (L, "L")):  # named in the drawing as in the verdict
        try:
            node.label = name
        except AttributeError:
            pass
    L.grad = 1.0
    walk = []
    for node, text, seed, results in (
        (L, "L = d * f", "L.grad = 1.0", {"d": (d, -2.0, f.data), "f": (f, 4.0, d.data)}),
        (d, "d = e + c", "d.grad = -2.0", {"e": (e, -2.0, 1.0), "c": (c, -2.0, 1.0)}),
        (e, "e = a * b", "e.grad = -2.0", {"a": (a, 6.0, b.data), "b": (b, -4.0, a.data)}),
    ):
        upstream = node.grad
        attempt("_backward", node._backward)
        walk.append(node)
        expected = _expected_after(L, walk)
        name = names[id(node)]
        if not close(node.grad, upstream, 1e-12):
            return wrong_gradient(_own_grad_message(name, upstream, node.grad), L, expected)
        below = [n for n in nodes_below(node, lambda n: n._prev)
                 if n is not node and all(n is not r for r, _, _ in results.values())]
        order = {id(n): k for k, n in enumerate(root_down(L))}
        touched = sorted((n for n in below if not close(n.grad, expected[id(n)], 1e-12)), key=lambda n: order[id(n)])
        if touched:
            return wrong_gradient(
                f"{name}._backward() also changed {names[id(touched[0])]}.grad, which is not one of {name}'s inputs: "
                f"_backward does this one node's step only. Don't call the inputs' _backward from inside it: an input "
                "may be used again elsewhere, and must wait until all of its gradient has arrived. The walk (the next "
                "exercise, then backward()) calls each node's _backward once, in order",
                L, expected)
        # From the output down, as the drawing under the verdict marks the first wrong one
        wrong = {k: (n.grad, want, local) for k, (n, want, local) in sorted(results.items(), key=lambda r: order[id(r[1][0])])
                 if not close(n.grad, want, 1e-12)}
        if wrong:
            return wrong_gradient(_step_message(text, seed, wrong, upstream), L, expected)

    # A value used twice: the gradients from the two uses add up.
    for make, text, want in ((lambda x: x + x, "x + x", 2.0), (lambda x: x * x, "x * x", 6.0)):
        x = cls(3.0, label="x")
        out = make(x)
        out.grad = 1.0
        out._backward()
        if not close(x.grad, want, 1e-12):
            message = f"({text})._backward() with grad 1.0 (x = 3) leaves x.grad = {fmt(x.grad)}, expected {fmt(want)}: "
            half = want / 2
            once = x.grad
            adds = False
            if close(once, half, 1e-12):
                out._backward()  # again: += adds a second share, = leaves the same one
                adds, x.grad = close(x.grad, want, 1e-12), once
            if adds:
                message += ("x is used twice, but only one use's share arrived, though each share is added (+=): "
                            "the inputs are walked as a set, which holds x once (set(self._prev), or _prev a "
                            "set). Walk them in order, one per use: zip(self._prev, self._local_grads) with _prev "
                            "a tuple")
            elif close(once, half, 1e-12) and not _records_local_grads(out):
                message += ("x is used twice, and the gradients from the two uses must add up. With self.grad = ... "
                            "in a _backward closure, the second use overwrites the first: write self.grad += ... * "
                            "out.grad (and other.grad += ...)")
            elif close(once, half, 1e-12):
                message += ("x is used twice, and the gradients from the two uses must add up. With "
                            "child.grad = ... the second use overwrites the first: write child.grad += local * self.grad")
            else:
                message += "x is used twice, and each use adds local × grad to x.grad"
            return wrong_gradient(message, out, {id(out): 1.0, id(x): want})

    # The tanh neuron, the lecture's numbers.
    x1, x2, w1, w2 = cls(2.0), cls(0.0), cls(-3.0), cls(1.0)
    bias = cls(6.8813735870195432)
    x1w1, x2w2 = x1 * w1, x2 * w2
    s = x1w1 + x2w2
    n = s + bias
    o = n.tanh()
    o.grad = 1.0
    walk = (o, n, s, x1w1, x2w2)
    for node in walk:
        node._backward()
    want = {"x1": (x1, -1.5), "w1": (w1, 1.0), "x2": (x2, 0.5), "w2": (w2, 0.0), "b": (bias, 0.5)}
    wrong = [f"{name}.grad = {fmt(v.grad)} (expected {fmt(g)})" for name, (v, g) in want.items() if not close(v.grad, g, 1e-9)]
    if wrong:
        return wrong_gradient("on the tanh neuron, called by hand from o back to the leaves: " + ", ".join(wrong),
                              o, _expected_after(o, walk))
    if not recorded:
        return passed("your _backward closures pass local × grad to each input, the lecture's way: the lecture's L "
                      "and neuron come out right. The lesson records each local derivative as a number instead "
                      "(_local_grads), so that a stepper can show every grad += local × upstream and a graph holds "
                      "no closures; both ways give the same gradients")
    return passed("each node records its local derivatives, and _backward passes local × grad to its inputs: "
                  "the lecture's L and neuron come out right")


def _own_grad_message(name, before, after):
    if close(after, 1.0, 1e-12):
        return (f"{name}._backward() set {name}.grad to 1.0 (it was {fmt(before)}): only the output's gradient is 1, "
                f"seeded once by hand before the walk. _backward must use {name}'s gradient as it is and only add "
                "to its inputs' grads")
    return (f"_backward changed the node's own grad: {name}._backward() took {name}.grad from {fmt(before)} to "
            f"{fmt(after)}; it should only add to its inputs' grads")


def _step_message(node, seed, results, upstream):
    if len(results) == 2:  # each input got the other's share: the local derivatives paired with the wrong inputs
        (first, (got1, _, local1)), (second, (got2, _, local2)) = results.items()
        if close(got1, local2 * upstream, 1e-12) and close(got2, local1 * upstream, 1e-12):
            return (f"after {node.split(' =')[0]}._backward() with {seed}: {first}.grad is {fmt(got1)} and "
                    f"{second}.grad is {fmt(got2)}, each the other's share: the local derivatives were paired with "
                    "the wrong inputs. Walk the inputs in their order, zip(self._prev, self._local_grads) with _prev "
                    "a tuple: a set of them (set(self._prev), or _prev a set) has no order of its own")
    for name, (got, want, local) in results.items():
        if close(got, local, 1e-12) and upstream != 1.0:
            return (f"after {node.split(' =')[0]}._backward() with {seed}: {name}.grad is {fmt(got)}, the local derivative "
                    f"alone; multiply it by the node's own grad ({fmt(upstream)}): {fmt(local)} × {fmt(upstream)} = {fmt(want)}")
        if close(got, 0.0, 1e-12):
            return (f"after {node.split(' =')[0]}._backward() with {seed}: {name}.grad is still 0; _backward should add "
                    f"local × grad to each input in self._prev")
        if close(got, upstream, 1e-12) and local != 1.0:
            return (f"after {node.split(' =')[0]}._backward() with {seed}: {name}.grad is {fmt(got)}, the node's own grad "
                    f"passed on as it is; multiply it by the local derivative ({fmt(local)}): "
                    f"{fmt(local)} × {fmt(upstream)} = {fmt(want)}")
        if close(got, -want, 1e-12):
            return (f"after {node.split(' =')[0]}._backward() with {seed}: {name}.grad is {fmt(got)}, expected {fmt(want)}: "
                    "right size, wrong sign; add local × grad to the input's grad (+=), don't subtract it")
        return (f"after {node.split(' =')[0]}._backward() ({node}) with {seed}: {name}.grad is {fmt(got)}, expected "
                f"{fmt(want)} = local derivative {fmt(local)} × {fmt(upstream)}")
    return f"after {node.split(' =')[0]}._backward(): the inputs' grads are not right yet"


@checker("Build it: backprop by hand with _backward()")
def walk_by_hand(root, walk):
    try:
        nodes = nodes_below(root, lambda n: n._prev)
    except AttributeError:
        return failed("root should be the L you built from MyValues")
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
    ops = [n for n in nodes if tuple(n._prev)]
    missing = [n for n in ops if id(n) not in {id(w) for w in walk}]
    if missing:
        return failed(f"{label(missing[0])} is missing from the walk: every node made by an operation must pass its gradient on")
    position = {}
    for i, w in enumerate(walk):
        if id(w) in position and tuple(w._prev):
            return failed(f"{label(w)} is called twice: its inputs would receive its gradient twice")
        position.setdefault(id(w), i)
    for node in ops:
        for child in node._prev:
            if tuple(child._prev) and position[id(child)] < position[id(node)]:
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
    expected = _expected_after(root, walk)
    found = first_wrong(root, expected)
    if found:
        n = found[0]
        return wrong_gradient(f"the order is right, but {label(n)}.grad is {fmt(n.grad)}, expected "
                              f"{fmt(expected[id(n)])}: check your class with the cell above first", root, expected)
    leaves = ", ".join(f"{label(n)} {fmt(n.grad)}" for n in nodes if not tuple(n._prev))
    return passed(f"output first, each node before its inputs: {leaves}")



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
        if close(result, expected, 1e-6):  # not tighter: np.float32 keeps about 7 digits
            continue
        if close(result, 1 - o, 1e-9):
            return failed("it returns 1 - o; the derivative of tanh is 1 minus o squared")
        if close(result, 1 - math.tanh(o) ** 2, 1e-9):
            return failed("it applies tanh to o again; o is already tanh(n), so square o itself")
        if close(result, o**2 - 1, 1e-9):
            return failed("its sign is flipped: tanh always rises, so its slope is positive")
        return failed(f"local_grad({o:.4f}) gives {result!r}, not the slope of tanh at n = {n:g}; hint: write it with o alone")
    return passed("do/dn = 1 - o²: tanh's slope comes from its own output, no n needed")
