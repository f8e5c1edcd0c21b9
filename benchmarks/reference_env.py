"""The environment that holds micrograd 0.1.0 from PyPI, beside this project.

Both packages are called ``micrograd``, so they cannot share an interpreter.
On first use this makes a virtual environment under
``benchmarks/results/.envs/`` (git-ignored) with this interpreter, one for each
Python version, and installs micrograd 0.1.0 into it, with the same numpy and
scikit-learn versions this interpreter has, so Karpathy's demo runs there
unchanged and both engines are measured on the same Python.  Later runs reuse it.
"""

import subprocess
import sys
import venv
from importlib import metadata
from pathlib import Path

ENVS = Path(__file__).resolve().parent / "results" / ".envs"
REFERENCE = "micrograd==0.1.0"


def _pins():
    """micrograd 0.1.0 plus the demo's data packages at this interpreter's versions."""
    return [REFERENCE] + [f"{name}=={metadata.version(name)}" for name in ("numpy", "scikit-learn")]


def reference_python():
    """Path of the interpreter whose ``import micrograd`` is micrograd 0.1.0."""
    pins = _pins()
    home = ENVS / "micrograd-0.1.0-python{}.{}".format(*sys.version_info[:2])
    python = home / "bin" / "python"
    stamp = home / "installed.txt"  # written last: a half-made environment is redone
    if stamp.exists() and stamp.read_text().split() == pins:
        return python
    print(f"Setting up {home} with {', '.join(pins)} (first run only)...", file=sys.stderr)
    venv.create(home, clear=True, with_pip=True)
    try:
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *pins], check=True)
    except subprocess.CalledProcessError as error:
        raise SystemExit(
            f"Could not install {' '.join(pins)} into {home} (pip exited with {error.returncode}). "
            "The comparison needs PyPI once; check the network and rerun."
        ) from None
    stamp.write_text("\n".join(pins) + "\n")
    return python
