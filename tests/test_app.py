"""The course in the browser: the JupyterLite app that make lite builds, driven in headless Chromium.

Builds the app once (browser_app/build_app.py, as make site does), serves it from 127.0.0.1, and opens
it in the session's Chromium with every other host blocked: a request to any host but 127.0.0.1
is refused and fails the test.  Then, as a learner who follows the lecture:

- lesson 2: the lecture's Value typed into the build-it cell, one exercise answered wrong; Run All;
- lessons 3 and 4: the lecture's Value (its _backward closures) typed into lesson 3's build-it and
  the lecture's autograd into lesson 4's; Run All;
- each lesson ends without an error, its drawings are drawn (Graphviz in WebAssembly), its checks
  give ✓ (and the wrong answer ✗), and lessons 3 and 4 run on the learner's own class;
- lesson 6, whose figures and training stepper need matplotlib and numpy the app lacks: Run All reaches
  its last cell, the stepper steps, and each figure's one line links to lesson 6's page on the site;
- in lesson 4, after its run: the build-it cell shown as its template again (as a reload before
  the lesson was saved shows it) and run: the learner's saved code runs instead and is back in
  the cell; then Kernel > Restart, and a cell that needs the lesson's first cell says what to run
  first, counted from [1] on a fresh kernel; then the app saves the lesson by itself (autosave);
- the page is reloaded without saving, and my_micrograd.py, kept in the browser's storage, still
  holds the learner's code, and lesson 4 all that was done in it before the reload.

After the runs of lessons 6 and 4, a cell added at the end asks that kernel what it imported (each module
must have come with its bytecode) and imports a wheel the kernel does not preload (the app's lock
gives it, offline); in lesson 4 the learner first completes a name with Tab.

Needs Chromium (tests/chromium.py) and `npm ci`'s node_modules, which make test sets up;
$MICROGRAD_BROWSER_SHOTS names a folder for a screenshot of each lesson after its run.
"""

import contextlib
import functools
import http.server
import json
import re
import sys
import threading
import time
import zipfile
from pathlib import Path
from urllib.parse import urlparse

import pytest

import foreign_nodes
from chromium import RUN_FINISHED, SHOTS, close_and_shut_down, new_page, open_file_browser, run_cell
from micrograd.course.carry import templates
from micrograd.course.carry.magic import kept_sentence
from micrograd.course.carry.name_errors import what_to_run_first
from waits import AUTOSAVE_MS, BROWSER_MS, RUN_ALL_MS, TAB_AGAIN_MS

ROOT = Path(__file__).resolve().parent.parent
APP_SOURCE = ROOT / "browser_app"  # the app's build, its pins and its configuration
sys.path.insert(0, str(APP_SOURCE))
from pyodide_bytecode import PACKAGE, kernel_modules, module_name  # noqa: E402
from pyodide_version import PYTHON_VERSION, SITE_PACKAGES  # noqa: E402
LOCAL_HOSTS = {"127.0.0.1"}

WRONG_DIVISION = "answer = (1 / 3, 6 / 9)  # dq/db's sign forgotten"
ORDER_CELL = "%%my_micrograd lesson 4: my_topological_order"
ORDER_CHECK = "check.my_topological_order(my_topological_order)"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    import build_app

    return build_app.build(tmp_path_factory.mktemp("site") / "lite", quiet=True)


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
        self.page = new_page(browser, width, height)
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

    @contextlib.contextmanager
    def console_on_failure(self, lesson):
        """What the page's console said last, added to a failure while the app shows lesson."""
        try:
            yield
        except Exception as failure:
            raise AssertionError(f"{lesson}: {failure}\nthe page's console said:\n" + "\n".join(self.console[-30:])) from failure


