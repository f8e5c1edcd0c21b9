"""How long grading a class takes: N students' lessons 2 to 4, each in a sandboxed kernel, both cores in use.

    .venv/bin/python benchmarks/grading.py --students 300     # a class (the default)
    .venv/bin/python benchmarks/grading.py --students 4       # a try, in a minute or two

Each student gets a folder of their own holding lessons 2, 3 and 4 of one of the kinds tests/test_grading.py
grades (tests/submissions.py makes them from the course): the solutions, the lessons as shipped (templates),
wrong answers (every other exercise's answer None), or the lecture's code in the build-it cells.  Every other
student hands in the my_micrograd.py their cells wrote; for the rest the grader rebuilds it.  The submissions
are written to a temporary folder with the teacher's roster beside it, graded as a teacher does
(``python -m micrograd.course.grading DIR --roster ... --id-pattern ... --canvas ... --jobs 2``), and the run's
wall time and the time per notebook are printed, with the machine's load average (other work on it slows the
run).  Then every row of grades.csv is checked against what its kind must get, at one point an exercise: its
student id (from the folder's name), full marks for the solutions and the lecture's code, 0 for the templates,
the exercises left right for the wrong answers; and the Canvas export, one row per student with the same
scores.  Exits 1 when a row or the export is not as it must be, saying which.
"""

import argparse
import collections
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import nbformat  # noqa: E402

from micrograd.course import exercise_titles  # noqa: E402
from micrograd.course.carry import saved  # noqa: E402
from micrograd.course.grading import sandbox_status  # noqa: E402
from submissions import lecture_student, notebook_of, wrong_answers  # noqa: E402

LESSONS = ["02", "03", "04"]
KINDS = ["solution", "template", "wrong", "lecture"]


def submission(kind, lesson):
    """The notebook of one kind for one lesson, as text."""
    if kind == "solution":
        notebook = notebook_of(lesson, solution=True)
    elif kind == "template":
        notebook = notebook_of(lesson)
    elif kind == "wrong":
        notebook = wrong_answers(lesson, exercise_titles(lesson)[0::2])
    else:
        notebook = lecture_student(lesson)
    return nbformat.writes(notebook)


def write_class(folder, students):
    """One folder per student, the kinds in turn; every other student with the my_micrograd.py their cells wrote."""
    texts = {(kind, lesson): submission(kind, lesson) for kind in KINDS for lesson in LESSONS}
    carried = {kind: saved.expected_file([nbformat.reads(texts[(kind, lesson)], as_version=4) for lesson in LESSONS])
               for kind in KINDS}
    for number in range(students):
        kind = KINDS[number % len(KINDS)]
        student = folder / f"student-{number:03d}-{kind}"
        student.mkdir()
        for lesson in LESSONS:
            (student / f"{lesson}.ipynb").write_text(texts[(kind, lesson)], encoding="utf-8")
        if number // len(KINDS) % 2 == 0:
            (student / saved.FILE_NAME).write_text(carried[kind], encoding="utf-8")


ID_PATTERN = r"(?P<student>student-\d+-[a-z]+)/"


def expected_score(kind, lesson):
    """(score, max_score) a notebook of this kind must get, at one point an exercise."""
    titles = exercise_titles(lesson)
    right = {"solution": len(titles), "lecture": len(titles), "template": 0, "wrong": len(titles[1::2])}[kind]
    return right, len(titles)


def wrong_rows(rows, students):
    """What in grades.csv is not as it must be: a sentence per row."""
    found, seen = [], set()
    for row in rows:
        folder, lesson = row["submission"].split("/")[0], row["lesson"]
        kind = folder.rsplit("-", 1)[1]
        seen.add((folder, lesson))
        score = (float(row["score"] or "nan"), float(row["max_score"] or "nan"))
        if row["student"] != folder or score != expected_score(kind, lesson):
            found.append(f"{row['submission']}: student {row['student']!r}, score {score}; "
                         f"must be {folder!r}, {expected_score(kind, lesson)} ({row['run']})")
    missing = {(student, lesson) for student in students for lesson in LESSONS} - seen
    return found + [f"{student}/{lesson}.ipynb: no row" for student, lesson in sorted(missing)]


def wrong_export(path, students):
    """What the Canvas export lacks or has wrong: a sentence per student."""
    with open(path, newline="", encoding="utf-8") as file:
        rows = [row for row in csv.DictReader(file) if row["Student"] != "Points Possible"]
    by_id = {row["SIS User ID"]: row for row in rows}
    found = [f"{student}: not in the Canvas export" for student in students if student not in by_id]
    for student in students:
        row, kind = by_id.get(student), student.rsplit("-", 1)[1]
        for lesson in LESSONS if row else ():
            column = next(name for name in row if lesson in name)
            if float(row[column]) != expected_score(kind, lesson)[0]:
                found.append(f"{student}: {column} is {row[column]}, must be {expected_score(kind, lesson)[0]}")
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300, help="students in the class (default 300)")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks graded at once (default 2, this machine's cores)")
    parser.add_argument("--time-limit", type=float, default=300, help="seconds per notebook (default 300: a loaded machine)")
    args = parser.parse_args(argv)
    if args.students < 1:
        parser.error("--students must be at least 1")
    _, where = sandbox_status()
    with tempfile.TemporaryDirectory(prefix="micrograd-grading-bench-") as temporary:
        folder, teacher = Path(temporary) / "submissions", Path(temporary) / "teacher"
        folder.mkdir()
        teacher.mkdir()
        write_class(folder, args.students)
        students = sorted(path.name for path in folder.iterdir())
        (teacher / "roster.csv").write_text("student,name,email\n" + "".join(
            f"{student},Student {number},{student}@example.org\n" for number, student in enumerate(students)))
        notebooks = args.students * len(LESSONS)
        print(f"{args.students} students, {notebooks} notebooks (lessons {', '.join(LESSONS)}), {args.jobs} at once, "
              f"sandbox: {where}; load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
        command = [sys.executable, "-m", "micrograd.course.grading", str(folder), "--jobs", str(args.jobs),
                   "--time-limit", str(args.time_limit), "--roster", str(teacher / "roster.csv"),
                   "--id-pattern", ID_PATTERN, "--canvas", str(teacher / "canvas.csv")]
        started = time.monotonic()
        run = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
        wall = time.monotonic() - started
        if run.returncode != 0:
            print(run.stderr[-3000:])
            return 1
        with open(folder / "grades.csv", newline="", encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
        bad_rows = wrong_rows(rows, students)
        wrong = bad_rows + wrong_export(teacher / "canvas.csv", students)
    outcomes = collections.Counter(row["run"].split(";")[0].split(":")[0] for row in rows)
    by_lesson = collections.defaultdict(list)
    for row in rows:
        by_lesson[row["lesson"]].append(float(row["seconds"] or 0))
    print(f"wall time: {wall:.1f} s for {notebooks} notebooks: {wall / notebooks:.2f} s per notebook "
          f"({args.jobs} at once; {wall * args.jobs / notebooks:.2f} s of a core each)")
    for lesson, seconds in sorted(by_lesson.items()):
        print(f"  lesson {lesson}: {len(seconds)} notebooks, {sum(seconds) / len(seconds):.1f} s each on average "
              f"(slowest {max(seconds):.1f} s)")
    print(f"rows: {dict(outcomes)}; load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"ids and scores: {notebooks - len(bad_rows)} of {notebooks} rows as they must be; "
          f"Canvas export: {len(students)} students" + (f"; {len(wrong)} wrong:" if wrong else ", every score right"))
    for line in wrong[:20]:
        print("  " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
