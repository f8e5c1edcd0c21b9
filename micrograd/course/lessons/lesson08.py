"""Checkers for lesson 8, real data: softmax cross-entropy and reading the results.

Expected losses and gradients are computed here with ``math`` from the
definition (softmax, then −log of the target's probability; the gradient is
the probabilities minus one at the target), never with the package's own
loss functions, so an answer is held against an independent derivation.
"""

import math
import numbers
import random

from micrograd.engine import Value
from micrograd.course.verdicts import (as_number, checker, class_name, close, decimals_kept, failed, fmt_apart, number_problem, passed,
                       value_wanted)

__all__ = ["uninformed_loss", "cross_entropy_by_hand", "accuracy_from_confusion"]

# The lecture's softmax exercise, and two more cases that catch an answer
# that only works for the last class or for these particular numbers.
_CASES = (
    ([0.0, 3.0, -2.0, 1.0], 3),
    ([2.0, -1.0, 0.5], 0),
    ([-0.5, 1.5, 0.25, -2.0, 0.75], 2),
)


def _softmax(logits):
    top = max(logits)
    exps = [math.exp(z - top) for z in logits]
    total = sum(exps)
    return [e / total for e in exps]


# The lesson works out the even guess over its ten digits (ln 10); the exercise asks the same for the 26
# letters of the alphabet, so its answer is nowhere in the lesson.
CLASSES = 26
LESSON_CLASSES = 10


@checker("Exercise 1: the loss of a model that knows nothing")
def uninformed_loss(answer):
    problem = number_problem(answer, want="the answer is one number, the loss")
    if problem:
        return failed(problem)
    answer = as_number(answer)
    expected = -math.log(1 / CLASSES)
    if close(answer, expected, 1e-7):  # np.float32's ln 26 is off by 4e-8 (relative), a rounding by far more
        return passed(f"−ln(1/{CLASSES}) = ln {CLASSES} ≈ {expected:.4f}: more classes, so a fresh model starts "
                      f"higher than the digits' ln {LESSON_CLASSES}")
    decimals = decimals_kept(answer, expected)  # as the lesson prints losses: 3.3, 3.26, 3.2581
    if decimals:
        return passed(f"−ln(1/{CLASSES}) = ln {CLASSES} ≈ {expected:.6f}, {answer:.{decimals}f} to {decimals} "
                      f"decimal{'s' if decimals > 1 else ''}: more classes, so a fresh model starts higher than "
                      f"the digits' ln {LESSON_CLASSES}")
    if close(answer, math.log(LESSON_CLASSES), 1e-3):
        return failed(f"{answer:g} is ln {LESSON_CLASSES}, the loss for the lesson's ten digits; with {CLASSES} "
                      f"letters each gets p = 1/{CLASSES}")
    if close(answer, 1 / CLASSES, 1e-3):
        return failed(f"{answer:g} is the probability the model gives the right letter, 1/{CLASSES}; the loss is "
                      "−log of that probability")
    if close(answer, -expected, 1e-4):
        return failed(f"{answer:g} has the wrong sign: log of a probability is negative, the loss is its negative")
    if close(answer, math.log10(CLASSES), 1e-4) or close(answer, math.log2(CLASSES), 1e-4):
        return failed(f"{answer:g} uses another base; cross-entropy uses the natural logarithm (math.log)")
    return failed(f"{answer:g} is not it; hint: {CLASSES} classes, all equally likely: what is p(right letter), "
                  "and what is −log p?")


def _run(cross_entropy, logits, target):
    """(loss Value, the logit Values) from the learner's function, or a failure message."""
    values = [Value(z) for z in logits]
    loss = cross_entropy(values, target)
    if isinstance(loss, numbers.Real):
        return None, values, (
            f"it returns a plain number ({loss!r}); build the loss from the Values with .exp() and .log() "
            "so that backward() can reach the logits"
        )
    if not isinstance(loss, Value):
        wanted = value_wanted(loss)
        return None, values, (f"it returns {class_name(loss)}; return one Value, the loss, built from the logits' own "
                              "operations" + ("" if wanted == "a Value" else f", so that it is {wanted}"))
    loss.backward()
    return loss, values, None


