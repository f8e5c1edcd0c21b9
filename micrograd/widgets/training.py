"""TrainingStepper: step a training loop and watch the loss and the boundary move."""

import math
import time

from ..losses import LOSSES
from ..training import TrainingSession, check_steps
from ._base import Controller, fmt, message_html, require, static_html, widgets
from .accessible import LiveRegion, page_support

__all__ = ["TrainingStepper", "LOSSES", "format_lr"]

# During a run the figure is redrawn at most this often: each redraw sends a
# new image to the browser.
PLOT_INTERVAL_SECONDS = 0.2

# The errors a diverging or ill-posed training step raises (non-finite
# numbers, log of zero, ...): shown in the panel instead of lost in a log.
_TRAINING_ERRORS = (ArithmeticError, ValueError)

# The slider's readout and the status line show the learning rate alike.
LR_DECIMALS = 4


def format_lr(lr):
    """A learning rate as the slider's readout and the status line both show it."""
    return f"{lr:.{LR_DECIMALS}f}"


class _NamedImage(widgets.Image):
    """ipywidgets' Image with a name for a screen reader: its tooltip, as the img's title.

    Image takes no alt text, and its view puts the tooltip in the title only when the model's
    description is empty, a trait Image lacks (without it the view fails to draw at all).
    """

    description = require("traitlets").Unicode("").tag(sync=True)


def _figure(model, X, y, boundary, resolution):
    """``(figure, None)``, or ``(None, the one line said in its place)`` where what it needs is missing.

    The figure needs numpy, matplotlib and pillow, imported here so that the other widgets import
    without them, and so that the stepper steps without them: the course in the browser has none
    of the three, and its line there is the one its figure cells print.
    """
    try:
        from .plots import TrainingPlot
    except ImportError as missing:
        from ..viz import note_in_place_of

        return None, note_in_place_of(missing)
    return TrainingPlot(model, X, y, boundary=boundary, resolution=resolution), None


