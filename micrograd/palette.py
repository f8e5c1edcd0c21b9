"""The course's colours: one class has one colour in every plot, widget and drawing.

    from micrograd.palette import CLASS_COLOURS, class_colour, class_colours

    ax.scatter(xs, ys, c=class_colours(labels))          # ±1 or 0, 1, 2, ... labels
    ax.contourf(gx, gy, z, levels=[-2, 0, 2], cmap=class_colormap(2, light=True))

Class index ``i`` is ``CLASS_COLOURS[i]``; with ±1 labels, -1 is class 0
(red) and +1 is class 1 (blue), so a binary problem looks the same whichever
convention its labels use.  The hues are ColorBrewer's: red and blue differ
in lightness as well as hue, so they stay apart for the common colour-vision
deficiencies.  ``ROLE_COLOURS`` are the light fills the graph drawings give
to inputs, parameters, intermediate values and the output.

The rest are every other colour the course shows: the drawings' text, borders,
edges and marks, the verdicts, the widgets' notes.  Each pair that meets on a
page holds WCAG 2.2's contrast (``contrast_ratio``): 4.5:1 for text, 3:1 for
a shape's border, an edge or a mark against what it sits on
(tests/test_palette.py computes every pair).  Colour is never the only cue:
the drawings also tell node roles apart by their border (``viz/style.py``),
and a verdict by its mark and a word.

Drawings and verdicts keep their own light card (a white background, a tinted
box) in JupyterLab's dark theme too; text on the page itself takes the
theme's colour, through JupyterLab's (or the site theme's) CSS variables.

Needs nothing beyond the standard library; ``class_colormap`` imports
matplotlib when called.
"""

from numbers import Integral, Real

__all__ = [
    "CLASS_COLOURS",
    "ROLE_COLOURS",
    "class_index",
    "class_colour",
    "class_colours",
    "class_fill",
    "class_colormap",
    "WEIGHT_COLOUR",
    "weight_shade",
    "SAMPLE_COLOUR",
    "SAMPLE_TEXT",
    "contrast_ratio",
    "text_on",
]

CLASS_COLOURS = (
    "#d7301f",  # class 0, and -1 of ±1 labels: red
    "#2c7fb8",  # class 1, and +1: blue
    "#31a354",  # green
    "#fe9929",  # orange
    "#756bb1",  # purple
    "#636363",  # grey
    "#e7298a",  # pink
    "#66a61e",  # olive
    "#a6761d",  # brown
    "#1b9e77",  # teal
)

# Light enough that black text stays readable on every one.
ROLE_COLOURS = {
    "input": "#dbeafe",
    "parameter": "#fde68a",
    "intermediate": "#f8fafc",
    "output": "#bbf7d0",
}

# Weights between 0 and 1 (attention, probabilities) go from white to this blue, the colour of
# class 1, so a heatmap and a bar chart of the same numbers look alike in every picture.
WEIGHT_COLOUR = CLASS_COLOURS[1]
# What was drawn at random (a sampled letter) stands out in orange, a hue no weight takes.
SAMPLE_COLOUR = CLASS_COLOURS[3]

# The drawn letter named in words: SAMPLE_COLOUR is too light for text (2.1:1 on white).
SAMPLE_TEXT = "#b45309"

# -- the drawings (Graphviz), on their own white card ----------------------------------------
DRAWING_BACKGROUND = "#ffffff"
DRAWING_TEXT = "#000000"  # Graphviz's own font colour: the labels inside the boxes
BORDER = "#475569"  # a value's box
EDGE = "#64748b"  # arrows, an operation's circle
NOTE_TEXT = "#475569"  # edge labels (local derivatives), captions
OP_FILL = "#eef2f7"
STAND_IN_FILL = "#f1f5f9"  # the boxes that stand for left-out parts
EMPTY_FILL = "#ffffff"  # a box that holds nothing yet (the GPT's KV cache)
# The active node of a stepper and the wrong node of a failed check: its border, edges and note.
# Dark enough for the note's text on every role fill (5.2:1 on amber), not only for the border.
HIGHLIGHT = "#b91c1c"
# Gradient fills: white at zero, up to these at the largest |grad| (black text holds 7.5:1 on both).
GRAD_NEGATIVE = "#f87171"
GRAD_POSITIVE = "#60a5fa"
GRAD_ZERO = "#ffffff"
INACTIVE_TEXT = "#64748b"  # a neuron that gave 0 (draw_model)
WINDOW_CUT = "#64748b"  # the dashed line where a stepper's window cuts the drawing

# -- verdicts: a tinted card of their own (text, background, the bar on the left) ------------
VERDICT_COLOURS = {
    "passed": ("#1b5e20", "#e8f5e9", "#2e7d32"),
    "failed": ("#b71c1c", "#ffebee", "#c62828"),
    "not attempted": ("#5d4037", "#fff8e1", "#a16207"),
}
SOURCE_RULE = "#64748b"  # the bar beside the package's own lines (show_source)
# ... on a light card of their own, which Pygments' high-contrast style colours, in a dark theme too
SOURCE_BACKGROUND = "#ffffff"
SOURCE_TEXT = "#000000"
# A disclosure's summary line, at least 24 px tall: a target a finger or a shaky hand can hit (WCAG 2.5.8).
SUMMARY_STYLE = "cursor:pointer;min-height:24px;line-height:24px"
# The ring around the widget control that has the keyboard's focus: the theme's brand blue, else this.
FOCUS_RING_FALLBACK = "#1565c0"
FOCUS_RING = f"var(--jp-brand-color1, {FOCUS_RING_FALLBACK})"

