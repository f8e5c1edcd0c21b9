"""Drawings on the page: the layout from the graph's shape, and a box that scrolls instead of shrinking."""

import re

import pytest

from micrograd import MLP, Value
from micrograd.viz import PAGE_WIDTH_PX, DrawOptions, draw_dot, draw_model, fit_to_page, svg_size
from viz_graphs import lecture_expression, lecture_neuron

MIN_TEXT_PX = 11


def smallest_text_px(svg):
    """The smallest font size in a Graphviz SVG, in CSS px at the drawing's own size."""
    view = re.search(r'viewBox="[-0-9.]+ [-0-9.]+ ([0-9.]+)', svg)
    width_px, _ = svg_size(svg)
    scale = width_px / float(view.group(1))  # CSS px per user unit (Graphviz: 4/3, one unit is a point)
    return min(float(size) for size in re.findall(r'font-size="([0-9.]+)"', svg)) * scale


def chain(n):
    x = Value(0.5, label="x")
    for _ in range(n):
        x = x.tanh()
    return x


def test_a_short_chain_stays_left_to_right():
    drawing = draw_dot(chain(1))
    assert drawing.rankdir == "LR" and drawing.width_px <= PAGE_WIDTH_PX
    assert "rankdir=LR" in drawing.source


def test_a_long_chain_turns_top_to_bottom():
    drawing = draw_dot(chain(12))
    assert drawing.rankdir == "TB" and drawing.width_px <= PAGE_WIDTH_PX


def test_a_tree_too_wide_left_to_right_is_drawn_top_to_bottom():
    L = lecture_expression()
    wide = draw_dot(L, rankdir="LR")
    assert wide.width_px > PAGE_WIDTH_PX  # the lecture's L, 1348 px left to right
    drawing = draw_dot(L)
    assert drawing.rankdir == "TB" and "rankdir=TB" in drawing.source
    assert drawing.width_px <= PAGE_WIDTH_PX
    # A wider page takes the left-to-right drawing as it is.
    assert draw_dot(L, page_width=2000).rankdir == "LR"


def test_top_to_bottom_stacks_each_values_fields():
    o, _ = lecture_neuron()
    wide, tall = draw_dot(o, rankdir="LR"), draw_dot(o)
    assert tall.rankdir == "TB" and tall.width_px <= PAGE_WIDTH_PX < wide.width_px
    assert "<TD><B>o</B></TD></TR><HR/><TR><TD>data 0.7071</TD></TR><HR/><TR><TD>grad 1.0000</TD>" in tall.source
    assert "<TD><B>o</B></TD><VR/><TD>data 0.7071</TD><VR/><TD>grad 1.0000</TD>" in wide.source


def test_a_model_drawing_fits_the_page():
    mlp = MLP(3, [4, 4, 1], rng=0)
    assert draw_model(mlp, [2.0, 3.0, -1.0], rankdir="LR").width_px > PAGE_WIDTH_PX
    drawing = draw_model(mlp, [2.0, 3.0, -1.0])
    assert drawing.rankdir == "TB" and drawing.width_px <= PAGE_WIDTH_PX
    with pytest.raises(ValueError, match="rankdir is one of auto, LR"):
        draw_model(mlp, rankdir="sideways")
    with pytest.raises(ValueError, match="page_width is the width in CSS pixels"):
        draw_model(mlp, page_width="wide")


@pytest.mark.parametrize("make", [lecture_expression, lambda: lecture_neuron()[0], lambda: chain(12)])
def test_text_is_readable_at_the_drawings_own_size(make):
    drawing = draw_dot(make(), show_local_grads=True)
    assert smallest_text_px(drawing.svg()) >= MIN_TEXT_PX


def test_the_notebook_html_keeps_the_drawing_at_its_size_and_scrolls():
    drawing = draw_dot(chain(12), rankdir="LR")
    width, height = svg_size(drawing.svg())
    assert width > PAGE_WIDTH_PX
    html = drawing.html()
    assert html.startswith('<div class="micrograd-drawing" style="overflow-x:auto;')
    assert f'<svg style="max-width:none;width:{width:.0f}px;height:{height:.0f}px"' in html
    assert "<?xml" not in html and "<!DOCTYPE" not in html
    assert f"The drawing is {width:.0f} px wide: scroll sideways" in html
    bundle = drawing._repr_mimebundle_()
    assert bundle["image/svg+xml"] == drawing.svg()
    assert draw_dot(chain(12), rankdir="LR")._repr_mimebundle_() == bundle  # the same in every run: strict nbval


def test_a_notebook_output_holds_the_drawing_as_an_image_which_an_untrusted_notebook_still_shows():
    """JupyterLab strips inline SVG from a stored output until the notebook is trusted; an <img> stays."""
    import base64
    import re

    drawing = draw_dot(chain(12), rankdir="LR")
    width, height = svg_size(drawing.svg())
    html = drawing._repr_mimebundle_()["text/html"]
    assert "<svg" not in html and html.startswith('<div class="micrograd-drawing" style="overflow-x:auto;')
    image = re.search(r'<img alt="Computation graph: [^"]*" style="([^"]*)" src="data:image/svg\+xml;base64,([^"]*)">', html)
    assert image.group(1) == f"max-width:none;width:{width:.0f}px;height:{height:.0f}px"
    assert base64.b64decode(image.group(2)).decode() == drawing.svg()[drawing.svg().index("<svg"):]
    assert f"The drawing is {width:.0f} px wide: scroll sideways" in html


