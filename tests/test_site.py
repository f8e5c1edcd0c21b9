"""The course site, built as `make site` builds it and read in headless Chromium.

Builds the site into a temporary folder (docs/build_site.py, the script
`make site` runs; nothing may land beside the output folder), serves it with
Python's http.server on 127.0.0.1 (a port the OS picks), and opens every
page in Debian's Chromium through Playwright at 1280×800, one browser for
all pages.  A page passes when nothing went wrong a reader would notice or a
course server offline would hit: no console error, no failed request, no
request to any other host, every picture loaded, every formula typeset (no
raw $...$ left), every lesson showing the drawings its notebook stores,
widgets as their static picture with the note that they are live in
JupyterLab; and nothing wider than the text column unless it scrolls in its
own box with a scrollbar the reader can see, a widget's picture fitting the
column; and axe-core (tests/axe.py) finds no serious or critical WCAG 2.2
A/AA violation in the page's article, what the course writes (the theme's
header and sidebars are its own).  Every local href and src of every page
names a file in the build (the download menu's notebook included).

Each page, once read, is switched to the theme's dark mode at 1280 px, then
to light at 320 px (a phone, or 1280 px zoomed to 400 %), as a reader's
switch and window do, and read again in each: axe's colour rules find
nothing serious in dark mode, nor its layout rules at 320 px, where no page
scrolls sideways as a whole; no formula is a Tab stop, and a box is a Tab
stop exactly when it scrolls.

The browser draws scrollbars as a system with overlay scrollbars does
(macOS, phones): a native scrollbar is not drawn until the box is scrolled,
so a box that scrolls with no styled scrollbar of the site's own shows
nothing that says more is hidden.  (Playwright's default, hiding every
scrollbar, would hide the site's styled ones too.)

$MICROGRAD_BROWSER_SHOTS names a folder for screenshots of the pages in SCREENSHOTS, and of one page in every
setting, to look at; nothing checks them, so by default none is taken.

What each page should show is read from the notebooks themselves, so the
test follows the lessons as they change.
"""

import functools
import html.parser
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import nbformat
import pytest

import chromium
from axe import SECONDS, blocking, counts, described, not_ours, run_axe
from test_readme import readme_guides
from waits import BUILD_SECONDS

