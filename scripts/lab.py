"""Start JupyterLab on the lessons: what `make lab` runs.

    python scripts/lab.py [extra `jupyter lab` options]

The server listens on 127.0.0.1 only and keeps Jupyter's token
authentication: the token is generated at start-up (or taken from
JUPYTER_TOKEN) and printed in the URL to open.  Lessons run on the Python
that runs this script, so they import the package installed next to it.
tests/test_lab_server.py starts the server by running this file, so the test
checks exactly what `make lab` starts.
"""

import os
import sys
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def command(extra_args, root=NOTEBOOKS):
    """The argv that starts JupyterLab on notebooks/ (or another folder of lessons), ending with extra_args."""
    argv = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.root_dir={root}",
    ]
    # Jupyter refuses to run as root unless told to; containers and CI run as root.
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        argv.append("--allow-root")
    return argv + list(extra_args)


def main():
    # Prefer this environment's kernel over one a user registered globally
    # (~/.local/share/jupyter/kernels), which may not have micrograd installed.
    os.environ["JUPYTER_PREFER_ENV_PATH"] = "1"
    argv = command(sys.argv[1:])
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
