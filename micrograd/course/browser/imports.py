"""What ``import`` does in the course's browser app for the packages it lacks.

numpy, scikit-learn and scipy have no WebAssembly wheels the app can ship.  Importing one
raises :class:`NotInThisBrowser`, a ``ModuleNotFoundError`` that IPython shows as one line
(``_render_traceback_``) saying what is missing and where the lesson runs, instead of a
traceback.  matplotlib is missing too, but the lessons' figure cells should run to their end:
``import matplotlib.pyplot`` (and ``matplotlib.colors``) gives the stand-in of ``pyplot``,
and any other part of matplotlib the one-line error.

A package that is there after all (an app built with a full Pyodide distribution, which loads
a package the first time a cell imports it) is imported as usual: the finder steps aside
whenever another finder finds the module.
"""

import importlib.abc
import importlib.machinery
import sys

__all__ = ["MISSING", "NotInThisBrowser", "MissingPackages", "install", "uninstall"]

# The import names the app lacks, and the names a learner installs them by.
MISSING = {"numpy": "numpy", "sklearn": "scikit-learn", "scipy": "scipy", "matplotlib": "matplotlib"}


class NotInThisBrowser(ModuleNotFoundError):
    """A package this browser app does not have; IPython shows the message alone, as one line.

    ``page_url``: the lesson's page on the course site, which shows the cell's stored outputs.
    """

    def __init__(self, name, page_url=None):
        package = MISSING.get(name.split(".")[0], name.split(".")[0])
        site = f"; the course site shows what it prints: {page_url}" if page_url else ""
        super().__init__(
            f"This browser app has no {package}, so this cell cannot run here: the lesson runs in full "
            f"in JupyterLab (`make lab`), or in a JupyterLite app built with a full Pyodide distribution{site}.",
            name=name,
        )

    def _render_traceback_(self):
        return [f"{type(self).__name__}: {self.msg}"]


class MissingPackages(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The finder that answers for the missing packages; ``stand_ins``: {module name: module} it imports instead."""

    def __init__(self, stand_ins=None):
        self.stand_ins = dict(stand_ins or {})
        self.page_url = None  # the running lesson's page on the course site, for the one line

    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top not in MISSING or self._found_elsewhere(name, path, target):
            return None
        if name in self.stand_ins:
            return importlib.machinery.ModuleSpec(name, self, is_package=name == top)
        raise NotInThisBrowser(name, self.page_url)

    def _found_elsewhere(self, name, path, target):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            try:
                if finder.find_spec(name, path, target) is not None:
                    return True
            except ImportError:  # a finder that refuses the name finds nothing
                continue
        return False

    def create_module(self, spec):
        return self.stand_ins[spec.name]

    def exec_module(self, module):
        pass  # made whole by pyplot


def install(stand_ins=None):
    """Put a MissingPackages finder first on ``sys.meta_path`` (once) and return it."""
    for finder in sys.meta_path:
        if isinstance(finder, MissingPackages):
            finder.stand_ins.update(stand_ins or {})
            return finder
    finder = MissingPackages(stand_ins)
    sys.meta_path.insert(0, finder)
    return finder


def uninstall():
    """Take the finder off ``sys.meta_path`` and forget the stand-ins imported through it."""
    for finder in [f for f in sys.meta_path if isinstance(f, MissingPackages)]:
        sys.meta_path.remove(finder)
        for name in finder.stand_ins:
            if sys.modules.get(name) is finder.stand_ins[name]:
                del sys.modules[name]
