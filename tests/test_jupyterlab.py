"""The widgets and every lesson in a real JupyterLab, driven by headless Chromium.

Starts one JupyterLab on 127.0.0.1 (a port the OS picks, a random token, an
empty Jupyter configuration) serving a copy of tests/browser/widgets.ipynb
and of the lessons, and one Debian Chromium through Playwright.  widgets.ipynb
runs once, on a learner's page (1280×800, the file browser open): the first
test clicks its training and backprop steppers and reads what the page
shows, the second reads its cells on a learner's own class.  The third opens
every lesson and solution at 1280×800 with the file browser open (what a
learner gets), runs all its cells (the first to show each kind of widget:
lessons 2, 3, 6 and 11; the others are opened with no kernel and
measured with their stored outputs, which strict nbval holds equal to a fresh
run) and measures the page (and, in lessons 2, 3, 6 and 11, runs axe-core on
the lesson's prose and outputs: no serious or critical WCAG 2.2 violation):
nothing wider than its output unless it scrolls in its own box, drawing and
widget text at 11 px or more, no picture stretched beyond 1.25× its pixels, no
console errors.  Every wait is on something appearing in the page, never a sleep.

The lessons come from notebooks/ (or the folder $MICROGRAD_BROWSER_NOTEBOOKS
names, laid out the same way); $MICROGRAD_BROWSER_SHOTS names a folder for
screenshots of the steppers and of wide drawings.

Needs Chromium at /usr/bin/chromium (or $MICROGRAD_CHROMIUM): CI installs
it, and without it this test fails rather than skips.  Playwright's own
browser downloads are never used.
"""

import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest

from micrograd import palette

from chromium import RUN_FINISHED, SHOTS, close_and_shut_down, new_page, open_file_browser, run_cell
from pyodide_lessons import SHORTER as SHORTER_IN_PYODIDE

from axe import SECONDS, blocking, counts, described, not_ours, run_axe
from waits import REQUEST_SECONDS, RUN_ALL_MS, SERVER_START_SECONDS, SERVER_STOP_SECONDS

NOTEBOOK = Path(__file__).resolve().parent / "browser" / "widgets.ipynb"
LESSONS = Path(os.environ.get("MICROGRAD_BROWSER_NOTEBOOKS") or Path(__file__).resolve().parent.parent / "notebooks")
HIGHLIGHT = "#b91c1c"  # micrograd.viz's highlight colour
KERNEL_READY = re.compile(r"^Python 3 \(ipykernel\) \| Idle$")

# JupyterLab settings for the test's own settings directory: no pop-up
# asking about news (it would cover the widgets in the screenshot), and no
# request to the internet.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
    # Every cell in the page, so the outputs of cells scrolled out of view can be measured too.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


