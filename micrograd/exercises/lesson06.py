"""Checkers for lesson 6, the training loop: one gradient-descent update, one training step.

The first update is worked out here from the derivative of (w·x − y)²; the
training step is run side by side with a step built from the package's own
pieces, on two identical small models, and every parameter is compared.
"""

import copy
import math
import numbers
import random

from .. import losses
from ..engine import Value
from ..nn import MLP
from .checking import checker, close, failed, passed

__all__ = ["first_update", "training_step"]

# double(x): one weight learns to double its input.
X, W, Y, LR = 2.0, 0.4, 4.0, 0.1


@checker("Exercise 1: w after the first update")
def first_update(answer):
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real) or not math.isfinite(answer):
        return failed(f"your answer is {answer!r}; the answer is one number, the new w")
    grad = 2 * (W * X - Y) * X  # d/dw of (w·x − y)²: the chain rule through the square
    expected = W - LR * grad
    if close(answer, expected, 1e-6):
        return passed(f"the gradient is {grad:g}, so w moves by {-LR * grad:g} to {expected:g}")
    if close(answer, grad, 1e-6):
        return failed(f"{answer:g} is the gradient dloss/dw; the update moves w against it, by lr times the gradient")
    if close(answer, W - grad, 1e-6):
        return failed("the step is the gradient times the learning rate (0.1), not the whole gradient")
    if close(answer, W + LR * grad, 1e-6):
        return failed("w moved uphill: subtract lr × gradient, since a negative gradient means a larger w lowers the loss")
    if close(answer, -LR * grad, 1e-6):
        return failed(f"{answer:g} is how far w moves; add it to the old w")
    return failed("hint: dloss/dw = 2(w·x − y)·x at w = 0.4, x = 2, y = 4; then w ← w − lr · dloss/dw")


def _reference_step(model, xs, ys, lr):
    loss = losses.sum_of_squares([model(x) for x in xs], ys)
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss


def _toy_problem():
    """A small tanh model and three samples: two identical copies, stale gradients on both."""
    xs = [[1.0, -0.5], [0.3, 0.8], [-1.2, 0.4]]
    ys = [1.0, -1.0, 0.5]
    model = MLP(2, [3, 1], activation="tanh", rng=random.Random(5))
    for i, p in enumerate(model.parameters()):
        p.grad = 0.3 - 0.1 * (i % 5)  # left over from an earlier step: a right step clears them
    return model, copy.deepcopy(model), xs, ys


@checker("Exercise 2: one training step")
def training_step(step):
    if not callable(step):
        return failed(f"pass the function itself (check.training_step(training_step)), not {type(step).__name__}")
    mine, theirs, xs, ys = _toy_problem()
    before = [p.data for p in theirs.parameters()]
    loss = step(theirs, xs, ys, 0.1)
    expected = _reference_step(mine, xs, ys, 0.1)
    after = [p.data for p in theirs.parameters()]
    if not isinstance(loss, Value):
        return failed(f"it returns {type(loss).__name__}; return the loss Value of this step")
    if not close(loss.data, expected.data, 1e-9):
        return failed(f"its loss is {loss.data:.6g}, the sum of squared errors is {expected.data:.6g}; measure it before the update")
    if all(a == b for a, b in zip(after, before)):
        return failed("no parameter moved: after backward(), change each p.data by -lr * p.grad")
    target = [p.data for p in mine.parameters()]
    if all(close(a, b, 1e-9) for a, b in zip(after, target)):
        return passed("forward, loss, zero_grad, backward, update: the loop every lesson from here on runs")
    if all(close(b - a, t - b, 1e-9) for a, b, t in zip(after, before, target)):
        return failed("the parameters moved uphill: subtract lr * p.grad, the gradient points up the slope")
    return failed(
        "the loss is right but the parameters moved the wrong amount: are old gradients cleared "
        "(zero_grad) before backward(), and is the step lr * p.grad?"
    )
