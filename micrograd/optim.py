"""Optimisers: turn the gradients backward() left on parameters into updates."""

import math
import numbers
from operator import attrgetter

from .engine import Value

_data = attrgetter("data")

__all__ = ["Optimizer", "SGD", "Adam", "linear_decay"]


def _is_parameter(p):
    """A learner's node (MyValue, the lecture's Value) is stepped like a Value: data and grad."""
    return isinstance(getattr(p, "data", None), numbers.Real) and hasattr(p, "grad")


def linear_decay(start, end, steps):
    """A schedule from ``start`` to ``end`` over ``steps`` steps, then ``end``.

    ``linear_decay(1.0, 0.1, 100)`` is Karpathy's demo schedule
    ``1.0 - 0.9 * k / 100``.
    """
    if steps <= 0:
        raise ValueError(f"linear_decay needs a positive number of steps, got {steps}")

    def schedule(step):
        return start + (end - start) * min(step, steps) / steps

    return schedule


class Optimizer:
    """Holds the parameters and the learning rate (a number or a schedule)."""

    # Per-parameter lists a subclass keeps (momentum, moments): the part of
    # its state that state_dict() copies besides the step count and lr.
    buffers = ()

    def __init__(self, parameters, lr):
        self.parameters = list(parameters)
        if not self.parameters:
            raise ValueError(f"{type(self).__name__} got no parameters; pass model.parameters()")
        for p in self.parameters:
            if not (isinstance(p, Value) or _is_parameter(p)):
                raise TypeError(
                    f"{type(self).__name__} optimises parameters with a number in .data and a gradient in .grad "
                    f"(a model's parameters(), the package's Values or your own), got {type(p).__name__}"
                )
        self.lr = lr
        self.steps = 0

    @property
    def lr(self):
        return self._lr

    @lr.setter
    def lr(self, lr):
        if not callable(lr) and not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr >= 0):
            raise ValueError(f"lr must be a non-negative number or a function of the step, got {lr!r}")
        self._lr = lr

    def learning_rate(self):
        """The learning rate this step uses (a schedule is asked for it)."""
        return self._lr(self.steps) if callable(self._lr) else self._lr

    def zero_grad(self):
        for p in self.parameters:
            p.grad = 0.0

    def state_dict(self):
        """A copy of everything the optimiser has learnt: step count, lr, buffers.

        ``load_state_dict()`` of it puts the optimiser back exactly there, so a
        run can be restarted from the same point (as in PyTorch).  The
        parameters themselves belong to the model and are not included.
        """
        state = {"steps": self.steps, "lr": self._lr}
        for name in self.buffers:
            state[name] = list(getattr(self, name))
        return state

    def load_state_dict(self, state):
        """Restore what ``state_dict()`` returned (from an optimiser of the same kind)."""
        expected = {"steps", "lr", *self.buffers}
        if not isinstance(state, dict) or set(state) != expected:
            got = sorted(state) if isinstance(state, dict) else type(state).__name__
            raise ValueError(
                f"{type(self).__name__}.load_state_dict takes the dict state_dict() returns, "
                f"with keys {sorted(expected)}; got {got}"
            )
        for name in self.buffers:
            if len(state[name]) != len(self.parameters):
                raise ValueError(
                    f"the state's {name!r} has {len(state[name])} entries but this optimiser has "
                    f"{len(self.parameters)} parameters; load a state saved from the same model"
                )
        self.lr = state["lr"]
        self.steps = state["steps"]
        for name in self.buffers:
            setattr(self, name, [float(x) for x in state[name]])

    def step(self):
        self._update(self.learning_rate())
        self.steps += 1
        # One sum is cheaper than a check per parameter, and any inf or nan makes it non-finite.
        if not math.isfinite(sum(map(_data, self.parameters))):
            self._report_divergence()

    def _report_divergence(self):
        for i, p in enumerate(self.parameters):
            if not math.isfinite(p.data):
                raise OverflowError(
                    f"after step {self.steps}, parameter {i} is {p.data}: training diverged; "
                    "lower the learning rate or check the loss for huge gradients"
                )
        # The parameters are finite, only their sum overflowed: nothing to report.

    def _update(self, lr):
        raise NotImplementedError


class SGD(Optimizer):
    """p ← p − lr · grad, optionally with momentum."""

    buffers = ("velocity",)

    def __init__(self, parameters, lr=0.1, momentum=0.0):
        super().__init__(parameters, lr)
        if not 0.0 <= momentum < 1.0:
            raise ValueError(f"momentum must be in [0, 1), got {momentum}")
        self.momentum = momentum
        self.velocity = [0.0] * len(self.parameters)

    def _update(self, lr):
        if not self.momentum:
            for p in self.parameters:
                p.data -= lr * p.grad
            return
        for i, p in enumerate(self.parameters):
            self.velocity[i] = self.momentum * self.velocity[i] + p.grad
            p.data -= lr * self.velocity[i]


class Adam(Optimizer):
    """Adam: per-parameter steps scaled by running moments of the gradient."""

    buffers = ("m", "v")

    def __init__(self, parameters, lr=0.01, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(parameters, lr)
        beta1, beta2 = betas
        if not (0.0 <= beta1 < 1.0 and 0.0 <= beta2 < 1.0):
            raise ValueError(f"betas must each be in [0, 1), got {betas}")
        self.betas = (beta1, beta2)
        self.eps = eps
        self.weight_decay = weight_decay
        self.m = [0.0] * len(self.parameters)
        self.v = [0.0] * len(self.parameters)

    def _update(self, lr):
        beta1, beta2 = self.betas
        t = self.steps + 1
        # Bias correction: the moments start at zero and would be too small early on.
        correction1 = 1.0 - beta1**t
        correction2 = 1.0 - beta2**t
        m, v, decay, eps, sqrt = self.m, self.v, self.weight_decay, self.eps, math.sqrt  # looked up once, not per parameter
        keep1, keep2 = 1.0 - beta1, 1.0 - beta2
        for i, p in enumerate(self.parameters):
            g = p.grad + decay * p.data if decay else p.grad
            m[i] = m_i = beta1 * m[i] + keep1 * g  # each moment read and written once
            v[i] = v_i = beta2 * v[i] + keep2 * g * g
            m_hat = m_i / correction1
            v_hat = v_i / correction2
            p.data -= lr * m_hat / (sqrt(v_hat) + eps)