# -- text on the page: the theme's colour where there is a theme, else these ----------------
# JupyterLab's variables first, then the site theme's (pydata-sphinx-theme, light or dark).
MUTED_TEXT_FALLBACK = "#475569"
ERROR_TEXT_FALLBACK = "#b00020"
MUTED_TEXT = f"var(--jp-content-font-color2, var(--pst-color-text-muted, {MUTED_TEXT_FALLBACK}))"
ERROR_TEXT = f"var(--jp-error-color1, var(--pst-color-danger, {ERROR_TEXT_FALLBACK}))"

# -- widgets' own light panels (the generation stepper) --------------------------------------
PANEL_BACKGROUND = "#ffffff"
PANEL_TEXT = "#1e293b"
PANEL_MUTED = "#64748b"
CHIP_FILL = "#f1f5f9"
CHIP_BORDER = "#64748b"
SEGMENT_FILLS = ("#cbd5e1", "#e2e8f0")  # alternate, so neighbouring tokens stay apart
EMPTY_CELL = "#e2e8f0"  # an attention cell a causal head cannot look at: no weight, not weight 0
BASELINE_COLOUR = "#64748b"  # the loss curve's baseline to beat

# How much of a class colour a light fill (a decision region) keeps.
_FILL_STRENGTH = 0.25


def class_index(label):
    """The class index of a label: -1 → 0, +1 → 1, and 0, 1, 2, ... as they are."""
    if isinstance(label, bool) or not isinstance(label, Real):
        raise TypeError(f"a class label is a number (-1, +1 or 0, 1, 2, ...), got {type(label).__name__}: {label!r}")
    if label != int(label):
        raise ValueError(f"a class label is a whole number (-1, +1 or 0, 1, 2, ...), got {label!r}")
    index = int(label)
    if index == -1:
        return 0
    if index < 0:
        raise ValueError(f"a class label is -1, +1 or 0, 1, 2, ..., got {label!r}")
    return index


def class_colour(label):
    """The hex colour of a class label (-1/+1, or 0, 1, 2, ...); past ten classes the colours repeat."""
    return CLASS_COLOURS[class_index(label) % len(CLASS_COLOURS)]


def class_colours(labels):
    """``class_colour`` of each label, as a list (ready for ``scatter(c=...)``)."""
    return [class_colour(_plain(label)) for label in labels]


def class_fill(label):
    """A light tint of a class's colour, for the region a classifier gives to that class."""
    return _tint(class_colour(label), _FILL_STRENGTH)


def class_colormap(classes=2, light=False):
    """A matplotlib colormap with one colour per class, in class order.

    With ``c=labels`` in ``scatter`` (or class values in ``contourf``),
    matplotlib spreads the smallest to the largest label over the colours, so
    ±1 labels and 0/1 labels both get ``CLASS_COLOURS[0]`` and ``[1]``.
    ``light=True`` gives the tints of ``class_fill``.
    """
    if isinstance(classes, bool) or not isinstance(classes, Integral) or classes < 1:
        raise ValueError(f"classes is how many classes the colormap has (a whole number ≥ 1), got {classes!r}")
    from .optional import require

    colors = require("matplotlib.colors", "micrograd.palette.class_colormap", "notebooks")
    pick = class_fill if light else class_colour
    return colors.ListedColormap([pick(i) for i in range(classes)], name=f"micrograd-classes-{classes}")


def weight_shade(weight):
    """The colour of a weight in [0, 1]: white at 0, ``WEIGHT_COLOUR`` at 1 (clipped outside)."""
    if isinstance(weight, bool) or not isinstance(weight, Real) or weight != weight:
        raise ValueError(f"a weight to colour is a number between 0 and 1, got {weight!r}")
    return _tint(WEIGHT_COLOUR, min(max(float(weight), 0.0), 1.0))


def _plain(label):
    # numpy scalars are Real but not int; .item() turns them into Python numbers.
    return label.item() if hasattr(label, "item") and not isinstance(label, Real) else label


def _tint(colour, strength):
    channels = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(255 + (c - 255) * strength):02x}" for c in channels)


def _luminance(colour):
    """WCAG 2.2's relative luminance of ``#rrggbb``."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(first, second):
    """WCAG 2.2's contrast ratio of two ``#rrggbb`` colours, from 1 (the same) to 21 (black on white)."""
    light, dark = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def text_on(fill):
    """Black or white, whichever reads better on ``fill`` (a weight's shade, say)."""
    return "#000000" if contrast_ratio("#000000", fill) >= contrast_ratio("#ffffff", fill) else "#ffffff"
