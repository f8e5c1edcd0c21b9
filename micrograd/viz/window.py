"""A window onto a drawing: the part of its SVG that holds chosen nodes, cut out by its viewBox.

A drawing taller than the box it is shown in scrolls there, and nothing can scroll it to a
node: a notebook widget's HTML runs no script.  What the SVG itself says is shown as it says it,
so a drawing is cropped instead: its ``viewBox`` becomes a window around the nodes that matter,
and its width and height the window's, so every text keeps its size.

The nodes are named as the DOT text names them (``v3``, ``o3``; see ``dotsource``), and found in
the SVG by the ``<title>`` Graphviz gives each node's group, so the window follows whatever
layout drew the picture (a fresh one or a ``KeptLayout``'s).
"""

import re

from . import style
from .page import svg_size

__all__ = ["node_boxes", "window_around", "crop_to_window", "place_in_window", "marked_nodes", "leaf_nodes", "output_nodes", "Window"]

_ROOT = re.compile(r"<svg\b[^>]*>")
_VIEWBOX = re.compile(r'\bviewBox="([-0-9.]+) ([-0-9.]+) ([-0-9.]+) ([-0-9.]+)"')
_SIZE = re.compile(r'\b(width|height)="[0-9.]+(pt|px|)"')
_GRAPH_TRANSFORM = re.compile(r'<g id="graph0" class="graph" transform="([^"]*)"')
_SCALE = re.compile(r"scale\(([-0-9.]+)(?:[ ,]+([-0-9.]+))?\)")
_TRANSLATE = re.compile(r"translate\(([-0-9.]+)(?:[ ,]+([-0-9.]+))?\)")
# Each group Graphviz writes starts so; a node's is followed by its <title>, the DOT name.
_GROUP = re.compile(r'<g id="[^"]*" class="(\w+)">\s*(?:<title>([^<]*)</title>)?')
# Graphviz draws a node with absolute coordinates only: paths (M and C), polygons, ellipses.
_COORDINATES = re.compile(r'\b(?:points|d)="([^"]*)"')
_ELLIPSE = re.compile(r'<ellipse\b[^>]*?\bcx="([-0-9.]+)" cy="([-0-9.]+)" rx="([-0-9.]+)" ry="([-0-9.]+)"')
_ID = re.compile(r' (?:id|class)="[^"]*"')
_NUMBER = re.compile(r"-?[0-9]*\.?[0-9]+(?:e-?[0-9]+)?")

# The DOT text has one statement per line (see dotsource): nodes, then edges.
_NODE_LINE = re.compile(r"^\t(\w+) \[(.*)\]$", re.M)
_EDGE_LINE = re.compile(r"^\t(\w+) -> (\w+)(?: \[(.*)\])?$", re.M)
_MARK = f' color="{style.HIGHLIGHT}" penwidth='  # a marked node's or edge's own attributes, never a label's


# Between two bands of a window, the part of the drawing left out: this much room, with a dashed line.
BAND_GAP = 12.0
_BAND_MARGIN = 6.0  # around the nodes a band holds


class Window:
    """A part of a drawing, in the SVG's user units (Graphviz's points): ``x`` and ``width`` across,
    and one or more ``bands`` (top, height) down, shown one under the other with ``BAND_GAP``
    between them; ``height`` is what they take together."""

    __slots__ = ("x", "width", "bands")

    def __init__(self, x, y, width, height, bands=None):
        self.x, self.width = x, width
        self.bands = list(bands) if bands else [(y, height)]

    @property
    def y(self):
        return self.bands[0][0]

    @property
    def height(self):
        return sum(h for _, h in self.bands) + BAND_GAP * (len(self.bands) - 1)

    def holds(self, box):
        """Is ``box`` (x0, y0, x1, y1) inside the window, all in one band?"""
        x0, y0, x1, y1 = box
        slack = 1e-6
        across = x0 >= self.x - slack and x1 <= self.x + self.width + slack
        return across and any(y0 >= top - slack and y1 <= top + height + slack for top, height in self.bands)

    def __repr__(self):
        bands = "" if len(self.bands) == 1 else f", bands={[(round(t, 2), round(h, 2)) for t, h in self.bands]}"
        return f"Window(x={self.x:.2f}, y={self.y:.2f}, width={self.width:.2f}, height={self.height:.2f}{bands})"


def _view_box(svg):
    root = _ROOT.search(svg)
    box = _VIEWBOX.search(root.group(0)) if root else None
    if box is None:
        raise ValueError("the SVG has no viewBox on its <svg> element, so it cannot be cropped")
    return tuple(float(number) for number in box.groups())


