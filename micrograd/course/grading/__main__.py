"""python -m micrograd.course.grading DIR: grade every notebook under DIR, print the table, write the CSV."""

import argparse
import signal
import sys
from pathlib import Path

from . import DEFAULT_MEMORY, DEFAULT_TIME_LIMIT, MINIMUM_MEMORY, find_notebooks, format_table, grade_folder, sandbox_status, write_csv


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m micrograd.course.grading",
        description="Run each submitted lesson notebook in a fresh, limited, sandboxed kernel and tabulate its "
        "exercise verdicts. Grading executes the submitted code: see the course site's page on grading (docs/teaching/grading.md).",
    )
    parser.add_argument("folder", metavar="DIR", help="folder of submitted notebooks (searched recursively for .ipynb)")
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
    args = parser.parse_args(argv)
    if sys.platform.startswith("linux"):
        # Not dumpable: an unsandboxed kernel of the same user cannot open /proc/<grader>/fd
        # (the workers' pipes) or read this process's memory.
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE

    if args.memory * 1024**3 < MINIMUM_MEMORY:
        parser.error(f"--memory {args.memory:g} is too little: a lesson's kernel takes about 1.1 GB of address space "
                     f"once it draws a graph; give {MINIMUM_MEMORY / 1024**3:g} or more")
    folder = Path(args.folder)
    if not folder.is_dir():
        parser.error(f"{folder} is not a folder: give the folder that holds the submitted notebooks")
    notebooks = find_notebooks(folder)
    if not notebooks:
        parser.error(f"no .ipynb files under {folder}")
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
    )
    # From here on the table and the CSV are written whatever arrives.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)
    if grades.stopped_by:
        print(f"Stopped by {grades.stopped_by}: the rows graded so far follow; the rest say 'not graded'.", file=sys.stderr)
    print(format_table(grades))
    csv_path = Path(args.csv) if args.csv else folder / "grades.csv"
    try:
        write_csv(grades, csv_path)
    except OSError as error:
        print(f"The CSV could not be written to {csv_path}: {error.strerror or error}. "
              "The table above is the run's; give --csv FILE to write it elsewhere next time.", file=sys.stderr)
        return 1
    print(f"CSV written to {csv_path}")
    if grades.stopped_by:
        return 128 + getattr(signal, grades.stopped_by)
    return 0


if __name__ == "__main__":
    sys.exit(main())