# Debian's Chromium and the flags the browser test starts it with.

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
BUILD_SCRIPT = ROOT / "docs" / "build_site.py"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# What the project writes on each page: the article (the lessons, their outputs, the index). The
# theme's header, sidebars and footer are Sphinx's and the theme's own, and left out.
OURS = ["article.bd-article"]
# $MICROGRAD_AXE_REPORT=1: axe also runs on the whole page, and the test prints both counts.
AXE_REPORT = os.environ.get("MICROGRAD_AXE_REPORT")
RAW_MATH = re.compile(r"\$[^$\n]+\$")
VIEWPORT = {"width": 1280, "height": 800}
MIN_TEXT_PX = 11  # DESIGN.md: text never renders below 11 px
# Pages whose screenshot the test takes with chromium.SHOTS, scrolled to what once did not fit.
SCREENSHOTS = {
    "lessons/02_values_and_graphs.html": "article",
    "lessons/03_backprop_by_hand.html": "#the-graph-again mjx-container[display=true]",
    "lessons/07_classifier.html": ".static-widget",
    "lessons/09_debugging_autograd.html": "#bug-2-the-exponent-s-gradient mjx-container[display=true]",
    "lessons/10_memory_and_speed.html": "table:not(.table)",
    "lessons/11_gpt.html": ".static-widget",
}

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
                     inOutput: !!img.closest('.cell_output'), inWidget: !!img.closest('.static-widget')});
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
        hasNext: !!document.querySelector('.prev-next-area a.right-next'),
        sourceDownloads: Array.from(document.querySelectorAll('a.btn-download-source-button')).map(a => a.hasAttribute('download')),
        hasToc: !!document.querySelector('.bd-sidebar-primary nav'),
    };
}
""" % WIDGET_VIEW


# Run in the page after INSPECT_PAGE: what is wider than the text column (the
# article's content box) and how it is shown.  Anything reaching past the column,
# or cutting its own content off (a formula, a code block), must scroll in a box
# inside the column whose horizontal scrollbar is drawn (it takes room under the
# content, and no box around it clips it away).  A widget's static picture must
# fit the column outright (scaled down, never stretched beyond its own size),
# its text still 11 px or more; a graph drawing inside it may scroll instead.
MEASURE_LAYOUT = """
() => {
    const article = document.querySelector('article.bd-article');
    if (!article) return {problems: [], column: 0};
    const style = getComputedStyle(article);
    const column = article.getBoundingClientRect();
    const left = column.left + parseFloat(style.paddingLeft), right = column.right - parseFloat(style.paddingRight);
    const problems = [];
    const words = (el, n) => el.textContent.replace(/\\s+/g, ' ').trim().slice(0, n);
    const name = el => {
        if (el.closest('mjx-container')) return `formula "${words(el.closest('mjx-container'), 60)}"`;
        const widget = el.closest('.static-widget') ? ' in a widget picture' : '';
        const src = el.getAttribute('src') ? ` src=${el.getAttribute('src').slice(-40)}` : '';
        return `<${el.tagName.toLowerCase()}${src}>${widget} "${words(el, 40)}"`;
    };
    const scrollbar = box => {
        const s = getComputedStyle(box);
        return box.offsetHeight - box.clientHeight - parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth);
    };
    // A box that scrolls sideways, inside the column, with a drawn scrollbar no ancestor clips.
    const scrollsVisibly = box => {
        if (!['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) return 'it does not scroll';
        const r = box.getBoundingClientRect();
        if (r.right > right + 1 || r.left < left - 1) return `its scrolling box is ${Math.round(r.width)} px wide itself`;
        if (scrollbar(box) < 1) return 'no scrollbar is drawn';
        // Below a box that clips it, the scrollbar is out of reach, unless that box scrolls down
        // to it (with a drawn scrollbar of its own): then the boxes around need only show that box.
        let bottom = r.bottom;
        for (let a = box.parentElement; a && a !== document.body; a = a.parentElement) {
            const s = getComputedStyle(a);
            const edge = a.getBoundingClientRect().bottom;
            if (s.overflowY === 'visible' || edge >= bottom - 1) continue;
            const side = a.offsetWidth - a.clientWidth - parseFloat(s.borderLeftWidth) - parseFloat(s.borderRightWidth);
            if (!['auto', 'scroll'].includes(s.overflowY) || side < 1) return 'its scrollbar is clipped';
            bottom = edge;
        }
        return null;
    };
    const seen = new Set();
    for (const el of article.querySelectorAll(
            'img, svg:not(svg svg), canvas, video, iframe, table, pre, mjx-container[display="true"], mjx-container[display="true"] > mjx-math, .micrograd-static')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0) continue;
        const own = getComputedStyle(el).overflowX;
        if (el.tagName !== 'svg' && own !== 'visible' && el.scrollWidth > el.clientWidth + 1) {
            seen.add(el);  // what it holds is judged with it
            const why = scrollsVisibly(el);
            if (why) problems.push(`${name(el)} shows ${el.clientWidth} of its ${el.scrollWidth} px: ${why}`);
            continue;
        }
        if (r.right <= right + 1 && r.left >= left - 1) continue;
        let clip = el.parentElement;
        while (clip && clip !== article && getComputedStyle(clip).overflowX === 'visible') clip = clip.parentElement;
        if (clip === article || !clip) {
            problems.push(`${name(el)} is ${Math.round(r.width)} px wide and reaches ${Math.round(r.right - right)} px past the ${Math.round(right - left)} px column`);
        } else if (!seen.has(clip)) {  // one report per box
            seen.add(clip);
            const why = scrollsVisibly(clip);
            if (why) problems.push(`${name(el)} is ${Math.round(r.width)} px wide in a ${Math.round(right - left)} px column: ${why}`);
        }
    }
    for (const picture of article.querySelectorAll('.static-widget img, .static-widget .micrograd-static > svg')) {
        const r = picture.getBoundingClientRect();
        const own = picture.tagName === 'IMG' ? picture.naturalWidth : picture.width.baseVal.value;
        const what = `widget picture <${picture.tagName.toLowerCase()}>`;
        if (r.right > right + 1) problems.push(`${what} is ${Math.round(r.width)} px wide, the column ${Math.round(right - left)} px: it should fit`);
        if (own && r.width > own + 1) problems.push(`${what} stretched to ${Math.round(r.width)} px from its ${Math.round(own)} px`);
        for (const text of picture.querySelectorAll('text')) {
            if (!text.textContent.trim() || text.getBBox().width === 0) continue;
            const ctm = text.getScreenCTM();
            const size = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(ctm.a, ctm.b);
            if (size < %(min_text)s) {
                problems.push(`${what}: text "${words(text, 20)}" at ${size.toFixed(1)} px`);
                break;
            }
        }
    }
    return {problems, column: right - left};
}
""" % {"min_text": MIN_TEXT_PX}


class Links(html.parser.HTMLParser):
    """Every href and src in a page, with the tag that carries it."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.found.append((tag, name, value))


