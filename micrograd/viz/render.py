"""DOT text to a picture: in this process with the Graphviz that pip installs, else with the system's ``dot``.

``pygraphviz``'s wheels (Linux x86_64 and aarch64, macOS arm64, Windows)
bundle Graphviz's libraries and its dot layout, so ``pip install`` is all a
learner needs, and rendering in the process takes about a millisecond where
starting ``dot`` takes ten or more: the steppers redraw on every step.
Where no wheel exists (macOS on Intel, say) the system's ``dot`` program,
run through the ``graphviz`` package, is the fallback.

``MICROGRAD_GRAPHVIZ=dot`` in the environment makes drawings use the
system's ``dot`` even where pygraphviz is installed (the tests compare the
two that way); ``MICROGRAD_GRAPHVIZ=pygraphviz`` insists on the bundled one.
Either way the font is pinned (see ``fonts``).
"""

import contextlib
import functools
import os
import sys

from .fonts import pinned_fonts

__all__ = ["CHOICE_VARIABLE", "in_process", "graphviz_in_process", "render_in_process", "renderer_name"]

CHOICE_VARIABLE = "MICROGRAD_GRAPHVIZ"
_CHOICES = ("dot", "pygraphviz")


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


def render_in_process(source, format):
    """``source`` (DOT text) laid out by dot and rendered to ``format``, as bytes, with the pinned font."""
    with graphviz_in_process() as module:
        return module.AGraph(string=source).draw(format=format, prog="dot")


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
    """Which Graphviz draws here, for messages and the tests: ``'pygraphviz <version>'`` or ``'dot'``."""
    module = in_process()
    if module is None:
        return "dot"
    graphviz_version = getattr(module, "__graphviz_version__", None)  # pygraphviz 2 says which Graphviz it holds
    return f"pygraphviz {module.__version__}" + (f" (Graphviz {graphviz_version})" if graphviz_version else "")
