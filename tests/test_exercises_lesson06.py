"""Lesson 6's checkers: right answers pass, typical mistakes get a useful hint."""

import pytest

from micrograd import Value
from micrograd.course.lessons import lesson06 as check
from micrograd.course.verdicts import TODO


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def test_first_update_accepts_the_update_backward_computes():
    x, w, y = Value(2.0), Value(1.0), Value(4.0)  # the exercise starts from w = 1, the lesson from 0.4
    loss = (w * x - y) ** 2
    loss.backward()
    verdict = check.first_update(w.data - 0.1 * w.grad)
    assert verdict.passed and "-8" in verdict.message


@pytest.mark.parametrize(
    "answer, words",
    [
        (-8.0, "is the gradient"),
        (9.0, "times the learning rate"),
        (0.2, "uphill"),
        (0.8, "how far w moves"),
        (1.68, "the lesson's start"),  # the lesson prints this update: the exercise's start is another
        (2.0, "hint"),
        ("1.8", "one number"),
        (float("nan"), "one number"),
    ],
)
def test_first_update_explains_wrong_answers(answer, words):
    verdict = check.first_update(answer)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_first_update_untouched_is_not_attempted():
    assert check.first_update(TODO).status == "not attempted"


# Build it yourself: the training loop ----------------------------------------

from micrograd.losses import mse, sum_of_squares  # noqa: E402


def lesson_cell(lesson, heading):
    """The text of the lesson's markdown cell with heading in it: what the lesson says there."""
    import json
    from pathlib import Path

    notebook = next((Path(__file__).parent.parent / "notebooks").glob(f"{lesson}_*.ipynb"))
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    (text,) = [t for t in ("".join(c["source"]) for c in cells if c["cell_type"] == "markdown") if heading in t]
    return text

ZERO = "        for p in model.parameters():\n            p.grad = 0.0\n"
RIGHT = """
def my_train(model, xs, ys, steps, lr):
    losses = []
    for k in range(steps):
        loss = sum_of_squares([model(x) for x in xs], ys)
        for p in model.parameters():
            p.grad = 0.0
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        losses.append(loss.data)
    return losses
"""

STUB = """
def my_train(model, xs, ys, steps, lr):
    losses = []
    for k in range(steps):
        # your code here: forward and loss, zero the gradients, backward, update; append the loss
        raise NotImplementedError
    return losses
"""


def loop(source, *swaps):
    for old, new in swaps:
        assert old in source, old
        source = source.replace(old, new)
    namespace = {"sum_of_squares": sum_of_squares, "mse": mse}
    exec(source, namespace)
    return namespace["my_train"]


def test_training_loop_accepts_a_right_loop_and_shows_the_forgotten_zeroing():
    verdict = check.my_training_loop(loop(RIGHT))
    assert verdict.passed
    assert "without zero_grad ends at" in verdict.message


def test_training_loop_is_run_on_a_model_with_what_my_mlp_has(tmp_path, monkeypatch):
    # Lesson 6 ends by training the MyMLP it uses (here the worked answer's, no my_micrograd.py being there),
    # which has parameters() and __call__ but no zero_grad: a loop calling model.zero_grad() would pass on
    # the package's MLP and then fail there.
    monkeypatch.chdir(tmp_path)
    verdict = check.my_training_loop(loop(RIGHT, CALLS_ZERO_GRAD))
    assert verdict.status == "failed", verdict.message
    assert "the MyMLP this lesson trains does not" in verdict.message
    assert "for p in model.parameters(): p.grad = 0.0" in verdict.message


# A learner's MyMLP may have a zero_grad of its own: then a loop calling it is right, and must pass.

CALLS_ZERO_GRAD = (ZERO, "        model.zero_grad()\n")
MLP_PARAMETERS = "    def parameters(self):\n        return [p for layer in self.layers"


def mlp_source(zero_grad):
    """Lesson 5's MyMLP as a learner writes it, with a zero_grad() that counts its calls, or without one."""
    from build_stubs import NN_SOLUTION

    method = ("    def zero_grad(self):\n        MyMLP.zeroed += 1\n        for p in self.parameters():\n"
              "            p.grad = 0.0\n\n")
    return NN_SOLUTION.replace(MLP_PARAMETERS, (method if zero_grad else "") + MLP_PARAMETERS) + "\nMyMLP.zeroed = 0\n"


def learners_mlp(zero_grad):
    from build_stubs import load_nn

    return load_nn(mlp_source(zero_grad))[2]


def test_a_loop_calling_zero_grad_passes_on_the_learners_mlp_that_has_one():
    train = loop(RIGHT, CALLS_ZERO_GRAD)
    train.__globals__["MyMLP"] = learners_mlp(zero_grad=True)  # as in the notebook once MyMLP is loaded
    verdict = check.my_training_loop(train)
    assert verdict.passed, verdict.message
    assert train.__globals__["MyMLP"].zeroed == check._STEPS  # run on the learner's class, not the package's