def _transform(svg):
    """(scale x, scale y, translate x, translate y) of Graphviz's top group: user = scale × (point + translate)."""
    found = _GRAPH_TRANSFORM.search(svg)
    if found is None:
        return 1.0, 1.0, 0.0, 0.0
    scale, translate = _SCALE.search(found.group(1)), _TRANSLATE.search(found.group(1))
    sx = float(scale.group(1)) if scale else 1.0
    sy = float(scale.group(2) or sx) if scale else 1.0
    tx = float(translate.group(1)) if translate else 0.0
    ty = float(translate.group(2) or 0.0) if translate else 0.0
    return sx, sy, tx, ty


def node_boxes(svg):
    """{DOT name: (x0, y0, x1, y1)} of every node Graphviz drew in ``svg``, in the SVG's user units."""
    sx, sy, tx, ty = _transform(svg)
    boxes = {}
    groups = list(_GROUP.finditer(svg))
    for k, group in enumerate(groups):
        if group.group(1) != "node" or group.group(2) is None:
            continue
        end = groups[k + 1].start() if k + 1 < len(groups) else len(svg)
        body = svg[group.end():end]
        xs, ys = [], []
        for coordinates in _COORDINATES.findall(body):
            numbers = [float(n) for n in _NUMBER.findall(coordinates)]
            xs.extend(numbers[0::2])
            ys.extend(numbers[1::2])
        for cx, cy, rx, ry in _ELLIPSE.findall(body):
            xs.extend((float(cx) - float(rx), float(cx) + float(rx)))
            ys.extend((float(cy) - float(ry), float(cy) + float(ry)))
        if xs and ys:
            xs, ys = [sx * (x + tx) for x in xs], [sy * (y + ty) for y in ys]
            boxes[_unescape(group.group(2))] = (min(xs), min(ys), max(xs), max(ys))
    return boxes


def _unescape(title):
    return title.replace("&#45;", "-").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")


def window_around(svg, focus, nearby=(), width_px=None, height_px=None):
    """The ``Window`` of at most ``width_px`` × ``height_px`` CSS pixels that holds the nodes ``focus``
    (DOT names) and as many of ``nearby`` as fit with them, in their order; None when the whole
    drawing fits that size.  Without ``focus``, the first of ``nearby`` is the focus.

    The window is centred on what it holds, and kept inside the drawing.  When the focus alone is
    larger than the window, the window starts at its top left corner.  Nodes too far apart
    up and down for one window (lesson 3's leaves: the bias sits halfway up) are shown in bands,
    one under the other, the rows between them left out.
    """
    vx, vy, vw, vh = _view_box(svg)
    width, height = svg_size(svg)
    units_x, units_y = vw / width, vh / height  # user units per CSS pixel
    ww = vw if width_px is None else min(vw, width_px * units_x)
    wh = vh if height_px is None else min(vh, height_px * units_y)
    if ww >= vw and wh >= vh:
        return None
    boxes = node_boxes(svg)
    focus = [boxes[name] for name in focus if name in boxes]
    nearby = [boxes[name] for name in nearby if name in boxes]
    if not focus and nearby:
        focus = [nearby.pop(0)]
    if not focus:
        return Window(vx, vy, ww, wh)
    held = list(focus)
    for box in nearby:
        grown = _union(held + [box])
        if grown[2] - grown[0] <= ww and (grown[3] - grown[1] <= wh or _bands(held + [box], wh, vy, vh) is not None):
            held.append(box)
    union = _union(held)
    x = _place(union[0], union[2], ww, vx, vw)
    if union[3] - union[1] <= wh or len(held) == len(focus):
        return Window(x, _place(union[1], union[3], wh, vy, vh), ww, wh)
    return Window(x, 0.0, ww, 0.0, _bands(held, wh, vy, vh))


def _bands(boxes, most, start, extent):
    """[(top, height)] of bands, top to bottom, that hold ``boxes`` within ``most`` together; None when none do."""
    spans = []
    for top, bottom in sorted((box[1] - _BAND_MARGIN, box[3] + _BAND_MARGIN) for box in boxes):
        top, bottom = max(top, start), min(bottom, start + extent)
        if spans and top <= spans[-1][1] + BAND_GAP:  # a gap would save no room: one band
            spans[-1][1] = max(spans[-1][1], bottom)
        else:
            spans.append([top, bottom])
    def total():
        return sum(bottom - top for top, bottom in spans) + BAND_GAP * (len(spans) - 1)

    while len(spans) > 1:  # fewer cuts where there is room: join the bands nearest each other
        k = min(range(len(spans) - 1), key=lambda i: spans[i + 1][0] - spans[i][1])
        if total() + spans[k + 1][0] - spans[k][1] - BAND_GAP > most:
            break
        spans[k:k + 2] = [[spans[k][0], spans[k + 1][1]]]
    return [(top, bottom - top) for top, bottom in spans] if total() <= most else None


