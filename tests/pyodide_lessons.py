"""Every lesson's code cells under the browser app's Pyodide, and what they printed beside what the notebook stores.

One Node process runs Pyodide (tests/pyodide/serve.mjs) and, in it, lesson after lesson: each lesson's code
cells in order, in a fresh IPython shell with the app's kernel profile (micrograd.course.carry.magic, then
micrograd.course.browser), in a fresh folder holding the shipped my_micrograd.py, as nbval runs a notebook
(tests/pyodide/lessons.py).  Starting Pyodide takes seconds of processor time, so one process serves a test
file's lessons; a lesson that stops Pyodide is reported, and the next lesson starts a new one.

What each cell printed is compared with the notebook's stored outputs as nbval compares them: its text
outputs (standard output and error, and each result's or display's text/plain), in order, after the
regexes of notebooks/sanitize.cfg, but for cells tagged nbval-ignore-output (measured times).  Where the app
shows something else on purpose, a rule says so, not a list of cells: a stored output with a PNG image (a
matplotlib figure, or one of the package's pictures) is the figure the app cannot draw, and the app must
print the one line that says where to see it, in that cell and only there.  A number printed with every
digit a float holds may be a few units off in its last place, as the maths libraries differ.
"""

import json
import math
import queue
import re
import subprocess
import threading
from pathlib import Path

import pytest
from in_pyodide import LOCATION, REPO, SERVER, copy_packages, node
from run_twice import SHORTER as SHORTER_TO_RUN_TWICE
from run_twice import cells, notebook_of, sanitized

from micrograd.course.browser import figure_note

PROGRAM = REPO / "tests" / "pyodide" / "lessons.py"
# The line a figure cell prints in the app, with the site's URL as lessons.py sets it (against LOCATION).
FIGURE_NOTE = figure_note((REPO / "site").as_uri() + "/")
PICTURE = "image/png"  # a stored output with a PNG is a figure (or a picture) drawn by matplotlib
# A number printed with every digit a float holds (15 significant digits or more) is compared within a few
# units in its last place: math.tanh, exp and log are not correctly rounded, and the app's maths library
# (musl's, compiled to WebAssembly) gives some results one unit off glibc's, as lesson 5 prints.
NUMBER = re.compile(r"(-?\d+\.\d+(?:e[-+]?\d+)?)")
FULL_PRECISION = 15
LAST_PLACES = 4
START_SECONDS = 300  # Pyodide's start and the shell's imports, on a loaded 2-core machine
LESSON_SECONDS = 600

# Shorter training where a lesson trains for long: Pyodide runs the engine some twice as slow as CPython, and
# make test's time is counted.  Lessons 7 and 8 are shortened as run_twice.py shortens them for
# test_cells_run_twice*.py (lesson 7: 20 of 100 steps, lesson 8: 1 of 8 epochs), lesson 11 trains its GPT 60 of
# its 300 steps; each of the three then takes some 4 s of processor time here, where it took 8, 19 and 13 in full.
# Every output before the first cell a shortening changes is compared; that cell and those after it must run
# to their end, and what they print is not compared (fewer steps train to other numbers).
# JupyterLab's live run of lesson 11 (tests/test_jupyterlab.py) trains its GPT as briefly, by this table.
SHORTER = {
    7: SHORTER_TO_RUN_TWICE[7],
    8: SHORTER_TO_RUN_TWICE[8],
    11: [("NUM_STEPS = 300", "NUM_STEPS = 60")],
}


def lesson_cells(lesson):
    """[(index, source, ignored, shortened)] of the lesson's code cells, its training shortened as SHORTER says."""
    found = [(index, source, ignored, False) for index, source, ignored in cells(notebook_of(lesson))]
    for text, replacement in SHORTER.get(lesson, ()):
        assert sum(text in source for _, source, _, _ in found) == 1, f"lesson {lesson} no longer has {text!r} once"
        found = [(index, source.replace(text, replacement), ignored, shortened or text in source)
                 for index, source, ignored, shortened in found]
    return found


class LessonRun:
    """What one lesson did under Pyodide: ``cells``, {index: what lessons.py printed for the cell}; ``done``, the
    server's account ({"error", "seconds", "cpu_seconds"}), None if Pyodide stopped; ``stopped``, why it did."""

    def __init__(self, cells, done, stopped=None):
        self.cells, self.done, self.stopped = cells, done, stopped