def local_links(page):
    parser = Links()
    parser.feed(page.read_text())
    for tag, name, value in parser.found:
        parts = urllib.parse.urlsplit(value)
        if parts.scheme or parts.netloc or not parts.path:
            continue  # another host (the browser test rejects any request to one), or a place in this page
        yield tag, name, value, page.parent / urllib.parse.unquote(parts.path)


def stored_pictures(notebook):
    """What a notebook's stored outputs show on a static page: drawings by kind, and widgets."""
    counts = {"svg": 0, "png": 0, "widgets": 0}
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data:
                counts["widgets"] += 1
            html = data.get("text/html", "")
            html = html if isinstance(html, str) else "".join(html)
            drawings = html.count("<svg") + html.count("data:image/svg+xml")  # inline, or as images
            if drawings:
                counts["svg"] += drawings
            elif "image/svg+xml" in data:
                counts["svg"] += 1
            elif "image/png" in data:
                counts["png"] += 1
    return counts


def lesson_notebooks():
    return sorted(NOTEBOOKS.glob("[0-9]*.ipynb")) + sorted(NOTEBOOKS.glob("solutions/[0-9]*.ipynb"))


def lesson_pages():
    """{the site's page of a lesson or solution: its notebook}."""
    return {Path("lessons") / path.relative_to(NOTEBOOKS).with_suffix(".html"): path for path in lesson_notebooks()}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    outdir = tmp_path_factory.mktemp("a") / "site"  # alone in its folder: see test_the_build_writes_only_its_folder
    result = subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), str(outdir), "--quiet"],
        capture_output=True, text=True, timeout=BUILD_SECONDS,
    )
    assert result.returncode == 0, f"the site did not build:\n{result.stdout}\n{result.stderr}"
    return outdir


@pytest.fixture(scope="module")
def browser(chromium_browser):
    """The session's one Chromium (tests/chromium.py), which draws scrollbars as a reader's browser does."""
    return chromium_browser


def new_context(browser):
    # is_mobile: native scrollbars overlay the content and are not drawn, as on macOS and phones;
    # at 1280 px the theme still lays the page out for a desktop.
    return chromium.new_context(browser, viewport=VIEWPORT, is_mobile=True)


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


def site_pages(site):
    return sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html") if "_static" not in path.parts)


def read_light(page, log, name, lessons, pictures):
    """What went wrong on the page just loaded, at 1280 px in light mode, and the line it adds to the report."""
    shown = page.evaluate(INSPECT_PAGE)
    found = page.evaluate(MEASURE_LAYOUT)["problems"]
    found += [f"raw math left in the text: {match!r}" for match in RAW_MATH.findall(shown["text"])[:5]]
    found += [f"formula not typeset: {text!r}" for text in shown["untypeset"][:5]]
    found += [f"image did not load: {image['src']} ({image['error']})" for image in shown["images"] if image["naturalWidth"] == 0]
    ours, report = run_axe(page, include=OURS), []  # WCAG 2.2 A and AA, serious and critical ones fail it
    if ours is not None:
        found += [f"axe: {line}" for line in described(blocking(ours))]
        report.append(f"{name}: axe on the article: {counts(ours) or 'nothing'}; not ours: {not_ours(ours) or 'nothing'}")
    elif name.startswith("lessons/") or name == "index.html":
        found.append(f"no {OURS} to check: the theme changed its layout?")
    if AXE_REPORT:
        whole = run_axe(page)
        report.append(f"{name}: axe on the whole page: {counts(whole)}\n  " + "\n  ".join(described(whole, 3)))
    found += log.problems  # what the page asked for, late fetches included: axe took a while
    if not all(shown["sourceDownloads"]):
        found.append("the download menu's source entry opens the file instead of saving it")
    notebook = lessons.get(Path(name))
    if notebook is not None:
        found += lesson_problems(stored_pictures(notebook), shown)
    if pictures and name in SCREENSHOTS:
        target = page.locator(SCREENSHOTS[name]).first
        if target.count():  # a lesson rewritten since: the top of the page
            target.scroll_into_view_if_needed()
        page.screenshot(path=pictures / (Path(name).stem + ".png"))
    return found, report


