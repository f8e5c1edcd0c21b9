"""The GPT lesson's pictures: draw_gpt's blocks, attention heatmaps, the smoothed loss curve."""

import base64
import io
import math
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from micrograd import Value
from micrograd.viz import PAGE_WIDTH_PX, GraphDrawing, Picture, attention_heatmaps, draw_gpt, loss_curve, smoothed, svg_size
from micrograd.viz.gpt import gpt_parameter_count
from micrograd.viz.page import PX_PER_PT
from micrograd.viz.picture import CSS_DPI, DENSITY

REPO = Path(__file__).resolve().parent.parent
MIN_TEXT_PX = 11
MICROGPT = dict(vocab_size=27, block_size=16, n_embd=16, n_head=4, n_layer=1)


def causal_weights(n_heads, positions, seed=0):
    """Made-up causal attention: per head, row t holds t + 1 weights summing to 1."""
    import random

    rng = random.Random(seed)
    heads = []
    for _ in range(n_heads):
        rows = []
        for t in range(positions):
            raw = [rng.random() ** 3 for _ in range(t + 1)]
            rows.append([x / sum(raw) for x in raw])
        heads.append(rows)
    return heads


def svg_font_sizes_px(svg):
    """Every text's size in CSS px, for a Graphviz SVG whose user unit is the point."""
    root = ET.fromstring(svg.encode("utf-8"))
    sizes = [float(el.get("font-size")) for el in root.iter() if el.get("font-size")]
    return [size * PX_PER_PT for size in sizes]


def png_size(data):
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        return image.size


# -- draw_gpt ------------------------------------------------------------------------------


@pytest.mark.parametrize("sizes", [MICROGPT, {**MICROGPT, "n_layer": 3}, {**MICROGPT, "n_head": 1}, {**MICROGPT, "n_head": 16}])
def test_the_blocks_fit_a_learners_page_with_readable_text(sizes):
    drawing = draw_gpt(letters=["<BOS>", *"christopherjohn"], **sizes)
    svg = drawing.svg()
    width, height = svg_size(svg)
    assert width <= PAGE_WIDTH_PX, f"{width:.0f} px wide"
    assert height <= 1000
    assert min(svg_font_sizes_px(svg)) >= MIN_TEXT_PX


def test_the_dot_text_is_the_same_in_another_process():
    code = (
        "from micrograd.viz import draw_gpt\n"
        "print(draw_gpt(letters=['<BOS>', 'e', 'm', 'm', 'a'], position=2, vocab_size=27, block_size=16, "
        "n_embd=16, n_head=4, n_layer=2).source, end='')"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": "12345"}
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=True)
    here = draw_gpt(letters=["<BOS>", "e", "m", "m", "a"], position=2, **{**MICROGPT, "n_layer": 2}).source
    assert other.stdout == here


def test_the_blocks_name_the_letter_read_and_the_positions_attended():
    drawing = draw_gpt(letters=["<BOS>", "e", "m", "m", "a"], position=2, **MICROGPT)
    assert isinstance(drawing, GraphDrawing)
    source = drawing.source
    assert "token &#39;m&#39; embedding" in source and "wte[&#39;m&#39;&#93;" in source
    assert "position 2 embedding" in source and "wpe[2&#93;" in source
    assert "&lt;BOS&gt; e m" in source  # the KV cache holds positions 0..2, not the later "m" and "a"
    assert "&lt;BOS&gt; e m m" not in source
    for block in ("rmsnorm", "q = Wq · x", "k = Wk · x", "v = Wv · x", "Wo · heads", "fc1", "ReLU", "fc2", "lm_head", "softmax", "loss"):
        assert f"<B>{block}</B>" in source
    assert [f"head {h}" for h in range(4)] == re.findall(r"<B>(head \d+)</B>", source)
    assert source.count('label=" residual"') == 2
    assert "4,192 parameters" in source
    assert repr(drawing) == "<GPT drawn as 7 rows of blocks: 4,192 parameters>"  # a notebook's text/plain


