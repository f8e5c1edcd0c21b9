"""The library and the course's machinery under real Pyodide, in Node: what the browser app's kernel runs.

``node_modules/pyodide`` (the version package.json pins) runs ``tests/pyodide/program.py``
with this package, the pure-Python packages it needs (graphviz, ipywidgets, IPython), a
``fcntl`` without ``flock`` as Pyodide's kernel has, and Graphviz in WebAssembly from
``node_modules/@viz-js/viz``; then, in a Pyodide of its own, a program that frees a graph
too deep for the browser's stack (the README's limit of the app).  No browser: the app itself
is tested elsewhere.
"""

import html
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import foreign_nodes
from micrograd import Value
from micrograd.viz import draw_dot

REPO = Path(__file__).resolve().parent.parent
RUNNER = REPO / "tests" / "pyodide" / "run.mjs"
PROGRAM = REPO / "tests" / "pyodide" / "program.py"
NODE_MODULES = REPO / "node_modules"
SVG = "{http://www.w3.org/2000/svg}"

# What the program imports beyond the standard library and this package: graphviz (drawing.py
# imports it), ipywidgets and its own needs, IPython for the kernel's shell.  Pure Python all.
PACKAGES = (
    "graphviz", "ipywidgets", "comm", "traitlets", "IPython", "ipython_pygments_lexers", "jedi",
    "parso", "pexpect", "ptyprocess", "prompt_toolkit", "pygments", "stack_data", "asttokens", "executing",
    "pure_eval", "wcwidth", "typing_extensions",
)
FIGURE_NOTE = "This figure needs matplotlib, which this browser app does not have; the course site shows it: "


def _node():
    node = shutil.which("node")
    missing = [str(path.relative_to(REPO)) for path in (NODE_MODULES / "pyodide", NODE_MODULES / "@viz-js" / "viz") if not path.is_dir()]
    if node is None or missing:
        pytest.fail(
            "the Pyodide tests need Node.js (20 or newer) and the npm packages package.json pins: "
            + ("install Node.js, then " if node is None else f"{', '.join(missing)} missing: ")
            + f"run `npm ci` in {REPO} (make setup does)",
            pytrace=False,
        )
    return node


def _copy_packages(into):
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "micrograd", into / "micrograd", ignore=ignore)
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None:
            pytest.fail(f"{name} is not installed in this environment: run make setup", pytrace=False)
        origin = Path(spec.origin)
        if origin.name == "__init__.py":
            shutil.copytree(origin.parent, into / name, ignore=ignore)
        else:
            shutil.copy(origin, into / origin.name)


def lesson_01_cells():
    """[cell id, code] of lesson 1's set-up, its f, and a figure cell."""
    cells = json.loads((REPO / "notebooks" / "01_derivatives.ipynb").read_text(encoding="utf-8"))["cells"]
    code = [[cell["id"], "".join(cell["source"])] for cell in cells if cell["cell_type"] == "code"]
    return code[:2] + [cell for cell in code if "plt.subplots" in cell[1]][:1]


def lesson_table():
    """The table the app's build writes for the kernel (docs/build_lite.py): the lesson of each cell id."""
    sys.path[:0] = [str(REPO / "docs"), str(REPO / "docs" / "_ext")]
    try:
        import build_lite
    finally:
        del sys.path[:2]
    return build_lite.lesson_cells([REPO / "notebooks" / "01_derivatives.ipynb"])


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    packages = tmp_path_factory.mktemp("pyodide-packages")
    _copy_packages(packages)
    (packages / "lesson_cells.json").write_text(json.dumps(lesson_01_cells()), encoding="utf-8")
    (packages / "lesson_table.json").write_text(json.dumps(lesson_table()), encoding="utf-8")
    (packages / "lecture_autograd.py").write_text(foreign_nodes.LECTURE_AUTOGRAD, encoding="utf-8")
    return packages


def run_under_pyodide(packages, program):
    location = (NODE_MODULES / "pyodide" / "worker.js").as_uri()  # where the kernel's worker would be
    return subprocess.run([_node(), str(RUNNER), str(packages), str(program), location],
                          capture_output=True, text=True, timeout=120, cwd=REPO)


@pytest.fixture(scope="module")
def found(packages):
    done = run_under_pyodide(packages, PROGRAM)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.splitlines()[-1])


