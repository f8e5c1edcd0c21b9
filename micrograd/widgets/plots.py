"""The training stepper's figure: the loss curve and a 2-D decision boundary."""

import io

from .. import palette
from ..engine import Value
from ..nn import MLP, Layer, Neuron
from ._base import require

# Imported by TrainingStepper when it makes its figure, never by ``import micrograd.widgets``.
_FEATURE = "micrograd.widgets.TrainingStepper's figure"
np = require("numpy", _FEATURE)
matplotlib = require("matplotlib", _FEATURE)
matplotlib_figure = require("matplotlib.figure", _FEATURE)
FigureCanvasAgg = require("matplotlib.backends.backend_agg", _FEATURE).FigureCanvasAgg
PIL_Image = require("PIL.Image", _FEATURE)

__all__ = ["grid_outputs", "class_margins", "TrainingPlot", "DENSITY"]


def _sigmoid(z):
    return np.exp(-np.logaddexp(0.0, -z))  # never overflows, unlike 1 / (1 + exp(-z))


_ARRAY_ACTIVATIONS = {
    "relu": lambda z: np.maximum(z, 0.0),
    "tanh": np.tanh,
    "sigmoid": _sigmoid,
    None: lambda z: z,
}


def _mlp_as_arrays(model):
    """An MLP's weights as (W, b, activation) per layer, or None.

    None unless ``model`` computes exactly what ``nn.MLP`` computes (a subclass
    that overrides a forward pass gets no shortcut).
    """
    if type(model).__call__ is not MLP.__call__:
        return None
    layers = []
    for layer in model.layers:
        if type(layer).outputs is not Layer.outputs:
            return None
        activations = {n.activation for n in layer.neurons}
        if len(activations) != 1 or any(type(n).forward is not Neuron.forward for n in layer.neurons):
            return None
        activation = activations.pop()
        if activation not in _ARRAY_ACTIVATIONS:
            return None
        weights = np.array([[w.data for w in n.w] for n in layer.neurons])
        biases = np.array([n.b.data for n in layer.neurons])
        layers.append((weights, biases, _ARRAY_ACTIVATIONS[activation]))
    return layers


def grid_outputs(model, points):
    """The model's outputs at many points, as an array of floats.

    One row per point: shape (n,) for a one-output model, (n, k) for k
    outputs.  An MLP is evaluated with numpy arrays: a 40 × 40 grid through
    Values costs a few hundred milliseconds, far too slow to redraw after
    every training step, while arrays take about a millisecond.  Any other
    model is called point by point.
    """
    points = np.asarray(points, dtype=float)
    layers = _mlp_as_arrays(model)
    if layers is None:
        rows = [model([float(a) for a in p]) for p in points]
        out = np.array([[_data(o) for o in r] if isinstance(r, (list, tuple)) else _data(r) for r in rows])
        return out[:, 0] if out.ndim == 2 and out.shape[1] == 1 else out  # a one-element list is one output
    out = points
    # Far from the data a wild model may overflow; those points are only
    # coloured (inf keeps its sign), so numpy need not warn about them.
    with np.errstate(over="ignore", invalid="ignore"):
        for weights, biases, activation in layers:
            out = activation(out @ weights.T + biases)
    return out[:, 0] if out.shape[1] == 1 else out


def _data(x):
    return x.data if isinstance(x, Value) or hasattr(x, "data") else float(x)  # a learner's MyValue too


def class_margins(outputs):
    """How far inside each class every point is: one row per class, > 0 inside.

    The class with a positive margin is the one ``metrics.predicted_class``
    picks.  One output ``s`` means classes -1 and +1 with margins ``-s`` and
    ``s``; k outputs, class k's margin is its score minus the best other.
    Contouring each margin at 0 draws the boundaries interpolated between
    grid points, instead of following the grid's staircase.
    """
    if outputs.ndim == 1:
        return np.stack([-outputs, outputs])
    return np.stack([outputs[:, k] - np.delete(outputs, k, axis=1).max(axis=1) for k in range(outputs.shape[1])])


# The figure's size on the page, in CSS pixels: a panel each for the loss and
# the decision boundary, together well inside the ~850 px a JupyterLab output
# has at 1280 px with the file browser open.
PANEL_WIDTH_PX = 390
SINGLE_PANEL_WIDTH_PX = 520
HEIGHT_PX = 300
# Pixels per CSS pixel: sharp on a 2× (retina) screen, shown at half size elsewhere.
DENSITY = 2
_CSS_DPI = 96  # CSS pixels per inch, fixed by the CSS standard
# A loss whose largest and smallest values differ this many times gets a log scale.
LOG_SCALE_RATIO = 100.0


