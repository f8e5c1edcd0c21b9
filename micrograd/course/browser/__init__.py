"""The course in the browser: the IPython extension the JupyterLite app's kernel loads at start.

The app's IPython profile says ``c.InteractiveShellApp.extensions = ["micrograd.course.browser"]``,
so ``load_ipython_extension(shell)`` runs in the Pyodide kernel before the first cell.  It

- starts loading Graphviz in WebAssembly (``micrograd.viz.wasm``) from ``MICROGRAD_GRAPHVIZ_URL``,
  a URL relative to the kernel worker's own ``location.href``, so the build can put viz.js
  anywhere;
- where matplotlib is missing: makes the lessons' first lines (``%matplotlib inline``,
  ``%config InlineBackend.figure_formats = ["retina"]``) run quietly, and ``import
  matplotlib.pyplot as plt`` give a stand-in (``pyplot``) whose figure cells print one
  line each, saying what the figure needs and that the course site shows it, on the page of the
  lesson being run (the site is at ``MICROGRAD_SITE_URL``, relative to the worker's location too;
  the lesson is told by the cell being run, ``lessons``); the package's ``loss_curve``
  and ``attention_heatmaps``, and the training stepper in place of its figure, show that line too;
- makes ``import numpy`` (scikit-learn, scipy) fail with one line saying where the lesson runs,
  the lesson's page on the site included (``imports``);
- has a graph of Values freed one node at a time (``freeing``), so that dropping one as
  deep as lesson 10's chain of 100 000 does not overflow the browser's stack.

None of this happens anywhere else: on CPython in JupyterLab nothing loads this extension.
"""

import importlib.util
import os
import sys

from traitlets import List
from traitlets.config import Configurable

from micrograd.viz import picture, wasm
from . import freeing, imports, pyplot
from .lessons import Lessons, running_cell_id

__all__ = [
    "GRAPHVIZ_URL_VARIABLE",
    "SITE_URL_VARIABLE",
    "InlineBackend",
    "figure_note",
    "load_ipython_extension",
    "resolve",
    "unload_ipython_extension",
]

GRAPHVIZ_URL_VARIABLE = "MICROGRAD_GRAPHVIZ_URL"
SITE_URL_VARIABLE = "MICROGRAD_SITE_URL"


class InlineBackend(Configurable):
    """Stands in for matplotlib-inline's settings, so that ``%config InlineBackend.figure_formats = [...]`` runs."""

    figure_formats = List(["png"], help="Kept, and unused: there is no matplotlib to draw figures in this app.").tag(
        config=True
    )


def resolve(relative):
    """``relative`` as an absolute URL, against the location of this kernel's worker (JavaScript's ``URL``)."""
    from pyodide.code import run_js

    return run_js("(relative) => new URL(relative, globalThis.location.href).href")(relative)


def figure_note(site_url=None):
    """The one line a figure cell prints in this app."""
    where = f"the course site shows it: {site_url}" if site_url else "the course site shows it"
    return (
        "This figure needs matplotlib, which this browser app does not have; "
        f"{where} (or run the lesson in JupyterLab, `make lab`)."
    )


def _url(variable):
    relative = os.environ.get(variable)
    return resolve(relative) if relative else None


_loaded = {}  # what load_ipython_extension set up, for unload_ipython_extension


def _start_graphviz():
    if not wasm.available():
        return
    url = _url(GRAPHVIZ_URL_VARIABLE)
    if url is not None:
        wasm.start_loading(url)


def _matplotlib_missing():
    try:
        return importlib.util.find_spec("matplotlib") is None
    except (ImportError, ValueError):
        return True


def _quiet_matplotlib_magic(line=""):
    """%matplotlib: nothing to set up in this app, which has no matplotlib (its figure cells say so)."""


def load_ipython_extension(shell):
    """Set the kernel up for the lessons (see the module docstring)."""
    if _loaded:
        return
    _start_graphviz()
    site_url = _url(SITE_URL_VARIABLE) if wasm.available() else os.environ.get(SITE_URL_VARIABLE)
    lessons = Lessons.from_environment(site_url)
    stand_ins = {}
    if _matplotlib_missing():
        figures = pyplot.Figures(figure_note(lessons.page_url()))
        stand_ins = pyplot.make_modules(figures)
        backend = InlineBackend(parent=shell)
        shell.configurables.append(backend)
        _loaded["matplotlib_magic"] = shell.magics_manager.magics["line"].get("matplotlib")
        shell.register_magic_function(_quiet_matplotlib_magic, "line", "matplotlib")
        shell.events.register("post_run_cell", _end_of_cell)
        picture.note_when_missing(figures.note)
        _loaded.update(figures=figures, backend=backend)
    finder = imports.install(stand_ins)
    finder.page_url = lessons.page_url()
    shell.events.register("pre_run_cell", _before_cell)
    freeing.install()
    _loaded.update(shell=shell, lessons=lessons, finder=finder)


def _before_cell(info=None):
    """Every note of this app links to the page of the lesson being run: learn it from the cell about to run."""
    lessons = _loaded["lessons"]
    before = lessons.page_url()
    lessons.cell_ran(running_cell_id(_loaded["shell"], info))
    page_url = lessons.page_url()
    if page_url == before:
        return
    _loaded["finder"].page_url = page_url
    figures = _loaded.get("figures")
    if figures is not None:
        figures.note = figure_note(page_url)
        picture.note_when_missing(figures.note)


def _end_of_cell(result=None):
    figures = _loaded.get("figures")
    if figures is not None:
        figures.end_of_cell()


def unload_ipython_extension(shell):
    """Undo what loading did, but for Graphviz in WebAssembly, which stays loaded."""
    imports.uninstall()
    freeing.uninstall()
    if "lessons" in _loaded:
        shell.events.unregister("pre_run_cell", _before_cell)
    if "figures" in _loaded:
        shell.events.unregister("post_run_cell", _end_of_cell)
        shell.configurables.remove(_loaded["backend"])
        if _loaded.get("matplotlib_magic") is not None:
            shell.magics_manager.magics["line"]["matplotlib"] = _loaded["matplotlib_magic"]
        else:
            shell.magics_manager.magics["line"].pop("matplotlib", None)
        picture.note_when_missing(None)
    _loaded.clear()
    for name in ("matplotlib.pyplot", "matplotlib"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None) is None:
            del sys.modules[name]
