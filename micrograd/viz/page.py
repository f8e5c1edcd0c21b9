"""Putting an SVG drawing on a notebook page: at its own size, scrolling when wider.

JupyterLab shrinks an SVG to the width of its output (``max-width: 100%``),
which for a wide graph means text too small to read.  ``fit_to_page`` keeps
the drawing at the size Graphviz laid it out (its text at the point sizes
the DOT asks for) inside a box that scrolls sideways when the drawing is
wider than the output, and says so under it.
"""

import base64
import html
import re

from ..palette import FOCUS_RING, MUTED_TEXT, SUMMARY_STYLE
from .options import PAGE_WIDTH_PX

__all__ = ["svg_size", "fit_to_page", "in_words", "svg_image", "inline_drawings_as_images", "side_by_side", "PX_PER_PT"]

PX_PER_PT = 4 / 3  # CSS: 1pt = 1/72 in, 1px = 1/96 in
# The media type of DOT text: the part of a drawing's notebook output that nbval compares.
DOT_MIME = "text/vnd.graphviz"
_UNITS = {"pt": PX_PER_PT, "px": 1.0, "": 1.0}
_ROOT = re.compile(r"<svg\b[^>]*>")
_LENGTH = r'="([0-9.]+)(pt|px|)"'
# A drawing's accessible name when nothing better is known, and the disclosure holding its description.
DEFAULT_NAME = "a computation graph"
WORDS_SUMMARY = "In words"
# The course's focus ring on the disclosure's summary, brought by each disclosure: a page may show a drawing
# and nothing else of the course's.  (Where a viewer strips <style> from an output it does not trust yet,
# the browser's own ring stays.)
WORDS_FOCUS_CSS = f".micrograd-words > summary:focus-visible {{outline: 2px solid {FOCUS_RING} !important; outline-offset: 2px}}"
SCROLL_LABEL = "Drawing; the arrow keys scroll it when it is wider than the page"


def svg_size(svg):
    """(width, height) of an SVG document in CSS pixels, from its root element."""
    match = _ROOT.search(svg)
    if match is None:
        raise ValueError("not an SVG document: no <svg> element found")
    size = []
    for name in ("width", "height"):
        length = re.search(rf"\b{name}{_LENGTH}", match.group(0))
        if length is None:
            raise ValueError(f"the <svg> element has no {name} in pt or px, so its size on the page is unknown")
        size.append(float(length.group(1)) * _UNITS[length.group(2)])
    return tuple(size)


def fit_to_page(svg, page_width=PAGE_WIDTH_PX, css_class="micrograd-drawing", image=False, dot=None, words=None, in_view=None):
    """HTML showing ``svg`` at its own size, in a box that scrolls sideways if it is wider than the page.

    ``words``: what the drawing says to a learner who cannot see it (a ``describe.Words``): its
    name becomes the picture's accessible name (an ``<img>``'s alt, or ``role="img"`` and
    ``aria-label`` on an inline SVG, whose text pieces a screen reader would otherwise read in
    layout order), and its description an "In words" disclosure under the box, which
    everyone can open and a screen reader reaches next.

    ``image=True`` puts the drawing in as an ``<img>`` of the SVG (a data URL) rather than inline:
    JupyterLab strips inline SVG from the HTML of a notebook it does not trust yet (a lesson
    just opened, before its cells run), and shows the text of every node instead, but it keeps
    an image.  Notebook outputs use that form; widgets, which are live, keep the SVG inline.

    ``dot``: the DOT text the SVG was drawn from, kept in the box's ``data-dot`` attribute
    (browsers ignore it): stored outputs are compared by it, not by the SVG's coordinates.

    ``in_view``: a part of the drawing, (left, top, width, height) in CSS pixels, that the box starts
    scrolled to where it is narrower than the drawing (a phone's page): an empty mark there is the
    box's initial scroll target (CSS ``scroll-initial-target``), so no script is needed.
    """
    svg = svg[svg.index("<svg") :]  # inline: the element, not an XML document
    width, height = svg_size(svg)
    # Inline sizes win over the notebook's max-width: 100%, which would shrink the text.
    size = f"max-width:none;width:{width:.0f}px;height:{height:.0f}px"
    name = DEFAULT_NAME if words is None else words.name
    if image:
        svg = svg_image(svg, alt=name, style=size)
    else:
        svg = svg.replace("<svg", f'<svg style="{size}" role="img" aria-label="{html.escape(name, quote=True)}"', 1)
    source = "" if dot is None else f' data-dot="{html.escape(dot, quote=True)}"'
    # The box takes the keyboard's focus, so the arrow keys scroll it where it is wider than the page
    # it lands on: a course site's column may be narrower than ``page_width``.
    source += f' tabindex="0" role="group" aria-label="{SCROLL_LABEL}"'
    mark = ""
    if in_view is not None:
        left, top, across, down = in_view
        mark = (f'<span class="micrograd-in-view" style="position:absolute;left:{left:.0f}px;top:{top:.0f}px;'
                f'width:{across:.0f}px;height:{down:.0f}px;scroll-initial-target:nearest;pointer-events:none"></span>')
    place = ";position:relative" if mark else ""
    box = f'<div class="{css_class}" style="overflow-x:auto;overflow-y:hidden;max-width:100%{place}"{source}>{svg}{mark}</div>'
    box += in_words(words)
    if width <= page_width:
        return box
    note = (
        f'<div class="micrograd-scroll-note" style="font-size:12px;color:{MUTED_TEXT}">'
        f"The drawing is {width:.0f} px wide: scroll sideways to see all of it.</div>"
    )
    return box + note