def _union(boxes):
    return min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)


def _place(low, high, size, start, extent):
    """Where a window of ``size`` starts to hold ``low``..``high`` in its middle, within ``start``..``start + extent``."""
    begin = low - (size - (high - low)) / 2 if high - low <= size else low
    return min(max(begin, start), start + extent - size)


def crop_to_window(svg, window):
    """``svg`` showing only ``window``: its viewBox and its size (in the units it had) cut to it; a
    window of several bands shows each in a nested ``<svg>`` of its own, with a dashed line across
    each gap.  Each band holds a copy of the drawing, the later ones without ``id``s or classes (a
    page holds many drawings, all with Graphviz's ids, so a ``<use>`` of one could show another;
    and a node is found once in the page)."""
    root = _ROOT.search(svg)
    if root is None:
        raise ValueError("not an SVG document: no <svg> element found")
    _, _, vw, vh = _view_box(svg)
    element = root.group(0)

    def size(match):
        whole, part = (vw, window.width) if match.group(1) == "width" else (vh, window.height)
        number = float(re.search(r"[0-9.]+", match.group(0)[len(match.group(1)) :]).group(0))
        return f'{match.group(1)}="{number * part / whole:.2f}{match.group(2)}"'

    element = _SIZE.sub(size, element)
    if len(window.bands) == 1:
        element = _VIEWBOX.sub(f'viewBox="{window.x:.2f} {window.y:.2f} {window.width:.2f} {window.height:.2f}"', element)
        return svg[: root.start()] + element + svg[root.end():]
    element = _VIEWBOX.sub(f'viewBox="0 0 {window.width:.2f} {window.height:.2f}"', element)
    drawing = svg[root.end() : svg.rindex("</svg>")]
    parts, top = [], 0.0
    for k, (y, height) in enumerate(window.bands):
        if k:
            middle = top + BAND_GAP / 2
            parts.append(f'<line class="micrograd-band-gap" x1="0" y1="{middle:.2f}" x2="{window.width:.2f}" y2="{middle:.2f}" '
                         f'stroke="{style.WINDOW_CUT}" stroke-dasharray="4 3"/>')
            top += BAND_GAP
        inside = drawing if k == 0 else _ID.sub("", drawing)
        parts.append(f'<svg class="micrograd-band" x="0" y="{top:.2f}" width="{window.width:.2f}" height="{height:.2f}" '
                     f'viewBox="{window.x:.2f} {y:.2f} {window.width:.2f} {height:.2f}">{inside}</svg>')
        top += height
    return svg[: root.start()] + element + "".join(parts) + "</svg>\n"


def place_in_window(svg, window, name):
    """Where the node ``name`` (its DOT name) is in ``crop_to_window(svg, window)`` as shown: (left, top, width,
    height) in CSS pixels from the cropped picture's top left corner; None when the window does not hold it."""
    box = node_boxes(svg).get(name)
    if box is None or not window.holds(box):
        return None
    _, _, vw, vh = _view_box(svg)
    width, height = svg_size(svg)
    units_x, units_y = vw / width, vh / height
    above = 0.0  # the bands above the one holding the node, and their gaps
    for top, band in window.bands:
        if box[1] >= top - 1e-6 and box[3] <= top + band + 1e-6:
            return ((box[0] - window.x) / units_x, (above + box[1] - top) / units_y,
                    (box[2] - box[0]) / units_x, (box[3] - box[1]) / units_y)
        above += band + BAND_GAP
    return None


def marked_nodes(source):
    """(the nodes ``source`` marks, the nodes whose marked edges lead into them): DOT names, in order."""
    marked = [name for name, attributes in _NODE_LINE.findall(source) if _MARK in f" {attributes}"]
    feeding = []
    for tail, head, attributes in _EDGE_LINE.findall(source):
        if attributes and _MARK in f" {attributes}" and tail not in marked and tail not in feeding:
            feeding.append(tail)
    return marked, feeding


def leaf_nodes(source):
    """The nodes of ``source`` that no edge leads into: a graph's inputs, in the DOT text's order."""
    heads = {head for _, head, _ in _EDGE_LINE.findall(source)}
    return [name for name, _ in _NODE_LINE.findall(source) if name not in heads and name not in ("graph", "node", "edge")]


def output_nodes(source):
    """The nodes of ``source`` that no edge leaves: a graph's output."""
    tails = {tail for tail, _, _ in _EDGE_LINE.findall(source)}
    return [name for name, _ in _NODE_LINE.findall(source) if name not in tails and name not in ("graph", "node", "edge")]
