"""Pictures and text views of computation graphs.

``draw_dot(loss)`` draws the graph below a Value with Graphviz; in a notebook
it shows as SVG.  ``text_graph(loss)`` prints it as plain text and needs
nothing beyond the standard library.  ``draw_model(model)`` draws a network
as layers of neurons.

Saving a drawing: ``draw_dot(loss).export("loss.svg")`` (or ``.png``,
``.pdf``, ``.dot``), or ``.render("loss", format="png")`` as for any
``graphviz.Digraph``.
"""

from .dotsource import DEFAULT_MAX_NODES, dot_source
from .drawing import GraphDrawing, GraphvizNotFound, draw_dot
from .model import draw_model
from .text import text_graph

__all__ = ["draw_dot", "draw_model", "dot_source", "text_graph", "GraphDrawing", "GraphvizNotFound", "DEFAULT_MAX_NODES"]