def test_a_widgets_inline_drawings_become_the_same_images_a_notebook_output_holds():
    """A widget's stored picture is made from its live panel's HTML, where drawings are inline."""
    from micrograd.viz.page import inline_drawings_as_images

    wide, small = draw_dot(chain(12), rankdir="LR"), draw_dot(chain(1))
    panel = f"<div>numbers</div>{wide.html()}<p>between</p>{small.html()}"
    assert "<svg" in panel
    assert inline_drawings_as_images(panel) == f"<div>numbers</div>{wide.html(image=True)}<p>between</p>{small.html(image=True)}"
    assert inline_drawings_as_images("<div>no drawing</div>") == "<div>no drawing</div>"


def test_a_drawing_that_fits_says_nothing_about_scrolling():
    html = draw_dot(chain(1)).html()
    assert "scroll sideways" not in html and "max-width:none" in html


def test_svg_size_reads_points_and_pixels():
    assert svg_size('<svg width="72pt" height="36pt" viewBox="0 0 72 36">') == (96.0, 48.0)
    assert svg_size('<svg height="20px" width="100px">') == (100.0, 20.0)
    with pytest.raises(ValueError, match="no <svg> element"):
        svg_size("<html></html>")
    with pytest.raises(ValueError, match="no width in pt or px"):
        svg_size('<svg width="50%" height="10pt">')
    assert "scroll sideways" in fit_to_page('<svg width="900px" height="10px"></svg>', page_width=800)


def test_options_travel_as_one_object():
    L = lecture_expression()
    options = DrawOptions(show_local_grads=True, precision=2, rankdir="LR")
    assert draw_dot(L, options).source == draw_dot(L, show_local_grads=True, precision=2, rankdir="LR").source
    assert draw_dot(L, options, precision=3).source == draw_dot(L, show_local_grads=True, precision=3, rankdir="LR").source
    assert options.replace(precision=3).precision == 3 and options.precision == 2
    with pytest.raises(TypeError, match="unknown drawing option colour; the options are rankdir"):
        options.replace(colour="red")
    with pytest.raises(TypeError, match="is a DrawOptions"):
        draw_dot(L, {"precision": 2})


@pytest.mark.parametrize(
    "changes, message",
    [
        (dict(rankdir="left"), "rankdir is one of auto, LR"),
        (dict(max_nodes=3), "max_nodes"),
        (dict(page_width=0), "page_width"),
        (dict(color_by="size"), "color_by"),
        (dict(precision=-1), "precision"),
    ],
)
def test_bad_options_are_explained(changes, message):
    with pytest.raises((TypeError, ValueError), match=message):
        DrawOptions(**changes)


def test_side_by_side_shows_each_drawing_at_its_size_under_its_caption_wrapping_where_narrow():
    from micrograd import Value
    from micrograd.viz import draw_dot, side_by_side

    a = Value(2.0, label="a")
    small = draw_dot(a)
    html = side_by_side({"left <1>": small, "right": small})._repr_html_()
    assert "left &lt;1&gt;" in html and html.count("data:image/svg+xml") == 2 and "max-width:none" in html
    assert "flex-wrap:wrap" in html  # the second goes under the first on a narrow page
    assert "micrograd-scroll-note" not in html
    wide = side_by_side({"one": small, "two": small}, page_width=50)._repr_html_()
    assert wide.count("scroll sideways") == 2  # each too wide for such a page: each scrolls in its own box


def test_side_by_side_is_also_one_svg_picture_for_viewers_that_show_no_stored_html():
    import xml.dom.minidom

    from micrograd import Value
    from micrograd.viz import draw_dot, side_by_side, svg_size

    a = Value(2.0, label="a")
    one, two = draw_dot(a), draw_dot(a * a)
    bundle = side_by_side({"one": one, "two": two})._repr_mimebundle_()
    svg = bundle["image/svg+xml"]
    xml.dom.minidom.parseString(svg)  # well-formed
    width, height = svg_size(svg)
    sizes = [svg_size(d.svg()) for d in (one, two)]
    assert width == round(max(w for w, _ in sizes))  # one under the other: as wide as the wider
    assert height > sum(h for _, h in sizes)  # both, with their captions
    assert ">one</text>" in svg and ">two</text>" in svg and svg.count("<svg") == 3


def test_a_drawings_in_words_disclosure_brings_the_courses_focus_ring_with_it():
    # No widget need be on the page for the ring: each disclosure carries the rule (viz.page.WORDS_FOCUS_CSS).
    from micrograd.palette import FOCUS_RING

    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    shown = draw_dot(a * b).html()
    rule = re.search(r"<style>([^<]*)</style><details class=\"micrograd-words\"", shown)
    assert rule is not None, shown[-600:]
    assert rule.group(1).startswith(".micrograd-words > summary:focus-visible {") and f"outline: 2px solid {FOCUS_RING}" in rule.group(1)
