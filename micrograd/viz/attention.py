"""Attention weights as heatmaps: one small panel per head, over the letters of a name.

    from micrograd.viz import attention_heatmaps
    attention_heatmaps(weights, ["BOS", "e", "m", "m", "a"])

Row t of a panel is the query at position t (the letter the model has just
read), column s the key at position s; the cell is how much of position s's
value that head mixes into position t.  A causal model's row t has weights
for s ≤ t only: the cells right of the diagonal are left empty (grey).  A row
given in full is drawn in full, so attention that looks ahead shows as such.
"""

import math
from numbers import Real

from .. import palette
from .options import PAGE_WIDTH_PX
from .picture import MIN_FONT_PT, Picture, drawn_or_noted, new_figure, style

__all__ = ["attention_heatmaps", "attention_text", "check_attention", "weight_colormap", "EMPTY_CELL"]

EMPTY_CELL = palette.EMPTY_CELL  # a cell a causal head cannot look at: no weight, not weight 0
HEADS_PER_ROW = 4
# Layout in CSS pixels: room for the row letters, the gaps, the colour bar and its labels.
_GAP, _BAR, _RIGHT, _TOP, _TITLE = 16, 12, 44, 30, 20
_AXIS_LABEL = 30  # an axis's title and its gap to the tick labels
_MAX_PANEL = 200
# A weight is written in its cell when the cell has room for ".52" at 11 px.
_MIN_CELL_FOR_NUMBERS = 27
_CHAR_PX = 8  # about the width of a letter of a tick label


def weight_colormap():
    """The matplotlib colormap of weights in [0, 1]: ``palette.weight_shade`` at 256 levels."""
    from ..optional import require

    colors = require("matplotlib.colors", "micrograd.viz.attention_heatmaps", "notebooks")
    cmap = colors.ListedColormap([palette.weight_shade(i / 255) for i in range(256)], name="micrograd-weights")
    return cmap.with_extremes(bad=EMPTY_CELL)


def _number(x, what):
    x = getattr(x, "data", x)  # a Value (the package's or a learner's) gives its number
    if isinstance(x, bool) or not isinstance(x, Real) or not math.isfinite(x):
        raise ValueError(f"{what} is a finite number (or a Value holding one), got {x!r}")
    return float(x)


def check_attention(weights, letters):
    """``weights`` as lists of floats ``[head][query][key]``, checked against ``letters``.

    Each head has one row per position (``len(letters)`` rows); row t holds
    at most ``len(letters)`` weights (``t + 1`` for a causal head).
    """
    if isinstance(letters, str):
        letters = list(letters)
    letters = [str(letter) for letter in letters]
    positions = len(letters)
    if positions == 0:
        raise ValueError("attention over no letters: give at least one position's letter")
    try:
        heads = [[list(row) for row in head] for head in weights]
    except TypeError:
        raise TypeError(
            "attention weights are given per head, per query position, per key position: "
            f"weights[head][t][s] (lists of numbers), got {type(weights).__name__}"
        ) from None
    if not heads:
        raise ValueError("attention weights of no head: give weights[head][t][s] for at least one head")
    for h, head in enumerate(heads):
        if len(head) != positions:
            raise ValueError(f"head {h} has {len(head)} rows of weights but there are {positions} letters: one row per position")
        for t, row in enumerate(head):
            if not 1 <= len(row) <= positions:
                raise ValueError(f"head {h}, position {t}: {len(row)} weights, expected 1 to {positions} (one per key position)")
            head[t] = [_number(w, f"the weight of head {h} at position {t}") for w in row]
    return heads, letters


def attention_text(heads, letters, decimals=2):
    """The weights as plain-text tables, one per head (what a notebook stores beside the PNG)."""
    width = max(max(len(letter) for letter in letters), decimals + 2)
    lines = []
    for h, head in enumerate(heads):
        lines.append(f"head {h}")
        lines.append(" " * (width + 1) + " ".join(f"{letter:>{width}}" for letter in letters))
        for letter, row in zip(letters, head):
            cells = " ".join(f"{w:>{width}.{decimals}f}" for w in row)
            lines.append(f"{letter:>{width}} {cells}")
    return "\n".join(lines)


def _cell_text(weight):
    return "1" if weight >= 0.995 else f"{weight:.2f}"[1:]  # ".52": fits a small cell


