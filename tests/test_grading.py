"""Grading submitted notebooks: real kernels, real limits, crafted and hostile submissions.

Every expectation is derived from the course itself: the exercises of a lesson
are micrograd.course.exercise_titles(lesson), a right answer is the lesson's
solution notebook, an untouched submission is the lesson notebook as shipped,
and a wrong answer is the solution with one exercise's answer set to None just
before its (unchanged) checker call.  So the test follows the lessons as they change.

To keep the file quick, every submission that needs a kernel is graded in one
run of the command line (``python -m micrograd.course.grading``, a process of its own,
as a teacher runs it), two at a time: the lessons, the crafted ones (a loop, a
memory hog, a flood of output) and the hostile ones, each a small notebook
built on lesson 1's solution.  Each hostile notebook tries one attack; the
tests check from outside the grader that it failed (files untouched, no
process left, the grader alive) and that its row says what happened.
The hostile ones need the sandbox: CI runs as root, where bubblewrap works.
"""

import ast
import copy
import csv
import hashlib
import importlib
import json
import os
import queue
import shutil
import socket
import signal
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import threading
import time
import uuid
from pathlib import Path

import nbformat
import psutil
import pytest

from micrograd.course import exercise_titles
from micrograd.course.carry import saved, yours
from micrograd.course.lessons import lesson04
from micrograd.course.carry.answers import ANSWERS
from micrograd.course.verdicts import VERDICT_MIME
from micrograd.course.grading import (
    Grade,
    format_table,
    grade_folder,
    grade_notebook,
    lessons_imported,
    sandbox_status,
    write_csv,
)
from micrograd.course.grading import _sandbox, carried
from submissions import checker_calls, lecture_code, lecture_student, notebook_of, wrong_answers

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
PACKAGE = ROOT / "micrograd"
# Two lessons keep the test quick; between them they have build-it exercises,
# function answers and number answers.
LESSONS = ["01", "02"]
# Time limits a cold or busy machine cannot hit: lesson 1 and 2's solutions take about 2 s on a quiet machine, and
# over 10 s on a fresh clone whose cores are busy.  The notebook that never ends runs on its own (STOP_AFTER),
# beside the shared run, so that its limit costs the test no time of its own.
TIME_LIMIT = 300  # per notebook in the shared run
STOP_AFTER = 30  # the limit of the run that stops the notebook that never ends (its earlier cells take 2 s)
MEMORY_GB = 2
ALLOWANCE = 60  # kernel start and shutdown, beyond the notebooks' limits
MARK = uuid.uuid4().hex[:12]  # names what the hostile notebooks create, so a survivor is found by name
SLEEP_SECONDS = f"300.{int(MARK[:6], 16)}"  # a sleep no other process on the machine has
SECRET = f"MICROGRAD_TEST_SECRET_{MARK}"  # an environment variable of the grader's, never the kernel's


