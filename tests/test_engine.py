"""Value's semantics: what each operation records, and what backward() does."""

import gc
import math
from fractions import Fraction

import numpy as np
import pytest

from micrograd.engine import Value, dot, graph_size, topological_order

# -- a leaf -------------------------------------------------------------------


@pytest.mark.parametrize("number", [3, 3.0, True, Fraction(3, 2), np.float64(2.5), np.int64(-4), np.float32(0.5), np.int32(7)])
def test_a_leaf_holds_a_python_float(number):
    v = Value(number, label="x")
    assert type(v.data) is float
    assert v.data == float(number)
    assert (v.grad, v.label, v.op, v.inputs, v.local_grads) == (0.0, "x", "", (), ())


def test_repr_shows_data_grad_and_label():
    assert repr(Value(2.0)) == "Value(data=2.0, grad=0.0)"
    v = Value(-1.5, label="w1")
    v.grad = 0.25
    assert repr(v) == "Value(data=-1.5, grad=0.25, label='w1')"


# -- every operation: value, recorded inputs and local derivatives ------------------


def test_each_binary_op_records_its_inputs_in_operand_order():
    a, b = Value(3.0), Value(-2.0)
    cases = [
        (a + b, "+", (1.0, 1.0), 1.0),
        (a - b, "-", (1.0, -1.0), 5.0),
        (a * b, "*", (-2.0, 3.0), -6.0),
        (a / b, "/", (-0.5, -0.75), -1.5),
    ]
    for out, op, local_grads, data in cases:
        assert (out.op, out.inputs, out.local_grads, out.data) == (op, (a, b), local_grads, data)


def test_unary_ops_record_their_local_derivative():
    x = Value(0.5)
    t, s, e = math.tanh(0.5), 1 / (1 + math.exp(-0.5)), math.exp(0.5)
    cases = [
        (-x, "neg", -0.5, -1.0),
        (x.exp(), "exp", e, e),
        (x.log(), "log", math.log(0.5), 2.0),
        (x.tanh(), "tanh", t, 1 - t * t),
        (x.sigmoid(), "sigmoid", s, s * (1 - s)),
        (x.relu(), "ReLU", 0.5, 1.0),
        ((-x).relu(), "ReLU", 0.0, 0.0),
        (x**3, "**3", 0.125, 0.75),
        (x**-0.5, "**-0.5", 0.5**-0.5, -0.5 * 0.5**-1.5),
    ]
    for out, op, data, local in cases:
        assert out.op == op
        assert out.data == pytest.approx(data, rel=1e-15)
        assert len(out.inputs) == 1 and out.local_grads == pytest.approx((local,), rel=1e-15)


def test_relu_at_zero_passes_no_gradient():
    x = Value(0.0)
    y = x.relu()
    y.backward()
    assert (y.data, x.grad) == (0.0, 0.0)


def _grads(expression, *values):
    leaves = [Value(v) for v in values]
    out = expression(*leaves)
    out.backward()
    return out.data, [leaf.grad for leaf in leaves]


# (expression, point, value, gradient): numbers on both sides of every operator.
# The reflected forms are where ports went wrong (2 - a computing a - 2).
MIXED = [
    (lambda a: a + 2, 5.0, 7.0, 1.0),
    (lambda a: 2 + a, 5.0, 7.0, 1.0),
    (lambda a: a - 2, 5.0, 3.0, 1.0),
    (lambda a: 2 - a, 5.0, -3.0, -1.0),
    (lambda a: a * 2, 5.0, 10.0, 2.0),
    (lambda a: 2 * a, 5.0, 10.0, 2.0),
    (lambda a: a / 2, 5.0, 2.5, 0.5),
    (lambda a: 2 / a, 5.0, 0.4, -2 / 25),
    (lambda a: a**2, 5.0, 25.0, 10.0),
    (lambda a: 2**a, 5.0, 32.0, 32 * math.log(2)),
    (lambda a: -a, 5.0, -5.0, -1.0),
    (lambda a: (-2.0) ** 3 * a, 5.0, -40.0, -8.0),
    (lambda a: a**-1, -4.0, -0.25, -1 / 16),
    (lambda a: a**0, -4.0, 1.0, 0.0),
]