@drawn_or_noted
def attention_heatmaps(weights, letters, title=None, *, page_width=PAGE_WIDTH_PX):
    """A :class:`~micrograd.viz.Picture` of attention weights, one heatmap per head.

    ``weights[head][t][s]``: the weight head ``head`` gives, at query position
    ``t``, to key position ``s`` (numbers or Values).  ``letters``: the token at
    each position, as strings (``["BOS", "e", "m", "m", "a"]``) or one string
    with a character per position.  ``title``: a line above the panels.

    At most four panels a row, each square and at most 200 px, so four heads
    and a colour bar fit ``page_width`` (a JupyterLab output at 1280 px with the
    file browser open).  A cell wide enough shows its weight (".52").
    """
    heads, letters = check_attention(weights, letters)
    n_heads, positions = len(heads), len(letters)
    per_row = min(n_heads, HEADS_PER_ROW)
    rows = math.ceil(n_heads / per_row)
    longest = max(len(letter) for letter in letters) * _CHAR_PX
    left_px = _AXIS_LABEL + longest
    room = page_width - left_px - _RIGHT - _BAR - _GAP * per_row
    panel = min(_MAX_PANEL, room // per_row)
    if panel < 4 * positions:
        raise ValueError(f"{positions} positions do not fit a {page_width} px page in panels of {panel} px; draw fewer letters")
    cell = panel / positions
    upright = [len(letter) * _CHAR_PX > cell for letter in letters]  # a long label ("BOS") in a narrow column
    bottom_px = _AXIS_LABEL + (longest if any(upright) else 16)
    title_px = _TITLE if title else 0
    width = left_px + per_row * panel + (per_row - 1) * _GAP + _GAP + _BAR + _RIGHT
    height = title_px + rows * (_TOP + panel + bottom_px)
    np = _numpy()
    with style():
        figure = new_figure(width, height)
        cmap = weight_colormap()
        image = None
        for h, head in enumerate(heads):
            row, col = divmod(h, per_row)
            left = left_px + col * (panel + _GAP)
            top = title_px + row * (_TOP + panel + bottom_px) + _TOP
            axes = figure.add_axes([left / width, 1 - (top + panel) / height, panel / width, panel / height])
            grid = np.full((positions, positions), np.nan)
            for t, weights_t in enumerate(head):
                grid[t, : len(weights_t)] = weights_t
            image = axes.imshow(grid, cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest", aspect="equal")
            axes.set_title(f"head {h}", pad=4)
            ticks = list(range(positions))
            axes.set_xticks(ticks, letters)
            for label, turn in zip(axes.get_xticklabels(), upright):
                if turn:
                    label.set_rotation(90)
            # The rows are the same positions in every panel: their letters once, left of the row.
            axes.set_yticks(ticks, letters if col == 0 else [])
            axes.tick_params(length=0, pad=2)
            # White lines between the cells: two collections, far cheaper than minor ticks.
            between = [p - 0.5 for p in range(1, positions)]
            axes.hlines(between, -0.5, positions - 0.5, colors="white", linewidth=1)
            axes.vlines(between, -0.5, positions - 0.5, colors="white", linewidth=1)
            for spine in axes.spines.values():
                spine.set_visible(False)
            if col == 0:
                axes.set_ylabel("query: position reading")
            axes.set_xlabel("key: position read")
            if cell >= _MIN_CELL_FOR_NUMBERS:
                for t, weights_t in enumerate(head):
                    for s, w in enumerate(weights_t):
                        axes.text(s, t, _cell_text(w), ha="center", va="center", fontsize=MIN_FONT_PT,
                                  color=palette.text_on(palette.weight_shade(w)))
        bar_left = left_px + per_row * panel + (per_row - 1) * _GAP + _GAP
        bar_top = title_px + _TOP
        bar_axes = figure.add_axes([bar_left / width, 1 - (bar_top + panel) / height, _BAR / width, panel / height])
        figure.colorbar(image, cax=bar_axes, label="weight")
        if title:
            figure.text(left_px / width, 1 - 6 / height, title, ha="left", va="top", fontsize=11, fontweight="bold")
    description = _shows(heads, letters, title) + "\n(rows: the query position reading; columns: the key position read)\n"
    return Picture(figure, description + attention_text(heads, letters))


def _shows(heads, letters, title=None):
    """One line saying what the heatmaps show (the picture's alt text): the panels, and where each head's last row looks."""
    n_heads = len(heads)
    heading = title or f"Attention weights of {n_heads} head{'s' * (n_heads != 1)}"
    causal = all(len(row) == t + 1 for head in heads for t, row in enumerate(head))
    layout = (
        f"{heading}, as {'a heatmap' if n_heads == 1 else f'{n_heads} heatmaps, one per head,'} over {' '.join(letters)}: "
        "row t is the position reading, column s the position read, a darker blue more weight"
        + ("; each row reads only the positions up to its own, the cells after them empty (grey)" if causal else "")
    )
    last = len(letters) - 1
    looks = []
    for h, head in enumerate(heads):
        row = head[last]
        s = max(range(len(row)), key=row.__getitem__)
        looks.append(f"head {h} looks most at {letters[s]} ({row[s]:.2f})" if h == 0 else f"head {h} at {letters[s]} ({row[s]:.2f})")
    return f"{layout}. Reading {letters[last]}, the last position, " + ", ".join(looks)


def _numpy():
    from ..optional import require

    return require("numpy", "micrograd.viz.attention_heatmaps", "notebooks")
