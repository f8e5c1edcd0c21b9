"""Lesson 3's build-it check: one node's local derivatives and _backward step, judged on the learner's class, each slip named."""

import math
import numbers

from micrograd.nodes import SETS, raw_inputs
from micrograd.course.lessons.build import attempt, inputs_of, nodes_below, renamed_only, root_down, still_stub, wrong_gradient
from micrograd.course.verdicts import as_number, close, failed, fmt, fmt_apart, fmt_expected, passed

def data_of(answer):
    return as_number(answer)


# Build it yourself, part 2: local derivatives and one node's backward step ------


def local_rule(node):
    """The local derivatives node should record, from the derivative rules (None for an op not checked here)."""
    inputs = [p.data for p in inputs_of(node)]
    op = getattr(node, "_op", None)
    if op == "+" and len(inputs) == 2:
        return (1.0, 1.0)
    if op == "-" and len(inputs) == 2:
        return (1.0, -1.0)
    if op == "*" and len(inputs) == 2:  # a * a held in a set has one input: no rule per input then
        return (inputs[1], inputs[0])
    if op == "tanh" and len(inputs) == 1:
        return (1 - node.data**2,)
    return None


def tanh_slip(got, n, t):
    """What a wrong local derivative of tanh at n (t = tanh(n)) is, in words: 'that is 1 - t: ...'."""
    slips = (
        (1 - t, "that is 1 - t: square t, 1 - t**2"),
        (t * t - 1, "that is t**2 - 1, the sign flipped: tanh always rises, so its slope 1 - t**2 is positive"),
        (1 - n * n, "that is 1 - n**2, written with the input n: the rule is written with the output, "
                    "t = tanh(n): 1 - t**2"),
        (1 - math.tanh(t) ** 2, "that applies tanh to t again: t is tanh(n) already, so 1 - t**2"),
        (t, "that is t itself; the slope of tanh is 1 - t**2"),
        (1.0, "that is 1, a sum's local derivative; tanh's is 1 - t**2"),
    )
    for value, words in slips:
        if close(got, value, 1e-9):
            return words
    return "the local derivative of tanh is 1 - t**2, with t = tanh(n)"


def records_local_grads(node):
    """Does node record its local derivatives as numbers, as the lesson's template does?

    The lecture's way, a ``_backward`` closure on each node and no ``_local_grads``, is right too:
    such a class is judged by the gradients its ``_backward`` gives, not by what it records.
    """
    if "_backward" in getattr(node, "__dict__", {}):
        return False
    return getattr(node, "_local_grads", None) not in (None, ())


def as_numbers(local_grads):
    if isinstance(local_grads, (tuple, list)) and all(
        isinstance(x, numbers.Real) and not isinstance(x, bool) for x in local_grads
    ):
        return tuple(float(x) for x in local_grads)
    return None


def local_grads_problem(node, text, why):
    got = getattr(node, "_local_grads", None)
    want = local_rule(node)
    if got is ...:
        return f"{text}: its local_grads are still ...; record them, {why}"
    numbers_ = as_numbers(got)
    if numbers_ is None:
        return f"{text} records local_grads = {got!r:.60}; give a tuple with one number per input, e.g. {want}"
    if want is None:
        return None
    if len(numbers_) != len(want):
        return f"{text} records {len(numbers_)} local derivatives for {len(want)} input(s); give one per input, e.g. {want}"
    if all(close(g, w, 1e-12) for g, w in zip(numbers_, want)):
        return None
    if len(want) == 2 and all(close(g, w, 1e-12) for g, w in zip(numbers_, reversed(want))):
        return f"{text} records {numbers_}, expected {want}: the two are swapped; {why}"
    if getattr(node, "_op", None) == "tanh":
        why = tanh_slip(numbers_[0], inputs_of(node)[0].data, node.data)
    return f"{text} records {numbers_}, expected {want}: {why}"


def step_untouched(cls):
    a, b = cls(2.0), cls(-3.0)
    try:
        s, p, t = a + b, a * b, a.tanh()
    except Exception:
        return False
    if any(getattr(n, "_local_grads", None) is not ... for n in (s, p, t)):
        return False
    return still_stub(p._backward)

