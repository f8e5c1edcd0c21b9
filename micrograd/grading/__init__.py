"""Grade a folder of submitted lesson notebooks: ``python -m micrograd.grading DIR`` (make grade DIR=...).

Each notebook is run afresh and graded by the verdicts its own checkers show
(``application/vnd.micrograd.verdict+json`` outputs, see
micrograd.exercises.checking): one row per submission, one column per exercise
of its lesson: "passed", "failed: <the checker's reason>", "not attempted", or
"no verdict" when the exercise's checker never showed one (its cell failed,
was deleted, or the run was stopped).

Submitted notebooks are untrusted code.  Each one runs

- on a temporary copy, in a temporary folder that is the kernel's working folder;
- in a fresh kernel, started by a worker process of its own (micrograd.grading._worker),
  so nothing a notebook does can crash or stall the grader;
- under a wall-clock time limit for the whole notebook, after which the worker,
  the kernel and everything they started are killed;
- under a memory limit on the kernel process (RLIMIT_AS, set in the kernel itself by
  micrograd.grading._kernel), with a CPU-time backstop and a cap on file sizes.

This contains mistakes (a loop that never ends, a list that eats the memory, a
print in a loop), not an attacker: the code runs as the grader's user, with its
files and network.  For submissions you do not trust, run the grader in a
throwaway container or virtual machine, or as an unprivileged user.  And a
notebook can display a verdict of its own making: the grade is what the
notebook showed, as with any self-checking notebook.

The lesson is recognised from the content (the checker import
``from micrograd.exercises import lessonNN`` and the lessons of the verdicts
shown), never from the file name.
"""

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..exercises.checking import MARKS

__all__ = ["Grade", "grade_notebook", "grade_folder", "format_table", "write_csv", "DEFAULT_TIME_LIMIT", "DEFAULT_MEMORY"]

DEFAULT_TIME_LIMIT = 120.0  # seconds per notebook; every lesson runs in well under a minute
DEFAULT_MEMORY = 2 * 1024**3  # bytes of address space for the kernel
MAX_NOTEBOOK_BYTES = 50 * 1024**2  # a lesson with its outputs is a few MB
HUGE_OUTPUT_BYTES = 10 * 1024**2  # more output than this is reported in the row
# Time for the worker to start a kernel and shut it down, beyond the notebook's own limit.
KERNEL_ALLOWANCE_SECONDS = 60

CHECKER_IMPORT = re.compile(
    r"^\s*(?:from\s+micrograd\.exercises\s+import\s+([\w\s,()]+)|import\s+micrograd\.exercises\.lesson(\d+))",
    re.MULTILINE,
)
LESSON_NAME = re.compile(r"\blesson(\d+)\b")
STATUSES = tuple(MARKS)  # the statuses a checker gives


@dataclass
class Grade:
    """One submission's row: which lesson, how the run went, and each exercise's result."""

    submission: str
    lesson: str = ""  # two digits; "" when not recognised
    status: str = "graded"  # "graded", or what stopped it being graded fully
    notes: list = field(default_factory=list)
    results: dict = field(default_factory=dict)  # exercise title -> cell text
    seconds: float = 0.0

    @property
    def summary(self):
        return "; ".join([self.status, *self.notes]) if self.notes else self.status


def _cell(verdict):
    status = verdict.get("status")
    if status == "failed":
        return f"failed: {verdict.get('message', '')}"
    return status


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


def _read_notebook(path):
    """The notebook as JSON, or the reason it cannot be graded."""
    size = path.stat().st_size
    if size == 0:
        return None, "empty file"
    if size > MAX_NOTEBOOK_BYTES:
        return None, f"not graded: the file is {size / 1024**2:.0f} MB (limit {MAX_NOTEBOOK_BYTES // 1024**2} MB)"
    try:
        notebook = json.loads(path.read_bytes())
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


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_kernel(events):
    """Kill the kernel the worker reported starting, if it is still that kernel."""
    pid = next((event.get("kernel_pid") for event in events if event["event"] == "started"), None)
    if not pid:
        return
    try:
        import psutil

        if "ipykernel_launcher" not in " ".join(psutil.Process(pid).cmdline()):
            return  # gone, and the number now belongs to another process
    except ImportError:
        pass
    except psutil.Error:
        return
    _kill_group(pid)


def _kill_tree(process):
    """Kill the worker, the kernel it started (in a session of its own) and their children."""
    try:
        import psutil

        try:
            family = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            family = []
        for member in family:
            _kill_group(member.pid)  # a kernel leads its own process group
            try:
                member.kill()
            except psutil.NoSuchProcess:
                pass
    except ImportError:
        pass
    _kill_group(process.pid)
    process.wait()