def lecture_graph():
    a, b, c, f = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c"), Value(-2.0, label="f")
    e = a * b
    e.label = "e"
    d = e + c
    d.label = "d"
    L = d * f
    L.label = "L"
    L.backward()
    return L


def test_the_engine_runs_and_draws_the_same_dot_text_as_cpython(found):
    assert found["platform"] == "emscripten"
    assert found["grads"] == [6.0, -4.0, -2.0, 4.0]
    assert found["source"] == draw_dot(lecture_graph(), show_local_grads=True).source


def test_graphviz_in_webassembly_draws_once_loaded_from_the_url_relative_to_the_worker(found):
    assert found["graphviz_url"] == f"file://{NODE_MODULES}/@viz-js/viz/dist/viz.js"  # as JavaScript's URL writes it
    assert found["before_loaded"] == (
        "Graphviz (in WebAssembly) is still loading in this tab: run the cell again in a moment to see the drawing."
    )
    assert found["renderer"] == found["drawn_by"] == "Graphviz in WebAssembly (viz.js)"
    texts = [t for t in re.findall(r">([^<>]+)</text>", found["svg"])]
    assert "data &#45;8.0000" in texts and "local &#45;3.0000" in texts and "Generated by graphviz" not in found["svg"]
    assert 'font-family="DejaVu Sans,Helvetica,Arial,sans-serif"' in found["svg"]  # the whole list, for the browser


def test_the_backprop_stepper_steps_to_the_end_at_kept_positions(found):
    assert found["stepper"].startswith("BackpropStepper: 7 nodes, step 3 of 3"), found["stepper"]
    assert found["stepper_layouts"] >= 1  # laid out by Graphviz in WebAssembly, then redrawn with nop2
    assert "data:image/svg+xml;base64," in found["stepper_picture"] or "<svg" in found["stepper_picture"]
    assert "<svg" in found["kept_svg"] and "grad 1.0000" in found["kept_svg"]


def test_my_micrograd_is_saved_without_a_lock(found):
    assert found["enable_magic"]["success"] and found["magic"]["success"], found["magic"]
    assert "# %% lesson 2: MyValue\nclass MyValue:\n    pass\n" in found["saved"]


LESSON_01_PAGE = (REPO / "site").as_uri() + "/lessons/01_derivatives.html"  # the site, relative to the worker


def test_a_figure_cell_of_lesson_01_runs_and_says_where_its_page_shows_the_figure(found):
    setup, define_f, figure = found["cells"]
    assert setup == {"printed": "", "success": True}  # %matplotlib inline, %config InlineBackend, import pyplot
    assert define_f["success"]
    assert figure == {"printed": f"{FIGURE_NOTE}{LESSON_01_PAGE} (or run the lesson in JupyterLab, `make lab`).\n",
                      "success": True}


def test_the_training_stepper_steps_with_one_line_in_place_of_its_figure(found):
    assert found["training"]["summary"].startswith("TrainingStepper: 9 parameters, 2 samples, step 5, loss ")
    assert found["training"]["note"] == f"{FIGURE_NOTE}{LESSON_01_PAGE} (or run the lesson in JupyterLab, `make lab`)."
    assert found["training"]["shown"] == f'<div class="micrograd-note">{html.escape(found["training"]["note"])}</div>'


def test_lesson_4s_check_on_the_lectures_recursive_order_leaves_the_kernel_alive_run_after_run(found):
    # Each run, Python gives up on the check's chain 5 000 deep; freed whole, the chain would kill
    # the kernel within a few runs (lesson04_order.deep_chain takes it apart first).
    assert len(found["deep_checks"]) == 8
    for verdict in found["deep_checks"]:
        assert verdict.startswith("✓ Build it: topological order") and "Python gives up" in verdict, verdict


