"""Every code cell of lessons 8 and 10 prints the same when run twice in a row (tests/run_twice.py): the half
of test_cells_run_twice.py that trains and times the longest, in a file of its own so that another worker
runs it."""

import pytest
from run_twice import lesson_differences, notebook_of


@pytest.mark.parametrize("lesson", (8, 10), ids=lambda lesson: f"lesson{lesson:02d}")
def test_every_cell_prints_the_same_when_run_again(lesson, tmp_path):
    notebook = notebook_of(lesson)
    assert lesson_differences(lesson, tmp_path) == [], f"{notebook.name}: cells that change when run again"
