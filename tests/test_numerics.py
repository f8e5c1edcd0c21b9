"""Numerical edge cases, handled on purpose: no silent infinities, no crash on a number."""

import math
from fractions import Fraction

import numpy as np
import pytest

from micrograd import Value
from micrograd.optim import SGD


# -- an infinite or nan gradient is an error naming where it arose --------------------


def test_an_infinite_local_derivative_is_refused_by_backward_naming_the_op_and_input():
    out = Value(0.1) ** -307
    assert out.data == pytest.approx(1e307)  # the forward value is defined, so it is computed
    with pytest.raises(OverflowError) as error:
        out.backward()
    assert "**-307" in str(error.value) and "0.1" in str(error.value)


def test_a_value_exponent_whose_gradient_overflows():
    out = Value(1e300) ** Value(1.02)  # d/dexponent = out * ln(base), about 7e308
    with pytest.raises(OverflowError, match=r"\*\*"):
        out.backward()


def test_the_chain_rule_overflowing_from_finite_local_derivatives():
    x = Value(1e-300, label="x")
    y = x * 1e200 * 1e200  # every value and every local derivative is finite
    assert y.data == pytest.approx(1e100)
    with pytest.raises(OverflowError) as error:
        y.backward()
    message = str(error.value)
    assert "x = 1e-300" in message and "1e+200" in message and "overflows" in message


def test_a_leaf_that_overflows_by_accumulating_over_calls_is_caught_by_the_optimiser():
    """backward() checks what it passes down; a parameter whose gradient is never zeroed can
    still add up past a float over many calls, and then the optimiser's step refuses it."""
    x = Value(1.0, label="x")
    y = x * 1e308
    y.backward()
    y.backward()  # no zero_grad: 1e308 + 1e308
    assert x.grad == math.inf
    with pytest.raises(OverflowError, match="training diverged"):
        SGD([x], lr=0.1).step()


@pytest.mark.parametrize(
    "make, op",
    [(lambda: Value(0.0) ** 0.5, "**0.5"), (lambda: Value(1e-320).log(), "log"), (lambda: 1 / Value(1e-160), "/")],
)
def test_a_defined_forward_value_never_raises_only_the_backward_that_needs_infinity(make, op):
    out = make()
    assert math.isfinite(out.data)
    with pytest.raises(OverflowError, match="derivative") as error:
        out.backward()
    assert op in str(error.value)


def test_an_infinite_local_derivative_times_a_zero_gradient_is_an_error_not_a_silent_zero():
    """0 × ∞ has no value (PyTorch gives nan): skipping the zero-gradient node would leave x.grad
    at a plausible 0.0, so backward() refuses it and says where."""
    x, z = Value(0.0, label="x"), Value(0.0, label="z")
    with pytest.raises(OverflowError) as error:
        ((x**0.5) * z).backward()
    assert str(error.value).startswith(
        "backward(): the **0.5 node = 0.0 has an infinite derivative with respect to its input 0 (x = 0.0), "
        "and the gradient arriving at it is 0: 0 × ∞ has no value (PyTorch gives nan)"
    )


def test_a_zero_gradient_skips_a_node_whose_local_derivatives_are_finite():
    x = Value(3.0)
    dead = (x * -1.0).relu()  # relu at a negative input: nothing flows back to x
    (dead * 5.0 + 1.0).backward()
    assert x.grad == 0.0


def test_zero_to_the_half_is_zero():
    assert (Value(0.0) ** 0.5).data == 0.0


def test_finite_gradients_raise_nothing_even_when_their_sum_overflows():
    a, b = Value(1.0), Value(1.0)
    out = a * 1.5e308 + b * 1.5e308 * 0.0  # each gradient is finite; all of them add up past a float
    out.backward()
    assert a.grad == 1.5e308


# -- comparisons agree with Python's own -------------------------------------------------


@pytest.mark.parametrize(
    "value, other",
    [(2, 10**400), (2**53, 2**53 + 1), (0.5, Fraction(1, 3)), (1.0, np.float64(1.0)), (-1.0, -(10**400))],
)
def test_comparisons_agree_with_python_for_any_real_number(value, other):
    v = Value(value)
    x = float(value)
    assert (v < other, v <= other, v > other, v >= other) == (x < other, x <= other, x > other, x >= other)
    assert type(v < other) is bool


def test_a_huge_int_can_be_compared_but_not_held():
    assert Value(2) < 10**400
    with pytest.raises(OverflowError, match="too large for a float"):
        Value(10**400)


# -- numpy numbers on either side ------------------------------------------------------------


@pytest.mark.parametrize("number", [np.float64(2.5), np.int64(3), np.float32(0.5), np.array(2.5), np.array(4)])
def test_numpy_scalars_and_0d_arrays_work_as_numbers_on_either_side(number):
    v = Value(2.0)
    expected = float(number)
    assert Value(number).data == expected
    for out, data in [(v * number, 2 * expected), (number * v, 2 * expected), (number - v, expected - 2),
                      (v + number, 2 + expected)]:
        assert isinstance(out, Value) and out.data == data


@pytest.mark.parametrize("array", [np.ones(3), np.zeros((2, 2))])
def test_an_array_is_refused_with_its_shape(array):
    shape = str(array.shape)
    with pytest.raises(TypeError, match="holds one number") as error:
        Value(array)
    assert shape in str(error.value)
    for attempt in (lambda: Value(1.0) * array, lambda: array + Value(1.0), lambda: Value(1.0) < array):
        with pytest.raises(TypeError) as error:
            attempt()
        assert shape in str(error.value) and "one number" in str(error.value)


def test_a_leaf_whose_finite_contributions_add_up_past_a_float_in_one_call_is_named():
    """The total notices the overflow; the search then has to look at the leaves too (the order has none)."""
    u, x = Value(1.5e308, label="u"), Value(0.5, label="x")
    with pytest.raises(OverflowError, match=r"gradient of x = 0\.5 is inf"):
        (u * x + u * x).backward()
