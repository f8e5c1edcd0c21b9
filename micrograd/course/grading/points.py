"""Points per exercise: one TOML file the teacher edits; each exercise is worth 1 point unless it says otherwise.

The file has a table per lesson, named by its two digits, and in it a line per
exercise whose points differ from 1: the key is the exercise's title, or the
part before its colon.  Hidden checks (micrograd.course.grading.hidden) are
keyed by their titles the same way::

    ["01"]
    "Exercise 1" = 2
    "Exercise 3: both slopes of g(x, y) at (1.5, -2)" = 3
    "Hidden 1" = 2

    ["02"]
    "Build it" = 0      # not counted

A passed exercise scores its points, any other verdict 0; a row's score and
max_score add up its lesson's exercises.  ``python -m micrograd.course.grading.points
FILE [--hidden FOLDER]`` writes a file listing every exercise with its points, to edit.
"""

import argparse
import math
import sys
import tomllib
from pathlib import Path

DEFAULT_POINTS = 1


class PointsError(ValueError):
    """A points file the grader cannot use; the message says what to fix."""


def _titles(lesson, hidden):
    from micrograd.course import exercise_titles

    return [*exercise_titles(lesson), *(hidden or {}).get(lesson, (None, []))[1]]


def _label(title):
    return title.split(":")[0].strip()


def load(path, hidden=None):
    """{lesson: {title: points}} for every exercise the file names (the rest are worth DEFAULT_POINTS)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PointsError(f"the points file {path} cannot be read: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise PointsError(f"the points file {path} is not valid TOML: {error}") from None
    table = {}
    for key, entries in data.items():
        if not (key.isdigit() and isinstance(entries, dict)):
            raise PointsError(f"{path}: [{key}] is not a lesson; name each table by its lesson, [\"01\"] to [\"11\"]")
        lesson = f"{int(key):02d}"
        titles = _titles(lesson, hidden)
        if not titles:
            raise PointsError(f"{path}: lesson {lesson} has no exercises")
        for name, points in entries.items():
            matches = [title for title in titles if name in (title, _label(title))]
            if len(matches) != 1:
                known = "; ".join(titles)
                what = "names two exercises" if matches else "is no exercise of the lesson"
                raise PointsError(f"{path}: [\"{lesson}\"] {name!r} {what}; its exercises are: {known}")
            if isinstance(points, bool) or not isinstance(points, (int, float)) or not math.isfinite(points) or points < 0:
                raise PointsError(f"{path}: [\"{lesson}\"] {name!r} = {points!r}: points are a number, 0 or more")
            table.setdefault(lesson, {})[matches[0]] = points
    return table


def points_of(table, lesson, title):
    return (table or {}).get(lesson, {}).get(title, DEFAULT_POINTS)


def score(grade, table=None):
    """Set grade.score and grade.max_score from its results; a row with no results scores 0 of 0."""
    grade.max_score = sum(points_of(table, grade.lesson, title) for title in grade.results)
    grade.score = sum(points_of(table, grade.lesson, title) for title, result in grade.results.items() if result == "passed")
    return grade


def template(hidden=None):
    """A points file listing every lesson's exercises at DEFAULT_POINTS, as TOML text."""
    lines = ["# Points per exercise (micrograd.course.grading.points). Keys: a title, or its part before the colon.", ""]
    for lesson in (f"{number:02d}" for number in range(100)):
        titles = _titles(lesson, hidden)
        if titles:
            lines.append(f'["{lesson}"]')
            lines += [f"{_quote(title)} = {DEFAULT_POINTS}" for title in titles]
            lines.append("")
    return "\n".join(lines)


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(argv=None):
    from . import hidden as hidden_checks

    parser = argparse.ArgumentParser(prog="python -m micrograd.course.grading.points",
                                     description="Write a points file listing every exercise, to edit.")
    parser.add_argument("file")
    parser.add_argument("--hidden", metavar="FOLDER", help="the folder of hidden checks, whose titles to list too")
    args = parser.parse_args(argv)
    try:
        hidden = hidden_checks.load(args.hidden) if args.hidden else None
    except hidden_checks.HiddenChecksError as error:
        parser.error(str(error))
    if Path(args.file).exists():
        parser.error(f"{args.file} exists: give a new file name, or remove it first")
    Path(args.file).write_text(template(hidden), encoding="utf-8")
    print(f"Points file written to {args.file}: every exercise is worth {DEFAULT_POINTS}; edit it and pass --points")


if __name__ == "__main__":
    sys.exit(main())
