"""The browser app's bytecode (browser_app/pyodide_bytecode.py): compiled by Pyodide's own Python, and imported there.

Runs npm's Pyodide in Node, as the build does: two small wheels and a small standard-library zip get
bytecode for the modules named (and a whole package), and lose the files left out and the modules of an
only-compiled package that were not named; then the wheels' sources are changed behind the bytecode, and
the standard library's compiled module has none left.  Pyodide's Python imports what was compiled, which
is what makes a kernel's start quick, with the wheel's files freshly dated, as Pyodide unpacks them; a
traceback through the sourceless module still names its file, line and function.
"""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from in_pyodide import NODE_MODULES, RUNNER, node

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "browser_app"))
from pyodide_bytecode import add_bytecode  # noqa: E402
from pyodide_version import PYTHON_VERSION  # noqa: E402

XY = PYTHON_VERSION.replace(".", "")  # 314: cpython-314.pyc, python314.zip

CORE = NODE_MODULES / "pyodide"

PROBE = """
import importlib.util, sys
sys.path.insert(0, "/packages/stdlib.zip")
import probe_package.probe as probe, probe_std, whole.inner
print(probe.WHERE, probe_std.WHERE, whole.inner.WHERE)
print(importlib.util.MAGIC_NUMBER.hex())
print(probe_std.named_file())
import traceback
try:
    probe_std.fails()
except ZeroDivisionError:
    print(traceback.format_exc().replace("\\n", " | "))
"""


STD_SOURCE = """WHERE = 'bytecode'
def named_file():
    return named_file.__code__.co_filename
def fails():
    return 1 / 0
"""


def _wheel(path, files):
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)


def _replace(archive, name, text):
    """The archive with ``name``'s text changed and everything else as it was."""
    with zipfile.ZipFile(archive) as opened:
        entries = [(info, opened.read(info)) for info in opened.infolist()]
    with zipfile.ZipFile(archive, "w") as rewritten:
        for info, data in entries:
            rewritten.writestr(info, text if info.filename == name else data)


def test_pyodide_imports_the_bytecode_compiled_for_it_from_a_wheel_and_from_the_standard_library_zip(tmp_path):
    node_path = node()
    wheel = tmp_path / "probe_package-1.0-py3-none-any.whl"
    _wheel(wheel, {
        "probe_package/__init__.py": "",
        "probe_package/probe.py": "WHERE = 'bytecode'\n",
        "probe_package/unused.py": "",
        "probe_package/lexers/__init__.py": "",
        "probe_package/lexers/python.py": "",
        "probe_package/lexers/other.py": "",
        "probe_package/pictures/shot.png": "not read",
        "probe_package-1.0.dist-info/RECORD": "probe_package/__init__.py,,\nprobe_package/probe.py,,\n"
                                               "probe_package/unused.py,,\nprobe_package/lexers/other.py,,\n"
                                               "probe_package/pictures/shot.png,,\n",
    })
    whole = tmp_path / "whole-1.0-py3-none-any.whl"
    _wheel(whole, {"whole/__init__.py": "", "whole/inner.py": "WHERE = 'bytecode'\n", "whole-1.0.dist-info/RECORD": ""})
    stdlib = tmp_path / "stdlib.zip"
    _wheel(stdlib, {
        "probe_std.py": STD_SOURCE,
        "unused_std.py": "",
    })
    add_bytecode(CORE, [wheel, whole], stdlib, tmp_path,
                 modules={"probe_package", "probe_package.probe", "probe_package.lexers", "probe_package.lexers.python",
                          "probe_std"},
                 packages=["whole"], leave_out=["probe_package/*.png"], only_compiled=["probe_package.lexers"])

    with zipfile.ZipFile(wheel) as opened:
        names = opened.namelist()
        record = opened.read("probe_package-1.0.dist-info/RECORD").decode()
    compiled = [name for name in names if name.endswith(".pyc")]
    # The modules named, and no other: unused.py stays source only, and a wheel keeps the sources of what is compiled.
    assert sorted(compiled) == [
        f"probe_package/__pycache__/__init__.cpython-{XY}.pyc", f"probe_package/__pycache__/probe.cpython-{XY}.pyc",
        f"probe_package/lexers/__pycache__/__init__.cpython-{XY}.pyc",
        f"probe_package/lexers/__pycache__/python.cpython-{XY}.pyc",
    ], names
    assert all(f"{name},," in record for name in compiled), record
    assert "probe_package/unused.py" in names and "probe_package/unused.py,," in record
    assert {"probe_package/probe.py", "probe_package/lexers/python.py"} <= set(names)
    assert "probe_package/lexers/other.py" not in names and "other.py" not in record  # only what is compiled there
    assert "probe_package/pictures/shot.png" not in names and "shot.png" not in record  # left out, RECORD too
    assert sorted(name for name in zipfile.ZipFile(whole).namelist() if name.endswith(".pyc")) == [
        f"whole/__pycache__/__init__.cpython-{XY}.pyc", f"whole/__pycache__/inner.cpython-{XY}.pyc"]
    # The standard library's compiled module is bytecode alone; the other keeps its source.
    assert sorted(zipfile.ZipFile(stdlib).namelist()) == ["probe_std.pyc", "unused_std.py"]

    # Sources changed after compiling: what Pyodide's Python imports is the bytecode.
    _replace(wheel, "probe_package/probe.py", "WHERE = 'source'\n")
    _replace(whole, "whole/inner.py", "WHERE = 'source'\n")
    packages = tmp_path / "packages"
    for archive in (wheel, whole):
        with zipfile.ZipFile(archive) as opened:
            opened.extractall(packages)
    (packages / "stdlib.zip").write_bytes(stdlib.read_bytes())
    program = tmp_path / "probe.py"
    program.write_text(PROBE)
    result = subprocess.run([node_path, RUNNER, packages, program, "http://127.0.0.1/"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    where, magic, named_file, failed = result.stdout.split("\n")[:4]
    assert where == "bytecode bytecode bytecode", result.stdout
    # zipimport keeps the file name compiled in: the standard library's zip where the app has it, so
    # that a traceback through it names that file, not the build's scratch copy.
    assert named_file == f"/lib/python{XY}.zip/probe_std.py", result.stdout
    assert f'File "/lib/python{XY}.zip/probe_std.py", line 5, in fails' in failed, failed
    assert failed.endswith("ZeroDivisionError: division by zero | "), failed
    pyc = zipfile.ZipFile(wheel).read(f"probe_package/__pycache__/probe.cpython-{XY}.pyc")
    assert pyc[:4].hex() == magic  # written for the Python that reads it
    assert int.from_bytes(pyc[4:8], "little") == 0b01  # PEP 552: a hash, never checked against the source


def test_a_module_that_does_not_compile_stops_the_build_and_is_named(tmp_path):
    wheel = tmp_path / "broken-1.0-py3-none-any.whl"
    _wheel(wheel, {"broken/__init__.py": "def f(:\n"})
    stdlib = tmp_path / "stdlib.zip"
    _wheel(stdlib, {"fine.py": "X = 1\n"})
    with pytest.raises(SystemExit) as stopped:
        add_bytecode(CORE, [wheel], stdlib, tmp_path)
    assert "could not compile" in str(stopped.value) and "broken/__init__.py" in str(stopped.value)
