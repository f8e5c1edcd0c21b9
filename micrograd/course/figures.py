"""Pictures a failed check shows under its verdict: the learner's own graph, where it went wrong."""

import html

from ..graphs import inputs_of, post_order
from .verdicts import fmt_expected

__all__ = ["wrong_gradient_figure", "neighbourhood"]

# A graph deeper than this many Values from output to input is drawn around the wrong node only:
# drawn whole, upright, it runs to some 150 px a level, and the marked node would sit below the fold
# of a 1280×800 page, far from the verdict above it.
_DEEPEST_DRAWN_WHOLE = 3


class _Shown:
    """A node of the drawn neighbourhood: the learner's node's numbers, label and op, its inputs cut where the drawing stops."""

    def __init__(self, node, inputs):
        self.data, self.grad = node.data, getattr(node, "grad", 0.0)
        self.label = getattr(node, "label", "") or ""
        self._op = getattr(node, "_op", "") or ""
        self._prev = tuple(inputs)


def _depth(root):
    """The most Values on a path from root down to a leaf."""
    depth = {}
    for node in post_order(root):
        depth[id(node)] = 1 + max((depth[id(c)] for c in inputs_of(node)), default=0)
    return depth[id(root)]


def _path_to(root, node):
    """The nodes from root down to node along a shortest path (root first)."""
    came_from, frontier = {id(root): None}, [root]
    while frontier and id(node) not in came_from:
        following = []
        for parent in frontier:
            for child in inputs_of(parent):
                if id(child) not in came_from:
                    came_from[id(child)] = parent
                    following.append(child)
        frontier = following
    path, at = [], node
    while at is not None:
        path.append(at)
        at = came_from[id(at)]
    return path[::-1]


def neighbourhood(root, node):
    """(top, shown, whole): the part of root's graph drawn around node.

    ``top`` is the node one step up from ``node`` towards the root (the one that passed it its
    gradient), and the drawing holds it, its inputs (``node`` and its siblings) and their inputs,
    whose own inputs are left out.  ``shown`` maps id(original) to its stand-in.  For a graph
    shallow enough to fit the page, the whole graph: ``whole`` says which.
    """
    if _depth(root) <= _DEEPEST_DRAWN_WHOLE:
        return root, None, True
    path = _path_to(root, node)
    top = path[-2] if len(path) >= 2 else path[-1]
    levels, frontier = {id(top): 0}, [top]
    while frontier:  # how far below top each node is, by the shortest way
        following = []
        for parent in frontier:
            for child in inputs_of(parent):
                if id(child) not in levels:
                    levels[id(child)] = levels[id(parent)] + 1
                    following.append(child)
        frontier = [n for n in following if levels[id(n)] < 2]
    deepest = levels[id(node)] + 1
    shown = {}
    for original in post_order(top, lambda n: inputs_of(n) if levels[id(n)] < deepest else ()):
        inputs = inputs_of(original) if levels[id(original)] < deepest else ()
        shown[id(original)] = _Shown(original, [shown[id(c)] for c in inputs])
    return shown[id(top)], shown, False


def wrong_gradient_figure(root, node, got, expected):
    """HTML: the graph below ``root`` (the learner's own nodes) with ``node`` marked in red and both
    numbers on it, the gradient it holds and the one it should hold.

    It fits the page as every drawing does.  Without Graphviz it is the text view; a graph that
    cannot be read at all gives no figure, never an error: the verdict's words stand alone.
    """
    note = f"grad {fmt_expected(got, expected)}"
    title = "Your graph: the first wrong gradient from the output down"
    try:
        top, shown, whole = neighbourhood(root, node)
    except (AttributeError, TypeError, ValueError):  # not a graph that can be read: drawn whole, or not at all
        top, shown, whole = root, None, True
    if not whole:
        root, node = top, shown[id(node)]
        title = "Your graph around its first wrong gradient (the rest left out)"
    try:
        from ..viz import GraphvizNotFound, draw_dot, text_graph
    except ImportError:  # no graphviz package: the words are enough
        return ""
    try:
        drawing = draw_dot(root, highlight=[node], notes={node: note}, title=title)
        if drawing.rankdir == "TB":  # upright: the output on top, where the search for the wrong node starts
            drawing = draw_dot(root, highlight=[node], notes={node: note}, title=title, rankdir="BT")
        return f'<div class="micrograd-verdict-figure">{drawing.html()}</div>'
    except GraphvizNotFound:
        text = text_graph(root)
        return f'<pre class="micrograd-verdict-figure">{html.escape(title)}\n{html.escape(text)}\n\n{html.escape(note)}</pre>'
    except (TypeError, ValueError):  # not a graph the drawings can read
        return ""
