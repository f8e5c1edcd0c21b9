"""DOT text for a computation graph: a pure function of the graph.

Each Value is a record (label | data | grad), coloured by its role, and each
operation a separate small node feeding it, as in the lecture; ``b = a + a``
draws two edges from ``a``.  Names are ``v<n>`` and ``o<n>`` from the
drawing's own numbering, so the text is the same in every process.

The statements are written once and laid out in either direction: left to
right and top to bottom differ only in the graph's ``rankdir`` and in how a
record's fields are stacked, so ``draw_dot``'s choice between the two costs
no second writing.
"""

from dataclasses import dataclass, field

from . import style
from .blocks import GROUP, MORE, REST, VALUE
from .collapse import fit, folded_count
from .graph import GraphIndex, INTERMEDIATE, ROLES, read_for_drawing
from .labels import format_number, html_text
from .options import make_options
from ..engine import Value
from ..graphs import NOT_KEPT

GRAPH_NAME = "micrograd"
STACKED = ("TB", "BT")  # directions whose records show their fields one under the other


class _Record:
    """A Value's statement, its fields in a row (left to right) or one under the other (top to bottom)."""

    __slots__ = ("start", "cells", "end")

    def __init__(self, start, cells, end):
        self.start, self.cells, self.end = start, cells, end

    def text(self, stacked):
        if stacked:
            # Top to bottom, the fields go one under the other: a narrow box,
            # so a rank of several Values still fits the page.
            rows = "<HR/>".join(f"<TR><TD>{cell}</TD></TR>" for cell in self.cells)
            label = f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3">{rows}</TABLE>'
        else:
            row = "<VR/>".join(f"<TD>{cell}</TD>" for cell in self.cells)
            label = f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="4"><TR>{row}</TR></TABLE>'
        return f"{self.start}{label}{self.end}"


@dataclass
class DotText:
    """The statements of a drawing, in either direction, and what went into it."""

    body: list  # DOT statements after the graph's own, each a line or a _Record
    value_count: int  # Values in the graph
    node_count: int  # Graphviz nodes drawn
    collapsed: list = field(default_factory=list)  # one note per collapsing step taken

    def statements(self, rankdir):
        """The statements, one per line, each ending in a newline, laid out ``rankdir``."""
        stacked = rankdir in STACKED
        head = (
            f'\tgraph [rankdir={rankdir} fontname="{style.FONT}" bgcolor="white" '
            f"nodesep=0.25 ranksep=0.4 labelloc=t labeljust=l]\n"
        )
        return [head] + [line if isinstance(line, str) else line.text(stacked) for line in self.body]

    def source(self, rankdir="LR"):
        return f"digraph {GRAPH_NAME} {{\n{''.join(self.statements(rankdir))}}}\n"


def dot_source(root, options=None, *, highlight=None, notes=None, **changes):
    """The DOT text ``draw_dot`` draws, as a string (``rankdir='auto'`` is left to right here)."""
    options = make_options(options, changes)
    rankdir = "LR" if options.rankdir == "auto" else options.rankdir
    return dot_text(read_for_drawing(root, "draw_dot"), options, highlight=highlight, notes=notes).source(rankdir)


def dot_text(reading, options, highlight=None, notes=None, kept_plan=None):
    """The DOT statements for a graph (a ``graph.GraphReading``; see ``draw_dot``), in either direction.

    ``kept_plan`` (a ``KeptPlan``) collapses a graph drawn again and again only once.
    """
    view = reading.view
    highlight = view.mirror_items(highlight)
    notes = {view.mirror_of(node): text for node, text in (notes or {}).items()}
    precision, show_grad, color_by = options.precision, options.show_grad, options.color_by
    max_nodes, title, legend = options.max_nodes, options.title, options.legend
    if kept_plan is None:
        index = GraphIndex(reading, options.parameters)
        plan = fit(index, max_nodes)
    else:
        index, plan = kept_plan.index_and_plan(reading, options.parameters, max_nodes)
    marks = _Highlights(highlight, index, plan.blocks)
    writer = _Writer(index, plan, precision, show_grad, color_by, options.show_local_grads, marks, notes)
    body = [
        f'\tnode [fontname="{style.FONT}" fontsize=12 shape=box style="rounded,filled" '
        f'color="{style.BORDER}" penwidth=1]\n',
        f'\tedge [fontname="{style.FONT}" fontsize=9 fontcolor="{style.NOTE_TEXT}" '
        f'color="{style.EDGE}" arrowsize=0.7]\n',
    ]
    caption = _caption(title, plan, len(index), max_nodes, legend, color_by)
    if caption:
        body.append(f"\tlabel=<{caption}>\n")
    body.extend(writer.statements())
    return DotText(body, len(index), plan.node_count(), plan.notes)