def small_notebook(*sources, lesson="01"):
    """Lesson 1's solution (a handful of cells) with code cells put in after its import cell."""
    notebook = notebook_of(lesson, solution=True)
    first = next(i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code")
    for offset, source in enumerate(sources, 1):
        notebook.cells.insert(first + offset, nbformat.v4.new_code_cell(textwrap.dedent(source)))
    return notebook


def untouched_small(lesson="01"):
    """The lesson's import and its checker calls as released, each on answers still `...`."""
    released = notebook_of(lesson)
    cells = [nbformat.v4.new_code_cell(f"from micrograd.course.lessons import lesson{lesson} as check")]
    for cell in released.cells:
        if cell.cell_type != "code":
            continue
        tree, calls = checker_calls(cell.source, lesson)
        for call in calls:
            names = [arg.id for arg in call.args]
            cells.append(nbformat.v4.new_code_cell(f"{' = '.join(names)} = ...\n{ast.unparse(call)}"))
    return nbformat.v4.new_notebook(cells=cells)


def insert_before_last_check(notebook, lesson, source):
    """A copy of the notebook with a code cell just before the cell of its last exercise."""
    notebook = copy.deepcopy(notebook)
    last = max(i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code" and checker_calls(cell.source, lesson)[1])
    notebook.cells.insert(last, nbformat.v4.new_code_cell(source))
    return notebook


def write(folder, name, notebook):
    path = folder / name
    if isinstance(notebook, (str, bytes)):
        path.write_bytes(notebook if isinstance(notebook, bytes) else notebook.encode())
    else:
        nbformat.write(notebook, path)
    return path


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def submitted_files(folder):
    """{path under folder: digest} of every file there, in its subfolders too."""
    return {path.relative_to(folder).as_posix(): digest(path) for path in sorted(folder.rglob("*")) if path.is_file()}


# Folders of one student each: lesson 4 with their my_micrograd.py, and lessons 3 and 4 without it.
CHILDREN_STUDENTS = {"children-filed": ["04"], "children-rebuilt": ["03", "04"]}
MORE_OPERATIONS = {"lesson 4: more operations": ANSWERS["lesson 4: more operations"]}


def survivors(marker):
    """Live processes whose command line holds marker (zombies are dead: they only wait to be reaped)."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        try:
            if process.info["status"] != psutil.STATUS_ZOMBIE and marker in " ".join(process.info["cmdline"] or []):
                found.append((process.pid, process.info["cmdline"]))
        except psutil.Error:
            pass
    return found


# What the hostile notebooks do.  Each ends by raising what it found, so the
# row's note tells what the notebook saw; the tests check the files themselves.

FIND_FILES = """
import glob, os
def found_paths():
    '''Paths of notebooks and folders in other processes' command lines: how a notebook finds the submissions.'''
    paths = set()
    for cmdline in glob.glob('/proc/[0-9]*/cmdline'):
        try:
            words = open(cmdline, 'rb').read().decode(errors='replace').split('\\0')
        except OSError:
            continue
        paths.update(word for word in words if word.endswith('.ipynb') or os.path.isdir(word) and word not in ('/', '.'))
    return paths
"""

DELETE_SIBLING = FIND_FILES + """
blocked, done = [], []
targets = {VICTIM, SENTINEL, CSV} | {path for path in found_paths() if path.endswith('.ipynb')}
for path in sorted(targets):
    for attempt in ('remove', 'overwrite'):
        try:
            os.remove(path) if attempt == 'remove' else open(path, 'w').write('{}')
            done.append(f'{attempt} {path}')
        except OSError as error:
            blocked.append(f'{attempt}: {type(error).__name__}')
raise RuntimeError(f'done {done}; blocked {len(blocked)}: {sorted(set(blocked))}')
"""

KILL_GRADER = """
import glob, os, signal
hits = []
for cmdline in glob.glob('/proc/[0-9]*/cmdline'):
    pid = int(cmdline.split('/')[2])
    try:
        words = open(cmdline, 'rb').read().decode(errors='replace').split('\\0')
    except OSError:
        continue
    # The grader (python -m micrograd.course.grading DIR) and its workers; not this kernel's own sandbox.
    if pid != os.getpid() and any(word == 'micrograd.course.grading' or word == 'micrograd.course.grading._worker' for word in words):
        for number in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, number)
                hits.append((pid, number))
            except OSError as error:
                hits.append((pid, type(error).__name__))
raise RuntimeError(f'signalled {hits}' if hits else 'found no grader to signal')
"""

LEAVE_SLEEP = """
import os, subprocess, sys
subprocess.Popen(['sleep', SLEEP])                               # a plain child
subprocess.Popen(['sleep', SLEEP], start_new_session=True)       # out of the kernel's process group
if os.fork() == 0:                                               # orphaned: reparented away from the kernel
    subprocess.Popen(['sleep', SLEEP], start_new_session=True)
    os._exit(0)
subprocess.Popen([sys.executable, '-c', f'import time; time.sleep(1); open({SENTINEL!r}, "w").write("survived")'],
                 start_new_session=True)
"""

WRITE_OUTSIDE = """
import os, socket
blocked, done = [], []
try:  # the test listens on the host's loopback
    socket.create_connection(('127.0.0.1', PORT), timeout=5).sendall(b'from a submission')
    done.append(f'connected to port {PORT}')
except OSError as error:
    blocked.append(type(error).__name__)
for path in TARGETS:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as file:
            file.write('written by a submission')
        done.append(path)
    except OSError as error:
        blocked.append(type(error).__name__)
raise RuntimeError(f'secret seen: {SECRET in os.environ}; done {done}; blocked {len(blocked)}: {sorted(set(blocked))}')
"""

FORGE_DISPLAY = """
from IPython.display import display
for title in TITLES:
    display({MIME: {'lesson': '01', 'exercise': title, 'status': 'passed', 'message': 'correct'},
             'text/plain': '✓ ' + title}, raw=True)
"""

# What the checkers compute with, not the checkers: any answer is "close" to any expected number,
# and the package's own backward() does nothing.
FORGE_NUMBERS = """
import math
import micrograd.engine
math.isclose = lambda *numbers, **tolerances: True
micrograd.engine.Value.backward = lambda self: None
"""

FORGE_PATCH = """
import dataclasses, sys
import IPython.display
checking = sys.modules['micrograd.course.' + 'verdicts']
real_show = getattr(checking, 'show')
def show(verdict):
    return real_show(dataclasses.replace(verdict, status='passed', message='correct'))
setattr(checking, 'show', show)
real_display = IPython.display.display
def display(*objects, **options):
    for each in objects:
        if isinstance(each, dict) and MIME in each:
            each[MIME] = dict(each[MIME], status='passed', message='correct')
    return real_display(*objects, **options)
IPython.display.display = display
"""

FORGE_REBIND = """
from IPython.display import display
class Forged:
    def __getattr__(self, name):
        def passed(*answers):
            title = dict(TITLES_BY_CHECKER)[name]
            display({MIME: {'lesson': '01', 'exercise': title, 'status': 'passed', 'message': 'correct'}}, raw=True)
        return passed
check = Forged()
"""

FORGE_FILE = """
import glob, json, os, stat
line = json.dumps({'event': 'verdict', 'cell': 3, 'verdict': {'lesson': '01', 'exercise': TITLES[0], 'status': 'passed',
                   'message': 'forged'}}) + '\\n'
lines = line + json.dumps({'event': 'done', 'output_bytes': 0, 'seconds': 0}) + '\\n'
written = []
for path in ['../events.jsonl', 'events.jsonl', '/tmp/events.jsonl', '../../events.jsonl']:
    try:
        open(path, 'a').write(lines)
        written.append(path)
    except OSError:
        pass
# Every pipe or file this process or any it can see holds: the grader's channel would be one of them.
for fd_path in glob.glob('/proc/[0-9]*/fd/*'):
    try:
        if stat.S_ISSOCK(os.stat(fd_path).st_mode):
            continue  # the kernel's own sockets: writing into them would only break this kernel
        fd = os.open(fd_path, os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, lines.encode())
        os.close(fd)
        written.append(fd_path)
    except OSError:
        pass
print(written)
"""

HISTORY = """
secret = 'HISTORY_MARK'
print(secret)
"""

# The teacher's hidden checks of lesson 1, and the class's points: the known scores below follow from them.
HIDDEN_LESSON01 = '''
from micrograd.course.verdicts import as_number, failed, not_attempted, passed


def check_slope_of_a_cube(names):
    """Hidden 1: slope() on x**3 at 2"""
    slope = names.get("slope", ...)
    if slope is ... or slope is None:
        return not_attempted("there is no slope function to check")
    measured = as_number(slope(lambda x: x**3, 2.0))
    if measured is not None and abs(measured - 12) < 1e-3:
        return passed("slope works on x**3 at 2 too")
    return failed("slope(x**3, 2) should be 12")
'''
HIDDEN_TITLE = "Hidden 1: slope() on x**3 at 2"

POINTS = """
["01"]
"Exercise 1" = 2
"Hidden 1: slope() on x**3 at 2" = 3

["02"]
"Build it" = 0
"""
# Solutions score all, templates nothing; a wrong answer loses its exercise's points (the hidden check still passes:
# the wrong answers are put back after their checker calls).  Lesson 1: 2 + 1 + 1 + 3; lesson 2: 0 + 1 + 1 + 1.
SCORES = {"right-01": (7, 7), "untouched-01": (0, 7), "wrong-01-0": (4, 7), "wrong-01-1": (6, 7),
          "right-02": (3, 3), "untouched-02": (0, 3), "wrong-02-0": (2, 3), "wrong-02-1": (1, 3)}
ID_PATTERN = r"^(?P<student>(right|untouched|wrong)-\d\d(-\d)?)\.ipynb$"

# A student who wants the hidden checks' points: reads them, fakes their verdict, or reaches into them from the
# function they call.
READ_HIDDEN = """
import glob, os
found = [path for path in (HIDDEN, os.path.dirname(HIDDEN)) if os.path.exists(path)]
for root in ('/grading', '/tmp', '/home', '/root', '/mnt', '/srv', os.path.dirname(os.path.dirname(HIDDEN))):
    for path in glob.glob(root + '/**/lesson01.py', recursive=True):  # the course's own lesson01.py aside
        with open(path, encoding='utf-8', errors='replace') as file:
            found += [path] if TITLE in file.read() else []
from IPython.display import display
display({MIME: {'lesson': '01', 'exercise': TITLE, 'status': 'passed', 'message': 'correct'}, 'text/plain': '✓ ' + TITLE}, raw=True)
print('✓ ' + TITLE + ': correct')
raise RuntimeError(f'found {found}')
"""

REACH_INTO_HIDDEN = """
import sys
def slope(f, x, h=0.0001):
    caller = sys._getframe(1)
    caller.f_globals['failed'] = caller.f_globals['passed']  # every failure of the check becomes a pass
    caller.f_globals['not_attempted'] = caller.f_globals['passed']
    return 0.0
"""

THREAD_LEFT = """
import threading, time
def watch():
    while True:
        time.sleep(0.05)
threading.Thread(target=watch, daemon=True).start()
"""


@pytest.fixture(scope="module")
def attack_paths(tmp_path_factory):
    """Places outside the sandbox that the hostile notebooks try to reach, each named with MARK."""
    root = tmp_path_factory.mktemp("outside")
    home = root / "home"
    home.mkdir()
    site = Path(sysconfig.get_paths()["purelib"])
    return {
        "home": home,
        "tmp": root / "tmp",
        "sentinel": root / "sentinel.txt",
        "survived": root / f"survived-{MARK}.txt",
        "created": [  # files that must not exist after the run (removed by the test if they do)
            home / f"attack-{MARK}.txt",
            Path("/tmp") / f"micrograd-attack-{MARK}.txt",
            PACKAGE / "course" / f"attack_{MARK}.py",
            site / f"attack_{MARK}.pth",
            NOTEBOOKS / f"attack-{MARK}.txt",
            Path.home() / f".micrograd-attack-{MARK}.txt",
        ],
    }


def define(**names):
    return "\n".join(f"{name} = {value!r}" for name, value in names.items()) + "\n"


@pytest.fixture(scope="module")
def graded(tmp_path_factory, attack_paths):
    """One command-line run over the lessons, the crafted and the hostile submissions: (rows by name, the run)."""
    folder = tmp_path_factory.mktemp("submissions")
    titles = exercise_titles("01")
    csv_path = folder / "grades.csv"
    sentinel = attack_paths["sentinel"]
    sentinel.write_text("the teacher's file")
    for lesson in LESSONS:
        # File names that say nothing: the lesson must be recognised from the content.
        write(folder, f"right-{lesson}.ipynb", notebook_of(lesson, solution=True))
        write(folder, f"untouched-{lesson}.ipynb", notebook_of(lesson))
        lesson_titles = exercise_titles(lesson)
        for parity in (0, 1):  # odd-numbered exercises wrong, then even ones: each fails alone
            wrong = lesson_titles[parity::2]
            if wrong:
                write(folder, f"wrong-{lesson}-{parity}.ipynb", wrong_answers(lesson, wrong))
    solution = notebook_of("01", solution=True)
    # Never ends, asleep: the time limit is the wall clock's, and a busy loop would take a core from the
    # tests beside it for the whole limit.
    stopped = tmp_path_factory.mktemp("never-ends")
    write(stopped, "loops.ipynb", insert_before_last_check(solution, "01", "import time\nwhile True:\n    time.sleep(0.1)"))
    write(folder, "greedy.ipynb", insert_before_last_check(solution, "01", "hoard = bytearray(4 * 1024**3)"))
    write(folder, "noisy.ipynb", insert_before_last_check(solution, "01", "print('x' * 30_000_000)"))
    write(folder, "broken.ipynb", small_notebook("import a_module_no_student_has"))
    write(folder, "bob.ipynb", '{"cells": [')
    write(folder, "mixed-verdicts.ipynb", small_notebook(
        "from IPython.display import display\n"
        f"display({{{VERDICT_MIME!r}: {{'lesson': '02', 'exercise': 'Exercise 1', 'status': 'passed', 'message': 'forged'}}}}, raw=True)"
    ))
    victim = folder / "right-01.ipynb"  # a classmate's submission, graded in the same run
    write(folder, "attack-delete-sibling.ipynb", small_notebook(
        define(VICTIM=str(victim), SENTINEL=str(sentinel), CSV=str(csv_path)) + DELETE_SIBLING))
    write(folder, "attack-kill-grader.ipynb", small_notebook(KILL_GRADER))
    write(folder, "attack-leave-sleep.ipynb", small_notebook(
        define(SLEEP=SLEEP_SECONDS, SENTINEL=str(attack_paths["survived"])) + LEAVE_SLEEP))
    targets = [str(path) for path in attack_paths["created"]] + [str(folder / f"attack-{MARK}.ipynb")]
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0)
    port = listener.getsockname()[1]
    write(folder, "attack-write-outside.ipynb", small_notebook(define(TARGETS=targets, PORT=port, SECRET=SECRET) + WRITE_OUTSIDE))
    untouched = untouched_small()
    forged = copy.deepcopy(untouched)
    forged.cells.append(nbformat.v4.new_code_cell(define(TITLES=titles, MIME=VERDICT_MIME) + FORGE_DISPLAY))
    write(folder, "forge-display.ipynb", forged)
    patched = copy.deepcopy(untouched)
    patched.cells.insert(1, nbformat.v4.new_code_cell(define(MIME=VERDICT_MIME) + FORGE_PATCH))
    write(folder, "forge-patch.ipynb", patched)
    numbers_patched = copy.deepcopy(untouched)
    numbers_patched.cells.insert(1, nbformat.v4.new_code_cell(FORGE_NUMBERS))
    write(folder, "forge-numbers.ipynb", numbers_patched)
    module = importlib.import_module("micrograd.course.lessons.lesson01")
    by_checker = sorted((name, value.title) for name, value in vars(module).items() if callable(value) and hasattr(value, "title"))
    rebound = copy.deepcopy(untouched)
    rebound.cells.insert(1, nbformat.v4.new_code_cell(define(TITLES_BY_CHECKER=by_checker, MIME=VERDICT_MIME) + FORGE_REBIND))
    write(folder, "forge-rebind.ipynb", rebound)
    filed = copy.deepcopy(untouched)
    filed.cells.insert(1, nbformat.v4.new_code_cell(define(TITLES=titles) + FORGE_FILE))
    write(folder, "forge-results-file.ipynb", filed)
    changed = notebook_of("01", solution=True)
    cell = next(cell for cell in changed.cells if cell.cell_type == "code" and "check.slope_at_minus_one(answer)" in cell.source)
    cell.source = cell.source.replace("check.slope_at_minus_one(answer)", "check.slope_at_minus_one(-10.0)")
    write(folder, "forge-changed-call.ipynb", changed)
    write(folder, "history.ipynb", small_notebook(HISTORY.replace("HISTORY_MARK", f"history-{MARK}")))
    teacher = tmp_path_factory.mktemp("teacher")  # the teacher's files, beside the submissions
    (teacher / "hidden").mkdir()
    hidden_file = teacher / "hidden" / "lesson01.py"
    hidden_file.write_text(HIDDEN_LESSON01)
    (teacher / "points.toml").write_text(POINTS)
    reader = copy.deepcopy(untouched)
    reader.cells.append(nbformat.v4.new_code_cell(define(HIDDEN=str(hidden_file), MIME=VERDICT_MIME, TITLE=HIDDEN_TITLE)
                                                  + READ_HIDDEN))
    write(folder, "cheat-read-hidden.ipynb", reader)
    reach = notebook_of("01", solution=True)
    reach.cells.append(nbformat.v4.new_code_cell(REACH_INTO_HIDDEN))
    write(folder, "cheat-reach-into-hidden.ipynb", reach)
    threaded = notebook_of("01", solution=True)
    threaded.cells.append(nbformat.v4.new_code_cell(THREAD_LEFT))
    write(folder, "cheat-thread-left.ipynb", threaded)
    # Ids: the lessons' notebooks by the pattern, noisy.ipynb by the roster's file column, greedy.ipynb by its
    # metadata; right-01 claims another student in its metadata (the file name wins); broken.ipynb claims one the
    # roster lacks.
    for name, student in {"greedy.ipynb": "greedy-by-metadata", "right-01.ipynb": "untouched-01",
                          "broken.ipynb": "nobody"}.items():
        notebook = nbformat.read(folder / name, as_version=4)
        notebook.metadata["micrograd"] = {"student": student}
        nbformat.write(notebook, folder / name)
    roster = ["student,name,email,file", "noisy-by-roster,Nora Noisy,nora@example.org,noisy.ipynb",
              "greedy-by-metadata,Greta Greedy,greta@example.org,", "absent-student,Abe Sent,abe@example.org,"]
    roster += [f"{stem},Student {stem},{stem}@example.org," for stem in SCORES]
    (teacher / "roster.csv").write_text("\n".join(roster) + "\n")
    teachers_files = ["--roster", str(teacher / "roster.csv"), "--id-pattern", ID_PATTERN,
                      "--points", str(teacher / "points.toml"), "--hidden", str(teacher / "hidden")]
    # A student of the lecture whose nodes keep their inputs in .children, each in a folder of their own: one
    # submits lesson 4 with the my_micrograd.py its cells wrote, the other lessons 3 and 4 without it.
    for name, lessons in CHILDREN_STUDENTS.items():
        (folder / name).mkdir()
        for number in lessons:
            write(folder / name, f"{number}.ipynb", lecture_student(number, "children"))
    for key, code in {**lecture_code("children"), **MORE_OPERATIONS}.items():
        saved.store(key, code, folder / "children-filed")
    before = submitted_files(folder)

    tmp = attack_paths["tmp"]
    tmp.mkdir()
    env = dict(os.environ, HOME=str(attack_paths["home"]), TMPDIR=str(tmp), **{SECRET: "a teacher's token"})
    env.pop("IPYTHONDIR", None)
    command = [sys.executable, "-m", "micrograd.course.grading", "--memory", str(MEMORY_GB)]
    never_ends = subprocess.Popen([*command, str(stopped), "--time-limit", str(STOP_AFTER)],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
    run = subprocess.run(
        [*command, str(folder), "--time-limit", str(TIME_LIMIT), "--jobs", "2", *teachers_files,
         "--canvas", str(teacher / "canvas.csv"), "--moodle", str(teacher / "moodle.csv")],
        capture_output=True, text=True, env=env, timeout=40 * (TIME_LIMIT + ALLOWANCE), cwd=ROOT,
    )
    stopped_output, _ = never_ends.communicate(timeout=STOP_AFTER + 2 * ALLOWANCE)
    after_run = survivors(SLEEP_SECONDS)
    try:
        listener.accept()
        connected = True
    except BlockingIOError:
        connected = False
    listener.close()
    with open(csv_path, newline="", encoding="utf-8") as file:
        rows = {row["submission"]: row for row in csv.DictReader(file)}
    with open(stopped / "grades.csv", newline="", encoding="utf-8") as file:
        (loops,) = csv.DictReader(file)
    yield {
        "rows": rows, "run": run, "folder": folder, "before": before, "survivors": after_run,
        "loops": loops, "loops_run": (never_ends.returncode, stopped_output),
        "tmp": tmp, "victim": victim, "connected": connected, "teacher": teacher, "teachers_files": teachers_files,
    }
    for path in attack_paths["created"]:  # should none of them exist, the assertions below have failed already
        path.unlink(missing_ok=True)


def results(row, lesson):
    """The row's exercise columns: the CSV names them "01 Exercise 1: ..." when it holds several lessons, and
    "Exercise 1: ..." when it holds one."""
    return {title: row[f"{lesson} {title}" if f"{lesson} {title}" in row else title] for title in exercise_titles(lesson)}


@pytest.fixture(scope="module")
def rows(graded):
    run = graded["run"]
    assert run.returncode == 0, f"the grader exited with {run.returncode}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return graded["rows"]


def test_the_run_says_it_was_sandboxed_and_ends_with_its_table(graded, rows):
    run = graded["run"]
    assert run.stdout.startswith("Sandbox: every notebook ran under bubblewrap"), run.stdout[:500]
    assert "Lesson 01" in run.stdout and "Not graded" in run.stdout
    assert {row["sandbox"] for row in rows.values() if row["lesson"]} == {"bubblewrap"}, rows
    assert set(rows) == {name for name in graded["before"] if name.endswith(".ipynb")}  # a row per submission, none lost


@pytest.mark.parametrize("lesson", LESSONS)
def test_solutions_pass_every_exercise(rows, lesson):
    row = rows[f"right-{lesson}.ipynb"]
    assert row["lesson"] == lesson and row["run"] == "graded" and not row["suspect"], row
    assert exercise_titles(lesson), f"lesson {lesson} has no exercises"
    assert results(row, lesson) == {title: "passed" for title in exercise_titles(lesson)}, row


@pytest.mark.parametrize("lesson", LESSONS)
def test_untouched_lessons_are_not_attempted(rows, lesson):
    row = rows[f"untouched-{lesson}.ipynb"]
    assert row["lesson"] == lesson and row["run"] == "graded" and not row["suspect"], row
    assert results(row, lesson) == {title: "not attempted" for title in exercise_titles(lesson)}, row


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_wrong_answer_fails_that_exercise_alone_with_the_checkers_reason(rows, lesson):
    titles = exercise_titles(lesson)
    for parity in (0, 1):
        wrong = set(titles[parity::2])
        if not wrong:
            continue
        row = rows[f"wrong-{lesson}-{parity}.ipynb"]
        assert not row["suspect"], row  # the answer changed, not the checker call
        for title in titles:
            result = results(row, lesson)[title]
            if title in wrong:
                assert result.startswith("failed: ") and len(result) > len("failed: "), (title, row)
            else:
                assert result == "passed", (title, row)


def what_jupyterlab_shows(folder):
    """Lesson 4's exercise 3 as the .children student sees it in JupyterLab: their class loaded from the
    my_micrograd.py their cells wrote in folder, and the cell's prediction judged on it (the grader's cell text)."""
    for key, code in {**lecture_code("children"), **MORE_OPERATIONS}.items():
        saved.store(key, code, folder)
    my_value = yours.use("MyValue", lesson=4, folder=folder)
    verdict = lesson04.grad_after_three_backwards(15, 27, my_value)
    return "passed" if verdict.passed else f"failed: {verdict.message}"


@pytest.mark.parametrize("student", sorted(CHILDREN_STUDENTS))
def test_lesson_4_is_graded_on_the_students_own_class_as_they_saw_it(rows, student, tmp_path):
    """Without their my_micrograd.py the grader ran lesson 4 on the worked answer, whose nodes have no .children:
    exercise 3 raised there, though the student saw it pass."""
    seen = what_jupyterlab_shows(tmp_path)
    assert seen == "passed", seen
    row = rows[f"{student}/04.ipynb"]
    title = exercise_titles("04")[-1]
    assert title.startswith("Exercise 3") and results(row, "04")[title] == seen, row
    assert set(results(row, "04").values()) == {"passed"}, row  # the build-its too, run on their class
    if student == "children-filed":
        assert row["run"] == "graded", row
    else:
        assert row["run"] == "graded; my_micrograd.py rebuilt from the build-it cells of lesson 03, 04, as no " \
                             "my_micrograd.py was submitted", row


def test_a_notebook_that_never_ends_is_stopped_and_keeps_its_earlier_verdicts(graded):
    returncode, output = graded["loops_run"]
    assert returncode == 0, output[-3000:]
    row = graded["loops"]
    titles = exercise_titles("01")
    assert row["submission"] == "loops.ipynb" and row["run"] == f"time limit: stopped after {STOP_AFTER} s", row
    assert results(row, "01") == {**{title: "passed" for title in titles[:-1]}, titles[-1]: "no verdict"}, row
    assert float(row["seconds"]) < STOP_AFTER + ALLOWANCE


def test_the_memory_limit_binds_the_kernel(rows):
    # 4 GB of zeros costs nothing without a limit (the pages are never touched),
    # so only a limit on the kernel's address space makes this fail.
    row = rows["greedy.ipynb"]
    assert row["run"].startswith(f"graded; memory limit ({MEMORY_GB} GB): raised MemoryError"), row
    assert set(results(row, "01").values()) == {"passed"}, row  # the cells after it still ran


def test_a_huge_output_is_reported_and_the_exercises_still_graded(rows):
    row = rows["noisy.ipynb"]
    assert row["run"].startswith("graded; huge output: 29 MB"), row
    assert set(results(row, "01").values()) == {"passed"}, row


def test_an_exception_is_reported_and_the_cells_after_it_still_run(rows):
    row = rows["broken.ipynb"]
    assert row["run"].startswith("graded; raised ModuleNotFoundError: No module named 'a_module_no_student_has' in cell 3"), row
    assert set(results(row, "01").values()) == {"passed"}, row


def test_a_file_that_is_not_json_gets_its_row(rows):
    row = rows["bob.ipynb"]
    assert row["run"].startswith("invalid notebook: not valid JSON") and row["lesson"] == "", row


def test_a_verdict_of_another_lesson_marks_the_row_mixed(rows):
    row = rows["mixed-verdicts.ipynb"]
    assert row["run"] == "mixed lessons: imports lesson 01's checkers, shows verdicts of lesson 02", row


# The hostile notebooks.


def test_a_notebook_cannot_delete_or_overwrite_a_classmates_submission_or_the_teachers_files(graded, rows, attack_paths):
    folder = graded["folder"]
    written = ("grades.csv", "feedback/")  # the run's own
    assert {name: hashed for name, hashed in submitted_files(folder).items() if not name.startswith(written)} == graded["before"]
    assert attack_paths["sentinel"].read_text() == "the teacher's file"
    assert results(rows["right-01.ipynb"], "01") == {title: "passed" for title in exercise_titles("01")}
    row = rows["attack-delete-sibling.ipynb"]
    # It tried: inside, the paths it found are missing, or name files of the sandbox's own /tmp.
    assert "raised RuntimeError: done" in row["run"] and "blocked" in row["run"], row
    assert str(graded["victim"]) not in row["run"].split("blocked")[0], row
    assert set(results(row, "01").values()) == {"passed"}, row


def test_a_notebook_cannot_signal_the_grader(graded, rows):
    row = rows["attack-kill-grader.ipynb"]
    assert "raised RuntimeError: found no grader to signal" in row["run"], row
    assert graded["run"].returncode == 0
    assert set(results(row, "01").values()) == {"passed"}, row


def test_nothing_a_notebook_starts_outlives_its_run(graded, rows, attack_paths):
    row = rows["attack-leave-sleep.ipynb"]
    assert row["run"] == "graded" and set(results(row, "01").values()) == {"passed"}, row
    assert graded["survivors"] == []
    assert not attack_paths["survived"].exists()
    assert survivors(SLEEP_SECONDS) == []


def test_a_notebook_cannot_write_outside_its_sandbox_or_reach_the_network(graded, rows, attack_paths):
    assert not graded["connected"], "a submission connected to the host's loopback"
    for path in attack_paths["created"]:
        assert not path.exists(), f"a submission wrote {path}"
    assert not (graded["folder"] / f"attack-{MARK}.ipynb").exists()
    row = rows["attack-write-outside.ipynb"]
    # Inside, /tmp is the sandbox's own: what it wrote there vanished with it.
    # None of the grader's environment reaches the kernel.
    assert "raised RuntimeError: secret seen: False; done [" in row["run"] and "blocked" in row["run"], row


def test_a_verdict_displayed_by_hand_is_not_counted_and_marks_the_row(rows):
    row = rows["forge-display.ipynb"]
    assert results(row, "01") == {title: "not attempted" for title in exercise_titles("01")}, row
    assert row["run"].startswith("SUSPECT; graded"), row
    for title in exercise_titles("01"):
        assert f"a verdict for {title.split(':')[0]} came from cell" in row["suspect"], row


def test_monkeypatching_the_checkers_or_the_display_marks_the_row(rows):
    row = rows["forge-patch.ipynb"]
    assert row["run"].startswith("SUSPECT"), row
    assert "replaced micrograd.course.verdicts.show" in row["suspect"], row
    assert "IPython.display.display" in row["suspect"], row


def test_patching_what_the_checkers_compute_with_marks_the_row(rows):
    row = rows["forge-numbers.ipynb"]
    assert row["run"].startswith("SUSPECT"), row
    assert "math.isclose" in row["suspect"] and row["suspect"].startswith("replaced "), row
    assert "micrograd.engine.Value.backward" in row["suspect"], row


def test_rebinding_the_checker_name_marks_the_row(rows):
    row = rows["forge-rebind.ipynb"]
    assert row["run"].startswith("SUSPECT"), row
    assert "cell 2 rebinds `check`, the name the checkers are called through" in row["suspect"], row
    assert "the name 'check' (now something else (Forged))" in row["suspect"], row


def test_a_results_file_written_by_a_notebook_changes_nothing(rows, graded):
    row = rows["forge-results-file.ipynb"]
    assert row["run"] == "graded" and not row["suspect"], row
    assert results(row, "01") == {title: "not attempted" for title in exercise_titles("01")}, row
    assert results(rows["right-01.ipynb"], "01") == {title: "passed" for title in exercise_titles("01")}


def test_a_changed_checker_call_is_not_counted_and_marks_the_row(rows):
    row = rows["forge-changed-call.ipynb"]
    title = exercise_titles("01")[0]
    assert results(row, "01")[title] == "no verdict" and row["run"].startswith("SUSPECT"), row
    assert "calls a checker in a way the released lesson does not: check.slope_at_minus_one(-10.0)" in row["suspect"], row


def test_nothing_of_a_submission_lands_in_the_teachers_files(graded, rows, attack_paths):
    assert rows["history.ipynb"]["run"] == "graded", rows["history.ipynb"]
    # The grader ran with this HOME: no IPython history, no Jupyter runtime files, nothing.
    assert list(attack_paths["home"].rglob("*")) == []
    # Its temporary folders are gone.
    assert list(graded["tmp"].iterdir()) == []
    real_history = Path.home() / ".ipython" / "profile_default" / "history.sqlite"
    if real_history.exists():
        assert f"history-{MARK}".encode() not in real_history.read_bytes()


# Without the sandbox: today's limits, said plainly.


def test_without_the_sandbox_grading_still_works_says_so_and_leaves_nothing_behind(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    folder = tmp_path / "submissions"
    folder.mkdir()
    write(folder, "sleeper.ipynb", small_notebook(
        define(SLEEP=SLEEP_SECONDS, SENTINEL=str(tmp_path / "survived")) + LEAVE_SLEEP,
        HISTORY.replace("HISTORY_MARK", f"history-{MARK}"),
    ))
    grades = grade_folder(folder, time_limit=TIME_LIMIT, sandbox=False)
    (grade,) = grades
    assert grade.status == "graded" and set(grade.results.values()) == {"passed"}, grade
    assert grade.sandbox == "none: turned off (--no-sandbox)"
    assert survivors(SLEEP_SECONDS) == []
    table = format_table(grades)
    assert table.startswith("WARNING: submissions ran UNSANDBOXED (turned off (--no-sandbox))"), table
    write_csv(grades, tmp_path / "grades.csv")
    with open(tmp_path / "grades.csv", newline="") as file:
        assert next(csv.DictReader(file))["sandbox"] == "none: turned off (--no-sandbox)"
    assert list(home.rglob("*")) == []  # no IPython history, no runtime files
    time.sleep(2)  # a surviving writer would have written by now
    assert not (tmp_path / "survived").exists()


def carried_of(folder, group=carried.by_folder):
    """{path under folder: Carried} of every notebook under folder, as a grading run reads them."""
    from micrograd.course.grading.snapshot import take_snapshot

    found = carried.carried_code([take_snapshot(path) for path in sorted(folder.rglob("*.ipynb"))], group)
    return {path.relative_to(folder).as_posix(): value for path, value in found.items()}


def test_a_folder_of_several_students_gives_no_one_a_my_micrograd_py_and_its_carrying_lessons_say_so(tmp_path):
    for name in ("ann-04.ipynb", "bob-04.ipynb", "ann-01.ipynb"):
        write(tmp_path, name, notebook_of(name[4:6]))
    saved.store("lesson 3: MyValue", lecture_code()["lesson 3: MyValue"], tmp_path)  # whose? no one can tell
    found = carried_of(tmp_path)
    assert {value.text for value in found.values()} == {None}
    note = carried.note_for(found["ann-04.ipynb"], json.loads((tmp_path / "ann-04.ipynb").read_text()), "04")
    assert note.startswith("ran on the worked answers: the folder holds lesson 04 more than once"), note
    assert carried.note_for(found["ann-01.ipynb"], json.loads((tmp_path / "ann-01.ipynb").read_text()), "01") == ""


def test_my_micrograd_py_is_the_one_submitted_else_rebuilt_from_the_students_build_its_in_lesson_order(tmp_path):
    submitted, rebuilt, unreadable = (tmp_path / name for name in ("submitted", "rebuilt", "unreadable"))
    for folder in (submitted, rebuilt, unreadable):
        folder.mkdir()
        for lesson in ("04", "02", "03"):  # written out of order: the file is in lesson order all the same
            write(folder, f"{lesson}.ipynb", lecture_student(lesson, "children"))
    saved.store("lesson 2: MyValue", "class MyValue:\n    pass", submitted)
    (unreadable / "my_micrograd.py").write_bytes(b"\xff\xfe not UTF-8")
    found = carried_of(tmp_path)
    assert found["submitted/04.ipynb"].text == (submitted / "my_micrograd.py").read_text() and not found["submitted/04.ipynb"].note
    expected = saved.expected_file([rebuilt / f"{lesson}.ipynb" for lesson in ("02", "03", "04")])
    keys = [line for line in expected.splitlines() if line.startswith("# %% lesson")]
    assert keys == ["# %% lesson 2: MyValue", "# %% lesson 3: MyValue", "# %% lesson 4: my_topological_order",
                    "# %% lesson 4: my_backward", "# %% lesson 4: more operations"], keys
    for name in ("02", "03", "04"):
        assert found[f"rebuilt/{name}.ipynb"].text == expected and found[f"unreadable/{name}.ipynb"].text == expected
    assert found["rebuilt/04.ipynb"].note.endswith("lesson 02, 03, 04, as no my_micrograd.py was submitted")
    assert found["unreadable/04.ipynb"].note.endswith("as its my_micrograd.py is not UTF-8 text")


def test_a_grouping_of_its_own_gathers_a_students_notebooks_from_several_folders(tmp_path):
    """What a roster plugs in: which notebooks are one student's, wherever they lie."""
    for lesson in ("03", "04"):
        (tmp_path / f"week-{lesson}").mkdir()
        write(tmp_path / f"week-{lesson}", "ann.ipynb", lecture_student(lesson, "children"))

    def by_name(paths, lesson_of):
        return [carried.Submission(sorted(paths, key=lesson_of), tmp_path / "ann-my_micrograd.py")]

    found = carried_of(tmp_path, by_name)
    expected = saved.expected_file([tmp_path / "week-03" / "ann.ipynb", tmp_path / "week-04" / "ann.ipynb"])
    assert found["week-04/ann.ipynb"].text == expected and found["week-04/ann.ipynb"].lessons == ["03", "04"]


