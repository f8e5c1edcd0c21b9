"""A "Run in your browser" link at the top of every lesson page, to that lesson in the browser app.

``make site`` builds the browser app (docs/build_lite.py) into the site's ``lite/`` folder, with
the lessons at the root of its file browser, so a lesson page at ``lessons/NN_name.html`` links to
``../lite/lab/index.html?path=NN_name.ipynb``.  Solutions are not in the app and get no link.
"""

import re
from html import escape

from docutils import nodes

APP = "lite/lab/index.html"
LESSON = re.compile(r"^lessons/(\d\d_[^/]+)$")
# What the browser app lacks, per lesson: the link says it here, and the app's copy of the
# lesson says it in its first cell (docs/build_lite.py).  numpy, matplotlib and scikit-learn
# have no WebAssembly wheels on PyPI or npm.
NEEDS_NUMPY = {
    "07_classifier": "scikit-learn's two moons and numpy",
    "08_real_data": "numpy and scikit-learn's digits",
    "09_debugging_autograd": "numpy",
    "10_memory_and_speed": "numpy and scikit-learn",
}
FIGURES_NEED_MATPLOTLIB = {"01_derivatives", "05_neurons_and_mlps", "06_training_loop", "11_gpt"}


def link_html(lesson):
    if lesson in NEEDS_NUMPY:
        note = f"it needs {NEEDS_NUMPY[lesson]}, which the browser app lacks: it opens there, but runs in JupyterLab"
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
