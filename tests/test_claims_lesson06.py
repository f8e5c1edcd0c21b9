"""Lesson 6's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import contextlib
import io
import random

import pytest
from claims import claim, run_lesson_code
from micrograd import MLP, Value, dot
from micrograd.data import four_samples
from micrograd.losses import mse, sum_of_squares


def quiet(function, *args, **kwargs):
    with contextlib.redirect_stdout(io.StringIO()):
        return function(*args, **kwargs)


def test_lesson06_the_one_weight_loss_shrinks_25_fold_every_step():
    claim(6, "The loss shrinks 25-fold every step, because each step removes 80 % of the remaining error")
    namespace = run_lesson_code(6, "w = Value(0.4)\nlr = 0.1", namespace={"Value": Value, "x": Value(2.0), "y": Value(4.0)})
    losses = namespace["losses"]
    assert [a / b for a, b in zip(losses, losses[1:])] == pytest.approx([25.0] * 5)


def test_lesson06_forgotten_zero_grad_looks_better_first_then_saturates_and_freezes_at_4():
    claim(6, "Without `zero_grad` the run even looks *better* at first")
    claim(6, "the largest passes 100")
    claim(6, "By step 30 the output neuron is saturated at $\\pm 1$ on every sample, the second sample sits on the wrong side")
    claim(6, "the loss is frozen at $2^2 = 4$")
    xs, ys = four_samples()
    namespace = run_lesson_code(6, "def train(model, steps, lr, zero_grad=True):",
                                namespace={"sum_of_squares": sum_of_squares, "xs": xs, "ys": ys, "MLP": MLP})
    right = namespace["history"]
    buggy = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", rng=0)
    wrong = namespace["train"](buggy, 50, 0.05, zero_grad=False)
    assert any(w < r for w, r in zip(wrong[1:6], right[1:6]))
    assert max(abs(p.data) for p in buggy.parameters()) > 100
    predictions = [buggy(x).data for x in xs]
    assert all(abs(abs(p) - 1) < 1e-6 for p in predictions) and predictions[1] > 0 > ys[1]
    assert wrong[30:] == pytest.approx([4.0] * 20, abs=1e-6)


def test_lesson06_our_seed_starts_from_a_worse_guess_than_the_julia_port_and_ends_lower():
    claim(6, "Our seed starts from a worse guess and ends lower")
    xs, ys = four_samples()
    namespace = run_lesson_code(6, "def train(model, steps, lr, zero_grad=True):",
                                namespace={"sum_of_squares": sum_of_squares, "xs": xs, "ys": ys, "MLP": MLP})
    julia = [1.8513252792660841, 0.02947950948849564]
    history = namespace["history"]
    assert len(history) == 50 and history[0] > julia[0] and history[-1] < julia[1]


def test_lesson06_the_training_stepper_repeats_trains_first_losses():
    claim(6, "The losses match the first steps of `train` above (the stepper counts from 1)")
    from micrograd.widgets import TrainingStepper

    xs, ys = four_samples()
    namespace = run_lesson_code(6, "def train(model, steps, lr, zero_grad=True):",
                                namespace={"sum_of_squares": sum_of_squares, "xs": xs, "ys": ys, "MLP": MLP})
    stepper = TrainingStepper(MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", rng=0),
                              xs, ys, loss="sum_of_squares", lr=0.05, accuracy=False)
    records = [stepper.step(redraw=False) for _ in range(5)]
    assert [r["step"] for r in records] == [1, 2, 3, 4, 5]
    assert [r["loss"] for r in records] == pytest.approx(namespace["history"][:5], rel=1e-12)


def test_lesson06_a_relu_output_is_never_negative_gets_stuck_at_0_and_a_linear_output_is_the_default():
    claim(6, "Its network can then only ever output numbers $\\ge 0$")
    claim(6, "Every prediction is 0, the loss is frozen at the mean of $y^2$, and every gradient is exactly zero")
    claim(6, "`output_activation=None`, the default")
    xr = [i / 4 for i in range(-4, 5)]
    negative = [-v * v - 0.5 for v in xr]
    net = MLP(1, [8, 8, 1], output_activation="relu", rng=0)
    namespace = run_lesson_code(6, "def fit(model, targets, steps=100, lr=0.1):",
                                namespace={"xr": xr, "mse": mse, "MLP": MLP}, replace=(("fitted = fit(relu_net, squares)", "fitted = []"),))
    stuck = quiet(namespace["fit"], net, negative)
    assert stuck == [0.0] * 9
    loss = mse([net([v]) for v in xr], negative)
    assert loss.data == pytest.approx(sum(t * t for t in negative) / 9)
    net.zero_grad()
    loss.backward()
    assert all(p.grad == 0.0 for p in net.parameters())
    claim(6, "(Here the network's first steps pushed the output neuron's input below zero, where it stays.)")
    output = net.layers[-1].neurons[0]
    hidden = lambda v: [h.data for h in net.layers[1].outputs(net.layers[0].outputs([v]))]  # noqa: E731
    assert all(dot(output.w, hidden(v), output.b).data < 0 for v in xr)
    assert all(net([v]).data >= 0 for v in (-100.0, -1.0, 0.3, 50.0))
    assert MLP(1, [8, 8, 1], rng=0).layers[-1].neurons[0].activation == MLP(1, [8, 8, 1], output_activation=None, rng=0).layers[-1].neurons[0].activation


def test_lesson06_adding_the_bias_last_can_differ_in_the_last_digits_only():
    claim(6, "Code that adds in another order (the bias last, say) can differ in the last of a float's digits, which "
             "is rounding, not a bug.")
    rng = random.Random(0)
    gaps = []
    for _ in range(200):
        w, x, b = [rng.uniform(-1, 1) for _ in range(3)], [rng.uniform(-1, 1) for _ in range(3)], rng.uniform(-1, 1)
        bias_first, bias_last = b, 0.0
        for wi, xi in zip(w, x):
            bias_first += wi * xi
            bias_last += wi * xi
        bias_last += b
        gaps.append(abs(bias_first - bias_last))
    assert any(gaps) and max(gaps) < 1e-15  # some differ, and only in the last digits
