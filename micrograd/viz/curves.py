"""A training loss curve: each step's loss faint, its moving average bold, a baseline to beat.

    from micrograd.viz import loss_curve
    loss_curve(losses, vocab_size=27)

A loss on one name per step jumps about (a long name and a short one differ
more than two steps do); the exponential moving average shows the trend.  A
model that gives every one of ``vocab_size`` tokens the same probability has
a cross-entropy of ln(vocab_size): the dashed line a trained model must go below.
"""

import math
from numbers import Real

from .. import palette
from .labels import format_number
from .picture import Picture, drawn_or_noted, new_figure, style

__all__ = ["loss_curve", "smoothed", "DEFAULT_SMOOTHING"]

DEFAULT_SMOOTHING = 0.95
WIDTH_PX, HEIGHT_PX = 600, 300
_BASELINE_COLOUR = palette.BASELINE_COLOUR


def smoothed(values, smoothing=DEFAULT_SMOOTHING):
    """The exponential moving average of ``values``, bias-corrected, one number per value.

    ``average = smoothing * average + (1 - smoothing) * value``, started at 0 and divided by
    ``1 - smoothing ** k`` after k values, so the first points are not pulled towards 0 (the
    first average is the first value).  ``smoothing=0`` gives the values back.
    """
    if isinstance(smoothing, bool) or not isinstance(smoothing, Real) or not 0 <= smoothing < 1:
        raise ValueError(f"smoothing is the weight of the past in the moving average, 0 ≤ smoothing < 1, got {smoothing!r}")
    average, out = 0.0, []
    for k, value in enumerate(values, start=1):
        average = smoothing * average + (1 - smoothing) * value
        out.append(average / (1 - smoothing**k))
    return out


def _losses(losses):
    out = []
    for k, loss in enumerate(losses):
        loss = getattr(loss, "data", loss)  # a Value gives its number
        if isinstance(loss, dict):  # a training history record
            loss = loss.get("loss")
        if isinstance(loss, bool) or not isinstance(loss, Real) or not math.isfinite(loss):
            raise ValueError(f"loss_curve takes one finite loss per step; step {k} has {loss!r}")
        out.append(float(loss))
    if not out:
        raise ValueError("loss_curve needs at least one step's loss, got none")
    return out


@drawn_or_noted
def loss_curve(losses, vocab_size=None, *, smoothing=DEFAULT_SMOOTHING, title="Training loss", precision=4):
    """A :class:`~micrograd.viz.Picture` of the loss per training step.

    ``losses``: one number per step (or Values, or ``{"loss": ...}`` history records), step 1
    first.  Each step's loss is drawn faint, its moving average (``smoothed``, weight
    ``smoothing`` on the past) bold.  ``vocab_size``: draws the dashed line at ln(vocab_size),
    the loss of a model that finds every token equally likely.  600 × 300 CSS px.
    """
    losses = _losses(losses)
    average = smoothed(losses, smoothing)
    steps = list(range(1, len(losses) + 1))
    colour = palette.CLASS_COLOURS[1]
    with style():
        figure = new_figure(WIDTH_PX, HEIGHT_PX)
        axes = figure.add_axes([0.1, 0.16, 0.86, 0.74])
        axes.plot(steps, losses, color=colour, alpha=0.3, linewidth=0.8, label="loss of each step")
        axes.plot(steps, average, color=colour, linewidth=2.2, label=f"moving average ({smoothing:g} on the past)")
        baseline = None
        if vocab_size is not None:
            if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 2:
                raise ValueError(f"vocab_size is how many tokens the model chooses from (a whole number ≥ 2), got {vocab_size!r}")
            baseline = math.log(vocab_size)
            axes.axhline(baseline, color=_BASELINE_COLOUR, linestyle="--", linewidth=1.2)
            axes.annotate(
                f"ln {vocab_size} = {baseline:.2f}: every token equally likely",
                xy=(1.0, baseline), xycoords=("axes fraction", "data"), xytext=(-4, 4), textcoords="offset points",
                ha="right", va="bottom", color=_BASELINE_COLOUR,
            )
        top = max(max(losses), baseline or 0.0)
        axes.set_ylim(min(0.0, min(losses)), top * 1.08 if top > 0 else 1.0)
        axes.set_xlim(0, max(len(losses), 2) + 0.5)
        axes.set_xlabel("step")
        axes.set_ylabel("loss")
        axes.set_title(title, loc="left")
        axes.grid(True, alpha=0.3)
        axes.legend(loc="lower left", frameon=False)
        for side in ("top", "right"):
            axes.spines[side].set_visible(False)
    fmt = lambda x: format_number(x, precision)  # noqa: E731
    # The first line is the picture's alt text: what the chart shows, not only its title.
    trend = "falling" if average[-1] < average[0] else "rising" if average[-1] > average[0] else "staying"
    shows = (
        f"{title}, a line chart of {len(losses)} step{'s' * (len(losses) != 1)}: each step's loss faint, "
        f"its moving average bold, {trend} from {fmt(average[0])} to {fmt(average[-1])}"
    )
    if baseline is not None:
        side = "below" if average[-1] < baseline else "on" if average[-1] == baseline else "above"
        shows += f", {side} the dashed line at ln {vocab_size} = {baseline:.2f}, where every token is equally likely"
    lines = [
        shows,
        f"moving average with {smoothing:g} on the past; first step {fmt(losses[0])}, last step {fmt(losses[-1])}, "
        f"moving average at the end {fmt(average[-1])}, lowest moving average {fmt(min(average))}",
    ]
    if baseline is not None:
        lines.append(f"ln {vocab_size} = {fmt(baseline)} (every token equally likely)")
    return Picture(figure, "\n".join(lines))
