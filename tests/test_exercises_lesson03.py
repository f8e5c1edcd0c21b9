"""Lesson 3's checkers: right answers pass, typical mistakes get a useful hint."""

import math

import pytest

from micrograd import Value
from micrograd.exercises import lesson03 as check
from micrograd.exercises.checking import TODO


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def test_sum_times_gradients_accepts_numbers_and_values():
    assert check.sum_times_gradients(-4.0, -4.0, 3.0).passed
    assert check.sum_times_gradients(-4, -4, 3).passed
    assert check.sum_times_gradients(Value(-4.0), Value(-4.0), Value(3.0)).passed


@pytest.mark.parametrize(
    "answer, words",
    [
        ((1.0, 1.0, 3.0), "local derivative of the sum"),  # forgot to chain
        ((-4.0, -4.0, -2.0), "value of that sum"),  # dz = x
        ((-4.0, -4.0, 7.0), "which number is z multiplied by"),
        ((4.0, 4.0, 3.0), "wrong sign"),
        ((-4.0, 5.0, 3.0), "dy"),
        (("-4", -4.0, 3.0), "(str)"),
        ((float("nan"), -4.0, 3.0), "finite"),
    ],
)
def test_sum_times_gradients_explains_wrong_answers(answer, words):
    verdict = check.sum_times_gradients(*answer)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_sum_times_gradients_untouched_is_not_attempted():
    assert check.sum_times_gradients(TODO, TODO, TODO).status == "not attempted"
    assert check.sum_times_gradients(-4.0, TODO, 3.0).status == "not attempted"


def _L_after(sign):
    a, b, c, f = 2.0 + sign * 0.06, -3.0 - sign * 0.04, 10.0 - sign * 0.02, -2.0 + sign * 0.04
    return (a * b + c) * f


def test_step_downhill_accepts_the_lowered_loss():
    verdict = check.step_downhill(_L_after(-1))
    assert verdict.passed and "-8.7263" in verdict.message
    assert check.step_downhill(Value(_L_after(-1))).passed


@pytest.mark.parametrize(
    "answer, words",
    [
        (_L_after(+1), "raises L"),  # the lesson's uphill step
        (-8.0, "has not changed"),
        (-9.5, "not what one step of 0.01 gives"),
        (-7.0, "not lower than -8"),
        (None, "(NoneType)"),
    ],
)
def test_step_downhill_rejects_typical_mistakes(answer, words):
    verdict = check.step_downhill(answer)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_step_downhill_untouched_is_not_attempted():
    assert check.step_downhill(TODO).status == "not attempted"


def test_tanh_local_grad_accepts_one_minus_o_squared():
    assert check.tanh_local_grad(lambda o: 1 - o**2).passed
    assert check.tanh_local_grad(lambda o: (1 - o) * (1 + o)).passed


@pytest.mark.parametrize(
    "local_grad, words",
    [
        (lambda o: 1 - o, "1 - o"),
        (lambda o: 1 - math.tanh(o) ** 2, "tanh to o again"),
        (lambda o: o**2 - 1, "sign is flipped"),
        (lambda o: 0.5, "not the slope of tanh"),  # the lesson's one number typed in
        (lambda o: None, "(NoneType)"),
        (lambda o: 1 / 0, "ZeroDivisionError"),
    ],
)
def test_tanh_local_grad_rejects_typical_mistakes(local_grad, words):
    verdict = check.tanh_local_grad(local_grad)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_tanh_local_grad_needs_the_function_itself():
    verdict = check.tanh_local_grad(0.5)
    assert verdict.status == "failed" and "pass the function itself" in verdict.message


def test_tanh_local_grad_untouched_is_not_attempted():
    def local_grad(o):
        raise NotImplementedError

    assert check.tanh_local_grad(local_grad).status == "not attempted"