def open_lesson(page, name):
    """Open a lesson from the file browser, as a learner does, and wait for its kernel."""
    from playwright.sync_api import expect

    open_file_browser(page)
    page.locator(".jp-DirListing-item").filter(has_text=name).dblclick()
    panel = page.get_by_role("tabpanel", name=name)
    expect(panel).to_be_visible()
    expect(page.locator(".jp-StatusBar-Item").filter(has_text=re.compile(r"Python \(Pyodide\) \| Idle$"))).to_be_visible()
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
        page.wait_for_function(RUN_FINISHED, arg=panel.element_handle(), timeout=RUN_ALL_MS)


# What the kernel imported (before this cell's own imports), and a wheel no kernel preloads, loaded from the app's
# lock when a cell imports it.
PROBE = """import json, sys
imported = sorted(name for name, module in list(sys.modules.items())
                  if str(getattr(getattr(module, "__spec__", None), "origin", "")).endswith((".py", ".pyc")))
import prompt_toolkit
print(json.dumps({"imported": imported, "on_demand": prompt_toolkit.__version__}))"""
COMPLETING = "from micrograd import Value\nValue(1.0).ba"


def probe_kernel(page, panel, complete=False):
    """A cell added at the end of the lesson: with ``complete``, COMPLETING typed and Tab pressed, and the completions
    offered kept; then PROBE run in it.  Returns (the completions offered or None, what PROBE printed, as a dict)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    panel.locator(".jp-CodeCell").last.locator(".cm-content").click()
    page.keyboard.press("Escape")
    page.keyboard.press("b")  # a new cell below the last, selected
    cell = panel.locator(".jp-CodeCell").last
    cell.locator(".cm-content").click()
    offered = None
    if complete:
        page.keyboard.insert_text(COMPLETING)
        items, deadline = page.locator(".jp-Completer-item"), time.monotonic() + BROWSER_MS / 1000
        while True:
            page.keyboard.press("Tab")
            try:  # A kernel's first completion imports jedi: on a loaded machine it may take longer than the app
                items.first.wait_for(timeout=TAB_AGAIN_MS)  # waits for it (5 s), and the next Tab gets the answer.
                break
            except PlaywrightTimeoutError:
                if time.monotonic() > deadline:
                    raise
        offered = items.all_inner_texts()
        page.keyboard.press("Escape")
        cell.locator(".cm-content").click()
        page.keyboard.press("Control+a")
    page.keyboard.insert_text(PROBE)
    page.keyboard.press("Shift+Enter")
    printed = cell.locator(".jp-OutputArea-output").filter(has_text='"on_demand"')
    printed.wait_for()
    return offered, json.loads(printed.inner_text())


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


def stepper_controls(panel):
    """The training stepper's controls as a screen reader finds them, once the widgets' own script has named them (or
    the page's wait for it ran out): how many elements have each role and name, and the live region's attributes."""
    from playwright.sync_api import expect

    stepper = panel.locator(".micrograd-training-stepper")
    found = {
        "lr slider": stepper.get_by_role("slider", name="lr", exact=True),
        "Play button": stepper.locator(".widget-play").get_by_role("button", name="Play", exact=True),
        "Stop button": stepper.locator(".widget-play").get_by_role("button", name="Stop", exact=True),
        "live region": stepper.get_by_role("status"),
    }
    with contextlib.suppress(AssertionError):  # what is missing, the test names
        for locator in found.values():
            expect(locator).to_have_count(1)
    counts = {what: locator.count() for what, locator in found.items()}
    region = found["live region"]
    counts["live region says"] = region.first.get_attribute("aria-live") if counts["live region"] else None
    return counts


@pytest.fixture(scope="module")
def learner(chromium_browser, served):
    """One learner's run through lessons 6, then 2 to 4, in the app, and what each showed; lesson 4 stays open."""
    offline = Offline(chromium_browser)
    page, seen = offline.page, {}
    page.goto(f"{served}/lab/index.html")
    for lesson, typed in [
        (LESSON_6, {}),  # figures and the training stepper, with no matplotlib or numpy in the app
        ("02_values_and_graphs.ipynb", {"%%my_micrograd lesson 2: MyValue": foreign_nodes.LECTURE_MY_VALUE,
                                         "answer = ...  # your answer: (dq/da, dq/db)": None}),
        ("03_backprop_by_hand.ipynb", {"%%my_micrograd lesson 3: MyValue": foreign_nodes.LECTURE_MY_VALUE}),
        ("04_autograd.ipynb", {"%%my_micrograd lesson 4: my_topological_order": foreign_nodes.LECTURE_AUTOGRAD,
                               "%%my_micrograd lesson 4: my_backward": foreign_nodes.LECTURE_AUTOGRAD}),
    ]:
        with offline.console_on_failure(lesson):
            panel = open_lesson(page, lesson)
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
            if lesson == LESSON_6:
                seen[lesson]["controls"] = stepper_controls(panel)
            if SHOTS:
                page.screenshot(path=SHOTS / f"lite-{lesson}.png")
            if lesson in PROBED:
                seen[lesson]["completions"], seen[lesson]["kernel"] = probe_kernel(page, panel, complete=lesson == LESSONS[-1])
            if lesson != LESSONS[-1]:
                close_and_shut_down(page, autosaved=True)
    seen["template run"] = run_the_template_again(page, panel, ORDER_CELL)
    seen["after restart"] = restart_and_run(page, panel, ORDER_CHECK)
    seen["autosaved"] = autosaved(page)
    page.reload()  # not saved by the learner: what the app saved by itself is what comes back
    seen["reloaded lesson 4"] = reopened(page, LESSONS[-1])
    open_file_browser(page)
    page.locator(".jp-DirListing-item").filter(has_text="my_micrograd.py").dblclick()
    editor = page.locator(".jp-FileEditor .cm-content")
    editor.wait_for()
    seen["saved"] = editor.inner_text()
    yield seen, offline
    page.context.close()


def code_cell(panel, first_line):
    return panel.locator(".jp-CodeCell").filter(has_text=first_line).first


def run_the_template_again(page, panel, first_line):
    """The build-it cell given the lesson's template again, as a reload before a save shows it, and run: its text and
    its output afterwards."""
    from playwright.sync_api import expect

    key = templates.section_key(first_line.removeprefix(templates.MAGIC))
    type_into_cell(page, panel, first_line, f"{first_line}\n{templates.template(key)}")
    cell = code_cell(panel, first_line)
    run_cell(page, cell)
    expect(cell.locator(".jp-OutputArea-output")).to_contain_text("ran in place of the lesson's template")
    cell.scroll_into_view_if_needed()
    return {"text": cell.locator(".cm-content").inner_text(), "output": cell.locator(".jp-OutputArea").inner_text()}


def restart_and_run(page, panel, first_line):
    """Kernel > Restart, then one cell below the lesson's first run: its prompt and output."""
    from playwright.sync_api import expect

    page.get_by_role("menuitem", name="Kernel", exact=True).click()
    page.locator("li[data-command='kernelmenu:restart']").click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    expect(page.locator(".jp-StatusBar-Item").filter(has_text=re.compile(r"Python \(Pyodide\) \| Idle$"))).to_be_visible()
    cell = code_cell(panel, first_line)
    prompt = run_cell(page, cell)
    return {"prompt": prompt, "output": cell.locator(".jp-OutputArea").inner_text()}


def autosaved(page):
    """Whether the open lesson, changed and never saved by the learner, is saved by the app within AUTOSAVE_MS."""
    from playwright.sync_api import expect

    try:
        expect(page.locator(".lm-TabBar-tab.jp-mod-dirty")).to_have_count(0, timeout=AUTOSAVE_MS)
    except AssertionError:
        return False
    return True


def reopened(page, name):
    """A lesson after the reload, opened from the file browser as a learner does (or shown, where JupyterLab has
    restored its tab): the order cell's text and output.

    That output (the template run's) came before the restart's run, so every save after that run holds it.  The
    restart's own output may miss the last save: JupyterLab marks a lesson saved when a save ends, also when an
    output came in while it was being written."""
    open_file_browser(page)  # once the layout is restored
    page.locator(".jp-DirListing-item").filter(has_text=name).dblclick()
    from playwright.sync_api import expect

    panel = page.get_by_role("tabpanel", name=name)
    panel.locator(".jp-CodeCell").first.wait_for()
    order = code_cell(panel, ORDER_CELL)
    try:  # outputs are drawn a moment after their cells
        expect(order.locator(".jp-OutputArea")).to_contain_text("ran in place of the lesson's template")
    except AssertionError:
        pass  # not there: the test that reads it says what is missing
    return {"order cell": order.locator(".cm-content").inner_text(), "output": order.locator(".jp-OutputArea").inner_text()}


LESSONS = ["02_values_and_graphs.ipynb", "03_backprop_by_hand.ipynb", "04_autograd.ipynb"]
LESSON_6 = "06_training_loop.ipynb"
# The kernels asked what they imported: lesson 6's imports the widgets and the training loop besides what lessons
# 2 and 3 import (the engine, the drawings, a stepper); lesson 4's is the one the learner completes a name in.
PROBED = (LESSON_6, LESSONS[-1])
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


def test_the_widgets_script_names_the_training_steppers_controls_and_keeps_its_one_live_region_in_the_app(learner):
    # The script comes in the widgets' own HTML (micrograd.widgets.accessible): the app's ipywidgets must run it too.
    seen, _ = learner
    assert seen[LESSON_6]["controls"] == {"lr slider": 1, "Play button": 1, "Stop button": 1, "live region": 1,
                                          "live region says": "polite"}


def test_the_learners_code_is_still_there_after_a_reload(learner):
    seen, _ = learner
    assert "# %% lesson 2: MyValue" in seen["saved"]
    assert 'return f"Value(data={self.data})"' in seen["saved"]


def code_lines(text):
    """A cell's lines as the editor shows them, blank ones left out (the page renders an empty line as two breaks)."""
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def test_a_build_it_cell_shown_as_its_template_again_runs_the_learners_code_and_shows_it(learner):
    seen, _ = learner
    text, output = seen["template run"]["text"], seen["template run"]["output"]
    assert "ran in place of the lesson's template" in output
    assert " ".join(kept_sentence("lesson 4: my_topological_order").split()) in " ".join(output.split())
    # The cell holds the learner's code again (the app's kernel honours the payload), not the template's stubs.
    assert code_lines(text) == code_lines(f"{ORDER_CELL}\n{foreign_nodes.LECTURE_AUTOGRAD}")


def test_after_a_restart_a_fresh_kernel_says_what_to_run_first(learner):
    seen, _ = learner
    assert seen["after restart"]["prompt"] == "[1]:"  # a new kernel, counted from 1: no state of the old one
    assert "NameError" in seen["after restart"]["output"]
    assert what_to_run_first("check") in " ".join(seen["after restart"]["output"].split())


def test_the_app_saves_a_lesson_by_itself_and_a_reload_keeps_it(learner):
    seen, _ = learner
    assert seen["autosaved"], f"the lesson was not saved within {AUTOSAVE_MS / 1000:.0f} s of a change"
    reloaded = seen["reloaded lesson 4"]
    assert code_lines(reloaded["order cell"]) == code_lines(f"{ORDER_CELL}\n{foreign_nodes.LECTURE_AUTOGRAD}")
    assert "ran in place of the lesson's template" in reloaded["output"]  # its outputs too


def test_no_request_leaves_127_0_0_1(learner):
    _, offline = learner
    assert offline.refused == []
    assert offline.errors == []


def test_the_app_holds_every_lesson_pyodide_and_every_wheel_it_loads(app):
    lessons = sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(path.name for path in (app / "files").glob("*.ipynb")) == lessons
    # No saved widget state (browser_app/build_app.py says why); the stored widget outputs keep their static pictures.
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
    # The kernel starts with the wheels whose modules it imports, this package's among them (import micrograd needs
    # no %pip), and Pyodide loads with each what it needs of the others; the rest stay in the lock
    # (browser_app/pyodide_lock.py).
    preloaded = kernel["loadPyodideOptions"]["packages"]
    assert {"micrograd-lessons", "ipython", "jedi", "pygments"} <= set(preloaded) < set(lock["packages"])
    assert [name for name in preloaded if not set(lock["packages"][name]["depends"]) <= set(preloaded)] == []
    assert "prompt-toolkit" not in preloaded and "numpy" not in lock["packages"]
    assert (app / "static" / "graphviz" / "viz.js").is_file()


def test_the_app_leaves_out_what_no_kernel_reads(app):
    # What a first load downloads (browser_app/build_app.py's NEVER_READ and ONLY_IMPORTED, the tab's icon).
    folder = app / "static" / "pyodide"

    def names(wheel):
        return zipfile.ZipFile(next(folder.glob(f"{wheel}-*.whl"))).namelist()

    assert [name for name in names("micrograd_lessons") if "/grading/" in name] == []
    lexers = {module_name(name) for name in names("pygments") if name.startswith("pygments/lexers/") and name.endswith(".py")}
    assert "pygments.lexers.python" in lexers
    # Only what a kernel imports there: kernel_modules.txt, as browser_app/pyodide_bytecode.py --record measured it.
    assert lexers == {name for name in kernel_modules() if f"{name}.".startswith("pygments.lexers.")}
    stubs = [name for name in names("jedi") if name.startswith("jedi/third_party/typeshed/stdlib/tkinter/")]
    assert stubs == [] and "jedi/third_party/typeshed/stdlib/builtins.pyi" in names("jedi")
    icon = (app / "lab" / "favicon.ico").read_bytes()
    widths = [icon[6 + 16 * index] for index in range(int.from_bytes(icon[4:6], "little"))]
    assert widths and all(0 < width <= 48 for width in widths), widths  # 0 is 256 px


def test_the_widgets_front_end_is_the_one_the_app_s_ipywidgets_asks_for(app):
    # The page's widget manager comes out of the jupyterlab_widgets wheel the app ships (not the building environment's),
    # at a version the app's ipywidgets asks for: the page and the kernel speak the same widget protocol.
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name, parse_wheel_filename

    manager = "@jupyter-widgets/jupyterlab-manager"
    folder = app / "static" / "pyodide"
    (front,) = folder.glob("jupyterlab_widgets-*.whl")
    (ipywidgets,) = folder.glob("ipywidgets-*.whl")
    with zipfile.ZipFile(ipywidgets) as archive:
        metadata = archive.read(next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA")))
    asks = [Requirement(line.split(":", 1)[1]) for line in metadata.decode().splitlines() if line.startswith("Requires-Dist:")]
    (wanted,) = [need for need in asks if canonicalize_name(need.name) == "jupyterlab-widgets"]
    assert wanted.specifier.contains(parse_wheel_filename(front.name)[1]), (ipywidgets.name, str(wanted), front.name)
    with zipfile.ZipFile(front) as archive:
        shipped = {name.split(f"labextensions/{manager}/", 1)[1]: name for name in archive.namelist()
                   if f"labextensions/{manager}/" in name}
        version = json.loads(archive.read(shipped["package.json"]))["version"]
        static = {name for name in shipped if name.startswith("static/")}
    extensions = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]["federated_extensions"]
    (entry,) = [extension for extension in extensions if extension["name"] == manager]
    assert entry["load"] in static, (entry, sorted(static)[:5])  # its bundle's name holds a hash of its content
    in_app = app / "extensions" / manager
    assert {f"static/{path.name}" for path in (in_app / "static").iterdir()} == static
    assert json.loads((in_app / "package.json").read_text())["version"] == version


def test_the_kernel_preloads_what_its_worker_installs_at_every_start_otherwise(app):
    # jupyterlite-pyodide-kernel's worker installs these when it starts, unless they are preloaded: one left out of
    # the preloaded wheels would be fetched by every kernel all the same (browser_app/build_app.py's KERNEL_START).
    static = app / "extensions" / "@jupyterlite" / "pyodide-kernel-extension" / "static"
    (worker,) = static.glob("comlink.worker.*.js")
    code = worker.read_text()
    installed = re.search(r"of(\[[^\]]*\])\)\w+\.includes\(\w+\)\|\|\w+\.push\(`await piplite\.install", code)
    loaded = re.findall(r'\w+\.includes\("([\w-]+)"\)\|\|await', code)
    assert installed and loaded, f"{worker.name} no longer installs its packages as it did: see what its start installs"
    kernel = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert sorted({*json.loads(installed.group(1)), *loaded} - set(kernel["loadPyodideOptions"]["packages"])) == []


CPYTHON_TAG = "cpython-" + PYTHON_VERSION.replace(".", "")  # the name of the bytecode Pyodide's Python imports


def shipped_modules(app):
    """Every module the app ships: its name, and the archive it is in with whether its bytecode is too.  A wheel holds
    each module's source, with its bytecode in __pycache__; the standard library's zip a module's source or its
    bytecode (x.pyc) alone."""
    folder = app / "static" / "pyodide"
    shipped = {}
    for archive in sorted(folder.glob("*.whl")) + [folder / "python_stdlib.zip"]:
        names = set(zipfile.ZipFile(archive).namelist())
        for name in sorted(names):
            if archive.suffix == ".zip" and name.endswith((".py", ".pyc")):
                shipped[module_name(name.removesuffix("c"))] = (archive.name, name.endswith(".pyc"))
            elif name.endswith(".py"):
                directory, _, stem = name[:-3].rpartition("/")
                cached = f"{directory}/__pycache__/{stem}.{CPYTHON_TAG}.pyc".lstrip("/")
                shipped[module_name(name)] = (archive.name, cached in names)
    return shipped


RECORD = "run `python browser_app/pyodide_bytecode.py --record`, which rewrites browser_app/kernel_modules.txt"


def test_bytecode_comes_with_the_modules_a_kernel_imports_and_no_others(app):
    # Compiled at build time (browser_app/pyodide_bytecode.py): a kernel imports, and compiles nothing; what it never imports
    # is not downloaded twice.
    listed, shipped = kernel_modules(), shipped_modules(app)
    assert sorted(listed - set(shipped)) == [], f"listed, but in no wheel of the app: {RECORD}"
    wrong = [f"{archive}: {name} ({'compiled' if compiled else 'not compiled'})"
             for name, (archive, compiled) in shipped.items()
             if compiled != (name in listed or name.split(".")[0] == PACKAGE)]
    assert wrong == [], wrong[:20]


def test_every_module_a_kernel_of_the_app_imported_came_with_its_bytecode(app, learner):
    seen, _ = learner
    imported = set().union(*(seen[lesson]["kernel"]["imported"] for lesson in PROBED))
    assert {"IPython.core.interactiveshell", "micrograd.engine", "micrograd.viz", "micrograd.widgets.backprop",
            "micrograd.widgets.training", "ipywidgets", "jedi"} <= imported  # jedi: the Tab
    shipped = shipped_modules(app)
    without = [f"{name} ({shipped[name][0]}), by the kernel of "
               + ", ".join(lesson for lesson in PROBED if name in seen[lesson]["kernel"]["imported"])
               for name in sorted(imported) if name in shipped and not shipped[name][1]]
    assert without == [], f"imported without bytecode: {RECORD}\n" + "\n".join(without)


def test_tab_completes_a_name_with_jedi_in_the_app(learner):
    seen, _ = learner
    offered = seen[LESSONS[-1]]["completions"]
    # jedi's answer names the kind of each completion; IPython's own completer does not.
    assert any("backward" in item and "function" in item for item in offered), offered


def test_a_wheel_no_kernel_preloads_loads_offline_when_a_cell_imports_it(app, learner):
    seen, _ = learner
    lock = json.loads((app / "static" / "pyodide" / "pyodide-lock.json").read_text())
    loaded = {seen[lesson]["kernel"]["on_demand"] for lesson in PROBED}
    assert loaded == {lock["packages"]["prompt-toolkit"]["version"]}


def test_every_kernel_of_the_app_starts_with_the_course_s_extensions(app):
    # As make setup has JupyterLab's kernels load micrograd.course.carry.magic: %%my_micrograd, and a NameError that says
    # what to run first, from a kernel's start, after a restart too.
    (wheel,) = (app / "static" / "pyodide").glob("micrograd_lite_kernel-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        config = json.loads(archive.read("micrograd_lite_kernel/ipython/profile_default/ipython_config.json"))
    assert config["InteractiveShellApp"]["extensions"] == ["micrograd.course.carry.magic", "micrograd.course.browser"]
    kernel = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    assert kernel["loadPyodideOptions"]["env"]["IPYTHONDIR"] == f"{SITE_PACKAGES}/micrograd_lite_kernel/ipython"


def test_the_app_autosaves_every_few_seconds_with_settings_its_jupyterlab_knows(app):
    settings = json.loads((APP_SOURCE / "overrides.json").read_text(encoding="utf-8"))
    seconds = settings["@jupyterlab/docmanager-extension:plugin"]["autosaveInterval"]
    overrides = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]["settingsOverrides"]
    assert overrides["@jupyterlab/docmanager-extension:plugin"] == {"autosave": True, "autosaveInterval": seconds}
    assert seconds * 1000 < AUTOSAVE_MS / 2
    guide = " ".join((ROOT / "docs" / "teaching" / "browser_app.md").read_text(encoding="utf-8").split())
    assert f"the app saves an open lesson every {seconds} seconds" in guide
    # Each setting is one the app's JupyterLab has, of the type its schema gives, and the app has them all.
    assert {plugin: {key: overrides[plugin][key] for key in values} for plugin, values in settings.items()} == settings
    types = {"boolean": bool, "number": (int, float), "string": str}
    for plugin, values in settings.items():
        package, name = plugin.split(":")
        schema = json.loads((app / "build" / "schemas" / package / f"{name}.json").read_text())["properties"]
        for key, value in values.items():
            assert key in schema and isinstance(value, types[schema[key]["type"]]), (plugin, key)


def test_the_app_ships_the_lessons_templates_in_its_wheel(app):
    import zipfile

    (wheel,) = (app / "static" / "pyodide").glob("micrograd_lessons-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = json.loads(archive.read("micrograd/course/carry/templates.json"))
    assert shipped == json.loads(templates.TEMPLATES_FILE.read_text(encoding="utf-8"))


def test_only_a_lesson_that_stops_in_the_app_says_so_in_its_first_cell(app):
    from micrograd.course.browser.lessons import STOPS_IN_THE_APP

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
        f"{SITE_PACKAGES}/micrograd_lite_kernel/lesson_cells.json")
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        assert table["pages"][path.stem] == f"lessons/{path.stem}.html"
        ids = [cell["id"] for cell in json.loads(path.read_text())["cells"]]
        assert {table["cells"][cell_id] for cell_id in ids} == {path.stem}, path.name
    # The data lessons 7 to 10 train on is in the package's wheel: no scikit-learn needed.
    (package,) = folder.glob("micrograd_lessons-*.whl")
    names = zipfile.ZipFile(package).namelist()
    assert "micrograd/data/digits.txt" in names and "micrograd/data/names.txt" in names
