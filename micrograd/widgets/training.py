"""TrainingStepper: step a training loop and watch the loss and the boundary move."""

import numbers
import random
import time

from .. import losses as _losses
from ..engine import Value
from ..metrics import accuracy as _accuracy
from ..optim import SGD, Optimizer
from ._base import Controller, fmt, message_html, widgets
from .plots import TrainingPlot

__all__ = ["TrainingStepper", "LOSSES"]

LOSSES = {
    "mse": _losses.mse,
    "sum_of_squares": _losses.sum_of_squares,
    "hinge": _losses.hinge,
    "cross_entropy": _losses.cross_entropy,
}

# During a run the figure is redrawn at most this often: each redraw sends a
# new image to the browser.
PLOT_INTERVAL_SECONDS = 0.2

# The errors a diverging or ill-posed training step raises (non-finite
# numbers, log of zero, ...): shown in the panel instead of lost in a log.
_TRAINING_ERRORS = (ArithmeticError, ValueError)


class TrainingStepper(Controller):
    """Train ``model`` on ``X, y`` one step at a time, with buttons.

    Each step computes the loss on the data (or on a mini-batch of
    ``batch_size`` samples, drawn by a generator seeded with ``seed``), runs
    backward, and lets the optimiser update the parameters.  ``history``
    holds one dict per step: ``step``, ``loss``, ``lr`` and, for a
    classifier, ``accuracy`` (both measured before the update, on the same
    samples as the loss).

    ``loss`` is ``'mse'``, ``'sum_of_squares'``, ``'hinge'``,
    ``'cross_entropy'`` or a function ``loss(outputs, targets) -> Value``;
    ``l2`` adds ``l2 · Σ p²``.  ``optimizer`` defaults to ``SGD(lr=lr)``.
    ``accuracy`` is reported for hinge and cross-entropy, and for (mean)
    squared error when every target is ±1; pass ``accuracy=True/False`` to
    decide.  A 2-D input gets a decision-boundary plot (``boundary=False``
    turns it off); ``resolution`` is its grid size per side.

    ``reset()`` puts back the initial parameters and optimiser state and
    empties the history; it keeps the learning rate the slider set, so a
    learner can try another rate from the same start.
    """

    def __init__(
        self,
        model,
        X,
        y,
        loss="mse",
        lr=None,
        optimizer=None,
        batch_size=None,
        *,
        l2=0.0,
        accuracy=None,
        seed=0,
        boundary=None,
        resolution=40,
        run_steps=20,
        play_interval=200,
    ):
        self.model = model
        self.X, self.y = _check_data(X, y)
        self.loss_name, self.loss_fn = _check_loss(loss)
        self.l2 = _check_number("l2", l2)
        self.batch_size = _check_batch_size(batch_size, len(self.X))
        self.seed = seed
        self.optimizer = _make_optimizer(model, optimizer, lr)
        self.parameters = list(self.optimizer.parameters)
        self.classify = self._is_classifier(accuracy)
        _check_model_fits(model, self.X, self.y, self.loss_name, self.loss_fn)
        self.history = []
        self.error = None
        # Everything reset() needs to start over exactly.
        self._initial_parameters = [p.data for p in self.parameters]
        self._initial_optimizer = self.optimizer.state_dict()
        self._batches = random.Random(seed)

        dimension = len(self.X[0])
        if boundary is None:
            boundary = dimension == 2
        if boundary and dimension != 2:
            raise ValueError(f"a decision boundary needs 2-D inputs, these have {dimension} features; pass boundary=False")
        self.plot = TrainingPlot(model, self.X, self.y, boundary=boundary, resolution=resolution)
        self._build_widgets(run_steps, play_interval)
        self.redraw()

    # -- the controls ----------------------------------------------------------

    def _build_widgets(self, run_steps, play_interval):
        self.step_button = widgets.Button(description="Step", icon="step-forward", tooltip="one training step")
        self.run_steps = widgets.BoundedIntText(value=run_steps, min=1, max=100_000, description="steps", layout={"width": "150px"})
        self.run_button = widgets.Button(description="Run", icon="forward", tooltip="run that many steps")
        self.reset_button = widgets.Button(description="Reset", icon="undo", tooltip="initial parameters, empty history")
        self.play = widgets.Play(value=0, min=0, max=10**9, interval=play_interval, show_repeat=False, tooltip="play / pause")
        self.progress = widgets.IntProgress(value=0, min=0, max=1, description="run", layout={"width": "260px"})
        lr = self.optimizer.lr
        scheduled = callable(lr)
        start = self.optimizer.learning_rate()
        top = max(1.0, 10 * start) if not scheduled else max(1.0, 2 * start)
        self.lr_slider = widgets.FloatSlider(
            value=start,
            min=0.0,
            max=top,
            step=top / 1000,
            readout_format=".4f",
            description="lr",
            disabled=scheduled,
            tooltip="the learning rate follows a schedule" if scheduled else "learning rate for the next steps",
            continuous_update=False,
        )
        self.status = widgets.HTML()
        self.image = widgets.Image(format="png")

        self.step_button.on_click(lambda _: self._guarded(self.step))
        self.run_button.on_click(lambda _: self._guarded(self.run))
        self.reset_button.on_click(lambda _: self.reset())
        self.lr_slider.observe(self._on_lr, names="value")
        self.play.observe(self._on_play, names="value")

        controls = widgets.HBox([self.step_button, self.run_steps, self.run_button, self.play, self.reset_button])
        self.widget = widgets.VBox([controls, widgets.HBox([self.lr_slider, self.progress]), self.status, self.image])
        self.widget.add_class("micrograd-training-stepper")
        self.status.add_class("micrograd-status")

    def _on_lr(self, change):
        if not self.lr_slider.disabled:
            self.optimizer.lr = change["new"]

    def _on_play(self, change):
        # The Play widget counts up while playing; going back to 0 is its stop
        # button or reset(), which must not train.
        if change["new"] > change["old"]:
            self.tick()

    def _guarded(self, action):
        """Run an action from a button: an error goes to the panel, not to a log."""
        try:
            action()
        except _TRAINING_ERRORS as error:
            self.error = str(error)
            self.play.playing = False
            self._show_status()  # the figure keeps the last good state

    # -- what the buttons do -----------------------------------------------------

    def step(self, redraw=True):
        """One training step; returns its history record."""
        if self.error is not None:
            raise RuntimeError(f"training stopped with an error ({self.error}); call reset() to start over")
        X, y = self._batch()
        outputs = [self.model(x) for x in X]
        loss = self.loss_fn(outputs, y)
        if self.l2:
            loss = loss + _losses.l2(self.parameters, self.l2)
        record = {"step": len(self.history) + 1, "loss": loss.data, "lr": self.optimizer.learning_rate()}
        if self.classify:
            record["accuracy"] = _accuracy(outputs, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.history.append(record)
        if redraw:
            self.redraw()
        return record

    def run(self, steps=None):
        """Run ``steps`` steps (default: the number in the steps box).

        The progress bar and the numbers move every step; the figure is
        redrawn at most five times a second, so a long run costs little
        more than the steps themselves.
        """
        steps = self.run_steps.value if steps is None else steps
        if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
            raise ValueError(f"run needs a positive whole number of steps, got {steps!r}")
        self.progress.max = steps
        self.progress.value = 0
        last_plot = time.monotonic()
        for done in range(1, steps + 1):
            self.step(redraw=False)
            self.progress.value = done
            self._show_status()
            if time.monotonic() - last_plot >= PLOT_INTERVAL_SECONDS:
                self._show_plot()
                last_plot = time.monotonic()
        self._show_plot()

    def tick(self):
        """What one beat of the Play widget does: one step, shown."""
        self._guarded(self.step)

    def reset(self):
        """Initial parameters and optimiser state, empty history; the lr stays."""
        self.play.playing = False
        self.play.value = 0
        for p, value in zip(self.parameters, self._initial_parameters):
            p.data = value
            p.grad = 0.0
        lr = self.optimizer.lr
        self.optimizer.load_state_dict(self._initial_optimizer)
        self.optimizer.lr = lr
        self._batches = random.Random(self.seed)
        self.history.clear()
        self.error = None
        self.progress.value = 0
        self.redraw()

    # -- display -------------------------------------------------------------------

    def redraw(self):
        self._show_status()
        self._show_plot()

    def _show_status(self):
        stopped = self.error is not None
        self.step_button.disabled = self.run_button.disabled = self.play.disabled = stopped
        if callable(self.optimizer.lr):
            self.lr_slider.value = min(self.optimizer.learning_rate(), self.lr_slider.max)
        parts = [f"step <b class='micrograd-step'>{len(self.history)}</b>"]
        if self.history:
            last = self.history[-1]
            parts.append(f"loss <b class='micrograd-loss'>{fmt(last['loss'], 6)}</b>")
            if "accuracy" in last:
                parts.append(f"accuracy <b>{100 * last['accuracy']:.1f}%</b>")
            parts.append(f"lr {fmt(last['lr'])}")
        else:
            parts.append("loss <b class='micrograd-loss'>–</b> (take a step)")
        text = " · ".join(parts)
        if self.error is not None:
            text += message_html(f"Training stopped: {self.error} Press Reset to start over.", kind="error")
        self.status.value = text

    def _show_plot(self):
        self.image.value = self.plot.png(self.history, self.model)

    def summary(self):
        last = f", loss {fmt(self.history[-1]['loss'])}" if self.history else ""
        return f"TrainingStepper: {len(self.parameters)} parameters, {len(self.X)} samples, step {len(self.history)}{last}"

    # -- helpers ---------------------------------------------------------------------

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


def _check_data(X, y):
    X, y = list(X), list(y)
    if not X:
        raise ValueError("TrainingStepper needs at least one sample in X")
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} samples but y has {len(y)} targets; give one target per sample")
    X = [list(x) if not isinstance(x, numbers.Real) else [x] for x in X]
    width = len(X[0])
    for i, x in enumerate(X):
        if len(x) != width:
            raise ValueError(f"sample {i} has {len(x)} features but sample 0 has {width}; every sample needs the same number")
    return X, y


