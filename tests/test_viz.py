"""micrograd.viz: the DOT text of drawings (no rendering here; see test_viz_render.py).

Stored drawings live in tests/snapshots/viz/*.dot.  After a deliberate change
to the look, regenerate them with ``python tests/viz_graphs.py`` and review the
diff; any other change to the DOT text fails ``test_snapshot``.
"""

import pathlib
import re

import pytest

from micrograd import MLP, Value, graph_size
from micrograd.engine import dot
from micrograd.viz import DEFAULT_MAX_NODES, GraphDrawing, dot_source, draw_dot
from micrograd.viz.labels import format_number, html_text, visible_lines
from micrograd.viz.style import ROLE_FILLS, grad_fill

from viz_graphs import double_use, lecture_expression, lecture_neuron, snapshot_sources

SNAPSHOTS = pathlib.Path(__file__).parent / "snapshots" / "viz"
NODE = re.compile(r"^\t(\w+) \[(.*)\]$", re.M)
EDGE = re.compile(r"^\t(\w+) -> (\w+)(?: \[(.*)\])?$", re.M)


def nodes(source):
    return {name: attributes for name, attributes in NODE.findall(source) if name not in ("graph", "node", "edge")}


def edges(source):
    return EDGE.findall(source)


def value_node(source, text):
    """The name of the record whose label contains ``text``."""
    found = [name for name, attributes in nodes(source).items() if text in attributes and name.startswith("v")]
    assert len(found) == 1, f"{text!r} is in {len(found)} records"
    return found[0]


# -- snapshots and structure ------------------------------------------------------


@pytest.fixture(scope="module")
def current_sources():
    return snapshot_sources()


@pytest.mark.parametrize("name", sorted(p.stem for p in SNAPSHOTS.glob("*.dot")))
def test_snapshot(name, current_sources):
    stored = (SNAPSHOTS / f"{name}.dot").read_text(encoding="utf-8")
    assert current_sources[name] == stored, (
        f"the DOT text of {name} changed; if on purpose, run python tests/viz_graphs.py and review the diff"
    )


def test_every_snapshot_is_stored(current_sources):
    assert sorted(current_sources) == sorted(p.stem for p in SNAPSHOTS.glob("*.dot"))


def test_lecture_graph_records_and_ops():
    source = draw_dot(lecture_expression(), rankdir="LR").source
    found = nodes(source)
    records = [n for n in found if n.startswith("v")]
    ops = [n for n in found if n.startswith("o")]
    assert len(records) == 7 and len(ops) == 3
    # label | data | grad with four decimals, as in the lecture
    assert "<B>L</B></TD><VR/><TD>data -8.0000</TD><VR/><TD>grad 1.0000" in found[value_node(source, "<B>L</B>")]
    assert "grad 6.0000" in found[value_node(source, "<B>a</B>")]
    assert "grad -4.0000" in found[value_node(source, "<B>b</B>")]
    # every op node feeds exactly its own value, and the value's inputs feed the op
    for op in ops:
        assert (op, "v" + op[1:], "") in edges(source)
    assert len(edges(source)) == 3 + 6


def test_a_plus_a_draws_two_edges():
    a, b = double_use()
    source = draw_dot(b).source
    va, vb = value_node(source, "<B>a</B>"), value_node(source, "<B>b</B>")
    into_op = [e for e in edges(source) if e[:2] == (va, "o" + vb[1:])]
    assert len(into_op) == 2
    assert graph_size(b) == (2, 2)
    assert a.grad == 2.0


def test_each_value_is_drawn_once_even_when_shared():
    x = Value(1.5, label="x")
    y = (x * x + x).tanh() * x
    source = draw_dot(y).source
    assert len(re.findall(r"<B>x</B>", source)) == 1
    assert len([n for n in nodes(source) if n.startswith("v")]) == graph_size(y)[0]


def test_names_come_from_the_graph_not_from_memory():
    first, second = draw_dot(lecture_expression()).source, draw_dot(lecture_expression()).source
    assert first == second
    assert set(nodes(first)) == {f"v{i}" for i in range(7)} | {"o2", "o4", "o6"}


def test_draw_dot_is_a_digraph_with_the_same_text_as_dot_source():
    import graphviz

    L = lecture_expression()
    drawing = draw_dot(L, show_grad=False)
    assert isinstance(drawing, graphviz.Digraph) and isinstance(drawing, GraphDrawing)
    # dot_source cannot lay the graph out, so it takes the direction draw_dot chose.
    assert drawing.source == dot_source(L, show_grad=False, rankdir=drawing.rankdir)
    assert drawing.source.startswith("digraph micrograd {\n") and drawing.source.endswith("}\n")
    assert "<TD>grad" not in drawing.source
    assert re.fullmatch(r"<GraphDrawing: 7 values as 10 nodes>", repr(drawing))


