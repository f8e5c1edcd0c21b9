"""Loss functions built from Value operations, so backward() just works.

Each takes model outputs (Values, or plain numbers) and targets (numbers)
and returns one Value to call ``backward()`` on.
"""

import math
import numbers

from .engine import Value, result_node

__all__ = ["sum_of_squares", "mse", "hinge", "softmax", "cross_entropy", "fused_cross_entropy", "l2", "LOSSES", "loss_function"]


def _pairs(predictions, targets, name):
    predictions = _as_list(predictions)
    targets = _as_list(targets)
    if len(predictions) != len(targets):
        raise ValueError(
            f"{name} got {len(predictions)} predictions but {len(targets)} targets; "
            "give one target per prediction"
        )
    if not predictions:
        raise ValueError(f"{name} needs at least one prediction")
    return predictions, targets


def _as_list(x):
    return [x] if isinstance(x, (Value, numbers.Real)) else list(x)


def sum_of_squares(predictions, targets):
    """Σ (prediction − target)²: the lecture's loss."""
    predictions, targets = _pairs(predictions, targets, "sum_of_squares")
    return sum((p - t) ** 2 for p, t in zip(predictions, targets))


def mse(predictions, targets):
    """Mean squared error: sum of squares divided by the number of samples."""
    predictions, targets = _pairs(predictions, targets, "mse")
    return sum_of_squares(predictions, targets) * (1.0 / len(predictions))


def hinge(scores, labels):
    """Mean max-margin loss, mean of relu(1 − y·score), for labels ±1.

    The data term of Karpathy's moons demo: a sample stops contributing once
    its score is on the right side with a margin of at least 1.
    """
    scores, labels = _pairs(scores, labels, "hinge")
    for y in labels:
        if y not in (1, -1):
            raise ValueError(f"hinge needs labels of +1 or -1, got {y!r}; map 0/1 labels with y*2 - 1")
    losses = [(1 + -y * s).relu() for y, s in zip(labels, scores)]
    return sum(losses) * (1.0 / len(losses))


def softmax(logits):
    """Probabilities exp(z_i) / Σ exp(z_j), as Values.

    The largest logit is subtracted first (a plain number, so gradients are
    unchanged): exp never sees a large positive input and cannot overflow.
    """
    logits = list(logits)
    shift = max(_data(z) for z in logits)
    exps = [(z - shift).exp() if isinstance(z, Value) else Value(math.exp(z - shift)) for z in logits]
    total = sum(exps)
    return [e / total for e in exps]


def cross_entropy(logits, target):
    """−log softmax(logits)[target], computed stably (log-sum-exp).

    ``target`` is a class index for one sample; for a batch pass a list of
    logit lists and a list of indices, and get the mean over the batch.
    """
    if isinstance(target, numbers.Integral):
        return _cross_entropy_one(list(logits), target)
    logits, targets = list(logits), list(target)
    if len(logits) != len(targets):
        raise ValueError(
            f"cross_entropy got {len(logits)} samples of logits but {len(targets)} targets"
        )
    if not logits:
        raise ValueError("cross_entropy needs at least one sample")
    losses = [_cross_entropy_one(list(z), t) for z, t in zip(logits, targets)]
    return sum(losses) * (1.0 / len(losses))


def _cross_entropy_one(logits, target):
    if not 0 <= target < len(logits):
        raise ValueError(
            f"cross_entropy target {target} is not a class index for {len(logits)} logits "
            f"(expected 0 to {len(logits) - 1})"
        )
    logits = [z if isinstance(z, Value) else Value(z) for z in logits]
    # log Σ exp(z_j) − z_t, with the largest logit taken out so exp stays small.
    shift = max(z.data for z in logits)
    log_sum_exp = sum((z - shift).exp() for z in logits).log()
    return log_sum_exp - (logits[target] - shift)


def fused_cross_entropy(logits, target):
    """``cross_entropy(logits, target)`` for one sample, as one node (the GPT's loss per position).

    Its inputs are the logits; the local derivative for logit i is
    ``softmax(logits)[i] - (1 if i == target else 0)``, the chain rule through the
    subtraction, exps, sum and log that ``cross_entropy`` builds as separate nodes.
    The number is the same log-sum-exp: ``max + log Σ exp(z_j - max) - z_target``.
    """
    logits = [z if isinstance(z, Value) else Value(z) for z in logits]
    if isinstance(target, bool) or not isinstance(target, numbers.Integral) or not 0 <= target < len(logits):
        raise ValueError(
            f"fused_cross_entropy target {target!r} is not a class index for {len(logits)} logits "
            f"(expected a whole number from 0 to {len(logits) - 1})"
        )
    shift = max(z.data for z in logits)
    exps = [math.exp(z.data - shift) for z in logits]
    total = 0.0
    for e in exps:  # in order, as Σ of Values adds them (sum() of floats may not, from Python 3.12)
        total += e
    local_grads = [e / total for e in exps]
    local_grads[target] -= 1.0
    loss = math.log(total) - (logits[target].data - shift)
    return result_node(loss, tuple(logits), tuple(local_grads), "cross_entropy")


def l2(parameters, alpha):
    """alpha · Σ p²: weight decay as a loss term."""
    parameters = list(parameters)
    if not parameters:
        raise ValueError("l2 needs at least one parameter")
    return alpha * sum(p * p for p in parameters)


def _data(x):
    return x.data if isinstance(x, Value) else x


# The losses a training session (and the training stepper) accepts by name:
# each takes (outputs, targets) for a whole batch.
LOSSES = {
    "mse": mse,
    "sum_of_squares": sum_of_squares,
    "hinge": hinge,
    "cross_entropy": cross_entropy,
}


def loss_function(loss):
    """``(name, function)`` for a loss given by name (a key of ``LOSSES``) or as a function."""
    if callable(loss):
        return getattr(loss, "__name__", "loss"), loss
    if loss not in LOSSES:
        raise ValueError(
            f"unknown loss {loss!r}; choose one of {', '.join(map(repr, LOSSES))} "
            "or pass a function loss(outputs, targets) -> Value"
        )
    return loss, LOSSES[loss]
