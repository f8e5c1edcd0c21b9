"""A GPT's computation at one position, drawn as blocks rather than as thousands of Values.

    from micrograd.viz import draw_gpt
    draw_gpt(model)                                   # the blocks, their shapes and parameters
    draw_gpt(model, ["BOS", "e", "m", "m", "a"], 2)   # ... reading the "m" at position 2

Top to bottom, as microgpt computes it: the token's and the position's
embeddings added, RMSNorm, then per layer an attention block (RMSNorm; q, k
and v; each head's scores q·k/√head_dim over the keys cached so far, softmax,
weighted sum of values; Wo) and an MLP block (RMSNorm, fc1, ReLU, fc2), each
added back onto the residual stream; then lm_head's logits, softmax and the
loss.  Blocks that hold parameters are amber and say how many.  A second
layer and more are one dashed box: the same blocks with their own weights.

The DOT text is a function of the model's sizes (and the letters given) only,
so it is the same in every process; for four heads, about 820 px wide and 670 px tall: a
learner's page (an output about 850 px wide, a notebook about 680 px tall) shows it whole.
"""

from . import style
from .describe import Words
from .dotsource import GRAPH_NAME
from .drawing import GraphDrawing
from .labels import html_text
from .options import PAGE_WIDTH_PX, check_page_width

__all__ = ["draw_gpt", "gpt_sizes", "gpt_parameter_count", "BlockDrawing"]

SIZES = ("vocab_size", "block_size", "n_embd", "n_head", "n_layer")
_PARAMETER = style.ROLE_FILLS["parameter"]
_INPUT = style.ROLE_FILLS["input"]
_OUTPUT = style.ROLE_FILLS["output"]
_OPERATION = style.OP_FILL
_NOTE_PT = 10  # 13.3 CSS px: the smallest text in the drawing
# The residual stream runs through these (and the + nodes): one straight column (Graphviz's group).
_HEADS_PER_LINE = 4  # four heads' boxes make a line about 620 px wide
_STRAIGHT = 8  # the weight of the residual stream's edges: Graphviz keeps them short and straight
_STREAM = {"embed", "qkv", "heads", "wo", "mlp", "more_layers", "head"}


def gpt_sizes(model=None, **sizes):
    """{vocab_size, block_size, n_embd, n_head, n_layer} from ``model``'s attributes and/or keywords."""
    found = {}
    for name in SIZES:
        value = sizes.pop(name, None)
        if value is None and model is not None:
            value = getattr(model, name, None)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            where = f"{type(model).__name__}.{name}" if model is not None and sizes.get(name) is None else name
            raise ValueError(f"draw_gpt needs {where} as a whole number ≥ 1 (give the model, or {name}=...), got {value!r}")
        found[name] = value
    if sizes:
        raise TypeError(f"draw_gpt got unexpected size names: {', '.join(sorted(sizes))}; the sizes are {', '.join(SIZES)}")
    if found["n_embd"] % found["n_head"]:
        raise ValueError(f"n_embd ({found['n_embd']}) must split evenly into n_head ({found['n_head']}) heads")
    return found


def gpt_parameter_count(vocab_size, block_size, n_embd, n_layer, **_):
    """Parameters of microgpt's model: embeddings, 12·n_embd² per layer, lm_head."""
    return (2 * vocab_size + block_size) * n_embd + n_layer * 12 * n_embd * n_embd


def _cell_text(title, *notes):
    lines = [f"<B>{html_text(title)}</B>"]
    lines += [f'<FONT POINT-SIZE="{_NOTE_PT}" COLOR="{style.NOTE_TEXT}">{html_text(note)}</FONT>' for note in notes]
    return "<BR/>".join(lines)


def _box(title, *notes, fill=_OPERATION, dashed=False):
    """One block: a rounded box (a table of one cell, so that blocks can sit in a row)."""
    border = ' STYLE="rounded,dashed"' if dashed else ' STYLE="rounded"'
    return (
        f'<TABLE{border} BORDER="1" CELLBORDER="0" CELLPADDING="3" COLOR="{style.BORDER}" BGCOLOR="{fill}">'
        f"<TR><TD>{_cell_text(title, *notes)}</TD></TR></TABLE>"
    )


