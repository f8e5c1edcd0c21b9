"""Bad input: each raises the right exception, at the operation that caused it,
with a message that says what was wrong."""

import math
import random
from decimal import Decimal

import numpy as np
import pytest

from micrograd import MLP, Layer, Neuron, Value
from micrograd.engine import dot

# -- what a Value may hold ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, type_name",
    [("3", "str"), (None, "NoneType"), ([1.0], "list"), (1j, "complex"), (Decimal("1.5"), "Decimal"),
     (np.array([1.0, 2.0]), "ndarray"), (Value(1.0), "Value")],
)
def test_a_value_of_a_non_number_is_a_type_error_naming_the_type(bad, type_name):
    with pytest.raises(TypeError, match=type_name):
        Value(bad)


def test_a_node_where_a_number_belongs_is_told_to_give_its_number():
    class LectureValue:  # another micrograd's node: a number in .data
        def __init__(self, data):
            self.data, self._prev = data, set()

    for node in (Value(2.0), LectureValue(2.0)):
        with pytest.raises(TypeError, match=r"which is a node already: use it as it is, or Value\(v.data\) for a new leaf"):
            Value(node)
    with pytest.raises(TypeError, match=r"square's local derivative takes a real number .*which is a node of a graph: give its number, .data"):
        Value.from_op(4.0, (Value(2.0),), (Value(4.0),), "square")


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, np.nan, np.float64("inf"), np.float32("-inf")])
def test_nan_and_infinity_are_value_errors(bad):
    with pytest.raises(ValueError) as error:
        Value(bad)
    message = str(error.value)
    assert str(float(bad)) in message and "finite" in message


def test_a_label_must_be_a_string():
    with pytest.raises(TypeError, match="label"):
        Value(1.0, 2.0)


@pytest.mark.parametrize(
    "operation",
    [lambda v: v + math.nan, lambda v: math.inf * v, lambda v: v - math.inf, lambda v: v ** math.nan,
     lambda v: math.nan ** v, lambda v: v / math.inf],
)
def test_a_non_finite_plain_number_operand_is_a_value_error(operation):
    with pytest.raises(ValueError, match="finite"):
        operation(Value(2.0))


# -- domains ------------------------------------------------------------------------------------


@pytest.mark.parametrize("x", [0.0, -0.0, -1.5])
def test_log_of_a_non_positive_value(x):
    with pytest.raises(ValueError) as error:
        Value(x).log()
    message = str(error.value)
    assert f"log({x})" in message and "positive" in message


@pytest.mark.parametrize(
    "division",
    [lambda: Value(1.0) / 0, lambda: Value(1.0) / Value(0.0), lambda: 1 / Value(0.0),
     lambda: Value(0.0) / Value(-0.0), lambda: np.float64(2) / Value(0)],
)
def test_division_by_a_zero_value(division):
    with pytest.raises(ZeroDivisionError) as error:
        division()
    message = str(error.value)
    assert "0" in message and "divis" in message


@pytest.mark.parametrize("exponent", [-1, -2.0, -0.5])
def test_zero_to_a_negative_power(exponent):
    with pytest.raises(ZeroDivisionError) as error:
        Value(0.0) ** exponent
    assert f"0 ** {float(exponent)}" in str(error.value)


@pytest.mark.parametrize("base, exponent", [(-2.0, 0.5), (-8.0, 1 / 3), (-0.1, -1.5)])
def test_a_negative_base_with_a_fractional_exponent(base, exponent):
    with pytest.raises(ValueError) as error:
        Value(base) ** exponent
    message = str(error.value)
    assert str(base) in message and str(exponent) in message and "integer exponent" in message


def test_a_negative_base_with_an_integer_exponent_is_fine():
    assert (Value(-2.0) ** 3).data == -8.0
    assert (Value(-2.0) ** -1.0).data == -0.5


@pytest.mark.parametrize(
    "power",
    [lambda: Value(-2.0) ** Value(2.0), lambda: Value(0.0) ** Value(1.0),
     lambda: (-2) ** Value(0.5), lambda: 0 ** Value(2.0)],
)
def test_a_non_positive_base_with_a_value_exponent(power):
    with pytest.raises(ValueError) as error:
        power()
    message = str(error.value)
    assert "positive base" in message and "ln(base)" in message


# -- overflow and saturation ------------------------------------------------------------------


