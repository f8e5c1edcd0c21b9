"""Build the course as a JupyterLite app: python docs/build_lite.py [OUTDIR]  (make lite; OUTDIR defaults to build/site/lite).

The app is a static folder: JupyterLab and a Python kernel (Pyodide, CPython
compiled to WebAssembly) that run in the learner's browser, with the lessons
in its file browser.  Everything it loads is inside the folder, so any static
server (GitHub Pages, a course server, ``python -m http.server``) serves it and
the browser asks no other host:

- JupyterLite and its Pyodide kernel, from PyPI (``jupyterlite-core``,
  ``jupyterlite-pyodide-kernel``, pinned with their hashes in docs/lite/build-requirements.txt),
  installed by each build into a venv of its own: the kernel's JupyterLab extension is for
  the app, and would break the JupyterLab that make lab opens;
- Pyodide's core, and Graphviz compiled to WebAssembly (``@viz-js/viz``), from
  npm (pinned in package-lock.json; ``make setup`` runs ``npm ci``);
- the pure-Python wheels the kernel and the lessons import, from PyPI
  (pinned with their hashes in docs/lite/requirements.txt), and a wheel of this
  package built from this checkout;
- bytecode for the modules of those wheels and of Pyodide's standard library that a
  kernel imports, compiled by Pyodide's own Python (docs/pyodide_bytecode.py), so that a
  kernel's start does not compile them;
- a Pyodide lock written for exactly those wheels (docs/pyodide_lock.py), and a
  list of those the kernel loads when it starts (the wheels whose modules it imports),
  so ``import micrograd`` needs no ``%pip``; the others load when a cell imports them.

The kernel starts with the IPython extension ``micrograd.course.browser``: it
loads Graphviz, and stands in for what the browser lacks (matplotlib's figures
say where to see them; numpy's absence is one sentence, not a traceback), each
note linking to the page of the lesson being run, on the course site beside the
app: the build writes which lesson each cell id belongs to (``lesson_cells``).
The lessons are copied as they are; a lesson whose Run All stops in the app
(``STOPS_IN_THE_APP``) gets a first cell saying so.

``--pyodide`` takes a full Pyodide distribution (a folder or a .tar.bz2, a path
or a URL) of the same version instead of npm's core: its lock keeps its own
packages (numpy, matplotlib, scikit-learn...) beside this app's wheels, and every
lesson can run.  This path is not tested here: no full distribution is on PyPI
or npm.

Every build starts from an empty folder; OUTDIR is replaced only by a finished
build (and only if it is absent, empty, or an app this script built).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent / "_ext")]
from browser_links import STOPS_IN_THE_APP, lesson_page  # noqa: E402  (the site's pages, what stops in the app)
from pyodide_bytecode import PACKAGE, add_bytecode, kernel_modules  # noqa: E402
from pyodide_lock import preload, write_lock  # noqa: E402

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
LITE = DOCS / "lite"
NOTEBOOKS = ROOT / "notebooks"
NODE_MODULES = ROOT / "node_modules"
BUILT_MARK = "jupyter-lite.json"

KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
KERNEL_EXTENSION = "@jupyterlite/pyodide-kernel-extension"
WIDGETS_EXTENSION = "@jupyter-widgets/jupyterlab-manager"
PYODIDE_CORE = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide.js"]
# Where the kernel's worker script lives in the app, relative to the app's root: the
# kernel resolves the URLs it is given in its environment against it.
WORKER_DEPTH = len(f"extensions/{KERNEL_EXTENSION}/static".split("/"))
GRAPHVIZ = "static/graphviz/viz.js"
UV = Path(sys.executable).with_name("uv")  # make setup installs it in the venv
PROFILE_PACKAGE = "micrograd_lite_kernel"
# What a kernel loads at start besides the wheels whose modules it imports: its IPython profile (files, not
# modules), and what the kernel's worker installs at every start unless it is preloaded (jupyterlite-pyodide-kernel's
# initPackageManager and initKernel; jedi is only imported at the first completion, but installed all the same).
KERNEL_START = ["micrograd-lite-kernel", "micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi",
                "ipython"]
# Files of the app's wheels that no kernel reads, left out: jedi's stubs of packages the app does not have (4 800 files,
# which every kernel would unpack), and accessible-pygments' pictures of its styles.
NEVER_READ = ["jedi/third_party/typeshed/stubs/*", "jedi/third_party/django-stubs/*", "a11y_pygments/*.png"]
SITE_PACKAGES = "/lib/python3.14/site-packages"  # where the kernel installs the wheels it starts with
LESSON_CELLS = "lesson_cells.json"  # in the profile package: the lesson of each cell id (micrograd.course.browser.lessons)


def run(command, **kwargs):
    subprocess.run([str(part) for part in command], check=True, **kwargs)


def npm_package(name):
    """The folder of an npm package that ``npm ci`` installed, checked against package-lock.json."""
    wanted = json.loads((ROOT / "package-lock.json").read_text())["packages"][f"node_modules/{name}"]["version"]
    folder = NODE_MODULES / name
    try:
        found = json.loads((folder / "package.json").read_text())["version"]
    except FileNotFoundError:
        found = None
    if found != wanted:
        raise SystemExit(
            f"npm's {name} {wanted} is needed (package-lock.json) but node_modules has "
            f"{found or 'none'}: run `npm ci` in {ROOT} (make setup does)"
        )
    return folder


def browser_wheels(folder):
    """The pinned pure-Python wheels of docs/lite/requirements.txt, downloaded and hash-checked by pip."""
    run([
        sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
        "--no-deps", "--only-binary=:all:", "--require-hashes",
        "--python-version", "3.14", "--implementation", "py", "--abi", "none", "--platform", "any",
        "--dest", folder, "-r", LITE / "requirements.txt",
    ])


def build_tools(work):
    """A venv holding JupyterLite and its Pyodide kernel at their pinned versions; returns its Python."""
    tools = work / "tools"
    run([UV, "venv", "--quiet", "--python", sys.executable, tools])
    python = tools / "bin" / "python"
    # From the project's folder, wherever the build is run from: uv reads its settings from pyproject.toml there.
    run([UV, "pip", "install", "--quiet", "--python", python, "--require-hashes", "-r", LITE / "build-requirements.txt"],
        cwd=ROOT)
    return python


def labextensions(python):
    """The share/jupyter/labextensions folder of the venv whose Python this is."""
    return Path(python).parent.parent / "share" / "jupyter" / "labextensions"


def kernel_wheels(folder, tools):
    """The Pyodide kernel's own wheels (its kernel, piplite, and its stand-ins for ipykernel and widgetsnbextension)."""
    shipped = labextensions(tools) / KERNEL_EXTENSION / "static" / "pypi"
    wheels = sorted(shipped.glob("*.whl"))
    if not wheels:
        raise SystemExit(f"jupyterlite-pyodide-kernel has no wheels in {shipped}")
    # It ships two widgetsnbextension stand-ins; ipywidgets 8 wants the 4.x one.
    for wheel in wheels:
        if not wheel.name.startswith("widgetsnbextension-3."):
            shutil.copy2(wheel, folder)