def test_precision_and_rankdir():
    L = lecture_expression()
    source = draw_dot(L, precision=2, rankdir="TB").source
    assert "data -8.00</TD>" in source and "rankdir=TB" in source


def test_options_are_checked():
    L = lecture_expression()
    with pytest.raises(TypeError, match=r"below one node .*\.data and its inputs in \._prev"):
        draw_dot([L])
    with pytest.raises(ValueError, match="rankdir"):
        draw_dot(L, rankdir="left")
    with pytest.raises(ValueError, match="precision"):
        draw_dot(L, precision=-1)
    with pytest.raises(ValueError, match="color_by"):
        draw_dot(L, color_by="rainbow")
    with pytest.raises(ValueError, match="max_nodes"):
        draw_dot(L, max_nodes=3)
    with pytest.raises(ValueError, match="not both"):
        draw_dot(L, params=[], model=MLP(1, [1]))
    with pytest.raises(TypeError, match="params"):
        draw_dot(L, params=42)
    with pytest.raises(TypeError, match="params must all be nodes of the graph, got float"):
        draw_dot(L, params=[1.0])
    with pytest.raises(TypeError, match="title"):
        draw_dot(L, title=3)


# -- label text -----------------------------------------------------------------------


def test_label_text_is_escaped_for_graphviz():
    assert html_text('say "hi" & <b>') == "say &quot;hi&quot; &amp; &lt;b&gt;"
    assert html_text("{a|b} [c") == "{a|b} [c"  # only record labels treat these specially
    assert html_text("]]") == "&#93;&#93;"  # dot rejects a label text made of "]" alone
    assert html_text("back\\slash \\N") == "back\\\\slash \\\\N"  # else Graphviz expands \N
    assert html_text("two\nlines") == "two<BR/>lines"
    assert html_text("it's") == "it&#39;s"


def test_invisible_and_xml_forbidden_characters_become_visible():
    assert visible_lines("a\tb") == ["a\u2409b"]  # ␉
    assert visible_lines("a\r\nb\rc") == ["a", "b", "c"]
    assert visible_lines("nul\x00 del\x7f") == ["nul\u2400 del\u2421"]
    assert visible_lines("\ufffe\x85") == ["\\ufffe\\u0085"]
    assert visible_lines("é ü 😀 ∂") == ["é ü 😀 ∂"]


def test_a_hostile_label_lands_in_the_source_escaped():
    v = Value(1.0, label='"]; evil -> x [label="')
    source = draw_dot(v).source
    assert "evil -> x" not in [f"{a} -> {b}" for a, b, _ in edges(source)]
    assert "&quot;&#93;; evil -&gt; x [label=&quot;" in source


# -- numbers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "x, text",
    [
        (-8.0, "-8.0000"),
        (0.0, "0.0000"),
        (-0.0, "0.0000"),
        (6.881373587019543, "6.8814"),
        (1e-7, "1.0000e-07"),  # not 0.0000: a tiny gradient is not a zero one
        (-2.5e-5, "-2.5000e-05"),
        (123456789.0, "1.2346e+08"),
        (1e-4, "0.0001"),
    ],
)
def test_format_number(x, text):
    assert format_number(x, 4) == text


# -- roles, parameters, colours -------------------------------------------------------------


def test_roles_from_params_colour_the_records():
    o, params = lecture_neuron()
    source = draw_dot(o, params=params).source
    found = nodes(source)
    assert f'fillcolor="{ROLE_FILLS["parameter"]}"' in found[value_node(source, "<B>w1</B>")]
    assert f'fillcolor="{ROLE_FILLS["input"]}"' in found[value_node(source, "<B>x1</B>")]
    assert f'fillcolor="{ROLE_FILLS["intermediate"]}"' in found[value_node(source, "<B>n</B>")]
    assert f'fillcolor="{ROLE_FILLS["output"]}"' in found[value_node(source, "<B>o</B>")]
    without = draw_dot(o).source
    assert f'fillcolor="{ROLE_FILLS["input"]}"' in nodes(without)[value_node(without, "<B>w1</B>")]