def test_microgpt_drawn_fits_a_learners_page_whole():
    # JupyterLab at 1280×800 with the file browser open: an output about 850 px wide, and about 680 px of
    # notebook in view (tests/test_jupyterlab.py's page), so the blocks the lesson talks about are all on screen.
    import re as regex

    svg = draw_gpt(**MICROGPT)._repr_svg_()
    width, height = (float(x) * 4 / 3 for x in regex.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    assert width <= 850 and height <= 680, (width, height)


def test_the_parameter_count_is_microgpts():
    assert gpt_parameter_count(**MICROGPT) == 4192
    assert gpt_parameter_count(**{**MICROGPT, "n_layer": 2}) - 4192 == 3072
    assert "7,264 parameters" in draw_gpt(**{**MICROGPT, "n_layer": 2}).source
    assert "the same blocks, each with its own weights" in draw_gpt(**{**MICROGPT, "n_layer": 2}).source


def test_the_sizes_are_read_from_a_model():
    class Model:
        vocab_size, block_size, n_embd, n_head, n_layer = 5, 8, 8, 2, 1

    source = draw_gpt(Model()).source
    assert "2 heads, each softmax(q·k / √4) · v over the cache, then Wo" in source
    assert "5 × 8: 5 logits" in source
    assert "16 × 8" not in source.replace("32 × 8", "")  # fc1 is 4·8 × 8


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: draw_gpt(), "vocab_size"),
        (lambda: draw_gpt(**{**MICROGPT, "n_head": 3}), "split evenly"),
        (lambda: draw_gpt(**{**MICROGPT, "n_layer": 0}), "n_layer"),
        (lambda: draw_gpt(**MICROGPT, heads=4), "unexpected size names: heads"),
        (lambda: draw_gpt(letters="abcdefghijklmnopq", **MICROGPT), "more than block_size 16"),
        (lambda: draw_gpt(letters="emma", position=4, **MICROGPT), "0 to 3"),
        (lambda: draw_gpt(position=1, **MICROGPT), "needs the letters"),
        (lambda: draw_gpt(letters=[], **MICROGPT), "got none"),
    ],
)
def test_bad_arguments_are_explained(call, message):
    with pytest.raises((TypeError, ValueError), match=message):
        call()


# -- attention heatmaps ----------------------------------------------------------------------


def test_heatmaps_fit_the_page_at_twice_the_pixels():
    for positions in (1, 5, 16):
        picture = attention_heatmaps(causal_weights(4, positions), ["<BOS>", *"christopherjohn"][:positions])
        assert isinstance(picture, Picture)
        width, height = picture.size
        assert width <= PAGE_WIDTH_PX and height <= 400
        assert png_size(picture.png()) == (DENSITY * width, DENSITY * height)


def test_heatmaps_display_at_their_own_size_and_store_their_numbers_as_text():
    weights = causal_weights(4, 5)
    picture = attention_heatmaps(weights, ["<BOS>", "e", "m", "m", "a"], title="emma")
    data, metadata = picture._repr_mimebundle_()
    assert base64.b64decode(data["image/png"]) == picture.png()
    assert metadata["image/png"] == {"width": picture.size[0], "height": picture.size[1]}
    text = data["text/plain"]
    shows, key, tables = text.split("\n", 2)
    assert shows.startswith("emma, as 4 heatmaps")  # what the picture shows: its alt text
    assert key == "(rows: the query position reading; columns: the key position read)"
    assert tables.count("head ") == 4
    assert f"{weights[2][4][3]:.2f}" in tables.split("head 2")[1].split("head 3")[0].splitlines()[-1]


def test_the_upper_triangle_is_empty_and_a_look_ahead_row_is_drawn():
    weights = causal_weights(2, 4)
    weights[1][1] = [0.25, 0.25, 0.25, 0.25]  # a head that reads later positions
    picture = attention_heatmaps(weights, "abcd")
    grids = [axes.images[0].get_array() for axes in picture.figure.axes if axes.images]
    assert len(grids) == 2
    causal = grids[0]
    for t in range(4):
        for s in range(4):
            assert bool(causal.mask[t, s]) == (s > t), (t, s)  # masked: drawn as the empty colour
    assert not grids[1].mask[1].any() and float(grids[1][1, 3]) == 0.25


