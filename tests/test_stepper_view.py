"""The backprop stepper keeps the node it works on in view, in a box that no script can scroll.

Lesson 3's neuron, drawn upright, is about 1,050 px tall and its box 480 px: the drawing is cropped
to a window around the active node (at the end, around the leaves), and "Whole graph" shows all
of it.  The SVG is read here with a parser of the test's own: the window is its viewBox, a node's
box the extent of its shapes, the active node the one outlined in the highlight colour.
"""

import html as html_module
import re

import pytest

from micrograd import MLP, Value
from micrograd.losses import mse
from micrograd.viz import crop_to_window, draw_dot, leaf_nodes, marked_nodes, output_nodes, window_around
from micrograd.widgets import BackpropStepper

HIGHLIGHT = "#b91c1c"
BOX_PX = 480  # the graph box's most height (widgets._base.GRAPH_MAX_HEIGHT)
NOTE_AND_SCROLLBAR_PX = 40


def lesson3_neuron():
    """Lesson 3's neuron, as its cell builds it (x1*w1 + x2*w2 + b, then tanh)."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    bias = Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1
    x1w1.label = "x1*w1"
    x2w2 = x2 * w2
    x2w2.label = "x2*w2"
    n = x1w1 + x2w2 + bias
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    return o


def small_mlp_loss():
    model = MLP(2, [3, 1], rng=1)
    return mse([model(x) for x in ([1.0, -2.0], [0.5, 0.25])], [1.0, -1.0])


# -- reading the SVG, independently of micrograd.viz ---------------------------------------


def svg_of(stepper):
    return stepper.graph.value[stepper.graph.value.index("<svg") :]


def view_box(svg):
    root = re.search(r"<svg\b[^>]*>", svg).group(0)
    x, y, w, h = map(float, re.search(r'viewBox="([^"]*)"', root).group(1).split())
    return x, y, x + w, y + h


def shown_parts(svg):
    """The parts of the drawing in view: the bands' viewBoxes (nested <svg>s), else the root's."""
    bands = re.findall(r'<svg class="micrograd-band"[^>]*viewBox="([^"]*)"', svg)
    if not bands:
        return [view_box(svg)]
    return [(x, y, x + w, y + h) for x, y, w, h in (map(float, band.split()) for band in bands)]


def shown_size_px(svg):
    style = re.search(r'<svg style="[^"]*width:([\d.]+)px;height:([\d.]+)px', svg)
    return float(style.group(1)), float(style.group(2))


def nodes(svg):
    """[(title, texts, outlined in the highlight colour, (x0, y0, x1, y1))] of every node group."""
    tx, ty = map(float, re.search(r'class="graph" transform="[^"]*translate\(([-\d.]+) ([-\d.]+)\)', svg).groups())
    found = []
    for title, body in re.findall(r'<g id="node\d+" class="node">\s*<title>([^<]*)</title>(.*?)</g>', svg, re.S):
        points = [tuple(map(float, p)) for p in re.findall(r"(-?[\d.]+),(-?[\d.]+)", " ".join(re.findall(r'(?:d|points)="([^"]*)"', body)))]
        for cx, cy, rx, ry in re.findall(r'cx="([-\d.]+)" cy="([-\d.]+)" rx="([-\d.]+)" ry="([-\d.]+)"', body):
            cx, cy, rx, ry = map(float, (cx, cy, rx, ry))
            points += [(cx - rx, cy - ry), (cx + rx, cy + ry)]
        xs, ys = [x + tx for x, _ in points], [y + ty for _, y in points]
        texts = [html_module.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", body)]
        outlined = f'stroke="{HIGHLIGHT}"' in body
        found.append((title, texts, outlined, (min(xs), min(ys), max(xs), max(ys))))
    return found


def inside(box, window):
    return box[0] >= window[0] - 0.01 and box[1] >= window[1] - 0.01 and box[2] <= window[2] + 0.01 and box[3] <= window[3] + 0.01


def in_view(box, svg):
    return any(inside(box, part) for part in shown_parts(svg))


def active_boxes(svg):
    return [box for _, _, outlined, box in nodes(svg) if outlined]


def boxes_labelled(svg, labels):
    return {texts[0]: box for _, texts, _, box in nodes(svg) if texts and texts[0] in labels}


def data_dot(stepper):
    return html_module.unescape(re.search(r'data-dot="([^"]*)"', stepper.graph.value).group(1))


# -- the stepper ---------------------------------------------------------------------


def test_lesson3s_neuron_is_taller_than_its_box_so_the_stepper_shows_a_window_of_it():
    stepper = BackpropStepper(lesson3_neuron())
    stepper.show_whole_graph()
    assert shown_size_px(svg_of(stepper))[1] > 2 * BOX_PX  # the whole graph: the problem this solves
    stepper.show_whole_graph(False)
    width, height = shown_size_px(svg_of(stepper))
    assert height <= BOX_PX - NOTE_AND_SCROLLBAR_PX and width <= 850
    assert "micrograd-window-note" in stepper.graph.value and "Whole graph" in stepper.graph.value


@pytest.mark.parametrize("make", [lesson3_neuron, small_mlp_loss], ids=["lesson3-neuron", "mlp"])
def test_at_every_step_the_active_node_lies_inside_the_window_shown(make):
    """Every step of the pass; the last one ends it, and the end shows the leaves (next test)."""
    stepper = BackpropStepper(make())
    seen = []
    while stepper.position < len(stepper.schedule) - 1:
        stepper.step_button.click()
        svg = svg_of(stepper)
        boxes = active_boxes(svg)
        assert boxes, f"step {stepper.position}: no node drawn as the active one"
        for box in boxes:
            assert in_view(box, svg), f"step {stepper.position}: the active node {box} is outside {shown_parts(svg)}"
        width, height = shown_size_px(svg)
        assert height <= BOX_PX - NOTE_AND_SCROLLBAR_PX and width <= 850
        seen.append(tuple(shown_parts(svg)))
    assert len(set(seen)) > 1  # the window followed the pass down the graph
    stepper.step_button.click()
    assert stepper.done and shown_size_px(svg_of(stepper))[1] <= BOX_PX - NOTE_AND_SCROLLBAR_PX


def test_after_to_the_end_the_leaves_holding_the_answers_are_in_view():
    stepper = BackpropStepper(lesson3_neuron())
    stepper.run_button.click()
    svg = svg_of(stepper)
    leaves = boxes_labelled(svg, {"x1", "w1", "x2", "w2", "b"})
    assert set(leaves) == {"x1", "w1", "x2", "w2", "b"}
    assert all(in_view(box, svg) for box in leaves.values()), (leaves, shown_parts(svg))
    # b sits halfway up, too far from x1..w2 for one window: two bands, the rows between left out
    assert len(shown_parts(svg)) == 2 and svg.count("micrograd-band-gap") == 1
    assert shown_size_px(svg)[1] <= BOX_PX - NOTE_AND_SCROLLBAR_PX
    assert "the leaves, which hold the answers" in stepper.graph.value
    # and before the first step, the output, where the pass starts
    stepper.reset_button.click()
    svg = svg_of(stepper)
    assert inside(boxes_labelled(svg, {"o"})["o"], view_box(svg))
    assert not inside(boxes_labelled(svg, {"x1"})["x1"], view_box(svg))  # a window, not the whole graph


def test_the_whole_graph_toggle_shows_all_of_it_scrolling_and_keeps_the_dot_text():
    stepper = BackpropStepper(lesson3_neuron())
    stepper.step()
    stepper.step()
    stepper.step()
    cropped_dot, cropped = data_dot(stepper), svg_of(stepper)
    stepper.whole_graph.value = True  # the checkbox, as a click sets it
    whole = svg_of(stepper)
    assert data_dot(stepper) == cropped_dot  # what strict nbval compares does not depend on the view
    assert shown_size_px(whole)[1] > BOX_PX and view_box(whole)[:2] == (0.0, 0.0)
    assert all(inside(box, view_box(whole)) for _, _, _, box in nodes(whole))
    assert "The whole graph" in stepper.graph.value and "scrolls in this box" in stepper.graph.value
    assert stepper.graph.layout.overflow == "auto" and stepper.graph.layout.max_height == f"{BOX_PX}px"
    stepper.step()  # the choice holds while stepping
    assert shown_size_px(svg_of(stepper))[1] > BOX_PX
    stepper.show_whole_graph(False)
    assert shown_size_px(svg_of(stepper))[1] <= BOX_PX - NOTE_AND_SCROLLBAR_PX
    stepper.back()
    assert view_box(svg_of(stepper)) == view_box(cropped)  # the same step, the same window


def test_the_text_keeps_its_size_in_the_window():
    stepper = BackpropStepper(lesson3_neuron())
    stepper.step()
    svg = svg_of(stepper)
    x0, y0, x1, y1 = view_box(svg)
    width, height = shown_size_px(svg)
    assert width / (x1 - x0) == pytest.approx(4 / 3, rel=1e-3) and height / (y1 - y0) == pytest.approx(4 / 3, rel=1e-3)
    assert re.search(r'font-size:12px[^"]*"[^>]*>Showing the part of the graph around the active node, o;', stepper.graph.value)


def test_a_graph_that_fits_its_box_is_shown_whole_without_a_note_or_a_toggle():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    stepper = BackpropStepper(a * b, rankdir="LR")
    for _ in range(3):
        assert "micrograd-window-note" not in stepper.graph.value
        assert stepper.whole_graph.layout.display == "none" and stepper.picture.window is None
        stepper.step()
    big = BackpropStepper(lesson3_neuron())
    assert big.whole_graph.layout.display != "none" and big.picture.window is not None


def test_the_static_picture_shows_the_window_and_its_note():
    stepper = BackpropStepper(lesson3_neuron())
    stepper.step()
    stepper.step()
    picture = stepper.static_html()
    assert "Showing the part of the graph around the active node, n" in picture
    assert "<img" in picture and 'data-dot="' in picture


# -- viz.window, on its own -------------------------------------------------------------


def test_marked_nodes_are_read_from_the_dot_text_not_from_a_label_in_the_highlight_colour():
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    drawing = draw_dot(c, highlight=[c, (a, c), (b, c)])
    assert marked_nodes(drawing.source) == (["v2", "o2"], ["v0", "v1"])
    assert leaf_nodes(drawing.source) == ["v0", "v1"] and output_nodes(drawing.source) == ["v2"]
    noted = draw_dot(c, notes={a: "look here"})  # a note is written in the highlight colour, inside a label
    assert HIGHLIGHT in noted.source and marked_nodes(noted.source) == ([], [])


def chain(length):
    x = Value(0.5, label="x")
    for _ in range(length):
        x = x * 1.5
    return x


def test_a_window_is_none_when_all_fits_and_stays_inside_the_drawing():
    drawing = draw_dot(chain(30), rankdir="TB")
    svg = drawing.svg()
    assert window_around(svg, ["v0"], width_px=10_000, height_px=100_000) is None
    whole = view_box(svg)
    bottom = window_around(svg, output_nodes(drawing.source), width_px=850, height_px=300)  # top to bottom
    top = window_around(svg, ["v0"], width_px=850, height_px=300)
    for part in (top, bottom):
        assert whole[0] <= part.x and whole[1] <= part.y
        assert part.x + part.width <= whole[2] + 1e-6 and part.y + part.height <= whole[3] + 1e-6
        assert part.height == pytest.approx(300 * 3 / 4)
    assert bottom.y > top.y  # the leaf at one end, the output at the other


def test_a_wide_drawing_is_windowed_sideways_too_and_a_node_larger_than_the_window_shows_its_corner():
    drawing = draw_dot(chain(30), rankdir="LR")
    svg = drawing.svg()
    last = window_around(svg, output_nodes(drawing.source), width_px=400, height_px=400)
    cropped = crop_to_window(svg, last)
    assert view_box(cropped)[2] - view_box(cropped)[0] == pytest.approx(300)
    assert re.search(r'<svg[^>]*width="400.00pt"', cropped) is None and re.search(r'<svg[^>]*width="300.00pt"', cropped)
    right = [box for title, _, _, box in nodes(svg) if title == output_nodes(drawing.source)[0]][0]
    assert inside(right, view_box(cropped))
    tiny = window_around(svg, ["v0"], width_px=10, height_px=10)
    first = [box for title, _, _, box in nodes(svg) if title == "v0"][0]
    assert (tiny.x, tiny.y) == pytest.approx((first[0], first[1]))