def in_words(words):
    """The "in words" disclosure under a drawing: its description, closed until opened ('' without one).

    No colour of its own: it takes the page's (or the theme's) text colour, so it reads in
    JupyterLab's dark theme as in the light one.
    """
    if words is None or not words.description:
        return ""
    return (
        f'<style>{WORDS_FOCUS_CSS}</style><details class="micrograd-words" style="font-size:13px;margin:2px 0 6px">'
        f'<summary style="{SUMMARY_STYLE}">{html.escape(WORDS_SUMMARY)}</summary>'
        f'<pre style="font-size:12px;margin:4px 0;white-space:pre-wrap;overflow-wrap:anywhere">{html.escape(words.description)}</pre></details>'
    )


def svg_image(svg, alt=None, style=None):
    """An ``<img>`` of ``svg`` (a data URL): the form of a picture JupyterLab keeps in an untrusted notebook."""
    alt = DEFAULT_NAME if alt is None else alt
    data = base64.b64encode(svg[svg.index("<svg") :].encode("utf-8")).decode("ascii")
    sizing = "" if style is None else f' style="{style}"'
    return f'<img alt="{html.escape(alt, quote=True)}"{sizing} src="data:image/svg+xml;base64,{data}">'


# fit_to_page's inline form: the size it put first, then the rest of Graphviz's SVG (never nested),
# up to the line end after it, which its image form holds too.
_INLINE_DRAWING = re.compile(r'<svg style="([^"]*)"(?: role="img" aria-label="([^"]*)")?(.*?</svg>\s*)', re.DOTALL)


def inline_drawings_as_images(page_html):
    """``page_html`` with each drawing ``fit_to_page`` put in inline turned into its ``<img>`` form.

    A widget's live panel keeps its drawing inline; its stored picture, which a learner sees when
    a lesson is opened and not yet run (untrusted), must be an image, or JupyterLab strips the SVG
    and shows the text of every node run together.
    """
    return _INLINE_DRAWING.sub(
        lambda match: svg_image("<svg" + match.group(3), alt=html.unescape(match.group(2) or DEFAULT_NAME), style=match.group(1)),
        page_html,
    )


class SideBySide:
    """Drawings next to each other under their captions, for a notebook.

    Two forms: HTML, where they sit side by side (one under the other on a narrow page), and
    one SVG picture of them one under the other, which a viewer that will not show a stored
    notebook's HTML (JupyterLab, before the notebook is trusted or run) shows as an image.
    """

    def __init__(self, html, svg, dot=""):
        self.html = html
        self.svg = svg
        self.dot = dot  # each drawing's DOT text under its caption: what nbval compares

    def _repr_html_(self):
        return self.html

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        return {"text/html": self.html, "image/svg+xml": self.svg, DOT_MIME: self.dot, "text/plain": repr(self)}

    def __repr__(self):  # what a notebook stores as text: no memory address, the same on every run
        return f"<{self.dot.count('digraph')} drawings side by side>"


_CAPTION_PX = 22


def side_by_side(drawings, page_width=PAGE_WIDTH_PX):
    """``{caption: drawing}`` in one row, each drawing at its own size under its caption.

    Where the page is too narrow for the row, a drawing moves under the one before it rather
    than shrinking; one drawing wider than the page scrolls in its own box, as always.
    A drawing is anything with ``svg()``: a ``GraphDrawing`` from ``draw_dot``.
    """
    svgs = {caption: drawing.svg() for caption, drawing in drawings.items()}
    sources = {caption: getattr(drawing, "source", None) for caption, drawing in drawings.items()}
    words = {caption: getattr(drawing, "words", None) for caption, drawing in drawings.items()}
    cells = "".join(
        '<div style="flex:0 1 auto;max-width:100%;margin:0 24px 12px 0">'
        f'<div style="font:bold 14px sans-serif;margin-bottom:4px">{html.escape(caption)}</div>'
        f"{fit_to_page(svg, page_width, image=True, dot=sources[caption], words=words[caption])}</div>"
        for caption, svg in svgs.items()
    )
    row = f'<div class="micrograd-side-by-side" style="display:flex;flex-wrap:wrap;align-items:flex-start">{cells}</div>'
    dot = "".join(f"// {caption}\n{source or ''}" for caption, source in sources.items())
    return SideBySide(row, _stacked_svg(svgs), dot)


def _stacked_svg(svgs):
    """One SVG document: each drawing under its caption, one under the other, at its own size."""
    parts, top, widest = [], 0.0, 0.0
    for caption, svg in svgs.items():
        svg = svg[svg.index("<svg") :]
        width, height = svg_size(svg)
        root = _ROOT.search(svg).group(0)
        placed = re.sub(rf"\b(width|height){_LENGTH}", lambda m: f'{m.group(1)}="{width if m.group(1) == "width" else height:.0f}"', root)
        placed = placed.replace("<svg", f'<svg x="0" y="{top + _CAPTION_PX:.0f}"', 1)
        parts.append(
            f'<text x="0" y="{top + 15:.0f}" font-family="sans-serif" font-size="14" font-weight="bold">'
            f"{html.escape(caption)}</text>" + svg.replace(root, placed, 1)
        )
        top += _CAPTION_PX + height + 12
        widest = max(widest, width)
    return (
        f'<svg class="micrograd-side-by-side" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'width="{widest:.0f}px" height="{top:.0f}px" viewBox="0 0 {widest:.0f} {top:.0f}">{"".join(parts)}</svg>'
    )