def test_a_loop_calling_zero_grad_fails_on_the_learners_mlp_without_one():
    train = loop(RIGHT, CALLS_ZERO_GRAD)
    train.__globals__["MyMLP"] = learners_mlp(zero_grad=False)
    verdict = check.my_training_loop(train)
    assert verdict.status == "failed" and "the MyMLP this lesson trains does not" in verdict.message


def test_a_right_loop_passes_beside_a_mlp_that_cannot_stand_for_the_lessons_network():
    train = loop(RIGHT)
    train.__globals__["MyMLP"] = lambda nin, nouts: None  # not a class: the template-shaped network is used
    assert check.my_training_loop(train).passed


def test_before_the_notebook_loads_mymlp_the_check_finds_the_one_the_lesson_will_train(tmp_path, monkeypatch):
    # Lesson 6's check cell comes before its yours.use() of MyMLP: the check reads my_micrograd.py as use() will.
    from micrograd.course.carry import yours

    monkeypatch.chdir(tmp_path)
    yours.store("lesson 5: MyNeuron, MyLayer, MyMLP", "import random\n" + mlp_source(zero_grad=True), tmp_path)
    verdict = check.my_training_loop(loop(RIGHT, CALLS_ZERO_GRAD))
    assert verdict.passed, verdict.message


def test_training_loop_wants_numbers_not_values_in_its_losses():
    # The lesson's last cell prints my_losses[k] with a float format, which a MyValue does not take.
    verdict = check.my_training_loop(loop(RIGHT, ("losses.append(loss.data)", "losses.append(loss)")))
    assert verdict.status == "failed" and "losses.append(loss.data)" in verdict.message, verdict.message


def test_the_forgotten_zeroing_is_told_what_works_on_my_mlp():
    verdict = check.my_training_loop(loop(RIGHT, (ZERO, "")))
    assert "the gradients are never zeroed" in verdict.message
    assert "zero_grad()" not in verdict.message.split("never zeroed")[1], verdict.message


def test_training_loop_untouched_is_not_attempted():
    assert check.my_training_loop(loop(STUB)).status == "not attempted"


@pytest.mark.parametrize(
    "swaps, words",
    [
        (((ZERO, ""),), "the gradients are never zeroed"),
        (((ZERO + "        loss.backward()\n", "        loss.backward()\n" + ZERO),),
         "the loss never changes"),
        ((("p.data -= lr * p.grad", "p.data += lr * p.grad"),), "the loss goes up"),
        ((("p.data -= lr * p.grad", "p.data -= p.grad"),), "its whole gradient"),
        ((("    return losses", "    return None"),), "returns None"),
        ((("    return losses", "    return losses[-1]"),), "returns float"),
        ((("for k in range(steps):", "for k in range(10):"),), "returned 10 losses"),
        ((("        losses.append(loss.data)", "        losses.append(sum_of_squares([model(x) for x in xs], ys).data)"),),
         "record each step's loss before its update"),
    ],
)
def test_training_loop_names_what_is_wrong(swaps, words):
    verdict = check.my_training_loop(loop(RIGHT, *swaps))
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_training_loop_that_never_updates():
    verdict = check.my_training_loop(loop(RIGHT, ("            p.data -= lr * p.grad", "            pass")))
    assert verdict.status == "failed" and "never changes" in verdict.message


def test_training_loop_wants_a_function():
    text = check.my_training_loop("train")
    assert text.status == "failed" and "pass the function itself" in text.message


def test_training_loop_passes_with_the_lessons_own_numbers():
    # The lesson's run: MLP(3, [4, 4, 1]) with tanh, rng=0, 50 steps at 0.05: 3.5902 → 0.0164, 4.0000 without zero_grad.
    verdict = check.my_training_loop(loop(RIGHT))
    assert "3.5902 → 0.0164" in verdict.message and "ends at 4.0000" in verdict.message
    assert "the lesson's run" in verdict.message


def test_training_loop_with_mse_is_told_it_is_the_mean():
    verdict = check.my_training_loop(loop(RIGHT, ("sum_of_squares(", "mse(")))
    assert verdict.status == "failed" and "mean of the squared errors" in verdict.message
    assert "before its update" not in verdict.message


def test_a_mean_loss_is_told_the_loop_is_right_and_the_task_asks_for_the_sum():
    # A learner's own right loop with the mean: what is wrong is only that the task asks for the sum, and the
    # lesson's task says so in as many words.
    verdict = check.my_training_loop(loop(RIGHT, ("sum_of_squares([model(x) for x in xs], ys)",
                                                   "sum((yout - ygt) ** 2 for ygt, yout in zip(ys, [model(x) for x in xs])) / len(ys)")))
    assert verdict.status == "failed", verdict.message
    assert verdict.message.startswith("your loop is right, with the mean of the squared errors") and "the task asks for their sum" in verdict.message
    assert "your loss after" not in verdict.message  # a mean is not held against a sum
    task = lesson_cell("06", "Build it yourself: the training loop")
    assert "the loss, the **sum** of squared errors" in task and "not their mean" in task


