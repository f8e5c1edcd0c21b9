"""Lesson 3's build-it check: one node's local derivatives and _backward step, judged on the learner's class, each slip named."""

import numbers

from .build import attempt, nodes_below, root_down, still_stub, wrong_gradient
from .verdicts import as_number, close, failed, fmt, passed

def data_of(answer):
    return as_number(answer)


# Build it yourself, part 2: local derivatives and one node's backward step ------


def local_rule(node):
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
    if len(numbers_) != len(want):
        return f"{text} records {len(numbers_)} local derivatives for {len(want)} input(s); give one per input, e.g. {want}"
    if all(close(g, w, 1e-12) for g, w in zip(numbers_, want)):
        return None
    if len(want) == 2 and all(close(g, w, 1e-12) for g, w in zip(numbers_, reversed(want))):
        return f"{text} records {numbers_}, expected {want}: the two are swapped; {why}"
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
    a, b = cls(2.0, label="a"), cls(-3.0, label="b")
    recorded = records_local_grads(a + b)
    # Inputs in a set have no operand order to pair local derivatives with: the gradients below judge them.
    in_order = not isinstance((a + b)._prev, (set, frozenset))
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
            return wrong_gradient(step_message(text, seed, wrong, upstream), L, expected)

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
                              o, expected_after(o, walk))
    if not recorded:
        return passed("your _backward closures pass local × grad to each input, the lecture's way: the lecture's L "
                      "and neuron come out right. The lesson records each local derivative as a number instead "
                      "(_local_grads), so that a stepper can show every grad += local × upstream and a graph holds "
                      "no closures; both ways give the same gradients")
    return passed("each node records its local derivatives, and _backward passes local × grad to its inputs: "
                  "the lecture's L and neuron come out right")


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
            return (f"after {node.split(' =')[0]}._backward() with {seed}: {name}.grad is {fmt(got)}, expected {fmt(want)}: "
                    "right size, wrong sign; add local × grad to the input's grad (+=), don't subtract it")
        return (f"after {node.split(' =')[0]}._backward() ({node}) with {seed}: {name}.grad is {fmt(got)}, expected "
                f"{fmt(want)} = local derivative {fmt(local)} × {fmt(upstream)}")
    return f"after {node.split(' =')[0]}._backward(): the inputs' grads are not right yet"


def expected_after(root, walk):
    """The gradients every node below root should hold after root.grad = 1 and walk's _backward() calls."""
    expected = {id(n): 0.0 for n in nodes_below(root, lambda n: n._prev)}
    expected[id(root)] = 1.0
    for w in walk:
        for child, local in zip(w._prev, local_rule(w) or ()):
            expected[id(child)] += local * expected[id(w)]
    return expected
