"""Checkers for lesson 7, a real classifier: one training step on a batch, and accuracy on new points.

The training step (on a mini-batch, which the lesson's full-batch loop does not show) is checked by
running it side by side with a step built here from the package's own pieces, on two identical small
models and the same batch, and comparing every parameter afterwards.  Accuracy is counted here from the
signs of the model's scores, not with ``micrograd.metrics``.

The new points of exercise 2 are drawn with three times the training noise:
on new points with the training noise the demo's model scores 100 %, the
same as on its training points, so a guess of 1 (or a measurement on the
training points) would pass; on the noisier ones the two differ.
"""

import copy
import random

from micrograd import data, losses
from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.optim import SGD
from micrograd.course.verdicts import as_number, checker, class_name, close, failed, number_problem, passed

__all__ = ["training_step", "new_moons_accuracy", "NEW_MOONS_SEED", "NEW_MOONS_NOISE", "L2_ALPHA"]

L2_ALPHA = 1e-4  # the demo's weight decay
NEW_MOONS_SEED = 7  # points the model never trained on
NEW_MOONS_NOISE = 0.3  # three times the demo's 0.1: the moons of exercise 2 are messier than the training ones


def _reference_step(model, inputs, y, optimizer, batch):
    scores = [model(inputs[i]) for i in batch]
    loss = losses.hinge(scores, [y[i] for i in batch]) + losses.l2(model.parameters(), L2_ALPHA)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


# The points of the toy problem a step trains on: half of them, neither the first half nor in order, so a
# step that ignores the batch, or takes the first points, or the batch's points with every label, shows.
_BATCH = (6, 1, 3, 4)


def _toy_problem():
    """A small model and eight moons: two identical copies, stale gradients on both."""
    X, y = data.moons(n_samples=8, seed=3)
    model = MLP(2, [4, 1], rng=random.Random(11))
    for i, p in enumerate(model.parameters()):
        p.grad = 0.5 - 0.1 * (i % 7)  # left over from an earlier step: a right step clears them
    inputs = [list(map(Value, row)) for row in X]
    return model, copy.deepcopy(model), inputs, y


def _loss_on(model, inputs, y, indices):
    """The step's loss on the points ``indices``, on a copy of model (nothing of model changes)."""
    model = copy.deepcopy(model)
    return (losses.hinge([model(inputs[i]) for i in indices], [y[i] for i in indices])
            + losses.l2(model.parameters(), L2_ALPHA)).data


def _batch_problem(loss, before_model, inputs, y):
    """Why a step's loss is not the batch's, when it is the loss of other points, else None."""
    if close(loss, _loss_on(before_model, inputs, y, range(len(inputs))), 1e-9):
        return (f"the loss is over all {len(inputs)} points, not the {len(_BATCH)} the batch names: score only "
                "inputs[i] for i in batch, against y[i] for i in batch")
    if close(loss, _loss_on(before_model, inputs, y, range(len(_BATCH))), 1e-9):
        return (f"the loss is over the first {len(_BATCH)} points; the batch names others: inputs[i] for i in "
                "batch, and their labels y[i]")
    return None


class _WatchedSGD(SGD):
    """The SGD the learner's step is given, noting its calls: whether step() found any gradient to move by."""

    def __init__(self, parameters, lr):
        super().__init__(parameters, lr=lr)
        self.calls = []

    def zero_grad(self):
        self.calls.append("zero_grad")
        super().zero_grad()

    def step(self):
        self.calls.append("step" if any(p.grad for p in self.parameters) else "step on zero gradients")
        super().step()


_LR = 0.5


def _uniform_rate(moved, grads):
    """The one learning rate c with moved = -c · grad for every parameter, or None (a manual update's lr)."""
    rates = [-m / g for m, g in zip(moved, grads) if abs(g) > 1e-12]
    if not rates or any(abs(m) > 1e-12 for m, g in zip(moved, grads) if abs(g) <= 1e-12):
        return None
    c = rates[0]
    return c if c > 0 and all(abs(r - c) <= 1e-9 * max(1.0, abs(c)) for r in rates) else None


