"""Build the course as a JupyterLite app: python browser_app/build_app.py [OUTDIR]  (make lite; OUTDIR defaults to build/site/lite).

The app is a static folder: JupyterLab and a Python kernel (Pyodide, CPython
compiled to WebAssembly) that run in the learner's browser, with the lessons
in its file browser.  Everything it loads is inside the folder, so any static
server (GitHub Pages, a course server, ``python -m http.server``) serves it and
the browser asks no other host:

- JupyterLite and its Pyodide kernel, from PyPI (``jupyterlite-core``,
  ``jupyterlite-pyodide-kernel``, pinned with their hashes in build-requirements.txt),
  installed by each build into a venv of its own: the kernel's JupyterLab extension is for
  the app, and would break the JupyterLab that make lab opens;
- Pyodide's core, and Graphviz compiled to WebAssembly (``@viz-js/viz``), from
  npm (pinned in package-lock.json; ``make setup`` runs ``npm ci``); Pyodide's version, and
  its Python's, are read from there (pyodide_version.py), and the kernel must have been made
  for that Pyodide (``jupyterlite_pyodide_kernel.constants.PYODIDE_VERSION``);
- the pure-Python wheels the kernel and the lessons import, from PyPI
  (pinned with their hashes in requirements.txt), a wheel of this package built
  from this checkout, and one of the kernel's IPython profile (kernel_profile/);
- JupyterLab's extensions: the Pyodide kernel's, and the widgets' front end, taken from
  the ``jupyterlab_widgets`` wheel the app ships (so it is the one its ipywidgets asks for);
- bytecode for the modules of those wheels and of Pyodide's standard library that a
  kernel imports, compiled by Pyodide's own Python (pyodide_bytecode.py), so that a
  kernel's start does not compile them;
- a Pyodide lock written for exactly those wheels (pyodide_lock.py), and a
  list of those the kernel loads when it starts (the wheels whose modules it imports),
  so ``import micrograd`` needs no ``%pip``; the others load when a cell imports them.

The kernel starts with the IPython extension ``micrograd.course.browser``: it
loads Graphviz, and stands in for what the browser lacks (matplotlib's figures
say where to see them; numpy's absence is one sentence, not a traceback), each
note linking to the page of the lesson being run, on the course site beside the
app: the build writes which lesson each cell id belongs to (app_lessons.py).
The lessons are copied as they are; a lesson whose Run All stops in the app
(``STOPS_IN_THE_APP``) gets a first cell saying so.

The app's configuration is in files beside this script: jupyter-lite.json (the build
fills in the packages a kernel preloads and, for ``{site_packages}``, the folder where
Pyodide's Python installs them) and overrides.json (JupyterLab's settings; README.md
says why each).

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
import posixpath
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from app_lessons import lesson_cells, lessons
from pyodide_bytecode import PACKAGE, add_bytecode, kernel_modules
from pyodide_lock import preload, write_lock
from pyodide_version import PYODIDE_VERSION, PYTHON_VERSION, SITE_PACKAGES

HERE = Path(__file__).resolve().parent  # this folder: the app's pins, configuration and kernel profile
ROOT = HERE.parent
NODE_MODULES = ROOT / "node_modules"
BUILT_MARK = "jupyter-lite.json"

KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
KERNEL_EXTENSION = "@jupyterlite/pyodide-kernel-extension"
WIDGETS_EXTENSION = "@jupyter-widgets/jupyterlab-manager"
PYODIDE_CORE = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide.js"]
# Where the kernel's worker script lives in the app, relative to the app's root: the
# kernel resolves the URLs it is given in its environment against it.
WORKER_DIR = f"extensions/{KERNEL_EXTENSION}/static"
UV = Path(sys.executable).with_name("uv")  # make setup installs it in the venv
PROFILE_PACKAGE = "micrograd_lite_kernel"
# What a kernel loads at start besides the wheels whose modules it imports: its IPython profile (files, not
# modules), and what the kernel's worker installs at every start unless it is preloaded (jupyterlite-pyodide-kernel's
# initPackageManager and initKernel; jedi is only imported at the first completion, but installed all the same).
KERNEL_START = ["micrograd-lite-kernel", "micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi",
                "ipython"]
# Files of the app's wheels that no kernel reads, left out: jedi's stubs of packages the app does not have (4 800 files,
# which every kernel would unpack) and of standard modules its Python lacks (Pyodide has no Tk; distutils and lib2to3
# left Python in 3.12 and 3.13), accessible-pygments' pictures of its styles, IPython's plugins for Sphinx and pytest,
# and the course's grading (a teacher's machine runs it: make grade).
TYPESHED_STDLIB = "jedi/third_party/typeshed/stdlib"
NEVER_READ = ["jedi/third_party/typeshed/stubs/*", "jedi/third_party/django-stubs/*",
              *(f"{TYPESHED_STDLIB}/{module}*" for module in ["tkinter/", "turtle.pyi", "distutils/", "lib2to3/"]),
              "a11y_pygments/*.png", "IPython/sphinxext/*", "IPython/testing/plugin/*", f"{PACKAGE}/course/grading/*"]
# Packages of which a kernel gets only the modules it imports: a kernel highlights Python only (tracebacks, ??,
# show_source), and Pygments' 600 lexers of other languages were 1 MB of every first load.
ONLY_IMPORTED = ["pygments.lexers"]
LESSON_CELLS = "lesson_cells.json"  # in the profile package: the lesson of each cell id (micrograd.course.browser.lessons)
# Where the widgets' front end is in the wheel of jupyterlab_widgets.
WIDGETS_IN_WHEEL = f"data/share/jupyter/labextensions/{WIDGETS_EXTENSION}/"


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
    """The pinned pure-Python wheels of requirements.txt, downloaded and hash-checked by pip."""
    run([
        sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
        "--no-deps", "--only-binary=:all:", "--require-hashes",
        "--python-version", PYTHON_VERSION, "--implementation", "py", "--abi", "none", "--platform", "any",
        "--dest", folder, "-r", HERE / "requirements.txt",
    ])


def build_tools(work):
    """A venv holding JupyterLite and its Pyodide kernel at their pinned versions; returns its Python."""
    tools = work / "tools"
    run([UV, "venv", "--quiet", "--python", sys.executable, tools])
    python = tools / "bin" / "python"
    # From the project's folder, wherever the build is run from: uv reads its settings from pyproject.toml there.
    run([UV, "pip", "install", "--quiet", "--python", python, "--require-hashes", "-r", HERE / "build-requirements.txt"],
        cwd=ROOT)
    return python


def kernel_pyodide_version(tools):
    """The Pyodide that the jupyterlite-pyodide-kernel installed in the venv of ``tools`` (its Python) was made for."""
    found = subprocess.run([str(tools), "-c", "from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION; "
                            "print(PYODIDE_VERSION)"], check=True, capture_output=True, text=True)
    return found.stdout.strip()


def check_kernel_pyodide(kernel_version, pinned=PYODIDE_VERSION):
    """Stop the build unless the kernel was made for the Pyodide package.json pins: its worker calls that Pyodide's
    JavaScript API, and its own wheels are tested with it only."""
    if kernel_version != pinned:
        raise SystemExit(
            f"jupyterlite-pyodide-kernel was made for Pyodide {kernel_version}, but package.json pins pyodide {pinned}: "
            f"pin the kernel's (npm install --save-exact --ignore-scripts pyodide@{kernel_version}), or a "
            f"jupyterlite-pyodide-kernel made for {pinned} in browser_app/build-requirements.in (make lock)")


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


def profile_wheel(folder, work):
    """The kernel's IPython profile (kernel_profile/, a project of its own), with the lesson of each cell id, built
    into a wheel in ``folder``: the extensions every kernel loads when it starts, after a restart too: %%my_micrograd
    and the sentence under a NameError (as make setup gives JupyterLab's kernels), and what the browser needs
    (micrograd.course.browser); and the table its notes read to link to the page of the lesson being run."""
    source = work / "kernel_profile"
    shutil.copytree(HERE / "kernel_profile", source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    (source / PROFILE_PACKAGE / LESSON_CELLS).write_text(json.dumps(lesson_cells(), sort_keys=True) + "\n")
    run([UV, "build", "--quiet", "--wheel", "--out-dir", folder, source])


def widgets_front_end(wheels, target):
    """The widgets' JupyterLab extension, from the jupyterlab_widgets wheel among ``wheels`` (the one the kernel's
    ipywidgets loads), unpacked into ``target``; stops the build unless that ipywidgets asks for this version."""
    found = {canonicalize_name(parse_wheel_filename(wheel.name)[0]): wheel for wheel in wheels}
    front, ipywidgets = found["jupyterlab-widgets"], found["ipywidgets"]
    version = parse_wheel_filename(front.name)[1]
    with zipfile.ZipFile(ipywidgets) as archive:
        metadata = archive.read(next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA")))
    wanted = [Requirement(line.split(":", 1)[1].strip()) for line in metadata.decode("utf-8").splitlines()
              if line.startswith("Requires-Dist:") and "jupyterlab" in line.lower()]
    wanted = [requirement for requirement in wanted if canonicalize_name(requirement.name) == "jupyterlab-widgets"]
    if not wanted or not wanted[0].specifier.contains(version, prereleases=True):
        raise SystemExit(f"{ipywidgets.name} asks for {wanted[0] if wanted else 'no jupyterlab_widgets'}, but the app "
                         f"ships {front.name}: pin the two together in browser_app/requirements.in (make lock)")
    with zipfile.ZipFile(front) as archive:
        prefix = next(name for name in archive.namelist() if WIDGETS_IN_WHEEL in name).split(WIDGETS_IN_WHEEL)[0]
        for name in archive.namelist():
            if name.startswith(prefix + WIDGETS_IN_WHEEL) and not name.endswith("/"):
                path = target / name[len(prefix + WIDGETS_IN_WHEEL):]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(archive.read(name))
    return target


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
    """Pyodide's core, this app's wheels and its lock, in ``target``; returns the names the kernel preloads, and the
    folder of the widgets' front end (from the app's wheel)."""
    target.mkdir(parents=True)
    core = full_distribution(full, work) if full else npm_package("pyodide")
    for name in PYODIDE_CORE:
        shutil.copy2(core / name, target)
    npm_lock = json.loads((core / "pyodide-lock.json").read_text())
    if npm_lock["info"]["python"].rsplit(".", 1)[0] != PYTHON_VERSION:
        raise SystemExit(f"the Pyodide in {core} runs Python {npm_lock['info']['python']}, not the {PYTHON_VERSION} of "
                         f"Pyodide {PYODIDE_VERSION} (package-lock.json): use a Pyodide {PYODIDE_VERSION}")
    wheels = work / "wheels"
    wheels.mkdir()
    browser_wheels(wheels)
    kernel_wheels(wheels, tools)
    package_wheel(wheels, work)
    profile_wheel(wheels, work)
    widgets = widgets_front_end(sorted(wheels.glob("*.whl")), work / "widgets" / WIDGETS_EXTENSION)
    imported = kernel_modules()
    add_bytecode(core, sorted(wheels.glob("*.whl")), target / "python_stdlib.zip", work,
                 modules=imported, packages=[PACKAGE], leave_out=NEVER_READ, only_compiled=ONLY_IMPORTED)
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
    return preloaded, widgets


def app_config(preload):
    """jupyter-lite.json, from this folder's: the kernel loads this app's lock and wheels, and never PyPI or a CDN."""
    config = json.loads((HERE / "jupyter-lite.json").read_text(encoding="utf-8"))
    options = config["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]["loadPyodideOptions"]
    options["packages"] = preload
    options["env"] = {name: value.replace("{site_packages}", SITE_PACKAGES) for name, value in options["env"].items()}
    return config


def in_app(url):
    """Where a URL of the kernel's environment points, from the app's root (it is relative to the kernel's worker)."""
    return posixpath.normpath(posixpath.join(WORKER_DIR, url))


def federated_extensions(tools, widgets):
    """The app's JupyterLab extensions: the Pyodide kernel's, and the widgets' front end from the app's wheel."""
    return [labextensions(tools) / KERNEL_EXTENSION, widgets]


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
        check_kernel_pyodide(kernel_pyodide_version(tools))
        preload, widgets = pyodide_folder(lite_dir / "static" / "pyodide", work, tools, full)
        lessons(lite_dir / "files")
        extensions = lite_dir / "labextensions"  # only these two, whatever else the environment has
        for extension in federated_extensions(tools, widgets):
            shutil.copytree(extension, extensions / extension.relative_to(extension.parent.parent))
        build_config = {"FederatedExtensionAddon": {"extra_labextensions_path": [str(extensions)]}}
        (lite_dir / "jupyter_lite_config.json").write_text(json.dumps(build_config, indent=1) + "\n")
        config = app_config(preload)
        (lite_dir / "jupyter-lite.json").write_text(json.dumps(config, indent=1) + "\n")
        shutil.copy2(HERE / "overrides.json", lite_dir)  # JupyterLite applied it from its own folder only
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
        env = config["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]["loadPyodideOptions"]["env"]
        graphviz = built / in_app(env["MICROGRAD_GRAPHVIZ_URL"])
        graphviz.parent.mkdir(parents=True)
        shutil.copy2(npm_package("@viz-js/viz") / "dist" / "viz.js", graphviz)
        small_icon(built / "lab" / "favicon.ico")
        check_offline(built)
        if outdir.exists():
            shutil.rmtree(outdir)
        outdir.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(built, outdir)
    return outdir


def small_icon(path, largest=48):
    """Keep only the images of an .ico no larger than ``largest`` px: a tab shows 16 to 48.  JupyterLite's has ten,
    up to 256 px, 319 kB that every first load downloaded."""
    data = path.read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data)
    entries = [struct.unpack_from("<BBBBHHII", data, 6 + 16 * index) for index in range(count)]
    kept = [entry for entry in entries if 0 < entry[0] <= largest]  # a width of 0 means 256
    if not kept:
        return
    header, images, offset = struct.pack("<HHH", reserved, kind, len(kept)), b"", 6 + 16 * len(kept)
    for *sizes, length, start in kept:
        header += struct.pack("<BBBBHHII", *sizes, length, offset + len(images))
        images += data[start:start + length]
    path.write_bytes(header + images)


def check_offline(app):
    """Stop the build if the app's configuration names a place outside itself for Pyodide or packages."""
    config = json.loads((app / "jupyter-lite.json").read_text())["jupyter-config-data"]
    kernel = config.get("litePluginSettings", {}).get(KERNEL_PLUGIN, {})
    url = kernel.get("pyodideUrl", "")
    if not url.startswith("./") or not (app / url).is_file():
        raise SystemExit(f"the app's Pyodide is not inside it (pyodideUrl {url!r}): the kernel would ask a CDN")
    if kernel.get("disablePyPIFallback") is not True:
        raise SystemExit("the app's kernel may fall back to PyPI: disablePyPIFallback is not set")
    for name, value in kernel["loadPyodideOptions"]["env"].items():
        if name.endswith("_URL") and (in_app(value).startswith("../../") or "://" in value):
            raise SystemExit(f"{name} in browser_app/jupyter-lite.json ({value!r}) points outside the site the app is in")


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