class TrainingPlot:
    """One figure: the loss per step, and (for 2-D inputs) the decision boundary.

    Rendered at the size it is shown (``size``, in CSS pixels) at
    ``DENSITY`` pixels per CSS pixel, so the browser never stretches it.
    Drawn the way animations are: the axes, ticks and labels are rendered
    once and kept as a background; a redraw pastes that background and draws
    only what moves (the loss curve, the class regions, the points on top
    of them).  The axes' limits grow in coarse jumps (10, 20, 50, 100, ...
    steps), so the background only needs rendering again now and then.  A
    loss spanning orders of magnitude is drawn on a log scale.
    """

    def __init__(self, model, X, y, boundary=False, resolution=40):
        self.boundary = boundary
        panels = 2 if boundary else 1
        width = PANEL_WIDTH_PX * 2 if boundary else SINGLE_PANEL_WIDTH_PX
        self.size = (width, HEIGHT_PX)
        self.figure = matplotlib_figure.Figure(figsize=(width / _CSS_DPI, HEIGHT_PX / _CSS_DPI), dpi=_CSS_DPI * DENSITY)
        self.canvas = FigureCanvasAgg(self.figure)
        axes = self.figure.subplots(1, panels, squeeze=False)[0]
        self.loss_axes = axes[0]
        self.loss_axes.set_title("loss")
        self.loss_axes.set_xlabel("step")
        self.loss_axes.grid(True, alpha=0.3)
        (self.loss_line,) = self.loss_axes.plot([], [], color=palette.CLASS_COLOURS[1], linewidth=1.5, markersize=3, animated=True)
        self.regions = []
        self.points = None
        if boundary:
            self._setup_boundary(axes[1], model, X, y, resolution)
        self.figure.tight_layout()
        self._limits = None
        self._background = None

    @property
    def log_scale(self):
        """Whether the loss axis is logarithmic (chosen from the losses drawn)."""
        return self.loss_axes.get_yscale() == "log"

    def _setup_boundary(self, axes, model, X, y, resolution):
        X = np.asarray(X, dtype=float)
        low, high = X.min(axis=0), X.max(axis=0)
        margin = np.maximum(0.15 * (high - low), 0.25)
        xs = np.linspace(low[0] - margin[0], high[0] + margin[0], resolution)
        ys = np.linspace(low[1] - margin[1], high[1] + margin[1], resolution)
        self.grid_x, self.grid_y = np.meshgrid(xs, ys)
        self.grid_points = np.column_stack([self.grid_x.ravel(), self.grid_y.ravel()])
        self.boundary_axes = axes
        axes.set_title("decision boundary")
        axes.set_xlim(xs[0], xs[-1])
        axes.set_ylim(ys[0], ys[-1])
        outputs = grid_outputs(model, self.grid_points[:1])
        # One output: its sign is the class, and labels are ±1 (or 0/1);
        # k outputs: the class is the index of the largest, labels are 0..k-1.
        self.classes = 2 if outputs.ndim == 1 else outputs.shape[1]
        colours = [palette.class_colour(i) for i in range(self.classes)]
        if outputs.ndim == 1:
            point_colours = [colours[1] if label > 0 else colours[0] for label in y]
        else:
            point_colours = palette.class_colours(y)
        self.labels = np.array([1 if label > 0 else 0 for label in y]) if outputs.ndim == 1 else np.asarray(y, dtype=int)
        self.data = X
        self.points = axes.scatter(
            X[:, 0], X[:, 1], c=point_colours, s=18, edgecolors="black", linewidths=0.5, animated=True
        )
        self.region_colours = colours

    def describe(self, history, model=None):
        """What the figure shows, in words for its alt text: the loss's course over the steps taken and, with the
        boundary, how many points lie on their own class's side of it (the accuracy the picture shows)."""
        from ._base import fmt

        losses = [record["loss"] for record in history]
        if not losses:
            words = "The loss per step, no step taken yet"
        else:
            trend = "falling" if losses[-1] < losses[0] else "rising" if losses[-1] > losses[0] else "staying"
            words = (f"The loss per step, {trend} from {fmt(losses[0])} to {fmt(losses[-1])} over {len(losses)} "
                     f"step{'s' * (len(losses) != 1)}" if len(losses) > 1 else f"The loss after 1 step, {fmt(losses[0])}")
        if not self.boundary or model is None:
            return words
        predicted = class_margins(grid_outputs(model, self.data)).argmax(axis=0)
        right = int((predicted == self.labels).sum())
        return (f"{words}; beside it the decision boundary, the plane split into the regions of the {self.classes} classes "
                f"under the {len(self.labels)} points: {right} of them ({100 * right / len(self.labels):.1f}%) "
                "on their own class's side")

    def _moving(self):
        return [artist for artist in [*self.regions, self.points, self.loss_line] if artist is not None]

    def update(self, history, model=None):
        """Set the curve (and the model's regions) to show ``history``."""
        steps = [record["step"] for record in history]
        losses = [record["loss"] for record in history]
        self.loss_line.set_data(steps, losses)
        self.loss_line.set_marker("o" if len(steps) < 40 else "")
        self._fit_limits(steps, losses)
        if self.boundary and model is not None:
            self._update_regions(model)

    def png(self, history, model=None):
        """Draw the history (and the model's regions) and return PNG bytes."""
        self.update(history, model)
        if self._background is None:
            self.canvas.draw()  # everything except the animated artists
            self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        self.canvas.restore_region(self._background)
        for artist in self._moving():
            self.figure.draw_artist(artist)
        return rgba_png(self.canvas.buffer_rgba())

    def svg(self, history, model=None):
        """The same picture as SVG text, the same in every run (for a notebook's stored output)."""
        self.update(history, model)
        moving = self._moving()
        for artist in moving:
            artist.set_animated(False)  # a full render skips animated artists
        out = io.StringIO()
        try:
            # A fixed salt makes the ids of clip paths repeatable; text stays
            # text, so the picture does not depend on the fonts installed.
            with matplotlib.rc_context({"svg.hashsalt": "micrograd", "svg.fonttype": "none"}):
                self.figure.savefig(out, format="svg", dpi=_CSS_DPI, metadata={"Date": None, "Creator": None})
        finally:
            for artist in moving:
                artist.set_animated(True)
            self._background = None  # savefig re-rendered the canvas
        text = out.getvalue()
        return text[text.index("<svg") :]

    def _fit_limits(self, steps, losses):
        if losses:
            last = _round_up(steps[-1])
            positive = [x for x in losses if x > 0 and np.isfinite(x)]
            log = len(positive) == len(losses) and max(positive) >= LOG_SCALE_RATIO * min(positive)
            if log:
                # Whole decades, so the limits change rarely as the loss falls.
                bottom = 10.0 ** np.floor(np.log10(min(positive)))
                top = 10.0 ** np.ceil(np.log10(max(positive)))
            else:
                bottom = min(0.0, min(losses))
                top = max(losses)
                if self._limits is not None and not self._limits[3] and self._limits[0] >= last and self._limits[1] <= bottom and self._limits[2] >= top:
                    return  # everything still fits: the background stays valid
                top = top * 1.15 if top > 0 else 1.0
            limits = (last, bottom, top, log)
        else:
            limits = (10, 0.0, 1.0, False)
        if limits != self._limits:
            self._limits = limits
            self.loss_axes.set_yscale("log" if limits[3] else "linear")
            self.loss_axes.set_ylabel("loss (log scale)" if limits[3] else "loss")
            self.loss_axes.set_xlim(0, limits[0] * 1.03)  # room for the last point's marker
            self.loss_axes.set_ylim(limits[1], limits[2])
            self._background = None

    def _update_regions(self, model):
        margins = class_margins(grid_outputs(model, self.grid_points))
        for region in self.regions:
            region.remove()
        # Clipped so that a huge score does not matter, only where it crosses 0.
        self.regions = [
            self.boundary_axes.contourf(
                self.grid_x,
                self.grid_y,
                np.clip(margin, -1.0, 1.0).reshape(self.grid_x.shape),
                levels=[0.0, 1.5],
                colors=[colour],
                alpha=0.3,
                animated=True,
            )
            for margin, colour in zip(margins, self.region_colours)
        ]


def _round_up(steps):
    """The x-axis end for ``steps`` steps: 10, 20, 50, 100, 200, 500, ..."""
    scale = 10
    while True:
        for factor in (1, 2, 5):
            if steps <= factor * scale:
                return factor * scale
        scale *= 10


def rgba_png(buffer):
    """An RGBA pixel buffer (a canvas's) as PNG bytes."""
    pixels = np.asarray(buffer)[..., :3]  # the figure is opaque: alpha adds nothing
    out = io.BytesIO()
    PIL_Image.fromarray(pixels).save(out, format="png", compress_level=1)
    return out.getvalue()
