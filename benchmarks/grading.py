"""How long grading a class takes: N students' lessons 2 to 4, each in a sandboxed kernel, both cores in use.

    .venv/bin/python benchmarks/grading.py --students 300     # a class (the default)
    .venv/bin/python benchmarks/grading.py --students 4       # a try, in a minute or two

Each student gets a folder of their own holding lessons 2, 3 and 4 of one of the kinds tests/test_grading.py
grades (tests/submissions.py makes them from the course): the solutions, the lessons as shipped (templates),
wrong answers (every other exercise's answer None), or the lecture's code in the build-it cells.  Every other
student hands in the my_micrograd.py their cells wrote; for the rest the grader rebuilds it.  The submissions
are written to a temporary folder, graded with grade_folder(jobs=2), and the run's wall time, the time per
notebook and the rows' outcomes are printed, with the machine's load average (other work on it slows the run).
"""

import argparse
import collections
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import nbformat  # noqa: E402

from micrograd.course import exercise_titles  # noqa: E402
from micrograd.course.carry import saved  # noqa: E402
from micrograd.course.grading import grade_folder, sandbox_status  # noqa: E402
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
        folder = Path(temporary)
        write_class(folder, args.students)
        notebooks = args.students * len(LESSONS)
        print(f"{args.students} students, {notebooks} notebooks (lessons {', '.join(LESSONS)}), {args.jobs} at once, "
              f"sandbox: {where}; load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
        done = []

        def progress(grade):
            done.append(grade)
            if len(done) % max(1, notebooks // 20) == 0:
                print(f"  {len(done)}/{notebooks} graded, {time.monotonic() - started:.0f} s", flush=True)

        started = time.monotonic()
        grades = grade_folder(folder, jobs=args.jobs, progress=progress, time_limit=args.time_limit)
        wall = time.monotonic() - started
    outcomes = collections.Counter(grade.status.split(":")[0] for grade in grades)
    by_lesson = collections.defaultdict(list)
    for grade in grades:
        by_lesson[grade.lesson].append(grade.seconds)
    print(f"wall time: {wall:.1f} s for {notebooks} notebooks: {wall / notebooks:.2f} s per notebook "
          f"({args.jobs} at once; {wall * args.jobs / notebooks:.2f} s of a core each)")
    for lesson, seconds in sorted(by_lesson.items()):
        print(f"  lesson {lesson}: {len(seconds)} notebooks, {sum(seconds) / len(seconds):.1f} s each on average "
              f"(slowest {max(seconds):.1f} s)")
    print(f"rows: {dict(outcomes)}; load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0 if set(outcomes) == {"graded"} else 1


if __name__ == "__main__":
    sys.exit(main())
