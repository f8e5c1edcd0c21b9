"""A plain-text view of a graph, for terminals and doctests.

    >>> from micrograd import Value
    >>> a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    >>> e = a * b; e.label = "e"
    >>> d = e + c; d.label = "d"
    >>> d.backward()
    >>> print(text_graph(d))
    d  data  4.0000  grad  1.0000  = e + c
    --------------------------------------
    e  data -6.0000  grad  1.0000  = a * b
    c  data 10.0000  grad  1.0000
    --------------------------------------
    a  data  2.0000  grad -3.0000
    b  data -3.0000  grad  2.0000
"""

from ..graphs import NOT_KEPT
from .graph import read_for_drawing
from .labels import check_precision, format_number, plain_text

_INFIX = {"+", "-", "*", "/", "**"}


def text_graph(root, *, precision=4, show_grad=True):
    """The graph below ``root`` as text, one line per node, level by level.

    The root is on the first level; every other node sits one level below
    the lowest node that uses it, so each node appears once, after all the
    nodes computed from it.  A line shows the node's name (its label, or
    ``#n`` from the graph's numbering), data, grad, and how it was computed.
    """
    return text_view(read_for_drawing(root, "text_graph"), precision=precision, show_grad=show_grad)


def text_view(reading, *, precision=4, show_grad=True):
    """``text_graph`` of a graph already read (a ``graph.GraphReading``)."""
    check_precision(precision)
    root, order = reading.root, reading.order
    names = _names(order)
    levels = _levels(root, order)
    rows = []
    for level in levels:
        rows.append(None)  # a separator goes here
        for node in level:
            not_kept = getattr(node, NOT_KEPT, ())  # a PyTorch result autograd did not keep
            numbers = ["not kept" if "data" in not_kept else format_number(node.data, precision)]
            if show_grad:
                numbers.append("-" if "grad" in not_kept else format_number(node.grad, precision))
            rows.append((names[node], numbers, _formula(node, names)))
    return _layout(rows[1:], show_grad)


def _names(order):
    """label, or #n for unlabeled nodes and for labels used more than once."""
    counts = {}
    for node in order:
        counts[node.label] = counts.get(node.label, 0) + 1
    names = {}
    for i, node in enumerate(order):
        label = plain_text(node.label)
        names[node] = label if label and counts[node.label] == 1 else f"{label}#{i}"
    return names


def _levels(root, order):
    """Nodes grouped by their longest distance from the root, in reading order."""
    depth = {root: 0}
    for node in reversed(order):  # consumers before inputs
        below = depth[node] + 1
        for child in node.inputs:
            if depth.get(child, -1) < below:
                depth[child] = below
    levels = [[] for _ in range(max(depth.values()) + 1)]
    # Within a level: breadth-first from the root, inputs in operand order.
    seen = {root}
    queue = [root]
    for node in queue:  # the list grows while it is walked
        levels[depth[node]].append(node)
        for child in node.inputs:
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return levels


def _formula(node, names):
    if not node.inputs:
        return ""
    args = [_operand(names[child]) for child in node.inputs]
    op = node.op or "?"  # a class may record no op name: its inputs are still shown
    if op in _INFIX and len(args) == 2:
        return f"= {args[0]} {op} {args[1]}"
    if op == "neg":
        return f"= -{args[0]}"
    if op.startswith("**") and len(args) == 1:
        return f"= {args[0]}{op}"
    return f"= {op}({', '.join(args)})"


def _operand(name):
    """A name as an operand: bracketed if it looks like an expression itself."""
    if any(ch in name for ch in " +-*/()=,"):
        return f"({name})"
    return name


def _layout(rows, show_grad):
    cells = [row for row in rows if row is not None]
    name_width = max(len(name) for name, _, _ in cells)
    widths = [max(len(numbers[k]) for _, numbers, _ in cells) for k in range(1 + show_grad)]
    lines = []
    for row in rows:
        if row is None:
            lines.append(None)
            continue
        name, numbers, formula = row
        parts = [name.ljust(name_width)]
        for title, number, width in zip(("data", "grad"), numbers, widths):
            parts.append(f"{title} {number.rjust(width)}")
        if formula:
            parts.append(formula)
        lines.append("  ".join(parts))
    rule = "-" * max(len(line) for line in lines if line is not None)
    return "\n".join(rule if line is None else line for line in lines)
