"""my_micrograd.py, the file that carries the learner's code from lesson to lesson.

Every ``%%my_micrograd lesson N: piece`` cell saves its code in a section of its own
(``# %% lesson 3: MyValue``), replacing the one there, atomically and under a lock (several
kernels may share the folder); the code it replaces is kept first (``history``).  The sections
are kept in lesson order.
"""

import contextlib
import os
import re
import time
from pathlib import Path

from . import history
from .pieces import PIECES
from .templates import body, section_key, stored_cells

__all__ = ["FILE_NAME", "HEADER", "sections", "store", "section_key", "stored_cells", "expected_file", "body", "path_in", "order"]

FILE_NAME = "my_micrograd.py"

HEADER = f'''\
"""my_micrograd.py: your own micrograd, as you wrote it in the lessons.

Every cell that starts with %%my_micrograd saves its code here, in a section
of its own ("# %% lesson 3: MyValue").  Running the cell again with other
code replaces that section, and keeps the code it replaces: the last
{history.KEEP} versions of each piece, in {history.HISTORY_NAME} beside this file;
yours.restore("lesson 3: MyValue") lists them and brings one back.  A cell
that still shows the lesson's template (after a reload, say) runs your code
from here instead, and puts it back in the cell.  Later lessons load your
pieces from this file with micrograd.course.carry.yours.use(...), which checks each
one and says on screen whether the lesson runs on yours or on the package's
worked answer.

Change your code in the lessons, not here: a cell run replaces its section.
"""
'''

_MARK = re.compile(r"^# %% lesson (\d+): (.+?)\s*$")


def path_in(folder=None):
    return Path(folder if folder is not None else os.getcwd()) / FILE_NAME


def sections(folder=None):
    """{key: (first line number of the code, code)} of my_micrograd.py in folder (the working folder)."""
    path = path_in(folder)
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return {}
    return _parse(text)


def _parse(text):
    found, key, start, lines = {}, None, 0, []
    for number, line in enumerate(text.splitlines(), start=1):
        mark = _MARK.match(line)
        if mark:
            if key is not None:
                found[key] = (start, body(lines))
            key, start, lines = f"lesson {int(mark.group(1))}: {mark.group(2)}", number + 1, []
        elif key is not None:
            lines.append(line)
    if key is not None:
        found[key] = (start, body(lines))
    return found


def order(key, seen):
    lesson = int(_MARK.match(f"# %% {key}").group(1))
    known = [piece.key for piece in PIECES]
    return (lesson, known.index(key) if key in known else len(known) + seen.index(key))


def _render(found):
    seen = list(found)
    parts = [HEADER]
    for key in sorted(found, key=lambda k: order(k, seen)):
        parts.append(f"\n\n# %% {key}\n{found[key][1]}")
    return "".join(parts)


@contextlib.contextmanager
def _locked(folder):
    """Hold a lock on the folder while the file is read and rewritten (several kernels may share it)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux or macOS: no lock, the write is still atomic
        yield
        return
    if not hasattr(fcntl, "flock"):
        # Pyodide's kernel (the course in the browser) puts an empty stand-in fcntl module in
        # sys.modules: there is one tab and one kernel writing the file, so no lock is needed.
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def store(key, code, folder=None):
    """Save code as the section key of my_micrograd.py in folder, replacing the one there, which is kept first
    (``history``) when it differs; atomic."""
    path = path_in(folder)
    folder = path.parent
    code = body(code)
    with _locked(folder):
        _set_aside_if_unreadable(path)
        found = sections(folder)
        replaced = found[key][1] if key in found else None
        if replaced != code:
            history.record(folder, key, replaced, code)
        found[key] = (0, code)
        history.write_atomically(path, _render(found))
    return path


def _set_aside_if_unreadable(path):
    """A my_micrograd.py that is not UTF-8 text (saved by another editor, say) has sections this course cannot read:
    rather than write a new file over it, keep it under another name, and say so."""
    try:
        path.read_text(encoding="utf-8")
    except FileNotFoundError:
        pass
    except UnicodeDecodeError:
        aside = path.with_name(f"{FILE_NAME}.unreadable-{int(time.time())}")
        os.replace(path, aside)
        print(f"{FILE_NAME} was not UTF-8 text, so it is kept as {aside.name} and a new {FILE_NAME} is started; "
              "copy what you need from it into your lessons' cells.")


def expected_file(notebooks):
    """The text my_micrograd.py holds after the notebooks' %%my_micrograd cells have run, in any order (each
    notebook a path, or its JSON already read)."""
    found = {}
    for notebook in notebooks:
        for key, code in stored_cells(notebook):
            found[key] = (0, body(code))
    return _render(found)
