"""Feedback: a Markdown file per student, and the teacher's report of every submission in one file.

A student's file lists, for each lesson they submitted, each exercise (the
hidden checks' too) with its verdict, its points, the check's message and
what the notebook printed in the exercise's cell (up to the worker's limit,
MAX_PRINTED_CHARS, and MAX_LINES lines).  The teacher's report, report.md,
holds the same for every submission, and besides: how each run went, why a
row is suspect, and which submissions have no student id.

Files are named by the student id (characters other than letters, digits,
``.``, ``_`` and ``-`` made ``_``); a submission with no id gets
``no-id--<its path>.md``.  Whatever a notebook printed is shown as text, in a
fence longer than any run of backticks in it, never as Markdown or HTML.
"""

import html
import re
from pathlib import Path

from .points import points_of

MAX_LINES = 40
REPORT_NAME = "report.md"
MARK = {"passed": "✓ passed", "not attempted": "… not attempted", "no verdict": "? no verdict"}


def file_name(grade):
    if grade.student:
        return re.sub(r"[^A-Za-z0-9._-]", "_", grade.student).lstrip(".") + ".md"
    return "no-id--" + re.sub(r"[^A-Za-z0-9._-]", "_", grade.submission).lstrip(".") + ".md"


def _text(text):
    return html.escape(str(text), quote=False).replace("\n", " ")


def _fenced(text):
    lines = text.rstrip("\n").splitlines()
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES] + [f"… ({len(lines) - MAX_LINES} more lines not shown)"]
    body = "\n".join(lines)
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", body)), default=0))
    return f"{fence}text\n{body}\n{fence}"


def section(grade, table=None, *, teacher=False):
    """The Markdown of one submission."""
    lines = [f"## Lesson {grade.lesson or '?'}: {_text(grade.submission)}", ""]
    if grade.results:
        lines += [f"Score: **{grade.score:g} / {grade.max_score:g}**", ""]
    else:
        lines += [f"Not graded: {_text(grade.status)}", ""]
    if teacher:
        lines += [f"- student: {_text(grade.student) or '(no id)'}", f"- run: {_text(grade.summary)}"]
        lines += [f"- suspect: {_text(reason)}" for reason in grade.suspect]
        lines.append("")
    for title, result in grade.results.items():
        status = "failed" if result.startswith("failed") else result
        points = points_of(table, grade.lesson, title)
        earned = points if status == "passed" else 0
        lines.append(f"### {_text(title)}: {MARK.get(status, '✗ not yet')} ({earned:g} / {points:g})")
        message = grade.messages.get(title, "")
        if message:
            lines += ["", f"> {_text(message)}"]
        cell = grade.cells.get(title)
        if cell is not None:
            printed = grade.printed.get(cell, "")
            lines += ["", f"Cell {cell + 1} printed:" if printed else f"Cell {cell + 1} printed nothing."]
            if printed:
                lines += ["", _fenced(printed)]
        lines.append("")
    return "\n".join(lines)


def _sections(text):
    """(the text before the first section, {heading: section}) of a file written here: a section starts at a
    "## Lesson" heading; one inside a fenced printout is the notebook's text, not a heading."""
    head, found, current, fence = "", {}, None, None
    for line in text.splitlines(keepends=True):
        if fence is None and line.startswith("## Lesson "):
            current = line.rstrip("\n")
            found[current] = ""
        if current is None:
            head += line
        else:
            found[current] += line
        if fence is None:
            opening = re.fullmatch(r"(`{3,})text\n?", line)
            fence = opening.group(1) if opening else None
        elif line.rstrip("\n") == fence:
            fence = None
    return head, found


def _merged(path, head, new_sections):
    """The file at path with its sections for the same submissions replaced by new_sections (a re-grade), the
    others kept; head and new_sections alone where there is no such file yet."""
    kept = _sections(path.read_text(encoding="utf-8"))[1] if path.exists() else {}
    for text in new_sections:
        heading = text.split("\n", 1)[0]
        kept[heading] = text.rstrip("\n") + "\n\n"
    return head + "".join(kept.values())


def write_students(grades, folder, table=None, regrade=False):
    """Write a file per student into folder; return their paths.  With regrade, a student's file keeps its
    sections for the submissions not graded again (their other lessons)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    by_file = {}
    for grade in grades:
        by_file.setdefault(file_name(grade), []).append(grade)
    written = []
    for name, own in sorted(by_file.items()):
        who = own[0].student or "(no student id)"
        head, sections = f"# Feedback for {_text(who)}\n\n", [section(grade, table) for grade in own]
        text = _merged(folder / name, head, sections) if regrade else head + "\n".join(sections)
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written


def update_report(grades, folder, table=None):
    """The teacher's report with the sections of the submissions graded again replaced (a re-grade)."""
    path = Path(folder) / REPORT_NAME
    if not path.exists():
        return write(grades, folder, table)
    head = _sections(path.read_text(encoding="utf-8"))[0]
    path.write_text(_merged(path, head, [section(grade, table, teacher=True) for grade in grades]), encoding="utf-8")
    return write_students(grades, folder, table, regrade=True)


def write(grades, folder, table=None):
    """Write a file per student and the teacher's report into folder; return the paths of the students' files."""
    folder = Path(folder)
    written = write_students(grades, folder, table)
    by_file = {file_name(grade) for grade in grades}
    no_id = [grade.submission for grade in grades if not grade.student]
    report = ["# Grading report", "", f"{len(grades)} submission(s); {len(by_file)} feedback file(s) in this folder.", ""]
    if no_id:
        report += ["Submissions with no student id (feedback in no-id--*.md):", ""]
        report += [f"- {_text(name)}" for name in no_id] + [""]
    report += [section(grade, table, teacher=True) for grade in grades]
    (folder / REPORT_NAME).write_text("\n".join(report), encoding="utf-8")
    return written
