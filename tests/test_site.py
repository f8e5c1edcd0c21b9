"""The course site, built as `make site` builds it and read in headless Chromium.

Builds the site into a temporary folder (docs/build_site.py, the script
`make site` runs), serves it with Python's http.server on 127.0.0.1 (a port
the OS picks), and opens every page in Debian's Chromium through Playwright,
one browser for all pages.  A page passes when nothing went wrong a reader
would notice or a course server offline would hit: no console error, no
failed request, no request to any other host, every picture loaded, every
formula typeset (no raw $...$ left), internal links pointing at real files,
and every lesson showing the drawings its notebook stores, widgets as their
static picture with the note that they are live in JupyterLab.

What each page should show is read from the notebooks themselves, so the
test follows the lessons as they change.
"""

import functools
import http.server
import json
import re
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import nbformat
import pytest

# The browser test's module-scoped fixture: Debian's Chromium with its flags, one browser for every page.
from test_browser import browser  # noqa: F401  (a fixture, used by name)

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
BUILD_SCRIPT = ROOT / "docs" / "build_site.py"
BUILD_TIMEOUT_SECONDS = 600
PAGE_TIMEOUT_MS = 60_000
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
RAW_MATH = re.compile(r"\$[^$\n]+\$")

# Run in the page once it has loaded: wait for MathJax (when the page has
# math), make every picture load (lazy ones too) and report what the page shows.
INSPECT_PAGE = """
async () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
        await MathJax.startup.promise;
    }
    const images = [];
    for (const img of document.querySelectorAll('img')) {
        img.loading = 'eager';
        let error = null;
        try { await img.decode(); } catch (e) { error = String(e); }
        images.push({src: img.getAttribute('src'), naturalWidth: img.naturalWidth,
                     width: img.getBoundingClientRect().width, error,
                     inOutput: !!img.closest('.cell_output')});
    }
    const article = document.querySelector('article') || document.body;
    const prose = article.cloneNode(true);
    prose.querySelectorAll('pre, code, script, style, mjx-container, .highlight').forEach(e => e.remove());
    const untypeset = Array.from(document.querySelectorAll('.math'))
        .filter(e => !e.querySelector('mjx-container') && !e.closest('mjx-container'))
        .map(e => e.textContent.slice(0, 80));
    return {
        title: document.title,
        text: prose.textContent,
        images,
        inlineSvgs: document.querySelectorAll('.cell_output svg:not(svg svg)').length,
        untypeset,
        widgetNotes: document.querySelectorAll('.static-widget .widget-note').length,
        widgetScripts: document.querySelectorAll('script[type="%s"]').length,
        links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
        hasNext: !!document.querySelector('.prev-next-area a.right-next'),
        hasToc: !!document.querySelector('.bd-sidebar-primary nav'),
    };
}
""" % WIDGET_VIEW


def stored_pictures(notebook):
    """What a notebook's stored outputs show on a static page: drawings by kind, and widgets."""
    counts = {"svg": 0, "png": 0, "widgets": 0}
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                counts["widgets"] += 1
            if "image/svg+xml" in data:
                counts["svg"] += 1
            elif "image/png" in data:
                counts["png"] += 1
            elif "text/html" in data:
                html = data["text/html"]
                counts["svg"] += (html if isinstance(html, str) else "".join(html)).count("<svg")
    return counts


def lesson_notebooks():
    return sorted(NOTEBOOKS.glob("[0-9]*.ipynb")) + sorted(NOTEBOOKS.glob("solutions/[0-9]*.ipynb"))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    outdir = tmp_path_factory.mktemp("site") / "html"
    result = subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), str(outdir), "--quiet"],
        capture_output=True, text=True, timeout=BUILD_TIMEOUT_SECONDS,
    )
    assert result.returncode == 0, f"the site did not build:\n{result.stdout}\n{result.stderr}"
    return outdir


@pytest.fixture(scope="module")
def server(site):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass  # the test reads failures from the browser, not the log

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


class PageLog:
    """Everything a page asked for or complained about, gathered from Playwright's events."""

    def __init__(self, page, origin):
        self.origin = origin
        self.problems = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.problems.append(f"uncaught error: {error}"))
        page.on("requestfailed", lambda request: self.problems.append(f"failed request: {request.url} ({request.failure})"))
        page.on("response", self._response)
        page.on("request", self._request)

    def _console(self, message):
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")

    def _response(self, response):
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")

    def _request(self, request):
        scheme = urllib.parse.urlsplit(request.url).scheme
        if scheme in ("data", "blob", "about"):
            return
        if not request.url.startswith(self.origin + "/"):
            self.problems.append(f"request outside 127.0.0.1: {request.url}")


