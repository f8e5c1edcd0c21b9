"""The generation stepper's panels as HTML: the name so far, the next-letter bars, attention.

Plain HTML with inline styles (no pictures to render), so a step redraws in well under a
millisecond, its text is real text at 12 px or more, and the same HTML is the widget's static
picture: JupyterLab keeps these styles in a notebook it does not trust yet.  Every function
takes plain numbers and strings and returns a string, the same for the same input.
"""

import html

from .. import palette

__all__ = ["name_html", "probabilities_html", "draw_html", "attention_html", "panel", "DRAW_BAR_PX", "BAR_PX", "CHOICE_PX"]

BAR_PX = 200  # the likeliest token's bar is this wide, the others in proportion
DRAW_BAR_PX = 340  # the cumulative bar, all tokens end to end
CHOICE_PX = DRAW_BAR_PX + 20  # the next-token panel: its bars, the cumulative bar and their captions
CELL_PX = 24  # an attention cell: room for ".52" at 11 px
_TEXT = palette.PANEL_TEXT
_MUTED = palette.PANEL_MUTED
_SEGMENT_FILLS = palette.SEGMENT_FILLS
_FONT = "font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace"
# A panel is a light card of its own, so its colours read the same in JupyterLab's dark theme.
_PANEL = (
    "flex:0 0 auto;margin:0 18px 8px 0;padding:4px 6px;border-radius:4px;font-size:13px;line-height:1.35;"
    f"color:{_TEXT};background-color:{palette.PANEL_BACKGROUND}"
)


def _e(text):
    return html.escape(str(text))


def _chip(symbol, colour=palette.CHIP_FILL, bold=False, border=palette.CHIP_BORDER):
    weight = "font-weight:bold;" if bold else ""
    return (
        f'<span style="display:inline-block;min-width:16px;padding:1px 5px;margin:0 2px 2px 0;text-align:center;'
        f'border:1px solid {border};border-radius:4px;background-color:{colour};color:{_TEXT};{weight}{_FONT}">{_e(symbol)}</span>'
    )


def name_html(symbols, drawn=None, done=None):
    """The tokens so far as chips (``symbols``: BOS first), the last one drawn highlighted.

    ``drawn``: the symbol just drawn (a BOS that ends the name is shown, not added to it);
    ``done``: a sentence saying how the name ended, or None while it grows.
    """
    chips = []
    for k, symbol in enumerate(symbols):
        newest = drawn is not None and k == len(symbols) - 1 and done is None
        chips.append(_chip(symbol, palette.SAMPLE_COLOUR if newest else palette.CHIP_FILL, bold=newest,
                           border=palette.SAMPLE_TEXT if newest else palette.CHIP_BORDER))
    if done is not None and drawn is not None:
        chips.append(_chip(drawn, palette.PANEL_BACKGROUND, border=palette.SAMPLE_TEXT))
    tail = f'<span class="micrograd-done" style="margin-left:8px;color:{palette.MUTED_TEXT}">{_e(done)}</span>' if done else ""
    return f'<div class="micrograd-name" style="font-size:14px;margin:4px 0 6px 0">{"".join(chips)}{tail}</div>'


def probabilities_html(symbols, probabilities, drawn, top=8):
    """The ``top`` likeliest next tokens as bars, the drawn one in the sample colour.

    The likeliest token's bar is ``BAR_PX`` wide and the others in proportion; each says its
    probability in per cent.

    ``symbols[i]`` and ``probabilities[i]`` belong to token id i; ``drawn`` is the token id
    drawn.  The drawn token gets a row even when it is not among the ``top``.
    """
    order = sorted(range(len(probabilities)), key=lambda i: (-probabilities[i], i))
    shown = order[:top]
    if drawn is not None and drawn not in shown:
        shown.append(drawn)
    rows = []
    largest = probabilities[order[0]] or 1.0
    for i in shown:
        p = probabilities[i]
        is_drawn = i == drawn
        colour = palette.SAMPLE_COLOUR if is_drawn else palette.WEIGHT_COLOUR
        width = max(1, round(p / largest * BAR_PX)) if p > 0 else 0
        note = ' <b style="color:%s">drawn</b>' % palette.SAMPLE_TEXT if is_drawn else ""
        rows.append(
            f'<div class="micrograd-bar{" micrograd-drawn" if is_drawn else ""}" style="display:flex;align-items:center;height:19px">'
            f'<span style="width:52px;text-align:right;padding-right:6px;{_FONT};{"font-weight:bold;" if is_drawn else ""}">{_e(symbols[i])}</span>'
            f'<span style="display:inline-block;width:{width}px;height:13px;background-color:{colour}"></span>'
            f'<span style="padding-left:5px;font-size:12px">{100 * p:.1f}%{note}</span></div>'
        )
    rest = sum(probabilities[i] for i in order if i not in shown)
    others = len(probabilities) - len(shown)
    if others:
        rows.append(
            f'<div style="padding-left:58px;font-size:12px;color:{_MUTED}">'
            f"{others} other token{'s' * (others != 1)}: {100 * rest:.1f}% together</div>"
        )
    return "".join(rows)


