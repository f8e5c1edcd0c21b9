"""Bytecode for the browser app's Python, compiled ahead of time by that same Python, for what its kernels import.

npm's Pyodide ships its standard library as source only, and the wheels of PyPI hold
source only: each time a kernel starts, the browser would compile every module it imports
(some 400: IPython, the kernel, the course) before it runs one line of them.  So the
build compiles them once, with the app's own Python (Pyodide run in Node by
compile_bytecode.mjs: bytecode is only good for the Python that wrote it),
and adds the bytecode to each wheel (``__pycache__/*.cpython-XY.pyc``, XY its Python's version) and to the
standard library's zip (``x.pyc``, where zipimport looks).  A wheel keeps its sources, so a
traceback through this package, the widgets or IPython still shows its lines, and a learner's
``??`` its code.  The standard library's compiled modules lose theirs, as Pyodide's own
packages ship (1.1 MB of every first load): a traceback through them shows file, line and
function, not the line's text.

Only the modules a kernel imports get bytecode: those listed in kernel_modules.txt,
and every module of this package.  The others (prompt_toolkit, most of
the standard library) would be downloaded and unpacked by every kernel and never run.  The
list is measured, not written by hand: ``python browser_app/pyodide_bytecode.py --record`` builds the
app, starts its kernel in Node as the app's worker does (record_modules.mjs), runs
every lesson the app runs, completes a name, shows its help and fails a cell, and writes down
the modules that kernel imported.  Run it after ``make lock`` or a change of what the lessons
import; tests/test_app.py fails, naming the modules, when a kernel of the app imports one
without bytecode.

The wheels are rewritten as their bytecode is added, and ``leave_out`` drops files the app
never reads (jedi's stubs of packages the app does not have) on the way, and ``only_compiled``
the modules of a package that no kernel imports (Pygments' lexers of other languages than Python).
"""

import argparse
import csv
import fnmatch
import io
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

__all__ = ["KERNEL_MODULES", "add_bytecode", "kernel_modules", "module_name", "record"]

HERE = Path(__file__).resolve().parent
COMPILER = HERE / "compile_bytecode.mjs"
RECORDER = HERE / "record_modules.mjs"
KERNEL_MODULES = HERE / "kernel_modules.txt"
NOTEBOOKS = HERE.parent / "notebooks"
PACKAGE = "micrograd"  # compiled whole, and left out of the list: its modules change with the lessons


def _node():
    node = shutil.which("node")
    if node is None:
        raise SystemExit("the browser app's build needs Node.js (node) to compile its Python: install nodejs")
    return node


def module_name(path):
    """The module a source file of an archive holds: 'IPython/core/page.py' holds IPython.core.page, 'json/__init__.py'
    json."""
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def kernel_modules(path=KERNEL_MODULES):
    """The modules kernel_modules.txt lists (comments and blank lines aside)."""
    lines = (line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines())
    return {line for line in lines if line and not line.startswith("#")}


def add_bytecode(core, wheels, stdlib, work, modules=None, packages=(), leave_out=(), only_compiled=()):
    """Compile the sources of each wheel in ``wheels`` and of the ``stdlib`` zip with Pyodide's Python in ``core``
    (a folder holding pyodide.mjs), and add the bytecode to each archive, in place.  A module of the standard
    library that gets bytecode loses its source (zipimport imports ``x.pyc`` alone).

    ``modules``: the names of the modules to compile (None: every one), and with them every module of the top-level
    ``packages``.  ``leave_out``: patterns (fnmatch, on the names inside an archive) of files to drop from it.
    ``only_compiled``: packages of which only the modules compiled are kept (the others are never imported)."""

    def wanted(name):
        module = module_name(name)
        named = modules is None or module in modules or module.split(".")[0] in packages
        return named and not _left_out(name, leave_out)

    def never_imported(name):
        inside = any(module_name(name).startswith(f"{package}.") for package in only_compiled)
        return inside and name.endswith(".py") and not wanted(name)

    tree = Path(work) / "bytecode"
    unpacked = {}
    for archive in [*wheels, stdlib]:
        folder = tree / ("stdlib" if archive == stdlib else f"wheels/{archive.name}")
        folder.mkdir(parents=True)
        with zipfile.ZipFile(archive) as opened:  # the sources to compile only: the compiler reads nothing else
            opened.extractall(folder, [name for name in opened.namelist() if name.endswith(".py") and wanted(name)])
        unpacked[archive] = folder
    result = subprocess.run([_node(), COMPILER, core, tree], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"Pyodide's Python could not compile the app's modules:\n{result.stdout}\n{result.stderr}")
    for archive, folder in unpacked.items():
        _rewrite(archive, folder, record=archive != stdlib, leave_out=leave_out, never_imported=never_imported)
    shutil.rmtree(tree)


