"""Lesson 6's checkers: right answers pass, typical mistakes get a useful hint."""

import pytest

from micrograd import Value, losses
from micrograd.exercises import lesson06 as check
from micrograd.exercises.checking import TODO


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def test_first_update_accepts_the_update_backward_computes():
    x, w, y = Value(2.0), Value(0.4), Value(4.0)
    loss = (w * x - y) ** 2
    loss.backward()
    verdict = check.first_update(w.data - 0.1 * w.grad)
    assert verdict.passed and "-12.8" in verdict.message


@pytest.mark.parametrize(
    "answer, words",
    [
        (-12.8, "is the gradient"),
        (13.2, "times the learning rate"),
        (-0.88, "uphill"),
        (1.28, "how far w moves"),
        (2.0, "hint"),
        ("1.68", "one number"),
        (float("nan"), "one number"),
    ],
)
def test_first_update_explains_wrong_answers(answer, words):
    verdict = check.first_update(answer)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_first_update_untouched_is_not_attempted():
    assert check.first_update(TODO).status == "not attempted"


def right_step(model, xs, ys, lr):
    loss = losses.sum_of_squares([model(x) for x in xs], ys)
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss


def test_training_step_accepts_a_right_step():
    assert check.training_step(right_step).passed


def no_zero_grad(model, xs, ys, lr):
    loss = losses.sum_of_squares([model(x) for x in xs], ys)
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss


def uphill(model, xs, ys, lr):
    loss = losses.sum_of_squares([model(x) for x in xs], ys)
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data += lr * p.grad
    return loss


def no_update(model, xs, ys, lr):
    loss = losses.sum_of_squares([model(x) for x in xs], ys)
    model.zero_grad()
    loss.backward()
    return loss


def wrong_loss(model, xs, ys, lr):
    loss = losses.mse([model(x) for x in xs], ys)
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss


@pytest.mark.parametrize(
    "step, words",
    [
        (no_zero_grad, "zero_grad"),
        (uphill, "uphill"),
        (no_update, "no parameter moved"),
        (wrong_loss, "sum of squared errors"),
        (lambda model, xs, ys, lr: right_step(model, xs, ys, lr).data, "return the loss Value"),
        (lambda model, xs, ys, lr: 1 / 0, "ZeroDivisionError"),
        (0.1, "pass the function itself"),
    ],
)
def test_training_step_rejects_typical_mistakes(step, words):
    verdict = check.training_step(step)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_training_step_untouched_is_not_attempted():
    def step(model, xs, ys, lr):
        raise NotImplementedError

    assert check.training_step(step).status == "not attempted"