@pytest.mark.parametrize("expression, point, value, gradient", MIXED)
def test_numbers_on_either_side(expression, point, value, gradient):
    data, [grad] = _grads(expression, point)
    assert data == pytest.approx(value, rel=1e-15)
    assert grad == pytest.approx(gradient, rel=1e-15)


def test_power_with_a_value_exponent():
    data, [d_base, d_exponent] = _grads(lambda x, n: x**n, 3.0, 2.5)
    assert data == pytest.approx(3.0**2.5, rel=1e-15)
    assert d_base == pytest.approx(2.5 * 3.0**1.5, rel=1e-15)
    assert d_exponent == pytest.approx(3.0**2.5 * math.log(3.0), rel=1e-15)  # out * ln(base)


def test_number_to_the_power_of_a_value():
    n = Value(-1.5)
    out = 4 ** n
    out.backward()
    assert out.op == "**" and out.inputs[1] is n and out.inputs[0].data == 4.0
    assert out.data == 0.125
    assert n.grad == pytest.approx(0.125 * math.log(4), rel=1e-15)


# -- numpy scalars ----------------------------------------------------------------


@pytest.mark.parametrize("scalar", [np.float64(2.0), np.int64(2), np.float32(2.0)], ids=["float64", "int64", "float32"])
def test_numpy_scalars_on_either_side_give_values(scalar):
    a = Value(3.0)
    results = [a + scalar, scalar + a, a - scalar, scalar - a, a * scalar, scalar * a,
               a / scalar, scalar / a, a**scalar, scalar**a]
    expected = [5.0, 5.0, 1.0, -1.0, 6.0, 6.0, 1.5, 2 / 3, 9.0, 8.0]
    for result, value in zip(results, expected):
        assert isinstance(result, Value), type(result)
        assert type(result.data) is float
        assert result.data == pytest.approx(value, rel=1e-15)
    total = sum(results, Value(0.0))
    total.backward()
    expected_grad = 1 + 1 + 1 - 1 + 2 + 2 + 0.5 - 2 / 9 + 2 * 3 + 8 * math.log(2)
    assert a.grad == pytest.approx(expected_grad, rel=1e-14)


def test_numpy_label_arithmetic_as_in_the_demo():
    """-yi * score with yi an np.int64, as demo.ipynb writes its hinge loss."""
    score = Value(0.25)
    yi = np.int64(-1)
    out = (1 + -yi * score).relu()
    assert isinstance(out, Value) and out.data == 1.25
    out.backward()
    assert score.grad == 1.0


# -- reused nodes ------------------------------------------------------------------


def test_a_plus_a_keeps_both_edges():
    a = Value(3.0)
    b = a + a
    assert b.inputs == (a, a)
    assert graph_size(b) == (2, 2)
    b.backward()
    assert a.grad == 2.0


def test_reused_sums_double_twice():
    a = Value(3.0)
    b = a + a
    c = b + b
    c.backward()
    assert (c.data, b.grad, a.grad) == (12.0, 2.0, 4.0)


def test_a_times_a_and_a_node_used_on_many_paths():
    a = Value(3.0)
    b = a * a
    b.backward()
    assert a.grad == 6.0
    x = Value(2.0)
    y = x * 3
    z = y * y + y.exp() - x / y  # y reaches z along three paths
    z.backward()
    expected = 2 * 6 * 3 + math.exp(6) * 3  # d/dx of x/(3x) is 0
    assert x.grad == pytest.approx(expected, rel=1e-14)


# -- backward(): PyTorch semantics ------------------------------------------------------


def _small_graph():
    a, b = Value(2.0), Value(-3.0)
    e = a * b
    d = e + 10.0
    L = d * -2.0
    return a, b, e, d, L


def test_backward_seeds_the_root_with_one_whatever_its_grad_was():
    a, b, e, d, L = _small_graph()
    L.grad = 123.0
    L.backward()
    assert L.grad == 1.0
    assert (a.grad, b.grad) == (6.0, -4.0)