def read_setting(page, log, name, setting, pictures):
    """The page just loaded, put in ``setting`` as a reader would (the theme's mode, the window's width), read."""
    how = OTHER_SETTINGS[setting]
    log.problems = []  # from here: a script that fails on the change is this setting's problem
    # The theme's own switch sets these two, and the page repaints; course.js lays the page out again on a resize.
    page.evaluate("mode => { document.documentElement.dataset.mode = mode; document.documentElement.dataset.theme = mode; }", how["mode"])
    if page.viewport_size != how["viewport"]:
        page.set_viewport_size(how["viewport"])
    page.evaluate(SETTLED)
    shown = {"background": page.evaluate(BACKGROUND), "tabs": page.evaluate(TAB_STOPS)}
    ours = run_axe(page, include=OURS, rules=how["rules"])
    shown["axe"] = None if ours is None else described(blocking(ours))
    shown["problems"] = list(log.problems)
    if pictures and name == SCREENSHOT_IN_EVERY_SETTING:
        page.screenshot(path=pictures / f"{Path(name).stem}-{setting}.png")
    return shown


# The colour the page is painted on, as [red, green, blue] (the body's, or the root's where the body has none).
BACKGROUND = """
() => [document.body, document.documentElement].map(e => getComputedStyle(e).backgroundColor)
    .map(c => c.match(/[\\d.]+/g).map(Number)).find(c => c.length === 3 || c[3] > 0).slice(0, 3)
"""


def dark(rgb):
    return sum(rgb) / 3 < 128


# Two frames after a change of mode or size: the resize event has run course.js's layout again, and the page
# has been styled and laid out anew.
SETTLED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


@pytest.fixture(scope="module")
def readings(site, server, browser):
    """Every page loaded once, as a reader opens it (light mode, 1280×800), and read there; then, in the same page,
    in each of OTHER_SETTINGS.  {"light": {page: (problems, report lines)}, setting: {page: what it showed}}."""
    pictures = chromium.SHOTS
    lessons = lesson_pages()
    context = new_context(browser)
    # The theme keeps a reader's choice of mode in localStorage, and reads it before it draws the page.
    context.add_init_script("localStorage.setItem('mode', 'light'); localStorage.setItem('theme', 'light');")
    page = context.new_page()
    log = PageLog(page, server)
    seen = {"light": {}, **{setting: {} for setting in OTHER_SETTINGS}}
    for name in site_pages(site):
        if page.viewport_size != VIEWPORT:
            page.goto("about:blank")  # the last page, left at 320 px, is not laid out again at 1280
            page.set_viewport_size(VIEWPORT)
        log.problems = []
        page.goto(f"{server}/{name}", wait_until="load")
        seen["light"][name] = read_light(page, log, name, lessons, pictures)
        for setting in OTHER_SETTINGS:
            seen[setting][name] = read_setting(page, log, name, setting, pictures)
    context.close()
    print(f"axe took {SECONDS[0]:.1f} s in all" + (f"; screenshots in {pictures}" if pictures else ""))
    return seen


def test_every_page_works_offline(site, readings):
    pages = site_pages(site)
    lessons = lesson_pages()
    assert lessons, "no lesson notebooks found"
    missing = [str(page) for page in lessons if page.as_posix() not in pages]
    assert not missing, f"lessons with no page on the site: {missing}"
    assert sorted(readings["light"]) == pages
    print("\n".join(line for _, report in readings["light"].values() for line in report))
    problems = {name: found for name, (found, _) in readings["light"].items() if found}
    assert not problems, "\n".join(f"{name}:\n  " + "\n  ".join(found) for name, found in problems.items())


def test_the_build_writes_only_its_folder(site):
    # make site into build/site must leave nothing beside it (staging, myst-nb's jupyter_execute, doctrees).
    assert sorted(path.name for path in site.parent.iterdir()) == ["site"]