def _row(name, *boxes, arrows=(), ports=None, caption=None, per_line=None):
    """A node of blocks side by side, in the order given.

    One node holds the row, so Graphviz keeps its order and it stays as narrow as its boxes.
    ``arrows``: the indices of the boxes followed by a "→" to the next; ``ports``: {box index:
    port name}, for edges that leave or enter that box rather than the row.  ``caption``: the
    row is framed, with this title over its boxes: an edge then ends at the frame, the block's
    way in, rather than between two boxes.
    """
    ports = ports or {}
    cells = []
    for k, box in enumerate(boxes):
        port = f' PORT="{ports[k]}"' if k in ports else ""
        cells.append(f"<TD{port}>{box}</TD>")
        if k in arrows:
            cells.append(f'<TD><FONT COLOR="{style.EDGE}" POINT-SIZE="13">→</FONT></TD>')
    per_line = per_line or len(cells)
    row = "".join(f"<TR>{''.join(cells[k : k + per_line])}</TR>" for k in range(0, len(cells), per_line))
    frame = 'BORDER="0" CELLPADDING="2"'
    if caption is not None:
        row = f'<TR><TD ALIGN="LEFT" COLSPAN="{min(per_line, len(cells))}"><B>{html_text(caption)}</B></TD></TR>{row}'
        frame = f'BORDER="1" STYLE="rounded,dashed" COLOR="{style.EDGE}" CELLPADDING="3"'
    group = " group=stream" if name.rstrip("0123456789") in _STREAM else ""
    return f'\t{name} [label=<<TABLE {frame} CELLBORDER="0" CELLSPACING="0">{row}</TABLE>>{group}]\n'


def _plus(name):
    return (
        f'\t{name} [label="+" shape=circle width=0.3 height=0.3 fixedsize=true style=filled '
        f'fillcolor="{_OPERATION}" color="{style.BORDER}" fontsize=13 group=stream]\n'
    )


def _count(n):
    return f"{n:,} parameters"


def _check_position(letters, position, block_size):
    if letters is None:
        if position is not None:
            raise ValueError("draw_gpt: a position needs the letters it reads (letters=[...])")
        return None, None
    letters = [str(letter) for letter in letters]
    if not letters:
        raise ValueError("draw_gpt: letters is the token at each position, as strings; got none")
    if len(letters) > block_size:
        raise ValueError(f"draw_gpt: {len(letters)} letters, more than block_size {block_size} positions")
    if position is None:
        position = len(letters) - 1
    if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position < len(letters):
        raise ValueError(f"draw_gpt: position is the index of a letter, 0 to {len(letters) - 1}; got {position!r}")
    return letters, position


