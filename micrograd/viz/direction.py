"""How wide a drawing will be, estimated from its DOT text alone.

``rankdir='auto'`` draws left to right unless that is wider than the page and
top to bottom is narrower.  Measuring a rendering for that made even the DOT
text depend on the machine (its Graphviz and its fonts), so the stored
notebooks could not be compared from one machine to another.  This estimate
reads only the statements micrograd writes (one per line: nodes with
HTML-like labels, edges with optional labels), so the choice depends on the
graph and nothing else.

Widths are in CSS pixels.  A character is taken as ``CHAR_EM`` of its font
size (DejaVu Sans, the pinned font, averages a little over half an em for
digits and lower-case letters); boxes add their cell padding and margins.
It is an estimate, not a layout: it only has to tell a drawing that fits
from one that clearly does not.
"""

import html
import re

from .page import PX_PER_PT

__all__ = ["estimated_width"]

CHAR_EM = 0.6
NODE_MARGIN_PT = 16  # Graphviz's default node margin (0.11 in each side) plus the border
CELL_PADDING_PT = 8
DEFAULT_FONT_PT = 14

_NODE = re.compile(r"^\t(\w+) \[(.*)\]$")
_EDGE = re.compile(r"^\t(\w+) -> (\w+)(?: \[(.*)\])?$")
_DEFAULTS = re.compile(r"^\t(graph|node|edge) \[(.*)\]$")
_FONT_SIZE = re.compile(r"\bfontsize=([0-9.]+)")
_SEP = {"nodesep": 0.25, "ranksep": 0.5}  # Graphviz's defaults, in inches
_TAG = re.compile(r"<[^>]*>")


def _text_pt(text, font_pt):
    return len(html.unescape(_TAG.sub("", text))) * CHAR_EM * font_pt


def _label_width_pt(label, font_pt):
    """The width of an HTML-like label: its widest row of cells, or its widest line."""
    rows = re.findall(r"<TR>(.*?)</TR>", label)
    if rows:
        return max(
            sum(_text_pt(cell, font_pt) + CELL_PADDING_PT for cell in re.findall(r"<TD[^>]*>(.*?)</TD>", row))
            for row in rows
        )
    return max(_text_pt(line, font_pt) for line in re.split(r"<BR/>", label))


def _label(attributes):
    """The label in a statement's attributes: ``label=<...>`` (HTML-like) or ``label="..."``."""
    match = re.search(r"\blabel=<(.*)>(?= \w+=|$)", attributes) or re.search(r'\blabel="((?:[^"\\]|\\.)*)"', attributes)
    return match.group(1) if match else ""


def estimated_width(source):
    """Estimated width in CSS pixels of the drawing of ``source``, in the direction its ``rankdir`` says."""
    rankdir, sep = "TB", dict(_SEP)
    font = {"node": DEFAULT_FONT_PT, "edge": DEFAULT_FONT_PT}
    widths, inputs, edge_labels = {}, {}, {}
    for line in source.splitlines():
        defaults = _DEFAULTS.match(line)
        if defaults:
            kind, attributes = defaults.groups()
            if kind == "graph":
                found = re.search(r"\brankdir=(\w+)", attributes)
                rankdir = found.group(1) if found else "TB"
                for name in sep:
                    found = re.search(rf"\b{name}=([0-9.]+)", attributes)
                    if found:
                        sep[name] = float(found.group(1))
            size = _FONT_SIZE.search(attributes)
            if size and kind in font:
                font[kind] = float(size.group(1))
            continue
        edge = _EDGE.match(line)
        if edge:
            tail, head, attributes = edge.groups()
            inputs.setdefault(head, []).append(tail)
            inputs.setdefault(tail, [])
            label = _label(attributes or "")
            if label:
                size = _FONT_SIZE.search(attributes)
                width = _text_pt(label, float(size.group(1)) if size else font["edge"])
                edge_labels[head] = max(edge_labels.get(head, 0.0), width)
            continue
        node = _NODE.match(line)
        if node:
            name, attributes = node.groups()
            size = _FONT_SIZE.search(attributes)
            widths[name] = _label_width_pt(_label(attributes), float(size.group(1)) if size else font["node"]) + NODE_MARGIN_PT
            inputs.setdefault(name, [])
    ranks = _ranks(inputs)
    by_rank = {}
    for name, rank in ranks.items():
        by_rank.setdefault(rank, []).append(widths.get(name, NODE_MARGIN_PT))
    if not by_rank:
        return 0.0
    if rankdir in ("LR", "RL"):
        gaps = {}
        for head, width in edge_labels.items():
            gaps[ranks[head]] = max(gaps.get(ranks[head], 0.0), width)
        along = sum(max(row) for row in by_rank.values())
        along += sep["ranksep"] * 72 * (len(by_rank) - 1) + sum(gaps.values())
        return along * PX_PER_PT
    across = max(sum(row) + sep["nodesep"] * 72 * (len(row) - 1) for row in by_rank.values())
    return across * PX_PER_PT


def _ranks(inputs):
    """Each node's rank: one more than its highest input's; a node with no inputs just before its first user."""
    ranks = {}
    for start in inputs:
        stack = [start]
        while stack:
            name = stack[-1]
            if name in ranks:
                stack.pop()
                continue
            pending = [tail for tail in inputs[name] if tail not in ranks]
            if pending:
                stack.extend(pending)
                continue
            ranks[name] = 1 + max((ranks[tail] for tail in inputs[name]), default=-1)
            stack.pop()
    # dot keeps edges short: a node with no inputs sits just before the first node that uses it.
    users = {}
    for head, tails in inputs.items():
        for tail in tails:
            users.setdefault(tail, []).append(head)
    for name, tails in inputs.items():
        if not tails and name in users:
            ranks[name] = min(ranks[user] for user in users[name]) - 1
    return ranks
