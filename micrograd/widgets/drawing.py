"""The drawings and node names the graph widgets share, through micrograd.viz."""

from ._base import fmt

__all__ = ["draw", "node_names"]


def draw(root, highlight=(), **options):
    """``micrograd.viz.draw_dot`` of ``root``, with ``highlight`` nodes and edges."""
    from ..viz import draw_dot  # imported here: viz needs graphviz, the engine does not

    return draw_dot(root, highlight=list(highlight), **options)


def node_names(nodes, params=None):
    """{node: name} for the panels, as the drawing lets a reader find the node.

    A node's label, else its parameter name (when the drawing is given
    ``params`` or ``model``), else its operation and data in brackets, e.g.
    ``[tanh 0.7616]``: the drawing shows that operation next to that number.
    """
    from ..viz.graph import parameter_names

    parameters = parameter_names(params)
    return {node: node.label or parameters.get(node) or f"[{node.op or 'value'} {fmt(node.data)}]" for node in nodes}
