"""BackpropStepper: run backpropagation one node per click."""

from ..engine import topological_order
from ..graphs import is_node, is_torch_tensor, not_a_node, read_graph
from ._base import Controller, static_html, widgets
from .accessible import LiveRegion, on_press, page_support
from .backprop_words import end_sentence, panel_html, step_sentence
from .drawing import draw, drawing_options, kept_layout, kept_plan, node_names
from .graph_window import GraphWindow
from .probe import probe, sets
from .steps import (Step, check_each_operation_can_pass_gradients, grad_of, held_grad, last_share, no_grad_field, same,
                    stores_grad)

__all__ = ["BackpropStepper"]


class BackpropStepper(Controller):
    """Backpropagation through ``root``'s graph, one node at a time.

    ``root`` is the output node of any micrograd-style class: the package's
    ``Value``, your own ``MyValue``, the lecture's, micrograd 0.1.0's or
    microgpt's (see ``micrograd.graphs`` for what a node needs), or a PyTorch
    scalar.  Each step takes the next node in reverse topological order,
    output first, and does its part of the chain rule; the drawing highlights
    that node and its edges, and the panel shows what changed.  The first
    step also seeds ``root.grad = 1``.

    Every step is shown as ``input.grad += local × node.grad``, one line per
    input, ``+= 0`` included:

    - a node of the package's ``Value`` (or of a PyTorch graph, whose local
      derivatives PyTorch's backward functions give) does that update itself;
    - a node of your class has its own ``_backward()`` called: that is the
      code being stepped.  The local derivatives on screen are the ones your
      node recorded in ``_local_grads`` (or ``local_grads``), or else what its ``_backward()``
      hands each input from a zero start when the node's grad is 1.  A class
      with ``_local_grads`` and no ``_backward()`` (microgpt's) gets the
      update done for it, on its own nodes (on the drawing's, when they have
      no ``.grad`` to set).

    When a ``_backward()`` does something else than adding local × upstream,
    the panel lists every gradient it changed, from what to what, instead;
    when it *replaces* a gradient that already held a contribution from an
    earlier step (``=`` where ``+=`` belongs: it only shows when a node is
    used twice), that step says so.

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
    the output on top, where the backward pass starts; and each step is drawn
    at the places Graphviz laid the first drawing out (``viz.KeptLayout``),
    so a step costs the rendering, not a layout.

    A graph taller (or wider) than its box is shown cropped to the part
    around the active node (before the first step, the output; at the end,
    the leaves, which hold the answers), with a note saying so: the box
    cannot be scrolled to a node for you.  Tick ``whole_graph`` (or call
    ``show_whole_graph()``) to see all of it, scrolling in its box.

    A graph with an operation the stepper cannot step (neither a
    ``_backward()`` nor local derivatives it can apply) is refused at the
    start, in one sentence that names the fields it looked for.
    """

    def __init__(self, root, options=None, **changes):
        if not (is_node(root) or is_torch_tensor(root)):
            raise not_a_node("BackpropStepper", root, "the output node of a computation")
        self.view = read_graph(root, "BackpropStepper")
        self.root = self.view.root  # the package's Value for it: what is drawn
        # The learner's nodes hold the gradients their code computes; a PyTorch graph's mirror is
        # stepped on its own (PyTorch keeps its gradients to itself).
        self.on_originals = self.view.foreign and not self.view.detached
        self.nodes = topological_order(self.root)
        # A class whose nodes have no .grad to set is drawn with gradients 0; stepped, it shows its
        # gradients on the mirror, as long as no step needs its own _backward() to write them.
        self.unheld = self.on_originals and no_grad_field(self.view, self.nodes)
        if self.unheld:
            self.on_originals = False
        if self.view.detached and any(node.inputs and node.local_grads is None for node in self.nodes):
            raise ValueError(
                "BackpropStepper: PyTorch no longer holds what this graph's local derivatives need "
                "(a backward() freed it); build the tensor again and step it before calling backward()"
            )
        if self.on_originals:
            check_each_operation_can_pass_gradients(self.view, self.nodes)
        self.options = drawing_options(options, changes, show_local_grads=True)
        if self.view.foreign and self.options.parameters is not None:  # the learner's nodes: their mirrors
            self.options = self.options.replace(model=None, params=self.view.map_params(self.options.parameters))
        self.names = node_names(self.options.parameters)
        self.layout = kept_layout()  # a step changes numbers and colours, never where things are
        self.plan = kept_plan()  # nor which nodes there are: the graph is read and collapsed once
        # Only nodes with inputs have chain-rule work to do; a lone leaf still
        # gets one step, the seed.
        self.schedule = [node for node in reversed(self.nodes) if node.inputs] or [self.root]
        self._undo = []  # per step taken: [(original node, grad before), ...] of what it changed
        self.updates = []  # what the last step did, for the panel (see _Step)
        self._steps = []
        self._build_widgets()
        self.reset(say=False)  # a stepper just drawn says nothing until it is used

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
        self.step_button = widgets.Button(description="Step", tooltip="process the next node")
        self.back_button = widgets.Button(description="Back", tooltip="undo the last node")
        self.run_button = widgets.Button(description="To the end", tooltip="finish the backward pass")
        self.reset_button = widgets.Button(description="Reset", tooltip="all gradients back to zero")
        # A button's name is the word it shows (an icon's glyph would be read as part of it);
        # Tab goes through them in the order shown, Enter or Space presses the one in focus.
        self.panel = widgets.HTML()
        self.picture = GraphWindow()  # the drawing, around the active node unless the whole graph is asked for
        self.graph, self.whole_graph = self.picture.box, self.picture.whole_graph
        self.live = LiveRegion()  # what a screen reader says after a press: the step, in one sentence
        # A button that disables itself hands the focus on: at the end, to Reset; at the start, to Step.
        on_press(self.step_button, self.step, self.reset_button)
        on_press(self.back_button, self.back, self.step_button)
        on_press(self.run_button, self.finish, self.reset_button)
        on_press(self.reset_button, self.reset, self.step_button)
        buttons = widgets.HBox([self.step_button, self.back_button, self.run_button, self.reset_button, self.whole_graph])
        self.widget = widgets.VBox([buttons, self.panel, self.live.widget, self.graph, page_support()])
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
        original = self._holder(node)
        backward = getattr(original, "_backward", None) if self.on_originals or node.local_grads is None else None
        if node.local_grads is not None and not callable(backward):
            step = self._chain_rule(node, saved)
        else:
            step = self._own_backward(node, original, backward, saved)
        self._undo.append(saved)
        self._steps.append(step)
        self.updates = step.updates
        if redraw:
            self.redraw()
            self.live.say(step_sentence(self))

    def _holder(self, node):
        """The object that holds ``node``'s gradient: the learner's node, or the drawn Value itself."""
        return self.view.original(node) if self.on_originals else node

    def _set_grad(self, node, grad):
        """Set a node's gradient (the learner's node and its drawing); returns what undoes it."""
        holder = self._holder(node)
        before = holder.grad
        holder.grad = grad
        node.grad = grad
        return holder, before

    def _chain_rule(self, node, saved):
        upstream = node.grad
        updates = []
        for child, local in zip(node.inputs, node.local_grads):
            before = child.grad
            saved.append(self._set_grad(child, before + local * upstream))  # the chain rule, as backward() does it
            updates.append((child, local, upstream, before, child.grad))
        return Step(node, updates)

    def _own_backward(self, node, original, backward, saved):
        """Call the node's own _backward() and see what it did: local × upstream into each input, or
        something else, listed as it is.  Only the node and its inputs are read, so a whole pass is
        linear in the size of the graph."""
        if not callable(backward):
            return Step(node, [], error=f"{self.names[node]} has no _backward() to call")
        inputs = list({id(child): child for child in node.inputs}.values())  # each once, in operand order
        holders = [self._holder(child) for child in inputs]
        watched = holders + ([] if any(h is original for h in holders) else [original])
        before = [(h, h.grad) for h in watched]
        upstream = node.grad
        if node.local_grads is not None:
            terms, setting = list(zip(node.inputs, node.local_grads)), []
        else:  # called from inputs at 0, then at 1: its local derivatives, and whether it adds (+=) or sets (=)
            ends = probe(original, backward, holders)
            setting = sets(holders, ends)
            terms = None if ends is None else list(zip(inputs, ends[0]))
            if terms is not None and not setting and self.view.foreign and len(inputs) == len(node.inputs):
                node._local_grads = tuple(ends[0])  # the mirror's, so its edges show them as the package's do
        predicted = self._predict(terms, upstream)
        try:
            backward()
        except Exception as error:  # the learner's code: say what it raised, keep the stepper usable
            self._restore(before)
            return Step(node, [], error=f"{self.names[node]}._backward() raised {type(error).__name__}: {error}")
        changes = []
        for h, grad_before in before:
            if not same(held_grad(h), grad_of(grad_before)):
                saved.append((h, grad_before))
                changes.append((h, grad_before))
        if self.on_originals:
            self.view.refresh([h for h, _ in changes])
        if not changes and upstream and not stores_grad(backward):
            return Step(node, [], own=True, idle=True)
        stray = any(h is original for h, _ in changes) and not any(h is original for h in holders)
        if predicted is not None and not stray and not setting and all(
                same(held_grad(h), predicted[1][id(c)]) for c, h in zip(inputs, holders)):
            return Step(node, predicted[0])
        mirror = {id(h): child for child, h in zip(inputs, holders)}
        mirror[id(original)] = node
        alone = predicted[2] if predicted is not None else {}
        updates, overwritten = [], []
        for h, grad_before in changes:
            child, b, a = mirror[id(h)], grad_of(grad_before), held_grad(h)
            updates.append((child, b, a))
            added = alone.get(id(child))
            if b and added is not None and same(a, added) and not same(a, b + added):
                overwritten.append((child, b, a, b + added))
            elif any(h is s for s in setting) or (node.local_grads is not None and last_share(node, child, a)):
                overwritten.append((child, b, a, None if node.local_grads is None else b + added))  # set, not added
        return Step(node, updates, own=True, overwritten=overwritten)

    @staticmethod
    def _predict(terms, upstream):
        """(rows, {id(input): grad after}, {id(input): what it adds}) if each input's grad grows by
        local × upstream, from the grads the inputs hold now; None when the derivatives are unknown."""
        if terms is None:
            return None
        after, alone, rows = {}, {}, []
        for child, local in terms:
            before = after.get(id(child), child.grad)
            after[id(child)] = before + local * upstream
            alone[id(child)] = alone.get(id(child), 0.0) + local * upstream
            rows.append((child, local, upstream, before, after[id(child)]))
        return rows, after, alone

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
        if self.on_originals:
            self.view.refresh([holder for holder, _ in saved])
        self.updates = self._steps[-1].updates if self._steps else []
        self.redraw()
        now = f"at node {self.position} of {len(self.schedule)}, {self.names[self.current]}" if self.current else "before the first node"
        self.live.say(f"Took back node {self.position + 1} of {len(self.schedule)}: its gradients are as they were, {now}.")

    def finish(self):
        """Process every remaining node: the whole backward pass."""
        taken = self.position
        while not self.done:
            self.step(redraw=False)
        self.redraw()
        left = len(self.schedule) - taken
        self.live.say(f"Took the {left} remaining step{'s' * (left != 1)}, to node {self.position} of "
                      f"{len(self.schedule)}. {end_sentence(self)}")

    def reset(self, say=True):
        """Every gradient in the graph back to zero, before the first node (``say``: in the live region too)."""
        for node in self.nodes:
            self._set_grad(node, 0.0)
        self._undo = []
        self._steps = []
        self.updates = []
        self.redraw()
        if say:
            self.live.say(f"Reset: every gradient is 0; Step starts at {self.names[self.root]}.")

    # -- display -----------------------------------------------------------------------

    def redraw(self):
        self.step_button.disabled = self.run_button.disabled = self.done
        self.back_button.disabled = self.reset_button.disabled = self.position == 0
        self._draw_graph()
        self.panel.value = panel_html(self)

    def show_whole_graph(self, whole=True):
        """The whole graph, scrolling in its box; ``whole=False``: the part around the active node."""
        self.picture.show_whole_graph(whole)

    def _draw_graph(self):
        node = self.current
        highlight = [] if node is None else [node, *((child, node) for child in node.inputs)]
        drawing = draw(self.root, self.options, highlight, self.plan)
        if self.options.rankdir == "auto":
            # Upright, the output goes on top: the backward pass starts at the
            # top of the panel, where it is in view, and walks down.
            self.options = self.options.replace(rankdir="BT" if drawing.rankdir == "TB" else drawing.rankdir)
            if self.options.rankdir == "BT":
                drawing = draw(self.root, self.options, highlight, self.plan)
        self.picture.show(drawing, self.layout, active=None if node is None else self.names[node], at_end=self.done)

    def static_html(self):
        return static_html(f"<div>{self.panel.value}</div>{self.graph.value}")  # as drawn, not drawn again

    def summary(self):
        return f"BackpropStepper: {len(self.nodes)} nodes, step {self.position} of {len(self.schedule)}"
