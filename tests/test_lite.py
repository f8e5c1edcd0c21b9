"""The course in the browser: the JupyterLite app that make lite builds, driven in headless Chromium.

Builds the app once (docs/build_lite.py, as make site does), serves it from 127.0.0.1, and opens
it in the session's Chromium with every other host blocked: a request to any host but 127.0.0.1
is refused and fails the test.  Then, as a learner who follows the lecture:

- lesson 2: the lecture's Value typed into the build-it cell, one exercise answered wrong; Run All;
- lessons 3 and 4: the lecture's Value (its _backward closures) typed into lesson 3's build-it and
  the lecture's autograd into lesson 4's; Run All;
- each lesson ends without an error, its drawings are drawn (Graphviz in WebAssembly), its checks
  give ✓ (and the wrong answer ✗), and lessons 3 and 4 run on the learner's own class;
- lesson 6, whose figures and training stepper need matplotlib and numpy the app lacks: Run All reaches
  its last cell, the stepper steps, and each figure's one line links to lesson 6's page on the site;
- the page is reloaded, and my_micrograd.py, kept in the browser's storage, still holds the
  learner's code.

Needs Chromium (tests/chromium.py) and `npm ci`'s node_modules, which make test sets up;
$MICROGRAD_BROWSER_SHOTS names a folder for a screenshot of each lesson after its run.
"""

import functools
import http.server
import json
import os
import re
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

import foreign_nodes
from chromium import RUN_FINISHED, close_and_shut_down, new_page, open_file_browser

ROOT = Path(__file__).resolve().parent.parent
SHOTS = os.environ.get("MICROGRAD_BROWSER_SHOTS")  # a folder for screenshots of each lesson after its run
PAGE_TIMEOUT_MS = 120_000
LESSON_TIMEOUT_MS = 300_000
LOCAL_HOSTS = {"127.0.0.1"}

WRONG_DIVISION = "answer = (1 / 3, 6 / 9)  # dq/db's sign forgotten"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    import sys

    sys.path.insert(0, str(ROOT / "docs"))
    import build_lite

    return build_lite.build(tmp_path_factory.mktemp("site") / "lite", quiet=True)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(app):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(app)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class Offline:
    """A browser context that refuses every host but 127.0.0.1, and remembers what it refused."""

    def __init__(self, browser, width=1280, height=800):
        self.refused = []
        self.page = new_page(browser, width, height, PAGE_TIMEOUT_MS)
        self.page.context.route("**/*", self._route)
        self.errors, self.console = [], []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"[:500]))

    def _route(self, route):
        url = urlparse(route.request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.hostname not in LOCAL_HOSTS:
            self.refused.append(route.request.url)
            return route.abort()
        return route.continue_()


def open_lesson(page, name):
    """Open a lesson from the file browser, as a learner does, and wait for its kernel."""
    from playwright.sync_api import expect

    open_file_browser(page)
    page.locator(".jp-DirListing-item").filter(has_text=name).dblclick()
    panel = page.get_by_role("tabpanel", name=name)
    expect(panel).to_be_visible()
    expect(page.locator(".jp-StatusBar-Item").filter(has_text=re.compile(r"Python \(Pyodide\) \| Idle$"))).to_be_visible(
        timeout=PAGE_TIMEOUT_MS
    )
    return panel


def type_into_cell(page, panel, first_line, code):
    """Replace a cell's text as a learner's paste would: the editor gets the text as it is."""
    cell = panel.locator(".jp-CodeCell").filter(has_text=first_line).first
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)


def run_all(page, panel, wait=True):
    """Edit > Clear Outputs, then Run > Run All Cells; with wait, until the run has finished."""
    page.keyboard.press("Escape")
    # The stored outputs and counts go first, so a finished run is told apart from them.
    page.get_by_role("menuitem", name="Edit", exact=True).click()
    page.get_by_role("menuitem", name="Clear Outputs of All Cells", exact=True).click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    if wait:
        page.wait_for_function(RUN_FINISHED, arg=panel.element_handle(), timeout=LESSON_TIMEOUT_MS)


def outputs_text(panel):
    return panel.locator(".jp-OutputArea-output").all_inner_texts()


def error_outputs(panel):
    return panel.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").all_inner_texts()


# Drawings Graphviz drew: an SVG in the page (widgets), or an image of one (draw_dot) that loaded.
DRAWINGS = """
panel => Array.from(panel.querySelectorAll('.jp-OutputArea-output svg, .jp-OutputArea-output img'))
    .filter(e => e.tagName.toLowerCase() === 'svg' ? e.querySelector('g.node') !== null
                                                 : e.src.startsWith('data:image/svg+xml') && e.complete && e.naturalWidth > 0)
    .length
"""


def drawings(panel):
    return panel.evaluate(DRAWINGS)