@pytest.mark.parametrize("x", [710.0, 1000.0, 1e300])
def test_exp_overflow_names_the_input(x):
    with pytest.raises(OverflowError) as error:
        Value(x).exp()
    assert f"exp({x})" in str(error.value)


def test_exp_just_below_overflow_is_finite():
    out = Value(709.0).exp()
    out.backward()
    assert math.isfinite(out.data) and out.inputs[0].grad == out.data


@pytest.mark.parametrize(
    "operation, what",
    [(lambda: Value(1e308) * 10, "*"), (lambda: Value(1e308) + Value(1e308), "+"),
     (lambda: Value(10.0) ** 400, "10.0"), (lambda: 2 ** Value(2000.0), "2000.0"),
     (lambda: Value(1e200) ** 2, "1e+200"), (lambda: Value(1e300) / 1e-300, "/")],
)
def test_a_result_too_large_for_a_float_is_an_overflow_error(operation, what):
    with pytest.raises(OverflowError) as error:
        operation()
    message = str(error.value)
    assert what in message
    assert "overflows a float" in message or "not a finite float" in message


@pytest.mark.parametrize(
    "operation",
    [lambda: Value(1e-320).log(), lambda: 1 / Value(1e-160), lambda: Value(1.0) / Value(1e-170)],
    ids=["log-of-a-subnormal", "reciprocal-of-a-tiny-value", "division-by-a-tiny-value"],
)
def test_an_infinite_local_derivative_is_an_error_at_backward_not_a_silent_inf(operation):
    """The output is finite, so the forward pass works; d(out)/d(input) is not,
    so backward refuses to spread inf and nan, naming the op."""
    out = operation()
    assert math.isfinite(out.data)
    with pytest.raises(OverflowError) as error:
        out.backward()
    assert "derivative" in str(error.value) and out.op in str(error.value)


@pytest.mark.parametrize("x", [1000.0, -1000.0, 1e308, -1e308])
def test_tanh_and_sigmoid_are_stable_for_any_finite_input(x):
    t = Value(x).tanh()
    assert t.data == math.copysign(1.0, x)
    s = Value(x).sigmoid()
    assert s.data == (1.0 if x > 0 else 0.0)
    for out in (t, s):
        out.backward()
        assert out.inputs[0].grad == 0.0


def test_sigmoid_is_exact_where_exp_would_underflow():
    assert Value(-700.0).sigmoid().data == pytest.approx(math.exp(-700.0), rel=1e-12)
    assert Value(40.0).sigmoid().data == 1.0 / (1.0 + math.exp(-40.0))


# -- unsupported operand types -------------------------------------------------------------


UNSUPPORTED = ["a", None, [1.0], 1j, object()]
OPERATORS = [
    ("+", lambda x, y: x + y), ("-", lambda x, y: x - y), ("*", lambda x, y: x * y),
    ("/", lambda x, y: x / y), ("**", lambda x, y: x**y),
]


@pytest.mark.parametrize("other", UNSUPPORTED, ids=lambda o: type(o).__name__)
@pytest.mark.parametrize("symbol, operator", OPERATORS, ids=[s for s, _ in OPERATORS])
def test_unsupported_operands_are_type_errors_on_either_side(symbol, operator, other):
    # Python writes these messages once both sides have said NotImplemented
    # (or, for str * Value, once sequence repetition has refused a Value).
    with pytest.raises(TypeError, match="Value"):
        operator(Value(1.0), other)
    with pytest.raises(TypeError, match="Value"):
        operator(other, Value(1.0))


def test_the_error_for_string_plus_value():
    with pytest.raises(TypeError, match="Value"):
        "a" + Value(1.0)
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Value' and 'str'"):
        Value(1.0) + "a"


@pytest.mark.parametrize(
    "method", ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
               "__truediv__", "__rtruediv__", "__pow__", "__rpow__"]
)
def test_operators_return_not_implemented_for_unknown_types(method):
    assert getattr(Value(1.0), method)("a") is NotImplemented


class _Interval:
    """A type that knows how to combine with Values, on either side."""

    def __radd__(self, other):
        return ("radd", other.data)

    def __rmul__(self, other):
        return ("rmul", other.data)

    def __rpow__(self, other):
        return ("rpow", other.data)

    def __gt__(self, other):
        return ("gt", other.data)


