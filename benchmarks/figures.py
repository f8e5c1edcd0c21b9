"""What every benchmark script shares: its one line of output.

Each script prints one JSON object on its last line of output, together with
the file of the ``micrograd`` it imported, so that ``run_all.py`` can check
which engine really ran.
"""

import json
import sys


def emit(**figures):
    """Print the figures, and which micrograd produced them, as one JSON line."""
    micrograd = sys.modules.get("micrograd")
    figures["micrograd"] = getattr(micrograd, "__file__", None)
    print(json.dumps(figures))