@checker("Exercise 1: one training step on a batch")
def training_step(step):
    if not callable(step):
        return failed(f"pass the function itself (check.training_step(training_step)), not {type(step).__name__}")
    mine, theirs, inputs, y = _toy_problem()
    untouched = copy.deepcopy(theirs)
    before = [p.data for p in theirs.parameters()]
    stale = [p.grad for p in theirs.parameters()]
    optimizer = _WatchedSGD(theirs.parameters(), lr=_LR)
    try:
        loss = step(theirs, inputs, y, optimizer, list(_BATCH))
    except ValueError as error:
        if "predictions but" not in str(error):
            raise
        return failed(f"the loss got {error}: the batch's scores go with the batch's labels, [y[i] for i in batch]")
    expected = _reference_step(mine, inputs, y, SGD(mine.parameters(), lr=_LR), _BATCH)
    after = [p.data for p in theirs.parameters()]
    if not isinstance(loss, Value):
        return failed(f"it returns {class_name(loss)}; return this step's loss Value itself, loss (not loss.data)")
    if all(a == b for a, b in zip(after, before)):
        if "step on zero gradients" in optimizer.calls and any(p.grad for p in theirs.parameters()):
            return failed("no parameter moved: step() ran before backward(), on gradients zero_grad() had just "
                          "cleared, so it had nothing to move by. The order is zero_grad(), backward(), step()")
        if "step on zero gradients" in optimizer.calls:
            return failed("no parameter moved: step() ran on gradients that were all 0, because zero_grad() came "
                          "between backward() and step() and wiped out what backward() had just computed. Clear the "
                          "old gradients before backward(): zero_grad(), backward(), step()")
        return failed("no parameter moved: after backward(), update them with optimizer.step(), which moves each "
                      "parameter by -lr × its gradient")
    if not close(loss.data, expected.data, 1e-9):
        problem = _batch_problem(loss.data, untouched, inputs, y)
        if problem:
            return failed(problem)
        l2_term = L2_ALPHA * sum(b * b for b in before)
        if close(loss.data, expected.data - l2_term, 1e-9):
            return failed("the loss lacks the weight-decay term: add losses.l2(model.parameters(), 1e-4) to the hinge loss")
        for alpha in (1e-5, 1e-3, 1e-2, 1e-1, 1.0):
            if close(loss.data, expected.data + (alpha / L2_ALPHA - 1) * l2_term, 1e-9):
                return failed(f"the weight-decay term is weighted by {alpha:g}; the demo's is {L2_ALPHA:g}: "
                              f"losses.l2(model.parameters(), {L2_ALPHA:g})")
        return failed(f"its loss is {loss.data:.6g}, the batch's hinge loss plus the L2 term is {expected.data:.6g}: is "
                      f"it losses.hinge(scores, labels) + losses.l2(model.parameters(), {L2_ALPHA:g}), on the batch's "
                      "points, measured before the update?")
    if all(close(a, b, 1e-9) for a, b in zip(after, (p.data for p in mine.parameters()))):
        return passed("forward on the batch, loss, zero_grad, backward, step: the whole loop in five lines, on "
                      "as many points as you give it")
    right_grads = [p.grad for p in mine.parameters()]
    grads = [p.grad for p in theirs.parameters()]
    moved = [a - b for a, b in zip(after, before)]
    if all(close(g, r, 1e-9) for g, r in zip(grads, right_grads)):
        rate = _uniform_rate(moved, grads)
        steps = sum(call.startswith("step") for call in optimizer.calls)
        if rate is not None and steps > 1:
            return failed(f"step() ran {steps} times, so every parameter moved by {rate:g} × its gradient, though the "
                          f"optimiser's lr is {_LR:g}: one step per training step, optimizer.step() once")
        if rate is not None and "step" in optimizer.calls:
            return failed(f"every parameter moved by {rate:g} × its gradient, though the optimiser's lr is {_LR:g}: "
                          "step() made the update and something else moved the parameters too (an update by hand?). "
                          "Update once: optimizer.step() alone")
        uphill = _uniform_rate([-m for m in moved], grads)
        if uphill is not None:  # p.data += lr * p.grad: the right gradients, followed the wrong way
            return failed(f"the gradients are right, but every parameter moved by +{uphill:g} × its gradient: uphill, "
                          "where the loss grows. A step goes against the gradient: p.data -= lr * p.grad, as "
                          "optimizer.step() does")
        if rate is not None:  # an update written out by hand, p.data -= lr * p.grad
            return passed(f"forward, loss, zero_grad, backward, and your own update p.data -= lr * p.grad with lr = "
                          f"{rate:g}. The optimiser given has lr = {_LR:g}; optimizer.step() makes the same update "
                          "with it, and with whatever else the optimiser does (momentum, Adam)")
    if all(close(g, 2 * r, 1e-9) for g, r in zip(grads, right_grads)):
        return failed("the loss is right but every gradient is twice this step's: backward() ran twice, and each call "
                      "adds to .grad. Call it once, between zero_grad() and step()")
    if all(close(m, -_LR * s, 1e-9) for m, s in zip(moved, stale)):
        return failed("the loss is right but the parameters moved by the gradients left from an earlier step: "
                      "step() ran before backward() had computed this step's. The order is zero_grad(), "
                      "backward(), step()")
    if all(close(g, r + s, 1e-9) for g, r, s in zip(grads, right_grads, stale)):
        return failed("the loss is right but the parameters moved the wrong amount: the gradients left from an "
                      "earlier step were not cleared, so backward() added this step's to them. Call zero_grad() "
                      "before backward()")
    return failed(
        "the loss is right but the parameters moved the wrong amount: are the old gradients cleared "
        "(zero_grad) before backward(), and is backward() called before step()?"
    )