def _run_worker(copy, events_path, time_limit, memory):
    """Run the worker on the copy; True if it finished on its own, False if it was killed."""
    command = [
        sys.executable, "-m", "micrograd.grading._worker", str(copy), str(events_path),
        "--time-limit", str(time_limit), "--memory", str(memory),
    ]
    scratch = events_path.parent
    (scratch / "tmp").mkdir()
    # Jupyter's connection file and the notebook's temporary files go to the
    # scratch folder, removed with it.
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(scratch / "runtime"), TMPDIR=str(scratch / "tmp"))
    with open(events_path.with_suffix(".log"), "wb") as log:
        process = subprocess.Popen(
            command, cwd=copy.parent, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            process.wait(timeout=time_limit + KERNEL_ALLOWANCE_SECONDS)
            return True
        except subprocess.TimeoutExpired:
            return False
        finally:
            _kill_tree(process)  # whatever happened, nothing of this notebook runs on


def _read_events(path):
    events = []
    if path.exists():
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a line cut short when the worker was killed
    return events


def grade_notebook(path, *, lesson=None, time_limit=DEFAULT_TIME_LIMIT, memory=DEFAULT_MEMORY):
    """Run one submitted notebook and return its Grade (never raises for a bad notebook)."""
    from micrograd.exercises import exercise_titles

    path = Path(path)
    started = time.monotonic()
    grade = Grade(submission=path.name)
    expected = f"{int(lesson):02d}" if lesson is not None else None
    notebook, problem = _read_notebook(path)
    if problem:
        grade.status = problem
        return grade
    code = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code" and "".join(cell.get("source", "")).strip()]
    if not code:
        grade.status = "empty notebook: no code to run"
        return grade
    imported = sorted(lessons_imported(notebook))
    if not imported:
        grade.status = "not a lesson notebook: it imports no lesson's checkers"
        return grade
    if len(imported) > 1:
        grade.status = f"mixed lessons: imports the checkers of lessons {', '.join(imported)}"
        return grade
    grade.lesson = imported[0]
    if expected and grade.lesson != expected:
        grade.status = f"another lesson: lesson {grade.lesson}, expected {expected}"
        return grade
    titles = exercise_titles(grade.lesson)
    if not titles:
        grade.status = f"unknown lesson {grade.lesson}: the course has no checkers for it"
        return grade

    # ignore_cleanup_errors: a notebook that left an unremovable file must not stop the grading.
    with tempfile.TemporaryDirectory(prefix="micrograd-grading-", ignore_cleanup_errors=True) as folder:
        # The notebook's folder holds nothing but its copy; the worker's events go beside it.
        (Path(folder) / "work").mkdir()
        copy = Path(folder) / "work" / "submission.ipynb"
        shutil.copyfile(path, copy)
        events_path = Path(folder) / "events.jsonl"
        finished = _run_worker(copy, events_path, time_limit, memory)
        events = _read_events(events_path)
        if not any(event["event"] == "done" for event in events):
            _kill_kernel(events)  # the run was cut short: make sure its kernel went with it
        log = events_path.with_suffix(".log").read_text(errors="replace")[-2000:]
    grade.seconds = round(time.monotonic() - started, 1)

    verdicts = {}
    other_lessons = set()
    for event in events:
        if event["event"] != "verdict" or not isinstance(event.get("verdict"), dict):
            continue
        verdict = event["verdict"]
        if verdict.get("lesson") != grade.lesson:
            other_lessons.add(str(verdict.get("lesson")))
            continue
        if verdict.get("exercise") in titles and verdict.get("status") in STATUSES:
            verdicts[verdict["exercise"]] = verdict  # the last verdict shown for an exercise counts
    grade.results = {title: _cell(verdicts[title]) if title in verdicts else "no verdict" for title in titles}

    kinds = {event["event"] for event in events}
    errors = [event for event in events if event["event"] == "error"]
    done = next((event for event in events if event["event"] == "done"), None)
    if other_lessons:
        grade.status = f"mixed lessons: imports lesson {grade.lesson}'s checkers, shows verdicts of lesson {', '.join(sorted(other_lessons))}"
    elif "timeout" in kinds or not finished:
        grade.status = f"time limit: stopped after {time_limit:g} s"
    elif "started" not in kinds:
        grade.status = "the kernel did not start" + (f": {log.strip().splitlines()[-1]}" if log.strip() else "")
    elif done is None:
        grade.status = "the run was cut short (the kernel or the grader's worker died)"
    if errors:
        first = errors[0]
        what = f"{first['ename']}: {first['evalue']}".strip(": ")
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        note = f"raised {what} in cell {first['cell'] + 1}{more}"
        if first["ename"] == "MemoryError":
            note = f"memory limit ({memory / 1024**3:g} GB): " + note
        grade.notes.append(note)
    if done and done.get("output_bytes", 0) > HUGE_OUTPUT_BYTES:
        grade.notes.append(f"huge output: {done['output_bytes'] / 1024**2:.0f} MB printed (not kept)")
    return grade


def find_notebooks(folder):
    return sorted(
        path for path in Path(folder).rglob("*.ipynb")
        if ".ipynb_checkpoints" not in path.parts and path.is_file()
    )


def grade_folder(folder, *, lesson=None, time_limit=DEFAULT_TIME_LIMIT, memory=DEFAULT_MEMORY, jobs=1, progress=None):
    """Grade every .ipynb under folder; rows in file-name order."""
    folder = Path(folder)
    paths = find_notebooks(folder)

    def one(path):
        grade = grade_notebook(path, lesson=lesson, time_limit=time_limit, memory=memory)
        grade.submission = path.relative_to(folder).as_posix()
        if progress:
            progress(grade)
        return grade

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, paths))


def _columns(grades):
    """(lesson, title) for every exercise of the lessons present, in lesson and exercise order."""
    from micrograd.exercises import exercise_titles

    lessons = sorted({grade.lesson for grade in grades if grade.results})
    return [(lesson, title) for lesson in lessons for title in exercise_titles(lesson)]


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


def format_table(grades, width=40):
    """The grades as text: one table per lesson, then the rows that could not be graded."""
    lines = []
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
    return "\n".join(lines)


def write_csv(grades, path):
    """One row per submission: submission, lesson, run, seconds, then one column per exercise."""
    columns = _columns(grades)
    single = len({lesson for lesson, _ in columns}) <= 1
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["submission", "lesson", "run", "seconds", *[title if single else f"{lesson} {title}" for lesson, title in columns]])
        for grade in grades:
            writer.writerow([
                grade.submission, grade.lesson, grade.summary, grade.seconds,
                *[grade.results.get(title, "") if grade.lesson == lesson else "" for lesson, title in columns],
            ])