def test_bubblewrap_is_what_this_machine_grades_with():
    # CI runs as root on Debian with bubblewrap: the sandbox must be there, not silently skipped.
    assert _sandbox.unavailable() is None
    assert sandbox_status() == (True, "bubblewrap")


# Rows for what happens to the files, and for being stopped.


def test_a_submission_that_vanishes_or_changes_during_the_run_gets_a_row_and_the_run_goes_on(tmp_path):
    folder = tmp_path / "submissions"
    folder.mkdir()
    plain = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1 + 1)")])
    for name in ("a.ipynb", "b.ipynb", "c.ipynb"):
        write(folder, name, plain)
    (folder / "dangling.ipynb").symlink_to(folder / "gone.ipynb")
    os.mkfifo(folder / "fifo.ipynb")

    def meddle(grade):  # a sync tool at work while the first row is graded
        if grade.submission == "a.ipynb":
            (folder / "c.ipynb").unlink()
            write(folder, "b.ipynb", nbformat.v4.new_notebook())

    grades = {grade.submission: grade for grade in grade_folder(folder, progress=meddle)}
    assert grades["a.ipynb"].summary == "not a lesson notebook: it imports no lesson's checkers"
    assert grades["b.ipynb"].notes == ["the file changed during the run (graded as it was read at the start)"]
    assert grades["c.ipynb"].notes == ["the file was removed during the run (graded as it was read at the start)"]
    assert grades["dangling.ipynb"].status == "not graded: the file vanished before it could be read"
    assert grades["fifo.ipynb"].status == "not graded: the file cannot be read (not a regular file)"


