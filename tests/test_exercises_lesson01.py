"""Lesson 1's checkers: right answers pass, typical mistakes get a useful hint."""

import numpy as np
import pytest

from micrograd import Value
from micrograd.course.lessons import lesson01 as check
from micrograd.course.verdicts import TODO

f = lambda x: 3 * x**2 - 4 * x + 5


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def test_slope_at_minus_one_accepts_measured_and_exact_slopes():
    h = 1e-3
    measured = (f(-1 + h) - f(-1)) / h
    verdict = check.slope_at_minus_one(measured)
    assert verdict.passed and "smaller h" in verdict.message
    assert check.slope_at_minus_one(-10.0).passed
    assert check.slope_at_minus_one(-10).passed


@pytest.mark.parametrize(
    "answer, words",
    [
        (12.0, "height of the curve"),  # f(-1) itself
        (10.0, "wrong sign"),
        (14.0, "slope at x = 3"),
        (50.0, "nudge x = -1"),
        ("-10", "(str)"),
        (float("nan"), "finite"),
        (Value(12.0), "height of the curve"),  # a Value is read by its number, as every checker reads one
        ([-10.0], "(list)"),
    ],
)
def test_slope_at_minus_one_explains_wrong_answers(answer, words):
    verdict = check.slope_at_minus_one(answer)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_slope_at_minus_one_untouched_is_not_attempted():
    assert check.slope_at_minus_one(TODO).status == "not attempted"


def test_slope_function_accepts_one_sided_and_central_differences():
    assert check.slope_function(lambda f, x, h=1e-4: (f(x + h) - f(x)) / h).passed
    assert check.slope_function(lambda f, x, h=1e-4: (f(x + h) - f(x - h)) / (2 * h)).passed


@pytest.mark.parametrize(
    "slope, words",
    [
        (lambda f, x, h: f(x + h) - f(x), "divide the change"),
        (lambda f, x, h: (f(x) - f(x + h)) / h, "sign is flipped"),
        (lambda f, x, h: (f(x + h) - f(x)) / (2 * h), "halves the slope"),
        (lambda f, x, h: f(x), "returns f(x)"),
        (lambda f, x, h: 2 * x, "f(x) = 5*x - 2"),  # the derivative of x**2 typed in
        (lambda f, x, h: None, "return the slope"),
        (lambda f, x, h: 1 / 0, "ZeroDivisionError"),
    ],
)
def test_slope_function_rejects_typical_mistakes(slope, words):
    verdict = check.slope_function(slope)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_slope_function_needs_the_function_itself():
    verdict = check.slope_function(14.0)
    assert verdict.status == "failed" and "pass the function itself" in verdict.message


def test_slope_function_untouched_is_not_attempted():
    def slope(f, x, h=1e-4):
        raise NotImplementedError

    assert check.slope_function(slope).status == "not attempted"


def test_two_input_slopes():
    g = lambda x, y: x**2 * y + 3 * y
    h = 1e-6
    slope_x = (g(1.5 + h, -2) - g(1.5, -2)) / h
    slope_y = (g(1.5, -2 + h) - g(1.5, -2)) / h
    assert check.two_input_slopes(slope_x, slope_y).passed

    swapped = check.two_input_slopes(slope_y, slope_x)
    assert swapped.status == "failed" and "swapped" in swapped.message
    half_right = check.two_input_slopes(slope_x, 3.0)  # forgot the "+ 3y" term's slope
    assert half_right.status == "failed" and "slope_x is right" in half_right.message
    assert "nudge only y" in half_right.message
    both_wrong = check.two_input_slopes(g(1.5, -2), 0.0)
    assert both_wrong.status == "failed" and "one input at a time" in both_wrong.message
    assert check.two_input_slopes(TODO, slope_y).status == "not attempted"


@pytest.mark.parametrize(
    "answer, words",
    [
        (-7.0, "a nudge of h = 1"),  # (f(0) - f(-1)) / 1
        (-13.0, "a nudge of h = -1"),
        (-20.0, "twice the slope"),  # a central difference divided by h
    ],
)
def test_slope_at_minus_one_names_a_big_step_and_a_missing_2(answer, words):
    verdict = check.slope_at_minus_one(answer)
    assert verdict.status == "failed" and words in verdict.message, verdict.message


@pytest.mark.parametrize(
    "slope, words",
    [
        (lambda f, x, h=0.0001: (f(x + h) - f(x - h)) / h, "divides by h: the two steps span 2h"),
        (lambda f, x, h=0.0001: (f(x + 1.0) - f(x)) / 1.0, "nudges by h = 1, not by the h it is given"),
        (lambda f, x, h=0.0001: (f(x + 0.1) - f(x - 0.1)) / 0.2, "nudges by h = 0.1"),
    ],
)
def test_slope_function_names_a_central_difference_over_h_and_an_ignored_h(slope, words):
    verdict = check.slope_function(slope)
    assert verdict.status == "failed" and words in verdict.message, verdict.message


@pytest.mark.parametrize(
    "answer, words",
    [
        (f(-1 + 1e-3) - f(-1), "the change in f over a step of h = 0.001 (one way), not divided by h"),
        (f(-1 + 1e-4) - f(-1 - 1e-4), "the change in f over a step of h = 0.0001 (both ways), not divided by h"),
        ((f(1 + 1e-3) - f(1)) / 1e-3, "the slope at x = 1, not at x = -1"),
        ((f(-1 + 1e-3) - f(-1)) * 1e-3, "(one way) times h: divide the change by h"),
        (6 * -1 + 4, "6x + 4 at x = -1"),
        ((f(0 + 1e-4) - f(0)) / 1e-4, "the slope at x = 0 from the lesson"),
        (0.0, "flat at -1"),
    ],
)
def test_slope_at_minus_one_names_the_usual_slips_not_a_step(answer, words):
    """No division by h, the slope at +1, a multiplication by h, 6x + 4: each named, none read as a big step."""
    verdict = check.slope_at_minus_one(answer)
    assert verdict.status == "failed" and words in verdict.message, verdict.message
    assert "a nudge of h" not in verdict.message


@pytest.mark.parametrize(
    "slope",
    [
        lambda f, x, h: (f(x + 1e-6) - f(x - 1e-6)) / 2e-6,  # a central difference with its own h
        lambda f, x, h: (f(x + 1e-6) - f(x)) / 1e-6,  # a forward difference with its own h
    ],
)
def test_slope_function_refuses_a_step_of_its_own(slope):
    verdict = check.slope_function(slope)
    assert verdict.status == "failed" and "nudge by the argument h" in verdict.message, verdict.message


def test_slope_function_accepts_a_difference_worked_out_in_float32():
    def forward(f, x, h):
        x, h = np.float32(x), np.float32(h)
        return (f(x + h) - f(x)) / h

    def central(f, x, h):
        x, h = np.float32(x), np.float32(h)
        return (f(x + h) - f(x - h)) / (2 * h)

    assert check.slope_function(forward).passed and check.slope_function(central).passed


def test_slope_function_names_a_slope_typed_in():
    verdict = check.slope_function(lambda f, x, h: 6 * x - 4)  # the lesson's f', whatever f is given
    assert verdict.status == "failed" and "ignores the function it is given" in verdict.message, verdict.message
