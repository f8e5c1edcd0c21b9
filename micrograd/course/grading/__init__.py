"""Grade a folder of submitted lesson notebooks: ``python -m micrograd.course.grading DIR`` (make grade DIR=...).

Each notebook is run afresh and graded by the verdicts its own checkers show
(``application/vnd.micrograd.verdict+json`` outputs, see
micrograd.course.verdicts): one row per submission, one column per exercise
of its lesson: "passed", "failed: <the checker's reason>", "not attempted", or
"no verdict" when the exercise's checker never showed one (its cell failed,
was deleted, or the run was stopped).

Submitted notebooks are untrusted code.  Each one runs

- from a copy read once at the start of the run (a submission that vanishes or
  changes later is graded as read, and its row says what happened);
- in a fresh kernel started by a worker process of its own
  (micrograd.course.grading._worker), which runs no student code and reports to the
  grader over a pipe the kernel never holds;
- on Linux, inside bubblewrap (micrograd.course.grading._sandbox): no network, a
  read-only view of the system, Python and the package, one writable tmpfs,
  a PID namespace of its own; it sees neither the grader, nor $HOME, nor the
  submissions.  Where bubblewrap cannot run, the kernel runs as the grader's
  user, and the table and the CSV say so;
- under a wall-clock time limit for the whole notebook, after which the worker,
  the kernel and everything they started are killed;
- under a memory limit on the kernel process (RLIMIT_AS, set in the kernel itself by
  micrograd.course.grading._kernel), with a CPU-time backstop and a cap on file sizes,
  and with no IPython history kept.

A verdict counts only when it came from a call of its checker that reads as in
the released lesson; a row is marked suspect, with the reason, when the
notebook changed a checker call, showed a verdict no checker call produced, or
replaced part of micrograd.course or of IPython's display while it ran (see
micrograd.course.grading._integrity and _audit).

A run always ends with its table: a notebook that fails in any way gets a row
saying so, and Ctrl-C or SIGTERM stops the run, kills what is running, and
still writes the rows graded so far (the rest: "not graded").

The lesson is recognised from the content (the checker import
``from micrograd.course import lessonNN`` and the lessons of the verdicts
shown), never from the file name.
"""

import csv
import hashlib
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..verdicts import MARKS

__all__ = [
    "Grade", "Grades", "grade_notebook", "grade_folder", "format_table", "write_csv", "sandbox_status",
    "DEFAULT_TIME_LIMIT", "DEFAULT_MEMORY",
]

DEFAULT_TIME_LIMIT = 120.0  # seconds per notebook; every lesson runs in well under a minute
DEFAULT_MEMORY = 2 * 1024**3  # bytes of address space for the kernel
# A lesson's kernel that draws maps Graphviz's libraries (pygraphviz's wheel) and numpy's into
# about 1.1 GB of address space; under a lower limit the kernel dies in its first drawing.
MINIMUM_MEMORY = 1.5 * 1024**3
MAX_NOTEBOOK_BYTES = 50 * 1024**2  # a lesson with its outputs is a few MB
HUGE_OUTPUT_BYTES = 10 * 1024**2  # more output than this is reported in the row
MAX_REASONS = 10  # suspect reasons listed per row
# Time for the worker to start a kernel and shut it down, beyond the notebook's own limit.
KERNEL_ALLOWANCE_SECONDS = 60

CHECKER_IMPORT = re.compile(
    r"^\s*(?:from\s+micrograd\.course\s+import\s+([\w\s,()]+)|import\s+micrograd\.course\.lesson(\d+))",
    re.MULTILINE,
)
LESSON_NAME = re.compile(r"\blesson(\d+)\b")
STATUSES = tuple(MARKS)  # the statuses a checker gives
SANDBOXED = "bubblewrap"


@dataclass
class Grade:
    """One submission's row: which lesson, how the run went, and each exercise's result."""

    submission: str
    lesson: str = ""  # two digits; "" when not recognised
    status: str = "graded"  # "graded", or what stopped it being graded fully
    notes: list = field(default_factory=list)
    results: dict = field(default_factory=dict)  # exercise title -> cell text
    seconds: float = 0.0
    suspect: list = field(default_factory=list)  # why the verdicts cannot be vouched for; empty when they can
    sandbox: str = ""  # "bubblewrap", "none: <why>", or "" when nothing of the notebook ran

    @property
    def summary(self):
        parts = [self.status, *self.notes]
        if self.suspect:
            parts.insert(0, "SUSPECT")
        return "; ".join(parts)