class TrainingStepper(Controller):
    """Buttons, a learning-rate slider and a figure over a :class:`~micrograd.training.TrainingSession`.

    ``TrainingStepper(model, X, y, loss=..., lr=..., ...)`` makes the session
    from the same arguments as ``TrainingSession``; ``TrainingStepper(session)``
    shows one made before.  Each Step runs ``session.step()``; the status
    line shows the step, loss, accuracy and the learning rate the next step
    will use (the slider's value, in the same format).  A 2-D input gets a
    decision-boundary plot (``boundary=False`` turns it off); ``resolution``
    is its grid size per side.  Where numpy or matplotlib is missing (the
    course in the browser), the stepper steps all the same, with one line in
    place of its figure (``figure_note``) saying what it needs and where to see it.

    ``reset()`` puts back the initial parameters and optimiser state and
    empties the history; it keeps the learning rate the slider set, so a
    learner can try another rate from the same start.
    """

    def __init__(
        self,
        model,
        X=None,
        y=None,
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
        if isinstance(model, TrainingSession):
            if X is not None or y is not None or optimizer is not None or lr is not None:
                raise TypeError("TrainingStepper(session) shows a session as it is; give its data and optimiser to TrainingSession")
            self.session = model
        else:
            if X is None or y is None:
                raise TypeError("TrainingStepper needs the data: TrainingStepper(model, X, y, ...), or TrainingStepper(session)")
            self.session = TrainingSession(
                model, X, y, loss, lr, optimizer, batch_size, l2=l2, accuracy=accuracy, seed=seed
            )
        self.error = None
        dimension = len(self.X[0])
        if boundary is None:
            boundary = dimension == 2
        if boundary and dimension != 2:
            raise ValueError(f"a decision boundary needs 2-D inputs, these have {dimension} features; pass boundary=False")
        self.plot, self.figure_note = _figure(self.model, self.X, self.y, boundary, resolution)
        self._build_widgets(run_steps, play_interval)
        self.redraw()

    # The session's state, under the names the stepper always had.
    model = property(lambda self: self.session.model)
    X = property(lambda self: self.session.X)
    y = property(lambda self: self.session.y)
    history = property(lambda self: self.session.history)
    optimizer = property(lambda self: self.session.optimizer)
    parameters = property(lambda self: self.session.parameters)
    classify = property(lambda self: self.session.classify)

    # -- the controls ----------------------------------------------------------

    def _build_widgets(self, run_steps, play_interval):
        button = {"width": "100px"}  # room for the icon and the word, no more
        self.step_button = widgets.Button(description="Step", tooltip="one training step", layout=button)
        self.run_steps = widgets.BoundedIntText(value=run_steps, min=1, max=100_000, description="steps", layout={"width": "150px"})
        self.run_button = widgets.Button(description="Run", tooltip="run that many steps", layout=button)
        self.reset_button = widgets.Button(description="Reset", tooltip="initial parameters, empty history", layout=button)
        self.play = widgets.Play(value=0, min=0, max=10**9, interval=play_interval, show_repeat=False, tooltip="play / pause")
        self.progress = widgets.IntProgress(value=0, min=0, max=1, description="run", layout={"width": "260px"})
        scheduled = self.session.scheduled
        start = self.session.learning_rate
        top = max(1.0, 2 * start) if scheduled else max(1.0, 10 * start)
        self.lr_slider = widgets.FloatSlider(
            value=start,
            min=0.0,
            max=top,
            # A step that is a whole number of the readout's last decimals.
            step=10.0 ** (math.floor(math.log10(top)) - 3),
            readout_format=f".{LR_DECIMALS}f",
            description="lr",
            disabled=scheduled,
            tooltip="the learning rate follows a schedule" if scheduled else "learning rate for the next steps",
            continuous_update=False,
            layout={"width": "340px"},
        )
        self.status = widgets.HTML()
        if self.plot is None:  # the figure's one line, where the figure would be
            self.image = widgets.HTML(message_html(self.figure_note))
            self.image.add_class("micrograd-figure-note")
        else:
            width, height = self.plot.size
            # Shown at the size it was drawn for: the PNG has DENSITY times the pixels.
            self.image = _NamedImage(format="png", layout={"width": f"{width}px", "height": f"{height}px"},
                                     tooltip="the loss per step and the decision boundary")

        # What a screen reader says: a step, or a run summed up when it ends or pauses, never each step of a run.
        self.live = LiveRegion()
        self._played_from = None  # the step a Play started at, while it plays
        self.step_button.on_click(lambda _: self._guarded(self.step))
        self.run_button.on_click(lambda _: self._guarded(self.run))
        self.reset_button.on_click(lambda _: self.reset())
        self.lr_slider.observe(self._on_lr, names="value")
        self.play.observe(self._on_play, names="value")
        self.play.observe(self._on_playing, names="playing")

        controls = widgets.HBox([self.step_button, self.run_steps, self.run_button, self.play, self.reset_button])
        self.widget = widgets.VBox([controls, widgets.HBox([self.lr_slider, self.progress]), self.status, self.live.widget, self.image, page_support()])
        self.widget.add_class("micrograd-training-stepper")
        self.status.add_class("micrograd-status")

    def _on_lr(self, change):
        if not self.lr_slider.disabled:
            self.session.set_learning_rate(change["new"])
            self._show_status()

    def _on_play(self, change):
        # The Play widget counts up while playing; going back to 0 is its stop
        # button or reset(), which must not train.
        if change["new"] > change["old"]:
            self.tick()

    def _on_playing(self, change):
        if change["new"]:
            self._played_from = len(self.history)
        elif self._played_from is not None:
            self._say_run("Played", len(self.history) - self._played_from)
            self._played_from = None

    def _guarded(self, action):
        """Run an action from a button: an error goes to the panel, not to a log."""
        try:
            action()
        except _TRAINING_ERRORS as error:
            self.error = str(error)
            self.play.playing = False
            self._show_status()  # the figure keeps the last good state
            self.live.say(f"Training stopped: {self.error} Press Reset to start over.")
            # Step, Run and Play are disabled now, the one pressed with them: the focus goes to the way on.
            self.reset_button.focus()

    # -- what the buttons do -----------------------------------------------------

    def _check_running(self):
        if self.error is not None:
            raise RuntimeError(f"training stopped with an error ({self.error}); call reset() to start over")

    def step(self, redraw=True):
        """One training step; returns its history record."""
        self._check_running()
        record = self.session.step()
        if redraw:
            self.redraw()
            if not self.play.playing:  # a Play is summed up when it pauses
                self.live.say(f"Step {len(self.history)}: {self._numbers()}.")
        return record

    def run(self, steps=None):
        """Run ``steps`` steps (default: the number in the steps box).

        The progress bar and the numbers move every step; the figure is
        redrawn at most five times a second, so a long run costs little
        more than the steps themselves.
        """
        steps = check_steps(self.run_steps.value if steps is None else steps)
        self._check_running()
        last_plot = time.monotonic()

        def show(record):
            nonlocal last_plot
            self.progress.value += 1
            self._show_status()
            if time.monotonic() - last_plot >= PLOT_INTERVAL_SECONDS:
                self._show_plot()
                last_plot = time.monotonic()

        self.progress.max = steps
        self.progress.value = 0
        self.session.run(steps, on_step=show)
        self._show_plot()
        self._say_run("Ran", steps)

    def tick(self):
        """What one beat of the Play widget does: one step, shown."""
        self._guarded(self.step)

    def reset(self):
        """Initial parameters and optimiser state, empty history; the lr stays."""
        self.play.playing = False
        self.play.value = 0
        self.session.reset(keep_learning_rate=True)
        self.error = None
        self.progress.value = 0
        self.redraw()
        self.live.say(f"Reset: step 0, the initial parameters; the learning rate stays {format_lr(self.session.learning_rate)}.")

    # -- display -------------------------------------------------------------------

    def redraw(self):
        self._show_status()
        self._show_plot()

    def _show_status(self):
        stopped = self.error is not None
        self.step_button.disabled = self.run_button.disabled = self.play.disabled = stopped
        lr = self.session.learning_rate
        if self.session.scheduled:
            self.lr_slider.value = min(lr, self.lr_slider.max)
        self.status.value = self._status_html()

    def _numbers(self):
        """The last step's loss and accuracy, in words."""
        last = self.history[-1]
        accuracy = f", accuracy {100 * last['accuracy']:.1f}%" if "accuracy" in last else ""
        return f"loss {fmt(last['loss'], 6)}{accuracy}"

    def _say_run(self, verb, steps):
        """A run of ``steps`` steps summed up, once, where it ended."""
        if steps > 0:
            start = self.history[-steps - 1]["loss"] if len(self.history) > steps else None
            came = "" if start is None else f" (from {fmt(start, 6)})"
            self.live.say(f"{verb} {steps} step{'s' * (steps != 1)}, to step {len(self.history)}: {self._numbers()}{came}.")

    def _status_html(self):
        parts = [f"step <b class='micrograd-step'>{len(self.history)}</b>"]
        if self.history:
            last = self.history[-1]
            parts.append(f"loss <b class='micrograd-loss'>{fmt(last['loss'], 6)}</b>")
            if "accuracy" in last:
                parts.append(f"accuracy <b>{100 * last['accuracy']:.1f}%</b>")
        else:
            parts.append("loss <b class='micrograd-loss'>–</b> (take a step)")
        # The rate the next step uses: the number the slider shows.
        parts.append(f"lr <span class='micrograd-lr'>{format_lr(self.session.learning_rate)}</span>")
        text = " · ".join(parts)
        if self.error is not None:
            text += message_html(f"Training stopped: {self.error} Press Reset to start over.", kind="error")
        return text

    def _show_plot(self):
        if self.plot is not None:
            self.image.value = self.plot.png(self.history, self.model)
            self.image.tooltip = self.plot.describe(self.history, self.model)

    def static_html(self):
        from ..viz import svg_image

        if self.plot is None:
            return static_html(f"<div>{self._status_html()}</div>{message_html(self.figure_note)}")
        # An image, not inline SVG: JupyterLab strips inline SVG from a lesson opened and not yet run.
        figure = svg_image(self.plot.svg(self.history, self.model), alt=self.plot.describe(self.history, self.model))
        return static_html(f"<div>{self._status_html()}</div>{figure}")

    def summary(self):
        return f"TrainingStepper: {self.session.summary()}"
