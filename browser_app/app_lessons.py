"""The lessons as the browser app has them: copies for its file browser, and the table its kernel reads to tell
which lesson it runs (the lesson of each cell id, and each lesson's page on the course site beside the app)."""

import json
from pathlib import Path

from micrograd.course.browser.lessons import STOPS_IN_THE_APP, lesson_page

__all__ = ["NOTEBOOKS", "lesson_cells", "lessons"]

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


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
