"""Graphviz in WebAssembly (viz.js): what draws the graphs under Pyodide, where no program can start.

``start_loading(url)`` starts a JavaScript ``import(url)`` of viz.js's ES module
(``@viz-js/viz/dist/viz.js``) and keeps the ``Viz`` its ``instance()`` resolves to;
``ready()`` says whether it is there.  The course's browser app starts it when its kernel
starts (``micrograd.course.browser``).  Drawings are made in synchronous code (a notebook's
``_repr_svg_``, a widget's click), so ``render`` uses the instance synchronously.  If it is
not there yet, ``render`` waits for it where the runtime can block on a promise
(``pyodide.ffi.can_run_sync()``: JavaScript Promise Integration), and otherwise raises
:class:`NotReady` saying that Graphviz is still loading in this tab and to run the cell again.

Graphviz in WebAssembly has no fonts to measure text with: it estimates each text's width
from metrics it has built in for a list of known font families.  The drawings name a list of
families (``"DejaVu Sans,Helvetica,Arial,sans-serif"``, so that a browser without DejaVu Sans
falls back to a font like it), which as a whole is no family Graphviz knows, so it fell back
to Times' metrics, a fifth narrower than DejaVu Sans: boxes too small for their text and edge
labels laid out on top of each other.  ``layout_text`` gives Graphviz the first family of each
list, whose metrics it knows (within a pixel of what the real DejaVu Sans measures under
CPython), and ``render`` puts the whole list back into the SVG, for the browser.

Nothing here imports ``js`` or ``pyodide`` until it runs under Pyodide.
"""

import re
import sys

__all__ = ["NotReady", "available", "start_loading", "loading_started", "ready", "loaded", "render", "layout_text", "FORMATS"]

# What viz.js renders to that a drawing asks for: the picture, and Graphviz's layout as data.
FORMATS = ("svg", "json", "dot")

# A fontname that lists several families (DOT attributes and HTML-like labels' FONT FACE).
_FONT_LIST = re.compile(r'\b(fontname|FACE)="([^",]+)((?:,[^",]*)+)"')
_SVG_FAMILY = re.compile(r'font-family="([^"]*)"')

# The JavaScript that loads viz.js: the state object it returns is what Python keeps.  A failed
# load is kept as text and told when a drawing asks, not left as an unhandled rejection.
_LOADER = """(url) => {
  const state = { viz: null, error: null };
  state.promise = import(url)
    .then((module) => module.instance())
    .then(
      (viz) => { state.viz = viz; return viz; },
      (error) => { state.error = String((error && error.message) || error); throw error; },
    );
  state.promise.catch(() => {});
  state.render = (dot, format, engine) => state.viz.renderString(dot, { format, engine });
  return state;
}"""

_loading = None  # (url, the JavaScript state object) once start_loading ran


class NotReady(RuntimeError):
    """Graphviz in WebAssembly cannot draw yet (still loading) or at all here (not started, failed)."""


def available():
    """Is this Pyodide (``sys.platform == "emscripten"``), where Graphviz in WebAssembly is the renderer?"""
    return sys.platform == "emscripten"


def start_loading(url):
    """Start loading viz.js's ES module from ``url`` (absolute, as JavaScript's ``import()`` takes it).

    Returns at once; the instance arrives when the module is loaded.  Calling it again with
    the same URL does nothing; with another URL, starts over from that one.
    """
    global _loading
    if not available():
        raise RuntimeError(
            "Graphviz in WebAssembly is for Pyodide (sys.platform 'emscripten'); "
            f"this is {sys.platform}, where drawings use pygraphviz or the dot program"
        )
    if not isinstance(url, str) or not url:
        raise TypeError(f"start_loading takes the URL of viz.js's ES module as a string, got {url!r}")
    if _loading is not None and _loading[0] == url:
        return
    from pyodide.code import run_js

    _loading = (url, run_js(_LOADER)(url))


def loading_started():
    """The URL start_loading was given, or None if it has not run in this kernel."""
    return None if _loading is None else _loading[0]


def ready():
    """Has viz.js loaded, so that ``render`` draws at once?"""
    return _loading is not None and bool(_loading[1].viz)


def loaded():
    """An awaitable that resolves once viz.js has loaded (``await micrograd.viz.wasm.loaded()`` in a cell)."""
    if _loading is None:
        _state()  # raises NotReady: not started
    return _loading[1].promise


def _state():
    """The loaded viz.js state, waiting for it where the runtime allows; else NotReady saying why."""
    if _loading is None:
        raise NotReady(
            "Graphviz in WebAssembly was not started in this kernel, so this graph cannot be drawn as a "
            "picture: micrograd.viz.wasm.start_loading(url of @viz-js/viz/dist/viz.js) starts it "
            "(the course's browser app does when its kernel starts). "
            "Meanwhile micrograd.viz.text_graph(root) shows the graph as text."
        )
    url, state = _loading
    if not state.viz and not state.error:
        from pyodide import ffi

        if getattr(ffi, "can_run_sync", lambda: False)():
            try:
                ffi.run_sync(state.promise)
            except Exception:  # the rejection is kept in state.error, told below
                pass
    if state.error:
        raise NotReady(f"Graphviz in WebAssembly could not be loaded from {url}: {state.error}")
    if not state.viz:
        raise NotReady(
            "Graphviz (in WebAssembly) is still loading in this tab: run the cell again in a moment "
            "to see the drawing."
        )
    return state


def layout_text(source):
    """``source`` with each list of font families cut to its first, the one Graphviz's metrics are for."""
    return _FONT_LIST.sub(lambda m: f'{m.group(1)}="{m.group(2)}"', source)


def _families(source):
    """{first family: the whole list} of every list of families in ``source``."""
    return {m.group(2): m.group(2) + m.group(3) for m in _FONT_LIST.finditer(source)}


def render(source, format="svg", engine="dot"):
    """``source`` (DOT text) laid out by ``engine`` (``"dot"``, or ``"nop2"`` at given positions)
    and rendered to ``format`` (one of ``FORMATS``), as text."""
    if format not in FORMATS:
        raise ValueError(
            f"Graphviz in WebAssembly draws {', '.join(FORMATS)}, not {format!r}: "
            "save a drawing as .svg (or its DOT text as .dot) in the browser"
        )
    state = _state()
    try:
        out = state.render(layout_text(source), format, engine)
    except Exception as error:  # a JavaScript Error from Graphviz: the DOT text was refused
        raise ValueError(f"Graphviz in WebAssembly refused the graph: {error}") from error
    if format == "svg":
        families = _families(source)
        out = _SVG_FAMILY.sub(lambda m: f'font-family="{families.get(m.group(1), m.group(1))}"', out)
    return out
