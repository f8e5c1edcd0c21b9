"""An autograder bundle, and one student's submission graded with it into scored exercises.

A bundle is what an autograding service keeps beside the grader: a Gradescope
zip's source folder (micrograd.course.grading.gradescope), or the
``.github/classroom/`` folder of a GitHub Classroom template
(micrograd.course.grading.github_classroom).  micrograd.course.grading.autograder
writes it:

- ``autograder.json``: the lessons graded, the limits per notebook, how the
  hidden checks show on Gradescope;
- ``released/``: the lessons as released, which the checker calls are compared
  with (the installed package has no ``notebooks/`` beside it);
- ``points.toml`` and ``hidden/``, when the teacher gave them
  (micrograd.course.grading.points, micrograd.course.grading.hidden).

A submission is a folder (the student's lesson notebooks, their
``my_micrograd.py``), graded as ``make grade`` grades a folder: each notebook in a
fresh kernel, in the sandbox where bubblewrap can run (else without, and the
notes say so).  Every exercise of every lesson of the bundle gets a line, so the
most a student can score is the same for everyone: an exercise of a lesson with
no notebook is "not submitted"; of two notebooks of one lesson, the higher score counts.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from . import hidden as hidden_checks, points as points_file
from .grades import DEFAULT_MEMORY, DEFAULT_TIME_LIMIT, Grades, sandbox_status
from .runner import find_notebooks, grade_folder

CONFIG_NAME = "autograder.json"
RELEASED_FOLDER = "released"
POINTS_NAME = "points.toml"
HIDDEN_FOLDER = "hidden"
HIDDEN_VISIBILITIES = ("hidden", "after_due_date", "after_published")  # Gradescope's, for a test students may not see yet
NOT_SUBMITTED = "not submitted"


class BundleError(ValueError):
    """A bundle the grader cannot use; the message says what to fix."""


@dataclass
class Exercise:
    lesson: str
    title: str
    points: float
    result: str  # "passed", "failed: why", "not attempted", "no verdict", or NOT_SUBMITTED
    message: str = ""
    hidden: bool = False

    @property
    def passed(self):
        return self.result == "passed"

    @property
    def score(self):
        return self.points if self.passed else 0

    @property
    def output(self):
        """What the student reads under the exercise: its verdict and the check's message."""
        if self.passed:
            return f"passed: {self.message}" if self.message else "passed"
        if self.result.startswith("failed"):
            return self.result  # it holds the message
        return self.message or self.result  # "not attempted yet: ...", or why there is no verdict


@dataclass
class Outcome:
    exercises: list
    notes: list = field(default_factory=list)  # how the run went, for the submission as a whole
    rows: Grades = field(default_factory=Grades)

    @property
    def score(self):
        return sum(exercise.score for exercise in self.exercises)

    @property
    def max_score(self):
        return sum(exercise.points for exercise in self.exercises)


def read_config(bundle):
    """The bundle's autograder.json, checked; BundleError saying what is wrong."""
    from micrograd.course import exercise_titles

    path = Path(bundle) / CONFIG_NAME
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise BundleError(f"{path} cannot be read ({error.strerror or error}): rebuild the bundle with make autograder") from None
    except ValueError as error:
        raise BundleError(f"{path} is not valid JSON ({error}): rebuild the bundle with make autograder") from None
    lessons = config.get("lessons") if isinstance(config, dict) else None
    if not lessons or not all(isinstance(lesson, str) and exercise_titles(lesson) for lesson in lessons):
        raise BundleError(f"{path}: 'lessons' must list lessons with exercises, as two digits (\"01\"); it is {lessons!r}")
    if config.get("hidden_visibility", "after_published") not in HIDDEN_VISIBILITIES:
        raise BundleError(f"{path}: 'hidden_visibility' is one of {', '.join(HIDDEN_VISIBILITIES)}")
    return config


def load_teacher_files(bundle):
    """(hidden checks, points table) of the bundle; HiddenChecksError or PointsError say what to fix."""
    bundle = Path(bundle)
    hidden = hidden_checks.load(bundle / HIDDEN_FOLDER) if (bundle / HIDDEN_FOLDER).is_dir() else None
    table = points_file.load(bundle / POINTS_NAME, hidden) if (bundle / POINTS_NAME).is_file() else {}
    return hidden, table


def grade_submission(submission, bundle, *, sandbox=None):
    """Grade the notebooks under submission (those inside the bundle aside) with the bundle's settings: an Outcome."""
    from micrograd.course import exercise_titles

    submission, bundle = Path(submission), Path(bundle)
    config = read_config(bundle)
    hidden, table = load_teacher_files(bundle)
    lessons = config["lessons"]
    notebooks = [path for path in find_notebooks(submission) if not path.resolve().is_relative_to(bundle.resolve())]
    notes = []
    rows = Grades()
    if notebooks:
        rows = grade_folder(
            submission, lesson=int(lessons[0]) if len(lessons) == 1 else None, notebooks=notebooks, sandbox=sandbox,
            time_limit=config.get("time_limit", DEFAULT_TIME_LIMIT), memory=config.get("memory", DEFAULT_MEMORY),
            released=bundle / RELEASED_FOLDER, hidden=hidden,
        )
        notes.append(f"Sandbox: {rows[0].sandbox or sandbox_status(sandbox)[1]}")
    else:
        names = ", ".join(f"lesson {lesson}" for lesson in lessons)
        notes.append(f"No notebook (.ipynb) in the submission: submit your notebook of {names}.")
    counted = {}
    for row in rows:
        points_file.score(row, table)
        if row.lesson in lessons and row.results and (row.lesson not in counted or row.score > counted[row.lesson].score):
            counted[row.lesson] = row
    for row in rows:
        what = f"lesson {row.lesson}, " if row.lesson else ""
        mark = " (counted)" if counted.get(row.lesson) is row else ""
        notes.append(f"{row.submission}: {what}{row.summary}{mark}")
        notes += [f"  suspect: {reason}" for reason in row.suspect]
    exercises = []
    for lesson in lessons:
        row = counted.get(lesson)
        if row is None and notebooks:
            notes.append(f"No notebook of lesson {lesson} was graded: its exercises are {NOT_SUBMITTED}.")
        hidden_titles = (hidden or {}).get(lesson, (None, []))[1]
        for title in [*exercise_titles(lesson), *hidden_titles]:
            exercises.append(Exercise(
                lesson, title, points_file.points_of(table, lesson, title),
                row.results.get(title, "no verdict") if row else NOT_SUBMITTED,
                row.messages.get(title, "") if row else "", hidden=title in hidden_titles,
            ))
    return Outcome(exercises, notes, rows)
