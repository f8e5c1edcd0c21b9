"""A graph in words: a drawing's accessible name and its description.

A screen reader cannot read a drawing's layout: Graphviz's SVG holds the
text pieces of its boxes in the order they were placed ("a", "data 2.0000",
"grad 0.0000", ...).  So every drawing carries two texts made from the graph
itself, never from the layout:

- its **name**, one line: the expression the graph computes
  (``L = (a * b + c) * f``, its value and grad), or, when that would be too
  long to hear in one breath, what the output is and how many values and
  operations lead to it;
- its **description**: the text view (``text_graph``), one line per node,
  level by level from the output down; past ``MAX_DESCRIBED_NODES`` nodes, a
  summary (the counts of each role and operation) instead of thousands of lines.

Both are pure functions of the graph, so a stored notebook's output compares
them as it compares the DOT text.
"""

from collections import Counter

from .graph import read_for_drawing
from .labels import format_number, plain_text
from .text import text_view

__all__ = ["Words", "describe_graph", "describe_reading", "MAX_DESCRIBED_NODES", "MAX_NAME_CHARS"]

MAX_DESCRIBED_NODES = 40  # past this the description is a summary: 40 lines are read in about a minute
MAX_NAME_CHARS = 120  # an expression longer than this is not a name but a paragraph
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


class Words:
    """What a drawing says to a learner who cannot see it: ``name`` (one line) and ``description``."""

    def __init__(self, name, description=""):
        self.name = name
        self.description = description

    def __repr__(self):
        return f"Words({self.name!r})"


def describe_graph(root, *, precision=4, show_grad=True, highlight=None, notes=None):
    """``Words`` for the graph below ``root`` (any micrograd-style node): its expression, and its text view.

    ``highlight`` and ``notes`` as ``draw_dot`` takes them: the nodes marked in red (a stepper's
    active node, a checker's wrong node) are named first in the description, with their notes,
    so what the colour shows is said in words too.
    """
    reading = read_for_drawing(root, "describe_graph")
    return describe_reading(reading, precision=precision, show_grad=show_grad, highlight=highlight, notes=notes)


def describe_reading(reading, *, precision=4, show_grad=True, highlight=None, notes=None):
    """``describe_graph`` of a graph already read (a ``graph.GraphReading``)."""
    marks = _marks(highlight, notes, precision)
    root, order = reading.root, reading.order
    name = _output_name(root)
    numbers = f"data {format_number(root.data, precision)}"
    if show_grad:
        numbers += f", grad {format_number(root.grad, precision)}"
    expression = _expression(root) if root.inputs else None
    if expression is not None and len(expression) <= MAX_NAME_CHARS:
        title = f"Computation graph: {name} = {expression} ({numbers})" if name else f"Computation graph: {expression} ({numbers})"
    else:
        title = f"Computation graph of {name or 'the output'} ({numbers}): {_counts(order)}"
    if len(order) <= MAX_DESCRIBED_NODES:
        description = text_view(reading, precision=precision, show_grad=show_grad)
    else:
        description = _summary(order, title)
    return Words(title, marks + description)


def _marks(highlight, notes, precision):
    """'Marked: e (expected -6.0000)' lines for the nodes a drawing marks, in the order given."""
    nodes = [node for node in (highlight or ()) if not isinstance(node, tuple)]
    nodes += [node for node in (notes or {}) if all(node is not other for other in nodes)]
    lines = []
    for node in nodes:
        label = getattr(node, "label", "")
        name = plain_text(label) if label else f"the node holding {format_number(node.data, precision)}"
        note = (notes or {}).get(node)
        lines.append(f"Marked: {name}" + (f" ({plain_text(str(note))})" if note else "") + "\n")
    return "".join(lines)


def _output_name(node):
    return plain_text(node.label) if node.label else ""


def _counts(order):
    leaves = sum(1 for node in order if not node.inputs)
    ops = len(order) - leaves
    return f"{len(order)} values, {leaves} of them inputs or parameters, {ops} computed by operations"


def _summary(order, title):
    ops = Counter(node.op or "?" for node in order if node.inputs)
    listed = ", ".join(f"{count} × {op}" for op, count in sorted(ops.items(), key=lambda item: (-item[1], item[0])))
    return (
        f"{title}.\nToo many to read one by one ({len(order)} values; the text view lists at most "
        f"{MAX_DESCRIBED_NODES}). Operations: {listed}.\n"
        "micrograd.viz.text_graph(root) prints every node."
    )


def _expression(root):
    """``root`` as an infix expression of its leaves, or None when it grows past ``MAX_NAME_CHARS``."""
    budget = [MAX_NAME_CHARS]

    def spell(node, depth):
        if budget[0] < 0 or depth > MAX_NAME_CHARS:
            return None, 0
        if not node.inputs:
            text = plain_text(node.label) if node.label else format_number(node.data, 4)
            budget[0] -= len(text)
            return text, 9
        parts = [spell(child, depth + 1) for child in node.inputs]
        if any(text is None for text, _ in parts):
            return None, 0
        op = node.op or "?"
        if op in _PRECEDENCE and len(parts) == 2:
            rank = _PRECEDENCE[op]
            (left, left_rank), (right, right_rank) = parts
            left = left if left_rank >= rank else f"({left})"
            # a - (b - c) and a / (b * c) keep their brackets; a + (b + c) needs none
            right = right if right_rank > rank or (right_rank == rank and op in "+*") else f"({right})"
            text, rank_out = f"{left} {op} {right}", rank
        elif op == "neg" and len(parts) == 1:
            text, rank_out = f"-{_bracketed(parts[0], 3)}", 3
        elif op.startswith("**") and len(parts) == 1:
            text, rank_out = f"{_bracketed(parts[0], 4)}{op}", 4
        else:
            text, rank_out = f"{op}({', '.join(text for text, _ in parts)})", 9
        budget[0] -= len(op) + 2
        return text, rank_out

    return spell(root, 0)[0]


def _bracketed(part, rank):
    text, own = part
    return text if own >= rank else f"({text})"
