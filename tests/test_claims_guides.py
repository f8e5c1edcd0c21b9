"""The site's guide pages' claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

from claims import BESIDE_0_1_0, claim
from micrograd import Value


def test_three_backward_calls_give_5_10_15_here_and_5_14_27_under_0_1_0(micrograd_0_1_0_value):
    claim(BESIDE_0_1_0, "three calls give `a.grad` 5, 10, 15 here and 5, 14, 27 under 0.1.0")
    for V, expected in ((Value, [5.0, 10.0, 15.0]), (micrograd_0_1_0_value, [5.0, 14.0, 27.0])):
        a = V(2.0)
        y = a * a + a
        grads = []
        for _ in range(3):
            y.backward()
            grads.append(a.grad)
        assert grads == expected, V
