"""The verdict contract: what a checker returns, shows, and what grading reads."""

import math

import pytest

from micrograd import Value
from micrograd.course import Verdict, exercise_titles
from micrograd.course.verdicts import VERDICT_MIME, TODO, checker, close, failed, lesson_of, passed


@checker("Exercise 1: the slope at 3", lesson="99")
def check_slope(answer):
    if close(answer, 14.0):
        return passed("14, as the tangent shows")
    return failed(f"{answer} is not the slope; hint: nudge x by a small h")


@checker("Exercise 2: write f", lesson="99")
def check_function(f):
    return passed() if f(2) == 4 else failed("f(2) should be 4")


def test_right_wrong_and_untouched_answers(capsys):
    assert check_slope(14.0000001).status == "passed"
    assert check_slope(Value(14.0)).passed
    wrong = check_slope(13.0)
    assert wrong.status == "failed" and "hint" in wrong.message
    untouched = check_slope(TODO)
    assert untouched.status == "not attempted"
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("✓ Exercise 1") and lines[2].startswith("✗ Exercise 1: the slope at 3: 13.0")
    assert lines[3].startswith("… Exercise 1") and "not attempted yet" in lines[3]


def test_verdict_fields_and_dict():
    verdict = Verdict("05", "Exercise 1: the neuron's graph", "failed", "x1 holds 3.0")
    assert verdict.to_dict() == {
        "lesson": "05",
        "exercise": "Exercise 1: the neuron's graph",
        "status": "failed",
        "message": "x1 holds 3.0",
    }
    assert not verdict.passed


def test_the_verdict_carries_its_lesson(capsys):
    assert check_slope(14.0).lesson == "99"
    from micrograd.course.lessons import lesson02

    assert lesson02.count_nodes_and_edges(TODO, TODO).lesson == "02"
    assert lesson_of("micrograd.course.lessons.lesson10") == "10"
    assert lesson_of("tests.test_something") == ""


def test_html_is_coloured_by_status_and_escaped():
    good = Verdict("01", "Exercise <1>", "passed", "a & b").bundle()
    bad = Verdict("01", "Exercise 1", "failed", "no").bundle()
    todo = Verdict("01", "Exercise 1", "not attempted", "not attempted yet").bundle()
    assert set(good) == {"text/plain", "text/html", VERDICT_MIME}
    assert "Exercise &lt;1&gt;" in good["text/html"] and "a &amp; b" in good["text/html"]
    colours = {b["text/html"].split("color:")[1].split(";")[0] for b in (good, bad, todo)}
    assert len(colours) == 3
    assert good["text/plain"] == "✓ Exercise <1>: a & b"
    assert good[VERDICT_MIME]["status"] == "passed"


def test_learner_code_that_raises_is_a_verdict_not_a_traceback(capsys):
    def unfinished(x):
        raise NotImplementedError

    def broken(x):
        return x / 0

    assert check_function(unfinished).status == "not attempted"
    verdict = check_function(broken)
    assert verdict.status == "failed" and "ZeroDivisionError" in verdict.message
    assert check_function(lambda x: x * x).passed


def test_close_rejects_non_numbers():
    assert not close("14", 14.0)
    assert not close(None, 14.0)
    assert not close([14.0], 14.0)


@pytest.mark.parametrize("lesson", [2, "02"])
def test_exercise_titles_in_order(lesson):
    titles = exercise_titles(lesson)
    assert titles[:2] == ["Build it: your own Value", "Exercise 1: the neuron's graph"]
    assert len(titles) == len(set(titles)) == 4


def test_exercise_titles_of_a_lesson_without_exercises():
    assert exercise_titles(0) == []


def test_a_verdict_is_shown_once_in_a_notebook():
    import nbformat
    from nbclient import NotebookClient

    cell = nbformat.v4.new_code_cell(
        "from micrograd.course.verdicts import checker, passed\n"
        "check = checker('Exercise 1: x', lesson='03')(lambda a: passed())\n"
        "check(1)"
    )
    notebook = nbformat.v4.new_notebook(cells=[cell])
    NotebookClient(notebook, kernel_name="python3").execute()
    outputs = notebook.cells[0].outputs
    assert [o.output_type for o in outputs] == ["display_data"]
    data = outputs[0].data
    assert data["text/plain"] == "✓ Exercise 1: x: correct"
    assert "#1b5e20" in data["text/html"]
    assert data[VERDICT_MIME] == {"lesson": "03", "exercise": "Exercise 1: x", "status": "passed", "message": "correct"}


# Every lesson shows its exercises in the order exercise_titles gives, so grading reads them in that order.