def _count_correct(model, X, y):
    correct = 0
    for row, label in zip(X, y):
        score = model([Value(v) for v in row]).data
        correct += (1 if score > 0 else -1) == label
    return correct


@checker("Exercise 2: accuracy on moons the model never saw")
def new_moons_accuracy(model, answer):
    if not hasattr(model, "parameters"):
        return failed(f"pass the trained model first, then your answer: check.new_moons_accuracy(model, answer), not {type(model).__name__}")
    problem = number_problem(answer, want="accuracy is one number, a fraction from 0 to 1")
    if problem:
        return failed(problem)
    answer = as_number(answer)
    new = f"moons(noise={NEW_MOONS_NOISE}, seed={NEW_MOONS_SEED})"
    X, y = data.moons(noise=NEW_MOONS_NOISE, seed=NEW_MOONS_SEED)
    correct = _count_correct(model, X, y)
    expected = correct / len(X)
    X_train, y_train = data.moons()
    on_training = _count_correct(model, X_train, y_train) / len(X_train)
    if close(answer, expected, 1e-6):  # not tighter: np.float32 keeps about 7 digits
        gap = round(100 * (on_training - expected))
        compared = (f"{abs(gap)} point{'s' if abs(gap) != 1 else ''} {'below' if gap > 0 else 'above'} its {on_training:.0%} on the training moons"
                    if gap else f"the same as its {on_training:.0%} on the training moons")
        return passed(f"{correct} of {len(X)} new points land on the right side of the boundary: {compared}")
    if close(answer, correct, 1e-9) or close(answer, 100 * expected, 1e-9):
        return failed(
            f"{answer:g} is a count (or a percentage) of right answers; accuracy is the fraction of "
            f"all {len(X)} points, between 0 and 1, as metrics.accuracy returns it"
        )
    if close(answer, on_training, 1e-9):
        return failed(f"that is the accuracy on the training moons; score X_new, y_new = {new}, the points it never saw")
    if close(answer, 1 - expected, 1e-6) and not close(expected, 0.5, 1e-9):
        return failed(f"{answer:g} is the fraction the model gets wrong (the error rate); accuracy is the fraction it "
                      "gets right")
    if close(answer, 1.0, 1e-9):
        return failed(f"the model does not get all of them right: measure it on X_new, y_new = {new}, do not guess")
    return failed(
        f"{answer:g} is not the fraction of {new} the model gets right; "
        "score every point with the model and compare the sign with the label"
    )
