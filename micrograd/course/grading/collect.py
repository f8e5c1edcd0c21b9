"""What a run tells beyond the verdicts: each exercise's message and cell, what the cells printed, hidden checks.

Filled in by the runner for the feedback (micrograd.course.grading.feedback):
grade.messages (title -> the check's message), grade.cells (title -> the cell
that checks it: the one whose verdict counted, else the one holding its
released checker call), grade.printed (cell -> what it printed, cut by the
worker), and the hidden checks' verdicts.
"""

from . import hidden as hidden_checks


def claimed_student(notebook):
    """The student id a notebook's metadata names (metadata.micrograd.student), or ""."""
    metadata = notebook.get("metadata") if isinstance(notebook, dict) else None
    course = metadata.get("micrograd") if isinstance(metadata, dict) else None
    student = course.get("student") if isinstance(course, dict) else None
    return str(student).strip()[:200] if isinstance(student, (str, int)) else ""


def details(grade, events, vouched, calls, hidden):
    """Messages, cells and printed text of the grade's exercises; then its hidden checks' verdicts, if any.

    vouched: title -> the verdict that counted; calls: {(cell, title): n} of the released checker calls;
    hidden: (file, titles) of this lesson's hidden checks, or None.
    """
    for title in grade.results:
        if title in vouched:
            grade.messages[title] = str(vouched[title].get("message", ""))
        elif title not in grade.cells:
            cells = sorted(cell for cell, each in calls if each == title)
            if cells:
                grade.cells[title] = cells[-1]
    for event in events:
        if event["event"] == "printed" and isinstance(event.get("text"), str):
            cut = event.get("cut") or 0
            grade.printed[event["cell"]] = event["text"] + (f"\n… ({cut} more characters not shown)" if cut else "")
    if hidden:
        event = next((event for event in events if event["event"] == "hidden"), None)
        hidden_checks.apply(grade, event, hidden[1])