class _Highlights:
    """Which blocks and edges to mark, from Values and (input, output) pairs."""

    def __init__(self, highlight, index, blocks):
        self.blocks = set()
        self.edges = set()
        if highlight is None:
            return
        block_of = {}
        for block in blocks:
            if block.kind in (VALUE, GROUP):
                for member in block.members:
                    block_of[member] = block
        try:
            items = list(highlight)
        except TypeError:
            raise TypeError(
                "highlight takes a list of Values (nodes) and/or (input, output) pairs of Values "
                f"(edges), got {type(highlight).__name__}"
            ) from None
        for item in items:
            if isinstance(item, Value):
                _check_in_graph(item, index)
                if item in block_of:  # else collapsed out of sight
                    self.blocks.add(block_of[item])
            elif isinstance(item, tuple) and len(item) == 2 and all(isinstance(v, Value) for v in item):
                source, target = item
                _check_in_graph(target, index)
                if not any(child is source for child in target.inputs):
                    raise ValueError(
                        f"highlight edge ({source!r}, {target!r}): the first Value is not an input "
                        "of the second; an edge is given as (input, output)"
                    )
                if source in block_of and target in block_of:
                    self.edges.add((block_of[source], block_of[target]))
            else:
                raise TypeError(
                    "highlight items are Values (nodes) or (input, output) pairs of Values (edges), "
                    f"got {type(item).__name__} {item!r:.60}"
                )


def _check_in_graph(node, index):
    if node not in index.position:
        raise ValueError(f"highlight: {node!r} is not part of the graph being drawn")


class _Writer:
    def __init__(self, index, plan, precision, show_grad, color_by, show_local_grads, marks, notes):
        self.index = index
        self.notes = notes  # {Value: text}: a line of its own under the node's numbers
        self.plan = plan
        self.precision = precision
        self.show_grad = show_grad
        self.color_by = color_by
        self.show_local_grads = show_local_grads
        self.marks = marks
        self.number = {block: i for i, block in enumerate(plan.blocks)}
        self.largest_grad = max((abs(m.grad) for b in plan.blocks for m in b.members), default=0.0)

    def fmt(self, x):
        return format_number(x, self.precision)

    def statements(self):
        lines = []
        for block in self.plan.blocks:
            n = self.number[block]
            marked = block in self.marks.blocks
            lines.append(self.node_statement(n, block, marked))
            has_op_node = block.kind == VALUE and block.op
            target = f"o{n}" if has_op_node else f"v{n}"
            if has_op_node:
                lines.append(f"\to{n} [{self.op_attributes(block, marked)}]\n")
            for k, child in enumerate(block.inputs):
                attributes = []
                if self.show_local_grads and block.local_grads is not None:
                    attributes.append(f'label="local {self.fmt(block.local_grads[k])}"')
                if (child, block) in self.marks.edges:
                    attributes.append(f'color="{style.HIGHLIGHT}" penwidth={style.HIGHLIGHT_WIDTH}')
                if child.kind == REST:
                    attributes.append("style=dashed")
                suffix = f" [{' '.join(attributes)}]" if attributes else ""
                lines.append(f"\tv{self.number[child]} -> {target}{suffix}\n")
            if has_op_node:
                suffix = f' [color="{style.HIGHLIGHT}" penwidth={style.HIGHLIGHT_WIDTH}]' if marked else ""
                lines.append(f"\to{n} -> v{n}{suffix}\n")
        return lines

    # -- nodes -------------------------------------------------------------------

    def node_statement(self, n, block, marked):
        border = f' color="{style.HIGHLIGHT}" penwidth={style.HIGHLIGHT_WIDTH}' if marked else ""
        if block.kind == VALUE:
            role_border = style.ROLE_BORDERS[self.index.role(block.value)]  # whatever colours the fills
            extra = f" {role_border}" if role_border else ""
            return _Record(f"\tv{n} [label=<", self.value_cells(block.value), f'> fillcolor="{self.fill(block)}"{extra}{border}]\n')
        if block.kind == GROUP:
            label, fill = self.group_label(block), self.fill(block)
            extra = " peripheries=2"
        else:
            label, fill = self.stand_in_label(block), style.STAND_IN_FILL
            extra = f" {style.STAND_IN_STYLE}"
        return f'\tv{n} [label=<{label}> fillcolor="{fill}"{extra}{border}]\n'

    def fill(self, block):
        if self.color_by == "grad":
            grads = [m.grad for m in block.members]
            return style.grad_fill(sum(grads) / len(grads), self.largest_grad)
        if self.color_by is None:
            return style.ROLE_FILLS[INTERMEDIATE]
        role = INTERMEDIATE if block.kind == GROUP else self.index.role(block.value)
        return style.ROLE_FILLS[role]

    def value_cells(self, node):
        cells = []
        if node.label:
            cells.append(f"<B>{html_text(node.label)}</B>")
        elif node in self.index.param_names and self.index.param_names[node]:
            cells.append(f"<I>{html_text(self.index.param_names[node])}</I>")
        not_kept = getattr(node, NOT_KEPT, ())  # a PyTorch result autograd did not keep
        cells.append("data not kept" if "data" in not_kept else f"data {self.fmt(node.data)}")
        if self.show_grad and "grad" not in not_kept:
            cells.append(f"grad {self.fmt(node.grad)}")
        if node in self.notes:
            cells.append(f'<FONT COLOR="{style.HIGHLIGHT}"><B>{html_text(self.notes[node])}</B></FONT>')
        return cells

    def op_attributes(self, block, marked):
        lines = [html_text(block.op)]
        details = []
        if block.terms:
            details.append(f"{block.terms} terms")
        details.extend(folded_count(kind, block.folded[kind]) for kind in ("parameter", "leaf") if block.folded.get(kind))
        if details:
            lines.append(f'<FONT POINT-SIZE="9">{", ".join(details)}</FONT>')
        shape = "ellipse" if len(block.op) > 2 or details else "circle"
        border = f'color="{style.HIGHLIGHT}" penwidth={style.HIGHLIGHT_WIDTH}' if marked else f'color="{style.EDGE}"'
        size = "fontsize=16 width=0.4" if shape == "circle" else "fontsize=13"
        return (
            f'label=<{"<BR/>".join(lines)}> shape={shape} style=filled fillcolor="{style.OP_FILL}" '
            f"{border} {size} margin=0.04"
        )

    def _range(self, title, numbers):
        low, high = min(numbers), max(numbers)
        if low == high:
            return f"{title} {self.fmt(low)}"
        return f"{title} {self.fmt(low)} … {self.fmt(high)}"

    def _rows(self, rows):
        cells = "".join(f"<TR><TD>{row}</TD></TR>" for row in rows)
        return f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">{cells}</TABLE>'

    def group_label(self, block):
        op = html_text(block.op)
        rows = [f"<B>{len(block.members)} × {op}</B>"]
        rows.append(self._range("data", [m.data for m in block.members]))
        if self.show_grad:
            rows.append(self._range("grad", [m.grad for m in block.members]))
        each = []
        if block.terms:
            each.append(f"{block.terms} terms")
        each.extend(folded_count(kind, block.folded[kind]) for kind in ("parameter", "leaf") if block.folded.get(kind))
        if each:
            rows.append(f'<FONT POINT-SIZE="9">each: {", ".join(each)}</FONT>')
        return self._rows(rows)

    def stand_in_label(self, block):
        if block.kind == MORE:
            rows = [f"<B>{block.hidden} more terms</B>", "like the ones drawn"]
            rows.append(self._range("data", [m.data for m in block.members]))
        else:
            rows = [f"<B>{block.hidden:,} more nodes</B>", "not drawn to keep the graph readable"]
        return self._rows(rows)