def _check_model_fits(model, X, y, loss_name, loss_fn):
    """One forward pass over the data, so a mismatch fails now, clearly, not at the first click."""
    outputs = [model(x) for x in X]
    several = isinstance(outputs[0], (list, tuple))
    if loss_name == "cross_entropy" and not several:
        raise ValueError(
            "cross_entropy needs one score per class from the model (e.g. MLP(2, [16, k]) for k classes), "
            "but this model returns a single Value; use loss='hinge' or 'mse' for one output"
        )
    if loss_name in ("mse", "sum_of_squares", "hinge") and several:
        raise ValueError(
            f"{loss_name} compares one output per sample with its target, but the model returns "
            f"{len(outputs[0])} outputs; use loss='cross_entropy' for class scores, or a model with one output"
        )
    loss = loss_fn(outputs, y)  # the losses check their targets (hinge's ±1, class indices)
    if not isinstance(loss, Value):
        raise TypeError(f"the loss function must return a Value (build it from the outputs), got {type(loss).__name__}")


def _check_loss(loss):
    if callable(loss):
        return getattr(loss, "__name__", "loss"), loss
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r}; choose one of {', '.join(map(repr, LOSSES))} or pass a function loss(outputs, targets)")
    return loss, LOSSES[loss]


def _check_number(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < 0:
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
            raise TypeError(f"the model must have parameters() (an nn.Module), got {type(model).__name__}; or pass optimizer=")
        return SGD(model.parameters(), lr=0.1 if lr is None else lr)
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"optimizer must be a micrograd.optim Optimizer (SGD, Adam), got {type(optimizer).__name__}")
    if lr is not None:
        optimizer.lr = lr
    return optimizer
