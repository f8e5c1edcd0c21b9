"""Colours and fonts of the drawings, in one place.

Fills are light so black text stays readable on every one of them; roles
use four hues that stay distinct for the common colour-vision deficiencies
(blue, amber, near-white, green differ in lightness as well as hue).
"""

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

BORDER = "#475569"
EDGE = "#64748b"
NOTE_TEXT = "#475569"
OP_FILL = "#eef2f7"
STAND_IN_FILL = "#f1f5f9"  # the boxes that stand for left-out parts
HIGHLIGHT = "#dc2626"
HIGHLIGHT_WIDTH = "2.5"

# Gradient colouring: white at zero, up to these at the largest |grad|.
_NEGATIVE = (0xF8, 0x71, 0x71)  # red
_POSITIVE = (0x60, 0xA5, 0xFA)  # blue
_WHITE = (0xFF, 0xFF, 0xFF)

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
        return "#ffffff"
    # The square root keeps small gradients visible next to a large one.
    strength = min(abs(grad) / largest, 1.0) ** 0.5
    target = _NEGATIVE if grad < 0 else _POSITIVE
    mixed = (round(w + (t - w) * strength) for w, t in zip(_WHITE, target))
    return "#" + "".join(f"{c:02x}" for c in mixed)
