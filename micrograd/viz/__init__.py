"""Pictures and text views of computation graphs.

``draw_dot(loss)`` draws the graph below a Value with Graphviz (the one
pygraphviz's wheel bundles, in this process; under Pyodide, Graphviz in
WebAssembly; else the system's ``dot``: see ``render``); in a notebook it
shows as SVG.  ``text_graph(loss)`` prints it as plain text and needs
nothing beyond the standard library.  ``draw_model(model)`` draws a network
as layers of neurons.

For the GPT lesson: ``draw_gpt(model)`` draws one position of a GPT as
blocks; ``attention_heatmaps(weights, letters)`` shows each head's attention
over a name and ``loss_curve(losses, vocab_size)`` a training loss with its
moving average, both as a :class:`Picture` (matplotlib, imported when used).

Every drawing function takes one ``DrawOptions`` (or the same choices as
keywords).  In a notebook a drawing shows at its own size, its text at the
point sizes it was laid out with; one wider than ``PAGE_WIDTH_PX`` (a
JupyterLab output at 1280 px with the file browser open) is laid out top to
bottom if that is narrower, and otherwise scrolls sideways in its own box.
Widths for that choice are estimated from the DOT text, so the choice, like
the DOT text, is the same on every machine.

A widget that redraws one graph in many states renders them through one
``KeptLayout``: laid out once, each state drawn at the same positions (and
one ``KeptPlan``: read and collapsed once, for ``draw_dot(kept_plan=...)``); one
taller than its box shows the part around the node in focus
(``window_around``, ``crop_to_window``).

Saving a drawing: ``draw_dot(loss).export("loss.svg")`` (or ``.png``,
``.pdf``, ``.dot``), or ``.render("loss", format="png")`` as for any
``graphviz.Digraph``.
"""

from .attention import attention_heatmaps
from .curves import loss_curve, smoothed
from .describe import Words, describe_graph
from .dotsource import dot_source
from .drawing import GraphDrawing, GraphvizNotFound, draw_dot
from .graph import parameter_names
from .labels import format_number
from .gpt import draw_gpt
from .kept_plan import KeptPlan
from .layout import KeptLayout
from .model import draw_model
from .options import DEFAULT_MAX_NODES, PAGE_WIDTH_PX, DrawOptions
from .page import fit_to_page, inline_drawings_as_images, side_by_side, svg_image, svg_size
from .picture import Picture, note_in_place_of
from .text import text_graph
from .window import Window, crop_to_window, leaf_nodes, marked_nodes, output_nodes, place_in_window, window_around

__all__ = [
    "draw_dot",
    "draw_model",
    "draw_gpt",
    "attention_heatmaps",
    "loss_curve",
    "smoothed",
    "Picture",
    "note_in_place_of",
    "dot_source",
    "text_graph",
    "DrawOptions",
    "GraphDrawing",
    "GraphvizNotFound",
    "KeptLayout",
    "KeptPlan",
    "DEFAULT_MAX_NODES",
    "PAGE_WIDTH_PX",
    "fit_to_page",
    "describe_graph",
    "Words",
    "side_by_side",
    "svg_size",
    "svg_image",
    "inline_drawings_as_images",
    "format_number",
    "parameter_names",
    "Window",
    "window_around",
    "crop_to_window",
    "place_in_window",
    "marked_nodes",
    "leaf_nodes",
    "output_nodes",
]
