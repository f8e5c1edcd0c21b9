"""micrograd.viz across processes: determinism, no Graphviz program, import cost."""

import hashlib
import os
import pathlib
import subprocess
import sys

from viz_graphs import lecture_expression, moons_loss

TESTS = pathlib.Path(__file__).parent
REPO = TESTS.parent


def run_python(code, cwd=REPO, **env_changes):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(TESTS)]), **env_changes}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def drawings_digest():
    """sha256 of the drawings whose text must not depend on the process: the
    lecture graph, marked variants, and collapsed big graphs (grouping walks dicts)."""
    from micrograd.viz import draw_dot, text_graph

    L = lecture_expression()
    d, f = L.inputs
    big, model = moons_loss(n_samples=20)
    texts = [
        draw_dot(L).source,
        draw_dot(L, highlight=[d, (f, L)], show_local_grads=True, color_by="grad").source,
        draw_dot(big, model=model, max_nodes=60).source,
        draw_dot(big, max_nodes=40).source,
        text_graph(L),
    ]
    return hashlib.sha256("\n=====\n".join(texts).encode()).hexdigest()


def test_same_dot_text_whatever_the_hash_seed():
    code = "from test_viz_process import drawings_digest; print(drawings_digest())"
    digests = {run_python(code, PYTHONHASHSEED=seed).strip() for seed in ("0", "1", "4242")}
    assert digests == {drawings_digest()}


def path_without_dot():
    """The current PATH minus every directory that holds a ``dot`` program."""
    kept = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and not os.access(os.path.join(p, "dot"), os.X_OK)]
    return os.pathsep.join(kept)


WITHOUT_DOT = """
import shutil
import sys
sys.modules["pygraphviz"] = None  # as if it were not installed: importing it fails
import graphviz
from IPython.core.formatters import DisplayFormatter
from micrograd.viz import GraphvizNotFound, draw_dot
from viz_graphs import lecture_expression

assert shutil.which("dot") is None, "dot is still on PATH"
drawing = draw_dot(lecture_expression())          # building needs no dot
data, _ = DisplayFormatter().format(drawing)       # what a notebook shows
assert "image/svg+xml" not in data
print("PLAIN", data["text/plain"])
print("HTML", data["text/html"])
assert drawing._repr_svg_() is None
for attempt in (lambda: drawing.pipe(format="svg"), lambda: drawing.render("x", format="png"), drawing.svg):
    try:
        attempt()
    except graphviz.ExecutableNotFound as error:   # still catchable the graphviz way
        assert isinstance(error, GraphvizNotFound)
        print("ERROR", error)
    else:
        raise AssertionError("expected GraphvizNotFound")
"""

INSTALL_COMMANDS = (
    "pip install pygraphviz",
    "apt-get install graphviz",
    "conda install -c conda-forge python-graphviz",
    "brew install graphviz",
)


def test_without_pygraphviz_or_the_dot_program_notebooks_show_advice_and_dot_text(tmp_path):
    out = run_python(WITHOUT_DOT, cwd=tmp_path, PATH=path_without_dot())  # render() writes its DOT file there
    # The layout comes from the graph alone, so it is the one drawn where Graphviz is there.
    source = __import__("micrograd.viz", fromlist=["draw_dot"]).draw_dot(lecture_expression()).source
    plain = out[out.index("PLAIN") : out.index("HTML")]
    html = out[out.index("HTML") : out.index("ERROR")]
    errors = out[out.index("ERROR") :]
    for command in INSTALL_COMMANDS:
        assert command in plain and command in html
        assert errors.count(command) == 3  # pipe, render and svg all say how to install
    assert source in plain  # the DOT text, to paste into any Graphviz viewer
    assert "Traceback" not in out
    assert "&lt;B&gt;L&lt;/B&gt;" in html  # DOT text escaped inside the HTML


def test_drawings_render_in_the_process_without_the_dot_program():
    # pygraphviz's wheel is what draws for every learner: it must be the renderer here, even with dot hidden.
    out = run_python(
        "from micrograd.viz import draw_dot; from micrograd.viz.render import renderer_name; "
        "from viz_graphs import lecture_expression; svg = draw_dot(lecture_expression()).svg(); "
        "print(renderer_name(), '<svg' in svg)",
        PATH=path_without_dot(),
    )
    assert out.startswith("pygraphviz ") and out.strip().endswith("True")


def test_importing_micrograd_does_not_import_graphviz():
    out = run_python("import sys, micrograd, micrograd.nn; print('graphviz' in sys.modules)")
    assert out.strip() == "False"
    out = run_python("import sys, micrograd.viz; print('graphviz' in sys.modules)")
    assert out.strip() == "True"


def test_draw_dot_imports_from_the_package_as_forks_export_it_and_only_then_imports_graphviz():
    out = run_python(
        "import sys, micrograd\n"
        "print('graphviz' in sys.modules, 'micrograd.viz' in sys.modules, 'draw_dot' in dir(micrograd))\n"
        "from micrograd import *\n"
        "print('graphviz' in sys.modules)\n"
        "from micrograd import draw_dot\n"
        "import micrograd.viz\n"
        "print(draw_dot is micrograd.viz.draw_dot is micrograd.draw_dot, 'graphviz' in sys.modules)\n"
        "print('<svg' in draw_dot(micrograd.Value(2.0) * 3).svg())\n"
        "try:\n"
        "    micrograd.draw_graph\n"
        "except AttributeError as error:\n"
        "    print(error)\n"
    )
    assert out.splitlines() == [
        "False False True", "False", "True True", "True", "module 'micrograd' has no attribute 'draw_graph'"]
    without = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['graphviz'] = None\nimport micrograd\nfrom micrograd import draw_dot"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO, timeout=300,
    )
    assert without.returncode != 0 and "need the graphviz Python package: pip install graphviz" in without.stderr


def test_text_graph_needs_no_graphviz_program():
    out = run_python(
        "from micrograd.viz import text_graph; from viz_graphs import lecture_expression; "
        "print(text_graph(lecture_expression()).splitlines()[0])",
        PATH=path_without_dot(),
    )
    assert out.strip() == "L  data -8.0000  grad  1.0000  = d * f"
