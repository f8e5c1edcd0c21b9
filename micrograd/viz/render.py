"""DOT text to a picture, by whichever Graphviz is here: the one place that picks it.

In order:

1. ``pygraphviz`` in this process: its wheels (Linux x86_64 and aarch64, macOS arm64,
   Windows) bundle Graphviz's libraries and its dot layout, so ``pip install`` is all a learner
   needs, and rendering in the process takes about a millisecond where starting ``dot`` takes
   ten or more: the steppers redraw on every step.
2. Graphviz in WebAssembly (``wasm``, viz.js), under Pyodide (``sys.platform ==
   "emscripten"``): the course in the browser, where no program can start.
3. The system's ``dot`` program, run through the ``graphviz`` package (macOS on Intel, say).
4. None: a drawing then shows how to install one, with its DOT text (see ``drawing``).

The DOT text is the same whichever draws it; only the renderer differs.

``MICROGRAD_GRAPHVIZ=dot`` in the environment makes drawings use the system's ``dot`` even
where pygraphviz is installed (the tests compare the two that way);
``MICROGRAD_GRAPHVIZ=pygraphviz`` insists on the bundled one.  Either way the font is pinned
(see ``fonts``).
"""

import contextlib
import functools
import os
import sys

import graphviz

from . import wasm
from .fonts import pinned_fonts

__all__ = [
    "CHOICE_VARIABLE",
    "INSTALL_ADVICE",
    "GraphvizNotFound",
    "renderer",
    "renders_in_process",
    "in_process",
    "graphviz_in_process",
    "render_in_process",
    "renderer_name",
]

INSTALL_ADVICE = (
    "Neither pygraphviz nor Graphviz's `dot` program is installed, so this graph "
    "cannot be drawn as a picture. Install one of them:\n"
    "    pip install pygraphviz                        (wheels with Graphviz inside: Linux, macOS arm64, Windows)\n"
    "    apt-get install graphviz                      (Debian, Ubuntu)\n"
    "    conda install -c conda-forge python-graphviz  (conda)\n"
    "    brew install graphviz                         (macOS)\n"
    "then restart the kernel. Meanwhile micrograd.viz.text_graph(root) shows the graph as text."
)


class GraphvizNotFound(graphviz.ExecutableNotFound):
    """No Graphviz can draw here (or not yet, in the browser); the message says what to do."""

    def __init__(self, advice=INSTALL_ADVICE):
        RuntimeError.__init__(self, advice)

CHOICE_VARIABLE = "MICROGRAD_GRAPHVIZ"
_CHOICES = ("dot", "pygraphviz")
PYGRAPHVIZ, WASM, DOT = "pygraphviz", "wasm", "dot"


def _choice():
    choice = os.environ.get(CHOICE_VARIABLE, "")
    if choice and choice not in _CHOICES:
        raise ValueError(
            f"{CHOICE_VARIABLE} is 'pygraphviz' (render in this process, the default when installed) "
            f"or 'dot' (run the system's Graphviz program); got {choice!r}"
        )
    return choice


@functools.cache
def _pygraphviz():
    try:
        import pygraphviz
    except (ImportError, OSError):  # OSError: a wheel whose libraries cannot be loaded here
        return None
    return pygraphviz


def in_process():
    """The pygraphviz module when drawings render in this process, else None (the system's ``dot`` then)."""
    choice = _choice()
    if choice == "dot":
        return None
    module = _pygraphviz()
    if module is None and choice == "pygraphviz":
        raise ImportError(
            f"{CHOICE_VARIABLE}=pygraphviz, but pygraphviz cannot be imported: pip install pygraphviz "
            f"(or unset {CHOICE_VARIABLE} to use the system's dot program)"
        )
    return module


def renderer():
    """Which Graphviz draws here: ``"pygraphviz"`` (in this process), ``"wasm"`` (Graphviz in
    WebAssembly, under Pyodide) or ``"dot"`` (the system's program, which may be missing too)."""
    if in_process() is not None:
        return PYGRAPHVIZ
    if _choice() != "dot" and wasm.available():
        return WASM
    return DOT


def renders_in_process():
    """Whether drawings render without starting a program (pygraphviz, or Graphviz in WebAssembly)."""
    return renderer() != DOT


def render_in_process(source, format, engine="dot"):
    """``source`` (DOT text) laid out by ``engine`` and rendered to ``format``, as bytes, with the pinned font.

    Raises :class:`GraphvizNotFound` when Graphviz in WebAssembly cannot draw (yet), saying why.
    """
    if renderer() == WASM:
        try:
            return wasm.render(source, format, engine).encode("utf-8")
        except wasm.NotReady as error:
            raise GraphvizNotFound(str(error)) from error
    with graphviz_in_process() as module:
        return module.AGraph(string=source).draw(format=format, prog=engine)


@contextlib.contextmanager
def graphviz_in_process():
    """pygraphviz, for laying out and rendering with the pinned font while the block runs."""
    module = in_process()
    with pinned_fonts():
        _load_fonts(module)
        yield module


@functools.cache
def _load_fonts(module):
    """Load fontconfig's configuration with the process's stderr silenced, once.

    The bundled fontconfig also reads the system's configuration templates
    (``/usr/share/fontconfig/conf.avail``), which a newer system fontconfig
    writes with elements it does not know, and warns about each on stderr,
    where a notebook would show the warning under the first drawing.
    Drawing a one-node graph loads the configuration (and the font) for good.
    """
    with _stderr_silenced():
        module.AGraph(string='digraph { a [label="a"] }').draw(format="svg", prog="dot")


@contextlib.contextmanager
def _stderr_silenced():
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def renderer_name():
    """Which Graphviz draws here, for messages and the tests: ``'pygraphviz <version> (Graphviz <version>)'``,
    ``'Graphviz in WebAssembly (viz.js)'`` or ``'dot'``."""
    name = renderer()
    if name == WASM:
        return "Graphviz in WebAssembly (viz.js)"
    if name == DOT:
        return "dot"
    module = in_process()
    graphviz_version = getattr(module, "__graphviz_version__", None)  # pygraphviz 2 says which Graphviz it holds
    return f"pygraphviz {module.__version__}" + (f" (Graphviz {graphviz_version})" if graphviz_version else "")