def _caption(title, plan, value_count, max_nodes, legend, color_by):
    rows = []
    if title:
        rows.append(f'<FONT POINT-SIZE="14"><B>{html_text(title)}</B></FONT>')
    if plan.notes:
        small = f'<FONT POINT-SIZE="10" COLOR="{style.NOTE_TEXT}">'
        rows.append(
            f"{small}{value_count:,} values drawn as {plan.node_count()} nodes "
            f"(max_nodes={max_nodes}):</FONT>"
        )
        rows.extend(f"{small}• {html_text(note)}</FONT>" for note in plan.notes)
    if legend:
        rows.append(_legend(color_by))
    if not rows:
        return ""
    cells = "".join(f'<TR><TD ALIGN="LEFT">{row}</TD></TR>' for row in rows)
    return f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">{cells}</TABLE>'


def _legend(color_by):
    if color_by == "grad":
        swatches = [
            (style.grad_fill(-1.0, 1.0), "negative grad"),
            (style.grad_fill(0.0, 1.0), "zero"),
            (style.grad_fill(1.0, 1.0), "positive grad"),
        ]
    else:
        swatches = [
            (style.ROLE_FILLS[role], style.ROLE_NAMES[role] + (f" ({style.ROLE_BORDER_WORDS[role]})" if style.ROLE_BORDER_WORDS[role] else ""))
            for role in ROLES
        ]
    cells = "".join(
        f'<TD BGCOLOR="{fill}" BORDER="1" COLOR="{style.BORDER}">'
        f'<FONT POINT-SIZE="10">{name}</FONT></TD><TD WIDTH="6"></TD>'
        for fill, name in swatches
    )
    return f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3"><TR>{cells}</TR></TABLE>'
