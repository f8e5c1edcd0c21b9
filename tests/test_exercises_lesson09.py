"""Lesson 9's checkers: the ports' bugs are rejected with a useful hint, the fixes pass."""

import math

import pytest

from micrograd import Value
from micrograd.course.lessons import lesson09 as check
from micrograd.course.verdicts import TODO
from micrograd.gradcheck import gradcheck


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def unfinished(*args):
    raise NotImplementedError


# -- exercise 1 --------------------------------------------------------------------


def right_sub(a, b):
    return Value.from_op(a.data - b.data, (a, b), (1.0, -1.0), "-")


def test_subtraction_accepts_a_fix():
    assert check.subtraction(right_sub).passed


def test_subtraction_rejects_the_engine_operator():
    verdict = check.subtraction(lambda a, b: a - b)
    assert verdict.status == "failed"
    assert "engine's own '-'" in verdict.message and "Value.from_op" in verdict.message


def test_subtraction_rejects_a_plain_value_and_someone_elses_op():
    verdict = check.subtraction(lambda a, b: Value(a.data - b.data))
    assert verdict.status == "failed" and "plain Value" in verdict.message
    verdict = check.subtraction(lambda a, b: a + (-b))
    assert verdict.status == "failed" and "'+'" in verdict.message


def test_the_check_puts_value_from_op_back():
    from micrograd import errors

    original, checks = Value.__dict__["from_op"], errors.custom_op
    check.subtraction(right_sub)
    check.subtraction(unfinished)
    assert Value.__dict__["from_op"] is original and errors.custom_op is checks


def test_from_op_taken_earlier_under_another_name_is_from_op():
    """F = Value.from_op, made before the check runs, still makes the learner's own node."""
    F = Value.from_op
    assert check.subtraction(lambda a, b: F(a.data - b.data, (a, b), (1.0, -1.0), "-")).passed
    assert check.reflected(lambda a, n: F(n - a.data, (a,), (-1.0,), "-"),
                           lambda a, n: F(n / a.data, (a,), (-n / a.data**2,), "/")).passed
    verdict = check.subtraction(lambda a, b: F(a.data - b.data, (a, b), (1.0, -1.0), "-") + 0)
    assert verdict.status == "failed" and "engine's own '+'" in verdict.message


@pytest.mark.parametrize(
    "sub, words",
    [
        (lambda a, b: Value.from_op(a.data - b.data, (a, b), (1.0, -1.0)), "takes four arguments"),
        (lambda a, b: Value.from_op(a.data - b.data, (a, b), (1.0,), "-"), "1 local derivatives"),
        (lambda a, b: Value.from_op(a.data - b.data, a, (1.0, -1.0), "-"), "as tuples"),
    ],
)
def test_a_wrong_from_op_call_is_named_in_from_ops_words(sub, words):
    verdict = check.subtraction(sub)
    assert verdict.status == "failed" and words in verdict.message
    assert "<locals>" not in verdict.message and "Value.from_op(data, inputs, local_grads, op)" in verdict.message


@pytest.mark.parametrize(
    "sub, words",
    [
        (lambda a, b: Value.from_op(a.data - b.data, (a, b), (1.0, 1.0), "-"), "for b"),  # the Julia port
        (lambda a, b: Value.from_op(a.data - b.data, (a, b), (-1.0, -1.0), "-"), "for a"),
        (lambda a, b: Value.from_op(a.data + b.data, (a, b), (1.0, -1.0), "-"), "computes 8"),
        (lambda a, b: a.data - b.data, "not a Value"),
    ],
)
def test_subtraction_rejects_wrong_ops(sub, words):
    verdict = check.subtraction(sub)
    assert verdict.status == "failed"
    assert words in verdict.message and "hint" in verdict.message


def test_subtraction_untouched_is_not_attempted():
    assert check.subtraction(TODO).status == "not attempted"
    assert check.subtraction(unfinished).status == "not attempted"


# -- exercise 2 --------------------------------------------------------------------


def pow_go(a, b):
    out = a.data**b.data
    return Value.from_op(out, (a, b), (b.data * a.data ** (b.data - 1), a.data * b.data ** (a.data - 1)), "**")