def package_wheel(folder, work):
    """A wheel of this checkout's package, built from a copy so that nothing is written into the tree."""
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source)
    shutil.copytree(ROOT / "micrograd", source / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    run([UV, "build", "--quiet", "--wheel", "--out-dir", folder, source])


def lesson_cells(notebooks=None):
    """Which lesson each cell id belongs to, and each lesson's page on the site: what the kernel reads to tell
    the lesson it runs (JupyterLab sends the id of each cell it runs; JupyterLite tells the kernel no notebook)."""
    cells, pages = {}, {}
    for notebook in notebooks or sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        lesson = notebook.stem
        pages[lesson] = lesson_page(lesson)
        for cell in json.loads(notebook.read_text())["cells"]:
            cell_id = cell.get("id")
            if not cell_id:
                raise SystemExit(f"{notebook.name} has a cell without an id: the app tells lessons apart by their "
                                 "cells' ids; save the lesson with nbformat 4.5 or newer (make notebooks does)")
            if cells.setdefault(cell_id, lesson) != lesson:
                raise SystemExit(f"cell id {cell_id!r} is in both {cells[cell_id]}.ipynb and {notebook.name}: the app "
                                 "tells lessons apart by their cells' ids; give the cell in one of them a new id")
    return {"pages": pages, "cells": cells}


def profile_wheel(folder):
    """A wheel holding the kernel's IPython profile: the extensions every kernel loads when it starts, after a
    restart too: %%my_micrograd and the sentence under a NameError (as make setup gives JupyterLab's kernels),
    and what the browser needs (micrograd.course.browser); and the lesson of each cell id, for its notes."""
    config = {"InteractiveShellApp": {"extensions": ["micrograd.course.carry.magic", "micrograd.course.browser"]}}
    name, version = PROFILE_PACKAGE, "1.0.0"
    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": '"""The course kernel\'s IPython profile (IPYTHONDIR points at ipython/)."""\n',
        f"{name}/ipython/profile_default/ipython_config.json": json.dumps(config, indent=1) + "\n",
        f"{name}/{LESSON_CELLS}": json.dumps(lesson_cells(), sort_keys=True) + "\n",
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: build_lite\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{dist_info}/RECORD"] = "".join(f"{path},,\n" for path in [*files, f"{dist_info}/RECORD"])
    with zipfile.ZipFile(folder / f"{name}-{version}-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as archive:
        for path, text in files.items():
            archive.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), text)


