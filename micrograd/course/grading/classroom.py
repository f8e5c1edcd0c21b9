"""The command line's class-level work around a grading run: what to grade, whose it is, scores, files written.

setup() reads the teacher's files (roster, id pattern, points, hidden checks)
before anything runs, so a mistake in one stops the run at once with what to
fix; identify_and_score() gives each row its student and score; write() and
report() write grades.csv (in place for a re-grade, micrograd.course.grading.gradebook),
the feedback (micrograd.course.grading.feedback) and the gradebook exports
(micrograd.course.grading.export).
"""

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import export, feedback, gradebook, hidden as hidden_checks, points as points_file, roster as rosters
from .grades import Grade
from .runner import find_notebooks


@dataclass
class Setup:
    folder: Path
    notebooks: list
    csv: Path
    regrade: bool = False
    roster: dict = None
    id_pattern: object = None
    points: dict = field(default_factory=dict)
    hidden: dict = None
    feedback: Path = None
    exports: dict = field(default_factory=dict)


def _class_csv(notebook):
    """The grades.csv of the notebook's folder or the nearest folder above it that has one."""
    for folder in notebook.resolve().parents:
        if (folder / "grades.csv").is_file():
            return folder / "grades.csv"
    return notebook.resolve().parent / "grades.csv"


def _claimed(path):
    from .collect import claimed_student

    try:
        return claimed_student(json.loads(Path(path).read_bytes()))
    except (OSError, ValueError):
        return ""


def _only(folder, wanted, roster, id_pattern):
    """The notebooks under folder that --only names, by path or by student id; ValueError naming what matched none."""
    notebooks = find_notebooks(folder)
    chosen, unknown = [], []
    for item in wanted:
        for candidate in (Path(item), folder / item):
            if candidate.is_file() and candidate.resolve().is_relative_to(folder.resolve()):
                chosen.append(folder / candidate.resolve().relative_to(folder.resolve()))
                break
        else:
            rows = [Grade(submission=path.relative_to(folder).as_posix(), claimed=_claimed(path)) for path in notebooks]
            rosters.identify(rows, roster, id_pattern)
            found = [folder / row.submission for row in rows if row.student == item]
            if not found:
                unknown.append(item)
            chosen += found
    if unknown:
        raise ValueError(f"--only: {', '.join(unknown)} is neither a notebook under {folder} nor a student id of one")
    return sorted(set(chosen))


def setup(args):
    """What to grade and with which of the teacher's files; ValueError with what to fix."""
    roster = rosters.load(args.roster) if args.roster else None
    id_pattern = rosters.pattern(args.id_pattern) if args.id_pattern else None
    hidden = hidden_checks.load(args.hidden) if args.hidden else None
    points = points_file.load(args.points, hidden) if args.points else {}
    target = Path(args.folder)
    if target.is_file() and target.suffix == ".ipynb":
        csv_path = Path(args.csv) if args.csv else _class_csv(target)
        folder = csv_path.resolve().parent
        if not target.resolve().is_relative_to(folder):
            raise ValueError(f"{target} is not under {folder}, the folder of the class's CSV: give --csv")
        notebooks, regrade = [folder / target.resolve().relative_to(folder)], True
    elif target.is_dir():
        folder, csv_path = target, Path(args.csv) if args.csv else target / "grades.csv"
        regrade = bool(args.only)
        notebooks = _only(folder, args.only, roster, id_pattern) if args.only else find_notebooks(folder)
        if not notebooks:
            raise ValueError(f"no .ipynb files under {folder}")
    else:
        raise ValueError(f"{target} is not a folder: give the folder that holds the submitted notebooks, or one notebook")
    if hidden and any(Path(path).resolve().is_relative_to(folder.resolve()) for path, _ in hidden.values()):
        raise ValueError(f"--hidden {args.hidden} is inside {folder}: keep the hidden checks out of the submissions' folder")
    exports = {kind: Path(out) for kind, out in (("canvas", args.canvas), ("moodle", args.moodle)) if out}
    return Setup(folder, notebooks, csv_path, regrade, roster, id_pattern, points, hidden,
                 Path(args.feedback) if args.feedback else csv_path.parent / "feedback", exports)


def identify_and_score(grades, setup):
    rosters.identify(grades, setup.roster, setup.id_pattern)
    for grade in grades:
        points_file.score(grade, setup.points)


def write(grades, setup):
    """grades.csv (all of it, or the re-graded rows in place) and the feedback files."""
    logged = gradebook.update(grades, setup.csv, regrade=setup.regrade)
    if logged:
        print(f"{logged} earlier row(s) kept in {gradebook.log_path(setup.csv)}", file=sys.stderr)
    if setup.regrade:
        # A re-grade replaces its submissions' sections, in their students' files and in the report.
        written = feedback.update_report(grades, setup.feedback, setup.points)
    else:
        written = feedback.write(grades, setup.feedback, setup.points)
    print(f"Feedback: {len(written)} file(s) in {setup.feedback}", file=sys.stderr)


def report(grades, setup):
    """The exports, and the roster's students with no submission."""
    for kind, out in setup.exports.items():
        for reason in export.export(kind, setup.csv, out, setup.roster):
            print(f"{kind}: left out {reason}", file=sys.stderr)
        print(f"{kind.capitalize()} gradebook written to {out}")
    if setup.roster and not setup.regrade:
        absent = rosters.missing(grades, setup.roster)
        if absent:
            print(f"No submission from {len(absent)} student(s) of the roster: {', '.join(absent)}")