def right_power(a, b):
    out = a.data**b.data
    return Value.from_op(out, (a, b), (b.data * a.data ** (b.data - 1), out * math.log(a.data)), "**")


def test_power_accepts_a_fix_and_rejects_the_engine_operator():
    assert check.power(right_power).passed
    verdict = check.power(lambda a, b: a**b)
    assert verdict.status == "failed" and "engine's own '**'" in verdict.message


def test_power_rejects_the_go_ports_exponent_gradient():
    verdict = check.power(pow_go)
    assert verdict.status == "failed"
    assert "for b" in verdict.message and "exponential in b" in verdict.message


def test_power_rejects_a_wrong_base_gradient():
    def base_wrong(a, b):
        out = a.data**b.data
        return Value.from_op(out, (a, b), (a.data ** (b.data - 1), out * math.log(a.data)), "**")

    verdict = check.power(base_wrong)
    assert verdict.status == "failed" and "for a" in verdict.message and "power rule" in verdict.message


def test_power_untouched_is_not_attempted():
    assert check.power(unfinished).status == "not attempted"


# -- exercise 3 --------------------------------------------------------------------


def right_rsub(a, n):
    return Value.from_op(n - a.data, (a,), (-1.0,), "-")


def right_rtruediv(a, n):
    return Value.from_op(n / a.data, (a,), (-n / a.data**2,), "/")


def test_reflected_accepts_fixes():
    assert check.reflected(right_rsub, right_rtruediv).passed


@pytest.mark.parametrize(
    "rsub, rtruediv, words",
    [
        (lambda a, n: n - a, right_rtruediv, "rsub(a, 2) should compute 2 − a: the result was made by the engine's own '-'"),
        (right_rsub, lambda a, n: n / a, "rtruediv(a, 2) should compute 2 / a: the result was made by the engine's own '/'"),
    ],
)
def test_reflected_rejects_the_engine_operators(rsub, rtruediv, words):
    verdict = check.reflected(rsub, rtruediv)
    assert verdict.status == "failed"
    assert words in verdict.message and "Value.from_op" in verdict.message


def test_reflected_rejects_the_cpp_ports_swapped_operands():
    verdict = check.reflected(lambda a, n: a - n, right_rtruediv)
    assert verdict.status == "failed"
    assert "rsub(a, 2)" in verdict.message and "__rsub__" in verdict.message and "LEFT" in verdict.message
    verdict = check.reflected(right_rsub, lambda a, n: a / n)
    assert verdict.status == "failed" and "rtruediv" in verdict.message and "__rtruediv__" in verdict.message


def test_reflected_rejects_a_right_value_with_a_wrong_gradient():
    verdict = check.reflected(lambda a, n: Value.from_op(n - a.data, (a,), (1.0,), "-"), right_rtruediv)
    assert verdict.status == "failed" and "backward() gives 1" in verdict.message


def test_reflected_untouched_is_not_attempted():
    assert check.reflected(unfinished, unfinished).status == "not attempted"


# -- exercise 4 --------------------------------------------------------------------


def test_exactly_one_suspect_is_broken_and_it_passes_at_zero():
    broken = [name for name, op in check.suspects.items() if op.__code__.co_argcount == 1 and not gradcheck(op, [0.7])]
    assert broken == ["softplus"]
    assert gradcheck(check.softplus, [0.0])  # the trap: a lucky point
    assert gradcheck(check.hypot, [0.7, -1.2])
    assert math.isclose(check.softplus(Value(0.3)).data, math.log(1 + math.exp(0.3)))


def test_the_suspect_function_fails_gradcheck():
    report = gradcheck(check.suspect_function, [0.5, 0.8])
    assert not report.ok


def test_broken_op_accepts_the_name_or_the_function():
    assert check.broken_op("softplus").passed
    assert check.broken_op(check.softplus).passed


@pytest.mark.parametrize(
    "answer, words",
    [("hypot", "passes gradcheck everywhere"), ("cube", "several points"), ("relu", "not one of the suspects"), (3, "not one")],
)
def test_broken_op_rejects_innocent_suspects_and_strangers(answer, words):
    verdict = check.broken_op(answer)
    assert verdict.status == "failed" and words in verdict.message


def test_broken_op_untouched_is_not_attempted():
    assert check.broken_op(TODO).status == "not attempted"
