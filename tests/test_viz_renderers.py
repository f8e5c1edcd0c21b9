"""The one place that picks who draws (micrograd.viz.render), on CPython: the choice, and what a drawing shows when none can."""

import errno

import graphviz
import pytest
from IPython.core.formatters import DisplayFormatter

from micrograd.viz import GraphvizNotFound, draw_dot, render, wasm
from micrograd.viz.style import FONT

from viz_graphs import lecture_expression


def test_pygraphviz_draws_here_and_says_so():
    assert render.renderer() == "pygraphviz"
    drawing = draw_dot(lecture_expression())
    assert drawing.drawn_by is None  # nothing drawn yet
    drawing.svg()
    assert drawing.drawn_by == render.renderer_name() and drawing.drawn_by.startswith("pygraphviz ")


def test_under_pyodide_graphviz_in_webassembly_draws_and_says_so(monkeypatch):
    monkeypatch.setattr(render, "in_process", lambda: None)  # no pygraphviz there
    monkeypatch.setattr(wasm, "available", lambda: True)
    assert render.renderer() == "wasm" and render.renders_in_process()
    assert render.renderer_name() == "Graphviz in WebAssembly (viz.js)"
    monkeypatch.setenv(render.CHOICE_VARIABLE, "dot")
    assert render.renderer() == "dot"


def test_before_viz_js_is_started_a_drawing_says_how_to_start_it(monkeypatch):
    monkeypatch.setattr(render, "in_process", lambda: None)
    monkeypatch.setattr(wasm, "available", lambda: True)
    monkeypatch.setattr(wasm, "_loading", None)
    drawing = draw_dot(lecture_expression())
    with pytest.raises(GraphvizNotFound, match=r"start_loading\(url of @viz-js/viz/dist/viz.js\)"):
        drawing.svg()
    data, _ = DisplayFormatter().format(drawing)
    assert "image/svg+xml" not in data and "start_loading" in data["text/plain"] and drawing.source in data["text/plain"]


def test_viz_js_loads_only_under_pyodide():
    with pytest.raises(RuntimeError, match="for Pyodide"):
        wasm.start_loading("viz.js")
    assert wasm.loading_started() is None and not wasm.ready()


def test_a_dot_program_that_cannot_start_gives_the_advice_not_a_traceback(monkeypatch):
    # Pyodide's own error when anything starts a process: OSError: [Errno 138] emscripten does not support processes.
    def no_processes(*args, **kwargs):
        raise OSError(138, "emscripten does not support processes")

    monkeypatch.setenv(render.CHOICE_VARIABLE, "dot")
    monkeypatch.setattr(graphviz.backend.execute.subprocess, "run", no_processes)
    monkeypatch.setattr(graphviz.backend.execute.subprocess, "Popen", no_processes)
    drawing = draw_dot(lecture_expression())
    assert drawing._repr_svg_() is None
    data, _ = DisplayFormatter().format(drawing)
    assert "pip install pygraphviz" in data["text/plain"] and drawing.source in data["text/plain"]
    with pytest.raises(GraphvizNotFound) as caught:
        drawing.pipe(format="svg")
    assert isinstance(caught.value.__cause__, OSError)


def test_a_file_that_cannot_be_written_is_not_mistaken_for_a_missing_graphviz(monkeypatch, tmp_path):
    monkeypatch.setenv(render.CHOICE_VARIABLE, "dot")
    folder = tmp_path / "not-a-folder"
    folder.write_text("a file where a folder should be")
    with pytest.raises(OSError) as caught:
        draw_dot(lecture_expression()).render(folder / "graph", format="svg")
    assert not isinstance(caught.value, GraphvizNotFound) and caught.value.errno in (errno.ENOTDIR, errno.EEXIST)


def test_graphviz_in_webassembly_is_given_one_font_family_it_has_metrics_for():
    source = draw_dot(lecture_expression(), show_local_grads=True).source
    assert f'fontname="{FONT}"' in source  # the drawings name a list, for browsers without DejaVu Sans
    text = wasm.layout_text(source)
    assert f'fontname="{FONT}"' not in text and 'fontname="DejaVu Sans"' in text
    assert text.replace('fontname="DejaVu Sans"', f'fontname="{FONT}"') == source  # nothing else changes
    assert wasm._families(source) == {"DejaVu Sans": FONT}