def test_every_local_link_names_a_file_in_the_build(site):
    # Static sites serve files: a link to a folder with no index.html (the download menu's
    # ../_sources/ once) is a 404 on GitHub Pages, and an empty listing on a course server.
    pages = sorted(path for path in site.rglob("*.html") if not {"_static", "_sources"} & set(path.relative_to(site).parts))
    missing = []
    for page in pages:
        for tag, attribute, value, target in local_links(page):
            if APP in target.resolve().relative_to(site.resolve()).parents:
                continue  # the browser app, which make site builds beside the pages (tests/test_app.py builds it)
            if not (target.is_file() or (target / "index.html").is_file()):
                missing.append(f"{page.relative_to(site)}: <{tag} {attribute}=\"{value}\"> names no file")
    assert not missing, "\n".join(sorted(set(missing)))


def test_the_download_menu_gives_each_lesson_as_a_notebook(site):
    for notebook in lesson_notebooks():
        page = site / "lessons" / notebook.relative_to(NOTEBOOKS).with_suffix(".html")
        downloads = [target for tag, _, value, target in local_links(page)
                     if tag == "a" and urllib.parse.urlsplit(value).path.endswith(".ipynb")]
        assert len(downloads) == 1, f"{page.relative_to(site)}: notebook downloads {downloads}"
        assert downloads[0].name == notebook.name and downloads[0].is_file()
        assert nbformat.read(downloads[0], as_version=4).cells, f"{downloads[0]} is no lesson"


APP = Path("lite")


def test_every_lesson_page_links_to_its_lesson_in_the_browser_app(site):
    for notebook in lesson_notebooks():
        page = site / "lessons" / notebook.relative_to(NOTEBOOKS).with_suffix(".html")
        links = [value for tag, _, value, target in local_links(page) if "run-in-browser" in value or APP.name in value.split("/")]
        if notebook.parent.name == "solutions":
            assert links == [], f"{page.relative_to(site)}: the app has no solutions, yet the page links to it: {links}"
        else:
            assert links == [f"../lite/lab/index.html?path={notebook.name}"], f"{page.relative_to(site)}: {links}"


def test_the_front_page_offers_the_browser_app_beside_make_lab(site):
    page = site / "index.html"
    links = [(value, target) for tag, _, value, target in local_links(page) if APP.name in value.split("/")]
    assert [value for value, _ in links] == ["lite/lab/index.html"]
    assert links[0][1].resolve() == (site / "lite" / "lab" / "index.html").resolve()  # where make site puts the app
    text = re.sub(r"<[^>]+>", "", page.read_text())
    assert "make lab" in text and "Run in your browser" in text


def test_every_guide_the_readme_points_to_is_a_page_of_the_site_linked_from_its_front_page(site):
    # The guides (docs/guide/, docs/teaching/) are read on the site; the README links to their sources.
    guides = readme_guides()
    assert guides, "the README points to no guide"
    front = {target.resolve() for _, _, _, target in local_links(site / "index.html")}
    for guide in guides:
        page = site / Path(guide).with_suffix(".html")
        assert page.is_file(), f"the README points to docs/{guide}, which the site did not build"
        assert page.resolve() in front, f"the site's front page does not link to {page.relative_to(site)}"


def test_the_run_in_your_browser_notes_say_which_lessons_have_matplotlib_figures():
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    try:
        import browser_links
    finally:
        sys.path.remove(str(ROOT / "docs" / "_ext"))
    with_figures = {notebook.stem for notebook in NOTEBOOKS.glob("[0-9]*.ipynb")  # a figure's stored PNG
                    if any("image/png" in output.get("data", {}) for cell in nbformat.read(notebook, as_version=4).cells
                           for output in cell.get("outputs", []))}
    assert browser_links.FIGURES_NEED_MATPLOTLIB == with_figures


# The settings a learner reads the site in besides light at 1280 px (DESIGN.md: light and dark themes,
# 1280 px and 320 px).  Each reading runs the axe rules whose verdict that setting can change, on every page:
# the colours in dark mode (the theme repaints the page, and puts each output on a light card); the
# layout at 320 px (what scrolls, how much room a control has).  The other rules judge the page's
# markup, the same in every setting, and run in the light reading (read_light).
OTHER_SETTINGS = {
    "dark": {"mode": "dark", "viewport": VIEWPORT, "rules": ("color-contrast", "link-in-text-block")},
    "320px": {"mode": "light", "viewport": {"width": 320, "height": 640}, "rules": ("scrollable-region-focusable", "target-size")},
}
SCREENSHOT_IN_EVERY_SETTING = "lessons/03_backprop_by_hand.html"