def _left_out(name, leave_out):
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in leave_out)


def _rewrite(archive, folder, record, leave_out, never_imported):
    """Rewrite ``archive`` with the .pyc files compiled into ``folder`` and without the files ``leave_out`` matches or
    ``never_imported`` says no kernel imports; its RECORD (if ``record``, a wheel) says so.  The standard library's
    (not ``record``) loses the sources of what was compiled."""
    with zipfile.ZipFile(archive) as opened:
        infos = opened.infolist()
        present = {info.filename for info in infos}
        added = sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*.pyc"))
        added = [name for name in added if name not in present]
        compiled_sources = set() if record else {name.removesuffix("c") for name in added}
        dropped = {info.filename for info in infos
                   if _left_out(info.filename, leave_out) or never_imported(info.filename)
                   or info.filename in compiled_sources}
        if not added and not dropped:
            return
        entries = [(info, opened.read(info)) for info in infos if info.filename not in dropped]
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as rewritten:
        for info, data in entries:
            if record and info.filename.endswith(".dist-info/RECORD"):
                data = _record(data, dropped, added)
            rewritten.writestr(info, data)
        for name in added:
            rewritten.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), (folder / name).read_bytes(),
                               zipfile.ZIP_DEFLATED)


def _record(data, dropped, added):
    """A wheel's RECORD without the rows of ``dropped`` files, and with a row for each ``added`` .pyc (PEP 376: a
    .pyc may be listed with no hash and no size)."""
    dropped = set(dropped)
    rows = [row for row in csv.reader(io.StringIO(data.decode("utf-8"))) if row and row[0] not in dropped]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([*rows, *([name, "", ""] for name in added)])
    return out.getvalue().encode("utf-8")


def lessons_the_app_runs(notebooks=NOTEBOOKS):
    """Each lesson the app runs (all but those that stop there), with its code cells' sources."""
    from micrograd.course.browser.lessons import STOPS_IN_THE_APP

    lessons = {}
    for notebook in sorted(Path(notebooks).glob("[0-9][0-9]_*.ipynb")):
        if notebook.stem not in STOPS_IN_THE_APP:
            cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
            lessons[notebook.stem] = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    return lessons


def record(app, work):
    """Start the kernel of the built ``app`` in Node, run the lessons in it; returns the modules it imported from the
    app's wheels and standard library, and the cells that failed (each a dict: where, error)."""
    lessons = Path(work) / "lessons.json"
    lessons.write_text(json.dumps(lessons_the_app_runs()), encoding="utf-8")
    result = subprocess.run([_node(), RECORDER, app, lessons], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"the app's kernel did not run the lessons in Node:\n{result.stdout}\n{result.stderr}")
    found = json.loads(result.stdout.strip().splitlines()[-1])
    return found["modules"], found["failed"]


HEADER = """\
# The modules of the browser app's wheels and standard library that its kernel imports: they get
# bytecode (browser_app/pyodide_bytecode.py), the others do not.  Written by
#     python browser_app/pyodide_bytecode.py --record
# which starts the app's kernel in Node, runs every lesson the app runs, completes a name, shows
# its help and fails a cell.  The package's own modules are not listed: every one of them gets bytecode.
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description="Record which modules the browser app's kernel imports.")
    written = KERNEL_MODULES.relative_to(HERE.parent)
    parser.add_argument("--record", action="store_true", required=True,
                        help=f"run the lessons in the app's kernel and write {written}")
    parser.add_argument("--app", help="an app make lite built (default: build one into a temporary folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="micrograd-kernel-modules-") as work:
        if args.app:
            app = Path(args.app)
        else:
            import build_app

            app = build_app.build(Path(work) / "lite", quiet=True)
        modules, failed = record(app, work)
    for cell in failed:
        print(f"failed in the app's kernel (where it lacks what a lesson needs, the lesson says so): "
              f"{cell['where']}: {cell['error']}")
    listed = [name for name in modules if name.split(".")[0] != PACKAGE]
    KERNEL_MODULES.write_text(HEADER + "".join(f"{name}\n" for name in listed), encoding="utf-8")
    print(f"{len(listed)} modules written to {KERNEL_MODULES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