class Grades(list):
    """The rows of a run, in file-name order; stopped_by is "SIGINT"/"SIGTERM" when the run was stopped."""

    stopped_by = None


def sandbox_status(sandbox=None):
    """(use bubblewrap?, what to write in the sandbox column) for sandbox=None (where it can), True or False."""
    from . import _sandbox

    if sandbox is False:
        return False, "none: turned off (--no-sandbox)"
    why = _sandbox.unavailable()
    if why is None:
        return True, SANDBOXED
    if sandbox:
        raise RuntimeError(f"a sandbox was required, but {why}")
    return False, f"none: {why}"


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


def _snapshot(path):
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


def _what_became_of(snapshot):
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


def _parse_notebook(data):
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


class _Run:
    """What a grading run has going: its workers, so a signal can stop them all."""

    def __init__(self):
        self.lock = threading.Lock()
        self.workers = set()
        self.interrupted = set()  # the workers a stop killed: their notebooks were not graded
        self.stopped_by = None

    def stop(self, name):
        with self.lock:
            if self.stopped_by is None:
                self.stopped_by = name
            workers = list(self.workers)
            self.interrupted.update(workers)
        for process in workers:
            _kill_tree(process)


def _kill_tree(process):
    """Kill the worker and everything below it, collecting the family while the worker still lives.

    The worker is a child subreaper, so whatever the kernel started and left
    behind is still below it; killing the descendants first, then the worker,
    leaves nothing to be adopted by init.  Under bubblewrap the kernel's
    processes die with the sandbox anyway.
    """
    if process.poll() is not None:
        return  # it ended on its own, reaped: its number may be someone else's now (its kernel went with it)
    try:
        import psutil
    except ImportError:
        psutil = None
    try:
        process.send_signal(signal.SIGSTOP)  # it reports nothing more while its kernel is killed
    except ProcessLookupError:
        pass
    if psutil is not None:
        try:
            worker = psutil.Process(process.pid)
            for _ in range(200):
                family = []
                for member in worker.children(recursive=True):
                    try:
                        if member.status() != psutil.STATUS_ZOMBIE:  # a stopped worker reaps nothing
                            family.append(member)
                    except psutil.Error:
                        pass
                if not family:
                    break
                for member in family:
                    try:
                        member.kill()
                    except psutil.Error:
                        pass
                psutil.wait_procs(family, timeout=0.05)
        except psutil.Error:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # the worker leads its own process group
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.kill()
    except ProcessLookupError:
        pass


def _worker_environment(scratch):
    env = dict(os.environ)
    env.update(
        JUPYTER_RUNTIME_DIR=str(scratch / "jupyter-runtime"),
        TMPDIR=str(scratch / "tmp"),
        IPYTHONDIR=str(scratch / "ipython"),
    )
    return env


def _socket_folder():
    """Where a kernel's connection sockets can go: a Unix socket's path has room for about 100 bytes."""
    base = tempfile.gettempdir()
    return base if len(base) <= 60 or not os.access("/tmp", os.W_OK) else "/tmp"


def _run_worker(run, copy, scratch, runtime, *, lesson, alias, time_limit, memory, sandboxed):
    """Run the worker on the copy: (its events, finished on its own?, the tail of its log, stopped by a signal?)."""
    command = [
        sys.executable, "-m", "micrograd.course.grading._worker", str(copy),
        "--scratch", str(scratch), "--runtime", str(runtime), "--lesson", lesson, "--time-limit", str(time_limit), "--memory", str(memory),
        "--parent", str(os.getpid()),
    ]
    if alias:
        command += ["--alias", alias]
    if sandboxed:
        command.append("--sandbox")
    (scratch / "tmp").mkdir()
    events = []
    with open(scratch / "worker.log", "wb") as log:
        with run.lock:
            if run.stopped_by:
                return events, False, "", True
            process = subprocess.Popen(
                command, cwd=scratch, env=_worker_environment(scratch), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=log, start_new_session=True,
            )
            run.workers.add(process)

        def read():
            for line in process.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if isinstance(event, dict) and isinstance(event.get("event"), str):
                    events.append(event)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            process.wait(timeout=time_limit + KERNEL_ALLOWANCE_SECONDS)
            finished = True
        except subprocess.TimeoutExpired:
            finished = False
        finally:
            _kill_tree(process)  # whatever happened, nothing of this notebook runs on
            process.wait()
            with run.lock:
                run.workers.discard(process)
            reader.join(timeout=10)
            process.stdout.close()
    tail = (scratch / "worker.log").read_bytes()[-2000:].decode(errors="replace")
    kernel_log = scratch / "kernel.log"
    if kernel_log.exists():
        tail += kernel_log.read_bytes()[-2000:].decode(errors="replace")
    return events, finished, tail, process in run.interrupted