# Run in a page once MathJax and course.js are done: what scrolls and what takes the keyboard's focus.
# A box that scrolls (sideways, or down) must be a Tab stop, or a keyboard cannot scroll it; an element
# that is a Tab stop only for its tabindex (no link, button or field) must scroll, or it is a stop for
# nothing.  A formula is never a Tab stop unless it is too wide for the column and scrolls.
TAB_STOPS = """
() => {
    const article = document.querySelector('article.bd-article');
    if (!article) return null;
    const SCROLLS = ['auto', 'scroll'];
    const INTERACTIVE = 'a[href], button, input, select, textarea, summary, iframe, [contenteditable]';
    const name = el => `<${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/)[0] : ''}> "${el.textContent.replace(/\\s+/g, ' ').trim().slice(0, 40)}"`;
    const found = {pageWidth: document.documentElement.scrollWidth, viewport: document.documentElement.clientWidth,
                   formulas: 0, formulaStops: [], unreachable: [], stopsForNothing: [], drawings: {scrolling: 0, still: 0}};
    for (const el of article.querySelectorAll('*')) {
        if (!el.getClientRects().length) continue;  // not shown (display: none, a closed disclosure's content)
        const style = getComputedStyle(el);
        // Scrolls by more than a pixel of rounding (must be a Tab stop), or by any amount (may be one,
        // as the theme makes its code blocks that scroll by a rounded pixel).
        const by = slack => (SCROLLS.includes(style.overflowX) && el.scrollWidth > el.clientWidth + slack)
                         || (SCROLLS.includes(style.overflowY) && el.scrollHeight > el.clientHeight + slack);
        const scrolls = by(1), scrollsAtAll = by(0);
        const stop = el.tabIndex >= 0;
        if (el.matches('mjx-container')) {
            found.formulas++;
            if (stop && !scrollsAtAll) {
                found.formulaStops.push(name(el));
                continue;
            }
        }
        if (el.matches('.micrograd-drawing')) found.drawings[scrolls ? 'scrolling' : 'still']++;
        if (scrolls && !stop) found.unreachable.push(`${name(el)}: ${el.clientWidth}×${el.clientHeight} px showing ${el.scrollWidth}×${el.scrollHeight}`);
        if (stop && !scrollsAtAll && !el.matches(INTERACTIVE)) found.stopsForNothing.push(name(el));
    }
    return found;
}
"""


def setting_problems(pages, *keys):
    return {name: [f"{key}: {item}" for key in keys for item in shown[key] or ()] for name, shown in pages.items()}


@pytest.mark.parametrize("setting", list(OTHER_SETTINGS))
def test_axe_finds_nothing_serious_in_every_setting(readings, setting):
    pages = readings[setting]
    painted = {name: dark(shown["background"]) for name, shown in pages.items()}  # every page wears the mode
    assert set(painted.values()) == {OTHER_SETTINGS[setting]["mode"] == "dark"}, f"the theme did not take the mode: {painted}"
    lessons = [name for name, shown in pages.items() if name.startswith("lessons/") and shown["axe"] is not None]
    assert len(lessons) == len(lesson_notebooks()), f"axe ran on {len(lessons)} lesson pages"
    problems = {name: found for name, found in setting_problems(pages, "axe", "problems").items() if found}
    assert not problems, "\n".join(f"{name}:\n  " + "\n  ".join(found) for name, found in problems.items())


def test_no_page_scrolls_sideways_at_320_px(readings):
    # Code and drawings may scroll in their own boxes; the page itself never makes a reader scroll
    # sideways to read a line (WCAG 1.4.10, reflow).
    wide = {name: f"{shown['tabs']['pageWidth']} px wide in a {shown['tabs']['viewport']} px window"
            for name, shown in readings["320px"].items()
            if shown["tabs"] and shown["tabs"]["pageWidth"] > shown["tabs"]["viewport"]}
    assert not wide, wide


