"""Bytecode for the browser app's Python, compiled ahead of time by that same Python.

npm's Pyodide ships its standard library as source only, and the wheels of PyPI hold
source only: each time a kernel starts, the browser compiles every module it imports
(some 400: IPython, the kernel, the course) before it runs one line of them.  So the
build compiles them once, with the app's own Python (Pyodide run in Node by
docs/lite/compile_bytecode.mjs: bytecode is only good for the Python that wrote it),
and adds the bytecode to each wheel (``__pycache__/*.cpython-314.pyc``) and to the
standard library's zip (``x.pyc`` beside ``x.py``, where zipimport looks).  The
sources stay, so a traceback still shows its lines.
"""

import shutil
import subprocess
import zipfile
from pathlib import Path

__all__ = ["add_bytecode"]

COMPILER = Path(__file__).resolve().parent / "lite" / "compile_bytecode.mjs"


def add_bytecode(core, wheels, stdlib, work):
    """Compile the sources of each wheel in ``wheels`` and of the ``stdlib`` zip with Pyodide's Python in
    ``core`` (a folder holding pyodide.mjs), and add the bytecode to each archive, in place."""
    tree = Path(work) / "bytecode"
    unpacked = {}
    for archive in [*wheels, stdlib]:
        folder = tree / ("stdlib" if archive == stdlib else f"wheels/{archive.name}")
        with zipfile.ZipFile(archive) as opened:  # the sources only: the compiler reads nothing else
            opened.extractall(folder, [name for name in opened.namelist() if name.endswith(".py")])
        unpacked[archive] = folder
    node = shutil.which("node")
    if node is None:
        raise SystemExit("the browser app's build needs Node.js (node) to compile its Python: install nodejs")
    result = subprocess.run([node, COMPILER, core, tree], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"Pyodide's Python could not compile the app's modules:\n{result.stdout}\n{result.stderr}")
    for archive, folder in unpacked.items():
        _add_files(archive, folder, record=archive != stdlib)
    shutil.rmtree(tree)


def _add_files(archive, folder, record):
    """Rewrite ``archive`` with the .pyc files compiled into ``folder``, listed in the wheel's RECORD if ``record``."""
    with zipfile.ZipFile(archive) as opened:
        entries = [(info, opened.read(info)) for info in opened.infolist()]
    present = {info.filename for info, _ in entries}
    added = sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*.pyc"))
    added = [name for name in added if name not in present]
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as rewritten:
        for info, data in entries:
            if record and info.filename.endswith(".dist-info/RECORD"):
                # PEP 376: a .pyc may be listed with no hash and no size.
                data += "".join(f"{name},,\n" for name in added).encode()
            rewritten.writestr(info, data)
        for name in added:
            rewritten.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), (folder / name).read_bytes(),
                               zipfile.ZIP_DEFLATED)
