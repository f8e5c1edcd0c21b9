"""Every code cell of lessons 0 to 6, 9 and 10 runs to its end under the browser app's Pyodide, and prints what
the notebook stores (tests/pyodide_lessons.py); and the comparison itself, on outputs made up here.

The lessons are split over two files, this one and test_lessons_in_pyodide_long.py (lessons 7, 8 and 11,
which train the longest), so that make test's workers, which take a file each, run the halves side by side,
each in a Pyodide of its own.
"""

import pytest
from pyodide_lessons import FIGURE_NOTE, PICTURE, LessonRun, compare, differences, notebook_of

LESSONS = (0, 1, 2, 3, 4, 5, 6, 9, 10)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: f"lesson{lesson:02d}")
def test_every_cell_runs_in_the_app_and_prints_what_the_notebook_stores(lesson, pyodide_lessons):
    found = differences(lesson, pyodide_lessons.run(lesson))
    assert found == [], f"{notebook_of(lesson).name} under Pyodide:\n" + "\n".join(found)


# -- the comparison itself, on outputs made up here (no Pyodide) -------------------------------------


def _stream(text, kind="stdout"):
    return {"kind": kind, "formats": [], "text": text}


def _result(text, *formats, kind="execute_result"):
    return {"kind": kind, "formats": sorted({"text/plain", *formats}), "text": text}


def _compared(stored, printed, ignored=(), shortened=(), stopped_after=None, errors=None):
    """compare() over cells 0, 1, ...: ``stored`` and ``printed``, a list of outputs per cell."""
    errors = errors or {}
    lesson = [(index, "", index in ignored, index in shortened) for index in range(len(stored))]
    cells = {index: {"index": index, "outputs": outputs, "error": errors.get(index), "seconds": 0.0}
             for index, outputs in enumerate(printed) if stopped_after is None or index <= stopped_after}
    run = LessonRun(cells, None if stopped_after is not None else {"error": None}, "RangeError: Maximum call stack")
    return compare(lesson, dict(enumerate(stored)), run)


def test_the_same_outputs_compare_equal_after_the_sanitize_rules_and_the_figure_rule():
    stored = [[_stream("a = 0x7f3a2b1c4d50\n")],
              [_stream("loss 0.1234\n"), _result("<Figure size 640x480 with 1 Axes>", PICTURE, kind="display_data")],
              [_result("Training loss: first step 3.3660", PICTURE, "text/html")]]
    printed = [[_stream("a = 0x55d0c0ffee00\n")],
               [_stream(f"loss 0.1234\n{FIGURE_NOTE}\n")],
               [_result(FIGURE_NOTE)]]  # a package's picture, not drawn in the app
    assert _compared(stored, printed) == []


def test_a_figure_without_its_line_and_a_line_without_a_figure_are_named():
    stored = [[_result("<Figure size 640x480 with 1 Axes>", PICTURE, kind="display_data")], [_stream("x\n")]]
    printed = [[], [_stream(f"x\n{FIGURE_NOTE}\n")]]
    assert _compared(stored, printed) == [
        "cell 0: the notebook stores a figure, and the app printed no line about it",
        f"cell 1: the app printed {FIGURE_NOTE!r}, where the notebook stores no figure",
    ]


def test_a_number_to_every_digit_may_be_a_few_units_off_in_its_last_place_and_no_other_number_may():
    stored = [[_stream("o 0.7071067811865477 x1 -1.4999999999999993\n")], [_stream("loss 0.1234\n")],
              [_stream("o 0.7071067811865477\n")]]
    printed = [[_stream("o 0.7071067811865476 x1 -1.4999999999999996\n")], [_stream("loss 0.1235\n")],
               [_stream("o 0.7071067811865497\n")]]
    assert _compared(stored, printed) == [
        "cell 1: stdout line 1: notebook 'loss 0.1234', here 'loss 0.1235'",
        "cell 2: stdout line 1: notebook 'o 0.7071067811865477', here 'o 0.7071067811865497'",
    ]


def test_outputs_in_another_order_or_number_are_named():
    stored = [[_stream("a\n"), _result("Value(data=2.0)")], [_stream("a\nb\n")]]
    printed = [[_result("Value(data=2.0)"), _stream("a\n")], [_stream("a\n")]]
    assert _compared(stored, printed) == [
        "cell 0: output 1 is stdout in the notebook, execute_result here: 'Value(data=2.0)'",
        "cell 1: stdout: 2 lines in the notebook, 1 here; the first one more: 'b'",
    ]


def test_ignored_and_shortened_cells_are_not_compared_but_must_run_and_a_stop_is_named():
    stored = [[_stream("12 ms\n")], [_stream("loss 0.5\n")], [_stream("loss 0.1\n")], [_stream("done\n")], []]
    printed = [[_stream("40 ms\n")], [_stream("loss 0.5\n")], [_stream("loss 0.3\n")], [], []]
    assert _compared(stored, printed, ignored={0}, shortened={2}) == []
    assert _compared(stored, printed, ignored={0}, shortened={2}, errors={3: "NameError: name 'X' is not defined"}) == [
        "cell 3: raised NameError: name 'X' is not defined"]
    assert _compared(stored, printed, ignored={0}, stopped_after=1) == [
        "cell 2: Pyodide stopped before this cell finished: RangeError: Maximum call stack"]
