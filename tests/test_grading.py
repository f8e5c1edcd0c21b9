"""Grading submitted notebooks: real kernels, real limits, crafted submissions.

Every expectation is derived from the course itself: the exercises of a lesson
are micrograd.exercises.exercise_titles(lesson), a right answer is the lesson's
solution notebook, an untouched submission is the lesson notebook as shipped,
and a wrong answer is the solution with one exercise's checker called on None.  So the
test follows the lessons as they change.  The crafted runs use short time
limits so the whole file takes well under a minute of kernel time.
"""

import ast
import csv
import copy
import importlib
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from micrograd.exercises import exercise_titles
from micrograd.grading import format_table, grade_folder, grade_notebook, lessons_imported

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
# Two lessons keep the test quick; between them they have build-it exercises,
# function answers and number answers.
LESSONS = ["01", "02"]
TIME_LIMIT = 60  # generous for a lesson's solution on a loaded machine
SHORT_LIMIT = 6  # for the submission that never ends
ALLOWANCE = 30  # kernel start and shutdown, beyond the notebook's limit


def notebook_of(lesson, solution=False):
    folder = NOTEBOOKS / "solutions" if solution else NOTEBOOKS
    (path,) = folder.glob(f"{lesson}_*.ipynb")
    return nbformat.read(path, as_version=4)


def checker_calls(source, lesson):
    """Calls like check.slope_function(slope) in a cell whose target is one of the lesson's checkers."""
    module = importlib.import_module(f"micrograd.exercises.lesson{lesson}")
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: never a checker cell
        return None, []
    calls = [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "check"
        and getattr(getattr(module, node.func.attr, None), "title", None)
    ]
    return tree, calls


def wrong_answer(lesson, title):
    """The solution with one exercise's checker given None instead of the answer."""
    module = importlib.import_module(f"micrograd.exercises.lesson{lesson}")
    notebook = notebook_of(lesson, solution=True)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        tree, calls = checker_calls(cell.source, lesson)
        calls = [call for call in calls if getattr(module, call.func.attr).title == title]
        for call in calls:
            call.args = [ast.Constant(None) for _ in call.args] or [ast.Constant(None)]
            call.keywords = []
        if calls:
            cell.source = ast.unparse(tree)
    return notebook


def write(folder, name, notebook):
    path = folder / name
    if isinstance(notebook, (str, bytes)):
        path.write_bytes(notebook if isinstance(notebook, bytes) else notebook.encode())
    else:
        nbformat.write(notebook, path)
    return path