def _start_grader(folder, tmp, time_limit):
    env = dict(os.environ, TMPDIR=str(tmp))
    process = subprocess.Popen(
        [sys.executable, "-m", "micrograd.course.grading", str(folder), "--time-limit", str(time_limit)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True).start()
    return process, lines


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["Ctrl-C", "SIGTERM"])
def test_a_stopped_run_writes_the_rows_so_far_and_removes_its_temporary_folders(tmp_path, request, number):
    folder = tmp_path / "submissions"
    folder.mkdir()
    tmp = Path(tempfile.mkdtemp(prefix="mgt-", dir="/tmp"))  # short: the kernels' sockets go there too
    request.addfinalizer(lambda: shutil.rmtree(tmp, ignore_errors=True))
    write(folder, "a.ipynb", untouched_small())
    write(folder, "b.ipynb", small_notebook("while True:\n    pass"))
    write(folder, "c.ipynb", untouched_small())
    process, lines = _start_grader(folder, tmp, time_limit=120)
    deadline = time.monotonic() + 120
    seen = []
    while not any(line.startswith("  a.ipynb: graded") for line in seen):
        assert time.monotonic() < deadline and process.poll() is None, seen
        try:
            seen.append(lines.get(timeout=1))
        except queue.Empty:
            pass
    time.sleep(1)  # b is running
    process.send_signal(number)
    stdout, _ = process.communicate(timeout=60)
    assert process.returncode == 128 + number, (process.returncode, stdout)
    with open(folder / "grades.csv", newline="") as file:
        rows = {row["submission"]: row for row in csv.DictReader(file)}
    name = signal.Signals(number).name
    assert rows["a.ipynb"]["run"] == "graded" and rows["a.ipynb"][exercise_titles("01")[0]] == "not attempted", rows
    assert rows["b.ipynb"]["run"] == f"not graded: the run was stopped ({name}) while this notebook ran", rows
    assert rows["c.ipynb"]["run"] == f"not graded: the run was stopped ({name}) before this notebook", rows
    assert "Lesson 01" in stdout and "Not graded" in stdout
    assert list(tmp.iterdir()) == []
    assert survivors(str(tmp)) == []  # b's kernel and worker ran from folders under tmp


