"""The drawing does not depend on the process or on Graphviz being installed."""

import json
import os
import shutil
import subprocess
import sys
import textwrap


from micrograd import Value
from micrograd.viz import draw_dot

_LECTURE_GRAPH = textwrap.dedent(
    """
    import random
    from micrograd import MLP, Value
    from micrograd.viz import draw_dot
    a, b, c, f = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c"), Value(-2.0, label="f")
    L = (a * b + c) * f
    L.label = "L"
    L.backward()
    model = MLP(3, [4, 4, 1], rng=1)
    out = model([2.0, 3.0, -1.0]) + sum(p * p for p in model.parameters())
    out.backward()
    print(draw_dot(L).source)
    print(draw_dot(out, model=model).source)
    """
)


def _run(code, cwd=None, **env):
    return subprocess.run([sys.executable, "-c", code], env={**os.environ, **env}, cwd=cwd,
                          capture_output=True, text=True, check=True).stdout


def test_same_dot_text_in_every_process_whatever_the_hash_seed():
    sources = {_run(_LECTURE_GRAPH, PYTHONHASHSEED=seed) for seed in ("0", "1", "4242")}
    assert len(sources) == 1
    assert "0x" not in sources.pop()  # no id()-derived names


def test_without_dot_a_notebook_shows_install_advice_and_the_dot_text(tmp_path):
    no_dot = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                             if not os.path.exists(os.path.join(p, "dot")))
    code = textwrap.dedent(
        """
        import json
        from micrograd import Value
        from micrograd.viz import GraphvizNotFound, draw_dot
        x = Value(1.0, label="x")
        drawing = draw_dot(x * 2)
        bundle = drawing._repr_mimebundle_()
        errors = []
        for call in (lambda: drawing.pipe(format="svg"), lambda: drawing.render("out", format="png")):
            try:
                call()
            except GraphvizNotFound as error:
                errors.append(str(error))
        print(json.dumps({"bundle": bundle, "svg": drawing._repr_svg_(), "errors": errors}))
        """
    )
    result = json.loads(_run(code, cwd=tmp_path, PATH=no_dot))
    text = result["bundle"]["text/plain"]
    assert "image/svg+xml" not in result["bundle"] and result["svg"] is None
    for command in ("apt-get install graphviz", "conda install -c conda-forge python-graphviz", "brew install graphviz"):
        assert command in text
        assert all(command in error for error in result["errors"]) and len(result["errors"]) == 2
    assert "digraph" in text and "Traceback" not in text


def test_dot_is_really_there_for_the_rendering_tests():
    # CI installs Graphviz; the rendering tests must not quietly run without it.
    assert shutil.which("dot"), "Graphviz's dot is not on PATH: apt-get install graphviz"
    svg = draw_dot(Value(1.0, label="x") + 1).svg()
    assert svg.lstrip().startswith("<svg") or "<svg" in svg
