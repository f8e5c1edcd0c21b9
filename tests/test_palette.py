"""The course palette: one colour per class whatever the label convention."""

import re

import pytest

from micrograd import palette
from micrograd.viz import style

HEX = re.compile(r"#[0-9a-f]{6}")


def test_colours_are_hex_and_distinct():
    assert all(HEX.fullmatch(c) for c in palette.CLASS_COLOURS)
    assert len(set(palette.CLASS_COLOURS)) == len(palette.CLASS_COLOURS) >= 10
    assert set(palette.ROLE_COLOURS) == {"input", "parameter", "intermediate", "output"}
    assert all(HEX.fullmatch(c) for c in palette.ROLE_COLOURS.values())


def test_plus_minus_one_labels_match_zero_one_labels():
    assert palette.class_colour(-1) == palette.class_colour(0) == palette.CLASS_COLOURS[0]
    assert palette.class_colour(1) == palette.class_colour(1.0) == palette.CLASS_COLOURS[1]
    assert palette.class_colour(2) == palette.CLASS_COLOURS[2]
    assert palette.class_colours([-1, 1, 1.0, -1.0]) == [palette.CLASS_COLOURS[i] for i in (0, 1, 1, 0)]


def test_numpy_labels():
    import numpy as np

    assert palette.class_colours(np.array([-1, 1])) == list(palette.CLASS_COLOURS[:2])
    assert palette.class_colours(np.array([0.0, 2.0])) == [palette.CLASS_COLOURS[0], palette.CLASS_COLOURS[2]]


def test_colours_repeat_past_the_table():
    n = len(palette.CLASS_COLOURS)
    assert palette.class_colour(n + 1) == palette.CLASS_COLOURS[1]


@pytest.mark.parametrize("bad", [-2, 0.5, "a", None, True])
def test_bad_labels_are_explained(bad):
    with pytest.raises((TypeError, ValueError), match="class label"):
        palette.class_colour(bad)


def test_fill_is_a_light_tint_of_the_class_colour():
    fill = palette.class_fill(-1)
    assert HEX.fullmatch(fill)
    channels = [int(fill[i : i + 2], 16) for i in (1, 3, 5)]
    base = [int(palette.CLASS_COLOURS[0][i : i + 2], 16) for i in (1, 3, 5)]
    assert all(f >= b for f, b in zip(channels, base)) and min(channels) > 180
    assert channels.index(max(channels)) == base.index(max(base))


def test_colormap_maps_the_smallest_label_to_class_zero():
    from matplotlib.colors import Normalize, to_hex

    cmap = palette.class_colormap(2)
    norm = Normalize(-1, 1)
    assert to_hex(cmap(norm(-1))) == palette.CLASS_COLOURS[0]
    assert to_hex(cmap(norm(1))) == palette.CLASS_COLOURS[1]
    assert to_hex(palette.class_colormap(3, light=True)(2)) == palette.class_fill(2)
    with pytest.raises(ValueError, match="how many classes"):
        palette.class_colormap(0)


def test_drawings_fill_roles_from_the_palette():
    assert style.ROLE_FILLS == palette.ROLE_COLOURS


# -- contrast (WCAG 2.2: 4.5:1 for text, 3:1 for borders, edges and marks) ---------------------

TEXT, SHAPE = 4.5, 3.0


def test_contrast_ratio_is_wcags():
    assert palette.contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert palette.contrast_ratio("#ffffff", "#000000") == pytest.approx(21.0)  # either order
    assert palette.contrast_ratio("#777777", "#777777") == pytest.approx(1.0)
    assert palette.contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the known AA grey
    assert palette.contrast_ratio("#777777", "#ffffff") < 4.5


