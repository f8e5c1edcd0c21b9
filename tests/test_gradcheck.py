import math

import pytest

from micrograd import Value
from micrograd.gradcheck import central_difference, gradcheck, numerical_gradient


def test_slope_of_the_lecture_parabola():
    f = lambda x: 3 * x**2 - 4 * x + 5
    assert central_difference(f, 3.0) == pytest.approx(14.0, abs=1e-6)
    assert central_difference(f, 2 / 3) == pytest.approx(0.0, abs=1e-6)


def _sin(v):
    return Value.from_op(math.sin(v.data), (v,), (math.cos(v.data),), "sin")


def test_lecture_exercise_gradient():
    f = lambda a, b, c: -(a**3) + _sin(3 * b) - 1 / c + b**2.5 - a**0.5
    report = gradcheck(f, [2.0, 3.0, 4.0], names=["a", "b", "c"])
    assert report.ok, str(report)
    assert [r.analytic for r in report.rows] == pytest.approx(
        [-12.353553390593273, 10.25699027111255, 0.0625], rel=1e-12
    )
    assert numerical_gradient(f, [2.0, 3.0, 4.0]) == pytest.approx([r.analytic for r in report.rows], rel=1e-6)


def test_a_wrong_local_derivative_is_caught_and_named():
    # Subtraction whose second local derivative has the wrong sign.
    buggy_sub = lambda a, b: Value.from_op(a.data - b.data, (a, b), (1.0, 1.0), "-")
    report = gradcheck(buggy_sub, [3.0, 2.0], names=["a", "b"])
    assert not report.ok and not report
    assert [r.name for r in report.failures] == ["b"]
    text = str(report)
    assert "MISMATCH" in text and "1 of 2 gradients are wrong" in text


def test_labels_of_value_inputs_name_the_rows():
    report = gradcheck(lambda x: x * x, [Value(2.0, label="w")])
    assert report.rows[0].name == "w" and "all gradients match" in str(report)


def test_gradcheck_rejects_functions_that_do_not_return_a_value():
    with pytest.raises(TypeError, match="must return a Value"):
        gradcheck(lambda x: 1.0, [1.0])
    with pytest.raises(TypeError, match="numbers or Values"):
        gradcheck(lambda x: x, ["1"])
