"""How a graph is drawn, as one small object that travels to every drawing function.

    options = DrawOptions(show_local_grads=True, precision=3)
    draw_dot(loss, options)                  # or draw_dot(loss, show_local_grads=True, precision=3)
    draw_dot(loss, options, rankdir="TB")    # keywords override the object's fields

The widgets keep one ``DrawOptions`` and hand it to ``draw_dot`` on every
redraw, instead of passing a list of keywords along.
"""

import dataclasses
from dataclasses import dataclass

from . import style
from .labels import check_precision

__all__ = ["DrawOptions", "DEFAULT_MAX_NODES", "PAGE_WIDTH_PX", "RANKDIRS"]

DEFAULT_MAX_NODES = 150
MIN_MAX_NODES = 10
# "auto": left to right, unless that is wider than the page and top to bottom is narrower
# (widths estimated from the DOT text, see direction.py: the same on every machine).
RANKDIRS = ("auto", "LR", "TB", "RL", "BT")
# The width, in CSS pixels, a notebook output has in JupyterLab at 1280 px
# with the file browser open; a drawing wider than this scrolls in its box.
PAGE_WIDTH_PX = 850


@dataclass(frozen=True)
class DrawOptions:
    """The choices behind a drawing of a computation graph (see ``draw_dot``).

    - ``rankdir``: ``'auto'`` (left to right unless that is wider than
      ``page_width`` and top to bottom is narrower), ``'LR'``, ``'TB'``,
      ``'RL'`` or ``'BT'``.
    - ``show_grad``: show each Value's grad.  ``precision``: decimals shown.
    - ``params`` (a Module, ``{name: Value}`` or a list of Values) or
      ``model`` (a Module): which leaves are parameters, for colouring and
      names such as ``L0.N3.w1``.
    - ``color_by``: ``'role'``, ``'grad'`` or None.
    - ``show_local_grads``: label each edge with the local derivative.
    - ``max_nodes``: the most Graphviz nodes to draw (None: no limit).
    - ``title``: a caption above the graph.  ``legend``: show the colour key.
    - ``page_width``: the CSS pixels the drawing should fit in.
    """

    rankdir: str = "auto"
    show_grad: bool = True
    precision: int = 4
    max_nodes: object = DEFAULT_MAX_NODES
    color_by: object = "role"
    show_local_grads: bool = False
    params: object = None
    model: object = None
    title: object = None
    legend: bool = False
    page_width: int = PAGE_WIDTH_PX

    def __post_init__(self):
        if self.rankdir not in RANKDIRS:
            raise ValueError(f"rankdir is one of {', '.join(RANKDIRS)} (LR: left to right), got {self.rankdir!r}")
        check_precision(self.precision)
        style.check_color_by(self.color_by)
        max_nodes = self.max_nodes
        if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < MIN_MAX_NODES):
            raise ValueError(
                f"max_nodes is the most Graphviz nodes to draw, a whole number of at least "
                f"{MIN_MAX_NODES}, or None for no limit; got {max_nodes!r}"
            )
        if self.params is not None and self.model is not None:
            raise ValueError("give the parameters once: params=model.parameters() or model=model, not both")
        if self.title is not None and not isinstance(self.title, str):
            raise TypeError(f"title is a string shown above the graph, got {type(self.title).__name__}")
        check_page_width(self.page_width)

    @property
    def parameters(self):
        """What names the parameters: ``model`` if given, else ``params``."""
        return self.params if self.model is None else self.model

    def replace(self, **changes):
        """A copy with ``changes`` (checked like the constructor's keywords)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            known = ", ".join(f.name for f in dataclasses.fields(self))
            raise TypeError(f"unknown drawing option {', '.join(sorted(unknown))}; the options are {known}")
        return dataclasses.replace(self, **changes) if changes else self


def check_page_width(width):
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not width > 0:
        raise ValueError(f"page_width is the width in CSS pixels a drawing should fit, a positive number; got {width!r}")


def make_options(options, changes):
    """``options`` (a DrawOptions or None) with keyword ``changes`` applied."""
    if options is None:
        options = DrawOptions()
    elif not isinstance(options, DrawOptions):
        raise TypeError(
            f"the second argument is a DrawOptions (or give options as keywords), got {type(options).__name__}"
        )
    return options.replace(**changes)
