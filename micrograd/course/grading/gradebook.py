"""The class's grades.csv kept up to date: a re-grade replaces its rows in place, and every replaced row is logged.

``grades.csv`` holds one row per submission (micrograd.course.grading.report.csv_rows).
A full run writes it afresh; a re-grade of some submissions (``--only``, or a
notebook given instead of a folder) replaces just their rows and keeps the
rest.  Either way, a row that is replaced or dropped is first appended to
``grades-log.csv`` beside it, with the time it was replaced, so no earlier
result is lost.
"""

import csv
import re
import time
from pathlib import Path

from .report import csv_rows, write_rows

LOG_NAME = "grades-log.csv"


def read(path):
    """(header, rows) of an existing grades CSV, or ([], []) when there is none."""
    path = Path(path)
    if not path.exists():
        return [], []
    with open(path, newline="", encoding="utf-8") as file:
        reader = csv.DictReader(file)
        return list(reader.fieldnames or []), list(reader)


def log_path(csv_path):
    return Path(csv_path).with_name(LOG_NAME)


def _log(rows, header, csv_path):
    """Append rows (as they were) to the log, with the time they were replaced."""
    if not rows:
        return
    path = log_path(csv_path)
    old_header, old_rows = read(path)
    when = time.strftime("%Y-%m-%d %H:%M:%S")
    names = ["replaced_at", *dict.fromkeys([*old_header[1:], *header])]
    write_rows(names, [*old_rows, *[{"replaced_at": when, **row} for row in rows]], path)


def update(grades, csv_path, *, regrade):
    """Write the run's rows to csv_path: all of it (regrade=False) or in place of the same submissions' rows.

    Returns how many earlier rows went to the log.
    """
    old_header, old_rows = read(csv_path)
    prefixed = any(re.match(r"\d\d ", name) for name in old_header)
    lessons = {row.get("lesson") for row in old_rows if row.get("lesson")} | {grade.lesson for grade in grades if grade.results}
    if regrade and len(lessons) > 1 and not prefixed:
        raise ValueError(f"{csv_path} holds one lesson's grades and this re-grade another's: grade the whole folder again")
    header, rows = csv_rows(grades, prefixed=prefixed if regrade else None)
    fresh = {row["submission"] for row in rows}
    if regrade:
        replaced = [row for row in old_rows if row.get("submission") in fresh]
        kept = [row for row in old_rows if row.get("submission") not in fresh]
        header = list(dict.fromkeys([*old_header, *header])) if old_header else header
        merged = sorted([*kept, *rows], key=lambda row: row.get("submission", ""))
    else:
        replaced, merged = old_rows, rows
    _log(replaced, old_header, csv_path)
    write_rows(header, merged, csv_path)
    return len(replaced)
