"""The browser app's Pyodide lock: exactly the wheels the app ships, and nothing it would fetch.

Pyodide loads a package by looking it up in ``pyodide-lock.json`` beside its core
and fetching the wheel the entry names from the same folder.  npm's ``pyodide``
package ships the core with the lock of the full distribution: some 350 entries
whose wheels it does not ship.  An ``import numpy`` would then ask the server for
a wheel that is not there.  So the app's lock is written afresh from the wheels in
the folder: each entry's name, version, file, sha256, the modules it provides
and the packages it needs, read from the wheel itself.  A package a wheel needs
that no wheel provides stops the build with its name.

Only the lock's ``info`` (Pyodide's version, Python and ABI) is taken from npm's:
it is what the core checks a lock against.

A kernel starts with the packages whose modules it imports (``preload``), and Pyodide
loads each package's ``depends`` with it.  So a preloaded package's ``depends`` name only
other preloaded packages: IPython needs prompt_toolkit for its terminal, which a kernel
never opens, and every kernel would unpack it all the same.  Such a package stays in the
lock, where a cell that imports it (or ``%pip install``) finds it, offline.

Written here, not by the ``pyodide-lock`` package's ``add_wheels_to_spec``: that would bring pydantic and its
compiled core into the environment that builds the app, for what ``packaging`` does here in a few lines.
"""

import email.parser
import hashlib
import json
import zipfile
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

__all__ = ["browser_environment", "lock_entry", "preload", "write_lock"]


def browser_environment(python_version):
    """The marker environment of Pyodide's Python: what a wheel's ``Requires-Dist`` markers see there."""
    environment = default_environment()
    environment.update(
        python_version=".".join(python_version.split(".")[:2]),
        python_full_version=python_version,
        sys_platform="emscripten",
        platform_system="Emscripten",
        platform_machine="wasm32",
        os_name="posix",
        implementation_name="cpython",
        platform_python_implementation="CPython",
    )
    return environment


def _metadata(wheel):
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
        metadata = email.parser.Parser().parsestr(archive.read(name).decode("utf-8"))
        files = archive.namelist()
    return metadata, files


def _imports(files):
    """The top-level modules a wheel installs: packages (folders with an __init__.py) and single modules."""
    names = set()
    for path in files:
        top = path.split("/")[0]
        if top.endswith((".dist-info", ".data")):
            continue
        if "/" in path:
            if path.count("/") == 1 and path.endswith("/__init__.py"):
                names.add(top)
        elif path.endswith(".py"):
            names.add(path[: -len(".py")])
    return sorted(names)


def lock_entry(wheel, environment):
    """A lock entry for ``wheel`` (a pure-Python wheel), with its needs as names not yet checked."""
    wheel = Path(wheel)
    name, version, _, tags = parse_wheel_filename(wheel.name)
    if not any(tag.platform == "any" for tag in tags):
        raise ValueError(f"{wheel.name} is not a pure-Python wheel: Pyodide cannot load a compiled wheel of PyPI's")
    metadata, files = _metadata(wheel)
    needs = []
    for line in metadata.get_all("Requires-Dist") or []:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate({**environment, "extra": ""}):
            needs.append(str(canonicalize_name(requirement.name)))
    return {
        "name": str(name),
        "version": str(version),
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "package_type": "package",
        "imports": _imports(files),
        "depends": sorted(set(needs)),
        "unvendored_tests": False,
    }


def write_lock(folder, info, lock_path=None):
    """Write ``pyodide-lock.json`` in ``folder`` for every wheel there; returns the lock as a dict."""
    folder = Path(folder)
    environment = browser_environment(info["python"])
    packages = {}
    for wheel in sorted(folder.glob("*.whl")):
        entry = lock_entry(wheel, environment)
        if entry["name"] in packages:
            raise ValueError(f"two wheels of {entry['name']} in {folder}: {packages[entry['name']]['file_name']} and {wheel.name}")
        packages[entry["name"]] = entry
    for entry in packages.values():
        missing = [need for need in entry["depends"] if need not in packages]
        if missing:
            raise ValueError(
                f"{entry['file_name']} needs {', '.join(missing)}, which no wheel of the app provides: "
                "add it to browser_app/requirements.in and run make lock"
            )
    lock = {"info": dict(info), "packages": packages}
    path = Path(lock_path) if lock_path else folder / "pyodide-lock.json"
    path.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    return lock


def preload(lock, imported, always=()):
    """The packages of ``lock`` a kernel loads when it starts: those that provide one of the top-level modules
    ``imported``, and those named in ``always``; returns their names, sorted.  Their ``depends`` are cut, in ``lock``,
    to the packages it returns."""
    packages = lock["packages"]
    unknown = sorted(set(always) - set(packages))
    if unknown:
        raise ValueError(f"no wheel of the app is named {', '.join(unknown)}: the kernel cannot preload it")
    imported = set(imported)
    chosen = {name for name, entry in packages.items() if imported & set(entry["imports"])} | set(always)
    for name in chosen:
        packages[name]["depends"] = [need for need in packages[name]["depends"] if need in chosen]
    return sorted(chosen)