def draw_gpt(model=None, letters=None, position=None, *, page_width=PAGE_WIDTH_PX, **sizes):
    """A ``GraphDrawing`` of one position of a GPT, in blocks (see the module docstring).

    ``model``: anything with the attributes ``vocab_size``, ``block_size``, ``n_embd``,
    ``n_head`` and ``n_layer`` (``micrograd.nn.GPT``), or give those as keywords.
    ``letters``: the token at each position, as strings (``["BOS", "e", "m"]`` or ``"emma"``);
    with ``position`` (default: the last) the drawing says which letter is read there and
    which letters its heads look at.
    """
    check_page_width(page_width)
    s = gpt_sizes(model, **sizes)
    letters, position = _check_position(letters, position, s["block_size"])
    V, T, C, H, L = (s[name] for name in SIZES)
    total = gpt_parameter_count(**s)
    if letters is None:
        token, where, row, pos, seen = "token", "position", "t", "p", "this position and those before"
    else:
        letter = letters[position]
        token, where, row, pos = f"token {letter!r}", f"position {position}", repr(letter), str(position)
        seen = " ".join(letters[: position + 1])
        if len(seen) > 24:
            seen = f"{' '.join(letters[:2])} … {' '.join(letters[position - 1 : position + 1])}"
    body = [
        f'\tgraph [rankdir=TB fontname="{style.FONT}" bgcolor="white" nodesep=0.2 ranksep=0.13 '
        "labelloc=t labeljust=l fontsize=12]\n",
        f'\tnode [fontname="{style.FONT}" fontsize=11 shape=plain]\n',
        f'\tedge [fontname="{style.FONT}" fontsize={_NOTE_PT} fontcolor="{style.NOTE_TEXT}" color="{style.EDGE}" arrowsize=0.6]\n',
        f"\tlabel=<<B>One position of a GPT</B>: {L} layer{'s' * (L != 1)}, {H} heads, {total:,} parameters>\n",
        _row(
            "embed",
            _box(f"{token} embedding", f"wte[{row}]: a row of {V} × {C}", fill=_PARAMETER),
            _box("+"),
            _box(f"{where} embedding", f"wpe[{pos}]: a row of {T} × {C}", fill=_PARAMETER),
            _box("rmsnorm", f"{C} numbers"),
            arrows=(2,),
            caption="embedding",
        ),
    ]
    residual = "embed"
    for i in range(min(L, 1)):
        body += _layer(i, C, H, C // H, seen, residual)
        residual = f"mlp_add{i}"
    if L > 1:
        body.append(_row(
            "more_layers",
            _box(f"layers 1 to {L - 1}" if L > 2 else "layer 1", "the same blocks, each with its own weights",
                 _count((L - 1) * 12 * C * C), fill=style.STAND_IN_FILL, dashed=True),
        ))
        body.append(f"\t{residual} -> more_layers [weight={_STRAIGHT}]\n")
        residual = "more_layers"
    body += [
        _row(
            "head",
            _box("lm_head", f"{V} × {C}: {V} logits", fill=_PARAMETER),
            _box("softmax", f"{V} probabilities"),
            _box("loss", "−log p[next token]", fill=_OUTPUT),
            arrows=(0, 1),
            caption="output",
        ),
        f"\t{residual} -> head [weight={_STRAIGHT}]\n",
    ]
    drawing = BlockDrawing(name=GRAPH_NAME, body=body)
    drawing.parameter_count = total
    drawing.node_count = sum(1 for line in body if " [label=" in line)
    drawing.page_width = page_width
    drawing.rankdir = "TB"
    drawing.words = Words(
        f"One position of a GPT, drawn as blocks: {L} layer{'s' * (L != 1)}, {H} heads, {total:,} parameters",
        f"Top to bottom: the {token} embedding (wte, {V} × {C}) plus the {where} embedding (wpe, {T} × {C}), "
        f"then rmsnorm.\nEach layer: rmsnorm; q, k and v; each of {H} heads scores q·k/√{C // H} over the keys of "
        f"{seen}, softmax, a weighted sum of values; Wo; added back onto the residual stream; then "
        f"rmsnorm, fc1, ReLU, fc2, added back.\nLast: lm_head ({V} × {C}) gives {V} logits, softmax "
        f"{V} probabilities, and the loss is −log p[next token].",
    )
    return drawing


class BlockDrawing(GraphDrawing):
    """A drawing of a model's blocks: it counts parameters, not the Values of a graph."""

    parameter_count = 0

    def __repr__(self):
        return f"<GPT drawn as {self.node_count} rows of blocks: {self.parameter_count:,} parameters>"


def _layer(i, C, H, head_dim, seen, residual):
    """Layer ``i``: its attention block and its MLP block, each added back onto the residual stream."""
    straight = f" [weight={_STRAIGHT}]"
    side = ' [style=dashed label=" residual" weight=0]'
    heads = [_box(f"head {h}", f"softmax(q·k / √{head_dim}) · v") for h in range(H)]
    wo = _box("Wo · heads", f"{C} × {C}", fill=_PARAMETER)
    if H <= _HEADS_PER_LINE:  # Wo joins the heads' row: what each head computes goes in its caption, to fit
        heads = [_box(f"head {h}") for h in range(H)]
    return [
        f"\tsubgraph cluster_attention{i} {{\n\t\tlabel=<<B>layer {i}: attention</B>>\n",
        f'\t\tstyle="rounded,dashed" color="{style.EDGE}" fontsize=11 margin=6\n',
        "\t" + _row(  # the norm in the row of what it feeds: the drawing stays a screen tall
            f"qkv{i}",
            _box("rmsnorm"),
            _box("q = Wq · x", f"{C} × {C}", fill=_PARAMETER),
            _box("k = Wk · x", f"{C} × {C}", fill=_PARAMETER),
            _box("v = Wv · x", f"{C} × {C}", fill=_PARAMETER),
            _box("KV cache: k, v of", seen, fill=style.EMPTY_FILL, dashed=True),
            arrows=(0, 3),
            ports={1: "q", 2: "k", 3: "v", 4: "cache"},
        ),
        *(  # up to four heads, Wo in their row: the drawing stays a screen tall
            ["\t" + _row(f"heads{i}", *heads, wo, arrows=(H - 1,), caption=f"{H} heads, each softmax(q·k / √{head_dim}) · v over the cache, then Wo")]
            if H <= _HEADS_PER_LINE else
            ["\t" + _row(f"heads{i}", *heads, caption=f"{H} heads, each over the cache", per_line=_HEADS_PER_LINE),
             "\t" + _row(f"wo{i}", wo)]
        ),
        "\t}\n",
        _plus(f"attn_add{i}"),
        f"\t{residual} -> qkv{i}{straight}\n",
        f"\tqkv{i}:q:s -> heads{i}\n\tqkv{i}:cache:s -> heads{i}\n",
        f"\theads{i} -> attn_add{i}{straight}\n" if H <= _HEADS_PER_LINE else
        f"\theads{i} -> wo{i}{straight}\n\two{i} -> attn_add{i}{straight}\n",
        f"\t{residual} -> attn_add{i}{side}\n",
        "\t" + _row(
            f"mlp{i}",
            _box("rmsnorm"),
            _box("fc1", f"{4 * C} × {C}", fill=_PARAMETER),
            _box("ReLU", f"{4 * C} numbers"),
            _box("fc2", f"{C} × {4 * C}", fill=_PARAMETER),
            arrows=(0, 1, 2),
            caption=f"layer {i}: MLP",
        ),
        _plus(f"mlp_add{i}"),
        f"\tattn_add{i} -> mlp{i}{straight}\n\tmlp{i} -> mlp_add{i}{straight}\n",
        f"\tattn_add{i} -> mlp_add{i}{side}\n",
    ]