ZERO_AT_THE_END = ((ZERO, ""), ("        losses.append(loss.data)", ZERO + "        losses.append(loss.data)"))


def test_zeroing_after_the_update_as_pytorch_does_passes_and_is_said_to_be_right():
    # PyTorch's habit, loss.backward(); step; zero_grad(): right on a network whose gradients start at 0, as those
    # of every network the check trains do.
    verdict = check.my_training_loop(loop(RIGHT, *ZERO_AT_THE_END))
    assert verdict.passed, verdict.message
    assert "zeroes the gradients at the end of each step, after the update (PyTorch's habit): right" in verdict.message
    assert "at the end of each step" not in check.my_training_loop(loop(RIGHT)).message
    assert "Zeroing the gradients at the end of each step, after the update (PyTorch's\nhabit), is right too" in \
        lesson_cell("06", "Build it yourself: the training loop")


def test_what_my_train_prints_is_folded_under_the_verdict_not_above_it(capsys):
    # The lecture's loop prints k and the loss at every step: 50 lines that pushed the verdict off screen.
    printing = loop(RIGHT, ("        losses.append(loss.data)\n", "        losses.append(loss.data)\n        print(k, loss.data)\n"))
    capsys.readouterr()
    verdict = check.my_training_loop(printing)
    shown = capsys.readouterr().out
    assert verdict.passed and shown.startswith("✓ Build it: the training loop"), shown[:200]
    assert "\n0 3.59" not in shown  # nothing of the learner's prints comes before or after the verdict line
    assert verdict.figure.startswith("<details") and "(50 lines)" in verdict.figure
    assert "<pre" in verdict.figure and "0 3.5902269803779414\n1 2.71147" in verdict.figure
    assert "<details" not in check.my_training_loop(loop(RIGHT)).figure
    assert "What your loop prints (the lecture's\n`print(k, loss.data)`, say) is folded under the check's verdict, one " \
           "click away" in lesson_cell("06", "Build it yourself: the training loop")


def test_the_lectures_loop_passes_and_trains_the_lectures_mlp():
    # The check runs the loop on the lecture's own MyMLP, which sits beside it; the same loop then trains it from a seed.
    import random

    from foreign_nodes import lecture_micrograd

    namespace = lecture_micrograd()
    assert check.my_training_loop(namespace["my_train"]).passed
    random.seed(0)
    losses = namespace["my_train"](namespace["MyMLP"](3, [4, 4, 1]), check._XS, check._YS, 5, 0.05)
    assert all(isinstance(loss, float) for loss in losses) and losses[-1] < losses[0]


def test_forgotten_zero_grad_is_not_shown_doing_better_than_the_right_loop():
    # From a clean start, as the lesson runs it, such a loop gets stuck at 4.0, and the message must say that,
    # as the pass message and the lesson do.
    from build_stubs import TRAIN_SOLUTION, load_train

    verdict = check.my_training_loop(load_train(TRAIN_SOLUTION, ("        for p in model.parameters():\n            p.grad = 0.0\n", "")))
    assert verdict.status == "failed" and "never zeroed" in verdict.message
    assert "stuck at 4.0000" in verdict.message and "0.0164" in verdict.message
    assert "0.0000" not in verdict.message


def test_a_loop_calling_the_learners_own_zero_grad_is_carried_to_the_lessons_end(tmp_path, capsys):
    # As lesson 6's last cells load them: both pieces the learner's, and my_train trains that MyMLP.
    import random

    from micrograd.course.carry import yours

    yours.store("lesson 5: MyNeuron, MyLayer, MyMLP", "import random\n" + mlp_source(zero_grad=True), tmp_path)
    yours.store("lesson 6: my_train", RIGHT.replace(*CALLS_ZERO_GRAD), tmp_path)
    MyMLP, my_train = yours.use("MyMLP", "my_train", lesson=6, folder=tmp_path)
    lines = capsys.readouterr().out.splitlines()
    status = [line for line in lines if line[:2] in ("✓ ", "✗ ", "… ")]
    assert len(status) == 2 and all(line.startswith("✓ ") and ": using yours" in line for line in status), lines
    random.seed(0)
    losses = my_train(MyMLP(3, [4, 4, 1]), check._XS, check._YS, 20, 0.05)
    assert MyMLP.zeroed >= 20 and losses[-1] < losses[0]


def test_an_update_before_backward_is_named_not_read_as_a_schedule():
    from build_stubs import TRAIN_SOLUTION, load_train

    zero, backward = "        for p in model.parameters():\n            p.grad = 0.0\n", "        loss.backward()\n"
    update = "        for p in model.parameters():\n            p.data -= lr * p.grad\n"
    early = load_train(TRAIN_SOLUTION, (zero + backward + update, update + zero + backward))
    verdict = check.my_training_loop(early)
    assert verdict.status == "failed" and "before loss.backward()" in verdict.message, verdict.message
    assert "schedule" not in verdict.message
