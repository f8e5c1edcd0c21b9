"""The lessons' build-it cells as they come with the course: each piece's template, the code a learner fills in.

A build-it cell is a code cell that starts with ``%%my_micrograd lesson N: piece``; ``lesson N: piece`` is its
key.  The package ships every template in ``templates.json``, made from the lessons' notebooks (``write``,
which scripts/execute_notebooks.py runs; tests/test_yours.py checks the shipped copy against the notebooks),
so that a kernel, the browser app's included, knows a template when a cell still shows one (after a reload,
say) and never lets it replace the learner's own code (``magic``).
"""

import json
import re
from pathlib import Path

__all__ = ["TEMPLATES_FILE", "section_key", "body", "stored_cells", "template", "is_template", "from_notebooks", "write"]

TEMPLATES_FILE = Path(__file__).with_name("templates.json")
MAGIC = "%%my_micrograd"

_LINE = re.compile(r"^\s*lesson\s*(\d+)\s*:\s*(\S.*?)\s*$")


def section_key(line):
    """'lesson 3: MyValue' (the magic's line) -> 'lesson 3: MyValue', or None if it is not that form."""
    match = _LINE.match(line or "")
    if not match:
        return None
    return f"lesson {int(match.group(1))}: {match.group(2)}"


def body(code):
    """Code as a section of my_micrograd.py holds it: no blank lines at either end, one newline at the end.
    Takes the code's text, or its lines."""
    lines = code.splitlines() if isinstance(code, str) else code
    return "\n".join(lines).strip("\n") + "\n"


def stored_cells(notebook):
    """[(key, code)] of a notebook's %%my_micrograd cells, in order: what running them stores.
    Takes the notebook's path, or the notebook as JSON already read."""
    cells = (notebook if isinstance(notebook, dict) else json.loads(Path(notebook).read_text(encoding="utf-8")))["cells"]
    found = []
    for cell in cells:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and source.startswith(MAGIC):
            line, _, code = source.partition("\n")
            found.append((section_key(line[len(MAGIC):]), code))
    return found


_SHIPPED = {}


def _shipped():
    if not _SHIPPED:
        _SHIPPED.update(json.loads(TEMPLATES_FILE.read_text(encoding="utf-8")))
    return _SHIPPED


def template(key):
    """The lesson's template for the piece key, as a section holds it; None for a key no lesson has."""
    return _shipped().get(key)


def is_template(key, code):
    """Is code the lesson's own template for key (blank lines at either end aside)?"""
    shipped = template(key)
    return shipped is not None and body(code) == shipped


def from_notebooks(notebooks):
    """{key: template} of the build-it cells of the notebooks, in the lessons' order."""
    return {key: body(code) for notebook in notebooks for key, code in stored_cells(notebook)}


def write(notebooks, path=TEMPLATES_FILE):
    """Write the notebooks' templates where the package ships them; returns the path."""
    text = json.dumps(from_notebooks(notebooks), indent=1, ensure_ascii=False) + "\n"
    Path(path).write_text(text, encoding="utf-8")
    _SHIPPED.clear()
    return Path(path)
