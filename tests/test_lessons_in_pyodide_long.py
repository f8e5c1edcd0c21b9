"""Every code cell of lessons 7, 8 and 11 runs to its end under the browser app's Pyodide, and prints what the
notebook stores (tests/pyodide_lessons.py): the half of test_lessons_in_pyodide.py that trains the longest, in a
file of its own so that another worker runs it."""

import pytest
from pyodide_lessons import differences, notebook_of

LESSONS = (7, 8, 11)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: f"lesson{lesson:02d}")
def test_every_cell_runs_in_the_app_and_prints_what_the_notebook_stores(lesson, pyodide_lessons):
    found = differences(lesson, pyodide_lessons.run(lesson))
    assert found == [], f"{notebook_of(lesson).name} under Pyodide:\n" + "\n".join(found)
