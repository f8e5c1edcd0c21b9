"""Lesson 7's checkers: right answers pass, typical mistakes get a useful hint."""

import random

import pytest

from micrograd import Value, data, losses, metrics
from micrograd.exercises import lesson07 as check
from micrograd.exercises.checking import TODO
from micrograd.nn import MLP


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def right_step(model, inputs, y, optimizer):
    scores = [model(x) for x in inputs]
    loss = losses.hinge(scores, y) + losses.l2(model.parameters(), 1e-4)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def test_training_step_accepts_a_right_step():
    assert check.training_step(right_step).passed


def no_zero_grad(model, inputs, y, optimizer):
    scores = [model(x) for x in inputs]
    loss = losses.hinge(scores, y) + losses.l2(model.parameters(), 1e-4)
    loss.backward()
    optimizer.step()
    return loss


def no_l2(model, inputs, y, optimizer):
    loss = losses.hinge([model(x) for x in inputs], y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def no_update(model, inputs, y, optimizer):
    loss = losses.hinge([model(x) for x in inputs], y) + losses.l2(model.parameters(), 1e-4)
    optimizer.zero_grad()
    loss.backward()
    return loss


def returns_number(model, inputs, y, optimizer):
    return right_step(model, inputs, y, optimizer).data


@pytest.mark.parametrize(
    "step, words",
    [
        (no_zero_grad, "zero_grad"),
        (no_l2, "weight-decay"),
        (no_update, "no parameter moved"),
        (returns_number, "return the loss Value"),
        (lambda model, inputs, y, optimizer: 1 / 0, "ZeroDivisionError"),
        (3.0, "pass the function itself"),
    ],
)
def test_training_step_rejects_typical_mistakes(step, words):
    verdict = check.training_step(step)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_training_step_untouched_is_not_attempted():
    def step(model, inputs, y, optimizer):
        raise NotImplementedError

    assert check.training_step(step).status == "not attempted"


def test_new_moons_accuracy():
    model = MLP(2, [8, 1], rng=random.Random(5))
    X, y = data.moons(seed=check.NEW_MOONS_SEED)
    right = metrics.accuracy([model(list(map(Value, row))) for row in X], y)
    assert check.new_moons_accuracy(model, right).passed

    count = check.new_moons_accuracy(model, right * len(X))
    assert count.status == "failed" and "count" in count.message and "fraction" in count.message
    Xt, yt = data.moons()
    on_training = metrics.accuracy([model(list(map(Value, row))) for row in Xt], yt)
    assert on_training != right  # the next case needs the two to differ
    trained = check.new_moons_accuracy(model, on_training)
    assert trained.status == "failed" and "training moons" in trained.message
    other = check.new_moons_accuracy(model, 1.5)
    assert other.status == "failed" and "compare the sign" in other.message
    assert check.new_moons_accuracy(3, right).status == "failed"
    assert check.new_moons_accuracy(model, "0.9").status == "failed"
    assert check.new_moons_accuracy(model, TODO).status == "not attempted"