# Without a kernel.


@pytest.mark.parametrize(
    "content, status",
    [
        ('{"cells": [{"cell_type": "code", "source": "1 +', "invalid notebook: not valid JSON"),
        ("", "empty file"),
        ('{"cells": "none", "metadata": {}}', "invalid notebook: JSON, but not a Jupyter notebook"),
        ('{"cells": [{"cell_type": "code"}], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}', "invalid notebook: "),
    ],
    ids=["malformed JSON", "empty file", "not a notebook", "invalid cell"],
)
def test_files_that_are_not_notebooks_get_a_row_that_says_so(tmp_path, content, status):
    grade = grade_notebook(write(tmp_path, "submission.ipynb", content))
    assert grade.status.startswith(status), grade
    assert grade.results == {} and grade.sandbox == "" and grade.seconds == 0.0  # nothing was run


def test_notebooks_of_no_lesson_of_another_lesson_or_of_two_lessons(tmp_path):
    empty = write(tmp_path, "empty.ipynb", nbformat.v4.new_notebook())
    assert grade_notebook(empty).status == "empty notebook: no code to run"
    plain = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1 + 1)")])
    assert grade_notebook(write(tmp_path, "plain.ipynb", plain)).status.startswith("not a lesson notebook")
    # Named like lesson 01 but holding lesson 02: the content decides.
    other = write(tmp_path, "01_derivatives.ipynb", notebook_of("02", solution=True))
    grade = grade_notebook(other, lesson=1)
    assert (grade.lesson, grade.status) == ("02", "another lesson: lesson 02, expected 01"), grade
    mixed = notebook_of("01", solution=True)
    mixed.cells.append(nbformat.v4.new_code_cell("from micrograd.course.lessons import lesson02 as check2"))
    grade = grade_notebook(write(tmp_path, "mixed.ipynb", mixed))
    assert grade.status == "mixed lessons: imports the checkers of lessons 01, 02", grade


