"""Pictures a failed check shows under its verdict: the learner's own graph, where it went wrong."""

import html

from .build import fmt

__all__ = ["wrong_gradient_figure"]


def wrong_gradient_figure(root, node, got, expected):
    """HTML: the graph below ``root`` (the learner's own nodes) with ``node`` marked in red and both
    numbers on it, the gradient it holds and the one it should hold.

    It fits the page as every drawing does.  Without Graphviz it is the text view; a graph that
    cannot be read at all gives no figure, never an error: the verdict's words stand alone.
    """
    note = f"grad {fmt(got)}, expected {fmt(expected)}"
    title = "Your graph: the first wrong gradient from the output down"
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
