"""Grading on GitHub Classroom: the command the template's workflow runs on each push, and the points it reports.

GitHub Classroom's autograding workflow reports points through its reporter
action (``classroom-resources/autograding-grading-reporter@v1`` in the
workflows GitHub Classroom writes; its source:
https://github.com/github-education-resources/autograding-grading-reporter):
each earlier step it is given (``runners: micrograd``) leaves a step output
``result``, passed to it as the variable ``MICROGRAD_RESULTS``: JSON, base64
encoded, ``{"version": 1, "status": "pass"|"fail", "max_score": M,
"tests": [{"name", "status", "score", "message"}, ...]}``.  The reporter adds
up the tests' scores against max_score and sets the run's "Points X/M",
which the classroom records.  (``autograding-command-grader``, the other way,
gives a command all or none of its points; this command gives each exercise
its own.)

``python -m micrograd.course.grading.github_classroom`` grades the notebooks of
the repository it runs in (the bundle ``.github/classroom/`` aside) with that
bundle's lessons and points (micrograd.course.grading.bundle), prints each
exercise and the points, and appends ``result=...`` to the file named by
``$GITHUB_OUTPUT`` (as every step does) or by ``--output``.

A student's repository is the student's: they can read the bundle and edit
the workflow, so hidden checks have no place here (the bundle holds none),
and the points it reports are the student's own word.  Grade with make grade
for marks that count.
"""

import argparse
import base64
import json
import os
import sys
from pathlib import Path

from .bundle import BundleError, grade_submission

BUNDLE = Path(".github") / "classroom"
RUNNER = "micrograd"  # the workflow step's id, and the reporter's runner name
MAX_MESSAGE = 1000  # characters of an exercise's message reported


def reporter_result(outcome):
    """The result object the reporter reads, for an Outcome."""
    tests = [{
        "name": f"Lesson {exercise.lesson}: {exercise.title}",
        "status": "pass" if exercise.passed else "fail",
        "score": exercise.score,
        "message": exercise.output[:MAX_MESSAGE],
    } for exercise in outcome.exercises]
    return {"version": 1, "status": "pass" if all(test["status"] == "pass" for test in tests) else "fail",
            "max_score": outcome.max_score, "tests": tests}


def encode(result):
    return base64.b64encode(json.dumps(result).encode("utf-8")).decode("ascii")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m micrograd.course.grading.github_classroom",
                                     description="Grade this repository's lesson notebooks and report the points "
                                     "to GitHub Classroom's reporter action.")
    parser.add_argument("folder", nargs="?", default=".", help="the student's repository (default: here)")
    parser.add_argument("--bundle", default=None, help=f"the autograder bundle (default: FOLDER/{BUNDLE.as_posix()})")
    parser.add_argument("--output", default=os.environ.get("GITHUB_OUTPUT"),
                        help="the file to append result=... to (default: $GITHUB_OUTPUT, set by GitHub Actions)")
    args = parser.parse_args(argv)
    if not args.output:
        parser.error("no step output file: run in a GitHub Actions step (it sets $GITHUB_OUTPUT), or give --output FILE")
    folder = Path(args.folder)
    bundle = Path(args.bundle) if args.bundle else folder / BUNDLE
    try:
        outcome = grade_submission(folder, bundle)
    except (BundleError, ValueError, OSError) as error:
        print(f"The autograder could not grade this repository: {error}", file=sys.stderr)
        return 1
    result = reporter_result(outcome)
    for note in outcome.notes:
        print(note)
    for test in result["tests"]:
        print(f"{'✓' if test['status'] == 'pass' else '✗'} {test['name']}: {test['message']}")
    print(f"Points {outcome.score:g}/{outcome.max_score:g}")
    with open(args.output, "a", encoding="utf-8") as file:
        file.write(f"result={encode(result)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