def full_distribution(source, work):
    """A full Pyodide distribution's folder, from a folder, a .tar.bz2, or a URL of one."""
    if "://" in source:
        archive = work / Path(source).name
        urllib.request.urlretrieve(source, archive)
        source = archive
    source = Path(source)
    if source.is_dir():
        return source
    with tarfile.open(source) as archive:
        archive.extractall(work / "full", filter="data")
    return next(path.parent for path in (work / "full").rglob("pyodide-lock.json"))


def pyodide_folder(target, work, tools, full=None):
    """Pyodide's core, this app's wheels and its lock, in ``target``; returns the names the kernel preloads."""
    target.mkdir(parents=True)
    core = full_distribution(full, work) if full else npm_package("pyodide")
    for name in PYODIDE_CORE:
        shutil.copy2(core / name, target)
    npm_lock = json.loads((core / "pyodide-lock.json").read_text())
    wheels = work / "wheels"
    wheels.mkdir()
    browser_wheels(wheels)
    kernel_wheels(wheels, tools)
    package_wheel(wheels, work)
    profile_wheel(wheels)
    imported = kernel_modules()
    add_bytecode(core, sorted(wheels.glob("*.whl")), target / "python_stdlib.zip", work,
                 modules=imported, packages=[PACKAGE], leave_out=NEVER_READ)
    lock = write_lock(wheels, npm_lock["info"], lock_path=work / "app-lock.json")
    for wheel in wheels.glob("*.whl"):
        shutil.copy2(wheel, target)
    if not full:
        preloaded = preload(lock, {name.split(".")[0] for name in imported} | {PACKAGE}, always=KERNEL_START)
    else:
        # A full distribution's packages import what no kernel of npm's core did (matplotlib imports the kernel's
        # backend, matplotlib_inline): every wheel of the app is preloaded, with all it needs.
        preloaded = sorted(lock["packages"])
        # The distribution's own packages stay, where this app has no wheel of the same name.
        for name, entry in npm_lock["packages"].items():
            lock["packages"].setdefault(name, entry)
        for path in core.iterdir():
            if path.suffix in (".whl", ".zip") and not (target / path.name).exists():
                shutil.copy2(path, target)
    (target / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    return preloaded


def lessons(target):
    """The lessons as the app's file browser shows them, for the app's kernel."""
    target.mkdir(parents=True)
    for notebook in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        document = json.loads(notebook.read_text())
        document["metadata"]["kernelspec"] = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
        # The widgets' saved state stays out: the app's widget manager, restoring it while the kernel
        # makes new widgets (Run All as soon as the kernel is ready), left lesson 2's first widget cell
        # running forever.  Each stored widget output shows its static picture without it.
        document["metadata"].pop("widgets", None)
        if notebook.stem in STOPS_IN_THE_APP:
            # No link: JupyterLab takes a relative link in Markdown for a file of the app's own.
            document["cells"].insert(0, {
                "cell_type": "markdown",
                "id": "runs-outside-the-browser",
                "metadata": {},
                "source": [
                    f"**This lesson stops in this browser app: {STOPS_IN_THE_APP[notebook.stem]}.** "
                    "Run it in JupyterLab on your machine (`make lab`); its outputs below are those of a full run, "
                    "and its page on the course site this app came with shows them too."
                ],
            })
        (target / notebook.name).write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")


def app_config(preload):
    """jupyter-lite.json: the kernel loads this app's lock and wheels, and never PyPI or a CDN."""
    up = "../" * WORKER_DEPTH
    return {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "micrograd lessons",
            "litePluginSettings": {
                KERNEL_PLUGIN: {
                    "disablePyPIFallback": True,
                    "loadPyodideOptions": {
                        "packages": preload,
                        "env": {
                            "IPYTHONDIR": f"{SITE_PACKAGES}/{PROFILE_PACKAGE}/ipython",
                            "MICROGRAD_LESSON_CELLS": f"{SITE_PACKAGES}/{PROFILE_PACKAGE}/{LESSON_CELLS}",
                            "MICROGRAD_GRAPHVIZ_URL": up + GRAPHVIZ,
                            "MICROGRAD_SITE_URL": up + "../",
                        },
                    },
                },
            },
        },
    }


# How often the app saves an open document that has changes, in seconds.  JupyterLab's default, 120, lost up
# to two minutes of a lesson to a reload; JupyterLab lengthens the interval to ten times a save's duration
# when saving takes longer, so a big lesson is not saved over and over.
AUTOSAVE_SECONDS = 10