@pytest.fixture(scope="module")
def learner(chromium_browser, served):
    """One learner's run through lessons 2 to 4 in the app, and what each showed."""
    offline = Offline(chromium_browser)
    page, seen = offline.page, {}
    page.goto(f"{served}/lab/index.html")
    for lesson, typed in [
        ("02_values_and_graphs.ipynb", {"%%my_micrograd lesson 2: MyValue": foreign_nodes.LECTURE_MY_VALUE,
                                         "answer = ...  # your answer: (dq/da, dq/db)": None}),
        ("03_backprop_by_hand.ipynb", {"%%my_micrograd lesson 3: MyValue": foreign_nodes.LECTURE_MY_VALUE}),
        ("04_autograd.ipynb", {"%%my_micrograd lesson 4: my_topological_order": foreign_nodes.LECTURE_AUTOGRAD,
                               "%%my_micrograd lesson 4: my_backward": foreign_nodes.LECTURE_AUTOGRAD}),
        (LESSON_6, {}),  # figures and the training stepper, with no matplotlib or numpy in the app
    ]:
        try:
            panel = open_lesson(page, lesson)
        except AssertionError:
            raise AssertionError(f"{lesson} did not open; the page's console said:\n" + "\n".join(offline.console[-30:]))
        for first_line, code in typed.items():
            if code is None:  # the exercise, answered wrong
                source = panel.locator(".jp-CodeCell").filter(has_text=first_line).first
                text = source.locator(".cm-content").inner_text().replace("answer = ...  # your answer: (dq/da, dq/db)", WRONG_DIVISION)
                type_into_cell(page, panel, first_line, text)
            else:
                type_into_cell(page, panel, first_line, f"{first_line}\n{code}")
        run_all(page, panel)
        seen[lesson] = {
            "outputs": outputs_text(panel),
            "errors": error_outputs(panel),
            "drawings": drawings(panel),
            "cells": panel.locator(".jp-CodeCell").count(),
            "ran": sum(bool(re.search(r"\[\d+\]", prompt)) for prompt in panel.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()),
            "served_from": page.evaluate("() => location.origin"),
        }
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / f"lite-{lesson}.png"))
        close_and_shut_down(page)
    page.reload()
    open_file_browser(page)
    page.locator(".jp-DirListing-item").filter(has_text="my_micrograd.py").dblclick()
    editor = page.locator(".jp-FileEditor .cm-content")
    editor.wait_for()
    seen["saved"] = editor.inner_text()
    yield seen, offline
    page.context.close()


LESSONS = ["02_values_and_graphs.ipynb", "03_backprop_by_hand.ipynb", "04_autograd.ipynb"]
LESSON_6 = "06_training_loop.ipynb"
FIGURE_NOTE = "This figure needs matplotlib, which this browser app does not have; the course site shows it: "


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_runs_top_to_bottom_in_the_browser(learner, lesson):
    seen, _ = learner
    assert seen[lesson]["errors"] == []
    tracebacks = [text for text in seen[lesson]["outputs"] if "Traceback" in text or "Error:" in text]
    assert tracebacks == []


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lessons_drawings_are_drawn_by_graphviz_in_webassembly(learner, lesson):
    seen, _ = learner
    assert seen[lesson]["drawings"] >= 2


def test_the_checks_give_their_verdicts_on_the_learners_graph(learner):
    seen, _ = learner
    lesson2 = "\n".join(seen["02_values_and_graphs.ipynb"]["outputs"])
    assert "✓" in lesson2
    assert "✗" in lesson2  # the division exercise, answered wrong
    lesson4 = "\n".join(seen["04_autograd.ipynb"]["outputs"])
    assert "✓" in lesson4 and "✗" not in lesson4


@pytest.mark.parametrize("lesson", ["03_backprop_by_hand.ipynb", "04_autograd.ipynb"])
def test_the_learners_class_is_carried_from_lesson_2(learner, lesson):
    seen, _ = learner
    text = "\n".join(seen[lesson]["outputs"])
    assert "MyValue: using yours" in text


def test_lesson_6_runs_to_its_last_cell_and_each_figure_note_links_to_its_page(learner):
    seen, _ = learner
    lesson = seen[LESSON_6]
    assert lesson["errors"] == [] and lesson["ran"] == lesson["cells"], lesson  # Run All reached the last cell
    # The site beside the app: its page of this very lesson (JupyterLab sent each cell's id; the build's table says whose).
    page = f"{lesson['served_from']}/lessons/06_training_loop.html"
    notes = [text for text in lesson["outputs"] if FIGURE_NOTE in text]
    assert len(notes) >= 4, lesson["outputs"]  # three figure cells, and the training stepper in place of its figure
    assert all(f"{FIGURE_NOTE}{page} (or run the lesson in JupyterLab" in text for text in notes), notes
    stepper = [text for text in notes if "step 5 · loss" in text]
    assert len(stepper) == 1, notes  # the stepper's panel: its numbers after five steps, then the line