def test_every_page_works_offline(site, server, browser, tmp_path):
    pages = sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html") if "_static" not in path.parts)
    lessons = {Path("lessons") / path.relative_to(NOTEBOOKS).with_suffix(".html"): path for path in lesson_notebooks()}
    assert lessons, "no lesson notebooks found"
    missing = [str(page) for page in lessons if page.as_posix() not in pages]
    assert not missing, f"lessons with no page on the site: {missing}"

    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    log = PageLog(page, server)
    problems = {}
    for name in pages:
        log.problems = []
        page.goto(f"{server}/{name}", wait_until="load")
        shown = page.evaluate(INSPECT_PAGE)
        page.wait_for_load_state("networkidle")  # anything the page fetches late is logged too
        found = list(log.problems)
        found += [f"raw math left in the text: {match!r}" for match in RAW_MATH.findall(shown["text"])[:5]]
        found += [f"formula not typeset: {text!r}" for text in shown["untypeset"][:5]]
        found += [f"image did not load: {image['src']} ({image['error']})" for image in shown["images"] if image["naturalWidth"] == 0]
        for link in shown["links"]:
            parts = urllib.parse.urlsplit(link)
            if link.startswith(server + "/") and not (site / urllib.parse.unquote(parts.path).lstrip("/")).exists():
                found.append(f"link to a missing file: {link}")
        notebook = lessons.get(Path(name))
        if notebook is not None:
            found += lesson_problems(stored_pictures(notebook), shown)
        if found:
            problems[name] = found
        if name == "lessons/02_values_and_graphs.html":
            page.screenshot(path=tmp_path / "lesson02.png")  # kept in pytest's temp folder to look at
    context.close()
    assert not problems, "\n".join(f"{name}:\n  " + "\n  ".join(found) for name, found in problems.items())


def lesson_problems(expected, shown):
    found = []
    outputs = [image for image in shown["images"] if image["inOutput"]]
    svgs = [image for image in outputs if image["src"].endswith(".svg")]
    pngs = [image for image in outputs if image["src"].endswith(".png")]
    if len(svgs) + shown["inlineSvgs"] != expected["svg"]:
        found.append(f"{expected['svg']} SVG drawings stored, {len(svgs) + shown['inlineSvgs']} shown")
    if len(pngs) != expected["png"]:
        found.append(f"{expected['png']} PNG figures stored, {len(pngs)} shown")
    found += [f"drawing shown with no width: {image['src']}" for image in outputs if image["width"] == 0]
    # A graph drawing is shown at the size it was drawn (a wide one scrolls): shrunk, its labels become unreadable.
    found += [
        f"drawing shrunk to {image['width']:.0f} px of its {image['naturalWidth']} px: {image['src']}"
        for image in svgs if image["width"] < image["naturalWidth"] - 1
    ]
    if shown["widgetNotes"] != expected["widgets"]:
        found.append(f"{expected['widgets']} widgets stored, {shown['widgetNotes']} shown with the live-in-JupyterLab note")
    if shown["widgetScripts"]:
        found.append("a widget view script is on the page (it needs a kernel or a CDN)")
    if not shown["hasToc"]:
        found.append("no table of contents")
    return found


def test_lesson_pages_have_previous_and_next(site):
    # Navigation: every lesson but the last links to the next one.
    lessons = sorted((site / "lessons").glob("[0-9]*.html"))
    assert len(lessons) == len(sorted(NOTEBOOKS.glob("[0-9]*.ipynb")))
    for page in lessons:
        html = page.read_text()
        assert 'class="right-next"' in html or "right-next" in html, f"{page.name} has no next link"


def widget_notebook(picture):
    """A one-cell notebook whose output is a widget bundle: the view, a static picture, the repr."""
    output = nbformat.v4.new_output(
        "display_data",
        data={
            WIDGET_VIEW: {"model_id": "0" * 31 + "1", "version_major": 2, "version_minor": 0},
            "text/plain": "Stepper(step 3 of 10)",
            **picture,
        },
    )
    cell = nbformat.v4.new_code_cell("Stepper()", outputs=[output])
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# A widget"), cell])
    notebook.metadata["widgets"] = {
        "application/vnd.jupyter.widget-state+json": {"state": {"0" * 31 + "1": {"model_name": "VBoxModel", "state": {}}},
                                                      "version_major": 2, "version_minor": 0}
    }
    return notebook


SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20"/></svg>'


@pytest.mark.parametrize(
    "picture, shown",
    [
        ({"image/svg+xml": SVG}, 'src="_images/'),
        ({"text/html": f'<div class="stepper-picture">{SVG}</div>'}, '<div class="stepper-picture"><svg'),
        ({}, None),
    ],
    ids=["svg picture", "html picture", "no picture"],
)
def test_a_widget_shows_its_static_picture_and_the_live_note(tmp_path, picture, shown):
    # The site's own configuration (docs/conf.py) on a notebook made here, so each
    # form of static picture a widget may carry is covered whatever the lessons hold.
    source = tmp_path / "source"
    source.mkdir()
    (source / "index.md").write_text("# Site\n\n```{toctree}\nwidget\n```\n")
    nbformat.write(widget_notebook(picture), source / "widget.ipynb")
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-c", str(ROOT / "docs"), str(source), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=BUILD_TIMEOUT_SECONDS,
    )
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "html" / "widget.html").read_text()
    note = page.index('class="widget-note')
    if shown:
        assert shown in page and page.index(shown) < note  # the picture, then the note under it
    assert "Stepper(step 3 of 10)" not in page  # the repr is no picture
    assert f'type="{WIDGET_VIEW}"' not in page  # no view: nothing to render it without a kernel
    assert not re.search(r'<script[^>]+src="(https?:)?//', page), "a script from another host"
