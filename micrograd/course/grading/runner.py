"""Running submissions: each in a fresh kernel, behind a worker process, in the sandbox, under its limits."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import carried as carried_code
from .grades import (DEFAULT_MEMORY, DEFAULT_TIME_LIMIT, HUGE_OUTPUT_BYTES, KERNEL_ALLOWANCE_SECONDS, MAX_REASONS, STATUSES, Grade,
                     Grades, sandbox_status)
from .snapshot import lessons_imported, parse_notebook, take_snapshot, what_became_of

def _cell(verdict):
    status = verdict.get("status")
    if status == "failed":
        return f"failed: {verdict.get('message', '')}"
    return status


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


def _run_worker(run, copy, scratch, runtime, *, lesson, alias, time_limit, memory, sandboxed, hidden=None, carried=None):
    """Run the worker on the copy: (its events, finished on its own?, the tail of its log, stopped by a signal?)."""
    command = [
        sys.executable, "-m", "micrograd.course.grading._worker", str(copy),
        "--scratch", str(scratch), "--runtime", str(runtime), "--lesson", lesson, "--time-limit", str(time_limit), "--memory", str(memory),
        "--parent", str(os.getpid()),
    ]
    if alias:
        command += ["--alias", alias]
    if carried:
        command += ["--carried", str(carried)]
    if sandboxed:
        command.append("--sandbox")
    if hidden:  # a copy in the worker's own folder: the teacher's folder is named nowhere a kernel can look
        (scratch / "hidden.py").write_bytes(Path(hidden).read_bytes())
        command += ["--hidden", str(scratch / "hidden.py")]
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
                   released=None, hidden=None):
    """Run one submitted notebook and return its Grade (never raises for a bad notebook).

    sandbox: None to use bubblewrap where it can run, True to require it, False not to use it.
    released: the folder of the lessons as released (default: the notebooks/ beside the package).
    """
    from . import _integrity

    sandboxed, label = sandbox_status(sandbox)
    lessons = _integrity.released_lessons(released)
    snapshot = take_snapshot(path)
    grade = _grade_snapshot(_Run(), snapshot, lesson=lesson, time_limit=time_limit, memory=memory,
                            sandboxed=sandboxed, label=label, released=lessons, hidden=hidden,
                            carried=carried_code.carried_beside(snapshot))
    note = what_became_of(snapshot)
    if note:
        grade.notes.append(note)
    return grade


def _grade_snapshot(run, snapshot, *, lesson, time_limit, memory, sandboxed, label, released, hidden=None, carried=None):
    """hidden: {lesson: (file, titles)} of the teacher's hidden checks (micrograd.course.grading.hidden.load)."""
    from micrograd.course import exercise_titles

    from . import _integrity, collect

    started = time.monotonic()
    grade = Grade(submission=snapshot.path.name)
    if snapshot.problem:
        grade.status = snapshot.problem
        return grade
    expected = f"{int(lesson):02d}" if lesson is not None else None
    notebook, problem = parse_notebook(snapshot.data)
    if problem:
        grade.status = problem
        return grade
    grade.claimed = collect.claimed_student(notebook)
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
            time_limit=time_limit, memory=memory, sandboxed=sandboxed, hidden=(hidden or {}).get(grade.lesson, [None])[0],
            carried=_write_carried(scratch, carried),
        )
    grade.seconds = round(time.monotonic() - started, 1)
    note = carried_code.note_for(carried, notebook, grade.lesson)
    if note:
        grade.notes.append(note)
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
                grade.cells[title] = index
    grade.results = {title: _cell(vouched[title]) if title in vouched else "no verdict" for title in titles}
    collect.details(grade, events, vouched, _integrity.vouched_calls(notebook, grade.lesson, released_notebook),
                    (hidden or {}).get(grade.lesson))
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


def _write_carried(scratch, carried):
    """The student's my_micrograd.py (``carried``) in the notebook's scratch folder, for its kernel; None without one."""
    if carried is None or carried.text is None:
        return None
    path = scratch / "carried" / carried_code.FILE_NAME
    path.parent.mkdir()
    path.write_text(carried.text, encoding="utf-8")
    return path


def find_notebooks(folder):
    """Every .ipynb under folder (checkpoints aside), in name order; a folder that vanishes mid-walk is skipped."""
    found = []
    for root, folders, files in os.walk(folder, onerror=lambda error: None):
        folders[:] = sorted(name for name in folders if name != ".ipynb_checkpoints")
        found += [Path(root) / name for name in files if name.endswith(".ipynb")]
    return sorted(found)


def grade_folder(folder, *, lesson=None, time_limit=DEFAULT_TIME_LIMIT, memory=DEFAULT_MEMORY, jobs=1, progress=None,
                 sandbox=None, released=None, hidden=None, notebooks=None, group=None):
    """Grade every .ipynb under folder; rows in file-name order.

    Every submission is read once, at the start; the rows say which ones
    vanished or changed on disk while the run went on.  In the main thread,
    SIGINT (Ctrl-C) and SIGTERM stop the run: running notebooks are killed,
    those not yet started are not run, and their rows say "not graded"; the
    returned Grades' stopped_by names the signal.  notebooks: only these files under folder (a re-grade).

    group: which notebooks are one student's, for the my_micrograd.py each runs beside (see ``carried``;
    default: the notebooks of one folder).
    """
    from . import _integrity

    folder = Path(folder)
    sandboxed, label = sandbox_status(sandbox)
    # The lessons as released and the submissions, each read once, before any notebook runs.
    lessons = _integrity.released_lessons(released)
    # A re-grade runs some of the notebooks, each beside the my_micrograd.py made from all of its student's.
    every = [take_snapshot(path) for path in find_notebooks(folder)]
    snapshots = every if notebooks is None else [s for s in every if s.path in {Path(n) for n in notebooks}]
    carried = carried_code.carried_code(every, group or carried_code.by_folder)
    run = _Run()
    grades = Grades()

    def one(snapshot):
        name = snapshot.path.relative_to(folder).as_posix()
        if run.stopped_by:
            grade = Grade(submission=name, status=f"not graded: the run was stopped ({run.stopped_by}) before this notebook")
        else:
            try:
                grade = _grade_snapshot(run, snapshot, lesson=lesson, time_limit=time_limit, memory=memory,
                                        sandboxed=sandboxed, label=label, released=lessons, hidden=hidden,
                                        carried=carried.get(snapshot.path))
            except Exception as error:  # a fault of the grader's own: this row says so, the run goes on
                grade = Grade(submission=name, status=f"not graded: the grader failed on it ({type(error).__name__}: {error})")
        grade.submission = name
        note = what_became_of(snapshot)
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
