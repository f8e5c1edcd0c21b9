"""A stepper's drawing in its box: the part around the node in focus, or the whole graph.

The box is at most ``GRAPH_MAX_HEIGHT`` tall and scrolls, but a widget's HTML runs no script, so
nothing could scroll it to the node a step works on: on a graph taller than the box (lesson 3's
neuron, upright, is twice as tall) the active node would sit below its edge.  So a drawing
that does not fit is cropped to a window around the nodes in focus (``viz.window_around``), at the
size it was laid out, with a note saying so; ticking "Whole graph" (or ``show_whole_graph()``)
shows all of it, scrolling in the box.  What the drawing carries (its DOT text, ``data-dot``) is
the same either way.
"""

import html

from .. import palette
from ._base import GRAPH_MAX_HEIGHT, graph_widget, no_graphviz_html, require, widgets

__all__ = ["GraphWindow", "WINDOW_HEIGHT_PX"]

# The box's height, less the note above the drawing and a sideways scroll bar under it.
WINDOW_HEIGHT_PX = int(GRAPH_MAX_HEIGHT.removesuffix("px")) - 60
_NOTE_STYLE = f"font-size:12px;color:{palette.MUTED_TEXT};margin-bottom:4px"


class GraphWindow:
    """``box`` (an HTML widget) shows a drawing, cropped around its focus unless ``whole_graph`` is ticked."""

    def __init__(self):
        self.box = graph_widget()
        self.whole_graph = widgets.Checkbox(
            value=False, description="Whole graph", indent=False, tooltip="show the whole graph, scrolling in its box",
            layout={"width": "auto", "display": "none"},
        )
        self.whole_graph.add_class("micrograd-whole-graph")
        self.whole_graph.observe(lambda change: self._show(), names="value")
        self.window = None  # the part shown (a viz.Window), or None when the whole graph is
        self._shown = None

    def show(self, drawing, layout, active=None, at_end=False):
        """Draw ``drawing`` (through the ``viz.KeptLayout`` ``layout``, or laid out afresh) around the nodes it marks, the
        node named ``active`` in the note; without one, around its output, where a backward pass
        starts; ``at_end``, around its leaves, which hold the answers."""
        from ..viz import leaf_nodes, marked_nodes, output_nodes

        graphviz = require("graphviz")
        if at_end:  # the leaves the last node fed first, then the others, as many as fit
            fed, what = marked_nodes(drawing.source)[1], "the leaves, which hold the answers"
            focus, nearby = [], fed + leaf_nodes(drawing.source)
        elif active is None:
            focus, nearby, what = output_nodes(drawing.source), [], "the output, where the pass starts"
        else:
            (focus, nearby), what = marked_nodes(drawing.source), f"the active node, {active}"
        try:
            svg = drawing.svg() if layout is None else layout.svg(drawing)
        except graphviz.ExecutableNotFound as error:
            self._shown = None
            self.window = None
            self.box.value = no_graphviz_html(error, drawing)
            return
        self._shown = (svg, drawing, tuple(focus), tuple(nearby), what)
        self._show()

    def show_whole_graph(self, whole=True):
        """Show the whole graph, scrolling in its box (``whole=False``: the part around the focus)."""
        self.whole_graph.value = bool(whole)  # the checkbox's observer redraws

    def _show(self):
        if self._shown is None:
            return
        from ..viz import crop_to_window, fit_to_page, place_in_window, svg_size, window_around

        svg, drawing, focus, nearby, what = self._shown
        part = window_around(svg, focus, nearby, width_px=drawing.page_width, height_px=WINDOW_HEIGHT_PX)
        self.whole_graph.layout.display = "none" if part is None else "flex"
        note, in_view = "", None
        if part is not None and self.whole_graph.value:
            width, height = svg_size(svg)
            note = f"The whole graph, {width:.0f} × {height:.0f} px, scrolls in this box; untick Whole graph for the part around {what}."
            part = None
        elif part is not None:
            # A page narrower than the window (a phone's) starts it scrolled to the node in focus, not to its left edge.
            focused = (focus or nearby)[:1]
            in_view = place_in_window(svg, part, focused[0]) if focused else None
            svg = crop_to_window(svg, part)
            note = f"Showing the part of the graph around {what}; tick Whole graph to scroll through all of it."
        self.window = part
        head = f'<div class="micrograd-window-note" style="{_NOTE_STYLE}">{html.escape(note)}</div>' if note else ""
        self.box.value = head + fit_to_page(svg, drawing.page_width, dot=drawing.source, words=drawing.words, in_view=in_view)
