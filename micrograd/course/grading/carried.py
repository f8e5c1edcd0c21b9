"""The carried code a submitted lesson ran on: the student's my_micrograd.py, or one rebuilt from their build-it cells.

In JupyterLab a lesson runs beside the learner's ``my_micrograd.py``: from lesson 4 on, ``yours.use(...)``
loads the learner's own pieces from it, and a build-it cell that still shows its template runs the saved
code instead.  So a lesson is graded beside that file too, as the student saw it:

- a student's submission is their lesson notebooks and their ``my_micrograd.py``
  (``Submission``); which notebooks are one student's is a grouping, a function of the notebooks' paths
  (``by_folder``, the default: the notebooks of one folder, when no lesson appears twice among them;
  a roster can give another);
- the file submitted is used as it was read at the start of the run;
- where none was submitted, it is rebuilt from the ``%%my_micrograd`` cells of all that student's
  notebooks, in lesson order, as running them would have written it (``saved.expected_file``);
- a folder of several students' notebooks side by side (a lesson twice) has no file of one student's:
  its lessons run on the worked answers, and the rows of the lessons that load carried code say so.
"""

import json
import os
import stat
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..carry.pieces import PIECES
from ..carry.saved import FILE_NAME, expected_file
from .snapshot import lessons_imported, take_snapshot

MAX_CARRIED_BYTES = 1024**2  # a learner's my_micrograd.py is a few kB, lesson 11's included
# A notebook whose code calls this loads the learner's pieces: its row says where they came from when it matters.
LOADS_CARRIED = "yours.use("
FIRST_WRITING_LESSON = min(piece.lesson for piece in PIECES)  # lesson 2: nothing is carried into it


@dataclass
class Submission:
    """One student's notebooks (their paths) and where their my_micrograd.py would be (None: nowhere)."""

    notebooks: list
    carried_file: Path = None
    why_none: str = ""  # when no file can be the student's: why, for the rows


@dataclass
class Carried:
    """The my_micrograd.py a notebook runs beside (text None: none), and what its row says about it."""

    text: str = None
    note: str = ""
    lessons: list = field(default_factory=list)  # the lessons a rebuilt file came from


def by_folder(paths, lesson_of):
    """The default grouping: the notebooks of one folder are one student's, when no lesson appears twice among
    them; a folder that holds a lesson twice holds several students' notebooks, and none of them gets a file."""
    folders = defaultdict(list)
    for path in paths:
        folders[Path(path).parent].append(Path(path))
    submissions = []
    for folder, notebooks in sorted(folders.items()):
        lessons = [lesson_of(path) for path in notebooks if lesson_of(path)]
        twice = sorted({lesson for lesson in lessons if lessons.count(lesson) > 1})
        if twice:
            why = (f"the folder holds lesson {', '.join(twice)} more than once, so several students' notebooks, "
                   f"and its {FILE_NAME} (if any) is no one student's: put each student's notebooks and "
                   f"{FILE_NAME} in a folder of their own")
            submissions.append(Submission(notebooks, None, why))
        else:
            submissions.append(Submission(notebooks, folder / FILE_NAME))
    return submissions


def _read_carried(path):
    """(text, None) of a submitted my_micrograd.py, (None, None) when there is none, (None, why) when unusable."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None, None
    except OSError as error:
        return None, f"its {FILE_NAME} cannot be read ({error.strerror or error})"
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, f"its {FILE_NAME} is not a regular file"
        data = file.read(MAX_CARRIED_BYTES + 1)
    if len(data) > MAX_CARRIED_BYTES:
        return None, f"its {FILE_NAME} is over {MAX_CARRIED_BYTES // 1024} kB, so not a learner's"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return None, f"its {FILE_NAME} is not UTF-8 text"


def carried_code(snapshots, group=by_folder):
    """{notebook path: Carried} for the snapshots (each read once already), grouped into students' submissions
    by group(paths, lesson_of).  Every my_micrograd.py is read here, once, at the start of the run."""
    parsed = {}
    for snapshot in snapshots:
        notebook = _cells_of(snapshot.data)
        lessons = sorted(lessons_imported(notebook)) if notebook else []
        parsed[snapshot.path] = (notebook, lessons[0] if len(lessons) == 1 else "")
    found = {}
    for submission in group([snapshot.path for snapshot in snapshots], lambda path: parsed[Path(path)][1]):
        found.update(_for_submission(submission, parsed))
    return found


def _cells_of(data):
    """The notebook's JSON when it has a list of cells, else None (its own row says what is wrong with it)."""
    try:
        notebook = json.loads(data) if data else None
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return None
    if not all(isinstance(cell, dict) for cell in notebook["cells"]):
        return None
    return notebook


def _for_submission(submission, parsed):
    if submission.carried_file is None:
        carried = Carried(note=f"ran on the worked answers: {submission.why_none}" if submission.why_none else "")
        return {path: carried for path in submission.notebooks}
    text, problem = _read_carried(submission.carried_file)
    if text is not None:
        carried = Carried(text)
    else:
        ours = sorted((parsed[path][1], str(path)) for path in submission.notebooks if parsed[path][0] and parsed[path][1])
        notebooks = [parsed[Path(path)][0] for _, path in ours]
        lessons = sorted({lesson for lesson, _ in ours})
        what = problem or f"no {FILE_NAME} was submitted"
        try:
            text = expected_file(notebooks)
        except (KeyError, TypeError, AttributeError):  # a cell without a source or a type: nbformat's row says so
            carried = Carried(note=f"ran on the worked answers: {what}, and its build-it cells cannot be read")
            return {path: carried for path in submission.notebooks}
        carried = Carried(text, f"{FILE_NAME} rebuilt from the build-it cells of lesson {', '.join(lessons)}, as "
                                f"{what}", lessons)
    return {path: carried for path in submission.notebooks}


def note_for(carried, notebook, lesson):
    """The note a row gets about its carried code: only for a lesson that loads pieces of earlier lessons, and only
    when it is not the file the student submitted."""
    if carried is None or not carried.note or int(lesson) <= FIRST_WRITING_LESSON:
        return ""
    for cell in notebook.get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if cell.get("cell_type") == "code" and LOADS_CARRIED in source:
            return carried.note
    return ""


def carried_beside(snapshot):
    """The Carried of one notebook graded alone: the notebooks of its folder are its student's (``by_folder``),
    each read once here."""
    siblings = [take_snapshot(path) for path in sorted(snapshot.path.parent.glob("*.ipynb"))
                if path.name != snapshot.path.name]
    return carried_code([snapshot, *siblings]).get(snapshot.path)
