"""BackpropStepper: run backpropagation one node per click."""

import html

from ..engine import topological_order
from ..graphs import is_node, not_a_node, read_graph
from ._base import Controller, fmt, graph_html, graph_widget, message_html, static_html, widgets
from .drawing import draw, drawing_options, node_names

__all__ = ["BackpropStepper"]


class BackpropStepper(Controller):
    """Backpropagation through ``root``'s graph, one node at a time.

    ``root`` is the output node of any micrograd-style class: the package's
    ``Value``, your own ``MyValue``, the lecture's or micrograd 0.1.0's (see
    ``micrograd.graphs`` for what a node needs).  Each step takes the next
    node in reverse topological order, output first, and does its part of
    the chain rule; the drawing highlights that node and its edges, and the
    panel shows what changed.  The first step also seeds ``root.grad = 1``.

    - A node of the package's ``Value`` that recorded its local derivatives
      steps as ``input.grad += local × node.grad``, each update on screen.
    - Any other node, yours included, has its own ``_backward()`` called, and
      the panel lists every gradient that call changed, from what to what.
      When the call *replaces* a gradient that already held a contribution
      from an earlier step (``=`` where ``+=`` belongs: it only shows when a
      node is used twice), that step says so.

    The stepper owns the graph's gradients while it runs: it starts with
    every gradient at zero, leaves included (``backward()`` would add into
    the leaves' existing gradients), so after ``finish()`` every gradient
    equals what ``root.backward()`` gives on freshly zeroed leaves, when each
    ``_backward()`` is right.  ``reset()`` sets every gradient back to zero.

    ``options`` (a ``micrograd.viz.DrawOptions``) and keyword arguments
    choose how the graph is drawn, as for ``draw_dot``; local derivatives
    are shown on the edges unless ``show_local_grads=False``.  The layout is
    chosen once, from the first drawing, so the graph does not jump about
    between steps: left to right when that fits the page, else upright with
    the output on top, where the backward pass starts.
    """

    def __init__(self, root, options=None, **changes):
        if not is_node(root):
            raise not_a_node("BackpropStepper", root, "the output node of a computation")
        self.view = read_graph(root, "BackpropStepper")
        self.root = self.view.root  # the package's Value for it: what is drawn
        self.nodes = topological_order(self.root)
        self.options = drawing_options(options, changes, show_local_grads=True)
        if self.view.foreign and self.options.parameters is not None:  # the learner's nodes: their mirrors
            self.options = self.options.replace(model=None, params=self.view.map_params(self.options.parameters))
        self.names = node_names(self.nodes, self.options.parameters)
        # Only nodes with inputs have chain-rule work to do; a lone leaf still
        # gets one step, the seed.
        self.schedule = [node for node in reversed(self.nodes) if node.inputs] or [self.root]
        self._undo = []  # per step taken: [(original node, grad before), ...] of what it changed
        self.updates = []  # what the last step did, for the panel (see _Step)
        self._steps = []
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
        """Process the next node: local × upstream into its inputs, or its own ``_backward()``."""
        if self.done:
            return
        node = self.schedule[self.position]
        saved = []
        if self.position == 0:
            saved.append(self._set_grad(self.root, 1.0))
        if node.local_grads is not None and not self.view.foreign:
            step = self._chain_rule(node, saved)
        else:
            step = self._own_backward(node, saved)
        self._undo.append(saved)
        self._steps.append(step)
        self.updates = step.updates
        if redraw:
            self.redraw()

    def _set_grad(self, node, grad):
        """Set a node's gradient (the learner's node and its drawing); returns what undoes it."""
        original = self.view.original(node)
        before = original.grad
        original.grad = grad
        node.grad = grad
        return original, before

    def _chain_rule(self, node, saved):
        upstream = node.grad
        updates = []
        for child, local in zip(node.inputs, node.local_grads):
            saved.append((child, child.grad))
            before = child.grad
            child.grad += local * upstream  # the chain rule, as backward() does it
            updates.append((child, local, upstream, before, child.grad))
        return _Step(node, updates)

    def _own_backward(self, node, saved):
        """Call the node's own _backward() on the learner's graph and see what it changed."""
        original = self.view.original(node)
        backward = getattr(original, "_backward", None)
        if not callable(backward):
            return _Step(node, [], error=f"{self.names[node]} has no _backward() to call")
        pairs = self.view.pairs() or [(n, n) for n in self.nodes]
        before = [(o, o.grad) for o, _ in pairs]
        alone = self._contributions(node, original, before)
        try:
            backward()
        except Exception as error:  # the learner's code: say what it raised, keep the stepper usable
            self._restore(before)
            return _Step(node, [], error=f"{self.names[node]}._backward() raised {type(error).__name__}: {error}")
        changes, overwritten = [], []
        for (o, grad_before), (_, mirror) in zip(before, pairs):
            grad_after = o.grad
            if _same(grad_after, grad_before):
                continue
            saved.append((o, grad_before))
            changes.append((mirror, grad_before, grad_after))
            added = alone.get(id(o))
            if grad_before and added is not None and _same(grad_after, added) and not _same(grad_after, grad_before + added):
                overwritten.append((mirror, grad_before, grad_after, grad_before + added))
        self.view.refresh()
        return _Step(node, changes, own=True, overwritten=overwritten)

    def _contributions(self, node, original, before):
        """{id(input): what node's _backward() adds to it, from a zero start}: tells += from =."""
        inputs = [self.view.original(child) for child in node.inputs]
        if not any(child.grad for child in inputs):
            return {}  # nothing held yet: nothing can be overwritten
        try:
            for child in inputs:
                child.grad = 0.0
            original._backward()
            return {id(child): child.grad for child in inputs}
        except Exception:
            return {}
        finally:
            self._restore(before)

    @staticmethod
    def _restore(grads):
        for node, grad in grads:
            node.grad = grad

    def back(self):
        """Undo the last step exactly: the gradients it changed get their old values."""
        if not self._undo:
            return
        saved = self._undo.pop()
        self._steps.pop()
        self._restore(reversed(saved))
        self.view.refresh()
        self.updates = self._steps[-1].updates if self._steps else []
        self.redraw()

    def finish(self):
        """Process every remaining node: the whole backward pass."""
        while not self.done:
            self.step(redraw=False)
        self.redraw()

    def reset(self):
        """Every gradient in the graph back to zero, before the first node."""
        for node in self.nodes:
            self._set_grad(node, 0.0)
        self._undo = []
        self._steps = []
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
            how = (
                "calling each node's own _backward() and showing the gradients it changed"
                if self.view.foreign else "adding local × upstream into each input's grad"
            )
            return message_html(
                f"Every gradient is 0. Step sets {root}.grad = 1 (d{root}/d{root} = 1), then visits the nodes "
                f"from {root} back to the inputs ({total} with inputs), {how}."
            )
        step = self._steps[-1]
        node = step.node
        rows = []
        if self.position == 1:
            rows.append(f"<tr><td><code>{html.escape(root)}.grad = 1</code></td><td>(the seed: d{html.escape(root)}/d{html.escape(root)} = 1)</td></tr>")
        if step.own:
            for child, before, after in step.updates:
                rows.append(
                    f"<tr><td style='padding-right:1.5em'><code>{html.escape(name[child])}.grad</code></td>"
                    f"<td><code>{fmt(before)} → {fmt(after)}</code></td></tr>"
                )
        else:
            for child, local, upstream, before, after in step.updates:
                rows.append(
                    "<tr>"
                    f"<td style='padding-right:1.5em'><code>{html.escape(name[child])}.grad += {fmt(local)} × {fmt(upstream)}</code></td>"
                    f"<td><code>{fmt(before)} → {fmt(after)}</code></td>"
                    "</tr>"
                )
        op = f" ({html.escape(node.op)})" if node.op else ""
        did = f", its _backward() changed {len(step.updates)} gradient{'s' * (len(step.updates) != 1)}" if step.own else ""
        head = (
            f"<b>node <span class='micrograd-position'>{self.position}</span> of {total}: "
            f"<span class='micrograd-current'>{html.escape(name[node])}</span></b>{op}, "
            f"upstream grad {fmt(node.grad)}{did}"
        )
        notes = [message_html(text, kind="error") for text in self._warnings(step)]
        tail = ""
        if self.done:
            if self.view.foreign:
                tail = message_html(f"Done: every node's _backward() has run once, from {root} back to the inputs.")
            else:
                tail = message_html(f"Done: every gradient now equals what {root}.backward() gives.")
        return f"<div>{head}</div><table style='line-height:1.5'>{''.join(rows)}</table>{''.join(notes)}{tail}"

    def _warnings(self, step):
        name = self.names
        if step.error:
            return [step.error]
        found = []
        for child, before, after, summed in step.overwritten:
            found.append(
                f"{name[child]}.grad already held {fmt(before)} from an earlier use, and this step replaced it with "
                f"{fmt(after)}: gradients from two uses must add up (+=, not =), to {fmt(summed)} here."
            )
        if step.own:
            inputs = set(map(id, step.node.inputs))
            strays = [name[child] for child, _, _ in step.updates if id(child) not in inputs]
            if strays:
                found.append(f"_backward() changed {', '.join(strays)}, which {'is' if len(strays) == 1 else 'are'} not among this node's inputs.")
            if not step.updates and step.node.grad:
                found.append("_backward() changed no gradient: it should add local derivative × this node's grad into each input's grad.")
        return found

    def summary(self):
        return f"BackpropStepper: {len(self.nodes)} nodes, step {self.position} of {len(self.schedule)}"


class _Step:
    """What one step did: chain-rule updates, or the gradients a node's own _backward() changed."""

    __slots__ = ("node", "updates", "own", "overwritten", "error")

    def __init__(self, node, updates, own=False, overwritten=(), error=""):
        self.node = node
        # own: (input, before, after); else (input, local, upstream, before, after)
        self.updates = updates
        self.own = own or bool(error)
        self.overwritten = overwritten  # (input, before, after, what += would give)
        self.error = error


def _same(a, b):
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))