import importlib  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LESSONS = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _checks_called(path):
    calls = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "code":
            calls += re.findall(r"^check\.(\w+)\(", "".join(cell["source"]), flags=re.MULTILINE)
    return calls


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_checks_its_exercises_in_the_order_of_exercise_titles(path):
    lesson = path.name[:2]
    source = "".join("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"])
    titles = exercise_titles(lesson)
    if not titles:
        assert "micrograd.course import" not in source
        return
    assert f"from micrograd.course.lessons import lesson{lesson} as check" in source
    module = importlib.import_module(f"micrograd.course.lessons.lesson{lesson}")
    assert [getattr(module, name).title for name in _checks_called(path)] == titles
    solution = NOTEBOOKS / "solutions" / path.name
    assert [getattr(module, name).title for name in _checks_called(solution)] == titles


# -- one reading of answers, for every checker ------------------------------------------------


class LectureStyleValue:
    """A learner's own node, as the lecture writes one: a number in .data, inputs in a set."""

    def __init__(self, data, _children=()):
        self.data, self.grad, self._prev = data, 0.0, set(_children)


def test_as_number_reads_numbers_numpy_and_values():
    np = pytest.importorskip("numpy")
    from micrograd.course.verdicts import as_number, as_whole_number

    assert as_number(2.5) == 2.5 and as_number(3) == 3
    # numpy's scalars have a .data of their own, a memoryview of their bytes: never read it
    assert as_number(np.float64(15.0)) == 15.0 and type(as_number(np.float64(15.0))) is float
    assert as_number(np.int64(41)) == 41 and as_number(np.float32(0.5)) == 0.5
    assert as_number(np.array(2.5)) == 2.5  # a 0-d array holds one number
    assert as_number(np.tanh(np.dot([0.5, -0.25], [2.0, 3.0]) + 0.1)) == pytest.approx(math.tanh(0.35))
    assert as_number(Value(-8.0)) == -8.0 and as_number(LectureStyleValue(4.0)) == 4.0
    assert as_number(LectureStyleValue(np.float64(1.5))) == 1.5  # a learner's Value holding a numpy number
    for not_one_number in (True, np.bool_(True), [2.3], (1.0,), np.array([1.0, 2.0]), np.array([3.0]), "2.3", None,
                           LectureStyleValue("x")):
        assert as_number(not_one_number) is None, not_one_number
    assert as_whole_number(7.0) == 7 and as_whole_number(np.int64(7)) == 7 and as_whole_number(7.5) is None


@pytest.mark.parametrize("answer, words", [
    ([2.3], "[2.3] (list): one number belongs here"),
    ("2.3", "'2.3' (str), text: write the number without quotes"),
    (None, "None (NoneType), nothing: a function without a return statement gives None"),
    (True, "True (bool), a yes or no"),
    (float("nan"), "nan, not a finite number"),
])
def test_number_problem_says_what_was_given_and_what_is_expected(answer, words):
    from micrograd.course.verdicts import number_problem

    message = number_problem(answer, "your answer is", "give one number, e.g. 1.5")
    assert message.startswith("your answer is ") and words in message and message.endswith("give one number, e.g. 1.5")
    assert number_problem(1.5) is None


def test_number_problem_names_an_array_by_its_shape():
    np = pytest.importorskip("numpy")
    from micrograd.course.verdicts import number_problem

    assert "(ndarray of shape (2,)): one number belongs here, not an array" in number_problem(np.array([1.0, 2.0]))


def test_decimals_kept_accepts_a_number_rounded_or_cut_off_as_printed():
    from micrograd.course.verdicts import decimals_kept

    assert decimals_kept(-8.726, -8.726304) == 3 and decimals_kept(-8.73, -8.726304, fewest=2) == 2
    assert decimals_kept(2.302, math.log(10)) == 3  # cut off
    assert decimals_kept(-8.7, -8.726304, fewest=2) is None  # too few decimals to tell a step apart
    assert decimals_kept(2.31, math.log(10)) is None and decimals_kept(2.29, math.log(10)) is None


def test_the_checkers_read_answers_without_importing_numpy():
    import subprocess
    import sys

    code = ("import sys\nfrom micrograd.course.lessons import " + ", ".join(f"lesson{n:02d}" for n in range(1, 12))
            + "\nassert 'numpy' not in sys.modules, 'a checker imported numpy'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_numbers_that_differ_are_shown_with_digits_enough_to_read_differently():
    from micrograd.course.verdicts import digits_apart, fmt_apart

    assert fmt_apart(3.30000001, 3.3) == ("3.30000001", "3.3")
    got, want = fmt_apart(0.12345671, 0.12345679)
    assert (got, want) == ("0.1234567", "0.1234568")
    assert fmt_apart(1.0, 2.0) == ("1.0", "2.0")  # fmt's own digits where they already differ
    assert digits_apart([0.671249, -1.2586], [0.671238, -1.2586]) == 5
    assert digits_apart([1.5, 2.0], [1.0, 2.0]) == 4  # never fewer than asked for


def test_a_checker_given_too_few_or_too_many_answers_says_so_as_the_checkers_fault_not_the_learners_code(capsys):
    verdict = check_slope()
    assert verdict.status == "failed" and "your code raised" not in verdict.message
    assert verdict.message.startswith("check.check_slope takes 1 answer, (answer), and was given 0")
    assert "was given 2" in check_slope(14.0, 14.0).message