def insert_before_last_check(notebook, lesson, source):
    """A copy of the notebook with a code cell just before the cell of its last exercise."""
    notebook = copy.deepcopy(notebook)
    last = max(i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code" and checker_calls(cell.source, lesson)[1])
    notebook.cells.insert(last, nbformat.v4.new_code_cell(source))
    return notebook


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The solutions, the untouched lessons and the wrong answers, graded as one folder (one CLI-like run)."""
    folder = tmp_path_factory.mktemp("submissions")
    expected = {}
    for lesson in LESSONS:
        # File names that say nothing: the lesson must be recognised from the content.
        write(folder, f"right-{lesson}.ipynb", notebook_of(lesson, solution=True))
        write(folder, f"untouched-{lesson}.ipynb", notebook_of(lesson))
        expected[lesson] = exercise_titles(lesson)
        for number, title in enumerate(expected[lesson], 1):
            write(folder, f"wrong-{lesson}-{number}.ipynb", wrong_answer(lesson, title))
    started = time.monotonic()
    grades = {grade.submission: grade for grade in grade_folder(folder, time_limit=TIME_LIMIT, jobs=2)}
    return grades, expected, time.monotonic() - started


@pytest.mark.parametrize("lesson", LESSONS)
def test_solutions_pass_every_exercise(graded, lesson):
    grades, expected, _ = graded
    grade = grades[f"right-{lesson}.ipynb"]
    assert grade.lesson == lesson and grade.status == "graded", grade
    assert expected[lesson], f"lesson {lesson} has no exercises"
    assert grade.results == {title: "passed" for title in expected[lesson]}, grade


@pytest.mark.parametrize("lesson", LESSONS)
def test_untouched_lessons_are_not_attempted(graded, lesson):
    grades, expected, _ = graded
    grade = grades[f"untouched-{lesson}.ipynb"]
    assert grade.lesson == lesson and grade.status == "graded" and not grade.notes, grade
    assert grade.results == {title: "not attempted" for title in expected[lesson]}, grade


@pytest.mark.parametrize("lesson", LESSONS)
def test_one_wrong_answer_fails_that_exercise_alone_with_the_checkers_reason(graded, lesson):
    grades, expected, _ = graded
    for number, title in enumerate(expected[lesson], 1):
        grade = grades[f"wrong-{lesson}-{number}.ipynb"]
        assert grade.results[title].startswith("failed: ") and len(grade.results[title]) > len("failed: "), grade
        assert {other: result for other, result in grade.results.items() if other != title} == {
            other: "passed" for other in expected[lesson] if other != title
        }, grade


def test_the_table_has_a_row_per_submission_and_a_column_per_exercise(graded):
    grades, expected, seconds = graded
    table = format_table(list(grades.values()))
    for lesson in LESSONS:
        assert f"Lesson {lesson}" in table
        for title in expected[lesson]:
            assert f"  {title}" in table  # the legend under the lesson's table
    for name in grades:
        assert sum(line.startswith(name + " ") for line in table.splitlines()) == 1, name
    assert seconds < len(grades) * TIME_LIMIT


def test_a_notebook_that_never_ends_is_stopped_and_keeps_its_earlier_verdicts(tmp_path):
    lesson = "01"
    looping = insert_before_last_check(notebook_of(lesson, solution=True), lesson, "while True:\n    pass")
    path = write(tmp_path, "loops.ipynb", looping)
    started = time.monotonic()
    grade = grade_notebook(path, time_limit=SHORT_LIMIT)
    elapsed = time.monotonic() - started
    titles = exercise_titles(lesson)
    assert grade.status == f"time limit: stopped after {SHORT_LIMIT} s", grade
    assert grade.results == {**{title: "passed" for title in titles[:-1]}, titles[-1]: "no verdict"}, grade
    assert elapsed < SHORT_LIMIT + ALLOWANCE, f"took {elapsed:.0f} s"


def test_an_exception_at_import_is_reported_and_nothing_is_verdicted(tmp_path):
    lesson = "02"
    notebook = notebook_of(lesson, solution=True)
    first = next(cell for cell in notebook.cells if cell.cell_type == "code")
    first.source = "import a_module_no_student_has\n" + first.source
    grade = grade_notebook(write(tmp_path, "broken.ipynb", notebook), time_limit=TIME_LIMIT)
    assert grade.lesson == lesson and grade.status == "graded", grade
    assert grade.notes and grade.notes[0].startswith("raised ModuleNotFoundError: No module named 'a_module_no_student_has'"), grade
    assert set(grade.results.values()) == {"no verdict"}, grade


def test_a_huge_output_is_reported_and_the_exercises_still_graded(tmp_path):
    lesson = "01"
    noisy = insert_before_last_check(notebook_of(lesson, solution=True), lesson, "print('x' * 30_000_000)")
    grade = grade_notebook(write(tmp_path, "noisy.ipynb", noisy), time_limit=TIME_LIMIT)
    assert grade.status == "graded" and any(note.startswith("huge output: 29 MB") for note in grade.notes), grade
    assert set(grade.results.values()) == {"passed"}, grade


def test_the_memory_limit_binds_the_kernel(tmp_path):
    # 4 GB of zeros costs nothing without a limit (the pages are never touched),
    # so only a limit on the kernel's address space makes this fail.
    lesson = "01"
    greedy = insert_before_last_check(notebook_of(lesson, solution=True), lesson, "hoard = bytearray(4 * 1024**3)")
    grade = grade_notebook(write(tmp_path, "greedy.ipynb", greedy), time_limit=TIME_LIMIT, memory=1024**3)
    assert grade.notes and grade.notes[0].startswith("memory limit (1 GB): raised MemoryError"), grade
    assert list(grade.results.values())[-1] == "passed", grade  # the cells after it still ran


@pytest.mark.parametrize(
    "content, status",
    [
        ('{"cells": [{"cell_type": "code", "source": "1 +', "invalid notebook: not valid JSON"),
        ("", "empty file"),
        ('{"cells": "none", "metadata": {}}', "invalid notebook: JSON, but not a Jupyter notebook"),
        ('{"cells": [{"cell_type": "code"}], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}', "invalid notebook: "),
    ],
    ids=["malformed JSON", "empty file", "not a notebook", "invalid cell"],
)
def test_files_that_are_not_notebooks_get_a_row_that_says_so(tmp_path, content, status):
    started = time.monotonic()
    grade = grade_notebook(write(tmp_path, "submission.ipynb", content))
    assert grade.status.startswith(status), grade
    assert grade.results == {} and time.monotonic() - started < 5  # nothing was run


def test_notebooks_of_no_lesson_of_another_lesson_or_of_two_lessons(tmp_path):
    empty = write(tmp_path, "empty.ipynb", nbformat.v4.new_notebook())
    assert grade_notebook(empty).status == "empty notebook: no code to run"
    plain = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1 + 1)")])
    assert grade_notebook(write(tmp_path, "plain.ipynb", plain)).status.startswith("not a lesson notebook")
    # Named like lesson 01 but holding lesson 02: the content decides.
    other = write(tmp_path, "01_derivatives.ipynb", notebook_of("02", solution=True))
    grade = grade_notebook(other, lesson=1)
    assert (grade.lesson, grade.status) == ("02", "another lesson: lesson 02, expected 01"), grade
    mixed = notebook_of("01", solution=True)
    mixed.cells.append(nbformat.v4.new_code_cell("from micrograd.exercises import lesson02 as check2"))
    grade = grade_notebook(write(tmp_path, "mixed.ipynb", mixed))
    assert grade.status == "mixed lessons: imports the checkers of lessons 01, 02", grade


def test_a_verdict_of_another_lesson_marks_the_row_mixed(tmp_path):
    notebook = notebook_of("01", solution=True)
    notebook.cells.append(nbformat.v4.new_code_cell(
        "from IPython.display import display\n"
        "display({'application/vnd.micrograd.verdict+json': {'lesson': '02', 'exercise': 'Exercise 1', "
        "'status': 'passed', 'message': 'forged'}}, raw=True)"
    ))
    grade = grade_notebook(write(tmp_path, "mixed-verdicts.ipynb", notebook), time_limit=TIME_LIMIT)
    assert grade.status == "mixed lessons: imports lesson 01's checkers, shows verdicts of lesson 02", grade


def test_lessons_are_recognised_from_every_form_of_checker_import():
    def notebook(source):
        return {"cells": [{"cell_type": "code", "source": source}]}

    assert lessons_imported(notebook("from micrograd.exercises import lesson05 as check")) == {"05"}
    assert lessons_imported(notebook(["import micrograd.exercises.lesson3\n"])) == {"03"}
    assert lessons_imported(notebook("from micrograd.exercises import (lesson01, lesson02)")) == {"01", "02"}
    assert lessons_imported(notebook("# from micrograd.exercises import lesson05")) == set()


def test_command_line_prints_the_table_and_writes_the_csv(tmp_path):
    folder = tmp_path / "submissions"
    folder.mkdir()
    write(folder, "ada.ipynb", notebook_of("01", solution=True))
    write(folder, "bob.ipynb", '{"cells": [')
    result = subprocess.run(
        [sys.executable, "-m", "micrograd.grading", str(folder), "--time-limit", str(TIME_LIMIT)],
        capture_output=True, text=True, timeout=TIME_LIMIT + ALLOWANCE,
    )
    assert result.returncode == 0, result.stderr
    assert "Lesson 01" in result.stdout and "Not graded" in result.stdout
    with open(folder / "grades.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    assert [row["submission"] for row in rows] == ["ada.ipynb", "bob.ipynb"]
    assert [rows[0][title] for title in exercise_titles("01")] == ["passed"] * len(exercise_titles("01"))
    assert rows[1]["run"].startswith("invalid notebook: not valid JSON") and rows[1]["lesson"] == ""


@pytest.mark.parametrize("argument, message", [("missing-folder", "is not a folder"), ("empty-folder", "no .ipynb files")])
def test_command_line_says_what_is_wrong_with_the_folder(tmp_path, argument, message):
    (tmp_path / "empty-folder").mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "micrograd.grading", str(tmp_path / argument)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and message in result.stderr, result.stderr