def test_model_names_its_parameters_and_weighted_sums_imply_them():
    model = MLP(2, [2, 1], rng=0)
    x = [Value(0.5, label="x0"), Value(-1.0, label="x1")]
    out = model(x)
    named = draw_dot(out, model=model).source
    for name in ("L0.N0.w0", "L0.N1.b", "L1.N0.w1"):
        assert f"<I>{name}</I>" in named
    # Without model=, the weights and bias of w·x+b nodes still count as parameters.
    plain = draw_dot(out).source
    weight = model.layers[0].neurons[0].w[0]
    parameter_fill = f'fillcolor="{ROLE_FILLS["parameter"]}"'
    assert plain.count(parameter_fill) == len(model.parameters())
    assert parameter_fill not in nodes(plain)[value_node(plain, "<B>x0</B>")]
    assert f"data {weight.data:.4f}" in plain


def test_weighted_sum_with_constant_inputs_has_only_parameters_as_inputs():
    w = [Value(0.5), Value(-0.25)]
    b = Value(0.1)
    out = dot(w, [2.0, 4.0], b)  # plain-number inputs: no nodes for them
    source = draw_dot(out).source
    assert source.count(f'fillcolor="{ROLE_FILLS["parameter"]}"') == 3


def test_params_accepts_a_mapping_of_names():
    w = Value(2.0)
    y = w * 3.0
    source = draw_dot(y, params={"weight": w}).source
    assert "<I>weight</I>" in source


def test_color_by_grad():
    assert grad_fill(0.0, 5.0) == "#ffffff"
    negative, positive = grad_fill(-5.0, 5.0), grad_fill(5.0, 5.0)
    assert int(negative[1:3], 16) > int(negative[5:7], 16)  # more red than blue
    assert int(positive[5:7], 16) > int(positive[1:3], 16)  # more blue than red
    assert grad_fill(-1.0, 5.0) not in (negative, "#ffffff")  # weaker, but visible
    L = lecture_expression()
    source = draw_dot(L, color_by="grad").source
    assert f'fillcolor="{grad_fill(6.0, 6.0)}"' in nodes(source)[value_node(source, "<B>a</B>")]
    plain = draw_dot(L, color_by=None).source
    assert set(re.findall(r'v\d+ \[.*fillcolor="(#\w+)"', plain)) == {ROLE_FILLS["intermediate"]}


# -- highlight and local derivatives --------------------------------------------------------


def test_highlight_marks_nodes_and_edges():
    L = lecture_expression()
    d, f = L.inputs
    e, c = d.inputs
    source = draw_dot(L, highlight=[d, (c, d), (e, d)]).source
    vd, vc, ve = (value_node(source, f"<B>{n}</B>") for n in "dce")
    found = nodes(source)
    assert 'color="#b91c1c"' in found[vd] and 'color="#b91c1c"' in found["o" + vd[1:]]
    marked = {(a, b) for a, b, attributes in edges(source) if "#b91c1c" in attributes}
    assert marked == {(vc, "o" + vd[1:]), (ve, "o" + vd[1:]), ("o" + vd[1:], vd)}
    assert 'color="#b91c1c"' not in found[value_node(source, "<B>L</B>")]


def test_highlight_is_checked():
    L = lecture_expression()
    d, f = L.inputs
    with pytest.raises(ValueError, match="not part of the graph"):
        draw_dot(L, highlight=[Value(1.0)])
    with pytest.raises(ValueError, match=r"\(input, output\)"):
        draw_dot(L, highlight=[(L, d)])
    with pytest.raises(TypeError, match="highlight items"):
        draw_dot(L, highlight=["d"])
    with pytest.raises(TypeError, match="highlight takes"):
        draw_dot(L, highlight=3)


def test_local_grads_label_the_edges():
    L = lecture_expression()
    source = draw_dot(L, show_local_grads=True).source
    labels = sorted(attributes for _, _, attributes in edges(source) if attributes)
    assert labels == sorted(
        ['label="local -3.0000"', 'label="local 2.0000"', 'label="local 1.0000"', 'label="local 1.0000"',
         'label="local -2.0000"', 'label="local 4.0000"']
    )


def test_title_and_legend_are_in_the_graph_label():
    source = draw_dot(lecture_expression(), title="a <title>", legend=True).source
    label = re.search(r"^\tlabel=<(.*)>$", source, re.M).group(1)
    assert "a &lt;title&gt;" in label
    # each role by its colour and, for those with a border of their own, by that border's name
    for role in ("input", "parameter (dashed)", "intermediate", "output (double)"):
        assert f">{role}</FONT>" in label


def test_small_graphs_are_never_collapsed():
    drawing = draw_dot(lecture_expression())
    assert drawing.collapsed == () and drawing.node_count == 10
    assert DEFAULT_MAX_NODES >= 100