def grade_notebook(path, *, lesson=None, time_limit=DEFAULT_TIME_LIMIT, memory=DEFAULT_MEMORY, sandbox=None,
                   released=None):
    """Run one submitted notebook and return its Grade (never raises for a bad notebook).

    sandbox: None to use bubblewrap where it can run, True to require it, False not to use it.
    released: the folder of the lessons as released (default: the notebooks/ beside the package).
    """
    from . import _integrity

    sandboxed, label = sandbox_status(sandbox)
    lessons = _integrity.released_lessons(released)
    snapshot = _snapshot(path)
    grade = _grade_snapshot(_Run(), snapshot, lesson=lesson, time_limit=time_limit, memory=memory,
                            sandboxed=sandboxed, label=label, released=lessons)
    note = _what_became_of(snapshot)
    if note:
        grade.notes.append(note)
    return grade


def _grade_snapshot(run, snapshot, *, lesson, time_limit, memory, sandboxed, label, released):
    from micrograd.course import exercise_titles

    from . import _integrity

    started = time.monotonic()
    grade = Grade(submission=snapshot.path.name)
    if snapshot.problem:
        grade.status = snapshot.problem
        return grade
    expected = f"{int(lesson):02d}" if lesson is not None else None
    notebook, problem = _parse_notebook(snapshot.data)
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
    names = sorted(name for name in _integrity.aliases(notebook, grade.lesson) if "." not in name)

    grade.sandbox = label
    # ignore_cleanup_errors: a notebook that left an unremovable file must not stop the grading.
    with tempfile.TemporaryDirectory(prefix="micrograd-grading-", ignore_cleanup_errors=True) as folder, \
            tempfile.TemporaryDirectory(prefix="micrograd-k-", dir=_socket_folder(), ignore_cleanup_errors=True) as runtime:
        scratch = Path(folder)
        copy = scratch / "submission.ipynb"
        copy.write_bytes(snapshot.data)
        events, finished, log, interrupted = _run_worker(
            run, copy, scratch, Path(runtime), lesson=grade.lesson, alias=names[0] if names else None,
            time_limit=time_limit, memory=memory, sandboxed=sandboxed,
        )
    grade.seconds = round(time.monotonic() - started, 1)
    if interrupted:
        grade.status = f"not graded: the run was stopped ({run.stopped_by}) while this notebook ran"
        grade.results = {}
        return grade

    verdicts = {}
    shown = []  # (cell, exercise) of every verdict of this lesson, vouched for or not
    other_lessons = set()
    for event in events:
        if event["event"] != "verdict" or not isinstance(event.get("verdict"), dict):
            continue
        verdict = event["verdict"]
        if verdict.get("lesson") != grade.lesson:
            other_lessons.add(str(verdict.get("lesson")))
            continue
        shown.append((event.get("cell"), verdict.get("exercise")))
        if verdict.get("exercise") in titles and verdict.get("status") in STATUSES:
            verdicts.setdefault(verdict["exercise"], []).append((event.get("cell"), verdict))
    released_notebook = released.get(grade.lesson)
    grade.suspect = _integrity.suspicions(notebook, grade.lesson, shown, released_notebook)
    # Only verdicts of a released checker call count; the last one shown for an exercise wins.
    vouched = {}
    calls = _integrity.vouched_calls(notebook, grade.lesson, released_notebook)
    for title, shown_for in verdicts.items():
        for index, verdict in shown_for:
            if calls.get((index, title), 0) > 0:
                calls[(index, title)] -= 1
                vouched[title] = verdict
    grade.results = {title: _cell(vouched[title]) if title in vouched else "no verdict" for title in titles}
    for event in events:
        if event["event"] == "patched":
            where = "before the first cell" if event["cell"] < 0 else f"by cell {event['cell'] + 1}"
            grade.suspect.append(f"replaced {', '.join(event['what'][:4])}{' …' if len(event['what']) > 4 else ''} ({where})")
        elif event["event"] == "flood":
            grade.suspect.append(f"cell {event['cell'] + 1} showed more than {event['limit']} verdicts (the rest not counted)")
        elif event["event"] == "unchecked":
            where = "before the first cell" if event["cell"] < 0 else f"after cell {event['cell'] + 1}"
            grade.suspect.append(f"the grader's integrity check failed {where}: {event['why']}")

    if len(grade.suspect) > MAX_REASONS:
        grade.suspect[MAX_REASONS:] = [f"… and {len(grade.suspect) - MAX_REASONS} more"]

    kinds = {event["event"] for event in events}
    errors = [event for event in events if event["event"] == "error"]
    done = next((event for event in events if event["event"] == "done"), None)
    started_event = next((event for event in events if event["event"] == "started"), None)
    if other_lessons:
        grade.status = f"mixed lessons: imports lesson {grade.lesson}'s checkers, shows verdicts of lesson {', '.join(sorted(other_lessons))}"
    elif "timeout" in kinds or not finished:
        grade.status = f"time limit: stopped after {time_limit:g} s"
    elif started_event is None:
        lines = [line for line in log.strip().splitlines() if line.strip()]
        grade.status = "the kernel did not start" + (f": {lines[-1][:200]}" if lines else "")
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
    """Every .ipynb under folder (checkpoints aside), in name order; a folder that vanishes mid-walk is skipped."""
    found = []
    for root, folders, files in os.walk(folder, onerror=lambda error: None):
        folders[:] = sorted(name for name in folders if name != ".ipynb_checkpoints")
        found += [Path(root) / name for name in files if name.endswith(".ipynb")]
    return sorted(found)


