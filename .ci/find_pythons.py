"""The CPython versions .ci/run tests: the machine's python3, and the newest other one it has.

    python3 .ci/find_pythons.py

prints the second interpreter's path (nothing if there is none) and, on
standard error, a table: each supported version, where it was found, what runs.

Interpreters are looked for as python3.X on the PATH and as pyenv's builds
($PYENV_ROOT, else ~/.pyenv, /versions/*/bin/python3).  Each one is run once to
ask what it is: a pyenv shim that only names a version not selected fails there
and is passed over, and so are other implementations and free-threaded builds.
Standard library only: this runs before any venv exists.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys

# The versions the course is tested on; the workflow's matrix names the same (tests/test_ci_pythons.py).
SUPPORTED = ("3.11", "3.12", "3.13", "3.14")

_PROBE = (
    "import platform, sysconfig; "
    "print(platform.python_implementation(), platform.python_version(), "
    "int(bool(sysconfig.get_config_var('Py_GIL_DISABLED'))))"
)


def candidates(path=None, pyenv_root=None):
    """Executables that may be a supported CPython: python3.X on the PATH, then pyenv's builds."""
    found = [shutil.which(f"python{version}", path=path) for version in SUPPORTED]
    root = pyenv_root or os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found += sorted(glob.glob(os.path.join(root, "versions", "3.*", "bin", "python3")))
    return [exe for exe in found if exe]


def probe(executable):
    """(implementation, version as a tuple of ints, free-threaded) of an interpreter, or None if it does not run."""
    try:
        done = subprocess.run([executable, "-c", _PROBE], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    implementation, version, free_threaded = done.stdout.split()
    return implementation, tuple(int(part) for part in version.split(".")[:3]), free_threaded == "1"


def minor(version):
    return f"{version[0]}.{version[1]}"


def dotted(version):
    return ".".join(map(str, version))


def choose(first, probed):
    """The second interpreter and a report.

    ``first`` is (executable, version) of the machine's python3, ``probed`` maps
    each candidate to what ``probe`` said.  The second is the newest usable
    CPython whose minor version is supported and differs from the first's.
    """
    usable = {}  # minor version -> (version, executable): the newest build of each
    for executable, found in probed.items():
        if found is None:
            continue
        implementation, version, free_threaded = found
        if implementation != "CPython" or free_threaded or minor(version) not in SUPPORTED:
            continue
        if minor(version) not in usable or version > usable[minor(version)][0]:
            usable[minor(version)] = (version, executable)
    first_executable, first_version = first
    others = [entry for key, entry in usable.items() if key != minor(first_version)]
    second = max(others)[1] if others else None
    lines = [f"CPython versions the course supports: {', '.join(SUPPORTED)}"]
    for key in SUPPORTED:
        if key == minor(first_version):
            lines.append(f"  {key}  {first_executable} (CPython {dotted(first_version)}): make test")
        elif key not in usable:
            lines.append(f"  {key}  not found")
        else:
            version, executable = usable[key]
            role = ("make test PYTHON=... in a fresh clone" if executable == second
                    else f"found, not run: {minor(max(others)[0])} is newer")
            lines.append(f"  {key}  {executable} (CPython {dotted(version)}): {role}")
    if second is None:
        lines.append("  No other supported CPython found (python3.X on the PATH, pyenv's versions): one version tested.")
    return second, lines


def main():
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    first = ("python3", tuple(sys.version_info[:3]))  # .ci/run runs this with the machine's python3
    second, lines = choose(first, {exe: probe(exe) for exe in dict.fromkeys(candidates())})
    print("\n".join(lines), file=sys.stderr)
    if second:
        print(second)


if __name__ == "__main__":
    main()