class PyodideLessons:
    """A Node process running Pyodide that runs lessons on request, one after another; started again if it stops."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.packages = self.folder / "packages"
        copy_packages(self.packages)  # once for the file's lessons
        (self.packages / "my_micrograd.py").write_bytes((REPO / "notebooks" / "my_micrograd.py").read_bytes())
        (self.packages / "lessons").mkdir()
        self.process = None
        self.starts = 0

    def _start(self):
        self.starts += 1
        self.stderr = self.folder / f"stderr-{self.starts}.txt"
        with open(self.stderr, "w") as stderr:
            self.process = subprocess.Popen(
                [node(), str(SERVER), str(self.packages), str(PROGRAM), LOCATION], cwd=REPO, text=True,
                encoding="utf-8", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout, self.lines), daemon=True).start()
        line = self._next_line(START_SECONDS)
        if not line.startswith("READY "):
            self.close()
            pytest.fail(f"Pyodide did not start: {line}\n{self._stderr()}", pytrace=False)
        self.started = json.loads(line[len("READY "):])  # how long the start took

    @staticmethod
    def _read(stream, lines):
        for line in stream:
            lines.put(line.rstrip("\n"))
        lines.put(None)  # the process ended

    def _next_line(self, seconds):
        """The next line the process printed; else, in brackets, why there is none."""
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            return f"[nothing within {seconds} s]"
        return "[Pyodide stopped]" if line is None else line

    def _stderr(self):
        """What Node printed on standard error: the start (where Pyodide names a fatal error's cause) and the end."""
        text = self.stderr.read_text(encoding="utf-8", errors="replace")
        return text if len(text) <= 3000 else f"{text[:1500]}\n[...]\n{text[-1500:]}"

    def run(self, lesson):
        """Run the lesson's code cells (lesson_cells), in a fresh shell; a LessonRun."""
        if self.process is None:
            self._start()
        path = self.packages / "lessons" / f"{lesson:02d}.json"
        path.write_text(json.dumps([(index, source) for index, source, _, _ in lesson_cells(lesson)]), encoding="utf-8")
        self.process.stdin.write(f"run_lesson('/packages/lessons/{path.name}')\n")
        self.process.stdin.flush()
        ran = {}
        while True:
            line = self._next_line(LESSON_SECONDS)
            if line.startswith("CELL "):
                cell = json.loads(line[len("CELL "):])
                ran[cell["index"]] = cell
            elif line.startswith("DONE "):
                done = json.loads(line[len("DONE "):])
                if done["error"] is not None:
                    self.close()  # the next lesson starts in a new Pyodide, whatever this error left behind
                return LessonRun(ran, done)
            elif line.startswith("["):
                self.close()
                return LessonRun(ran, None, f"{line}\n{self._stderr()}")

    def close(self):
        """End the process: the end of its input ends it after the line at work; past 30 s more, it is killed."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


# -- the comparison ---------------------------------------------------------------------------------


def _stored_outputs(notebook):
    """{cell index: [{"kind", "formats", "text"}]}: the notebook's outputs as lessons.py reports the app's."""
    found = {}
    for index, cell in enumerate(json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]):
        if cell["cell_type"] != "code":
            continue
        outputs = []
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                outputs.append({"kind": output["name"], "formats": [], "text": "".join(output["text"])})
            elif output["output_type"] == "error":
                outputs.append({"kind": "error", "formats": [], "text": f"{output['ename']}: {output['evalue']}"})
            else:
                text = output["data"].get("text/plain", "")
                outputs.append({"kind": output["output_type"], "formats": sorted(output["data"]),
                                "text": "".join(text) if isinstance(text, list) else text})
        found[index] = outputs
    return found


def _without_figures(outputs):
    """The outputs with every figure taken out (a stored PNG; the app's one line in its place); and was one there?"""
    kept, figure = [], False
    for output in outputs:
        if PICTURE in output["formats"] or output["text"] == FIGURE_NOTE:
            figure = True
            continue
        text = output["text"]
        if output["kind"] in ("stdout", "stderr"):
            lines = text.splitlines(keepends=True)
            text = "".join(line for line in lines if line.rstrip("\n") != FIGURE_NOTE)
            figure = figure or len(text) != len(output["text"])
            if not text:
                continue
        if kept and output["kind"] in ("stdout", "stderr") and kept[-1]["kind"] == output["kind"]:
            kept[-1] = {**kept[-1], "text": kept[-1]["text"] + text}
        else:
            kept.append({**output, "text": text})
    return [{**output, "text": sanitized(output["text"])} for output in kept], figure


def _same_line(stored, here):
    """Are two lines the same, a number printed to every digit a float holds within a few units in its last place?"""
    if stored == here:
        return True
    stored_parts, here_parts = NUMBER.split(stored), NUMBER.split(here)
    if len(stored_parts) != len(here_parts) or stored_parts[::2] != here_parts[::2]:
        return False
    for a, b in zip(stored_parts[1::2], here_parts[1::2]):
        if a != b and not (_full_precision(a) and _full_precision(b) and
                           abs(float(a) - float(b)) <= LAST_PLACES * math.ulp(max(abs(float(a)), abs(float(b))))):
            return False
    return True


def _full_precision(number):
    return len(number.lstrip("-").split("e")[0].replace(".", "").lstrip("0")) >= FULL_PRECISION


def _same_text(stored, here):
    left, right = stored.splitlines(), here.splitlines()
    return len(left) == len(right) and all(_same_line(a, b) for a, b in zip(left, right))


def _same_outputs(stored, here):
    return len(stored) == len(here) and all(
        a["kind"] == b["kind"] and _same_text(a["text"], b["text"]) for a, b in zip(stored, here))


def _first_difference(stored, here):
    """What differs first between two lists of outputs, in one line."""
    for k, (a, b) in enumerate(zip(stored, here)):
        if a["kind"] != b["kind"]:
            return f"output {k + 1} is {a['kind']} in the notebook, {b['kind']} here: {b['text'][:300]!r}"
        if not _same_text(a["text"], b["text"]):
            left, right = a["text"].splitlines(), b["text"].splitlines()
            for line, (x, y) in enumerate(zip(left, right)):
                if not _same_line(x, y):
                    return f"{a['kind']} line {line + 1}: notebook {x[:200]!r}, here {y[:200]!r}"
            return (f"{a['kind']}: {len(left)} lines in the notebook, {len(right)} here; the first one more: "
                    f"{(left[len(right)] if len(left) > len(right) else right[len(left)])[:200]!r}")
    longer, side = (stored, "the notebook") if len(stored) > len(here) else (here, "here")
    extra = longer[min(len(stored), len(here))]
    return (f"{len(stored)} outputs in the notebook, {len(here)} here; the first one more, {side}: "
            f"{extra['kind']} {extra['text'][:300]!r}")


def differences(lesson, run):
    """["cell N: what differs"] between the lesson's run under Pyodide and its stored outputs."""
    return compare(lesson_cells(lesson), _stored_outputs(notebook_of(lesson)), run)


def compare(lesson, stored, run):
    """["cell N: what differs"] between ``run`` (a LessonRun) of the cells ``lesson`` ([(index, source, ignored,
    shortened)]) and the outputs ``stored`` ({index: [output]}) of their notebook."""
    found, compared = [], True
    for index, _, ignored, shortened in lesson:
        compared = compared and not shortened
        cell = run.cells.get(index)
        if cell is None:
            found.append(f"cell {index}: Pyodide stopped before this cell finished: {run.stopped}")
            break
        if cell["error"] is not None:
            found.append(f"cell {index}: raised {cell['error'][:300]}")
            continue
        if not compared or ignored:
            continue
        expected, stored_figure = _without_figures(stored[index])
        printed, noted = _without_figures(cell["outputs"])
        if stored_figure != noted:
            found.append(f"cell {index}: " + ("the notebook stores a figure, and the app printed no line about it"
                                              if stored_figure else f"the app printed {FIGURE_NOTE!r}, where the "
                                              "notebook stores no figure"))
        if not _same_outputs(expected, printed):
            found.append(f"cell {index}: {_first_difference(expected, printed)}")
    if run.done is not None and run.done["error"] is not None:
        found.append(f"the lesson's run raised {run.done['error'][:1000]}")
    return found