def check_step(cls):
    problem = renamed_only(cls)
    if problem:
        return failed(problem)
    a, b = cls(2.0, label="a"), cls(-3.0, label="b")
    recorded = records_local_grads(a + b)
    # Inputs in a set have no operand order to pair local derivatives with: the gradients below judge them.
    in_order = not isinstance(raw_inputs(a + b), SETS)
    for node, text, why in () if not (recorded and in_order) else (
        (a + b, "+ (at a = 2, b = -3)", "a sum passes a nudge of either input through unchanged, so (1.0, 1.0)"),
        (a * b, "* (at a = 2, b = -3)", "each factor's local derivative is the other factor's value, (b, a)"),
        (a * a, "a * a (at a = 2)", "each factor's local derivative is the other factor's value"),
        (cls(0.8813735870195432).tanh(), "tanh (at n = 0.8814, t = 0.7071)", "d tanh(n)/dn = 1 - t**2 with t = tanh(n)"),
        (cls(-0.5).tanh(), "tanh (at n = -0.5)", "d tanh(n)/dn = 1 - t**2 with t = tanh(n)"),
    ):
        problem = local_grads_problem(node, text, why)
        if problem:
            return failed(problem)
    if recorded and in_order and hasattr(cls, "__sub__"):  # not asked for, but a subtraction of one's own is checked too
        diff = a - b
        if local_rule(diff) is not None:  # a - b made by an op "-" of its own, not as a + (-b)
            problem = local_grads_problem(
                diff, "a - b (at a = 2, b = -3)",
                "a - b grows with a but falls as b grows, so (1.0, -1.0): b's local derivative is -1")
            if problem:
                return failed(problem)
    if not recorded:  # the lecture's way: each op's local derivatives live in its _backward closure
        problem = closure_local_problem(cls)
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
        expected = expected_after(L, walk)
        name = names[id(node)]
        if not close(node.grad, upstream, 1e-12):
            return wrong_gradient(own_grad_message(name, upstream, node.grad), L, expected)
        below = [n for n in nodes_below(node, inputs_of)
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
            return wrong_gradient(step_message(text, seed, wrong, upstream), L, expected)

    # A value used twice: the gradients from the two uses add up.
    for make, text, want in ((lambda x: x + x, "x + x", 2.0), (lambda x: x * x, "x * x", 6.0)):
        x = cls(3.0, label="x")
        out = make(x)
        out.grad = 1.0
        out._backward()
        if not close(x.grad, want, 1e-12):
            message = f"({text})._backward() with grad 1.0 (x = 3) leaves x.grad = {fmt_expected(x.grad, want)}: "
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
            elif close(once, half, 1e-12) and not records_local_grads(out):
                message += ("x is used twice, and the gradients from the two uses must add up. With self.grad = ... "
                            "in a _backward closure, the second use overwrites the first: write self.grad += ... * "
                            "out.grad (and other.grad += ...)")
            elif close(once, half, 1e-12):
                message += ("x is used twice, and the gradients from the two uses must add up. With "
                            "child.grad = ... the second use overwrites the first: write child.grad += local * self.grad")
            else:
                message += "x is used twice, and each use adds local × grad to x.grad"
            return wrong_gradient(message, out, {id(out): 1.0, id(x): want})

    # A value that already holds a share from another use: tanh's _backward must add to it, too.
    x = cls(-0.5, label="x")
    t = x.tanh()
    x.grad, t.grad = 0.25, 1.0
    t._backward()
    local = 1 - t.data**2
    if not close(x.grad, 0.25 + local, 1e-12):
        if close(x.grad, local, 1e-12):
            message = (f"tanh's _backward() sets x.grad (=) where it must add to it (+=): x.grad held 0.25 from another "
                       f"use of x, and after t._backward() it holds {fmt(x.grad)}, the tanh's share alone. The gradients "
                       "from every use of a value add up (the lecture's bug of a node used twice): "
                       + ("self.grad += (1 - t**2) * out.grad" if not recorded else "child.grad += local * self.grad"))
        else:
            message = (f"t = x.tanh() at x = -0.5, with x.grad holding 0.25 from another use: t._backward() with grad 1 "
                       f"leaves x.grad = {fmt_apart(x.grad, 0.25 + local)[0]}, expected 0.25 + (1 - t**2) = "
                       f"{fmt_apart(x.grad, 0.25 + local)[1]}")
        return wrong_gradient(message, t, {id(t): 1.0, id(x): 0.25 + local})

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
    wrong = [f"{name}.grad = {fmt_apart(v.grad, g)[0]} (expected {fmt_apart(v.grad, g)[1]})" for name, (v, g) in want.items()
             if not close(v.grad, g, 1e-9)]
    if wrong:
        return wrong_gradient("on the tanh neuron, called by hand from o back to the leaves: " + ", ".join(wrong),
                              o, expected_after(o, walk))
    if not recorded:
        return passed("your _backward closures pass local × grad to each input, the lecture's way: the lecture's L "
                      "and neuron come out right. The lesson records each local derivative as a number instead "
                      "(_local_grads), so that a stepper can show every grad += local × upstream and a graph holds "
                      "no closures; both ways give the same gradients" + later_operations(cls))
    return passed("each node records its local derivatives, and _backward passes local × grad to its inputs: "
                  "the lecture's L and neuron come out right" + later_operations(cls))


# What lessons 4 to 6 do with a MyValue beyond +, * and tanh of two MyValues: lesson 4's given cell adds them.
_LATER = (
    ("x * 2", lambda x: x * 2), ("x + 1", lambda x: x + 1), ("2 * x", lambda x: 2 * x), ("1 + x", lambda x: 1 + x),
    ("sum([x, x])", lambda x: sum([x, x])), ("-x", lambda x: -x), ("x - y", lambda x: x - x), ("x ** 2", lambda x: x**2),
    ("x / y", lambda x: x / x), ("x.exp()", lambda x: x.exp()), ("x.backward()", lambda x: x.backward),
)


def later_operations(cls):
    """'. Lessons 4 to 6 also need ...' for the operations cls cannot do yet, or '' when it does them all."""
    missing = []
    for text, use in _LATER:
        try:
            use(cls(3.0))
        except Exception:  # noqa: BLE001 - any failure means the operation is not there yet
            missing.append(text)
    if not missing:
        return ""
    return (". Lessons 4 to 6 also need " + ", ".join(missing) + ", which your class does not do yet: lesson 4 "
            "gives them to it in one cell, as the lecture adds them")


def closure_local_problem(cls):
    """For _backward closures (the lecture's way): the first operation whose _backward(), called with
    out.grad = 1 on inputs holding 0, hands an input another number than its local derivative, named."""
    a, b, n = cls(2.0, label="a"), cls(-3.0, label="b"), cls(0.8813735870195432, label="n")
    cases = (
        (lambda: a + b, "a + b (at a = 2, b = -3)", ((a, "a", 1.0), (b, "b", 1.0)),
         "a sum passes a nudge of either input through unchanged: each input's grad grows by 1.0 * out.grad"),
        (lambda: a * b, "a * b (at a = 2, b = -3)", ((a, "a", -3.0), (b, "b", 2.0)),
         "each factor's local derivative is the other factor's value: self.grad += other.data * out.grad"),
        (lambda: n.tanh(), "n.tanh() (at n = 0.8814, t = 0.7071)", ((n, "n", None),), None),
    )
    for make, text, inputs, why in cases:
        out = make()
        for leaf, _, _ in inputs:
            leaf.grad = 0.0
        out.grad = 1.0
        attempt("_backward", out._backward)
        for leaf, name, want in inputs:
            want = 1 - out.data**2 if want is None else want
            if not close(leaf.grad, want, 1e-9):
                words = why or tanh_slip(leaf.grad, leaf.data, out.data)
                return (f"{text}: its _backward() with out.grad = 1 hands {name}.grad = "
                        f"{fmt_expected(leaf.grad, want)}: {words}")
    return None


def own_grad_message(name, before, after):
    if close(after, 1.0, 1e-12):
        return (f"{name}._backward() set {name}.grad to 1.0 (it was {fmt(before)}): only the output's gradient is 1, "
                f"seeded once by hand before the walk. _backward must use {name}'s gradient as it is and only add "
                "to its inputs' grads")
    return (f"_backward changed the node's own grad: {name}._backward() took {name}.grad from {fmt(before)} to "
            f"{fmt(after)}; it should only add to its inputs' grads")


def step_message(node, seed, results, upstream):
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
            return (f"after {node.split(' =')[0]}._backward() with {seed}: {name}.grad is {fmt_expected(got, want)}: "
                    "right size, wrong sign; add local × grad to the input's grad (+=), don't subtract it")
        return (f"after {node.split(' =')[0]}._backward() ({node}) with {seed}: {name}.grad is "
                f"{fmt_expected(got, want)} = local derivative {fmt(local)} × {fmt(upstream)}")
    return f"after {node.split(' =')[0]}._backward(): the inputs' grads are not right yet"


def expected_after(root, walk):
    """The gradients every node below root should hold after root.grad = 1 and walk's _backward() calls."""
    expected = {id(n): 0.0 for n in nodes_below(root, inputs_of)}
    expected[id(root)] = 1.0
    for w in walk:
        for child, local in zip(inputs_of(w), local_rule(w) or ()):
            expected[id(child)] += local * expected[id(w)]
    return expected