def test_heatmap_text_is_never_below_11_px():
    picture = attention_heatmaps(causal_weights(4, 16), ["<BOS>", *"christopherjohn"], title="a long name")
    figure = picture.figure
    texts = [t for t in figure.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text")) if a_visible_text(t)]
    assert texts
    assert min(t.get_fontsize() for t in texts) * CSS_DPI / 72 >= MIN_TEXT_PX


def a_visible_text(artist):
    return artist.get_visible() and artist.get_text().strip() != ""


def test_heatmaps_are_the_same_picture_each_time():
    weights = causal_weights(4, 6)
    first = attention_heatmaps(weights, "abcdef")
    second = attention_heatmaps(weights, "abcdef")
    assert first.png() == second.png()
    assert first.svg() == second.svg()
    assert "<text" in first.svg() and "Date" not in first.svg()  # text stays text, no time stamp


def test_values_are_accepted_as_weights():
    weights = [[[Value(1.0)], [Value(0.5), Value(0.5)]]]
    assert "0.50" in attention_heatmaps(weights, "ab").description


@pytest.mark.parametrize(
    "weights, letters, message",
    [
        ([[[1.0]]], "ab", "1 rows of weights but there are 2 letters"),
        ([[[1.0], [0.5, 0.5, 0.0]]], "ab", "3 weights, expected 1 to 2"),
        ([[[1.0], [0.5, float("nan")]]], "ab", "finite number"),
        ([[[1.0], ["x", 0.5]]], "ab", "finite number"),
        ([], "ab", "no head"),
        ([[[1.0]]], "", "no letters"),
        (3, "a", "weights\\[head\\]\\[t\\]\\[s\\]"),
    ],
)
def test_bad_weights_are_explained(weights, letters, message):
    with pytest.raises((TypeError, ValueError), match=message):
        attention_heatmaps(weights, letters)


# -- the loss curve --------------------------------------------------------------------------------


def test_the_moving_average_is_bias_corrected():
    assert smoothed([3.0]) == [3.0]  # the first average is the first loss, not 5 % of it
    assert smoothed([2.0] * 50, 0.95) == pytest.approx([2.0] * 50)
    assert smoothed([1.0, 2.0, 3.0], 0.0) == [1.0, 2.0, 3.0]
    values = [3.0, 1.0, 2.0]
    by_hand, average = [], 0.0
    for k, x in enumerate(values, start=1):
        average = 0.5 * average + 0.5 * x
        by_hand.append(average / (1 - 0.5**k))
    assert smoothed(values, 0.5) == by_hand
    with pytest.raises(ValueError, match="0 ≤ smoothing < 1"):
        smoothed(values, 1.0)


def test_the_loss_curve_draws_each_step_faint_the_average_bold_and_ln_vocab():
    losses = [3.3 - 0.002 * k + 0.3 * math.sin(k) for k in range(300)]
    picture = loss_curve(losses, vocab_size=27)
    axes = picture.figure.axes[0]
    raw, average, baseline = axes.lines
    assert list(raw.get_ydata()) == losses and raw.get_alpha() < 0.5
    assert list(average.get_ydata()) == smoothed(losses) and average.get_linewidth() > raw.get_linewidth()
    assert list(baseline.get_ydata()) == [math.log(27)] * 2 and baseline.get_linestyle() == "--"
    assert any("ln 27 = 3.30" in t.get_text() for t in axes.texts)
    width, height = picture.size
    assert width <= PAGE_WIDTH_PX and png_size(picture.png()) == (DENSITY * width, DENSITY * height)
    text = picture.description
    assert "300 steps" in text and "ln 27 = 3.2958" in text and f"last step {losses[-1]:.4f}" in text


def test_the_loss_curve_takes_values_and_history_records():
    from_values = loss_curve([Value(3.0), Value(2.5)]).description
    from_records = loss_curve([{"step": 1, "loss": 3.0}, {"step": 2, "loss": 2.5}]).description
    assert from_values == from_records
    assert "first step 3.0000, last step 2.5000" in from_values


@pytest.mark.parametrize(
    "losses, kwargs, message",
    [([], {}, "at least one"), ([1.0, float("inf")], {}, "step 1 has inf"), ([1.0], {"vocab_size": 1}, "vocab_size")],
)
def test_bad_losses_are_explained(losses, kwargs, message):
    with pytest.raises(ValueError, match=message):
        loss_curve(losses, **kwargs)


def test_a_weights_shade_runs_from_white_to_the_weight_colour():
    from micrograd import palette

    assert palette.weight_shade(0) == "#ffffff"
    assert palette.weight_shade(1) == palette.WEIGHT_COLOUR
    assert palette.weight_shade(2) == palette.WEIGHT_COLOUR and palette.weight_shade(-1) == "#ffffff"
    half = [int(palette.weight_shade(0.5)[i : i + 2], 16) for i in (1, 3, 5)]
    full = [int(palette.WEIGHT_COLOUR[i : i + 2], 16) for i in (1, 3, 5)]
    assert all(f < h < 255 or f == 255 for h, f in zip(half, full))
    with pytest.raises(ValueError, match="between 0 and 1"):
        palette.weight_shade(float("nan"))


@pytest.mark.parametrize("n_layer", [1, 2])
def test_the_blocks_count_the_parameters_of_a_gpt(n_layer):
    from micrograd import GPT

    model = GPT(27, n_layer=n_layer, rng=0)
    drawing = draw_gpt(model)
    assert f"{len(model.parameters()):,} parameters" in drawing.source
    assert drawing.parameter_count == len(model.parameters())


def test_heatmaps_of_a_gpts_attention_over_a_name():
    from micrograd import GPT
    from micrograd.data import CharTokenizer, names

    tokenizer = CharTokenizer(names())
    model = GPT(tokenizer.vocab_size, rng=1)
    tokens = tokenizer.document("emma")[:-1]
    model(tokens)
    letters = [tokenizer.symbol(t) for t in tokens]
    picture = attention_heatmaps(model.attention[0], letters)
    lines = picture.description.split("\nhead 3\n")[1].splitlines()
    last_row = [float(x) for x in lines[-1].split()[1:]]
    assert last_row == [round(w, 2) for w in model.attention[0][3][4]]
    grid = picture.figure.axes[3].images[0].get_array()
    assert bool(grid.mask[0, 1]) and not grid.mask[4].any()


def test_importing_viz_leaves_matplotlib_until_a_picture_is_made():
    code = (
        "import sys\n"
        "import micrograd.viz\n"
        "before = 'matplotlib' in sys.modules\n"
        "micrograd.viz.loss_curve([3.0, 2.0])\n"
        "print(before, 'matplotlib' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=True)
    assert done.stdout.split() == ["False", "True"]


def test_heatmaps_svg_is_the_same_in_another_process():
    code = (
        "import sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from test_gpt_pictures import causal_weights\n"
        "from micrograd.viz import attention_heatmaps\n"
        "print(attention_heatmaps(causal_weights(4, 5), 'abcde').svg(), end='')"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONHASHSEED": "7"}
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=True)
    assert other.stdout == attention_heatmaps(causal_weights(4, 5), "abcde").svg()


def test_a_pictures_alt_text_says_what_it_shows_not_only_its_title():
    # The first line of the description is the <img>'s alt text on the page: a reader who cannot see the
    # picture learns what it shows from it (the whole description is under it, "In words").
    curve = loss_curve([3.3, 3.0, 2.5, 2.4], vocab_size=27).words.name
    assert curve.startswith("Training loss, a line chart of 4 steps")
    assert "falling from 3.3000 to" in curve and "below the dashed line at ln 27 = 3.30" in curve
    rising = loss_curve([1.0, 2.0, 4.0], vocab_size=2).words.name
    assert "rising from 1.0000 to" in rising and "above the dashed line at ln 2 = 0.69" in rising
    weights = [[[1.0], [0.75, 0.25], [0.2, 0.3, 0.5]], [[1.0], [0.5, 0.5], [0.6, 0.3, 0.1]]]
    heatmaps = attention_heatmaps(weights, ["BOS", "e", "m"]).words.name
    assert heatmaps.startswith("Attention weights of 2 heads, as 2 heatmaps, one per head, over BOS e m")
    assert "cells after them empty" in heatmaps  # causal
    assert heatmaps.endswith("Reading m, the last position, head 0 looks most at m (0.50), head 1 at BOS (0.60)")
    looking_ahead = attention_heatmaps([[[0.5, 0.5], [0.5, 0.5]]], "ab").words.name
    assert "as a heatmap over a b" in looking_ahead and "empty" not in looking_ahead
