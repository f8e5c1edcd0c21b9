"""ExpressionExplorer: sliders for an expression's inputs, live value and gradients."""

import html
import inspect
import math
import numbers

from ..engine import Value
from ..gradcheck import central_difference
from ..graphs import class_name, is_node, read_graph
from ._base import Controller, fmt, graph_html, graph_widget, message_html, static_html, widgets
from .accessible import page_support
from .drawing import draw, drawing_options

__all__ = ["ExpressionExplorer"]

# What an expression may raise for some inputs (log of a negative number,
# division by zero, overflow): the panel says so instead of failing.
_EXPRESSION_ERRORS = (ArithmeticError, ValueError)


class ExpressionExplorer(Controller):
    """Move an input, watch the output and every gradient change.

    ``fn`` takes one Value per input and returns a Value; its parameter
    names label the sliders.  Start values come from keyword arguments, then
    from ``fn``'s defaults, else 1.0.  Each slider spans ``limits`` in steps
    of ``step``; a start value outside them gets a range of the same width
    around it, so no slider starts pinned at one end.

        ExpressionExplorer(lambda a, b: a * b + a.tanh(), a=0.5, b=-2.0)

    Next to each gradient the panel shows the slope measured by nudging that
    input (a central difference), so a derivative can be seen as "nudge the
    input, watch the output".  The panel and the drawing use the labels
    ``fn`` gives its Values (``e = a * b; e.label = "e"``), the output's
    included.  ``draw_options`` (a ``micrograd.viz.DrawOptions`` or a dict of
    ``draw_dot`` keywords) chooses how the graph is drawn; ``show_graph=False``
    leaves the drawing out.

    ``value_type`` is the class the inputs are made of: the package's
    ``Value`` unless given, or your own, e.g. ``value_type=MyValue`` (made as
    ``MyValue(x, label=name)``, or ``MyValue(x)`` with ``.label`` set after).
    Its gradients come from the output's ``backward()``, or, for a class
    without one, from each node's own ``_backward()``, output first.
    """

    def __init__(self, fn, *, limits=(-5.0, 5.0), step=0.01, show_graph=True, draw_options=None, value_type=Value, **values):
        if not isinstance(value_type, type):
            raise TypeError(f"value_type is the class the inputs are made of, e.g. value_type=MyValue; got {class_name(value_type)}")
        self.value_type = value_type
        if is_node(fn):
            raise TypeError(
                "ExpressionExplorer needs the expression as a function of its inputs, so it can "
                "recompute it when a slider moves: e.g. ExpressionExplorer(lambda a, b: a * b, a=2.0, b=-3.0)"
            )
        if not callable(fn):
            raise TypeError(f"ExpressionExplorer takes a function of Values, got {type(fn).__name__}")
        self.fn = fn
        self.names = _input_names(fn)
        unknown = set(values) - set(self.names)
        if unknown:
            raise TypeError(
                f"{', '.join(sorted(unknown))} {'is not an input' if len(unknown) == 1 else 'are not inputs'} "
                f"of the function; its inputs are {', '.join(self.names)}"
            )
        try:
            low, high = (float(x) for x in limits)
        except (TypeError, ValueError):
            low = high = None
        if low is None or not low < high or not step > 0:
            raise ValueError(f"limits must be (low, high) with low < high and step positive, got limits={limits!r}, step={step!r}")
        self.show_graph = show_graph
        self.options = drawing_options(draw_options, {})
        self.output = None
        self.leaves = {}
        self.gradients = {}
        self.slopes = {}
        self.error = None

        self.sliders = {}
        for name in self.names:
            start = _start_value(name, values, fn)
            self.sliders[name] = widgets.FloatSlider(
                value=start,
                min=min(low, start - (high - low) / 2),
                max=max(high, start + (high - low) / 2),
                step=step,
                description=name,
                readout_format=".3f",
                continuous_update=True,
            )
            self.sliders[name].observe(lambda _: self.update(), names="value")
        self.panel = widgets.HTML()
        self.graph = graph_widget()
        self.widget = widgets.VBox([widgets.VBox(list(self.sliders.values())), self.panel, self.graph, page_support()])
        self.widget.add_class("micrograd-expression-explorer")
        self.panel.add_class("micrograd-panel")
        self.update()

    @property
    def values(self):
        """The sliders' values, by input name."""
        return {name: slider.value for name, slider in self.sliders.items()}

    def set(self, **values):
        """Move sliders by name (each move recomputes, as in the notebook)."""
        for name, value in values.items():
            if name not in self.sliders:
                raise TypeError(f"{name!r} is not an input; the inputs are {', '.join(self.names)}")
            self.sliders[name].value = value

    def update(self):
        """Recompute the expression, its gradients and the drawing."""
        values = self.values
        self.leaves = {name: self._leaf(x, name) for name, x in values.items()}
        try:
            output = self.fn(*self.leaves.values())
            if not is_node(output):
                raise TypeError(
                    f"the function must return a node built from its inputs (a {self.value_type.__name__}), "
                    f"got {class_name(output)}"
                )
            if not getattr(output, "label", ""):
                output.label = "out"  # the panel's name for it; the node is new on every update
            _backward_pass(output)
        except _EXPRESSION_ERRORS as error:
            self.output, self.gradients, self.slopes, self.error = None, {}, {}, str(error)
        else:
            self.output, self.error = output, None
            self.gradients = {name: leaf.grad for name, leaf in self.leaves.items()}
            self.slopes = self._measured_slopes(list(values.values()))
        self.panel.value = self._panel_html()
        if self.show_graph:
            self.graph.value = self._graph_html()

    def _leaf(self, x, name):
        try:
            return self.value_type(x, label=name)
        except TypeError:  # a class without a label argument, as micrograd 0.1.0's
            leaf = self.value_type(x)
            leaf.label = name
            return leaf

    def _graph_html(self):
        if self.output is None:
            return ""
        drawing = draw(self.output, self.options)
        if self.options.rankdir == "auto":  # chosen once: the drawing keeps its shape as sliders move
            self.options = self.options.replace(rankdir=drawing.rankdir)
        return graph_html(drawing)

    def _measured_slopes(self, point):
        """{name: slope by central differences}, None where a nudge leaves the domain."""
        def output_at(i, xi):
            moved = point[:i] + [xi] + point[i + 1 :]
            return float(self.fn(*(self._leaf(x, name) for x, name in zip(moved, self.names))).data)

        try:
            return {name: central_difference(lambda xi, i=i: output_at(i, xi), point[i], 1e-6) for i, name in enumerate(self.names)}
        except _EXPRESSION_ERRORS:  # e.g. log(x) with x a hair above zero
            return dict.fromkeys(self.names)

    def _panel_html(self):
        if self.error is not None:
            return message_html(f"At these inputs the expression cannot be computed: {self.error}", kind="error")
        out = html.escape(self.output.label)
        rows = "".join(
            f"<tr><td style='padding-right:1.5em'><code>∂{out}/∂{html.escape(name)}</code></td><td><code>{fmt(self.gradients[name])}</code></td>"
            f"<td><code>{'–' if self.slopes[name] is None else fmt(self.slopes[name])}</code></td></tr>"
            for name in self.names
        )
        return (
            f"<div>{out} = <b class='micrograd-output'>{fmt(self.output.data)}</b></div>"
            "<table style='line-height:1.5'><tr><th></th><th style='padding-right:1.5em'>backward()</th><th>nudge the input</th></tr>"
            f"{rows}</table>"
        )

    def static_html(self):
        inputs = " ".join(f"{html.escape(name)} = {fmt(x, 3)}" for name, x in self.values.items())
        graph = self.graph.value if self.show_graph else ""  # as drawn, not drawn again
        return static_html(f"<div><code>{inputs}</code></div>{self.panel.value}{graph}")

    def summary(self):
        inputs = ", ".join(f"{name}={fmt(x, 3)}" for name, x in self.values.items())
        result = self.error if self.output is None else f"{self.output.label} = {fmt(self.output.data)}"
        return f"ExpressionExplorer({inputs}): {result}"


