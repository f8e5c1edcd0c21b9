"""Putting an SVG drawing on a notebook page: at its own size, scrolling when wider.

JupyterLab shrinks an SVG to the width of its output (``max-width: 100%``),
which for a wide graph means text too small to read.  ``fit_to_page`` keeps
the drawing at the size Graphviz laid it out (its text at the point sizes
the DOT asks for) inside a box that scrolls sideways when the drawing is
wider than the output, and says so under it.
"""

import re

from .options import PAGE_WIDTH_PX

__all__ = ["svg_size", "fit_to_page", "side_by_side", "PX_PER_PT"]

PX_PER_PT = 4 / 3  # CSS: 1pt = 1/72 in, 1px = 1/96 in
_UNITS = {"pt": PX_PER_PT, "px": 1.0, "": 1.0}
_ROOT = re.compile(r"<svg\b[^>]*>")
_LENGTH = r'="([0-9.]+)(pt|px|)"'


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


def fit_to_page(svg, page_width=PAGE_WIDTH_PX, css_class="micrograd-drawing"):
    """HTML showing ``svg`` at its own size, in a box that scrolls sideways if it is wider than the page."""
    svg = svg[svg.index("<svg") :]  # inline: the element, not an XML document
    width, height = svg_size(svg)
    # Inline sizes win over the notebook's max-width: 100%, which would shrink the text.
    svg = svg.replace("<svg", f'<svg style="max-width:none;width:{width:.0f}px;height:{height:.0f}px"', 1)
    box = f'<div class="{css_class}" style="overflow-x:auto;overflow-y:hidden;max-width:100%">{svg}</div>'
    if width <= page_width:
        return box
    note = (
        '<div class="micrograd-scroll-note" style="font-size:12px;color:#475569">'
        f"The drawing is {width:.0f} px wide: scroll sideways to see all of it.</div>"
    )
    return box + note


class SideBySide:
    """Drawings next to each other under their captions, shown as HTML in a notebook."""

    def __init__(self, html):
        self.html = html

    def _repr_html_(self):
        return self.html


def side_by_side(drawings, page_width=PAGE_WIDTH_PX):
    """``{caption: drawing}`` in one row, each drawing at its own size under its caption.

    Where the page is too narrow for the row, a drawing moves under the one before it rather
    than shrinking; one drawing wider than the page scrolls in its own box, as always.
    A drawing is anything with ``svg()``: a ``GraphDrawing`` from ``draw_dot``.
    """
    import html

    cells = "".join(
        '<div style="flex:0 1 auto;max-width:100%;margin:0 24px 12px 0">'
        f'<div style="font:bold 14px sans-serif;margin-bottom:4px">{html.escape(caption)}</div>'
        f"{fit_to_page(drawing.svg(), page_width)}</div>"
        for caption, drawing in drawings.items()
    )
    return SideBySide(f'<div class="micrograd-side-by-side" style="display:flex;flex-wrap:wrap;align-items:flex-start">{cells}</div>')