# JupyterLab's settings in the app: nothing that would ask the internet; every cell of a lesson in the
# page (JupyterLab 3's way), so a search or a screen reader finds every output; a lesson saved as the
# learner works (the browser's storage keeps it), so a reload keeps the cells; and time for a kernel's
# first completion: it imports jedi and reads the builtins' stubs, some 3 s in the browser, and
# JupyterLab drops an answer that takes over 1 s (the first Tab of every kernel showed nothing).
SETTINGS = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension:plugin": {"autosave": True, "autosaveInterval": AUTOSAVE_SECONDS},
    "@jupyterlab/completer-extension:manager": {"providerTimeout": 5000},
}


def federated_extensions(tools):
    """The app's JupyterLab extensions: the Pyodide kernel's, and ipywidgets' from this environment (the version
    of the ipywidgets the app's kernel loads)."""
    return [labextensions(tools) / KERNEL_EXTENSION, Path(sys.prefix) / "share" / "jupyter" / "labextensions" / WIDGETS_EXTENSION]


def replaceable(outdir):
    return not outdir.exists() or (outdir.is_dir() and (not any(outdir.iterdir()) or (outdir / BUILT_MARK).is_file()))


def build(outdir, full=None, quiet=False):
    """Build the app into ``outdir``; returns the folder.  Raises SystemExit with the reason when it cannot."""
    outdir = Path(outdir).resolve()
    if not replaceable(outdir):
        raise SystemExit(f"{outdir} exists and is not an app this script built: not replacing it")
    with tempfile.TemporaryDirectory(prefix="micrograd-lite-") as work:
        work = Path(work)
        lite_dir, built = work / "lite", work / "app"
        tools = build_tools(work)
        preload = pyodide_folder(lite_dir / "static" / "pyodide", work, tools, full)
        lessons(lite_dir / "files")
        extensions = lite_dir / "labextensions"  # only these two, whatever else the environment has
        for extension in federated_extensions(tools):
            shutil.copytree(extension, extensions / extension.relative_to(extension.parent.parent))
        build_config = {"FederatedExtensionAddon": {"extra_labextensions_path": [str(extensions)]}}
        (lite_dir / "jupyter_lite_config.json").write_text(json.dumps(build_config, indent=1) + "\n")
        (lite_dir / "jupyter-lite.json").write_text(json.dumps(app_config(preload), indent=1) + "\n")
        (lite_dir / "overrides.json").write_text(json.dumps(SETTINGS, indent=1) + "\n")
        command = [
            tools, "-m", "jupyterlite_core", "build",
            "--lite-dir", lite_dir, "--output-dir", built,
            "--contents", lite_dir / "files",
            "--settings-overrides", lite_dir / "overrides.json",
            "--apps", "lab",
            "--no-sourcemaps", "--no-unused-shared-packages", "--ignore-sys-prefix",
        ]
        env = {**os.environ, "JUPYTERLITE_NO_LIBARCHIVE": "1"}
        run(command, cwd=work, env=env, stdout=subprocess.DEVNULL if quiet else None)
        graphviz = built / GRAPHVIZ
        graphviz.parent.mkdir(parents=True)
        shutil.copy2(npm_package("@viz-js/viz") / "dist" / "viz.js", graphviz)
        check_offline(built)
        if outdir.exists():
            shutil.rmtree(outdir)
        outdir.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(built, outdir)
    return outdir


def check_offline(app):
    """Stop the build if the app's configuration names a place outside itself for Pyodide or packages."""
    config = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = config.get("litePluginSettings", {}).get(KERNEL_PLUGIN, {})
    url = kernel.get("pyodideUrl", "")
    if not url.startswith("./") or not (app / url).is_file():
        raise SystemExit(f"the app's Pyodide is not inside it (pyodideUrl {url!r}): the kernel would ask a CDN")
    if kernel.get("disablePyPIFallback") is not True:
        raise SystemExit("the app's kernel may fall back to PyPI: disablePyPIFallback is not set")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", nargs="?", default=str(ROOT / "build" / "site" / "lite"), help="where the app goes")
    parser.add_argument("--pyodide", metavar="FOLDER_OR_URL", help="a full Pyodide distribution to use instead of npm's core (untested here)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors")
    args = parser.parse_args(argv)
    app = build(args.outdir, full=args.pyodide, quiet=args.quiet)
    size = sum(path.stat().st_size for path in app.rglob("*") if path.is_file())
    print(f"The browser app is in {app} ({size / 1e6:.0f} MB): serve that folder, and open lab/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
