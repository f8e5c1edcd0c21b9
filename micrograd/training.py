"""A training loop you can step, inspect and rewind, without any widgets.

    from micrograd.training import TrainingSession

    session = TrainingSession(MLP(2, [16, 16, 1]), X, y, loss="hinge", lr=0.5)
    session.run(10)
    session.history[-1]     # {'step': 10, 'loss': ..., 'lr': 0.5, 'accuracy': ...}
    session.reset()         # the model and optimiser exactly as they started

``micrograd.widgets.TrainingStepper`` is a view of a session: its buttons
call ``step()``, ``run()`` and ``reset()``.  Needs the standard library only.
"""

import numbers
import random

from .engine import Value
from .graphs import has_data
from .losses import l2 as _l2_term
from .losses import loss_function
from .metrics import accuracy as _accuracy
from .optim import SGD, Optimizer

__all__ = ["TrainingSession", "DEFAULT_LR", "check_steps"]

DEFAULT_LR = 0.1


class TrainingSession:
    """Train ``model`` on ``X, y`` one step at a time, and start over exactly.

    Each step computes the loss on the data (or on a mini-batch of
    ``batch_size`` samples, drawn by a generator seeded with ``seed``), runs
    backward, and lets the optimiser update the parameters.  ``history``
    holds one dict per step: ``step``, ``loss``, ``lr`` (the rate that step
    used) and, for a classifier, ``accuracy``; loss and accuracy are measured
    before the update, on the same samples.

    ``loss`` is a name from ``micrograd.losses.LOSSES`` (``'mse'``,
    ``'sum_of_squares'``, ``'hinge'``, ``'cross_entropy'``) or a function
    ``loss(outputs, targets) -> Value``; ``l2`` adds ``l2 · Σ p²``.
    ``optimizer`` defaults to ``SGD(lr=lr)`` (lr 0.1 when not given); ``lr``
    may be a schedule such as ``optim.linear_decay(...)``.  Accuracy is
    reported for hinge and cross-entropy, and for (mean) squared error when
    every target is ±1; ``accuracy=True/False`` decides otherwise.
    """

    def __init__(self, model, X, y, loss="mse", lr=None, optimizer=None, batch_size=None, *, l2=0.0, accuracy=None, seed=0):
        self.model = model
        self.X, self.y = _check_data(X, y)
        self.loss_name, self.loss_fn = loss_function(loss)
        self.l2 = _check_non_negative("l2", l2)
        self.batch_size = _check_batch_size(batch_size, len(self.X))
        self.seed = seed
        self.optimizer = _make_optimizer(model, optimizer, lr)
        self.parameters = list(self.optimizer.parameters)
        self.classify = self._is_classifier(accuracy)
        _check_model_fits(model, self.X, self.y, self.loss_name, self.loss_fn)
        self.history = []
        # What reset() puts back.  Gradients are part of it: a step zeroes
        # them itself, but a learner reading .grad after reset() sees zeros.
        self._initial_parameters = [p.data for p in self.parameters]
        self._initial_optimizer = self.optimizer.state_dict()
        self._batches = random.Random(seed)

    @property
    def steps(self):
        """How many steps have been taken since the start (or the last reset)."""
        return len(self.history)

    @property
    def scheduled(self):
        """True when the learning rate follows a schedule rather than a number."""
        return callable(self.optimizer.lr)

    @property
    def learning_rate(self):
        """The rate the next step will use."""
        return self.optimizer.learning_rate()

    def set_learning_rate(self, lr):
        """Use the rate ``lr`` (a number ≥ 0) from the next step on, instead of the schedule."""
        self.optimizer.lr = _check_non_negative("the learning rate", lr)

    def step(self):
        """One training step; returns its history record."""
        X, y = self._batch()
        outputs = model_outputs(self.model, X, self.loss_name)
        loss = self.loss_fn(outputs, y)
        if self.l2:
            loss = loss + _l2_term(self.parameters, self.l2)
        record = {"step": len(self.history) + 1, "loss": loss.data, "lr": self.optimizer.learning_rate()}
        if self.classify:
            record["accuracy"] = _accuracy([_scores(o) for o in outputs], y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.history.append(record)
        return record

    def run(self, steps, on_step=None):
        """Take ``steps`` steps; ``on_step(record)`` is called after each. Returns the last record."""
        record = None
        for _ in range(check_steps(steps)):
            record = self.step()
            if on_step is not None:
                on_step(record)
        return record

    def reset(self, keep_learning_rate=False):
        """Initial parameters, zero gradients, initial optimiser state, same batches, empty history.

        ``keep_learning_rate=True`` keeps the rate set since (a learner trying
        another rate from the same start).
        """
        for p, value in zip(self.parameters, self._initial_parameters):
            p.data = value
            p.grad = 0.0
        lr = self.optimizer.lr
        self.optimizer.load_state_dict(self._initial_optimizer)
        if keep_learning_rate:
            self.optimizer.lr = lr
        self._batches = random.Random(self.seed)
        self.history.clear()

    def summary(self):
        last = f", loss {self.history[-1]['loss']:.4f}" if self.history else ""
        return f"{len(self.parameters)} parameters, {len(self.X)} samples, step {len(self.history)}{last}"

    def __repr__(self):
        return f"<TrainingSession: {self.summary()}>"

    def _batch(self):
        if self.batch_size is None:
            return self.X, self.y
        chosen = self._batches.sample(range(len(self.X)), self.batch_size)
        return [self.X[i] for i in chosen], [self.y[i] for i in chosen]

    def _is_classifier(self, accuracy):
        if accuracy is not None:
            return bool(accuracy)
        if self.loss_name in ("hinge", "cross_entropy"):
            return True
        if self.loss_name in ("mse", "sum_of_squares"):
            return all(t in (1, -1) for t in self.y)
        return False


# The losses that compare one output per sample with its target.
ONE_OUTPUT_LOSSES = ("mse", "sum_of_squares", "hinge")


def model_outputs(model, X, loss_name=None):
    """The model's output for each sample.  For the losses that compare one output with its
    target, a one-element list (from a model whose layers always return lists, as some written
    the lecture's way do) is that one output."""
    outputs = [model(x) for x in X]
    if loss_name in ONE_OUTPUT_LOSSES:
        outputs = [o[0] if isinstance(o, (list, tuple)) and len(o) == 1 else o for o in outputs]
    return outputs


def _scores(output):
    """A model's output for accuracy: the package's Values as they are, a learner's nodes as numbers."""
    if isinstance(output, Value) or not (has_data(output) or isinstance(output, (list, tuple))):
        return output
    if isinstance(output, (list, tuple)):
        return [s.data if has_data(s) and not isinstance(s, Value) else s for s in output]
    return output.data


def check_steps(steps):
    """``steps`` as an int, or a ValueError saying a run needs a positive whole number."""
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
        raise ValueError(f"run needs a positive whole number of steps, got {steps!r}")
    return int(steps)


def _check_data(X, y):
    X, y = list(X), list(y)
    if not X:
        raise ValueError("training needs at least one sample in X")
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} samples but y has {len(y)} targets; give one target per sample")
    X = [list(x) if not isinstance(x, numbers.Real) else [x] for x in X]
    width = len(X[0])
    for i, x in enumerate(X):
        if len(x) != width:
            raise ValueError(f"sample {i} has {len(x)} features but sample 0 has {width}; every sample needs the same number")
    return X, y


