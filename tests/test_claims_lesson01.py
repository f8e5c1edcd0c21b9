"""Lesson 1's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import math
from fractions import Fraction

import pytest
from claims import claim
from micrograd.gradcheck import central_difference, gradcheck


def f1(x):
    return 3 * x**2 - 4 * x + 5


def test_lesson01_one_sided_error_is_exactly_3h_on_paper():
    claim(1, "on paper the error is exactly $3h$")
    for h in (Fraction(1), Fraction(1, 10), Fraction(1, 1000)):
        assert (f1(3 + h) - f1(Fraction(3))) / h - 14 == 3 * h


def test_lesson01_slope_settles_then_falls_apart_below_1e_8():
    claim(1, "Each tenfold smaller $h$ removes one more digit of error")
    claim(1, "Below about $h = 10^{-8}$ the answer gets *worse*")
    claim(1, "this one-sided slope is best at $h = 10^{-8}$ in the table")
    hs = [1.0, 0.1, 0.01, 0.001, 0.0001, 1e-6, 1e-8, 1e-10, 1e-12, 1e-14, 1e-15]
    error = {h: abs((f1(3 + h) - f1(3)) / h - 14) for h in hs}
    for big in (1.0, 0.1, 0.01, 0.001):
        assert error[big / 10] == pytest.approx(error[big] / 10, rel=0.01)
    assert min(error, key=error.get) == 1e-8
    assert error[1e-8] < error[1e-10] < error[1e-12]


def test_lesson01_central_difference_is_more_accurate_exact_for_a_parabola_and_shrinks_like_h_squared():
    claim(1, "This **central difference** is far more accurate for the same $h$")
    claim(1, "For a parabola the central difference is exact apart from rounding")
    claim(1, "for most functions its error shrinks like $h^2$")
    for h in (0.1, 0.01, 0.001):
        central = abs(central_difference(f1, 3.0, h) - 14)
        assert central < 1e-9 < abs((f1(3 + h) - f1(3)) / h - 14)
    big, small = (abs(central_difference(math.sin, 1.0, h) - math.cos(1.0)) for h in (0.1, 0.01))
    assert big / small == pytest.approx(100, rel=0.01)


def test_lesson01_the_courses_gradient_checks_use_h_1e_6():
    claim(1, "the course's gradient checks use $h = 10^{-6}$")
    import inspect

    assert inspect.signature(gradcheck).parameters["h"].default == 1e-6
    assert inspect.signature(central_difference).parameters["h"].default == 1e-6
