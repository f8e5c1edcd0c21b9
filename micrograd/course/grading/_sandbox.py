"""The sandbox a submission's kernel runs in: bubblewrap on Linux, or nothing.

Only the kernel (the process that runs the student's code) is sandboxed.  The
worker that talks to it (micrograd.course.grading._worker) runs outside, reads the
kernel's messages over Unix sockets in a folder of the worker's making, and
sends the grader what it saw through a pipe the kernel never holds.

Inside bubblewrap the kernel has

- no network (a network namespace of its own, with nothing in it);
- a read-only view of the system's programs and libraries (/usr, /bin, /lib*,
  the few files of /etc that programs read), of the Python installation, of
  the virtual environment and of the micrograd package: nothing else of the
  host, so no $HOME, no submissions folder, no other submission, no grades.csv;
- one writable folder, /grading: its working folder, home and temporary
  folder, a tmpfs of SANDBOX_FOLDER_BYTES that vanishes with the sandbox
  (and a small tmpfs on /tmp); plus the folder of its own connection sockets;
- a PID namespace of its own (--unshare-pid): it sees its own processes only,
  so it can signal neither the grader nor anyone else, and when the sandbox
  ends (--die-with-parent, or the worker killing bwrap) every process it
  started dies with it;
- a session of its own (--new-session: no terminal to push keystrokes into),
  no capabilities, and an environment holding only what a kernel needs (the
  grader's own variables, tokens included, never reach it).
"""

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

SANDBOX_HOME = "/grading"  # the one writable folder, inside the sandbox
# The student's my_micrograd.py, bound read-only; the kernel copies it into its working folder as it starts.
CARRIED_IN_SANDBOX = "/carried/my_micrograd.py"
SANDBOX_FOLDER_BYTES = 512 * 1024**2  # a tmpfs: what a notebook writes costs memory, so it is capped
# What programs (Python, Graphviz's dot, fonts) read from /etc.  Nothing else of it.
ETC_FILES = [
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "fonts", "alternatives", "localtime",
    "mime.types", "nsswitch.conf", "passwd", "group", "matplotlibrc",
]
SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt/homebrew"]


def _package_folder():
    import micrograd

    return Path(micrograd.__file__).resolve().parent


def _python_folders():
    """Folders the kernel's Python needs to read: its installation, the venv and every path it imports from."""
    folders = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.base_exec_prefix),
               Path(sys.executable).resolve().parent.parent}
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(name)
        if path:
            folders.add(Path(path))
    for entry in sys.path:
        if entry and Path(entry).is_dir() and Path(entry).resolve() != Path.cwd().resolve():
            folders.add(Path(entry))
    # Never the whole machine or a home folder (a PYTHONPATH of ~ would otherwise expose it all).
    home = Path.home().resolve()
    folders = {folder.resolve() for folder in folders if folder.exists()}
    folders = {folder for folder in folders if folder != Path("/") and folder not in (home, *home.parents)}
    # Keep the outermost: /root/.pyenv/versions/3.11.7 covers its lib/python3.11.
    return sorted(folder for folder in folders if not any(other != folder and other in folder.parents for other in folders))


def kernel_environment(home, extra_path=()):
    """The kernel's whole environment: nothing of the grader's but the PATH to Python and Graphviz."""
    home = str(home)
    path = os.pathsep.join([str(Path(sys.executable).parent), *extra_path, "/usr/local/bin", "/usr/bin", "/bin"])
    return {
        "PATH": path,
        "HOME": home,
        "USER": "student",
        "LOGNAME": "student",
        "TMPDIR": os.path.join(home, "tmp"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        # IPython's history, profile and Jupyter's runtime files land in the kernel's own folder.
        "IPYTHONDIR": os.path.join(home, ".ipython"),
        "JUPYTER_CONFIG_DIR": os.path.join(home, ".jupyter"),
        "JUPYTER_DATA_DIR": os.path.join(home, ".local", "share", "jupyter"),
        "JUPYTER_RUNTIME_DIR": os.path.join(home, ".local", "share", "jupyter", "runtime"),
        "MPLCONFIGDIR": os.path.join(home, ".matplotlib"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
        # Where the package comes from PYTHONPATH, its folders are bound read-only too (they are on sys.path).
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}),
    }


def bwrap_command(runtime_folder, carried=None):
    """The bwrap arguments (up to and including '--') that sandbox one kernel.

    runtime_folder: the host folder of the kernel's connection file and sockets,
    mounted at the same path (the only host folder the kernel can write).
    carried: the student's my_micrograd.py (a copy of the grader's), bound read-only at CARRIED_IN_SANDBOX.
    """
    bwrap = shutil.which("bwrap")
    command = [
        bwrap,
        "--unshare-all",  # network, PID, IPC, UTS, cgroup and user namespaces
        "--unshare-user",  # the user namespace is what lets an unprivileged grader run bwrap
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--cap-drop", "ALL",
        "--hostname", "sandbox",
    ]
    for folder in SYSTEM_FOLDERS:
        if os.path.isdir(folder):
            # A symlink (/bin -> usr/bin on merged-/usr systems) is recreated as a symlink.
            if os.path.islink(folder):
                command += ["--symlink", os.readlink(folder), folder]
            else:
                command += ["--ro-bind", folder, folder]
    for name in ETC_FILES:
        path = os.path.join("/etc", name)
        if os.path.exists(path):
            command += ["--ro-bind", path, path]
    command += [
        "--proc", "/proc",  # the PID namespace's own: the kernel's processes and nothing else
        "--dev", "/dev",
        "--size", str(SANDBOX_FOLDER_BYTES), "--tmpfs", SANDBOX_HOME,
        "--dir", os.path.join(SANDBOX_HOME, "tmp"),
        "--size", str(64 * 1024**2), "--tmpfs", "/tmp",
    ]
    # After the tmpfs on /tmp, which would otherwise hide a checkout or a venv that lives under /tmp.
    for folder in [*_python_folders(), _package_folder()]:
        command += ["--ro-bind", str(folder), str(folder)]
    if carried:
        command += ["--ro-bind", str(carried), CARRIED_IN_SANDBOX]
    command += [
        "--bind", str(runtime_folder), str(runtime_folder),
        "--remount-ro", "/",  # the sandbox's own root: nothing can be created beside the mounts
        "--chdir", SANDBOX_HOME,
    ]
    for name, value in kernel_environment(SANDBOX_HOME).items():
        command += ["--setenv", name, value]
    return [*command, "--"]


@functools.lru_cache(maxsize=None)
def unavailable():
    """None when kernels can run under bubblewrap here; otherwise why not, in a few words."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap runs on Linux only (this is {sys.platform})"
    if not shutil.which("bwrap"):
        return "bubblewrap is not installed (scripts/ensure-system-deps bubblewrap)"
    import tempfile

    with tempfile.TemporaryDirectory(prefix="micrograd-bwrap-probe-") as folder:
        command = [*bwrap_command(folder), sys.executable, "-c", "import micrograd.course"]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bubblewrap did not run: {error}"
    if result.returncode != 0:
        detail = (result.stderr.strip().splitlines() or ["exit status %d" % result.returncode])[-1]
        return f"bubblewrap cannot make a sandbox here ({detail[:200]}; user namespaces may be disabled)"
    return None