@pytest.mark.parametrize("setting", list(OTHER_SETTINGS))
def test_formulas_are_not_tab_stops(readings, setting):
    # MathJax makes each formula a Tab stop unless told not to: lesson 3 has dozens of them before
    # its first exercise.  A display formula too wide for the column scrolls, and is one (see below).
    pages = {name: shown["tabs"] for name, shown in readings[setting].items() if shown["tabs"]}
    assert sum(tabs["formulas"] for tabs in pages.values()) > 100, "the site shows hardly any formulas: did MathJax run?"
    stops = {name: tabs["formulaStops"][:5] for name, tabs in pages.items() if tabs["formulaStops"]}
    assert not stops, "\n".join(f"{name}: {len(pages[name]['formulaStops'])} formulas are Tab stops, {found}" for name, found in stops.items())


@pytest.mark.parametrize("setting", list(OTHER_SETTINGS))
def test_a_box_is_a_tab_stop_exactly_when_it_scrolls(readings, setting):
    pages = {name: shown["tabs"] for name, shown in readings[setting].items() if shown["tabs"]}
    # The package makes every drawing's box a Tab stop, not knowing the column it lands in: at 1280 px
    # the drawings fit theirs, and their boxes must be none; at 320 px they scroll, and must be.
    drawings = {kind: sum(tabs["drawings"][kind] for tabs in pages.values()) for kind in ("scrolling", "still")}
    assert drawings["scrolling" if OTHER_SETTINGS[setting]["viewport"]["width"] < 400 else "still"] > 0, drawings
    problems = {name: [f"scrolls but takes no focus: {box}" for box in tabs["unreachable"][:5]]
                      + [f"a Tab stop with nothing to scroll: {box}" for box in tabs["stopsForNothing"][:5]]
                for name, tabs in pages.items()}
    problems = {name: found for name, found in problems.items() if found}
    assert not problems, "\n".join(f"{name}:\n  " + "\n  ".join(found) for name, found in problems.items())


def lesson_problems(expected, shown):
    found = []
    outputs = [image for image in shown["images"] if image["inOutput"]]
    svgs = [image for image in outputs if image["src"].endswith(".svg") or image["src"].startswith("data:image/svg+xml")]
    # a figure's PNG: a file myst-nb wrote, or a Picture's own <img> (with its alt text) as a data URL
    pngs = [image for image in outputs if image["src"].endswith(".png") or image["src"].startswith("data:image/png")]
    if len(svgs) + shown["inlineSvgs"] != expected["svg"]:
        found.append(f"{expected['svg']} SVG drawings stored, {len(svgs) + shown['inlineSvgs']} shown")
    if len(pngs) != expected["png"]:
        found.append(f"{expected['png']} PNG figures stored, {len(pngs)} shown")
    found += [f"drawing shown with no width: {image['src']}" for image in outputs if image["width"] == 0]
    # A graph drawing is shown at the size it was drawn (a wide one scrolls): shrunk, its labels become unreadable.
    found += [
        f"drawing shrunk to {image['width']:.0f} px of its {image['naturalWidth']} px: {image['src']}"
        for image in svgs if image["width"] < image["naturalWidth"] - 1 and not image["inWidget"]
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
# Each form of static picture a widget may carry, and what its page should show before the note.
WIDGET_PICTURES = {
    "svg-picture": ({"image/svg+xml": SVG}, 'src="_images/'),
    "html-picture": ({"text/html": f'<div class="stepper-picture">{SVG}</div>'}, '<div class="stepper-picture"><svg'),
    "no-picture": ({}, None),
}


@pytest.fixture(scope="module")
def widget_site(tmp_path_factory):
    # The site's own configuration (docs/conf.py) on notebooks made here, one page per
    # form of picture, so each is covered whatever the lessons hold; one Sphinx run for all.
    folder = tmp_path_factory.mktemp("widgets")
    source = folder / "source"
    source.mkdir()
    (source / "index.md").write_text("# Site\n\n```{toctree}\n" + "\n".join(WIDGET_PICTURES) + "\n```\n")
    for name, (picture, _) in WIDGET_PICTURES.items():
        nbformat.write(widget_notebook(picture), source / f"{name}.ipynb")
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-c", str(ROOT / "docs"), str(source), str(folder / "html")],
        capture_output=True, text=True, timeout=BUILD_SECONDS,
    )
    assert result.returncode == 0, result.stderr
    return folder / "html"