def test_the_other_operand_gets_its_turn():
    assert Value(2.0) + _Interval() == ("radd", 2.0)
    assert Value(2.0) * _Interval() == ("rmul", 2.0)
    assert Value(2.0) ** _Interval() == ("rpow", 2.0)


def test_comparisons_with_unknown_types():
    with pytest.raises(TypeError, match="str"):
        Value(1.0) < "a"
    with pytest.raises(TypeError):
        "a" >= Value(1.0)
    # Returning NotImplemented lets the other operand answer, as for arithmetic.
    assert (Value(2.0) < _Interval()) == ("gt", 2.0)


# -- custom operations and dot ------------------------------------------------------------------


def test_from_op_checks_its_arguments():
    x = Value(1.0)
    with pytest.raises(TypeError, match="float"):
        Value.from_op(1.0, [x, 2.0], [1.0, 1.0], "twice")
    with pytest.raises(ValueError) as error:
        Value.from_op(1.0, [x], [1.0, 2.0], "twice")
    assert "1 inputs but 2 local derivatives" in str(error.value)
    with pytest.raises(ValueError, match="local derivative"):
        Value.from_op(1.0, [x], [math.nan], "twice")
    with pytest.raises(ValueError, match="output"):
        Value.from_op(math.inf, [x], [1.0], "twice")


def test_dot_needs_one_weight_per_input():
    with pytest.raises(ValueError) as error:
        dot([Value(1.0), Value(2.0)], [1.0], 0.0)
    assert "2 weights but 1 inputs" in str(error.value)


# -- nn arguments -------------------------------------------------------------------------------


@pytest.mark.parametrize("nin", [0, -1, 2.5, True, "3"])
def test_neuron_input_count_must_be_a_positive_whole_number(nin):
    with pytest.raises(ValueError) as error:
        Neuron(nin)
    assert "nin" in str(error.value) and repr(nin) in str(error.value)


@pytest.mark.parametrize("nout", [0, -2, 1.0])
def test_layer_size_must_be_a_positive_whole_number(nout):
    with pytest.raises(ValueError, match="nout"):
        Layer(3, nout)


def test_mlp_layer_sizes():
    with pytest.raises(ValueError, match="at least one"):
        MLP(2, [])
    with pytest.raises(ValueError, match="nout"):
        MLP(2, [4, 0, 1])


def test_mlp_layer_sizes_given_as_one_number():
    """MLP(2, 16) instead of MLP(2, [16]): say that nouts is a list of sizes."""
    with pytest.raises(TypeError) as error:
        MLP(2, 16)
    assert "nouts" in str(error.value)


@pytest.mark.parametrize("activation", ["gelu", "ReLU", ""])
def test_unknown_activation_lists_the_choices(activation):
    with pytest.raises(ValueError) as error:
        Neuron(2, activation=activation)
    message = str(error.value)
    assert repr(activation) in message
    assert all(choice in message for choice in ("'relu'", "'tanh'", "'sigmoid'", "None"))


@pytest.mark.parametrize("rng, type_name", [(True, "bool"), (1.5, "float"), ("seed", "str"), (np.random.default_rng(0), "Generator")])
def test_rng_must_be_a_seed_or_a_random(rng, type_name):
    with pytest.raises(TypeError) as error:
        MLP(2, [3, 1], rng=rng)
    assert type_name in str(error.value) and "random.Random" in str(error.value)


def test_a_model_called_with_the_wrong_number_of_inputs():
    model = MLP(3, [4, 1], rng=0)
    with pytest.raises(ValueError) as error:
        model([1.0, 2.0])
    assert "expected 3 inputs, got 2" in str(error.value)
    with pytest.raises(ValueError, match="expected 2 inputs, got 3"):
        Neuron(2, rng=0)([1.0, 2.0, 3.0])


def test_a_model_called_with_a_single_number():
    with pytest.raises(TypeError) as error:
        MLP(1, [2, 1], rng=0)(0.5)
    assert "list" in str(error.value) and "[x]" in str(error.value)
    # wrapped, it works
    assert isinstance(MLP(1, [2, 1], rng=0)([0.5]), Value)


def test_a_model_input_that_is_not_a_number():
    with pytest.raises(TypeError, match="str"):
        MLP(2, [1], rng=random.Random(0))(["a", "b"])
