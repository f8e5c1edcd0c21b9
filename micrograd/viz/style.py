"""Colours (from the palette), fonts and borders of the drawings, in one place.

Fills are light so black text stays readable on every one of them; roles
use four hues that differ in lightness as well as hue, and, for a learner
who cannot tell the hues apart, a border of their own (``ROLE_BORDERS``):
a parameter's is dashed, the output's double; the node a stepper works on,
or the one a check found wrong, is drawn with a border three times as thick.
"""

from .. import palette
from ..palette import ROLE_COLOURS
from .graph import INPUT, INTERMEDIATE, OUTPUT, PARAMETER

# Graphviz sizes every box with DejaVu Sans (viz/fonts.py pins it); the SVG asks the browser for it
# first, so the text fills the boxes as measured, and falls back to a font of about its width.
FONT = "DejaVu Sans,Helvetica,Arial,sans-serif"

ROLE_FILLS = ROLE_COLOURS  # the palette names the roles as the graph does
ROLE_NAMES = {
    INPUT: "input",
    PARAMETER: "parameter",
    INTERMEDIATE: "intermediate",
    OUTPUT: "output",
}

# Each role's border besides its colour (DOT attributes), so roles differ in shape as well:
# what is left of the legend's colours under protanopia, deuteranopia or tritanopia still tells them apart.
ROLE_BORDERS = {
    INPUT: "",
    PARAMETER: 'style="rounded,filled,dashed"',
    INTERMEDIATE: "",
    OUTPUT: "peripheries=2",
}
ROLE_BORDER_WORDS = {INPUT: "", PARAMETER: "dashed", INTERMEDIATE: "", OUTPUT: "double"}

BORDER = palette.BORDER
EDGE = palette.EDGE
NOTE_TEXT = palette.NOTE_TEXT
OP_FILL = palette.OP_FILL
STAND_IN_FILL = palette.STAND_IN_FILL
STAND_IN_STYLE = 'style="rounded,filled,dotted"'  # dashed is a parameter's border
HIGHLIGHT = palette.HIGHLIGHT
INACTIVE_TEXT = palette.INACTIVE_TEXT
WINDOW_CUT = palette.WINDOW_CUT
EMPTY_FILL = palette.EMPTY_FILL
HIGHLIGHT_WIDTH = "3"  # three times a border's width: the mark shows without its colour

# Gradient colouring: white at zero, up to these at the largest |grad|.
_NEGATIVE = tuple(int(palette.GRAD_NEGATIVE[i : i + 2], 16) for i in (1, 3, 5))  # red
_POSITIVE = tuple(int(palette.GRAD_POSITIVE[i : i + 2], 16) for i in (1, 3, 5))  # blue
_WHITE = tuple(int(palette.GRAD_ZERO[i : i + 2], 16) for i in (1, 3, 5))

COLOR_BY = ("role", "grad", None)


def check_color_by(color_by):
    if color_by not in COLOR_BY:
        raise ValueError(
            f"color_by is 'role' (inputs, parameters, intermediate values, output), "
            f"'grad' (red negative, blue positive, stronger for larger |grad|) or None, got {color_by!r}"
        )


def grad_fill(grad, largest):
    """A fill for ``grad``: white for 0, deeper red/blue as |grad| nears ``largest``."""
    if largest <= 0.0 or grad == 0.0:
        return palette.GRAD_ZERO
    # The square root keeps small gradients visible next to a large one.
    strength = min(abs(grad) / largest, 1.0) ** 0.5
    target = _NEGATIVE if grad < 0 else _POSITIVE
    mixed = (round(w + (t - w) * strength) for w, t in zip(_WHITE, target))
    return "#" + "".join(f"{c:02x}" for c in mixed)