def _check_model_fits(model, X, y, loss_name, loss_fn):
    """One forward pass over the data, so a mismatch fails now, clearly, not at the first step."""
    outputs = model_outputs(model, X, loss_name)
    several = isinstance(outputs[0], (list, tuple))
    if loss_name == "cross_entropy" and not several:
        raise ValueError(
            "cross_entropy needs one score per class from the model (e.g. MLP(2, [16, k]) for k classes), "
            "but this model returns a single Value; use loss='hinge' or 'mse' for one output"
        )
    if loss_name in ONE_OUTPUT_LOSSES and several:
        raise ValueError(
            f"{loss_name} compares one output per sample with its target, but the model returns "
            f"{len(outputs[0])} outputs; use loss='cross_entropy' for class scores, or a model with one output"
        )
    try:
        loss = loss_fn(outputs, y)  # the losses check their targets (hinge's ±1, class indices)
    except (AttributeError, TypeError) as error:
        first = outputs[0][0] if several else outputs[0]
        if isinstance(first, Value) or not has_data(first):
            raise
        raise TypeError(
            f"the {loss_name} loss needs an operation your {type(first).__name__} does not have ({error}); "
            "add it to your class, or choose a loss built from the operations it has (sum_of_squares: - and **)"
        ) from None
    if not (isinstance(loss, Value) or (has_data(loss) and callable(getattr(loss, "backward", None)))):
        missing = [what for what, there in [("number in .data", has_data(loss)),
                                            ("backward() method", callable(getattr(loss, "backward", None)))] if not there]
        raise TypeError(
            "the loss function must return a Value, or a node of your class with a number in .data and a "
            f"backward() method (build it from the outputs); got {type(loss).__name__}, which has no "
            f"{' and no '.join(missing)}"
        )


def _check_non_negative(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    return float(value)


def _check_batch_size(batch_size, n):
    if batch_size is None:
        return None
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or not 1 <= batch_size <= n:
        raise ValueError(f"batch_size must be a whole number from 1 to {n} (the number of samples) or None, got {batch_size!r}")
    return int(batch_size)


def _make_optimizer(model, optimizer, lr):
    if optimizer is None:
        if not hasattr(model, "parameters"):
            raise TypeError(f"the model must have parameters() (an nn.Module, or your own MyMLP), got {type(model).__name__}; or pass optimizer=")
        return SGD(model.parameters(), lr=DEFAULT_LR if lr is None else lr)
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"optimizer must be a micrograd.optim Optimizer (SGD, Adam), got {type(optimizer).__name__}")
    if lr is not None:
        optimizer.lr = lr
    return optimizer
