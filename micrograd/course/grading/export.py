"""Gradebook files an LMS imports, made from grades.csv: Canvas's and Moodle's CSV formats.

One row per student, one column per lesson holding the student's score (the
sum of the points of the exercises passed, micrograd.course.grading.points).
Rows without a student id, and students with two submissions of one lesson,
are left out and listed on the standard error, for the teacher to settle.

Canvas ("Import grades in the Gradebook", e.g.
https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades):
the columns Student, ID, SIS User ID, SIS Login ID, Section, then a column
per assignment, with a "Points Possible" row under the header as in Canvas's
own export.  Canvas matches a student by the name, ID (Canvas's own) or SIS
User ID: the student id goes in SIS User ID, the roster's name, canvas_id,
sis_login_id and section in the others.  An assignment column whose name is
new creates the assignment.

Moodle ("Grade import", https://docs.moodle.org/311/en/Grade_import): the
columns of Moodle's own export, First name, Last name, ID number, Email
address, then one grade column per lesson; on import, map "ID number" to
useridnumber (or "Email address" to useremail) and each lesson's column to
its grade item.
"""

import argparse
import csv
import sys
from pathlib import Path

from . import roster as rosters
from .report import write_rows


def _score(value):
    return value if value not in (None, "") else ""


def gradebook(rows):
    """({student: {lesson: (score, max_score)}}, [why a row was left out]) from grades.csv rows."""
    students, left_out, seen = {}, [], {}
    for row in rows:
        student, lesson = row.get("student", ""), row.get("lesson", "")
        if not lesson or row.get("score", "") == "":
            continue
        if not student:
            left_out.append(f"{row.get('submission')}: no student id")
            continue
        seen.setdefault((student, lesson), []).append(row)
    for (student, lesson), same in sorted(seen.items()):
        if len(same) > 1:
            left_out.append(f"student {student}, lesson {lesson}: {len(same)} submissions "
                            f"({', '.join(row.get('submission', '') for row in same)})")
            continue
        students.setdefault(student, {})[lesson] = (same[0]["score"], same[0].get("max_score", ""))
    return students, left_out


def _lessons(students):
    return sorted({lesson for scores in students.values() for lesson in scores})


def canvas(rows, roster=None):
    """(header, rows) in Canvas's gradebook import format."""
    students, left_out = gradebook(rows)
    lessons = _lessons(students)
    columns = [f"Lesson {lesson}" for lesson in lessons]
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *columns]
    possible = {"Student": "    Points Possible"}
    for lesson, column in zip(lessons, columns):
        maxima = {scores[lesson][1] for scores in students.values() if lesson in scores}
        possible[column] = maxima.pop() if len(maxima) == 1 else ""
    out = [possible]
    for student, scores in sorted(students.items()):
        info = (roster or {}).get(student, {})
        row = {"Student": info.get("name") or " ".join(filter(None, [info.get("first_name"), info.get("last_name")])) or student,
               "ID": info.get("canvas_id", ""), "SIS User ID": student, "SIS Login ID": info.get("sis_login_id", ""),
               "Section": info.get("section", "")}
        row.update({column: _score(scores.get(lesson, ("",))[0]) for lesson, column in zip(lessons, columns)})
        out.append(row)
    return header, out, left_out


def moodle(rows, roster=None):
    """(header, rows) in Moodle's grade import format."""
    students, left_out = gradebook(rows)
    lessons = _lessons(students)
    columns = [f"Lesson {lesson}" for lesson in lessons]
    header = ["First name", "Last name", "ID number", "Email address", *columns]
    out = []
    for student, scores in sorted(students.items()):
        info = (roster or {}).get(student, {})
        first, last = info.get("first_name", ""), info.get("last_name", "")
        if not (first or last) and info.get("name"):
            first, _, last = info["name"].partition(" ")
        row = {"First name": first, "Last name": last, "ID number": student, "Email address": info.get("email", "")}
        row.update({column: _score(scores.get(lesson, ("",))[0]) for lesson, column in zip(lessons, columns)})
        out.append(row)
    return header, out, left_out


FORMATS = {"canvas": canvas, "moodle": moodle}


def export(kind, csv_path, out_path, roster=None):
    """Write the gradebook file; return the reasons rows were left out."""
    with open(csv_path, newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    header, out, left_out = FORMATS[kind](rows, roster)
    write_rows(header, out, out_path)
    return left_out


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m micrograd.course.grading.export",
                                     description="Write a Canvas or Moodle gradebook CSV from grades.csv.")
    parser.add_argument("grades", help="the grades.csv a grading run wrote")
    parser.add_argument("format", choices=sorted(FORMATS))
    parser.add_argument("out", help="the file to write")
    parser.add_argument("--roster", help="the roster CSV (names, emails, sections for the LMS)")
    args = parser.parse_args(argv)
    try:
        roster = rosters.load(args.roster) if args.roster else None
    except rosters.RosterError as error:
        parser.error(str(error))
    if not Path(args.grades).is_file():
        parser.error(f"{args.grades} is not a file: give the grades.csv a grading run wrote")
    left_out = export(args.format, args.grades, args.out, roster)
    for reason in left_out:
        print(f"left out: {reason}", file=sys.stderr)
    print(f"{args.format} gradebook written to {args.out}")


if __name__ == "__main__":
    sys.exit(main())
