"""Every code cell of lessons 0 to 7 and 9 prints the same when run twice in a row (tests/run_twice.py).

The lessons are split over two files, this one and test_cells_run_twice_long.py (lessons 8 and 10, which
train and time the longest), so that make test's workers, which take a file each, run the halves side by side.
"""

import pytest
from run_twice import differences, lesson_differences, notebook_of

LESSONS = (0, 1, 2, 3, 4, 5, 6, 7, 9)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: f"lesson{lesson:02d}")
def test_every_cell_prints_the_same_when_run_again(lesson, tmp_path):
    notebook = notebook_of(lesson)
    assert lesson_differences(lesson, tmp_path) == [], f"{notebook.name}: cells that change when run again"


def test_the_check_finds_a_cell_that_keeps_going_one_that_deletes_what_it_reads_and_an_unseeded_draw(tmp_path):
    """Run on a notebook of its own: what the lessons' cells did before they were fixed, and what passes."""
    import json

    sources = ["import random\ncount = 0", "count += 1\nprint(count)", "total = 5\nprint(total)",
               "print(total)\ndel total", "print(random.random())", "random.seed(0)\nprint(random.random())",
               "print(hex(id(object())))"]
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
             for source in sources]
    notebook = tmp_path / "cells.ipynb"
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    found = dict(differences(notebook, tmp_path))
    assert sorted(found) == [1, 3, 4]  # a memory address differs only where sanitize.cfg says it may
    assert "'1' became '2'" in found[1] and "NameError" in found[3]