@checker("Exercise 2: softmax cross-entropy from exp and log")
def cross_entropy_by_hand(cross_entropy):
    if not callable(cross_entropy):
        return failed(f"pass the function itself, cross_entropy_by_hand, not {type(cross_entropy).__name__}")
    for logits, target in _CASES:
        probs = _softmax(logits)
        expected = -math.log(probs[target])
        loss, values, problem = _run(cross_entropy, logits, target)
        if problem:
            return failed(problem)
        shown = f"for logits {logits} and target {target}"
        if not close(loss.data, expected, 1e-6):
            if close(loss.data, probs[target], 1e-6):
                return failed(f"{shown} it gives {loss.data:.5f}, the target's probability; the loss is −log of it")
            if close(loss.data, -expected, 1e-6):
                return failed(f"{shown} it gives {loss.data:.5f}: the sign is flipped, the loss is −log p")
            if any(close(loss.data, -math.log(p), 1e-6) for i, p in enumerate(probs) if i != target):
                return failed(f"{shown} it gives {loss.data:.5f}; pick the probability at index target")
            return failed(
                f"{shown} the loss should be {fmt_apart(expected, loss.data)[0]}, yours is "
                f"{fmt_apart(expected, loss.data)[1]}; "
                "hint: p = exp(z_i) / Σ exp(z_j), loss = −log p[target]"
            )
        grads = [v.grad for v in values]
        wanted = [p - (i == target) for i, p in enumerate(probs)]
        if not all(close(g, w, 1e-6) for g, w in zip(grads, wanted)):
            return failed(
                f"{shown} the loss is right but the logits' gradients are {[round(g, 5) for g in grads]}, "
                f"not {[round(w, 5) for w in wanted]}; hint: did a .data (a plain number) cut the graph somewhere?"
            )
    return passed("loss 2.1755 and gradient softmax − one-hot on the lecture's logits" + _stability_note(cross_entropy))


_FAR = [([1000.0, 0.0], 1, 1000.0), ([1000.0, -1000.0, 0.0], 1, 2000.0)]  # (logits, target, loss)


def _stability_note(cross_entropy):
    """What a correct answer does on logits far apart, [1000, 0] and [1000, -1000, 0] with target 1.

    Two different things break there, and the pointer names the one this
    answer hits: exp of a large number overflows (something other than the
    largest logit was subtracted: nothing, the smallest, the mean), or, with
    the largest subtracted, the target's probability e^-1000 rounds to 0 and
    the log of 0 is undefined (a probability was formed before the log).
    """
    for logits, target, want in _FAR:
        further = (f". One step further, if you like: for logits {[int(z) for z in logits]} and target {target} the "
                   f"loss is {want:g}, ")
        try:
            loss, _, problem = _run(cross_entropy, logits, target)
        except OverflowError:
            return further + (
                "which this version cannot compute: exp(1000) overflows a float. "
                "Subtracting max(z) from every logit (not the smallest, nor their mean) changes no probability and "
                "keeps every exp at most 1; then take the log of the sum, log Σ exp(z − max) − (z_target − max), "
                "rather than of a probability"
            )
        except (ArithmeticError, ValueError):
            return further + (
                "which this version cannot compute: the target's probability rounds to 0 before the log is taken, "
                "and log 0 is undefined. Never form the probability: −log p_target = log Σ exp(z − max) − "
                "(z_target − max), a log of a sum that is at least 1"
            )
        if problem is not None or not close(loss.data, want, 1e-9):
            shown = f"{loss.data:g}" if problem is None else "no loss Value"
            return further + (
                f"and this version gives {shown}; −log p_target = log Σ exp(z − max) − (z_target − max) "
                "computes it without overflow and without taking the log of a probability that rounded to 0"
            )
    return ", and it stays exact for logits far apart too, [1000, 0] and [1000, -1000, 0]"


def _matrices():
    rng = random.Random(8)
    yield [[5, 1], [2, 7]]
    yield [[3, 0, 1], [0, 4, 0], [2, 1, 9]]
    for _ in range(3):
        n = rng.randint(2, 6)
        yield [[rng.randint(0, 9) + (20 if i == j else 0) for j in range(n)] for i in range(n)]


@checker("Exercise 3: accuracy from a confusion matrix")
def accuracy_from_confusion(accuracy):
    if not callable(accuracy):
        return failed(f"pass the function itself, accuracy_from_confusion, not {type(accuracy).__name__}")
    for matrix in _matrices():
        correct = sum(matrix[i][i] for i in range(len(matrix)))
        total = sum(map(sum, matrix))
        expected = correct / total
        got = accuracy([row[:] for row in matrix])
        problem = number_problem(got, f"for {matrix} it returns", "return one number, a fraction between 0 and 1")
        if problem:
            return failed(problem)
        got = as_number(got)
        if close(got, expected, 1e-6):  # not tighter: np.float32 keeps about 7 digits
            continue
        if close(got, 1 - expected, 1e-9):
            return failed(f"for {matrix} it returns {got:g}, the fraction it gets wrong (the error rate): the right "
                          "answers sit on the diagonal, so accuracy is the diagonal over the total")
        if close(got, correct, 1e-9):
            return failed(f"for {matrix} it returns {got:g}, the number right; divide by the number of samples")
        if close(got, 100 * expected, 1e-9):
            return failed(f"for {matrix} it returns {got:g}, a percentage; return a fraction between 0 and 1")
        return failed(
            f"for {matrix} it returns {got:g}, expected {expected:g}; hint: the right answers sit on the "
            "diagonal (true class = predicted class), every sample is somewhere in the matrix"
        )
    return passed("the diagonal over the total")
