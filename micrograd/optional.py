"""Importing the third-party packages that only some parts of micrograd need.

The engine and nn use the standard library alone; drawings, widgets and the
datasets import what they need through ``require`` so that a missing package
says which feature wanted it and how to install it.
"""

import importlib
import sys

__all__ = ["NotInThisApp", "require"]


class NotInThisApp(ImportError):
    """A package the browser app (Pyodide) has no build of: IPython shows the advice alone, as one line."""

    def _render_traceback_(self):
        return [f"{type(self).__name__}: {self.msg}"]


def require(module, feature, extra):
    """Import ``module``, or raise ImportError saying how to get it.

    ``feature`` names what needs it (``"micrograd.widgets"``), ``extra`` the
    optional-dependency group of this package that installs it.  Under Pyodide
    (the course in the browser) pip is not the answer: the advice is where the
    feature runs.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        package = {"sklearn": "scikit-learn", "PIL": "pillow"}.get(module.split(".")[0], module.split(".")[0])
        if sys.platform == "emscripten":  # the import's own one-line error would only repeat it: not chained
            raise NotInThisApp(
                f"{feature} needs {package} (could not import {module!r}), which this browser app does not have: "
                "run this lesson in JupyterLab (`make lab`), or in a JupyterLite app built with a full "
                "Pyodide distribution"
            ) from None
        raise ImportError(
            f"{feature} needs {package} (could not import {module!r}): run `pip install {package}`, "
            f"or install micrograd with the {extra} extra: `pip install 'micrograd-lessons[{extra}]'`"
        ) from error
