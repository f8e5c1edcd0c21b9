"""A "Run in your browser" link at the top of every lesson page, to that lesson in the browser app.

``make site`` builds the browser app (browser_app/build_app.py) into the site's ``lite/`` folder, with
the lessons at the root of its file browser, so a lesson page at ``lessons/NN_name.html`` links to
``../lite/lab/index.html?path=NN_name.ipynb``; the app's notes link back to that page
(``lesson_page``).  Solutions are not in the app and get no link.
"""

import re
from html import escape

from docutils import nodes

from micrograd.course.browser.lessons import STOPS_IN_THE_APP  # what the app's build and kernel use too

APP = "lite/lab/index.html"
LESSON = re.compile(r"^lessons/(\d\d_[^/]+)$")
# The lessons with matplotlib figures: numpy and matplotlib have no WebAssembly wheels on PyPI or npm,
# so in the app each figure cell (and the training stepper, in place of its figure) says so in one line.
FIGURES_NEED_MATPLOTLIB = {
    "01_derivatives", "05_neurons_and_mlps", "06_training_loop", "07_classifier", "08_real_data",
    "09_debugging_autograd", "10_memory_and_speed", "11_gpt",
}


def link_html(lesson):
    if lesson in STOPS_IN_THE_APP:
        note = f"{STOPS_IN_THE_APP[lesson]}: it opens there, but runs in full in JupyterLab"
    elif lesson in FIGURES_NEED_MATPLOTLIB:
        note = "everything but its matplotlib figures runs there"
    else:
        note = "nothing to install: Python runs in the page"
    href = f"../{APP}?path={lesson}.ipynb"
    return (
        f'<p class="run-in-browser"><a class="reference external" href="{escape(href)}">'
        f"Run in your browser</a> <span>({escape(note)})</span></p>"
    )


def add_link(app, doctree, docname):
    match = LESSON.match(docname)
    if not match:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        return
    title = next(iter(section.findall(nodes.title)), None)
    place = section.index(title) + 1 if title is not None else 0
    section.insert(place, nodes.raw("", link_html(match.group(1)), format="html"))


def setup(app):
    app.connect("doctree-resolved", add_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
