"""TrainingSession: the training loop behind the training stepper, without widgets."""

import random
import subprocess
import sys

import pytest

from micrograd import MLP
from micrograd.losses import LOSSES, cross_entropy, hinge, loss_function, mse, sum_of_squares
from micrograd.optim import Adam, linear_decay
from micrograd.training import TrainingSession

FOUR_X = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
FOUR_Y = [1.0, -1.0, -1.0, 1.0]


def blobs(n=24, seed=0):
    rng = random.Random(seed)
    X = [[rng.gauss(1.0, 0.5), rng.gauss(1.0, 0.5)] for _ in range(n // 2)]
    X += [[rng.gauss(-1.0, 0.5), rng.gauss(-1.0, 0.5)] for _ in range(n // 2)]
    return X, [1.0] * (n // 2) + [-1.0] * (n // 2)


def state(model):
    return [(p.data, p.grad) for p in model.parameters()]


def test_history_grows_by_one_record_per_step():
    session = TrainingSession(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, lr=0.05)
    for k in range(1, 4):
        record = session.step()
        assert len(session.history) == session.steps == k
        assert session.history[-1] is record
        assert record["step"] == k and record["lr"] == 0.05
        assert set(record) == {"step", "loss", "lr", "accuracy"}  # ±1 targets: a classifier
    losses = [r["loss"] for r in session.history]
    assert losses[-1] < losses[0]


def test_run_takes_that_many_steps_and_reports_each():
    session = TrainingSession(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, lr=0.05)
    seen = []
    last = session.run(5, on_step=seen.append)
    assert len(session.history) == 5 and seen == session.history and last is session.history[-1]
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="positive whole number of steps"):
            session.run(bad)


def test_reset_restores_the_exact_initial_state():
    X, y = blobs()
    model = MLP(2, [6, 6, 1], rng=7)
    initial = state(model)
    optimizer = Adam(model.parameters(), lr=0.05)
    session = TrainingSession(model, X, y, loss="hinge", optimizer=optimizer, batch_size=8, seed=3)
    session.run(4)
    first_run = [r["loss"] for r in session.history]
    after_first = state(model)
    assert [d for d, _ in after_first] != [d for d, _ in initial]
    session.reset()
    assert state(model) == initial  # data and zero gradients
    assert session.history == [] and optimizer.steps == 0
    # The same mini-batches and Adam moments: the rerun repeats the run bit for bit.
    session.run(4)
    assert [r["loss"] for r in session.history] == first_run
    assert state(model) == after_first


def test_reset_restores_the_learning_rate_unless_asked_to_keep_it():
    session = TrainingSession(MLP(3, [4, 1], rng=0), FOUR_X, FOUR_Y, lr=0.05)
    session.set_learning_rate(0.3)
    session.step()
    session.reset()
    assert session.learning_rate == 0.05
    session.set_learning_rate(0.3)
    session.reset(keep_learning_rate=True)
    assert session.learning_rate == 0.3
    with pytest.raises(ValueError, match="learning rate must be a non-negative number"):
        session.set_learning_rate(-1)


def test_zero_learning_rate_changes_nothing():
    model = MLP(3, [4, 4, 1], rng=2)
    before = [p.data for p in model.parameters()]
    session = TrainingSession(model, FOUR_X, FOUR_Y, loss="sum_of_squares", lr=0.0)
    session.run(3)
    assert [p.data for p in model.parameters()] == before
    assert len({r["loss"] for r in session.history}) == 1


def test_a_schedule_sets_the_rate_of_each_step():
    session = TrainingSession(MLP(2, [4, 1], rng=1), *blobs(), loss="hinge", lr=linear_decay(1.0, 0.1, 100))
    assert session.scheduled and session.learning_rate == 1.0
    session.run(10)
    assert [r["lr"] for r in session.history][:2] == [1.0, pytest.approx(0.991)]
    assert session.learning_rate == pytest.approx(1.0 - 0.9 * 10 / 100)


def test_l2_adds_weight_decay_to_the_loss():
    X, y = blobs()
    plain = TrainingSession(MLP(2, [4, 1], rng=1), X, y, loss="hinge")
    decayed = TrainingSession(MLP(2, [4, 1], rng=1), X, y, loss="hinge", l2=0.5)
    squares = sum(p.data**2 for p in decayed.parameters)
    assert decayed.step()["loss"] == pytest.approx(plain.step()["loss"] + 0.5 * squares)


def test_cross_entropy_with_class_indices():
    X, y = blobs()
    labels = [0 if t < 0 else 1 for t in y]
    session = TrainingSession(MLP(2, [8, 2], rng=0), X, labels, loss="cross_entropy", lr=0.2)
    session.run(20)
    assert session.history[-1]["loss"] < session.history[0]["loss"]
    assert session.history[-1]["accuracy"] >= 0.9


def test_loss_names_live_with_the_losses():
    assert LOSSES == {"mse": mse, "sum_of_squares": sum_of_squares, "hinge": hinge, "cross_entropy": cross_entropy}
    assert loss_function("hinge") == ("hinge", hinge)
    assert loss_function(mse) == ("mse", mse)
    with pytest.raises(ValueError, match="unknown loss 'l1'; choose one of 'mse'"):
        loss_function("l1")


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(X=[], y=[]), ValueError, "at least one sample"),
        (dict(y=[1.0]), ValueError, "4 samples but y has 1 targets"),
        (dict(X=[[1.0, 2.0, 3.0], [1.0]] * 2), ValueError, "sample 1 has 1 features"),
        (dict(loss="cross_entropy"), ValueError, "one score per class"),
        (dict(l2=-1), ValueError, "l2 must be a non-negative number"),
        (dict(batch_size=9), ValueError, "batch_size must be a whole number from 1 to 4"),
        (dict(optimizer="sgd"), TypeError, "micrograd.optim Optimizer"),
        (dict(loss=lambda o, t: 1.0), TypeError, "must return a Value"),
        (dict(y=[0.5, 1.0, 2.0, -1.0], loss="hinge"), ValueError, "hinge needs labels of \\+1 or -1"),
    ],
)
def test_bad_input_is_explained(kwargs, error, message):
    arguments = dict(X=FOUR_X, y=FOUR_Y)
    arguments.update(kwargs)
    with pytest.raises(error, match=message):
        TrainingSession(MLP(3, [4, 1], rng=0), arguments.pop("X"), arguments.pop("y"), **arguments)


def test_importable_without_widget_packages():
    code = (
        "import sys; sys.modules.update(ipywidgets=None, matplotlib=None, numpy=None, graphviz=None); "
        "from micrograd.training import TrainingSession; from micrograd import MLP; "
        "s = TrainingSession(MLP(1, [1], rng=0), [[1.0]], [2.0], lr=0.1); s.step(); print(len(s.history))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1"
