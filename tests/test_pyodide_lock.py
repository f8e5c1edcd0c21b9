"""The browser app's Pyodide lock (browser_app/pyodide_lock.py): written from the wheels the app ships, nothing else."""

import json
import sys
import zipfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "browser_app"))
import pyodide_lock  # noqa: E402

INFO = {"abi_version": "2026_0", "arch": "wasm32", "platform": "emscripten_5_0_3", "python": "3.14.2"}


def make_wheel(folder, name, version, requires=(), files=None, tag="py3-none-any"):
    dist = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = files if files is not None else {f"{name}/__init__.py": ""}
    path = folder / f"{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for file, text in {**files, f"{dist}/METADATA": metadata, f"{dist}/RECORD": ""}.items():
            archive.writestr(file, text)
    return path


def test_an_entry_says_what_a_wheel_provides_and_needs_in_the_browser(tmp_path):
    wheel = make_wheel(tmp_path, "shell", "1.2", requires=[
        "traitlets>=5",
        "pexpect>4.3; sys_platform != 'win32' and sys_platform != 'emscripten'",  # IPython's: not in the browser
        "colorama; sys_platform == 'win32'",
        "pytest; extra == 'test'",
        "exceptiongroup; python_version < '3.11'",
    ], files={"shell/__init__.py": "", "shell/core/__init__.py": "", "helper.py": ""})
    entry = pyodide_lock.lock_entry(wheel, pyodide_lock.browser_environment("3.14.2"))
    assert entry["name"] == "shell" and entry["version"] == "1.2" and entry["file_name"] == wheel.name
    assert entry["depends"] == ["traitlets"]
    assert entry["imports"] == ["helper", "shell"]
    assert len(entry["sha256"]) == 64 and entry["install_dir"] == "site"


def test_the_lock_holds_exactly_the_wheels_of_its_folder(tmp_path):
    make_wheel(tmp_path, "alpha", "1.0", requires=["beta"])
    make_wheel(tmp_path, "beta", "2.0")
    lock = pyodide_lock.write_lock(tmp_path, INFO)
    assert sorted(lock["packages"]) == ["alpha", "beta"]
    assert lock["info"] == INFO
    assert json.loads((tmp_path / "pyodide-lock.json").read_text()) == lock


def test_a_need_no_wheel_provides_stops_the_lock_naming_it(tmp_path):
    make_wheel(tmp_path, "alpha", "1.0", requires=["numpy>=2"])
    with pytest.raises(ValueError, match=r"alpha-1.0-py3-none-any.whl needs numpy, which no wheel of the app provides: add it to browser_app/requirements.in and run make lock"):
        pyodide_lock.write_lock(tmp_path, INFO)


def test_a_compiled_wheel_is_refused(tmp_path):
    wheel = make_wheel(tmp_path, "fast", "1.0", tag="cp314-cp314-manylinux_2_17_x86_64")
    with pytest.raises(ValueError, match="not a pure-Python wheel"):
        pyodide_lock.lock_entry(wheel, pyodide_lock.browser_environment("3.14.2"))


def test_a_kernel_preloads_the_packages_whose_modules_it_imports_and_they_need_only_each_other(tmp_path):
    make_wheel(tmp_path, "shell", "1.0", requires=["terminal", "colours"])
    make_wheel(tmp_path, "terminal", "1.0", requires=["widths"])  # the shell's, for a terminal no kernel opens
    make_wheel(tmp_path, "widths", "1.0")
    make_wheel(tmp_path, "colours", "1.0")
    make_wheel(tmp_path, "profile", "1.0", files={"profile/config.json": "{}"})  # read, never imported
    lock = pyodide_lock.write_lock(tmp_path, INFO)
    preloaded = pyodide_lock.preload(lock, {"shell", "colours", "json"}, always=["profile"])
    assert preloaded == ["colours", "profile", "shell"]
    assert lock["packages"]["shell"]["depends"] == ["colours"]
    # What no kernel preloads stays in the lock, with what it needs: a cell that imports it loads both.
    assert lock["packages"]["terminal"]["depends"] == ["widths"] and "widths" in lock["packages"]


def test_a_package_to_preload_that_no_wheel_provides_is_named(tmp_path):
    make_wheel(tmp_path, "shell", "1.0")
    lock = pyodide_lock.write_lock(tmp_path, INFO)
    with pytest.raises(ValueError, match="no wheel of the app is named jedi: the kernel cannot preload it"):
        pyodide_lock.preload(lock, {"shell"}, always=["jedi"])
