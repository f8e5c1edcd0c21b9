"""python -m micrograd.course.grading DIR: grade every notebook under DIR, print the table, write the CSV.

Also: whose each submission is (--roster, --id-pattern, the notebooks' metadata), points and scores (--points),
the teacher's hidden checks (--hidden), a feedback file per student (--feedback), gradebook files for Canvas and
Moodle (--canvas, --moodle), and re-grading some submissions in place (--only, or a notebook instead of DIR).
"""

import argparse
import signal
import sys

from . import DEFAULT_MEMORY, DEFAULT_TIME_LIMIT, MINIMUM_MEMORY, classroom, format_table, grade_folder, sandbox_status


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m micrograd.course.grading",
        description="Run each submitted lesson notebook in a fresh, limited, sandboxed kernel and tabulate its "
        "exercise verdicts. Grading executes the submitted code: see the course site's page on grading (docs/teaching/grading.md).",
    )
    parser.add_argument("folder", metavar="DIR", help="folder of submitted notebooks (searched recursively for .ipynb), "
                        "or one notebook to re-grade in place in the grades.csv of its folder or the nearest above")
    parser.add_argument("--csv", metavar="FILE", help="where to write the CSV (default: DIR/grades.csv)")
    parser.add_argument("--lesson", type=int, help="the lesson the submissions should be; others are reported, not run")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                        help=f"wall-clock limit per notebook (default {DEFAULT_TIME_LIMIT:g})")
    parser.add_argument("--memory", type=float, default=DEFAULT_MEMORY / 1024**3, metavar="GB",
                        help=f"memory (address space) limit of each kernel (default {DEFAULT_MEMORY / 1024**3:g})")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks run at once (default 1)")
    sandbox = parser.add_mutually_exclusive_group()
    sandbox.add_argument("--require-sandbox", dest="sandbox", action="store_const", const=True, default=None,
                         help="stop with an error if bubblewrap cannot run (default: run unsandboxed, and say so)")
    sandbox.add_argument("--no-sandbox", dest="sandbox", action="store_const", const=False,
                         help="run kernels without bubblewrap (the table and the CSV say so)")
    parser.add_argument("--released", metavar="FOLDER",
                        help="the lessons as released, to compare checker cells with (default: the course's notebooks/)")
    parser.add_argument("--only", nargs="+", metavar="FILE_OR_ID",
                        help="re-grade only these submissions (files under DIR, or student ids): their rows of the CSV "
                        "are replaced in place, the earlier ones kept in grades-log.csv")
    parser.add_argument("--roster", metavar="CSV", help="the class's roster: a 'student' column, optionally 'file', "
                        "'name', 'email', 'section'... (see micrograd/course/grading/roster.py)")
    parser.add_argument("--id-pattern", metavar="REGEX",
                        help="finds the student id in a submission's path: a regular expression with a group (?P<student>...)")
    parser.add_argument("--points", metavar="TOML", help="points per exercise (default 1 each; "
                        "python -m micrograd.course.grading.points FILE writes one to edit)")
    parser.add_argument("--hidden", metavar="FOLDER", help="the teacher's hidden checks, lesson01.py ... "
                        "(see micrograd/course/grading/hidden.py); keep it outside DIR")
    parser.add_argument("--feedback", metavar="FOLDER", help="where the students' feedback files and the teacher's "
                        "report.md go (default: a folder 'feedback' beside the CSV)")
    parser.add_argument("--canvas", metavar="FILE", help="also write the grades in Canvas's gradebook import format")
    parser.add_argument("--moodle", metavar="FILE", help="also write the grades in Moodle's grade import format")
    args = parser.parse_args(argv)
    if sys.platform.startswith("linux"):
        # Not dumpable: an unsandboxed kernel of the same user cannot open /proc/<grader>/fd
        # (the workers' pipes) or read this process's memory.
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE

    if args.memory * 1024**3 < MINIMUM_MEMORY:
        parser.error(f"--memory {args.memory:g} is too little: a lesson's kernel takes about 1.1 GB of address space "
                     f"once it draws a graph; give {MINIMUM_MEMORY / 1024**3:g} or more")
    try:
        setup = classroom.setup(args)
    except ValueError as error:
        parser.error(str(error))
    folder, notebooks = setup.folder, setup.notebooks
    try:
        _, where = sandbox_status(args.sandbox)
    except RuntimeError as error:
        parser.error(str(error))
    print(f"Grading {len(notebooks)} notebook(s) from {folder}, {args.time_limit:g} s and {args.memory:g} GB each, "
          f"sandbox: {where}", file=sys.stderr)

    def progress(grade):
        print(f"  {grade.submission}: {grade.summary} ({grade.seconds:g} s)", file=sys.stderr)

    grades = grade_folder(
        folder, lesson=args.lesson, time_limit=args.time_limit, memory=int(args.memory * 1024**3),
        jobs=args.jobs, progress=progress, sandbox=args.sandbox, released=args.released,
        hidden=setup.hidden, notebooks=notebooks if setup.regrade else None,
    )
    classroom.identify_and_score(grades, setup)
    # From here on the table and the CSV are written whatever arrives.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)
    if grades.stopped_by:
        print(f"Stopped by {grades.stopped_by}: the rows graded so far follow; the rest say 'not graded'.", file=sys.stderr)
    print(format_table(grades))
    csv_path = setup.csv
    try:
        classroom.write(grades, setup)
    except OSError as error:
        print(f"The CSV could not be written to {csv_path}: {error.strerror or error}. "
              "The table above is the run's; give --csv FILE to write it elsewhere next time.", file=sys.stderr)
        return 1
    print(f"CSV written to {csv_path}")
    classroom.report(grades, setup)
    if grades.stopped_by:
        return 128 + getattr(signal, grades.stopped_by)
    return 0


if __name__ == "__main__":
    sys.exit(main())
