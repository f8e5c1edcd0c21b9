"""The class-level files of grading without a kernel: points, roster, hidden checks' format, feedback, exports.

The runs themselves (scores of real submissions, hidden checks in the sandbox, re-grading) are in test_grading.py.
"""

import csv

import pytest

from micrograd.course import exercise_titles
from micrograd.course.grading import Grade, export, feedback, hidden, points, roster


def test_a_points_file_naming_no_exercise_says_which_there_are(tmp_path):
    path = tmp_path / "points.toml"
    path.write_text('["01"]\n"Exercise 9" = 2\n')
    with pytest.raises(points.PointsError, match="'Exercise 9' is no exercise of the lesson; its exercises are: Exercise 1"):
        points.load(path)
    path.write_text('["01"]\n"Exercise 1" = -1\n')
    with pytest.raises(points.PointsError, match="points are a number, 0 or more"):
        points.load(path)


def test_the_written_points_file_lists_every_exercise_at_one_point_and_loads_back(tmp_path):
    path = tmp_path / "points.toml"
    points.main([str(path)])
    table = points.load(path)
    assert table["01"] == {title: 1 for title in exercise_titles("01")}
    grade = Grade("a.ipynb", "01", results={title: "passed" for title in exercise_titles("01")})
    assert (points.score(grade, table).score, grade.max_score) == (len(exercise_titles("01")),) * 2


def test_a_roster_without_a_student_column_or_with_a_student_twice_is_refused(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("name,email\nAda,ada@example.org\n")
    with pytest.raises(roster.RosterError, match="has no 'student' column"):
        roster.load(path)
    path.write_text("student\nada\nada\n")
    with pytest.raises(roster.RosterError, match="line 3: student 'ada' is listed twice"):
        roster.load(path)
    with pytest.raises(roster.RosterError, match="no group named student"):
        roster.pattern(r"(\w+)\.ipynb")


def test_two_submissions_of_one_student_and_lesson_are_said_and_not_exported(tmp_path):
    grades = [Grade("ada-1.ipynb", "01", results={"x": "passed"}), Grade("ada-2.ipynb", "01", results={"x": "passed"})]
    roster.identify(grades, None, roster.pattern(r"(?P<student>\w+)-\d"))
    assert [grade.student_from for grade in grades] == [
        "file name; another submission of lesson 01 (ada-2.ipynb): not exported",
        "file name; another submission of lesson 01 (ada-1.ipynb): not exported"]
    rows = [{"submission": g.submission, "student": "ada", "lesson": "01", "score": "1", "max_score": "1"} for g in grades]
    header, out, left_out = export.canvas(rows)
    assert out == [{"Student": "    Points Possible"}] and left_out == [
        "student ada, lesson 01: 2 submissions (ada-1.ipynb, ada-2.ipynb)"]


def test_hidden_checks_files_are_checked_before_any_run(tmp_path):
    (tmp_path / "lesson01.py").write_text("def check_a(names):\n    return None\n")
    with pytest.raises(hidden.HiddenChecksError, match="check_a has no docstring"):
        hidden.load(tmp_path)
    (tmp_path / "lesson01.py").write_text(f'def check_a(names):\n    """{exercise_titles("01")[0]}"""\n')
    with pytest.raises(hidden.HiddenChecksError, match="two checks of lesson 01 are titled"):
        hidden.load(tmp_path)
    (tmp_path / "lesson01.py").write_text('def check_a(names):\n    """Hidden 1: a"""\n')
    assert hidden.load(tmp_path) == {"01": (tmp_path / "lesson01.py", ["Hidden 1: a"])}


def test_feedback_shows_what_a_cell_printed_as_text_cut_to_its_limit(tmp_path):
    title = exercise_titles("01")[0]
    printed = "```\n<script>alert(1)</script>\n" + "\n".join(f"line {n}" for n in range(100))
    grade = Grade("ada.ipynb", "01", student="ada", results={title: "failed: no <b>"}, score=0, max_score=1,
                  messages={title: "no <b>"}, cells={title: 3}, printed={3: printed})
    feedback.write([grade], tmp_path)
    text = (tmp_path / "ada.md").read_text()
    assert f"### {title}: ✗ not yet (0 / 1)\n\n> no &lt;b&gt;\n\nCell 4 printed:\n\n````text\n```\n<script>" in text
    assert "line 37\n… (62 more lines not shown)\n````" in text and "line 38" not in text
    assert "## Lesson 01: ada.ipynb" in (tmp_path / "report.md").read_text()


def test_the_exports_of_a_grades_csv_have_the_lms_columns(tmp_path):
    grades = tmp_path / "grades.csv"
    with open(grades, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["submission", "student", "lesson", "score", "max_score"])
        writer.writerow(["a.ipynb", "ada", "01", "3", "4"])
        writer.writerow(["b.ipynb", "", "01", "1", "4"])
    left_out = export.export("moodle", grades, tmp_path / "moodle.csv", {"ada": {"name": "Ada Lovelace", "email": "a@x.org"}})
    assert left_out == ["b.ipynb: no student id"]
    with open(tmp_path / "moodle.csv", newline="") as file:
        assert list(csv.reader(file)) == [["First name", "Last name", "ID number", "Email address", "Lesson 01"],
                                          ["Ada", "Lovelace", "ada", "a@x.org", "3"]]


def test_a_regrade_replaces_its_lesson_in_the_students_file_and_the_report_and_keeps_the_others(tmp_path):
    title = exercise_titles("01")[0]

    def graded(submission, lesson, verdict, printed):
        return Grade(submission, lesson, student="ada", results={title: verdict}, cells={title: 0}, printed={0: printed})

    # Lesson 2's printout holds a line that looks like a section's heading: it stays the printout's.
    first = [graded("ada/01.ipynb", "01", "failed: not yet", "first try"),
             graded("ada/02.ipynb", "02", "passed", "## Lesson 99: a line the notebook printed\nmore")]
    feedback.write(first, tmp_path)
    feedback.update_report([graded("ada/01.ipynb", "01", "passed", "second try")], tmp_path)
    for name in ("ada.md", "report.md"):
        text = (tmp_path / name).read_text()
        assert "second try" in text and "first try" not in text, name
        assert text.count("## Lesson 01: ada/01.ipynb") == 1 and "## Lesson 02: ada/02.ipynb" in text, name
        assert "## Lesson 99: a line the notebook printed\nmore" in text, name
    assert (tmp_path / "ada.md").read_text().startswith("# Feedback for ada\n")
    assert (tmp_path / "report.md").read_text().startswith("# Grading report\n")
