"""What every widget controller shares: display, number format, SVG graphs."""

import html

from .. import optional, palette

__all__ = ["require", "Controller", "graph_html", "graph_widget", "fmt", "message_html", "no_graphviz_html", "static_html"]

# A graph panel scrolls within this height, so the buttons and the panel of
# numbers above it stay on a 800 px screen while the graph is explored.
GRAPH_MAX_HEIGHT = "480px"


def require(module, feature="micrograd.widgets"):
    """Import a third-party module the widgets need, or say how to get it (``feature``: which part needs it)."""
    return optional.require(module, feature, "widgets")


widgets = require("ipywidgets")


class Controller:
    """Owns some state and shows it in ``self.widget`` (an ipywidgets Box).

    Putting a controller on the last line of a cell displays its widget.  The
    plain-text part of that display is a short summary rather than the
    widget's repr, which would be long and hold an object's address.  The
    HTML part is a static picture of the state (``static_html()``): where no
    kernel runs (GitHub, nbviewer, a static site) it stands in for the live
    widget, which JupyterLab shows instead.
    """

    widget = None

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.summary()
        bundle["text/html"] = self.static_html()
        return bundle

    def static_html(self):
        """The widget's current state as HTML with no controls (the same in every run)."""
        return static_html(message_html(self.summary()))

    def summary(self):
        """One line saying what the controller shows and where it is."""
        return type(self).__name__

    def __repr__(self):
        return f"<{self.summary()}>"


def fmt(x, precision=4):
    """A number as the drawings show it (``micrograd.viz``'s format)."""
    from ..viz import format_number

    return format_number(x, precision)


def static_html(body):
    """A widget's static picture: ``body`` in a box that says the live widget needs a kernel.

    Its drawings become images: the picture is what a learner sees in a lesson opened and not
    yet run, where JupyterLab strips inline SVG and would show each drawing's text run together.
    """
    from ..viz import inline_drawings_as_images

    return (
        f'<div class="micrograd-static">{inline_drawings_as_images(body)}'
        f'<div class="micrograd-static-caption" style="font-size:12px;color:{palette.MUTED_TEXT}">'
        "A picture of the widget; run the notebook to use it.</div></div>"
    )


def message_html(text, kind="note"):
    """A short message for a panel; ``kind='error'`` shows it in the theme's error colour (red), a note in
    the theme's text colour, light or dark.  The words say what is wrong: the red only repeats it."""
    if kind == "error":
        return f'<div class="micrograd-error" style="color:{palette.ERROR_TEXT}">{html.escape(text)}</div>'
    return f'<div class="micrograd-{kind}">{html.escape(text)}</div>'


def graph_widget():
    """The HTML widget a graph is shown in: at most GRAPH_MAX_HEIGHT tall, scrolling inside."""
    graph = widgets.HTML(layout={"max_height": GRAPH_MAX_HEIGHT, "overflow": "auto"})
    graph.add_class("micrograd-graph")
    return graph


def graph_html(drawing, layout=None):
    """A ``micrograd.viz`` drawing as HTML for an ``ipywidgets.HTML``: at its own size, scrolling when wide.

    Its box carries the DOT text (``data-dot``), so a stored picture is
    compared by what was drawn, not by Graphviz's coordinates.  ``layout``: a
    ``viz.KeptLayout``, for a widget that redraws one graph in many states.
    Without pygraphviz or Graphviz's ``dot`` program the panel shows viz's
    install advice and the DOT text instead, so the widget still works.
    """
    graphviz = require("graphviz")
    from ..viz import fit_to_page

    try:
        if layout is None:
            return drawing.html()
        return fit_to_page(layout.svg(drawing), drawing.page_width, dot=drawing.source, words=drawing.words)
    except graphviz.ExecutableNotFound as error:
        return no_graphviz_html(error, drawing)


def no_graphviz_html(error, drawing):
    """What a graph panel shows without Graphviz: viz's install advice, and the DOT text."""
    return f'<pre class="micrograd-error">{html.escape(str(error))}</pre><pre>{html.escape(drawing.source)}</pre>'
