"""Every code cell of lessons 8 and 10 prints the same when run twice in a row (tests/run_twice.py): the half
of test_cells_run_twice.py that trains and times the longest, in a file of its own so that another worker
runs it."""

import pytest
from run_twice import differences, notebook_of


# Lesson 8 trains for 8 epochs; 2 show as well whether its training cell starts afresh each time it runs.
SHORTER = {8: [("EPOCHS, BATCH_SIZE = 8, 16", "EPOCHS, BATCH_SIZE = 2, 16")]}


@pytest.mark.parametrize("lesson", (8, 10), ids=lambda lesson: f"lesson{lesson:02d}")
def test_every_cell_prints_the_same_when_run_again(lesson, tmp_path):
    notebook = notebook_of(lesson)
    assert differences(notebook, tmp_path, SHORTER.get(lesson, ())) == [], f"{notebook.name}: cells that change when run again"