def test_leaves_accumulate_and_intermediates_start_fresh():
    a, b, e, d, L = _small_graph()
    L.backward()
    L.backward()
    assert (a.grad, b.grad) == (12.0, -8.0)  # leaves: summed over both calls
    assert (e.grad, d.grad, L.grad) == (-2.0, -2.0, 1.0)  # intermediates: this call only
    a.grad = b.grad = 0.0
    L.backward()
    assert (a.grad, b.grad) == (6.0, -4.0)


def test_two_losses_sharing_a_node():
    a = Value(2.0)
    shared = a * 3
    first, second = shared + 1, shared * shared
    first.backward()
    assert (shared.grad, a.grad) == (1.0, 3.0)
    second.backward()
    assert shared.grad == 12.0  # fresh: d(second)/d(shared) only
    assert a.grad == 3.0 + 36.0  # accumulated over both losses


def test_backward_on_a_leaf_accumulates_one():
    a = Value(5.0)
    a.backward()
    a.backward()
    assert a.grad == 2.0


def test_backward_from_an_intermediate_node():
    a, b, e, d, L = _small_graph()
    d.backward()
    assert (d.grad, e.grad, a.grad, b.grad) == (1.0, 1.0, -3.0, 2.0)
    assert L.grad == 0.0  # above the root: untouched


def test_a_million_node_chain_backward_and_free():
    leaf = Value(1.0)
    x = leaf
    for _ in range(1_000_000):
        x = -x
    x.backward()
    assert x.data == 1.0 and leaf.grad == 1.0  # an even number of negations
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        alive = sum(type(o) is Value for o in gc.get_objects())
        del x  # freeing a chain this deep must not overflow the C stack
        assert alive - sum(type(o) is Value for o in gc.get_objects()) == 1_000_000
    finally:
        if gc_was_enabled:
            gc.enable()
    assert leaf.data == 1.0


# -- topological order and graph size ----------------------------------------------------


def _diamond():
    x = Value(1.5, label="x")
    w = Value(-0.5, label="w")
    h = (x * w).tanh()
    g = h + x
    out = g * h - w.exp()
    return out


def test_topological_order_puts_inputs_first_and_the_root_last():
    out = _diamond()
    order = topological_order(out)
    assert order[-1] is out
    assert len(order) == len(set(map(id, order)))
    position = {id(node): i for i, node in enumerate(order)}
    for node in order:
        for child in node.inputs:
            assert position[id(child)] < position[id(node)]
    assert {n.label for n in order if not n.inputs} == {"x", "w"}


def test_topological_order_without_leaves():
    out = _diamond()
    assert topological_order(out, leaves=False) == [n for n in topological_order(out) if n.inputs]


def test_topological_order_is_deterministic():
    def signature(root):
        return [(n.op, n.label, n.data) for n in topological_order(root)]

    first = signature(_diamond())
    padding = [Value(i) for i in range(1000)]  # other addresses for the second graph
    second = signature(_diamond())
    assert first == second
    # The order follows operand order, which makes it predictable.
    a, b = Value(1.0, "a"), Value(2.0, "b")
    assert [n.label for n in topological_order(a + b)] == ["a", "b", ""]
    assert [n.label for n in topological_order(b + a)] == ["b", "a", ""]
    del padding


def test_graph_size_counts_nodes_and_edges():
    a, b, e, d, L = _small_graph()
    # a, b, e, 10, d, -2, L; every op has two inputs
    assert graph_size(L) == (7, 6)
    assert graph_size(Value(1.0)) == (1, 0)


# -- dot: a neuron's weighted sum as one node --------------------------------------------------


def test_dot_is_one_node_with_the_same_numbers_as_mul_and_add():
    ws = [Value(0.3), Value(-1.2), Value(0.7)]
    xs = [Value(2.0), Value(0.5), Value(-1.0)]
    b = Value(0.1)
    out = dot(ws, xs, b)
    assert out.op == "w·x+b"
    assert out.inputs == (*ws, *xs, b)
    assert out.local_grads == (2.0, 0.5, -1.0, 0.3, -1.2, 0.7, 1.0)
    built = b
    for w, x in zip(ws, xs):
        built = built + w * x
    assert out.data == built.data  # summed in the same order: bit for bit
    out.backward()
    built.backward()
    assert [w.grad for w in ws] == [2 * 2.0, 2 * 0.5, 2 * -1.0]
    assert [x.grad for x in xs] == [2 * 0.3, 2 * -1.2, 2 * 0.7]
    assert b.grad == 2.0


