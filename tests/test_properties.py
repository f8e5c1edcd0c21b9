"""Property tests: random expression graphs over every operation.

Hypothesis draws a small program (leaves, then operations on earlier nodes,
with nodes reused freely).  The program is fixed at the drawn point: an
operation whose input is outside its domain there (log of a negative number,
relu at its kink, a division by almost zero) is replaced by tanh.  The same
fixed program is then run three ways: with Values (backward gives the
gradient), with floats (central finite differences) and, when PyTorch is
installed, with float64 tensors (autograd).
"""

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from micrograd.engine import Value, dot, graph_size, topological_order

EXPONENTS = [2, 3, -1, -2, 0.5, 1.5, 2.5, -0.5, 0]
BASES = [0.5, 2.0, math.e, 3.0]
LIMIT = 50.0  # no intermediate value grows beyond this: keeps gradients well conditioned
MARGIN = 0.2  # distance kept from a domain's edge (log, /, fractional powers)
KINK = 0.05  # distance kept from relu's kink

OPS = [
    "add", "sub", "mul", "div", "neg", "pow_number", "pow_value", "number_pow",
    "radd", "rsub", "rmul", "rdiv", "exp", "log", "tanh", "relu", "sigmoid",
    "dot", "dot_constant",
]


# -- the three ways to run a program ------------------------------------------------------


class ValueOps:
    leaf = staticmethod(Value)
    exp = staticmethod(Value.exp)
    log = staticmethod(Value.log)
    tanh = staticmethod(Value.tanh)
    sigmoid = staticmethod(Value.sigmoid)
    dot = staticmethod(dot)

    @staticmethod
    def relu(x, positive):
        return x.relu()


class FloatOps:
    leaf = staticmethod(float)
    exp = staticmethod(math.exp)
    log = staticmethod(math.log)
    tanh = staticmethod(math.tanh)

    @staticmethod
    def sigmoid(x):
        return 1.0 / (1.0 + math.exp(-x))

    @staticmethod
    def relu(x, positive):
        if (x > 0) != positive:
            raise KinkCrossed  # the nudge moved an input across relu's kink
        return max(x, 0.0)

    @staticmethod
    def dot(ws, xs, b):
        total = b
        for w, x in zip(ws, xs):
            total = total + w * x
        return total


class KinkCrossed(Exception):
    pass


def torch_ops(torch):
    class TorchOps:
        @staticmethod
        def leaf(x):
            return torch.tensor(x, dtype=torch.float64, requires_grad=True)

        exp = staticmethod(torch.exp)
        log = staticmethod(torch.log)
        tanh = staticmethod(torch.tanh)
        sigmoid = staticmethod(torch.sigmoid)
        dot = staticmethod(FloatOps.dot)

        @staticmethod
        def relu(x, positive):
            return torch.relu(x)

    return TorchOps


# -- programs ----------------------------------------------------------------------------------

instructions = st.tuples(
    st.sampled_from(OPS),
    st.lists(st.integers(0, 63), min_size=7, max_size=7),  # operand picks
    st.integers(0, 63),  # which exponent or base
    st.floats(-2.0, 2.0, allow_nan=False),  # a plain-number operand
    st.integers(1, 3),  # dot length
)

programs = st.tuples(
    st.lists(st.floats(-3.0, 3.0, allow_nan=False), min_size=1, max_size=4),
    st.lists(instructions, min_size=1, max_size=12),
)


def run(program, leaves, ops):
    """Evaluate a fixed program; returns (output, the leaves as ops made them).

    The output is the sum of the nodes nothing else uses, so that every
    operation the program holds is on a path to it.
    """
    steps, sinks = program
    made = [ops.leaf(x) for x in leaves]
    nodes = list(made)
    for op, args in steps:
        nodes.append(apply(ops, op, [nodes[i] if isinstance(i, int) else i.number for i in args]))
    out = nodes[sinks[0]]
    for i in sinks[1:]:
        out = out + nodes[i]
    return out, made


class Number:
    """A plain-number operand in a fixed program (not a node index)."""

    def __init__(self, number):
        self.number = number


def apply(ops, op, a):
    if op == "add":
        return a[0] + a[1]
    if op == "sub":
        return a[0] - a[1]
    if op == "mul":
        return a[0] * a[1]
    if op == "div":
        return a[0] / a[1]
    if op == "neg":
        return -a[0]
    if op in ("pow_number", "pow_value"):
        return a[0] ** a[1]
    if op == "number_pow":
        return a[1] ** a[0]
    if op == "radd":
        return a[1] + a[0]
    if op == "rsub":
        return a[1] - a[0]
    if op == "rmul":
        return a[1] * a[0]
    if op == "rdiv":
        return a[1] / a[0]
    if op == "relu":
        return ops.relu(a[0], a[1])
    if op in ("dot", "dot_constant"):
        n = (len(a) - 1) // 2
        return ops.dot(a[:n], a[n : 2 * n], a[-1])
    return getattr(ops, op)(a[0])