def test_lessons_are_recognised_from_every_form_of_checker_import():
    def notebook(source):
        return {"cells": [{"cell_type": "code", "source": source}]}

    assert lessons_imported(notebook("from micrograd.course.lessons import lesson05 as check")) == {"05"}
    assert lessons_imported(notebook(["import micrograd.course.lessons.lesson3\n"])) == {"03"}
    # A lesson saved before the checkers moved to micrograd.course.lessons imports them from micrograd.course.
    assert lessons_imported(notebook("from micrograd.course import lesson05 as check")) == {"05"}
    assert lessons_imported(notebook(["import micrograd.course.lesson3\n"])) == {"03"}
    assert lessons_imported(notebook("from micrograd.course import (lesson01, lesson02)")) == {"01", "02"}
    assert lessons_imported(notebook("# from micrograd.course.lessons import lesson05")) == set()
    # The line before names another module of micrograd.course (lessons 3 and 4 import yours just before).
    assert lessons_imported(notebook("from micrograd.course.carry import yours\nfrom micrograd.course.lessons import lesson03 as check")) == {"03"}
    assert lessons_imported(notebook("from micrograd.course import (\n    lesson04 as check,\n)")) == {"04"}


def test_checker_cells_are_compared_with_the_released_lesson_statement_by_statement():
    from micrograd.course.grading import _integrity

    released = notebook_of("01")
    titles = exercise_titles("01")

    def notebook(*sources):
        return {"cells": [{"cell_type": "code", "source": source} for source in
                          ("from micrograd.course.lessons import lesson01 as check", *sources)]}

    def reasons(*sources, verdicts=()):
        return _integrity.suspicions(notebook(*sources), "01", list(verdicts), released)

    honest = ["answer = -10.0\ncheck.slope_at_minus_one(answer)", "%time x = 1\n[check for check in range(2)]",
              "def f(check):\n    return check"]
    assert reasons(*honest, verdicts=[(1, titles[0])]) == []
    assert reasons("check.slope_at_minus_one(-10.0)") == [
        "cell 2 calls a checker in a way the released lesson does not: check.slope_at_minus_one(-10.0)"]
    assert reasons("print('hi')", verdicts=[(1, titles[0])]) == [
        "a verdict for Exercise 1 came from cell 2, not from a call of its checker"]
    # Two verdicts from one call: the second is not the checker's.
    assert reasons("answer = 1\ncheck.slope_at_minus_one(answer)", verdicts=[(1, titles[0])] * 2) == [
        "a verdict for Exercise 1 came from cell 2, not from a call of its checker"]
    assert reasons("check = None") == ["cell 2 rebinds `check`, the name the checkers are called through"]
    assert reasons("from math import sqrt as check") == ["cell 2 rebinds `check` by an import"]
    assert reasons("check.slope_function = print") == ["cell 2 assigns to `check.slope_function`"]
    assert reasons("def f():\n    global check\n    check = None") == ["cell 2 declares `global check` in a function"]
    assert _integrity.suspicions(notebook(), "01", [], None) == [
        "checker cells not compared: the released lesson 01 was not found (--released FOLDER)"]