def _input_names(fn):
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        raise TypeError("ExpressionExplorer needs a Python function whose parameters name the inputs") from None
    names = []
    for p in parameters:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise TypeError(
                f"ExpressionExplorer gives one slider per named input, so the function cannot take "
                f"{'*' if p.kind == p.VAR_POSITIONAL else '**' if p.kind == p.VAR_KEYWORD else ''}{p.name} "
                "as a parameter; name each input, e.g. lambda a, b: a * b"
            )
        names.append(p.name)
    if not names:
        raise TypeError("the function has no inputs to put on sliders; give it parameters, e.g. lambda a, b: a * b")
    return names


def _start_value(name, values, fn):
    if name in values:
        value = values[name]
    else:
        default = inspect.signature(fn).parameters[name].default
        value = 1.0 if default is inspect.Parameter.empty else default
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"the start value of {name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"the start value of {name} must be a finite number, got {value!r}")
    return float(value)


def _backward_pass(output):
    """Gradients of every node below output: its own backward(), or each node's _backward()."""
    if callable(getattr(output, "backward", None)):
        output.backward()
        return
    view = read_graph(output, "ExpressionExplorer")
    from ..engine import topological_order

    output.grad = 1.0
    for node in reversed(topological_order(view.root)):
        step = getattr(view.original(node), "_backward", None)
        if callable(step):
            step()
