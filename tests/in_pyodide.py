"""Python under real Pyodide in Node, as the browser app's kernel runs it: the helpers the Pyodide tests share.

``node_modules/pyodide`` (the version package.json pins) runs a program of ``tests/pyodide/``, with this
package and the pure-Python packages the app's kernel has (copied from this environment into a folder the
program finds at /packages), and Graphviz in WebAssembly from ``node_modules/@viz-js/viz``.
"""

import importlib.metadata
import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NODE_MODULES = REPO / "node_modules"
RUNNER = REPO / "tests" / "pyodide" / "run.mjs"
SERVER = REPO / "tests" / "pyodide" / "serve.mjs"
# Where the kernel's worker would be: the course resolves its URLs (viz.js, the site) against it.
LOCATION = (NODE_MODULES / "pyodide" / "worker.js").as_uri()

# What the course imports beyond the standard library and this package, as the app's wheels give it:
# graphviz (drawing.py imports it), ipywidgets and its own needs, IPython for the kernel's shell, and
# a11y_pygments, whose high-contrast style show_source finds through its package's entry point.
PACKAGES = (
    "graphviz", "ipywidgets", "comm", "traitlets", "IPython", "ipython_pygments_lexers", "jedi",
    "parso", "pexpect", "ptyprocess", "prompt_toolkit", "pygments", "stack_data", "asttokens", "executing",
    "pure_eval", "wcwidth", "typing_extensions", "a11y_pygments",
)


def node():
    """The path of Node.js, once the npm packages run under it are there; else the test fails, saying what to do."""
    found = shutil.which("node")
    needed = (NODE_MODULES / "pyodide", NODE_MODULES / "@viz-js" / "viz")
    missing = [str(path.relative_to(REPO)) for path in needed if not path.is_dir()]
    if found is None or missing:
        pytest.fail(
            "the Pyodide tests need Node.js (20 or newer) and the npm packages package.json pins: "
            + ("install Node.js, then " if found is None else f"{', '.join(missing)} missing: ")
            + f"run `npm ci` in {REPO} (make setup does)",
            pytrace=False,
        )
    return found


def copy_packages(into):
    """This package and PACKAGES, each with its distribution's metadata (entry points), into the folder ``into``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO / "micrograd", into / "micrograd", ignore=ignore)
    distributions = importlib.metadata.packages_distributions()
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None:
            pytest.fail(f"{name} is not installed in this environment: run make setup", pytrace=False)
        origin = Path(spec.origin)
        if origin.name == "__init__.py":
            shutil.copytree(origin.parent, into / name, ignore=ignore)
        else:
            shutil.copy(origin, into / origin.name)
        for distribution in distributions.get(name, ()):
            metadata = _metadata_folder(importlib.metadata.distribution(distribution))
            if metadata is not None and not (into / metadata.name).exists():
                shutil.copytree(metadata, into / metadata.name)


def remove_copied_packages(into):
    """The copy that copy_packages made, removed once its tests are done: its 8,000 files, left in pytest's temporary
    folder, took seconds at the end of a later run (pytest removes the folders of older runs as a run ends)."""
    shutil.rmtree(into, ignore_errors=True)


def _metadata_folder(distribution):
    """The .dist-info folder of an installed distribution, or None (one without a file list)."""
    for file in distribution.files or ():
        if file.parent.name.endswith(".dist-info"):
            return Path(distribution.locate_file(file.parent))
    return None


def run_under_pyodide(packages, program, timeout=120):
    """Run ``program`` (a file) under Pyodide with ``packages`` at /packages; the finished process."""
    return subprocess.run([node(), str(RUNNER), str(packages), str(program), LOCATION],
                          capture_output=True, text=True, timeout=timeout, cwd=REPO)