def test_the_learners_code_is_still_there_after_a_reload(learner):
    seen, _ = learner
    assert "# %% lesson 2: MyValue" in seen["saved"]
    assert 'return f"Value(data={self.data})"' in seen["saved"]


def test_no_request_leaves_127_0_0_1(learner):
    _, offline = learner
    assert offline.refused == []
    assert offline.errors == []


def test_the_app_holds_every_lesson_pyodide_and_every_wheel_it_loads(app):
    lessons = sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(path.name for path in (app / "files").glob("*.ipynb")) == lessons
    # No saved widget state (docs/build_lite.py says why); the stored widget outputs keep their static pictures.
    for path in (app / "files").glob("*.ipynb"):
        document = json.loads(path.read_text())
        assert "widgets" not in document["metadata"], path.name
        if path.stem in ("02_values_and_graphs", "03_backprop_by_hand"):
            assert "A picture of the widget; run the notebook to use it." in path.read_text(), path.name
    kernel = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["pyodideUrl"] == "./static/pyodide/pyodide.mjs" and (app / kernel["pyodideUrl"]).is_file()
    assert kernel["disablePyPIFallback"] is True
    lock = json.loads((app / "static" / "pyodide" / "pyodide-lock.json").read_text())
    assert [name for name, entry in lock["packages"].items() if not (app / "static" / "pyodide" / entry["file_name"]).is_file()] == []
    # The kernel starts with every wheel of the lock, this package's among them: import micrograd needs no %pip.
    assert sorted(kernel["loadPyodideOptions"]["packages"]) == sorted(lock["packages"])
    assert "micrograd-lessons" in lock["packages"] and "numpy" not in lock["packages"]
    assert (app / "static" / "graphviz" / "viz.js").is_file()


def test_every_module_the_app_ships_comes_with_its_bytecode(app):
    # Compiled at build time (docs/pyodide_bytecode.py): a kernel's start imports, and compiles nothing.
    import zipfile

    folder = app / "static" / "pyodide"
    without = []
    for archive in sorted(folder.glob("*.whl")) + [folder / "python_stdlib.zip"]:
        names = set(zipfile.ZipFile(archive).namelist())
        for name in names:
            if not name.endswith(".py"):
                continue
            directory, _, stem = name[:-3].rpartition("/")
            cached = f"{stem}.pyc" if archive.suffix == ".zip" else f"__pycache__/{stem}.cpython-314.pyc"
            if f"{directory}/{cached}".lstrip("/") not in names:
                without.append(f"{archive.name}: {name}")
    assert without == [], without[:20]


def test_every_kernel_of_the_app_starts_with_the_course_s_extensions(app):
    # As make setup has JupyterLab's kernels load micrograd.course.magic: %%my_micrograd, and a NameError that says
    # what to run first, from a kernel's start, after a restart too.
    import zipfile

    (wheel,) = (app / "static" / "pyodide").glob("micrograd_lite_kernel-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        config = json.loads(archive.read("micrograd_lite_kernel/ipython/profile_default/ipython_config.json"))
    assert config["InteractiveShellApp"]["extensions"] == ["micrograd.course.magic", "micrograd.course.browser"]
    kernel = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["loadPyodideOptions"]["env"]["IPYTHONDIR"] == "/lib/python3.14/site-packages/micrograd_lite_kernel/ipython"


def test_only_a_lesson_that_stops_in_the_app_says_so_in_its_first_cell(app):
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    from browser_links import STOPS_IN_THE_APP

    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads((app / "files" / path.name).read_text())["cells"]
        if path.stem in STOPS_IN_THE_APP:
            text = "".join(cells[0]["source"])
            assert "This lesson stops in this browser app" in text and "make lab" in text, path.name
            cells = cells[1:]
        # Lessons 06 to 09 among these: their data ships with the package, and no cell needs numpy.
        assert cells == json.loads(path.read_text())["cells"], path.name


def test_the_kernel_can_tell_each_lessons_cells_and_each_lessons_page(app):
    import zipfile

    folder = app / "static" / "pyodide"
    (profile,) = folder.glob("micrograd_lite_kernel-*.whl")
    with zipfile.ZipFile(profile) as archive:
        table = json.loads(archive.read("micrograd_lite_kernel/lesson_cells.json"))
    kernel = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["loadPyodideOptions"]["env"]["MICROGRAD_LESSON_CELLS"] == (
        "/lib/python3.14/site-packages/micrograd_lite_kernel/lesson_cells.json")
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        assert table["pages"][path.stem] == f"lessons/{path.stem}.html"
        ids = [cell["id"] for cell in json.loads(path.read_text())["cells"]]
        assert {table["cells"][cell_id] for cell_id in ids} == {path.stem}, path.name
    # The data lessons 7 to 10 train on is in the package's wheel: no scikit-learn needed.
    (package,) = folder.glob("micrograd_lessons-*.whl")
    names = zipfile.ZipFile(package).namelist()
    assert "micrograd/data/digits.txt" in names and "micrograd/data/names.txt" in names
