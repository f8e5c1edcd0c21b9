"""The stored notebooks validate on any machine: strict nbval compares a drawing's DOT text, not its geometry.

A drawing's SVG holds coordinates that Graphviz's version and the fonts
decide; its DOT text holds what micrograd computes (nodes, labels, values,
gradients, colours, highlights, edges, the layout direction).  The outputs
carry both; ``notebooks/sanitize.cfg`` turns the SVG into a placeholder.

Lesson 03 (two drawings, and the backprop stepper's picture) runs under
strict nbval in two other set-ups at once, each in its own process, against
the stored outputs:

- the bundled Graphviz, with no ``dot`` on PATH and only the system's DejaVu
  fonts visible (``MICROGRAD_FONTS=system``: not matplotlib's pinned copy);
- the system's ``dot`` (Debian's Graphviz 2.43 here), with the same fonts.

In both, one drawing cell is changed to hide its gradients, and that cell,
and only that cell, must fail.  About 10 s of wall time.
"""

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from nbval.plugin import get_sanitize_patterns

from micrograd import Value
from micrograd.viz import draw_dot
from viz_graphs import lecture_expression

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"
SANITIZE = NOTEBOOKS / "sanitize.cfg"
LESSONS = ["03_backprop_by_hand.ipynb"]
CHANGED_LESSON = "03_backprop_by_hand.ipynb"
DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
REQUIRE_SYSTEM_DOT = "MICROGRAD_REQUIRE_SYSTEM_DOT"  # CI sets it: there the system dot run must happen


def sanitized(text):
    """``text`` as strict nbval compares it, with the project's sanitize rules."""
    for regex, replace in get_sanitize_patterns(SANITIZE.read_text(encoding="utf-8")):
        text = re.sub(regex, replace, text)
    return text


def compared(bundle):
    """What nbval compares of a display bundle: every mime type but PNG/JPEG and widget ids, sanitized."""
    skipped = {"image/png", "image/jpeg", "application/vnd.jupyter.widget-view+json"}
    return {mime: sanitized(value) if isinstance(value, str) else value for mime, value in bundle.items() if mime not in skipped}


# -- the comparison itself, in this process -------------------------------------------


def test_geometry_is_not_compared_but_the_dot_text_is():
    drawing = draw_dot(lecture_expression())
    bundle = drawing._repr_mimebundle_()
    kept = compared(bundle)
    assert kept["text/vnd.graphviz"] == drawing.source
    assert "<g id=" not in kept["image/svg+xml"] and "<text" not in kept["image/svg+xml"]
    assert "base64,SVG" in kept["text/html"] and "px;height:" not in kept["text/html"]
    # Another machine's Graphviz or fonts: other coordinates, another size, a scroll note.
    original = bundle["image/svg+xml"]
    start = original.index("<svg")
    svg = original[:start] + re.sub(r'="-?[0-9][0-9.]*', '="7', original[start:])
    image = base64.b64encode(svg[start:].encode()).decode()
    html = re.sub(r"base64,[^\"]*", f"base64,{image}", bundle["text/html"])
    html = re.sub(r"width:\d+px", "width:2000px", html) + (
        '<div class="micrograd-scroll-note" style="font-size:12px">The drawing is 2000 px wide: scroll sideways to see all of it.</div>'
    )
    other = {**bundle, "image/svg+xml": svg, "text/html": html}
    assert svg != bundle["image/svg+xml"] and html != bundle["text/html"]
    assert compared(other) == kept


def _lecture(**change):
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c, f = Value(10.0, label="c"), Value(-2.0, label="f")
    e = a * b
    e.label = "e"
    d = e + c if not change.get("edge") else e * c
    d.label = change.get("label", "d")
    L = d * f
    L.label = "L"
    L.backward()
    if "value" in change:
        a.data = change["value"]
    return L, d


@pytest.mark.parametrize(
    "change",
    [
        dict(label="dd"),
        dict(value=2.5),
        dict(show_grad=False),
        dict(highlight=True),
        dict(edge=True),
    ],
    ids=["a label", "a value", "gradients shown or not", "a highlight", "an edge"],
)
def test_every_content_change_shows_in_what_nbval_compares(change):
    L, _ = _lecture()
    before = compared(draw_dot(L)._repr_mimebundle_())
    options = {"show_grad": change.pop("show_grad")} if "show_grad" in change else {}
    highlight = change.pop("highlight", False)
    L2, d2 = _lecture(**change)
    after = compared(draw_dot(L2, highlight=[d2] if highlight else None, **options)._repr_mimebundle_())
    assert after["text/vnd.graphviz"] != before["text/vnd.graphviz"]
    assert after["text/html"] != before["text/html"]  # the DOT rides in the HTML too (data-dot)