@pytest.mark.parametrize("name", list(WIDGET_PICTURES))
def test_a_widget_shows_its_static_picture_and_the_live_note(widget_site, name):
    shown = WIDGET_PICTURES[name][1]
    page = (widget_site / f"{name}.html").read_text()
    note = page.index('class="widget-note')
    if shown:
        assert shown in page and page.index(shown) < note  # the picture, then the note under it
    assert "Stepper(step 3 of 10)" not in page  # the repr is no picture
    assert f'type="{WIDGET_VIEW}"' not in page  # no view: nothing to render it without a kernel
    assert not re.search(r'<script[^>]+src="(https?:)?//', page), "a script from another host"


def test_axe_reports_every_element_whose_text_is_the_colour_of_its_background(browser):
    """axe leaves such text "to review", not failed; run_axe fails each one, not only the first (tests/axe.py)."""
    page = new_context(browser).new_page()
    try:
        page.set_content("<main><p style='color:#000;background:#fff'>read</p>"
                         + "".join(f"<p style='color:#777;background:#777'>unread {n}</p>" for n in range(3)) + "</main>")
        found = run_axe(page, include=["main"], rules=["color-contrast"])
    finally:
        page.context.close()
    assert [node["html"] for violation in blocking(found) for node in violation["nodes"]] == [
        f'<p style="color:#777;background:#777">unread {n}</p>' for n in range(3)]


def test_the_layout_measure_catches_each_problem(browser):
    """MEASURE_LAYOUT on a page made to fail, in the site's kind of column; and the same done right."""
    pixel = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
    wide = "<div style='width:900px;height:20px'>wide</div>"
    styled = ("<style>.styled::-webkit-scrollbar{height:10px}.styled::-webkit-scrollbar-thumb{background:#888}"
              ".clip{overflow:hidden;height:20px}</style>")
    context = new_context(browser)
    page = context.new_page()
    try:
        page.set_content(
            f"<body style='margin:0'>{styled}<article class='bd-article' style='width:700px;padding:0 10px'>"
            # wrong: a formula scrolling with a native (undrawn) scrollbar, a table past the column,
            # code cut off, a widget picture wider than the column (though in a styled box),
            # a stretched widget picture, a styled scrollbar clipped away
            f"<mjx-container display='true' style='display:block;overflow-x:auto'><mjx-math style='display:block;width:900px'>x</mjx-math></mjx-container>"
            f"<table><tr><td>{wide}</td></tr></table>"
            f"<pre style='overflow-x:hidden'>{'x' * 300}</pre>"
            "<div class='static-widget'><div class='styled' style='overflow-x:auto'><div class='micrograd-static'>"
            "<svg width='900' height='20'><text y='15'>plot</text></svg></div></div></div>"
            f"<div class='static-widget'><img src='{pixel}' style='width:100px'></div>"
            "<div class='clip'><div class='styled' style='overflow-x:auto'><svg width='900' height='20'></svg></div></div>"
            # right: a drawing in a styled scrolling box, also inside a box that scrolls down to its scrollbar,
            # a fitting widget picture
            "<div class='styled' style='overflow-y:auto;height:20px'><div class='styled' style='overflow-x:auto'>"
            "<svg width='900' height='40'></svg></div></div>"
            f"<div class='styled' style='overflow-x:auto'><svg width='900' height='20'></svg></div>"
            "<div class='static-widget'><div class='micrograd-static'><svg width='400' height='20'><text y='15'>fits</text></svg></div></div>"
            # wrong again: text too small to read in a fitting widget picture
            "<div class='static-widget'><div class='micrograd-static'><svg width='400' height='20'><text y='15' font-size='8'>tiny</text></svg></div></div>"
            "</article></body>"
        )
        found = page.evaluate(MEASURE_LAYOUT)
    finally:
        context.close()
    problems = found["problems"]
    assert found["column"] == 700
    expected = [
        "formula \"x\" shows 700 of its 900 px: no scrollbar is drawn",
        "<table> \"wide\" is 906 px wide and reaches 206 px past the 700 px column",  # 900 + cell padding
        "<pre> \"" + "x" * 40 + "\" shows 700 of its",
        "widget picture <svg> is 900 px wide, the column 700 px: it should fit",
        "widget picture <img> stretched to 100 px from its 1 px",
        "<svg> \"\" is 900 px wide in a 700 px column: its scrollbar is clipped",
        "widget picture <svg>: text \"tiny\" at 8.0 px",
    ]
    for text in expected:
        assert any(text in problem for problem in problems), f"{text!r} not found in {problems}"
    assert len(problems) == len(expected), problems
