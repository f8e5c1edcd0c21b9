"""Lesson 7's checkers: right answers pass, typical mistakes get a useful hint."""

import random

import pytest

from micrograd import Value, data, losses, metrics
from micrograd.course.lessons import lesson07 as check
from micrograd.course.verdicts import TODO
from micrograd.nn import MLP


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def right_step(model, inputs, y, optimizer, batch):
    inputs, y = [inputs[i] for i in batch], [y[i] for i in batch]  # the batch's points
    scores = [model(x) for x in inputs]
    loss = losses.hinge(scores, y) + losses.l2(model.parameters(), 1e-4)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def test_training_step_accepts_a_right_step():
    assert check.training_step(right_step).passed


def no_zero_grad(model, inputs, y, optimizer, batch):
    inputs, y = [inputs[i] for i in batch], [y[i] for i in batch]  # the batch's points
    scores = [model(x) for x in inputs]
    loss = losses.hinge(scores, y) + losses.l2(model.parameters(), 1e-4)
    loss.backward()
    optimizer.step()
    return loss


def no_l2(model, inputs, y, optimizer, batch):
    inputs, y = [inputs[i] for i in batch], [y[i] for i in batch]  # the batch's points
    loss = losses.hinge([model(x) for x in inputs], y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss


def no_update(model, inputs, y, optimizer, batch):
    inputs, y = [inputs[i] for i in batch], [y[i] for i in batch]  # the batch's points
    loss = losses.hinge([model(x) for x in inputs], y) + losses.l2(model.parameters(), 1e-4)
    optimizer.zero_grad()
    loss.backward()
    return loss


def returns_number(model, inputs, y, optimizer, batch):
    inputs, y = [inputs[i] for i in batch], [y[i] for i in batch]  # the batch's points
    return right_step(model, inputs, y, optimizer, range(len(inputs))).data


@pytest.mark.parametrize(
    "step, words",
    [
        (no_zero_grad, "zero_grad"),
        (no_l2, "weight-decay"),
        (no_update, "no parameter moved"),
        (returns_number, "return this step's loss Value itself, loss (not loss.data)"),
        (lambda model, inputs, y, optimizer, batch: 1 / 0, "ZeroDivisionError"),
        (3.0, "pass the function itself"),
    ],
)
def test_training_step_rejects_typical_mistakes(step, words):
    verdict = check.training_step(step)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_training_step_task_says_it_returns_the_loss_value_not_its_number():
    # The check refuses loss.data; the task must ask for the Value in as many words.
    import json
    from pathlib import Path

    cells = json.loads((Path(__file__).parent.parent / "notebooks" / "07_classifier.ipynb").read_text())["cells"]
    (task,) = ["".join(c["source"]) for c in cells if "Write one training step on a batch" in "".join(c["source"])]
    assert "return the loss: the `Value` itself (`loss`, not `loss.data`)" in task


def test_training_step_untouched_is_not_attempted():
    def step(model, inputs, y, optimizer, batch):
        inputs, y = [inputs[i] for i in batch], [y[i] for i in batch]  # the batch's points
        raise NotImplementedError

    assert check.training_step(step).status == "not attempted"


def _accuracy(model, X, y):
    return metrics.accuracy([model(list(map(Value, row))) for row in X], y)


def test_new_moons_accuracy():
    model = MLP(2, [8, 1], rng=random.Random(5))
    X, y = data.moons(noise=check.NEW_MOONS_NOISE, seed=check.NEW_MOONS_SEED)
    right = _accuracy(model, X, y)
    verdict = check.new_moons_accuracy(model, right)
    # this untrained model does better on the new points than on the training ones (40 % against 37 %)
    assert verdict.passed and "3 points above its 37%" in verdict.message, verdict.message

    count = check.new_moons_accuracy(model, right * len(X))
    assert count.status == "failed" and "count" in count.message and "fraction" in count.message
    on_training = _accuracy(model, *data.moons())
    assert on_training != right  # the next case needs the two to differ
    trained = check.new_moons_accuracy(model, on_training)
    assert trained.status == "failed" and "training moons" in trained.message
    other = check.new_moons_accuracy(model, 1.5)
    assert other.status == "failed" and "compare the sign" in other.message
    no_model = check.new_moons_accuracy(3, right)
    assert no_model.status == "failed" and "pass the trained model first" in no_model.message
    text = check.new_moons_accuracy(model, "0.9")
    assert text.status == "failed" and "without quotes" in text.message
    assert check.new_moons_accuracy(model, TODO).status == "not attempted"


@pytest.fixture(scope="module")
def demo_model():
    """The lesson's model: the demo's seed, data, loss and schedule, 100 steps."""
    from micrograd.optim import SGD, linear_decay

    random.seed(1337)
    model = MLP(2, [16, 16, 1])
    X, y = data.moons()
    inputs = [list(map(Value, row)) for row in X]
    optimizer = SGD(model.parameters(), lr=linear_decay(1.0, 0.1, 100))
    for _ in range(100):
        right_step(model, inputs, y, optimizer, range(len(inputs)))  # the lesson's full batch
    return model


def test_on_the_lessons_model_a_guess_of_one_and_the_training_accuracy_fail(demo_model):
    new = data.moons(noise=check.NEW_MOONS_NOISE, seed=check.NEW_MOONS_SEED)
    on_training = _accuracy(demo_model, *data.moons())
    on_new = _accuracy(demo_model, *new)
    assert on_training == 1.0 and on_new < on_training  # the gap the exercise is about
    assert check.new_moons_accuracy(demo_model, on_new).passed
    guess = check.new_moons_accuracy(demo_model, 1.0)
    assert guess.status == "failed" and "training moons" in guess.message
    # the old exercise's points, drawn with the training noise: no gap there
    assert _accuracy(demo_model, *data.moons(seed=check.NEW_MOONS_SEED)) == 1.0


def step_in_order(order, lr=0.5):
    """A training step whose zero_grad (z), backward (b), step (s) or hand update (m) come in the given order."""
    def training_step(model, inputs, y, optimizer, batch):
        inputs, y = [inputs[i] for i in batch], [y[i] for i in batch]  # the batch's points
        loss = losses.hinge([model(x) for x in inputs], y) + losses.l2(model.parameters(), 1e-4)
        for move in order:
            if move == "z":
                optimizer.zero_grad()
            elif move == "b":
                loss.backward()
            elif move == "s":
                optimizer.step()
            else:
                for p in model.parameters():
                    p.data -= lr * p.grad
        return loss
    return training_step


@pytest.mark.parametrize("order, words", [
    ("bzs", "zero_grad() came between backward() and step()"),
    ("zsb", "step() ran before backward()"),
    ("zb", "update them with optimizer.step()"),
    ("bs", "were not cleared"),
    ("sb", "step() ran before backward()"),
    ("zbsm", "step() made the update and something else moved the parameters too"),
])
def test_training_step_names_the_order_that_went_wrong(order, words):
    verdict = check.training_step(step_in_order(order))
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_training_step_accepts_an_update_written_by_hand():
    assert check.training_step(step_in_order("zbm", lr=0.5)).passed
    verdict = check.training_step(step_in_order("zbm", lr=0.1))
    assert verdict.passed and "your own update" in verdict.message and "lr = 0.1" in verdict.message


def test_an_uphill_manual_update_is_told_it_goes_uphill_not_to_check_zero_grad():
    from micrograd import losses

    def step(model, inputs, y, optimizer, batch):
        inputs, y = [inputs[i] for i in batch], [y[i] for i in batch]  # the batch's points
        loss = losses.hinge([model(x) for x in inputs], y) + losses.l2(model.parameters(), 1e-4)
        optimizer.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data += 0.5 * p.grad  # uphill
        return loss

    verdict = check.training_step(step)
    assert verdict.status == "failed" and "uphill" in verdict.message, verdict.message
    assert "zero_grad" not in verdict.message


@pytest.mark.parametrize("points, words", [
    (lambda inputs, batch: range(len(inputs)), "over all 8 points"),
    (lambda inputs, batch: range(len(batch)), "over the first 4 points"),
])
def test_training_step_on_other_points_than_the_batch_is_told_which(points, words):
    def step(model, inputs, y, optimizer, batch):
        chosen = list(points(inputs, batch))
        loss = (losses.hinge([model(inputs[i]) for i in chosen], [y[i] for i in chosen])
                + losses.l2(model.parameters(), 1e-4))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    verdict = check.training_step(step)
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_training_step_with_the_batchs_scores_and_every_label_is_told_to_take_the_batchs_labels():
    def step(model, inputs, y, optimizer, batch):
        loss = losses.hinge([model(inputs[i]) for i in batch], y) + losses.l2(model.parameters(), 1e-4)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    verdict = check.training_step(step)
    assert verdict.status == "failed" and "[y[i] for i in batch]" in verdict.message, verdict.message


def test_exercise_1_asks_for_what_the_lessons_loop_does_not_show():
    """The lesson's loop trains on all points; exercise 1 asks for a step on a batch, which no cell above it writes."""
    import json
    from pathlib import Path

    cells = json.loads((Path(__file__).parent.parent / "notebooks" / "07_classifier.ipynb").read_text())["cells"]
    texts = ["".join(cell["source"]) for cell in cells]
    exercise = next(i for i, text in enumerate(texts) if "check.training_step" in text)
    assert "def training_step(model, inputs, y, optimizer, batch)" in texts[exercise]
    assert not any("batch]" in text or "in batch" in text for text in texts[:exercise])
