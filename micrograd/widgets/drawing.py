"""The drawings and node names the graph widgets share, through micrograd.viz's public names."""

from ..graphs import NOT_KEPT
from ._base import fmt

__all__ = ["draw", "drawing_options", "kept_layout", "kept_plan", "node_names"]


def _viz():
    # Imported on first use, so that without graphviz the error is viz's own, with its install advice.
    from .. import viz

    return viz


def drawing_options(options, changes, **defaults):
    """One ``viz.DrawOptions`` from an options object and/or keywords, over the widget's ``defaults``."""
    viz = _viz()
    if options is None:
        options = viz.DrawOptions(**defaults)
    elif not isinstance(options, viz.DrawOptions):
        if isinstance(options, dict):  # the keyword dict the widgets used to take
            return drawing_options(None, {**options, **changes}, **defaults)
        raise TypeError(f"drawing options are a micrograd.viz.DrawOptions or a dict of draw_dot keywords, got {type(options).__name__}")
    return options.replace(**changes)


def draw(root, options, highlight=(), kept_plan=None):
    """``micrograd.viz.draw_dot`` of ``root`` with ``options``, marking ``highlight`` nodes and edges
    (through ``kept_plan``, a graph drawn again and again is read and collapsed once)."""
    return _viz().draw_dot(root, options, highlight=list(highlight), kept_plan=kept_plan)


def kept_layout():
    """A ``micrograd.viz.KeptLayout``: the one layout a widget redraws its graph at."""
    return _viz().KeptLayout()


def kept_plan():
    """A ``micrograd.viz.KeptPlan``: the one reading and collapse of a graph a widget redraws."""
    return _viz().KeptPlan()


def node_names(params=None):
    """{node: name} for the panels, as the drawing lets a reader find the node.

    A node's label, else its parameter name (when the drawing is given
    ``params`` or ``model``), else its operation and data in brackets, e.g.
    ``[tanh 0.7616]``: the drawing shows that operation next to that number
    (``[MulBackward0 data not kept]`` where the drawing says so).  Each name
    is made when it is first asked for: a panel names a node and its inputs,
    never all twenty thousand nodes of a big graph.
    """
    return _NodeNames(_viz().parameter_names(params))


class _NodeNames(dict):
    def __init__(self, parameters):
        super().__init__()
        self._parameters = parameters

    def __missing__(self, node):
        name = self[node] = node.label or self._parameters.get(node) or f"[{node.op or 'value'} {_data_text(node)}]"
        return name


def _data_text(node):
    """A node's data as its drawing shows it: a number, or the drawing's words for a PyTorch
    result that autograd did not keep."""
    return "data not kept" if "data" in getattr(node, NOT_KEPT, ()) else fmt(node.data)