def draw_html(symbols, probabilities, drawn, u):
    """Where the sample fell: every token's probability end to end, in token order, and ``u``.

    ``random.choices`` (microgpt's draw) takes a uniform number ``u`` in [0, 1) times the total
    and picks the token whose stretch of the cumulative sum holds it: the marked segment.
    """
    total = sum(probabilities) or 1.0
    segments, left = [], 0.0
    for i, p in enumerate(probabilities):
        width = p / total * DRAW_BAR_PX
        if width <= 0:
            continue
        fill = palette.SAMPLE_COLOUR if i == drawn else _SEGMENT_FILLS[i % 2]
        label = _e(_short(symbols[i])) if width >= 4 + 7 * len(_short(symbols[i])) else ""
        segments.append(
            f'<div style="position:absolute;left:{left:.2f}px;top:0;width:{width:.2f}px;height:20px;background-color:{fill};'
            f'font-size:11px;line-height:20px;text-align:center;overflow:hidden;color:{_TEXT};{_FONT}">{label}</div>'
        )
        left += width
    x = u * DRAW_BAR_PX  # its label kept clear of the scale's 0 and 1
    marker = (
        f'<div class="micrograd-draw-marker" style="position:absolute;left:{x - 1:.2f}px;top:-5px;width:2px;height:30px;background-color:{_TEXT}"></div>'
        f'<div style="position:absolute;left:{min(max(x - 30, 12), DRAW_BAR_PX - 72):.2f}px;top:27px;width:60px;text-align:center;font-size:11px">u = {u:.3f}</div>'
    )
    scale = (
        f'<div style="position:absolute;left:0;top:27px;font-size:11px;color:{_MUTED}">0</div>'
        f'<div style="position:absolute;right:0;top:27px;font-size:11px;color:{_MUTED}">1</div>'
    )
    return (
        f'<div class="micrograd-draw" style="position:relative;width:{DRAW_BAR_PX}px;height:44px;margin:8px 0 0 0">'
        f"{''.join(segments)}{marker}{scale}</div>"
    )


def attention_html(symbols, attention, layer_names=None):
    """Each head's weights over the tokens so far, one table per layer.

    ``attention[layer][head]``: the weights the newest position gave positions 0..t
    (``len(symbols)`` of them); a cell is shaded like the heatmaps (``palette.weight_shade``).
    """
    tables = []
    for layer, heads in enumerate(attention):
        head_row = "".join(
            f'<th style="width:{CELL_PX}px;font-weight:normal;font-size:12px;{_FONT}">{_e(_short(s))}</th>' for s in symbols
        )
        rows = [f"<tr><th></th>{head_row}</tr>"]
        for h, weights in enumerate(heads):
            cells = []
            for w in weights:
                text_colour = palette.text_on(palette.weight_shade(w))
                shown = "1" if w >= 0.995 else f"{w:.2f}"[1:]
                cells.append(
                    f'<td style="width:{CELL_PX}px;height:20px;padding:0;text-align:center;font-size:11px;'
                    f'background-color:{palette.weight_shade(w)};color:{text_colour}">{shown}</td>'
                )
            rows.append(f'<tr><th style="font-weight:normal;font-size:12px;text-align:right;padding-right:6px;white-space:nowrap">head {h}</th>{"".join(cells)}</tr>')
        caption = ""
        if len(attention) > 1:
            caption = f'<div style="font-size:12px;color:{_MUTED}">{_e((layer_names or [])[layer] if layer_names else f"layer {layer}")}</div>'
        tables.append(
            f'{caption}<table class="micrograd-attention" style="border-collapse:separate;border-spacing:1px;margin-bottom:4px">{"".join(rows)}</table>'
        )
    tables.append(f'<div style="font-size:12px;color:{_MUTED}">Each row sums to 1: darker, more weight.</div>')
    return "".join(tables)


def _short(symbol):
    """A column heading: a multi-character symbol such as "<BOS>" becomes "BOS" (narrower)."""
    return symbol.strip("<>") if len(symbol) > 1 else symbol


def panel(title, body, css_class, width=None):
    """A titled panel; panels sit side by side and wrap on a narrow page.  ``width`` (px):
    the panel's text wraps within it, so that two panels fit next to each other."""
    sizing = f";max-width:{width}px" if width else ""
    return (
        f'<div class="{css_class}" style="{_PANEL}{sizing}">'
        f'<div style="font-weight:bold;margin-bottom:4px">{_e(title)}</div>{body}</div>'
    )


def row(*panels):
    return f'<div style="display:flex;flex-wrap:wrap;align-items:flex-start">{"".join(panels)}</div>'
