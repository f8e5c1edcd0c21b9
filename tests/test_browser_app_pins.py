"""The browser app's pins agree: one Pyodide (package-lock.json's), the one its kernel package was made for.

Pyodide's version is read once, from package-lock.json (browser_app/pyodide_version.py), and its Python's
from it; the kernel (jupyterlite-pyodide-kernel, pinned in browser_app/build-requirements.txt) names the
Pyodide it was made for in its ``constants.py``.  The wheel read here is the pinned one, hash-checked by pip.
"""

import ast
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
APP_SOURCE = REPO / "browser_app"
sys.path.insert(0, str(APP_SOURCE))
import build_app  # noqa: E402
from pyodide_version import PYODIDE_VERSION, PYTHON_VERSION, pyodide_version, python_version  # noqa: E402

KERNEL = "jupyterlite-pyodide-kernel"


def test_pyodide_numbers_its_releases_by_the_python_they_run():
    assert python_version("314.0.6") == "3.14"
    assert python_version("315.0.0a2") == "3.15"
    with pytest.raises(ValueError, match=r"Pyodide '0.27.7' is not numbered by its Python .* pin a Pyodide 314.0.0 or newer"):
        python_version("0.27.7")


def test_the_version_read_is_package_lock_s_and_package_json_pins_it_exactly(tmp_path):
    assert PYODIDE_VERSION == pyodide_version(REPO / "package-lock.json")
    assert json.loads((REPO / "package.json").read_text())["dependencies"]["pyodide"] == PYODIDE_VERSION
    no_pyodide = tmp_path / "package-lock.json"
    no_pyodide.write_text(json.dumps({"packages": {"node_modules/axe-core": {"version": "4.14.1"}}}))
    with pytest.raises(SystemExit, match="pins no pyodide: add it to package.json"):
        pyodide_version(no_pyodide)


def test_npm_s_pyodide_runs_the_python_its_version_names():
    # npm ci installs it (make setup); its lock's info is what the core checks the app's lock against.
    info = json.loads((REPO / "node_modules" / "pyodide" / "pyodide-lock.json").read_text())["info"]
    assert info["python"].rsplit(".", 1)[0] == PYTHON_VERSION, info


@pytest.fixture(scope="module")
def kernel_constants(tmp_path_factory):
    """The constants.py of the jupyterlite-pyodide-kernel wheel build-requirements.txt pins (downloaded by pip, its
    hashes checked), as {name: value}."""
    lines = (APP_SOURCE / "build-requirements.txt").read_text().splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(f"{KERNEL}=="))
    pinned = [lines[start]]
    for line in lines[start + 1:]:
        if not line.strip().startswith("--hash"):
            break
        pinned.append(line)
    folder = tmp_path_factory.mktemp("kernel")
    (folder / "pinned.txt").write_text("\n".join(pinned).rstrip(" \\") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--only-binary=:all:", "--require-hashes", "-r", folder / "pinned.txt", "--dest", folder],
                   check=True, capture_output=True)
    (wheel,) = folder.glob("jupyterlite_pyodide_kernel-*.whl")
    source = zipfile.ZipFile(wheel).read("jupyterlite_pyodide_kernel/constants.py").decode()
    return {target.id: node.value.value for node in ast.parse(source).body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name) and isinstance(node.value, ast.Constant)}


def test_the_kernel_package_was_made_for_the_pyodide_package_json_pins(kernel_constants):
    made_for = kernel_constants["PYODIDE_VERSION"]
    assert made_for == PYODIDE_VERSION, (
        f"{KERNEL} (browser_app/build-requirements.txt) was made for Pyodide {made_for}, but package.json pins "
        f"{PYODIDE_VERSION}: run `npm install --save-exact --ignore-scripts pyodide@{made_for}`, or pin a {KERNEL} "
        f"made for {PYODIDE_VERSION} (make lock)")
    assert kernel_constants["PYODIDE_PYTHON_VERSION"] == PYTHON_VERSION


def test_the_build_stops_on_a_kernel_made_for_another_pyodide():
    build_app.check_kernel_pyodide(PYODIDE_VERSION)
    with pytest.raises(SystemExit, match=rf"made for Pyodide 314.0.1, but package.json pins pyodide {PYODIDE_VERSION}: "
                                         r"pin the kernel's \(npm install --save-exact --ignore-scripts pyodide@314.0.1\)"):
        build_app.check_kernel_pyodide("314.0.1")
