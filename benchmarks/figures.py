"""What every benchmark script shares: its one line of output.

Each script prints one JSON object on its last line of output, together with
the file of the ``micrograd`` it imported and the Python it ran on, so that
``run_all.py`` can check which engine really ran, and on which interpreter.
"""

import json
import platform
import sys


def emit(**figures):
    """Print the figures, and which micrograd and which Python produced them, as one JSON line."""
    micrograd = sys.modules.get("micrograd")
    figures["micrograd"] = getattr(micrograd, "__file__", None)
    figures["python"] = f"{platform.python_implementation()} {platform.python_version()}"
    print(json.dumps(figures))
