"""A run's table on screen and its CSV file."""

import csv
import os
from pathlib import Path

from .grades import SANDBOXED

def _columns(grades):
    """(lesson, title) for every exercise of the lessons present (hidden checks after), in lesson and exercise order."""
    from micrograd.course import exercise_titles

    lessons = sorted({grade.lesson for grade in grades if grade.results})
    columns = []
    for lesson in lessons:
        titles = list(exercise_titles(lesson))
        for grade in grades:
            if grade.lesson == lesson:
                titles += [title for title in grade.results if title not in titles]
        columns += [(lesson, title) for title in titles]
    return columns


def _labels(titles):
    """Column headers: each title up to its colon ("Exercise 1"), numbered where two would clash."""
    labels = [title.split(":")[0] for title in titles]
    for label in set(labels):
        if labels.count(label) > 1:
            numbers = iter(range(1, len(labels) + 1))
            labels = [f"{each} ({next(numbers)})" if each == label else each for each in labels]
    return labels


def _short(text, width):
    return text if len(text) <= width else text[: width - 1] + "…"


def sandbox_line(grades):
    """One line that says where the submissions' code ran; "" when none ran."""
    labels = sorted({grade.sandbox for grade in grades if grade.sandbox})
    if not labels:
        return ""
    if labels == [SANDBOXED]:
        return ("Sandbox: every notebook ran under bubblewrap (no network; read-only system, Python and package; "
                "no view of your files, the submissions or the grader).")
    reasons = "; ".join(label.removeprefix("none: ") for label in labels if label != SANDBOXED)
    return (f"WARNING: submissions ran UNSANDBOXED ({reasons}): their code ran as your user, "
            "with your files and your network.")


def format_table(grades, width=40):
    """The grades as text: where they ran, one table per lesson, then the rows that could not be graded."""
    lines = []
    where = sandbox_line(grades)
    if where:
        lines += [where, ""]
    by_lesson = {}
    for grade in grades:
        by_lesson.setdefault(grade.lesson if grade.results else "", []).append(grade)
    for lesson, rows in sorted(by_lesson.items(), key=lambda item: (item[0] == "", item[0])):
        if lesson:
            titles = list(rows[0].results)
            headers = ["submission", "run", *_labels(titles)]
            body = [[row.submission, row.summary, *[row.results[title] for title in titles]] for row in rows]
            lines.append(f"Lesson {lesson}")
        else:
            headers = ["submission", "not graded"]
            body = [[row.submission, row.summary] for row in rows]
            lines.append("Not graded")
        widths = [60, width] if lesson else [60, 2 * width]  # a row that was not graded has only its reason
        body = [[_short(value, widths[min(index, 1)]) for index, value in enumerate(row)] for row in body]
        widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *body)]
        lines.append("  ".join(header.ljust(size) for header, size in zip(headers, widths)).rstrip())
        lines.append("  ".join("-" * size for size in widths))
        lines += ["  ".join(value.ljust(size) for value, size in zip(row, widths)).rstrip() for row in body]
        if lesson:
            lines += [f"  {title}" for title in titles]
        lines.append("")
    anonymous = [grade.submission for grade in grades if grade.student_from.startswith("none")]
    if anonymous:
        lines += [f"No student id ({len(anonymous)}): {', '.join(anonymous)}", ""]
    suspects = [grade for grade in grades if grade.suspect]
    if suspects:
        lines.append("Suspect: verdicts the grader cannot vouch for (only those of released checker calls are counted)")
        for grade in suspects:
            lines.append(f"  {grade.submission}:")
            lines += [f"    - {reason}" for reason in grade.suspect]
        lines.append("")
    return "\n".join(lines)


def csv_rows(grades, prefixed=None):
    """(header, rows as dicts) of the CSV: submission, student, student_from, lesson, score, max_score, run, suspect, sandbox,
    seconds, then one column per exercise (named "01 Exercise 1: ..." when the rows hold several lessons, or prefixed)."""
    columns = _columns(grades)
    single = len({lesson for lesson, _ in columns}) <= 1 if prefixed is None else not prefixed
    names = [title if single else f"{lesson} {title}" for lesson, title in columns]
    header = ["submission", "student", "student_from", "lesson", "score", "max_score", "run", "suspect", "sandbox", "seconds", *names]
    rows = []
    for grade in grades:
        scored = bool(grade.results)
        rows.append(dict(zip(header, [
            grade.submission, grade.student, grade.student_from, grade.lesson, f"{grade.score:g}" if scored else "",
            f"{grade.max_score:g}" if scored else "", grade.summary, "; ".join(grade.suspect),
            grade.sandbox or "not run", grade.seconds,
            *[grade.results.get(title, "") if grade.lesson == lesson else "" for lesson, title in columns],
        ])))
    return header, rows


def write_rows(header, rows, path):
    """Write a CSV beside path and rename it over path, so a reader never sees half a file."""
    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with open(partial, "w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, fieldnames=header, restval="", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(partial, path)


def write_csv(grades, path):
    """One row per submission (see csv_rows), written whole or not at all."""
    write_rows(*csv_rows(grades), path)