def test_freeing_a_chain_100_000_deep_stops_pyodide_as_the_readme_says(packages, tmp_path):
    # The README's limit of the browser app: Pyodide frees a chain one link inside the next on the
    # JavaScript engine's stack, which CPython's guard against deep freeing does not measure.  If a
    # Pyodide to come frees it, this fails: then the README's sentence goes.
    program = tmp_path / "deep.py"
    program.write_text(
        "from micrograd import Value\n"
        "x = Value(1.0)\n"
        "for _ in range(100_000):\n"
        "    x = -x\n"
        "print('built', flush=True)\n"
        "del x\n"
        "print('freed')\n"
    )
    done = run_under_pyodide(packages, program)
    assert done.stdout.startswith("built\n") and "freed" not in done.stdout, (done.stdout, done.stderr[-2000:])
    assert "Pyodide has suffered a fatal error" in done.stdout + done.stderr
    assert "Maximum call stack size exceeded" in done.stdout + done.stderr


def test_import_numpy_says_in_one_line_where_the_lesson_runs(found):
    assert not found["numpy"]["success"]
    assert found["numpy"]["printed"].strip() == (
        "NotInThisBrowser: This browser app has no numpy, so this cell cannot run here: the lesson runs in full in "
        "JupyterLab (`make lab`), or in a JupyterLite app built with a full Pyodide distribution; the course site "
        f"shows what it prints: {LESSON_01_PAGE}."
    )


# -- edge labels: laid out with room for their text ---------------------------------------------


def _text_width(text, size):
    """The width of ``text`` in DejaVu Sans at ``size`` points, as a browser with that font draws it."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    width, _, _ = TextToPath().get_text_width_height_descent(text, FontProperties(family="DejaVu Sans", size=size), ismath=False)
    return width


def _boxes(svg):
    """([(x0, y0, x1, y1) per edge label], [per node: its shape's box]) of a Graphviz SVG."""
    root = ET.fromstring(svg.encode("utf-8"))
    labels, nodes = [], []
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "edge":
            for text in group.iter(f"{SVG}text"):
                x, y, size = float(text.get("x")), float(text.get("y")), float(text.get("font-size"))
                width = _text_width(html.unescape(text.text or ""), size)
                labels.append((x - width / 2, y - 0.75 * size, x + width / 2, y + 0.2 * size))
        elif group.get("class") == "node":
            points = []
            for shape in group:
                if shape.tag == f"{SVG}ellipse":
                    cx, cy, rx, ry = (float(shape.get(k)) for k in ("cx", "cy", "rx", "ry"))
                    points += [(cx - rx, cy - ry), (cx + rx, cy + ry)]
                elif shape.tag in (f"{SVG}path", f"{SVG}polygon"):
                    numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", shape.get("d") or shape.get("points"))]
                    points += list(zip(numbers[::2], numbers[1::2]))
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            nodes.append((min(xs), min(ys), max(xs), max(ys)))
    return labels, nodes


def _text_outside_its_node(svg):
    """Every line of a node's text that runs out of its node's box."""
    root = ET.fromstring(svg.encode("utf-8"))
    _, nodes = _boxes(svg)
    groups = [group for group in root.iter(f"{SVG}g") if group.get("class") == "node"]
    out = []
    for group, (x0, _, x1, _) in zip(groups, nodes):
        for text in group.iter(f"{SVG}text"):
            x, size = float(text.get("x")), float(text.get("font-size"))
            width = _text_width(html.unescape(text.text or ""), size)
            left = {"start": x, "middle": x - width / 2, "end": x - width}[text.get("text-anchor", "start")]
            if left < x0 - 0.5 or left + width > x1 + 0.5:
                out.append(text.text)
    return out


def _overlaps(svg):
    """Every pair of an edge label and another label or a node whose boxes overlap."""
    labels, nodes = _boxes(svg)

    def meet(p, q):
        return p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]

    found = [(p, q) for i, p in enumerate(labels) for q in labels[i + 1:] if meet(p, q)]
    return found + [(p, q) for p in labels for q in nodes if meet(p, q)]


def test_edge_labels_do_not_overlap_under_graphviz_in_webassembly(found):
    assert _boxes(found["svg"])[0], "no edge labels found in the drawing"
    assert _overlaps(found["svg"]) == []
    assert _text_outside_its_node(found["svg"]) == []
    # As pygraphviz lays them out, measuring the real font.
    assert _overlaps(draw_dot(lecture_graph(), show_local_grads=True).svg()) == []
    # Graphviz in WebAssembly given the font list as it is estimates Times' widths: they overlapped.
    assert _overlaps(found["svg_without_font_fix"]) != [] and _text_outside_its_node(found["svg_without_font_fix"]) != []