def test_dot_treats_plain_number_inputs_as_constants():
    ws = [Value(0.3), Value(-1.2)]
    b = Value(0.1)
    out = dot(ws, [2, np.float64(0.5)], b)
    assert out.inputs == (*ws, b)
    assert out.local_grads == (2.0, 0.5, 1.0)
    assert out.data == 0.1 + 0.3 * 2 + -1.2 * 0.5
    out.backward()
    assert [w.grad for w in ws] == [2.0, 0.5]


def test_dot_with_a_reused_weight_and_mixed_inputs():
    w = Value(2.0)
    x = Value(3.0)
    out = dot([w, w], [x, 4.0], 1)
    out.backward()
    assert out.data == 1 + 6 + 8
    assert w.grad == 7.0
    assert x.grad == 2.0


# -- custom operations ------------------------------------------------------------------------


def test_from_op_makes_a_node_backward_understands():
    x, y = Value(0.5), Value(2.0)
    # hypot as one custom op
    r = math.hypot(x.data, y.data)
    out = Value.from_op(r, [x, y], [x.data / r, y.data / r], "hypot")
    assert (out.op, out.inputs, out.label, out.grad) == ("hypot", (x, y), "", 0.0)
    assert all(type(g) is float for g in out.local_grads)
    (out * 2).backward()
    assert (x.grad, y.grad) == pytest.approx((2 * 0.5 / r, 2 * 2.0 / r))


# -- comparisons and identity -------------------------------------------------------------


def test_ordering_compares_data_and_returns_bool():
    a, b = Value(1.0), Value(2.0)
    results = [a < b, a <= b, b > a, b >= a, a < 1.5, 1.5 > a, a <= 1, 3 >= b,
               a < np.float64(1.5), np.float64(1.5) > a, b >= np.int64(2)]
    assert results == [True] * len(results)
    assert (b < a, a > b, a > 1, 2 < a) == (False, False, False, False)
    assert all(type(r) is bool for r in results)


def test_max_min_and_sorted_work_on_values():
    values = [Value(0.5), Value(-2.0), Value(3.0), Value(1.0)]
    assert max(values) is values[2]
    assert min(values) is values[1]
    assert [v.data for v in sorted(values)] == [-2.0, 0.5, 1.0, 3.0]
    assert max(values, key=lambda v: v.data) is values[2]


def test_equality_is_identity():
    a, b = Value(1.0), Value(1.0)
    assert a == a and a != b and not (a == b)
    assert (a == 1.0) is False and a != 1.0
    assert len({a, b}) == 2  # two nodes, even with equal data
    assert {a: "first", b: "second"}[b] == "second"
    assert a in [b, a] and Value(1.0) not in [a, b]


def test_lecture_code_can_read_prev_and_op():
    a, b = Value(1.0), Value(2.0)
    c = a * b
    assert c._prev == {a, b} and c._op == "*"
    assert a._prev == set() and a._op == ""


def test_the_finiteness_check_covers_a_graph_that_holds_a_node_made_the_lecture_way():
    """Such a node records no local derivatives to add up: the check goes node by node around it."""

    def lecture_node():
        one = Value(1.0)
        custom = Value(2.0, (one,), "custom")

        def _backward():
            one.grad += custom.grad

        custom._backward = _backward
        return custom, one

    custom, _ = lecture_node()
    with pytest.raises(ArithmeticError, match="0 × ∞"):  # x ** 0.5 at 0 gets gradient 0
        ((Value(0.0) ** 0.5) * Value(0.0) + custom).backward()
    custom, one = lecture_node()
    ((Value(4.0) ** 0.5) * Value(0.0) + custom).backward()  # the same graph, every derivative finite
    assert one.grad == 1.0