def test_the_table_marks_suspect_rows_and_lists_why():
    rows = [
        Grade("ada.ipynb", "01", results={"Exercise 1: x": "passed"}, sandbox="bubblewrap"),
        Grade("eve.ipynb", "01", results={"Exercise 1: x": "passed"}, sandbox="bubblewrap",
              suspect=["a verdict for Exercise 1 came from cell 4, not from a call of its checker"]),
    ]
    table = format_table(rows)
    lines = {line.split()[0]: line.split()[1:] for line in table.splitlines() if line.endswith("passed")}
    assert lines == {"ada.ipynb": ["graded", "passed"], "eve.ipynb": ["SUSPECT;", "graded", "passed"]}, table
    assert "    - a verdict for Exercise 1 came from cell 4, not from a call of its checker" in table


@pytest.mark.parametrize("argument, message", [("missing-folder", "is not a folder"), ("empty-folder", "no .ipynb files")])
def test_command_line_says_what_is_wrong_with_the_folder(tmp_path, argument, message):
    (tmp_path / "empty-folder").mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "micrograd.course.grading", str(tmp_path / argument)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_command_line_refuses_a_memory_limit_a_drawing_kernel_cannot_live_under(tmp_path):
    (tmp_path / "a.ipynb").write_text("{}")
    result = subprocess.run(
        [sys.executable, "-m", "micrograd.course.grading", str(tmp_path), "--memory", "1"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2 and "--memory 1 is too little" in result.stderr and "1.5 or more" in result.stderr, result.stderr


def test_the_sandbox_binds_python_and_the_package_after_its_own_tmp(tmp_path):
    """A checkout or venv under /tmp (CI's clone may be there) must not be hidden by the sandbox's /tmp."""
    from micrograd.course.grading import _sandbox

    command = _sandbox.bwrap_command(tmp_path)
    tmpfs = next(i for i, word in enumerate(command) if word == "--tmpfs" and command[i + 1] == "/tmp")
    package = str(_sandbox._package_folder())
    bound = [i for i, word in enumerate(command) if word == "--ro-bind" and command[i + 1] == package]
    assert bound and all(i > tmpfs for i in bound), command


# A class: ids, points and scores, the LMS's files, hidden checks, feedback, re-grading (from the shared run).


def test_each_submission_gets_its_student_from_the_roster_the_pattern_or_its_metadata(rows):
    assert rows["noisy.ipynb"]["student"] == "noisy-by-roster" and rows["noisy.ipynb"]["student_from"] == "roster"
    assert (rows["greedy.ipynb"]["student"], rows["greedy.ipynb"]["student_from"]) == ("greedy-by-metadata", "metadata")
    for stem in SCORES:
        assert (rows[f"{stem}.ipynb"]["student"], rows[f"{stem}.ipynb"]["student_from"].split(" (")[0]) == (stem, "file name")
    # The metadata is the student's to write: it never overrides what the teacher's pattern found.
    assert rows["right-01.ipynb"]["student_from"] == "file name (its metadata names 'untouched-01')", rows["right-01.ipynb"]
    assert rows["broken.ipynb"]["student"] == ""
    assert rows["broken.ipynb"]["student_from"] == "none: 'nobody', from the metadata, is not in the roster"
    assert rows["history.ipynb"]["student"] == "" and rows["history.ipynb"]["student_from"].startswith("none: neither")


def test_a_submission_with_no_id_is_listed(graded, rows):
    anonymous = sorted(name for name, row in rows.items() if not row["student"])
    assert "bob.ipynb" in anonymous and "history.ipynb" in anonymous
    assert f"No student id ({len(anonymous)}): {', '.join(anonymous)}" in graded["run"].stdout
    assert "No submission from 1 student(s) of the roster: absent-student" in graded["run"].stdout


@pytest.mark.parametrize("stem", sorted(SCORES))
def test_scores_follow_the_points_file(rows, stem):
    row = rows[f"{stem}.ipynb"]
    assert (float(row["score"]), float(row["max_score"])) == SCORES[stem], row


def test_the_canvas_export_has_canvas_columns_and_a_points_possible_row(graded, rows):
    with open(graded["teacher"] / "canvas.csv", newline="", encoding="utf-8") as file:
        table = list(csv.reader(file))
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lesson 01", "Lesson 02"]
    assert table[1] == ["    Points Possible", "", "", "", "", "7", "3"]
    by_id = {row[2]: row for row in table[2:]}
    assert by_id["wrong-01-0"] == ["Student wrong-01-0", "", "wrong-01-0", "", "", "4", ""]
    assert by_id["right-02"][5:] == ["", "3"]
    assert by_id["noisy-by-roster"][0] == "Nora Noisy"
    assert "" not in by_id  # rows with no student id are left out, and said so
    assert "canvas: left out bob.ipynb: no student id" not in graded["run"].stderr  # bob was not graded at all
    assert "canvas: left out history.ipynb: no student id" in graded["run"].stderr


def test_the_moodle_export_has_moodle_columns(graded):
    with open(graded["teacher"] / "moodle.csv", newline="", encoding="utf-8") as file:
        table = list(csv.DictReader(file))
    assert list(table[0]) == ["First name", "Last name", "ID number", "Email address", "Lesson 01", "Lesson 02"]
    nora = next(row for row in table if row["ID number"] == "noisy-by-roster")
    assert (nora["First name"], nora["Last name"], nora["Email address"]) == ("Nora", "Noisy", "nora@example.org")
    right = next(row for row in table if row["ID number"] == "right-01")
    assert (right["Lesson 01"], right["Lesson 02"]) == ("7", "")


def test_hidden_checks_grade_like_the_lessons_own(rows):
    assert results(rows["right-01.ipynb"], "01") | {HIDDEN_TITLE: rows["right-01.ipynb"][f"01 {HIDDEN_TITLE}"]} \
        == {title: "passed" for title in [*exercise_titles("01"), HIDDEN_TITLE]}
    assert rows["untouched-01.ipynb"][f"01 {HIDDEN_TITLE}"] == "not attempted"
    assert rows["right-02.ipynb"][f"01 {HIDDEN_TITLE}"] == ""  # lesson 2 has none


def test_a_notebook_can_neither_read_nor_fake_the_hidden_checks(rows):
    row = rows["cheat-read-hidden.ipynb"]
    assert "raised RuntimeError: found [] in cell" in row["run"], row  # the folder is nowhere in the sandbox
    assert row[f"01 {HIDDEN_TITLE}"] == "not attempted", row  # its answers are still ...
    assert "a verdict for Hidden 1 came from cell" in row["suspect"], row


def test_reaching_into_a_hidden_check_from_the_students_function_fails_it_and_marks_the_row(rows):
    row = rows["cheat-reach-into-hidden.ipynb"]
    assert row[f"01 {HIDDEN_TITLE}"] == "failed: not counted: something changed the hidden check while it ran", row
    assert "Hidden 1: the hidden check's names changed while it ran" in row["suspect"], row


def test_a_thread_left_running_gets_no_hidden_verdict(rows):
    row = rows["cheat-thread-left.ipynb"]
    assert row[f"01 {HIDDEN_TITLE}"] == "no verdict", row
    assert "hidden checks not run: the notebook left 1 thread(s) of its own running" in row["suspect"], row
    assert set(results(row, "01").values()) == {"passed"}, row


def test_each_student_gets_feedback_with_verdicts_messages_and_what_they_printed(graded, rows):
    feedback = graded["folder"] / "feedback"
    text = (feedback / "wrong-01-0.md").read_text()
    assert text.startswith("# Feedback for wrong-01-0\n") and "Score: **4 / 7**" in text
    first = exercise_titles("01")[0]
    message = rows["wrong-01-0.ipynb"][f"01 {first}"].removeprefix("failed: ")
    assert f"### {first}: ✗ not yet (0 / 2)\n\n> {message}" in text.replace("&gt;", ">").replace("&lt;", "<")
    assert "slope at -1: " in text  # what the exercise's cell printed
    assert f"### {HIDDEN_TITLE}: ✓ passed (3 / 3)\n\n> slope works on x**3 at 2 too" in text
    assert len((feedback / "noisy-by-roster.md").read_text()) < 20_000  # 30 MB printed in a cell of its own
    assert (feedback / "no-id--history.ipynb.md").exists()
    report = (feedback / "report.md").read_text()
    assert "- suspect: a verdict for Hidden 1 came from cell" in report and "## Lesson 01: wrong-01-0.ipynb" in report


def test_regrading_one_file_or_one_student_updates_the_class_csv_in_place_and_logs_the_earlier_row(graded, tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(graded["folder"] / "grades.csv", folder / "grades.csv")
    write(folder, "untouched-01.ipynb", untouched_small())  # the student sends a corrected notebook: still untouched
    with open(folder / "grades.csv", newline="") as file:
        before = {row["submission"]: row for row in csv.DictReader(file)}
    points = tmp_path / "points.toml"
    points.write_text(POINTS.replace('"Exercise 1" = 2', '"Exercise 1" = 5'))
    files = [*graded["teachers_files"]]
    files[files.index("--points") + 1] = str(points)
    result = subprocess.run([sys.executable, "-m", "micrograd.course.grading", str(folder / "untouched-01.ipynb"), *files],
                            capture_output=True, text=True, timeout=TIME_LIMIT + ALLOWANCE, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    with open(folder / "grades.csv", newline="") as file:
        after = {row["submission"]: row for row in csv.DictReader(file)}
    assert set(after) == set(before)
    assert {name: row for name, row in after.items() if name != "untouched-01.ipynb"} == \
        {name: row for name, row in before.items() if name != "untouched-01.ipynb"}
    assert (after["untouched-01.ipynb"]["score"], after["untouched-01.ipynb"]["max_score"]) == ("0", "10")
    with open(folder / "grades-log.csv", newline="") as file:
        (logged,) = csv.DictReader(file)
    assert {key: logged[key] for key in before["untouched-01.ipynb"]} == before["untouched-01.ipynb"]
    assert logged["replaced_at"]
    # By student id: the same row again, and the log keeps both earlier ones.
    result = subprocess.run([sys.executable, "-m", "micrograd.course.grading", str(folder), "--only", "untouched-01", *files],
                            capture_output=True, text=True, timeout=TIME_LIMIT + ALLOWANCE, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    with open(folder / "grades-log.csv", newline="") as file:
        assert [row["submission"] for row in csv.DictReader(file)] == ["untouched-01.ipynb"] * 2
    assert (folder / "feedback" / "untouched-01.md").exists()
