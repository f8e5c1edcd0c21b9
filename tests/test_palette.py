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
