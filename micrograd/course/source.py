"""Helpers the lessons use to open the package's own code next to the learner's.

``show_source(Value.__add__)`` shows the current source of a function, method
or class, read with ``inspect.getsource`` when the cell runs, so a lesson
always quotes the code that is actually installed, never a copy.
"""

import inspect
import textwrap

from ..palette import SOURCE_BACKGROUND, SOURCE_RULE, SOURCE_TEXT

__all__ = ["source_of", "show_source"]


def _where(obj):
    """'micrograd/engine.py · Value.__add__' for a package object."""
    target = inspect.unwrap(getattr(obj, "fget", None) or obj)
    module = inspect.getmodule(target)
    name = getattr(target, "__qualname__", getattr(target, "__name__", "?"))
    path = (module.__name__.replace(".", "/") + ".py") if module else "?"
    return f"{path} · {name}"


def source_of(obj):
    """The source text of obj (a property shows its getter), without common indentation."""
    target = getattr(obj, "fget", None) or obj
    return textwrap.dedent(inspect.getsource(inspect.unwrap(target))).rstrip() + "\n"


def _highlighted(text):
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:  # pragma: no cover - pygments comes with IPython
        import html

        return f"<pre>{html.escape(text)}</pre>"
    # Pygments' high-contrast style: every token at 6.8:1 or more on the light card it sits on.
    formatter = HtmlFormatter(noclasses=True, nobackground=True, style="a11y-high-contrast-light")
    return highlight(text, PythonLexer(), formatter)


def _resolve(name):
    """'Value._backward' or 'engine.topological_order' -> the object in the package, or None."""
    import importlib

    import micrograd

    first, *rest = name.split(".")
    obj = getattr(micrograd, first, None)
    if obj is None:
        try:
            obj = importlib.import_module(f"micrograd.{first}")
        except ImportError:
            return None
    for part in rest:
        obj = inspect.getattr_static(obj, part, None) if isinstance(obj, type) else getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _from_package(obj):
    target = inspect.unwrap(getattr(obj, "fget", None) or getattr(obj, "__func__", obj))
    module = getattr(inspect.getmodule(target), "__name__", "") or ""
    return module == "micrograd" or module.startswith("micrograd.")


def _part(obj):
    name = obj if isinstance(obj, str) else None
    foreign = name is None and not _from_package(obj)
    if foreign:
        # Not the package's: a class of the notebook's that took a package name (a learner's own Value, say).
        # The lesson means the package's, so that is what is shown, looked up by the same name.
        name = getattr(getattr(obj, "fget", None) or getattr(obj, "__func__", obj), "__qualname__", None)
        if name is None:
            return f"# {obj!r:.60}: not the package's code\n"
    if name is not None:
        obj = _resolve(name)
        if obj is None and foreign:
            return f"# {name}: code of this notebook's, not the package's\n"
        if obj is None:
            return f"# micrograd · {name}: not in this version of the package\n"
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    try:
        return f"# {_where(obj)}\n{source_of(obj)}"
    except (TypeError, OSError):
        return f"# {name or repr(obj)}: no Python source to show\n"


def show_source(*objects):
    """Show the package's source of each object, headed by where it lives.

    An object may be given as a name inside the package, "Value._backward",
    so a lesson still runs if a private helper is renamed.  An object from outside
    the package (a learner's class named Value, say) is looked up in the package by
    its name: the lesson means the package's code, never the notebook's.
    """
    parts = [_part(obj) for obj in objects]
    text = "\n".join(parts)
    try:
        from IPython import get_ipython
    except ImportError:
        get_ipython = None
    if get_ipython is None or get_ipython() is None:
        print(text, end="")
        return
    from IPython.display import display

    html = (
        '<div style="max-height:32em;overflow:auto;font-size:13px;border-left:3px solid ' + SOURCE_RULE + ';padding-left:6px;'
        f'background:{SOURCE_BACKGROUND};color:{SOURCE_TEXT}">'
        + _highlighted(text)
        + "</div>"
    )
    display({"text/plain": text, "text/html": html}, raw=True)