class Lab:
    """A JupyterLab server process in its own session, with its log and address."""

    def __init__(self, workdir):
        self.token = secrets.token_hex(24)
        self.root = workdir / "notebooks"
        self.root.mkdir()
        shutil.copy(NOTEBOOK, self.root / NOTEBOOK.name)
        shutil.copytree(LESSONS, self.root / "lessons", ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
        # Lesson 11 runs live for its generation stepper: its GPT trains as briefly as the app's test trains it
        # (tests/pyodide_lessons.py), which draws the same widget from a model trained less.
        gpt = self.root / "lessons" / "11_gpt.ipynb"
        text = gpt.read_text(encoding="utf-8")
        for old, new in SHORTER_IN_PYODIDE[11]:
            assert old in text, f"{gpt.name} no longer has {old!r}: shorten its training in tests/pyodide_lessons.py anew"
            text = text.replace(old, new)
        gpt.write_text(text, encoding="utf-8")
        settings = workdir / "settings"
        for name, values in LAB_SETTINGS.items():
            path = settings / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        self.runtime_dir = workdir / "runtime"
        env = dict(
            os.environ,
            JUPYTER_CONFIG_DIR=str(workdir / "config"),
            JUPYTER_RUNTIME_DIR=str(self.runtime_dir),
            JUPYTERLAB_SETTINGS_DIR=str(settings),
            JUPYTERLAB_WORKSPACES_DIR=str(workdir / "workspaces"),
            JUPYTER_PREFER_ENV_PATH="1",  # the kernel of this environment, where micrograd is installed
        )
        command = [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port=0",  # the OS picks a free port; the runtime file says which
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")  # containers and CI run as root
        self.log_path = workdir / "lab.log"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                command, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.port = None

    @property
    def log(self):
        return self.log_path.read_text(errors="replace")

    def url(self, path):
        return f"http://127.0.0.1:{self.port}/{path}?token={self.token}"

    def wait_until_serving(self):
        deadline = time.monotonic() + SERVER_START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"JupyterLab exited with code {self.process.returncode}:\n{self.log}")
            if self.port is None:
                self.port = self._port_from_runtime_file()
            if self.port is not None and self._status_ok():
                return
            time.sleep(0.2)
        pytest.fail(f"JupyterLab did not start within {SERVER_START_SECONDS} s:\n{self.log}")

    def _port_from_runtime_file(self):
        for path in self.runtime_dir.glob("jpserver-*.json"):
            try:
                return json.loads(path.read_text())["port"]
            except (json.JSONDecodeError, KeyError):
                return None  # read while being written: try again
        return None

    def _status_ok(self):
        try:
            with urllib.request.urlopen(self.url("api/status"), timeout=REQUEST_SECONDS) as response:
                return response.status == 200
        except (urllib.error.URLError, ConnectionError):
            return False

    def stop(self):
        """SIGTERM: the server shuts its kernels down and exits; then make sure of it."""
        try:
            server = psutil.Process(self.process.pid)
            processes = [server, *server.children(recursive=True)]
        except psutil.NoSuchProcess:
            processes = []
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(SERVER_STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(SERVER_STOP_SECONDS)
        _, alive = psutil.wait_procs(processes, timeout=SERVER_STOP_SECONDS)
        for process in alive:  # a kernel that outlived its server
            process.kill()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    server = Lab(tmp_path_factory.mktemp("lab"))
    try:
        server.wait_until_serving()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser(chromium_browser):
    return chromium_browser  # the session's one Chromium (tests/chromium.py), waiting waits.BROWSER_MS for anything


@pytest.fixture(scope="module")
def widgets_page(browser, lab):
    """widgets.ipynb on a learner's page (1280×800, the file browser open), all its cells run once; the tests
    that read it each use widgets of their own."""
    page = new_page(browser, *LEARNER_VIEWPORT)
    try:
        page.goto(lab.url(f"lab/tree/{NOTEBOOK.name}") + "&reset")
        run_all(page, page.locator(".jp-NotebookPanel").first)
        yield page
    finally:
        page.context.close()


def button(widget, name):
    # ipywidgets buttons carry a Font Awesome icon, which becomes part of
    # their accessible name; match the visible text instead.
    return widget.locator("button.widget-button").filter(has_text=re.compile(f"^{re.escape(name)}$"))


# The text of each value box (v<n>; o<n> are operation circles) drawn in the
# highlight colour: its label comes first.
HIGHLIGHTED_BOXES = """
graph => Array.from(graph.querySelectorAll('g.node'))
    .filter(g => g.querySelector('title').textContent.startsWith('v'))
    .filter(g => g.querySelector('[stroke="%s"]'))
    .map(g => Array.from(g.querySelectorAll('text')).map(t => t.textContent).join(' '))
""" % HIGHLIGHT


# Is the value box labelled so shown, not cut off by the graph's box or by the window it shows?
# The point at the middle of its label must hit that box: a box outside a cropped window (or one
# of its bands) is clipped, and the point hits something else.  A band's copy counts too.
VALUE_BOX_IN_VIEW = """
(stepper, label) => Array.from(stepper.querySelectorAll('.micrograd-graph svg g'))
    .filter(g => g.querySelectorAll(':scope > text').length > 1 && g.querySelector(':scope > text').textContent === label)
    .some(g => { const r = g.querySelector(':scope > text').getBoundingClientRect();
                 const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                 return hit !== null && g.contains(hit); })
"""


def wait_for_highlight(page, stepper, label):
    """Wait until exactly one value box is highlighted and its label is ``label``.

    The drawing is looked up afresh on every try: each redraw replaces it.
    """
    page.wait_for_function(
        f"([stepper, label]) => {{ const graph = stepper.querySelector('.micrograd-graph'); "
        f"const boxes = graph ? ({HIGHLIGHTED_BOXES})(graph) : []; "
        "return boxes.length === 1 && boxes[0].split(' ')[0] === label; }",
        arg=[stepper.element_handle(), label],
    )


def test_widgets_step_in_jupyterlab(widgets_page, tmp_path):
    from playwright.sync_api import expect

    page = widgets_page
    training = page.locator(".micrograd-training-stepper")
    backprop = page.locator(".micrograd-backprop-stepper").first  # the second is on a learner's class (below)
    explorer = page.locator(".micrograd-expression-explorer")
    expect(training.locator(".micrograd-step")).to_have_text("0")
    expect(explorer.locator("svg")).to_be_visible()
    expect(backprop.locator("svg")).to_be_visible()

    # Training: each click on Step shows the next step number and a new loss.
    losses = []
    image = training.locator("img.widget-image")
    for k in range(1, 4):
        before = image.get_attribute("src")
        button(training, "Step").click()
        expect(training.locator(".micrograd-step")).to_have_text(str(k))
        expect(image).not_to_have_attribute("src", before)  # the figure was redrawn
        losses.append(float(training.locator(".micrograd-loss").inner_text()))
    assert len(set(losses)) == 3, f"the shown loss did not change between steps: {losses}"

    # Backprop: each click moves the highlight to the next node, L then d then e.
    assert backprop.locator(".micrograd-graph").evaluate(HIGHLIGHTED_BOXES) == []
    for k, label in enumerate(["L", "d", "e"], start=1):
        button(backprop, "Step").click()
        expect(backprop.locator(".micrograd-position")).to_have_text(str(k))
        expect(backprop.locator(".micrograd-current")).to_have_text(label)
        wait_for_highlight(page, backprop, label)
        backprop.scroll_into_view_if_needed()
        # the graph is taller than its box: the node each step works on is in view
        assert backprop.evaluate(VALUE_BOX_IN_VIEW, label), f"step {k}: {label} is out of view"
    expect(backprop.locator(".micrograd-panel")).to_contain_text("a.grad += -3.0000 × -2.0000")
    # the pass is done: the leaves, which hold the answers, are in view
    for leaf in "abcf":
        assert backprop.evaluate(VALUE_BOX_IN_VIEW, leaf), f"the leaf {leaf} is out of view at the end"

    # Back moves the highlight back to d.
    button(backprop, "Back").click()
    expect(backprop.locator(".micrograd-current")).to_have_text("d")
    wait_for_highlight(page, backprop, "d")

    # What a screen reader reads (the accessibility tree): the drawing named by its expression, and
    # the press just made in the stepper's polite live region.
    tree = backprop.aria_snapshot()
    # (Playwright writes an img with text inside as - 'img "name"': text; the name is what is read.)
    assert re.search(r'img "Computation graph: L = \(a \* b \+ c\) \* f \(data -8\.0000, grad 1\.0000\)"', tree), tree
    status = backprop.get_by_role("status")
    expect(status).to_have_attribute("aria-live", "polite")
    spoken = status.aria_snapshot()
    assert "Took back node 3 of 3: its gradients are as they were, at node 2 of 3, d." in spoken, spoken
    drawing = page.locator(".jp-OutputArea-output:has(.micrograd-scroll-note)").first  # draw_dot(L), a notebook output
    assert re.search(r'img "Computation graph: L = \(a \* b \+ c\) \* f \(data -8\.0000, grad [-0-9.]+\)"', drawing.aria_snapshot())
    drawing.locator("details.micrograd-words summary").click()  # its description: the text view
    expect(drawing.locator("details.micrograd-words pre")).to_contain_text("L  data -8.0000")

    # The keyboard alone: Space on Back, Shift+Tab to Step, Enter on it; the focus is drawn.
    back = button(backprop, "Back")
    back.focus()
    page.keyboard.press("Space")
    expect(backprop.locator(".micrograd-current")).to_have_text("L")
    page.keyboard.press("Shift+Tab")
    step = button(backprop, "Step")
    expect(step).to_be_focused()
    ring = step.evaluate("b => { const s = getComputedStyle(b); return [s.outlineStyle, s.outlineWidth, s.boxShadow]; }")
    assert (ring[0] != "none" and ring[1] != "0px") or ring[2] != "none", f"the focused Step button shows no focus: {ring}"
    page.keyboard.press("Enter")
    expect(backprop.locator(".micrograd-current")).to_have_text("d")
    wait_for_highlight(page, backprop, "d")
    if SHOTS:
        backprop.screenshot(path=SHOTS / "backprop-stepper-keyboard.png")

    # Explorer: moving the x slider (with the keyboard) changes the output.
    output = explorer.locator(".micrograd-output")
    start = output.inner_text()
    handle = explorer.locator(".noUi-handle").first
    handle.focus()
    for _ in range(20):  # steps of 0.01: x goes from 0.5 to 0.7
        handle.press("ArrowRight")
    expect(explorer.locator(".widget-readout").first).to_have_text("0.700")
    expect(output).not_to_have_text(start)
    assert float(output.inner_text()) != float(start)

    # The wide drawing keeps its size and scrolls sideways inside its own box.
    box = page.locator(".jp-OutputArea-output:has(.micrograd-scroll-note) .micrograd-drawing").first
    box.scroll_into_view_if_needed()
    sizes = box.evaluate(
        "b => ({scroll: b.scrollWidth, client: b.clientWidth, svg: b.querySelector('svg, img').getBoundingClientRect().width,"
        " output: b.closest('.jp-OutputArea-output').getBoundingClientRect().width, overflow: getComputedStyle(b).overflowX})"
    )
    assert sizes["svg"] > sizes["output"] and sizes["client"] <= sizes["output"], sizes
    assert sizes["scroll"] > sizes["client"] and sizes["overflow"] == "auto", sizes
    expect(page.locator(".micrograd-scroll-note").first).to_contain_text("scroll sideways")
    if SHOTS:
        page.screenshot(path=SHOTS / "widgets-wide-drawing.png")

    expect(page.get_by_text("Error displaying widget")).to_have_count(0)
    training.scroll_into_view_if_needed()
    screenshot = tmp_path / "widgets.png"
    page.screenshot(path=screenshot)
    backprop.screenshot(path=tmp_path / "backprop-stepper.png")
    training.screenshot(path=tmp_path / "training-stepper.png")
    assert screenshot.stat().st_size > 10_000


# The steppers' live region, as a test marks it: a property of the element, which a new element would lack.
MARK = "el => { el.micrograd_kept = true; }"
KEPT = "el => el.micrograd_kept === true"


def test_a_stepper_says_each_press_in_one_region_that_stays_and_hands_the_focus_on(widgets_page):
    """The live region is one element for the stepper's life, whose text changes to the press just made; Enter on
    a button that disables itself leaves the focus on the next control (To the end: Reset; Reset: Step), never on
    the page; every control is named, the sliders and Play's buttons included."""
    from playwright.sync_api import expect

    page = widgets_page
    backprop = page.locator(".micrograd-backprop-stepper").first
    training = page.locator(".micrograd-training-stepper")
    explorer = page.locator(".micrograd-expression-explorer")
    status = backprop.get_by_role("status")
    expect(status).to_have_count(1)
    expect(status).to_have_attribute("aria-live", "polite")
    # From the start, whatever an earlier test left (one step from the end, say, where To the end is disabled):
    # one step in, so that To the end and Reset are both enabled.
    if button(backprop, "Reset").is_enabled():
        button(backprop, "Reset").click()
        expect(button(backprop, "Reset")).to_be_disabled()
    button(backprop, "Step").click()
    expect(button(backprop, "Reset")).to_be_enabled()
    expect(button(backprop, "To the end")).to_be_enabled()
    status.evaluate(MARK)

    button(backprop, "To the end").focus()
    page.keyboard.press("Enter")
    expect(button(backprop, "Reset")).to_be_focused()
    expect(status).to_contain_text("Done: every gradient now equals what L.backward() gives.")
    before = status.aria_snapshot()
    page.keyboard.press("Enter")  # Reset: it disables itself, and Step, disabled a moment ago, takes the focus
    expect(button(backprop, "Step")).to_be_focused()
    expect(status).to_have_text("Reset: every gradient is 0; Step starts at L.")
    page.keyboard.press("Enter")
    expect(backprop.locator(".micrograd-current")).to_have_text("L")
    after = status.aria_snapshot()
    assert after != before and "L.grad = 1, the seed; node 1 of 3: L (*), upstream grad 1.0000: d.grad += -2.0000 × 1.0000" in after, after
    expect(status).to_have_count(1)
    assert status.evaluate(KEPT), "the live region was replaced by a new element: a screen reader may say nothing"
    assert page.evaluate("() => document.activeElement !== document.body")

    # Training: a run is said once, when it ends, in the same region.
    region = training.get_by_role("status")
    region.evaluate(MARK)
    button(training, "Run").click()
    expect(region).to_contain_text("Ran 20 steps, to step ")
    assert region.evaluate(KEPT)

    # Names: each slider's handle by its description, Play's buttons by their words.
    for name in ("x", "w", "b"):
        expect(explorer.get_by_role("slider", name=name, exact=True)).to_have_count(1)
    expect(training.get_by_role("slider", name="lr", exact=True)).to_have_count(1)
    for name in ("Play", "Stop"):
        expect(training.locator(".widget-play").get_by_role("button", name=name, exact=True)).to_have_count(1)


# A control's edges as the page draws them: its border (top) and its outline.
EDGES = "e => { const s = getComputedStyle(e); return {border: [s.borderTopStyle, parseFloat(s.borderTopWidth)], outline: [s.outlineStyle, parseFloat(s.outlineWidth)], colour: s.outlineColor}; }"


def drawn(edge):
    return edge[0] not in ("none", "hidden") and edge[1] > 0


def focus_by_keyboard(page, locator):
    """The keyboard's focus on ``locator``, come to by Tab (a focus a script gives may not be drawn as one).

    Tab starts from a button put just before it for the press (before a summary's details: in a closed details
    only the summary is shown): what comes before it on the page may be a cell's editor, where Tab indents."""
    from playwright.sync_api import expect

    locator.evaluate(SENTINEL_BEFORE)
    try:
        page.locator("#micrograd-test-sentinel").focus()
        page.keyboard.press("Tab")
    finally:
        page.evaluate("() => document.getElementById('micrograd-test-sentinel').remove()")
    expect(locator).to_be_focused()


SENTINEL_BEFORE = """el => { const b = document.createElement('button'); b.id = 'micrograd-test-sentinel'; b.textContent = 'from here';
                           (el.matches('summary') ? el.parentElement : el).before(b); }"""


def test_in_forced_colours_every_stepper_button_keeps_a_border_and_the_focused_one_a_ring(widgets_page):
    """Windows' high contrast themes drop backgrounds: a button with no border of its own would be bare words."""
    page = widgets_page
    page.emulate_media(forced_colors="active")
    try:
        bare, shown = [], 0
        for kind in ("backprop", "training"):
            for control in page.locator(f".micrograd-{kind}-stepper").first.locator("button").all():
                if not control.is_visible():
                    continue
                shown += 1
                edges = control.evaluate(EDGES)
                if not (drawn(edges["border"]) or drawn(edges["outline"])):
                    bare.append(f"{kind}: {control.inner_text() or control.get_attribute('aria-label')}: {edges}")
        step = button(page.locator(".micrograd-backprop-stepper").first, "Step")
        focus_by_keyboard(page, step)
        ring = step.evaluate(EDGES)
    finally:
        page.emulate_media(forced_colors="none")
    assert shown >= 8 and not bare, (shown, bare)  # Step, Back, To the end, Reset; Step, Run, Reset, Play's
    assert drawn(ring["outline"]) and ring["outline"][1] >= 2, ring


def test_a_drawings_in_words_toggle_brings_the_courses_focus_ring_where_no_widget_is(widgets_page):
    """The ring comes with the drawing's own output: with the widgets' styles switched off (a page that shows
    drawings and no widget), the summary of draw_dot's "In words" shows the course's ring when Tab reaches it."""
    page = widgets_page
    summary = page.locator(".jp-OutputArea-output:has(.micrograd-scroll-note) details.micrograd-words > summary").first
    page.evaluate("() => document.querySelectorAll('.micrograd-page-support style').forEach(s => { s.disabled = true; })")
    try:
        assert page.evaluate("() => Array.from(document.querySelectorAll('.micrograd-page-support style')).every(s => s.disabled)")
        focus_by_keyboard(page, summary)
        ring = summary.evaluate(EDGES)
        # The course's ring colour, as this page resolves it: JupyterLab's brand blue.
        course = summary.evaluate(f"e => {{ const t = document.createElement('span'); t.style.outlineColor = '{palette.FOCUS_RING}'; "
                                  "e.appendChild(t); const c = getComputedStyle(t).outlineColor; t.remove(); return c; }")
    finally:
        page.evaluate("() => document.querySelectorAll('.micrograd-page-support style').forEach(s => { s.disabled = false; })")
    assert ring["outline"] == ["solid", 2] and ring["colour"] == course, (ring, course)


def test_a_learners_own_class_is_drawn_stepped_and_marked_on_a_learners_page(widgets_page, tmp_path):
    """widgets.ipynb's last cells: a MyValue typed the lecture's way, with the = for += slip in its
    product.  At 1280×800 with the file browser open, its drawing fits, the stepper calls its
    _backward() and says when a gradient was replaced, and a failed check shows the learner's
    graph with the wrong node marked."""
    from playwright.sync_api import expect

    page = widgets_page
    panel = page.locator(".jp-NotebookPanel").first
    cells = panel.locator(".jp-Notebook .jp-CodeCell")
    drawing, stepped, checked = (cells.nth(i) for i in range(-3, 0))

    image = drawing.locator(".micrograd-drawing img")  # a notebook output holds its drawing as an image
    expect(image).to_be_visible()
    source = image.evaluate("img => atob(img.src.split(',')[1])")
    assert all(f">{label}<" in source for label in ("x", "w", "y")), source[:300]

    stepper = stepped.locator(".micrograd-backprop-stepper")
    for k in (1, 2):
        button(stepper, "Step").click()
        expect(stepper.locator(".micrograd-position")).to_have_text(str(k))
    expect(stepper.locator(".micrograd-panel")).to_contain_text("its _backward() changed 2 gradients")
    expect(stepper.locator(".micrograd-panel")).to_contain_text("x.grad already held 1.0000 from an earlier use")

    figure = checked.locator(".micrograd-verdict-figure svg")
    expect(checked.locator(".micrograd-verdict-failed")).to_be_visible()
    expect(figure).to_be_visible()
    marked = figure.evaluate(HIGHLIGHTED_BOXES)
    assert len(marked) == 1 and "expected" in marked[0], marked

    measured = panel.evaluate(MEASURE)
    assert measured["wide"] == [] and measured["smallText"] == [] and measured["asText"] == [], measured
    for name, element in [("learner-drawing", drawing), ("learner-stepper", stepped), ("failed-check", checked)]:
        element.scroll_into_view_if_needed()
        page.screenshot(path=tmp_path / f"{name}.png")
        if SHOTS:
            page.screenshot(path=SHOTS / f"{name}.png")
    assert (tmp_path / "failed-check.png").stat().st_size > 10_000


# -- every lesson on a learner's page -------------------------------------------------------

# JupyterLab at 1280×800 with the file browser open: an output about 850 px wide.
LEARNER_VIEWPORT = (1280, 800)
MIN_TEXT_PX = 11
MAX_RASTER_STRETCH = 1.25

# What the page shows of one notebook, measured in the browser.  Wide: an
# element (drawing, picture, widget) reaching past its output's right edge
# with no scrolling box of its own inside the output.  Text: the rendered
# size of every SVG text (font size × the drawing's scale on screen) and of
# every text in a widget.  Stretch: shown width / pixel width of each raster image.
MEASURE = """
panel => {
  const found = {wide: [], smallText: [], stretched: [], asText: [], smallest: Infinity, widest: 0};
  const describe = (el, cell) => `cell ${cell}: <${el.tagName.toLowerCase()} class="${el.getAttribute('class') || ''}">`;
  const cells = Array.from(panel.querySelectorAll('.jp-Notebook .jp-Cell'));
  cells.forEach((cellNode, cell) => {
    for (const output of cellNode.querySelectorAll('.jp-OutputArea-output')) {
      const box = output.getBoundingClientRect();
      if (box.width === 0) continue;
      const candidates = output.querySelectorAll(
        'svg:not(svg svg), img, canvas, .jupyter-widgets.widget-container:not(.widget-container .widget-container)');
      for (const el of candidates) {
        const rect = el.getBoundingClientRect();
        if (rect.width === 0) continue;
        found.widest = Math.max(found.widest, rect.width);
        if (rect.right <= box.right + 1) continue;
        let scrolls = false;
        for (let a = el.parentElement; a && a !== output.parentElement; a = a.parentElement) {
          const style = getComputedStyle(a);
          if (['auto', 'scroll'].includes(style.overflowX) && a.getBoundingClientRect().right <= box.right + 1
              && a.scrollWidth > a.clientWidth) { scrolls = true; break; }
        }
        if (!scrolls) found.wide.push(`${describe(el, cell)} ${Math.round(rect.width)} px wide, right edge ${Math.round(rect.right)} > output's ${Math.round(box.right)}`);
      }
      const note = (size, what) => {
        found.smallest = Math.min(found.smallest, size);
        if (size < %(min_text)s) found.smallText.push(`cell ${cell}: ${what} at ${size.toFixed(1)} px`);
      };
      for (const text of output.querySelectorAll('svg text')) {
        if (!text.textContent.trim() || text.getBBox().width === 0) continue;
        const ctm = text.getScreenCTM();
        const scale = Math.hypot(ctm.a, ctm.b);
        note(parseFloat(getComputedStyle(text).fontSize) * scale, `drawing text "${text.textContent.trim().slice(0, 30)}"`);
      }
      for (const widget of output.querySelectorAll('.jupyter-widgets')) {
        const walker = document.createTreeWalker(widget, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const el = node.parentElement;
          if (!node.textContent.trim() || el.closest('svg') || el.getClientRects().length === 0) continue;
          note(parseFloat(getComputedStyle(el).fontSize), `widget text "${node.textContent.trim().slice(0, 30)}"`);
        }
      }
      // A drawing whose SVG a viewer stripped shows its node names and edges as text ("v0->o2").
      if (/\\bv\\d+->o\\d+\\b/.test(output.textContent) && !output.querySelector('svg, img')) {
        found.asText.push(`cell ${cell}: a drawing shown as text: "${output.textContent.trim().slice(0, 60)}"`);
      }
      for (const img of output.querySelectorAll('img')) {
        const vector = /^data:image\\/svg|\\.svg($|\\?)/.test(img.currentSrc || img.src);
        if (!img.naturalWidth) continue;
        if (vector) {  // a drawing: shown smaller than its own size, its text shrinks with it
          const scale = img.getBoundingClientRect().width / img.naturalWidth;
          if (scale < 0.99) found.smallText.push(`${describe(img, cell)}: a drawing shown at ${scale.toFixed(2)} of its size`);
          continue;
        }
        const stretch = img.getBoundingClientRect().width / img.naturalWidth;
        if (stretch > %(max_stretch)s) found.stretched.push(`${describe(img, cell)} shown at ${stretch.toFixed(2)}× its ${img.naturalWidth} px`);
      }
    }
  });
  return found;
}
""" % {"min_text": MIN_TEXT_PX, "max_stretch": MAX_RASTER_STRETCH}


# Code cells with source that did not run (an error stopped Run All).
NOT_RUN = """
panel => Array.from(panel.querySelectorAll('.jp-Notebook .jp-CodeCell'))
    .map((cell, i) => [i, cell.querySelector('.jp-InputPrompt').textContent, cell.querySelector('.jp-InputArea-editor').textContent])
    .filter(([i, prompt, source]) => source.trim() && !/\\[\\d+\\]/.test(prompt))
    .map(([i]) => i)
"""


def test_a_build_it_cell_run_as_its_template_gets_the_learners_saved_code_back_in_jupyterlab(widgets_page):
    """A new cell at the top of widgets.ipynb (the others keep their places from the end): the lecture's Value,
    typed into lesson 3's build-it and run; then the same cell given lesson 3's template, as a reload before a
    save shows it, and run.  JupyterLab honours the kernel's payload: the cell shows the learner's code again."""
    from playwright.sync_api import expect

    import foreign_nodes
    from micrograd.course.carry import templates
    from micrograd.course.carry.magic import kept_sentence

    page, key = widgets_page, "lesson 3: MyValue"
    panel = page.locator(".jp-NotebookPanel").first
    panel.locator(".jp-Cell").first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("a")  # a new cell above, as a learner adds one
    cell = panel.locator(".jp-Cell").first
    first_line = f"{templates.MAGIC} {key}"
    for code in (foreign_nodes.LECTURE_MY_VALUE, templates.template(key)):
        cell.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(f"{first_line}\n{code}")
        run_cell(page, cell)
    expect(cell.locator(".jp-OutputArea-output")).to_contain_text("ran in place of the lesson's template")
    assert " ".join(kept_sentence(key).split()) in " ".join(cell.locator(".jp-OutputArea").inner_text().split())
    cell.scroll_into_view_if_needed()
    shown = [line.rstrip() for line in cell.locator(".cm-content").inner_text().splitlines() if line.strip()]
    assert shown == [line.rstrip() for line in f"{first_line}\n{foreign_nodes.LECTURE_MY_VALUE}".splitlines() if line.strip()]


def lesson_paths():
    paths = sorted(LESSONS.glob("*.ipynb")) + sorted(LESSONS.glob("solutions/*.ipynb"))
    return [path.relative_to(LESSONS).as_posix() for path in paths]


def run_all(page, panel):
    from playwright.sync_api import expect

    expect(page.locator(".jp-StatusBar-Item").filter(has_text=KERNEL_READY)).to_be_visible()
    open_file_browser(page)  # once the layout is restored, which may close it
    # The stored outputs and counts go first, so a finished run is told apart from them.
    page.get_by_role("menuitem", name="Edit", exact=True).click()
    page.get_by_role("menuitem", name="Clear Outputs of All Cells", exact=True).click()
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.wait_for_function(RUN_FINISHED, arg=panel.element_handle(), timeout=RUN_ALL_MS)
    # Widgets render after their cell has finished.
    expect(panel.get_by_text("Loading widget...")).to_have_count(0)



# axe-core checks these lessons, run, in the page measured above: a drawing lesson, the backprop
# stepper's, the training stepper's and the GPT's (the generation stepper, attention heatmaps).
AXE_LESSONS = ("02_values_and_graphs.ipynb", "03_backprop_by_hand.ipynb", "06_training_loop.ipynb", "11_gpt.ipynb")
# What the project writes in a lesson's page: its prose and its cells' outputs (drawings, verdicts,
# widgets). JupyterLab's own menus, toolbars, editors and panels are its own, and left out.
OURS = [".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownOutput", ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output"]
# $MICROGRAD_AXE_REPORT=1: axe also runs on the whole page, and the report counts both.
AXE_REPORT = os.environ.get("MICROGRAD_AXE_REPORT")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def widget_kinds(path):
    """The classes of the widgets the notebook shows, read from their text form ("TrainingStepper: ..."); a widget
    with no such text is one more kind, the empty name."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    outputs = [output for cell in cells for output in cell.get("outputs", [])]
    return {re.match(r"\w*", "".join(output["data"].get("text/plain", ""))).group()
            for output in outputs if WIDGET_VIEW in output.get("data", {})}


def live_runs(names):
    """The notebooks that run, in this order, so that each kind of widget is drawn live by its kernel once: the
    first to show it (lessons before solutions).  The others' widgets are kinds already drawn live."""
    drawn, live = set(), []
    for name in names:
        kinds = widget_kinds(LESSONS / name)
        if kinds - drawn:
            live.append(name)
            drawn |= kinds
    return live


LIGHT_THEME, DARK_THEME = "JupyterLab Light", "JupyterLab Dark"


def set_theme(page, theme):
    """JupyterLab's theme, picked as a learner picks it (Settings > Theme); waits until the page wears it."""
    page.get_by_role("menuitem", name="Settings", exact=True).click()
    page.locator(".lm-Menu-item").filter(has_text=re.compile(r"^Theme")).click()
    page.locator(".lm-Menu-itemLabel").filter(has_text=re.compile(f"^{re.escape(theme)}$")).click()
    page.wait_for_function("theme => document.body.dataset.jpThemeName === theme", arg=theme)


def show_stored_outputs(page, panel, kernel=True):
    """Open a notebook as stored: wait for its last cell and every image to be in the page."""
    from playwright.sync_api import expect

    if kernel:  # the layout settles once the kernel is connected
        expect(page.locator(".jp-StatusBar-Item").filter(has_text=KERNEL_READY)).to_be_visible()
    open_file_browser(page)
    expect(panel.locator(".jp-Notebook .jp-Cell").last).to_be_attached()
    page.wait_for_function(
        "panel => Array.from(panel.querySelectorAll('.jp-OutputArea-output img')).every(img => img.complete)",
        arg=panel.element_handle(),
    )


def screenshot_widgets(page, panel, name):
    stem = name.replace("/", "-").removesuffix(".ipynb")
    targets = {
        "backprop-stepper": panel.locator(".micrograd-backprop-stepper"),
        "training-stepper": panel.locator(".micrograd-training-stepper"),
        "explorer": panel.locator(".micrograd-expression-explorer"),
        "drawing": panel.locator(".micrograd-drawing"),
        "wide-drawing": panel.locator(".micrograd-scroll-note"),
        "figure": panel.locator(".jp-RenderedImage img"),  # matplotlib
        "last-drawing": panel.locator(".micrograd-drawing").last,
    }
    for label, locator in targets.items():
        if locator.count():
            locator.first.scroll_into_view_if_needed()
            page.screenshot(path=SHOTS / f"{stem}-{label}.png")


def test_every_lesson_fits_a_learners_page(browser, lab):
    from playwright.sync_api import expect

    names = lesson_paths()
    assert len(names) >= 10, f"expected the lessons and solutions in {LESSONS}, found {names}"
    page = new_page(browser, *LEARNER_VIEWPORT)
    errors = []
    page.on("console", lambda message: errors.append(f"{message.text} ({message.location['url']})") if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(f"{error}\n{error.stack}"))
    problems = {}
    report = []
    try:
        # The first lesson with each kind of widget runs: a live widget is drawn by its kernel (live_runs).
        # The others are measured with their stored outputs, which strict nbval holds equal to a fresh run,
        # opened with no kernel (Open With > Notebook (no kernel)).  One after the other, from the file
        # browser of one page, folder by folder, each closed (its kernel shut down) before the next.
        live = live_runs(names)
        assert live, f"no notebook in {LESSONS} has a widget to run"
        folder = None
        for name in sorted(names, key=lambda name: (Path(name).parent.as_posix(), name not in live)):
            started = time.monotonic()
            errors.clear()
            if folder != Path(name).parent:  # the file browser in the lesson's folder, and nothing open
                if folder is not None and Path(name).parent.parent == folder:
                    open_folder(page, Path(name).parent.name)  # a subfolder: a double click, as a learner goes
                else:
                    page.goto(lab.url(f"lab/tree/{(Path('lessons') / Path(name).parent).as_posix()}") + "&reset")
                folder = Path(name).parent
            if name in live:
                panel = open_with_kernel(page, Path(name).name)
                # First as stored, not yet run: a widget's stored picture must show its drawings.
                show_stored_outputs(page, panel)
                stored_as_text = [f"as stored: {issue}" for issue in panel.evaluate(MEASURE)["asText"]]
                run_all(page, panel)
                not_run = panel.evaluate(NOT_RUN)
            else:
                panel = open_without_kernel(page, Path(name).name)
                show_stored_outputs(page, panel, kernel=False)
                not_run, stored_as_text = [], []
            found = panel.evaluate(MEASURE)
            axe_issues = []
            if name in AXE_LESSONS:
                ours = run_axe(page, include=OURS)
                axe_issues = [f"axe: {line}" for line in described(blocking(ours))]
                report.append(f"{name}: axe on the lesson's prose and outputs: {counts(ours) or 'nothing'}; "
                              f"from third-party controls inside them: {not_ours(ours) or 'nothing'}")
                # The same in JupyterLab's dark theme: text and shapes against what is behind them there.
                set_theme(page, DARK_THEME)
                dark = run_axe(page, include=OURS)
                axe_issues += [f"axe, dark theme: {line}" for line in described(blocking(dark))]
                report.append(f"{name}: axe in the dark theme: {counts(dark) or 'nothing'}")
                if SHOTS:
                    screenshot_widgets(page, panel, name.replace(".ipynb", "-dark.ipynb"))
                set_theme(page, LIGHT_THEME)
                if AXE_REPORT:
                    whole = run_axe(page)
                    report.append(f"{name}: axe on the whole page: {counts(whole)}\n  " + "\n  ".join(described(whole, 3)))
            if SHOTS:
                screenshot_widgets(page, panel, name)
            width = panel.locator(".jp-OutputArea-output").first.evaluate("e => e.getBoundingClientRect().width")
            report.append(f"{name}: {time.monotonic() - started:.1f} s; output {width:.0f} px, "
                          f"widest element {found['widest']:.0f} px, smallest text {found['smallest']:.1f} px")
            issues = found["wide"] + found["smallText"] + found["stretched"] + found["asText"] + stored_as_text
            issues += [f"cell {i} did not run (an earlier cell failed?)" for i in not_run]
            ignored = [text for text in errors if name not in live and all(part in text for part in NO_KERNEL_WIDGETS_ERROR)]
            if ignored:
                report.append(f"{name}: not ours, left: {ignored[0].splitlines()[0]}")
            issues += [f"console error: {text}" for text in errors if text not in ignored]
            issues += axe_issues
            if issues:
                problems[name] = issues
            if name in live:  # one kernel at a time on a small CI machine
                close_and_shut_down(page)
            else:
                page.get_by_role("menuitem", name="File", exact=True).click()
                page.get_by_role("menuitem", name=re.compile(r"^Close Tab")).click()
                expect(panel).to_have_count(0)
    finally:
        page.context.close()
        print("\n".join(report) + f"\naxe took {SECONDS[0]:.1f} s in all")
    assert not problems, "\n".join(f"{name}:\n  " + "\n  ".join(issues[:15]) for name, issues in problems.items())


# ipywidgets 8.1's JupyterLab manager asks for the session's kernel of a notebook opened with no kernel
# and throws, in the page's console only: nothing shows, and the stored widgets show their pictures.
NO_KERNEL_WIDGETS_ERROR = ("Cannot read properties of null (reading 'kernel')", "@jupyter-widgets/jupyterlab-manager")


def listed(page, name):
    """The entry called ``name`` in the file browser's listing, the file browser open."""
    open_file_browser(page)
    return page.locator("#filebrowser .jp-DirListing-item").filter(has=page.get_by_text(name, exact=True))


def open_folder(page, folder_name):
    """Go into a folder of the file browser's folder with a double click, and wait for its listing."""
    from playwright.sync_api import expect

    item = listed(page, folder_name)
    item.dblclick()
    expect(page.locator("#filebrowser .jp-BreadCrumbs")).to_contain_text(folder_name)
    expect(item).to_have_count(0)  # the listing is the folder's own


def open_with_kernel(page, file_name):
    """Open a notebook of the file browser's folder as a learner does, with a double click: its kernel starts."""
    from playwright.sync_api import expect

    listed(page, file_name).dblclick()
    panel = page.get_by_role("tabpanel", name=file_name)
    expect(panel).to_be_visible()
    return panel


def open_without_kernel(page, file_name):
    """Open a notebook of the file browser's folder as stored, with no kernel: Open With > Notebook (no kernel)."""
    from playwright.sync_api import expect

    listed(page, file_name).click(button="right")
    # A click opens the submenu at once; a hover opens it after a delay.
    page.locator(".lm-Menu-item").filter(has_text=re.compile(r"^Open With")).click()
    page.locator(".lm-Menu-item").filter(has_text="Notebook (no kernel)").click()
    panel = page.get_by_role("tabpanel", name=file_name)
    expect(panel).to_be_visible()
    expect(page.locator(".jp-StatusBar-Item").filter(has_text=re.compile(r"^No Kernel\b"))).to_be_visible()
    return panel


def test_the_measurements_catch_each_problem(browser):
    """MEASURE on a page made to fail: a clipped drawing, tiny text, a stretched picture; and the same done right."""
    page = new_page(browser, *LEARNER_VIEWPORT)
    pixel = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
    try:
        page.set_content(
            "<div class='panel'><div class='jp-Notebook'><div class='jp-Cell'>"
            "<div class='jp-OutputArea-output' style='width:850px'>"
            "<svg width='1200' height='50'><text x='0' y='20' font-size='12'>clipped</text></svg>"
            "<svg width='400' height='50' viewBox='0 0 800 100'><text x='0' y='40' font-size='16'>shrunk</text></svg>"
            f"<img src='{pixel}' style='width:10px'>"
            "<img src='data:image/svg+xml;base64,PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnIHdpZHRoPSc0MDAnIGhlaWdodD0nNDAnPjx0ZXh0IHg9JzAnIHk9JzIwJyBmb250LXNpemU9JzE0Jz5oYWxmPC90ZXh0Pjwvc3ZnPg==' style='width:200px'>"
            "<div style='overflow-x:auto'><svg width='1200' height='50'><text x='0' y='20' font-size='12'>fine</text></svg></div>"
            "</div><div class='jp-OutputArea-output' style='width:850px'>micrograd v0 x1 data 2.0000 o2 * v0->o2</div>"
            "</div></div></div>"
        )
        found = page.locator(".panel").evaluate(MEASURE)
    finally:
        page.context.close()
    assert len(found["wide"]) == 1 and "1200 px wide" in found["wide"][0]
    assert found["smallText"][0] == 'cell 0: drawing text "shrunk" at 8.0 px'
    assert len(found["smallText"]) == 2 and "a drawing shown at 0.50 of its size" in found["smallText"][1]
    assert len(found["stretched"]) == 1 and "10.00×" in found["stretched"][0]
    assert len(found["asText"]) == 1 and "v0->o2" in found["asText"][0]


# Whether the element ``selector`` finds in a drawing's box intersects the part of the box in view.
IN_THE_BOX = """
([box, selector]) => { const b = box.getBoundingClientRect(), n = box.querySelector(selector);
    if (!n) return null; const r = n.getBoundingClientRect();
    return {inView: r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom,
            node: [r.left, r.right], box: [b.left, b.right], scrolled: box.scrollLeft}; }
"""
# The value box the stepper marks, in a live drawing: its outline in the highlight colour.
ACTIVE_NODE = f'g.node:has(> title) :is(polygon, path)[stroke="{HIGHLIGHT}"]'


def test_on_a_320_px_page_a_steppers_window_starts_scrolled_to_its_active_node(browser):
    """A stepper's drawing cropped to a window ~850 px wide, on a phone's page: the box scrolls, and shows the node
    the step works on (the output side of an MLP, at the right), not the window's left edge."""
    from micrograd import MLP, Value
    from micrograd.widgets import BackpropStepper

    stepper = BackpropStepper(MLP(3, [4, 4, 1], rng=0)([Value(1.0), Value(-2.0), Value(0.5)]))
    page = new_page(browser, 320, 640)
    seen = {}
    try:
        for steps in (1, 6):
            while stepper.position < steps:
                stepper.step()
            assert stepper.picture.window is not None, "the drawing was not cropped to a window"
            page.set_content(f"<div style='padding:8px'>{stepper.graph.value}</div>")  # the live widget's drawing
            box = page.locator(".micrograd-drawing").first
            seen[f"live, step {steps}"] = page.evaluate(IN_THE_BOX, [box.element_handle(), ACTIVE_NODE])
            page.set_content(f"<div style='padding:8px'>{stepper.static_html()}</div>")  # its stored picture, an image
            box = page.locator(".micrograd-drawing").first
            seen[f"stored, step {steps}"] = page.evaluate(IN_THE_BOX, [box.element_handle(), ".micrograd-in-view"])
    finally:
        page.context.close()
    out_of_view = {state: found for state, found in seen.items() if not (found and found["inView"])}
    assert not out_of_view, out_of_view
    assert all(found["scrolled"] > 0 for found in seen.values()), seen  # the node is right of a phone's width


def test_each_kind_of_widget_runs_live_once_in_the_first_notebook_that_shows_it(tmp_path, monkeypatch):
    course = Path(__file__).resolve().parent.parent / "notebooks"

    def notebook(name, *kinds):
        views = [{"output_type": "display_data", "metadata": {}, "data": {WIDGET_VIEW: {"model_id": "m"}, "text/plain": text}}
                 for text in kinds]
        cells = [{"cell_type": "code", "source": "w", "metadata": {}, "outputs": views, "execution_count": 1}]
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        return name

    monkeypatch.setitem(globals(), "LESSONS", tmp_path)
    names = [notebook("01_a.ipynb"), notebook("02_b.ipynb", "Explorer(a=1)"), notebook("03_c.ipynb", "Stepper: 10 nodes"),
             notebook("04_d.ipynb", "Stepper: 300 nodes", "Explorer(b=2)"), notebook("05_e.ipynb", "Stepper: 3", "Heatmap"),
             notebook("solutions/03_c.ipynb", "Stepper: 10 nodes"), notebook("solutions/06_f.ipynb", "Picker(x)")]
    assert live_runs(names) == ["02_b.ipynb", "03_c.ipynb", "05_e.ipynb", "solutions/06_f.ipynb"]
    # The course's own: the explorer, the backprop and training steppers and the GPT's widgets each run once.
    monkeypatch.setitem(globals(), "LESSONS", course)
    assert set(live_runs(lesson_paths())) == {"02_values_and_graphs.ipynb", "03_backprop_by_hand.ipynb",
                                              "06_training_loop.ipynb", "11_gpt.ipynb"}
