"""A submission read once, at the start of the run: its bytes, its cells, the lessons it imports."""

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from .grades import MAX_NOTEBOOK_BYTES

CHECKER_IMPORT = re.compile(
    r"^[ \t]*(?:from\s+micrograd\.course(?:\.lessons)?\s+import\s+(\([^)]*\)|[\w \t,]+)"
    r"|import\s+micrograd\.course\.(?:lessons\.)?lesson(\d+))",
    re.MULTILINE,
)
LESSON_NAME = re.compile(r"\blesson(\d+)\b")

def lessons_imported(notebook):
    """The lessons whose checkers a notebook's code cells import, e.g. {"05"}."""
    lessons = set()
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        for names, direct in CHECKER_IMPORT.findall(source):
            numbers = [direct] if direct else LESSON_NAME.findall(names)
            lessons.update(f"{int(number):02d}" for number in numbers)
    return lessons


@dataclass
class Snapshot:
    """A submission as read once: its bytes (or why there are none) and their digest."""

    path: Path
    data: bytes = None
    digest: str = ""
    problem: str = ""


def _read(path):
    """Up to one byte past the limit of a regular file; OSError for anything else."""
    # O_NONBLOCK: a FIFO named like a notebook must not hang the run.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(0, "not a regular file")
        return file.read(MAX_NOTEBOOK_BYTES + 1)


def take_snapshot(path):
    """Read a submission once, whatever has become of it: never raises."""
    path = Path(path)
    try:
        data = _read(path)
    except FileNotFoundError:
        return Snapshot(path, problem="not graded: the file vanished before it could be read")
    except IsADirectoryError:
        return Snapshot(path, problem="not graded: a folder, not a notebook file")
    except OSError as error:
        return Snapshot(path, problem=f"not graded: the file cannot be read ({error.strerror or error})")
    if len(data) > MAX_NOTEBOOK_BYTES:
        try:
            size = os.stat(path).st_size
        except OSError:
            size = len(data)
        return Snapshot(path, problem=f"not graded: the file is {size / 1024**2:.0f} MB (limit {MAX_NOTEBOOK_BYTES // 1024**2} MB)")
    return Snapshot(path, data=data, digest=hashlib.sha256(data).hexdigest())


def what_became_of(snapshot):
    """A note when the file on disk is no longer what was graded, else None."""
    if snapshot.data is None:
        return None
    try:
        now = _read(snapshot.path)
    except FileNotFoundError:
        return "the file was removed during the run (graded as it was read at the start)"
    except OSError as error:
        return f"the file became unreadable during the run ({error.strerror or error}; graded as read at the start)"
    if hashlib.sha256(now).hexdigest() != snapshot.digest:
        return "the file changed during the run (graded as it was read at the start)"
    return None


def parse_notebook(data):
    """The notebook as JSON, or the reason it cannot be graded."""
    if not data:
        return None, "empty file"
    try:
        notebook = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        return None, f"invalid notebook: not valid JSON ({error})"
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return None, "invalid notebook: JSON, but not a Jupyter notebook (no list of cells)"
    import nbformat

    try:
        nbformat.validate(nbformat.reads(json.dumps(notebook), as_version=4))
    except Exception as error:  # nbformat raises several kinds for a malformed notebook
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return None, f"invalid notebook: {first_line[:200]}"
    return notebook, None
