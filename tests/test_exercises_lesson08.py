"""Lesson 8's checkers: right answers pass, typical mistakes get a useful hint."""

import math

import pytest

from micrograd.course.lessons import lesson08 as check
from micrograd.course.verdicts import TODO


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


# -- exercise 1: the loss of an uninformed model ---------------------------------


def test_uninformed_loss_accepts_ln_26():
    # The exercise asks for the 26 letters: the lesson prints the ten digits' ln 10, so not this answer.
    assert check.uninformed_loss(math.log(26)).passed
    assert check.uninformed_loss(3.2581).passed


def test_uninformed_loss_accepts_a_value_rounded_as_the_lesson_prints_losses():
    for rounded, decimals in ((3.3, "1 decimal"), (3.26, "2 decimals"), (3.258, "3 decimals")):
        verdict = check.uninformed_loss(rounded)
        assert verdict.passed and decimals in verdict.message, verdict.message
    exact = check.uninformed_loss(math.log(26))
    assert exact.passed and "decimal" not in exact.message, exact.message  # nothing was rounded: don't say so
    for near in (3.24, 3.27):  # neither ln 26 rounded nor cut off
        verdict = check.uninformed_loss(near)
        assert verdict.status == "failed" and "26 classes, all equally likely" in verdict.message


@pytest.mark.parametrize(
    "answer, words",
    [
        (1 / 26, "probability"),
        (-math.log(26), "wrong sign"),
        (math.log10(26), "natural logarithm"),
        (math.log(10), "ten digits"),
        (26, "hint"),
        ("3.26", "one number"),
    ],
)
def test_uninformed_loss_rejects_typical_mistakes(answer, words):
    verdict = check.uninformed_loss(answer)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_uninformed_loss_untouched():
    assert check.uninformed_loss(TODO).status == "not attempted"


# -- exercise 2: softmax cross-entropy by hand -----------------------------------


def stable_cross_entropy(logits, target):
    shift = max(z.data for z in logits)
    return sum((z - shift).exp() for z in logits).log() - (logits[target] - shift)


def naive_cross_entropy(logits, target):
    exps = [z.exp() for z in logits]
    return -(exps[target] / sum(exps)).log()


def test_cross_entropy_accepts_a_stable_version_and_says_so():
    verdict = check.cross_entropy_by_hand(stable_cross_entropy)
    assert verdict.passed
    assert "2.1755" in verdict.message and "stays exact" in verdict.message


def test_cross_entropy_accepts_the_textbook_version_with_a_pointer():
    verdict = check.cross_entropy_by_hand(naive_cross_entropy)
    assert verdict.passed
    assert "exp(1000) overflows" in verdict.message and "log Σ exp(z − max)" in verdict.message
    assert "fails" not in verdict.message  # a ✓ never says the answer fails


def shifted_probability_cross_entropy(logits, target):
    shift = max(z.data for z in logits)  # the max is subtracted: nothing overflows
    exps = [(z - shift).exp() for z in logits]
    return -(exps[target] / sum(exps)).log()  # but p = e^-1000 rounds to 0 before the log


def test_cross_entropy_a_version_that_subtracts_the_max_hears_about_log_of_zero():
    verdict = check.cross_entropy_by_hand(shifted_probability_cross_entropy)
    assert verdict.passed
    assert "rounds to 0 before the log" in verdict.message
    assert "overflows" not in verdict.message and "Subtracting max" not in verdict.message


def mean_shifted_cross_entropy(logits, target):
    shift = sum(z.data for z in logits) / len(logits)  # exact on [1000, 0], but 1000 - 0 overflows on [1000, -1000, 0]
    return sum((z - shift).exp() for z in logits).log() - (logits[target] - shift)


def test_cross_entropy_shifted_by_the_mean_is_not_said_to_stay_exact_on_logits_far_apart():
    verdict = check.cross_entropy_by_hand(mean_shifted_cross_entropy)
    assert verdict.passed  # the exercise's numbers are right
    assert "stays exact" not in verdict.message
    assert "[1000, -1000, 0] and target 1 the loss is 2000" in verdict.message and "nor their mean" in verdict.message
    assert "stays exact for logits far apart too" in check.cross_entropy_by_hand(stable_cross_entropy).message


def _probability(logits, target):
    exps = [z.exp() for z in logits]
    return exps[target] / sum(exps)


@pytest.mark.parametrize(
    "wrong, words",
    [
        (_probability, "the target's probability"),
        (lambda logits, target: _probability(logits, target).log(), "sign is flipped"),
        (lambda logits, target: naive_cross_entropy(logits, 0), "index target"),
        (lambda logits, target: naive_cross_entropy(logits, target).data, "plain number"),
        # the sum as a plain number: the loss is right, the gradient is not
        (
            lambda logits, target: -(logits[target].exp() / sum(z.exp().data for z in logits)).log(),
            "cut the graph",
        ),
        (lambda logits, target: naive_cross_entropy(logits, target) * 2, "hint"),
        (lambda logits, target: [naive_cross_entropy(logits, target)], "return one Value"),
    ],
)
def test_cross_entropy_rejects_typical_mistakes(wrong, words):
    verdict = check.cross_entropy_by_hand(wrong)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_cross_entropy_catches_an_answer_that_only_fits_the_lecture_numbers():
    def lecture_only(logits, target):
        return naive_cross_entropy(logits, 3 if len(logits) == 4 else 0)

    verdict = check.cross_entropy_by_hand(lecture_only)
    assert verdict.status == "failed" and "[-0.5, 1.5, 0.25, -2.0, 0.75]" in verdict.message


def test_cross_entropy_untouched_or_not_a_function():
    def cross_entropy_by_hand(logits, target):
        raise NotImplementedError

    assert check.cross_entropy_by_hand(cross_entropy_by_hand).status == "not attempted"
    assert check.cross_entropy_by_hand(TODO).status == "not attempted"
    assert "pass the function itself" in check.cross_entropy_by_hand(2.1755).message


# -- exercise 3: accuracy from a confusion matrix --------------------------------


def test_accuracy_from_confusion_accepts_diagonal_over_total():
    def accuracy(matrix):
        return sum(matrix[i][i] for i in range(len(matrix))) / sum(map(sum, matrix))

    assert check.accuracy_from_confusion(accuracy).passed


@pytest.mark.parametrize(
    "wrong, words",
    [
        (lambda m: sum(m[i][i] for i in range(len(m))), "the number right"),
        (lambda m: 100 * sum(m[i][i] for i in range(len(m))) / sum(map(sum, m)), "percentage"),
        (lambda m: m[0][0] / sum(m[0]), "diagonal"),  # one class's recall
        (lambda m: f"{m[0][0]}", "one number"),
    ],
)
def test_accuracy_from_confusion_rejects_typical_mistakes(wrong, words):
    verdict = check.accuracy_from_confusion(wrong)
    assert verdict.status == "failed"
    assert words in verdict.message


def test_accuracy_from_confusion_untouched():
    def accuracy_from_confusion(matrix):
        raise NotImplementedError

    assert check.accuracy_from_confusion(accuracy_from_confusion).status == "not attempted"


def test_a_loss_off_in_its_sixth_digit_is_shown_with_digits_enough_to_differ():
    def off_by_a_hair(logits, target):
        return stable_cross_entropy(logits, target) + 3e-6  # 2.175518 where 2.175515 is right

    verdict = check.cross_entropy_by_hand(off_by_a_hair)
    should, yours = verdict.message.split("the loss should be ")[1].split("; hint")[0].split(", yours is ")
    assert verdict.status == "failed" and should != yours, verdict.message
