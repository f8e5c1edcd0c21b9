"""Which lesson the browser app's kernel is running, and that lesson's page on the course site.

JupyterLite tells its kernel only the folder of the notebook, and the lessons share one folder
(their ``my_micrograd.py`` with them).  But JupyterLab sends the id of the cell it runs with each
request (the execute request's metadata, ``cellId``), and the app's build writes which lesson each
cell id belongs to, and each lesson's page: a JSON file
``{"pages": {lesson: page path on the site}, "cells": {cell id: lesson}}`` named by
``MICROGRAD_LESSON_CELLS`` (browser_app/build_app.py).  A cell the learner added has an id of its own:
the kernel runs the lesson its last known cell came from (a notebook has a kernel of its own).
"""

import json
import os

__all__ = ["LESSON_CELLS_VARIABLE", "STOPS_IN_THE_APP", "Lessons", "lesson_page", "running_cell_id"]

LESSON_CELLS_VARIABLE = "MICROGRAD_LESSON_CELLS"
# The lessons whose Run All stops in the browser app, and why: the app's copy of such a lesson says it
# in its first cell (browser_app/build_app.py), and the site's link to it says it too (docs/_ext).
STOPS_IN_THE_APP = {}  # none: every lesson runs to its last cell there


def lesson_page(lesson):
    """The path of a lesson's page on the course site, from the site's root (``lessons/NN_name.html``)."""
    return f"lessons/{lesson}.html"


class Lessons:
    """The app's lessons: the lesson of a cell id, and a lesson's page under ``site_url``."""

    def __init__(self, cells, pages, site_url=None):
        self.cells = dict(cells)
        self.pages = dict(pages)
        self.site_url = site_url
        self.current = None  # the lesson of the last cell run whose lesson is known

    @classmethod
    def from_environment(cls, site_url=None):
        """The table the build wrote (``MICROGRAD_LESSON_CELLS``), or an empty one where there is none."""
        path = os.environ.get(LESSON_CELLS_VARIABLE)
        if not path:
            return cls({}, {}, site_url)
        with open(path, encoding="utf-8") as table:
            found = json.load(table)
        return cls(found["cells"], found["pages"], site_url)

    def cell_ran(self, cell_id):
        """Note the cell about to run; returns the lesson being run now (None while unknown)."""
        lesson = self.cells.get(cell_id)
        if lesson is not None:
            self.current = lesson
        return self.current

    def page_url(self):
        """The page of the lesson being run, or the site's front page while the lesson is unknown (None: no site)."""
        if self.site_url is None:
            return None
        page = self.pages.get(self.current)
        return self.site_url + page if page else self.site_url


def running_cell_id(shell, info=None):
    """The id of the cell the shell is about to run, as the notebook sent it; None where nothing says.

    IPython's ``ExecutionInfo.cell_id`` where the kernel passes it on (ipykernel does), else the
    ``cellId`` of the execute request's metadata (JupyterLite's Pyodide kernel keeps the request
    as its parent).
    """
    cell_id = getattr(info, "cell_id", None)
    if cell_id:
        return cell_id
    try:
        metadata = shell.kernel.get_parent().get("metadata") or {}
    except (AttributeError, TypeError):  # no kernel (a plain IPython shell), or no request yet
        return None
    cell_id = metadata.get("cellId")
    return cell_id if isinstance(cell_id, str) else None
