"""The app's Pyodide, and the Python it runs, read once from package-lock.json (npm's pin of ``pyodide``).

Every other place that needs either (the build, the wheels' resolution in ``make lock``, the
kernel's site-packages path, the tests) reads it from here.  Pyodide numbers its releases by the
Python they run: Pyodide 314.x.y is CPython 3.14 (315.x.y, 3.15), so the Python's version needs
no second pin.  The build also checks it against the ``info.python`` of npm's ``pyodide-lock.json``.

    python browser_app/pyodide_version.py            prints Pyodide's version (314.0.6)
    python browser_app/pyodide_version.py --python   prints its Python's (3.14)
"""

import json
import re
import sys
from pathlib import Path

__all__ = ["NPM_LOCK", "PYODIDE_VERSION", "PYTHON_VERSION", "SITE_PACKAGES", "pyodide_version", "python_version"]

NPM_LOCK = Path(__file__).resolve().parent.parent / "package-lock.json"


def pyodide_version(npm_lock=NPM_LOCK):
    """The version of npm's ``pyodide`` that ``npm_lock`` (a package-lock.json) pins."""
    try:
        return json.loads(Path(npm_lock).read_text(encoding="utf-8"))["packages"]["node_modules/pyodide"]["version"]
    except KeyError:
        raise SystemExit(f"{npm_lock} pins no pyodide: add it to package.json and run `npm install --package-lock-only`")


def python_version(pyodide):
    """The Python (major.minor) a Pyodide version runs: '314.0.6' -> '3.14'."""
    match = re.fullmatch(r"(\d)(\d+)\.\d+\.\d+(?:[a-z]+\d+)?", pyodide)
    if not match:
        raise ValueError(f"Pyodide {pyodide!r} is not numbered by its Python (such as 314.0.6, Python 3.14): "
                         "pin a Pyodide 314.0.0 or newer in package.json")
    return f"{match.group(1)}.{match.group(2)}"


PYODIDE_VERSION = pyodide_version()
PYTHON_VERSION = python_version(PYODIDE_VERSION)
SITE_PACKAGES = f"/lib/python{PYTHON_VERSION}/site-packages"  # where Pyodide installs the wheels a kernel loads


if __name__ == "__main__":
    print(PYTHON_VERSION if sys.argv[1:] == ["--python"] else PYODIDE_VERSION)