def grade_folder(folder, *, lesson=None, time_limit=DEFAULT_TIME_LIMIT, memory=DEFAULT_MEMORY, jobs=1, progress=None,
                 sandbox=None, released=None):
    """Grade every .ipynb under folder; rows in file-name order.

    Every submission is read once, at the start; the rows say which ones
    vanished or changed on disk while the run went on.  In the main thread,
    SIGINT (Ctrl-C) and SIGTERM stop the run: running notebooks are killed,
    those not yet started are not run, and their rows say "not graded"; the
    returned Grades' stopped_by names the signal.
    """
    from . import _integrity

    folder = Path(folder)
    sandboxed, label = sandbox_status(sandbox)
    # The lessons as released and the submissions, each read once, before any notebook runs.
    lessons = _integrity.released_lessons(released)
    snapshots = [_snapshot(path) for path in find_notebooks(folder)]
    run = _Run()
    grades = Grades()

    def one(snapshot):
        name = snapshot.path.relative_to(folder).as_posix()
        if run.stopped_by:
            grade = Grade(submission=name, status=f"not graded: the run was stopped ({run.stopped_by}) before this notebook")
        else:
            try:
                grade = _grade_snapshot(run, snapshot, lesson=lesson, time_limit=time_limit, memory=memory,
                                        sandboxed=sandboxed, label=label, released=lessons)
            except Exception as error:  # a fault of the grader's own: this row says so, the run goes on
                grade = Grade(submission=name, status=f"not graded: the grader failed on it ({type(error).__name__}: {error})")
        grade.submission = name
        note = _what_became_of(snapshot)
        if note:
            grade.notes.append(note)
        if progress:
            progress(grade)
        return grade

    handlers = {}
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGINT, signal.SIGTERM):
            handlers[number] = signal.signal(number, lambda signum, frame: run.stop(signal.Signals(signum).name))
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(one, snapshot) for snapshot in snapshots]
            for future in futures:
                grades.append(future.result())
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)
    grades.stopped_by = run.stopped_by
    return grades


def _columns(grades):
    """(lesson, title) for every exercise of the lessons present, in lesson and exercise order."""
    from micrograd.course import exercise_titles

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
    suspects = [grade for grade in grades if grade.suspect]
    if suspects:
        lines.append("Suspect: verdicts the grader cannot vouch for (only those of released checker calls are counted)")
        for grade in suspects:
            lines.append(f"  {grade.submission}:")
            lines += [f"    - {reason}" for reason in grade.suspect]
        lines.append("")
    return "\n".join(lines)


def write_csv(grades, path):
    """One row per submission: submission, lesson, run, suspect, sandbox, seconds, then one column per exercise.

    Written beside and then renamed over path, so a reader never sees half a file.
    """
    columns = _columns(grades)
    single = len({lesson for lesson, _ in columns}) <= 1
    path = Path(path)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with open(partial, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow([
            "submission", "lesson", "run", "suspect", "sandbox", "seconds",
            *[title if single else f"{lesson} {title}" for lesson, title in columns],
        ])
        for grade in grades:
            writer.writerow([
                grade.submission, grade.lesson, grade.summary, "; ".join(grade.suspect), grade.sandbox or "not run",
                grade.seconds,
                *[grade.results.get(title, "") if grade.lesson == lesson else "" for lesson, title in columns],
            ])
    os.replace(partial, path)
