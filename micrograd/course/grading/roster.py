"""Whose each submission is: a student id from the roster, the file's name, or the notebook's metadata.

A roster is a CSV file the teacher gives (``--roster FILE``), one row per
student, with a header.  Columns:

- ``student`` (required): the id the gradebook knows the student by (for
  Canvas, their SIS User ID; for Moodle, their ID number), unique;
- ``file`` (optional): the submission's path under the folder, or its file
  name, when the name does not hold the id;
- ``name``, ``first_name``, ``last_name``, ``email``, ``section``, ``canvas_id``,
  ``sis_login_id`` (optional): copied into the gradebook exports.

A submission's id is, in this order: the roster row whose ``file`` names it;
else the named group ``student`` of ``--id-pattern REGEX`` searched in its
path (e.g. ``'(?P<student>[a-z]+\\d+)_lesson'``); else the id its metadata names
(``"micrograd": {"student": "..."}`` in the notebook's metadata, which the
student wrote: used only when nothing else names one).  With a roster, an id
not in it is not used.  A submission with no id keeps its row, with an empty
``student`` and, in ``student_from``, why; two submissions of one student and
lesson both say so there, and neither is exported.
"""

import csv
import re
from pathlib import Path

COLUMNS = ("student", "file", "name", "first_name", "last_name", "email", "section", "canvas_id", "sis_login_id")


class RosterError(ValueError):
    """A roster or id pattern the grader cannot use; the message says what to fix."""


def load(path):
    """{student id: row as a dict} of a roster CSV file."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as file:  # -sig: Excel writes a byte-order mark
            reader = csv.DictReader(file)
            header = [name.strip() for name in reader.fieldnames or []]
            if "student" not in header:
                raise RosterError(f"the roster {path} has no 'student' column; its first line must name the columns, "
                                  f"e.g. student,name,email (it has: {', '.join(header) or 'nothing'})")
            students = {}
            for number, row in enumerate(reader, 2):
                row = {(key or "").strip(): (value or "").strip() for key, value in row.items() if isinstance(value, str)}
                student = row.get("student", "")
                if not student:
                    raise RosterError(f"the roster {path}, line {number}: no student id")
                if student in students:
                    raise RosterError(f"the roster {path}, line {number}: student {student!r} is listed twice")
                students[student] = row
    except OSError as error:
        raise RosterError(f"the roster {path} cannot be read: {error.strerror or error}") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise RosterError(f"the roster {path} is not a UTF-8 CSV file: {error}") from None
    return students


def pattern(text):
    """The compiled --id-pattern, which must have a named group 'student'."""
    try:
        compiled = re.compile(text)
    except re.error as error:
        raise RosterError(f"--id-pattern {text!r} is not a regular expression: {error}") from None
    if "student" not in compiled.groupindex:
        raise RosterError(f"--id-pattern {text!r} has no group named student: write it as (?P<student>...)")
    return compiled


def identify(grades, roster=None, id_pattern=None):
    """Set each grade's student id (and a note when there is none, or when the metadata disagrees)."""
    by_file = {}
    for student, row in (roster or {}).items():
        if row.get("file"):
            by_file[row["file"]] = student
    for grade in grades:
        found, how = "", ""
        name = grade.submission
        if name in by_file or Path(name).name in by_file:
            found, how = by_file.get(name) or by_file[Path(name).name], "roster"
        elif id_pattern is not None and (match := id_pattern.search(name)) and match.group("student"):
            found, how = match.group("student"), "file name"
        elif grade.claimed:
            found, how = grade.claimed, "metadata"
        if found and roster is not None and found not in roster:
            how = f"none: {found!r}, from the {how}, is not in the roster"
            found = ""
        elif not found:
            how = "none: neither the roster, the id pattern nor its metadata names one"
        elif grade.claimed and grade.claimed != found:
            how += f" (its metadata names {grade.claimed!r})"
        grade.student_from = how
        grade.student = found
    seen = {}
    for grade in grades:
        if grade.student and grade.lesson:
            seen.setdefault((grade.student, grade.lesson), []).append(grade)
    for (student, lesson), same in seen.items():
        if len(same) > 1:
            for grade in same:
                others = ", ".join(other.submission for other in same if other is not grade)
                grade.student_from += f"; another submission of lesson {lesson} ({others}): not exported"
    return grades


def missing(grades, roster):
    """The roster's students with no graded submission, in roster order."""
    present = {grade.student for grade in grades if grade.student}
    return [student for student in roster or {} if student not in present]
