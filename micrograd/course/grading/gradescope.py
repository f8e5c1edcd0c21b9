"""Grading on Gradescope: what ``run_autograder`` runs for each submission, and the results.json it writes.

Gradescope's autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): the zip's
``setup.sh`` runs once, as root, in /autograder/source, when the image is
built (on Ubuntu); ``run_autograder`` runs for each submission, with the
student's files in /autograder/submission, and writes
/autograder/results/results.json:

- ``score`` (optional when the tests carry scores; written here, the tests' sum),
  ``execution_time`` (seconds), ``output`` (text about the whole submission),
  ``visibility``, ``stdout_visibility``;
- ``tests``: one object per test, with ``name``, ``score``, ``max_score``,
  ``status`` ("passed" or "failed"), ``output`` and ``visibility``: "visible",
  "hidden", "after_due_date" or "after_published".

One test per exercise of the bundle's lessons (micrograd.course.grading.bundle),
at its points from the teacher's points file; the teacher's hidden checks are
tests of the visibility the bundle names ("after_published" unless the
teacher chose otherwise).  What /autograder/results/stdout receives (the
grader's progress) only instructors see.

``MICROGRAD_AUTOGRADER_ROOT`` moves /autograder elsewhere: only the course's
tests set it, to run the zip as Gradescope does in a temporary folder.
"""

import json
import os
import sys
import time
from pathlib import Path

from .bundle import BundleError, grade_submission, read_config

ROOT_VARIABLE = "MICROGRAD_AUTOGRADER_ROOT"
DEFAULT_ROOT = "/autograder"


def results_json(outcome, *, hidden_visibility="after_published", several_lessons=False, execution_time=None):
    """The results.json object of an Outcome."""
    tests = []
    for exercise in outcome.exercises:
        name = f"Lesson {exercise.lesson} · {exercise.title}" if several_lessons else exercise.title
        tests.append({
            "name": name,
            "score": exercise.score,
            "max_score": exercise.points,
            "status": "passed" if exercise.passed else "failed",
            "output": exercise.output,
            "visibility": hidden_visibility if exercise.hidden else "visible",
        })
    results = {"score": outcome.score, "output": "\n".join(outcome.notes), "tests": tests}
    if execution_time is not None:
        results["execution_time"] = round(execution_time)
    return results


def failure_json(why):
    """results.json when the autograder itself cannot grade: no score, the reason shown to the student."""
    return {"score": 0, "output": f"The autograder could not grade this submission: {why}. Tell your teacher.", "tests": []}


def main(argv=None):
    root = Path(os.environ.get(ROOT_VARIABLE) or DEFAULT_ROOT)
    bundle, submission, results = root / "source", root / "submission", root / "results" / "results.json"
    started = time.monotonic()
    status = 0
    try:
        config = read_config(bundle)
        outcome = grade_submission(submission, bundle)
        answer = results_json(outcome, hidden_visibility=config.get("hidden_visibility", "after_published"),
                              several_lessons=len(config["lessons"]) > 1, execution_time=time.monotonic() - started)
    except (BundleError, ValueError, OSError) as error:  # the teacher's files, or the bundle's: say which
        answer, status = failure_json(str(error)), 1
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(answer, indent=2, ensure_ascii=False), encoding="utf-8")
    print(answer["output"])
    print(f"Score: {answer['score']:g} of {sum(test['max_score'] for test in answer['tests']):g}; written to {results}")
    return status


if __name__ == "__main__":
    sys.exit(main())