def _pairs():
    """(what, foreground, background, least ratio) for every pair of the palette that meets on a page."""
    fills = {f"{role} fill": fill for role, fill in palette.ROLE_COLOURS.items()}
    fills |= {"operation fill": palette.OP_FILL, "stand-in fill": palette.STAND_IN_FILL,
              "negative grad fill": palette.GRAD_NEGATIVE, "positive grad fill": palette.GRAD_POSITIVE,
              "drawing background": palette.DRAWING_BACKGROUND}
    pairs = [(f"drawing text on the {name}", palette.DRAWING_TEXT, fill, TEXT) for name, fill in fills.items()]
    on_roles = {name: fill for name, fill in fills.items() if "grad" not in name}  # notes go on role colouring
    pairs += [(f"a marked node's note on the {name}", palette.HIGHLIGHT, fill, TEXT) for name, fill in on_roles.items()]
    pairs += [
        ("edge labels and captions", palette.NOTE_TEXT, palette.DRAWING_BACKGROUND, TEXT),
        ("a neuron's output of 0", palette.INACTIVE_TEXT, palette.DRAWING_BACKGROUND, TEXT),
        ("muted text on a light page", palette.MUTED_TEXT_FALLBACK, "#ffffff", TEXT),
        ("an error on a light page", palette.ERROR_TEXT_FALLBACK, "#ffffff", TEXT),
        ("a panel's text", palette.PANEL_TEXT, palette.PANEL_BACKGROUND, TEXT),
        ("the package's own lines (show_source)", palette.SOURCE_TEXT, palette.SOURCE_BACKGROUND, TEXT),
        ("a panel's muted text", palette.PANEL_MUTED, palette.PANEL_BACKGROUND, TEXT),
        ("a letter on its chip", palette.PANEL_TEXT, palette.CHIP_FILL, TEXT),
        ("the newest letter on its chip", palette.PANEL_TEXT, palette.SAMPLE_COLOUR, TEXT),
        ("'drawn', in words", palette.SAMPLE_TEXT, palette.PANEL_BACKGROUND, TEXT),
        *[(f"a token on its segment {fill}", palette.PANEL_TEXT, fill, TEXT) for fill in palette.SEGMENT_FILLS],
        *[(f"a {status} verdict's text", text, background, TEXT) for status, (text, background, _) in palette.VERDICT_COLOURS.items()],
        # shapes: what tells a box, an edge or a mark from what is around it
        ("a value's border", palette.BORDER, palette.DRAWING_BACKGROUND, SHAPE),
        ("edges and operation circles", palette.EDGE, palette.DRAWING_BACKGROUND, SHAPE),
        ("an operation circle's border on its fill", palette.EDGE, palette.OP_FILL, SHAPE),
        ("a marked node's border and edges", palette.HIGHLIGHT, palette.DRAWING_BACKGROUND, SHAPE),
        ("where a stepper's window cuts the drawing", palette.WINDOW_CUT, palette.DRAWING_BACKGROUND, SHAPE),
        ("a chip's border", palette.CHIP_BORDER, palette.PANEL_BACKGROUND, SHAPE),
        ("the newest chip's border", palette.SAMPLE_TEXT, palette.PANEL_BACKGROUND, SHAPE),
        ("a probability's bar", palette.WEIGHT_COLOUR, palette.PANEL_BACKGROUND, SHAPE),
        ("the loss curve's baseline", palette.BASELINE_COLOUR, "#ffffff", SHAPE),
        ("the bar beside the package's lines", palette.SOURCE_RULE, "#ffffff", SHAPE),
        *[(f"a {status} verdict's bar on its card", bar, background, SHAPE) for status, (_, background, bar) in palette.VERDICT_COLOURS.items()],
        *[(f"a {status} verdict's bar on a light page", bar, "#ffffff", SHAPE) for status, (_, _, bar) in palette.VERDICT_COLOURS.items()],
    ]
    # An attention cell's number on its shade, at every weight.
    pairs += [(f"a weight's number at {w:.2f}", palette.text_on(palette.weight_shade(w)), palette.weight_shade(w), TEXT)
              for w in (k / 20 for k in range(21))]
    return pairs


@pytest.mark.parametrize("what, foreground, background, least", _pairs(), ids=[p[0] for p in _pairs()])
def test_every_pair_that_meets_holds_wcag_contrast(what, foreground, background, least):
    ratio = palette.contrast_ratio(foreground, background)
    assert ratio >= least, f"{what}: {foreground} on {background} is {ratio:.2f}:1, below {least}:1"


def test_the_contrast_test_fails_a_pair_below_the_line():
    # the old highlight, #dc2626, as a note's text on the amber parameter fill: 3.9:1
    assert palette.contrast_ratio("#dc2626", palette.ROLE_COLOURS["parameter"]) < TEXT


# -- roles told apart without colour ----------------------------------------------------------

COLOUR_ATTRIBUTES = re.compile(r'\b(?:fill)?colou?r="[^"]*"|\bfontcolor="[^"]*"')


def _node_attributes(source, label):
    """The DOT attributes of the value box labelled ``label``, its colours taken out."""
    line = next(line for line in source.splitlines() if f"<B>{label}</B>" in line)
    attributes = line.split(">> ", 1)[1].rstrip().removesuffix("]")  # after the label's HTML
    return COLOUR_ATTRIBUTES.sub("", attributes).split()


def test_node_roles_differ_in_something_besides_colour():
    """Input, parameter, output, the active node and the wrong node, drawn in grey alone, still differ."""
    from micrograd import Value
    from micrograd.viz import draw_dot

    x, w = Value(2.0, label="x"), Value(-3.0, label="w")
    h = x * w
    h.label = "h"
    y = h.tanh()
    y.label = "y"
    plain = draw_dot(y, params=[w]).source
    looks = {
        "input": _node_attributes(plain, "x"),
        "parameter": _node_attributes(plain, "w"),
        "intermediate": _node_attributes(plain, "h"),
        "output": _node_attributes(plain, "y"),
        "active node": _node_attributes(draw_dot(y, params=[w], highlight=[h]).source, "h"),
    }
    wrong = draw_dot(y, params=[w], highlight=[h], notes={h: "expected -6.0"}).source
    looks["wrong node"] = _node_attributes(wrong, "h") + ["note: expected -6.0" if "expected -6.0" in wrong else ""]
    for role, attributes in looks.items():
        others = [other for other, seen in looks.items() if other != role and seen == attributes]
        # intermediate values are told from inputs by the operation that makes them, drawn beside them
        others = [other for other in others if {role, other} != {"input", "intermediate"}]
        assert not others, f"{role} and {others} differ only in colour: {attributes}"
    assert "penwidth=3" in looks["active node"] and "dashed" in " ".join(looks["parameter"])
    assert "peripheries=2" in looks["output"]