def fix(raw_program, leaves):
    """Resolve drawn instructions into a program that is valid at the leaves.

    Returns (steps, sinks): steps is a list of (op, args), args being node
    indices or Numbers; sinks are the indices of the nodes no step uses.
    """
    data = [float(x) for x in leaves]
    program = []
    for op, picks, which, number, length in raw_program:
        i, j = (p % len(data) for p in picks[:2])
        x, y = data[i], data[j]
        if op in ("add", "sub", "mul", "div", "pow_value"):
            args = [i, j]
        elif op in ("radd", "rsub", "rmul", "rdiv"):
            args = [i, Number(number)]
        elif op == "pow_number":
            exponent = EXPONENTS[which % len(EXPONENTS)]
            args = [i, Number(exponent)]
        elif op == "number_pow":
            args = [i, Number(BASES[which % len(BASES)])]
        elif op == "relu":
            args = [i, Number(x > 0)]
        elif op == "dot":
            picked = [p % len(data) for p in picks[: 2 * length]]
            args = picked + [picks[6] % len(data)]
        elif op == "dot_constant":
            constants = [Number(number * (k + 1) / 2) for k in range(length)]
            args = [p % len(data) for p in picks[:length]] + constants + [picks[6] % len(data)]
        else:
            args = [i]
        valid = {
            "div": abs(y) >= MARGIN,
            "rdiv": abs(x) >= MARGIN,
            "log": x >= MARGIN,
            "relu": abs(x) >= KINK,
            "pow_value": x >= MARGIN,
            "pow_number": _power_is_valid(x, args[-1].number) if op == "pow_number" else True,
        }.get(op, True)
        result = _evaluate(op, args, data) if valid else None
        if result is None or not abs(result) <= LIMIT:
            op, args = "tanh", [i]  # always defined, and bounded
            result = math.tanh(x)
        program.append((op, args))
        data.append(result)
    used = {a for _, args in program for a in args if isinstance(a, int)}
    sinks = [n for n in range(len(leaves), len(data)) if n not in used]
    return program, sinks


def _power_is_valid(x, exponent):
    if float(exponent).is_integer():
        return exponent >= 0 or abs(x) >= MARGIN
    return x >= MARGIN


def _evaluate(op, args, data):
    try:
        return apply(FloatOps, op, [data[a] if isinstance(a, int) else a.number for a in args])
    except OverflowError:
        return None


# -- the checks --------------------------------------------------------------------------------


def value_gradient(program, leaves):
    out, made = run(program, leaves, ValueOps)
    out.backward()
    return out, [leaf.grad for leaf in made]


def central_difference(program, leaves, k):
    h = 1e-6 * max(1.0, abs(leaves[k]))
    up, down = list(leaves), list(leaves)
    up[k] += h
    down[k] -= h
    return (run(program, up, FloatOps)[0] - run(program, down, FloatOps)[0]) / (2 * h)


@settings(max_examples=300)
@given(programs)
def test_gradients_match_central_finite_differences(drawn):
    leaves, raw = drawn
    program = fix(raw, leaves)
    out, grads = value_gradient(program, leaves)
    assert out.data == pytest.approx(run(program, leaves, FloatOps)[0], rel=1e-12, abs=1e-12)
    try:
        numeric = [central_difference(program, leaves, k) for k in range(len(leaves))]
    except KinkCrossed:
        assume(False)
    scale = max(1.0, abs(out.data), *map(abs, grads))
    for grad, estimate in zip(grads, numeric):
        assert grad == pytest.approx(estimate, rel=1e-5, abs=1e-6 * scale)


@settings(max_examples=200)
@given(programs)
def test_gradients_match_torch_float64(drawn):
    torch = pytest.importorskip("torch")
    leaves, raw = drawn
    program = fix(raw, leaves)
    out, grads = value_gradient(program, leaves)
    expected, made = run(program, leaves, torch_ops(torch))
    if not expected.requires_grad:  # the output does not depend on any leaf
        assert grads == [0.0] * len(leaves)
        return
    expected.backward()
    torch_grads = [0.0 if t.grad is None else t.grad.item() for t in made]
    assert out.data == pytest.approx(expected.item(), rel=1e-12, abs=1e-14)
    assert grads == pytest.approx(torch_grads, rel=1e-9, abs=1e-12)


@given(programs)
def test_leaves_accumulate_and_the_order_is_topological(drawn):
    leaves, raw = drawn
    program = fix(raw, leaves)
    out, made = run(program, leaves, ValueOps)
    out.backward()
    once = [leaf.grad for leaf in made]
    out.backward()
    # Twice the gradient, up to rounding: the second call adds each contribution onto the
    # first sum, so a gradient that is a near-cancellation differs in its last bits.
    assert [leaf.grad for leaf in made] == pytest.approx([2 * g for g in once], rel=1e-9, abs=1e-12)

    order = topological_order(out)
    assert order[-1] is out
    position = {id(node): n for n, node in enumerate(order)}
    assert len(position) == len(order)
    assert all(position[id(child)] < position[id(node)] for node in order for child in node.inputs)
    assert graph_size(out) == (len(order), sum(len(node.inputs) for node in order))
    assert topological_order(out) == order  # same walk every time