def test_a_widgets_picture_compares_its_drawing_not_its_geometry():
    from micrograd.widgets import BackpropStepper

    stepper = BackpropStepper(lecture_expression())
    picture = stepper.static_html()
    # An image (a lesson opened and not yet run shows no inline SVG), compared by its DOT, not its pixels.
    # Its alt text is the expression in words, compared as the DOT is.
    assert '<img alt="Computation graph: L = (a * b + c) * f (data -8.0000, grad 0.0000)" style="SIZE" src="data:image/svg+xml;base64,SVG"' in sanitized(picture)
    assert "<svg" not in picture
    stepper.step()
    assert sanitized(stepper.static_html()) != sanitized(picture)  # the highlight moved: it shows
    assert 'data-dot="digraph micrograd' in sanitized(stepper.static_html())


# -- the stored lessons, in other set-ups ------------------------------------------------


def _path_without_dot(shadow):
    """PATH with every ``dot`` hidden: a folder holding ``dot`` is replaced by links to all its other programs."""
    kept = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if not folder or not os.access(os.path.join(folder, "dot"), os.X_OK):
            kept.append(folder)
            continue
        copy = shadow / str(len(kept))
        copy.mkdir(parents=True)
        for entry in os.scandir(folder):
            if entry.name != "dot":
                os.symlink(entry.path, copy / entry.name)
        kept.append(str(copy))
    return os.pathsep.join(kept)


def _only_dejavu(folder):
    """A fontconfig file that lists the system's DejaVu fonts and nothing else."""
    conf = folder / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        f"  <dir>{DEJAVU}</dir>\n  <cachedir>{folder / 'cache'}</cachedir>\n</fontconfig>\n",
        encoding="utf-8",
    )
    return conf


CHANGED_CELL_SOURCE = "draw_dot(L)"


def _copy_lessons(folder):
    """The lessons and the learner's module, with one drawing cell changed; that cell's index among code cells."""
    folder.mkdir()
    shutil.copy(NOTEBOOKS / "my_micrograd.py", folder)
    changed = None
    for name in LESSONS:
        notebook = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
        if name == CHANGED_LESSON:
            code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]  # nbval numbers these
            sources = ["".join(cell["source"]) for cell in code]
            assert CHANGED_CELL_SOURCE in sources, f"{name} has no cell `{CHANGED_CELL_SOURCE}` to change: pick another"
            changed = sources.index(CHANGED_CELL_SOURCE)
            code[changed]["source"] = "draw_dot(L, show_grad=False)"
        (folder / name).write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed


def _strict_nbval(folder, **env_changes):
    env = {**os.environ, **env_changes}
    env.pop("PYTEST_XDIST_WORKER", None)
    command = [
        sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q", "-rf",
        "--nbval", "--nbval-current-env", "--nbval-sanitize-with", str(SANITIZE),
        "--rootdir", str(folder), *(str(folder / name) for name in LESSONS),
        # A temporary folder of its own: a run in pytest's numbered folders would remove the oldest of them,
        # the outer session's earlier runs, while the session works.
        "--basetemp", str(folder / "pytest-tmp"),
    ]  # fmt: skip
    return subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _failures(process):
    out, _ = process.communicate(timeout=300)
    failed = set(re.findall(r"^FAILED \S*?([\w.]+\.ipynb)::Cell (\d+)", out, flags=re.MULTILINE))
    passed = re.search(r"(\d+) passed", out)
    return failed, int(passed.group(1)) if passed else 0, out


def _system_dot():
    dot = shutil.which("dot")
    if dot is None and not os.environ.get(REQUIRE_SYSTEM_DOT):
        return None
    assert dot, f"{REQUIRE_SYSTEM_DOT} is set but Graphviz's dot is not on PATH: apt-get install graphviz"
    return dot


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both nbval runs, started together; {set-up: (failed cells, passed count, output)}."""
    base = tmp_path_factory.mktemp("portable")
    fonts = {"FONTCONFIG_FILE": str(_only_dejavu(base)), "MICROGRAD_FONTS": "system"}
    started, changed = {}, {}
    changed["bundled"] = _copy_lessons(base / "bundled")
    started["bundled"] = _strict_nbval(base / "bundled", PATH=_path_without_dot(base / "path"), MICROGRAD_GRAPHVIZ="", **fonts)
    if _system_dot():
        changed["system dot"] = _copy_lessons(base / "system")
        started["system dot"] = _strict_nbval(base / "system", MICROGRAD_GRAPHVIZ="dot", **fonts)
    return {setup: (*_failures(process), changed[setup]) for setup, process in started.items()}


def _check(run):
    failed, passed, out, changed = run
    assert failed == {(CHANGED_LESSON, str(changed))}, out[-4000:]
    cells = sum(
        cell["cell_type"] == "code" for name in LESSONS for cell in json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))["cells"]
    )
    assert passed == cells - 1, out[-4000:]  # every other cell ran and matched, drawings and the widget's picture included


def test_stored_lessons_validate_without_dot_and_with_other_fonts_and_a_changed_drawing_fails(runs):
    _check(runs["bundled"])


def test_stored_lessons_validate_with_the_systems_dot(runs):
    if "system dot" not in runs:
        pytest.skip(f"no system Graphviz here (CI installs it and sets {REQUIRE_SYSTEM_DOT}=1)")
    _check(runs["system dot"])
