"""BackpropStepper: run backpropagation one node per click."""

import html

from ..engine import Value, topological_order
from ._base import Controller, fmt, graph_html, graph_widget, message_html, static_html, widgets
from .drawing import draw, drawing_options, node_names

__all__ = ["BackpropStepper"]


class BackpropStepper(Controller):
    """Backpropagation through ``root``'s graph, one node at a time.

    Each step takes the next node in reverse topological order and performs
    its chain-rule updates, ``input.grad += local × node.grad``; the drawing
    highlights that node and its edges, and the panel lists the updates with
    their numbers.  The first step also seeds ``root.grad = 1``.

    The stepper owns the graph's gradients while it runs: it starts with
    every gradient at zero, leaves included (``backward()`` would add into
    the leaves' existing gradients), so after ``finish()`` every gradient
    equals what ``root.backward()`` gives on freshly zeroed leaves.
    ``reset()`` sets every gradient back to zero.

    ``options`` (a ``micrograd.viz.DrawOptions``) and keyword arguments
    choose how the graph is drawn, as for ``draw_dot``; local derivatives
    are shown on the edges unless ``show_local_grads=False``.  The layout is
    chosen once, from the first drawing, so the graph does not jump about
    between steps: left to right when that fits the page, else upright with
    the output on top, where the backward pass starts.
    """

    def __init__(self, root, options=None, **changes):
        if not isinstance(root, Value):
            raise TypeError(f"BackpropStepper takes the output Value of a computation, got {type(root).__name__}")
        self.root = root
        self.nodes = topological_order(root)
        self.options = drawing_options(options, changes, show_local_grads=True)
        self.names = node_names(self.nodes, self.options.parameters)
        # Only nodes with inputs have chain-rule work to do; a lone leaf still
        # gets one step, the seed.
        self.schedule = [node for node in reversed(self.nodes) if node.inputs] or [root]
        self._undo = []  # per step taken: ([(node, grad before), ...], its updates)
        self.updates = []  # the updates of the last step, for the panel
        self._build_widgets()
        self.reset()

    @property
    def position(self):
        """How many nodes have been processed (0 to ``len(schedule)``)."""
        return len(self._undo)

    @property
    def done(self):
        return self.position == len(self.schedule)

    @property
    def current(self):
        """The node the last step processed, or None before the first step."""
        return self.schedule[self.position - 1] if self.position else None

    def _build_widgets(self):
        self.step_button = widgets.Button(description="Step", icon="step-forward", tooltip="process the next node")
        self.back_button = widgets.Button(description="Back", icon="step-backward", tooltip="undo the last node")
        self.run_button = widgets.Button(description="To the end", icon="fast-forward", tooltip="finish the backward pass")
        self.reset_button = widgets.Button(description="Reset", icon="undo", tooltip="all gradients back to zero")
        self.panel = widgets.HTML()
        self.graph = graph_widget()
        self.step_button.on_click(lambda _: self.step())
        self.back_button.on_click(lambda _: self.back())
        self.run_button.on_click(lambda _: self.finish())
        self.reset_button.on_click(lambda _: self.reset())
        buttons = widgets.HBox([self.step_button, self.back_button, self.run_button, self.reset_button])
        self.widget = widgets.VBox([buttons, self.panel, self.graph])
        self.widget.add_class("micrograd-backprop-stepper")
        self.panel.add_class("micrograd-panel")

    # -- what the buttons do -------------------------------------------------------

    def step(self, redraw=True):
        """Process the next node: its inputs' gradients grow by local × upstream."""
        if self.done:
            return
        node = self.schedule[self.position]
        saved = []
        updates = []
        if self.position == 0:
            saved.append((self.root, self.root.grad))
            self.root.grad = 1.0
        upstream = node.grad
        for child, local in zip(node.inputs, node.local_grads):
            saved.append((child, child.grad))
            before = child.grad
            child.grad += local * upstream  # the chain rule, as backward() does it
            updates.append((child, local, upstream, before, child.grad))
        self._undo.append((saved, updates))
        self.updates = updates
        if redraw:
            self.redraw()

    def back(self):
        """Undo the last step exactly: the gradients it changed get their old values."""
        if not self._undo:
            return
        saved, _ = self._undo.pop()
        for node, grad in reversed(saved):
            node.grad = grad
        self.updates = self._undo[-1][1] if self._undo else []
        self.redraw()

    def finish(self):
        """Process every remaining node: the whole backward pass."""
        while not self.done:
            self.step(redraw=False)
        self.redraw()

    def reset(self):
        """Every gradient in the graph back to zero, before the first node."""
        for node in self.nodes:
            node.grad = 0.0
        self._undo = []
        self.updates = []
        self.redraw()

    # -- display -----------------------------------------------------------------------

    def redraw(self):
        self.step_button.disabled = self.run_button.disabled = self.done
        self.back_button.disabled = self.reset_button.disabled = self.position == 0
        self.graph.value = self._graph_html()
        self.panel.value = self._panel_html()

    def _graph_html(self):
        node = self.current
        highlight = [] if node is None else [node, *((child, node) for child in node.inputs)]
        drawing = draw(self.root, self.options, highlight)
        if self.options.rankdir == "auto":
            # Upright, the output goes on top: the backward pass starts at the
            # top of the panel, where it is in view, and walks down.
            self.options = self.options.replace(rankdir="BT" if drawing.rankdir == "TB" else drawing.rankdir)
            if self.options.rankdir == "BT":
                drawing = draw(self.root, self.options, highlight)
        return graph_html(drawing)

    def static_html(self):
        return static_html(f"<div>{self.panel.value}</div>{self.graph.value}")  # as drawn, not drawn again

    def _panel_html(self):
        name = self.names
        root = name[self.root]
        total = len(self.schedule)
        if self.position == 0:
            return message_html(
                f"Every gradient is 0. Step sets {root}.grad = 1 (d{root}/d{root} = 1), then visits the nodes "
                f"from {root} back to the inputs ({total} with inputs), adding local × upstream into each input's grad."
            )
        node = self.current
        rows = []
        if self.position == 1:
            rows.append(f"<tr><td><code>{html.escape(root)}.grad = 1</code></td><td>(the seed: d{html.escape(root)}/d{html.escape(root)} = 1)</td></tr>")
        for child, local, upstream, before, after in self.updates:
            rows.append(
                "<tr>"
                f"<td style='padding-right:1.5em'><code>{html.escape(name[child])}.grad += {fmt(local)} × {fmt(upstream)}</code></td>"
                f"<td><code>{fmt(before)} → {fmt(after)}</code></td>"
                "</tr>"
            )
        op = f" ({html.escape(node.op)})" if node.op else ""
        head = (
            f"<b>node <span class='micrograd-position'>{self.position}</span> of {total}: "
            f"<span class='micrograd-current'>{html.escape(name[node])}</span></b>{op}, "
            f"upstream grad {fmt(node.grad)}"
        )
        tail = ""
        if self.done:
            tail = message_html(f"Done: every gradient now equals what {root}.backward() gives.")
        return f"<div>{head}</div><table style='line-height:1.5'>{''.join(rows)}</table>{tail}"

    def summary(self):
        return f"BackpropStepper: {len(self.nodes)} nodes, step {self.position} of {len(self.schedule)}"
