"""Every code cell of a lesson run twice in a row, in one IPython shell in this process, and the two outputs compared.

A learner runs a cell again all the time: after reading it, after changing a number, after an error further
down.  It must print the same the second time, apart from what nbval does not compare either: the rules of
notebooks/sanitize.cfg (memory addresses, Graphviz's coordinates) and the cells tagged nbval-ignore-output
(measured times, files that may be missing), which must still run again without an error.  Every output a
notebook stores is compared (streams, text, HTML, SVG), except PNG images and widget views, which nbval does
not compare either.
"""

import configparser
import json
import re
import shutil
from pathlib import Path

from lesson_runner import NOTEBOOKS, _shell

IGNORED_MIMES = ("image/png", "image/jpeg", "application/vnd.jupyter.widget-view+json")


def sanitize_rules(path=NOTEBOOKS / "sanitize.cfg"):
    """(compiled regex, replacement) for each section of nbval's sanitize file, in order."""
    parser = configparser.ConfigParser(interpolation=None, comment_prefixes=("#",))
    parser.optionxform = str
    parser.read(path, encoding="utf-8")
    return [(re.compile(parser[name]["regex"]), parser[name]["replace"]) for name in parser.sections()]


RULES = sanitize_rules()

# Shorter training for the lessons that train longest: whether a cell prints the same twice does not
# depend on how long it trains, and a shorter run shows as well whether training starts afresh each time.
# Lesson 7 trains 20 of its 100 steps (the cells that read its history read 20 too).  Lesson 8 trains 1 of its 8
# epochs, and shows 8 of the test digits that model gets wrong (some 50, where the full model gets 11 wrong).
# Lesson 9 trains its two moons models 40 of 200 steps.  Lesson 10 times each step once, not the best of 3: its times
# are not compared (nbval-ignore-output), and one run shows as well that the cell runs again.
SHORTER = {
    7: [("for k in range(100):", "for k in range(20):"), ("for k in range(1, 100)", "for k in range(1, 20)"),
        ("ax.plot(range(100), history", "ax.plot(range(20), history")],
    8: [("EPOCHS, BATCH_SIZE = 8, 16", "EPOCHS, BATCH_SIZE = 1, 16"), ("for i in wrong]", "for i in wrong[:8]]")],
    9: [("def train_moons(forward, steps=200):", "def train_moons(forward, steps=40):")],
    10: [("def best_time(work, repeat=3):", "def best_time(work, repeat=1):")],
}

_PROMPT = re.compile(r"^Out\[\d+\]: ", re.MULTILINE)  # a terminal shell's prompt before a result: it counts runs


def sanitized(text):
    for regex, replace in RULES:
        text = regex.sub(replace, text)
    return text


def cells(notebook):
    """(index, source, ignored) of each code cell: ignored when nbval does not compare its output."""
    found = []
    for index, cell in enumerate(json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]):
        if cell["cell_type"] == "code":
            tags = cell.get("metadata", {}).get("tags", [])
            found.append((index, "".join(cell["source"]), "nbval-ignore-output" in tags))
    return found


def _run(shell, source):
    """What one run of a cell shows, as nbval would compare it, and the error it raised (or None)."""
    from IPython.utils.capture import capture_output

    with capture_output() as captured:
        result = shell.run_cell(source, store_history=True)
    error = result.error_before_exec or result.error_in_exec
    shown = [_PROMPT.sub("", captured.stdout), captured.stderr]
    for output in captured.outputs:
        shown += [f"[{mime}]\n{data}" for mime, data in sorted(output.data.items()) if mime not in IGNORED_MIMES]
    return sanitized("\n".join(part for part in shown if part)), None if error is None else f"{type(error).__name__}: {error}"


def differences(notebook, folder, shorter=()):
    """[(cell index, what differs)] over the notebook's code cells, each run twice in a row in a fresh shell.

    ``shorter``: (text, replacement) pairs, each of which must occur in the lesson, that make a long training
    cell train less; whether a cell prints the same twice does not depend on how long it trains."""
    folder = Path(folder)
    shutil.copy(NOTEBOOKS / "my_micrograd.py", folder)  # the lessons' build-it cells as shipped, unfilled
    found = []
    lesson = cells(notebook)
    for text, replacement in shorter:
        assert sum(text in source for _, source, _ in lesson) == 1, f"{notebook.name} no longer has {text!r} once"
        lesson = [(index, source.replace(text, replacement), ignored) for index, source, ignored in lesson]
    with _shell(folder) as shell:
        for index, source, ignored in lesson:
            first, first_error = _run(shell, source)
            again, again_error = _run(shell, source)
            if again_error and again_error != first_error:
                found.append((index, f"the second run raised {again_error}"))
            elif not ignored and again != first:
                found.append((index, _first_difference(first, again)))
    return found


def _first_difference(first, again):
    a, b = first.splitlines(), again.splitlines()
    for k, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {k + 1}: {x[:150]!r} became {y[:150]!r}"
    extra = (b[len(a)] if len(b) > len(a) else a[len(b)])[:150]
    return f"{len(a)} lines became {len(b)}, the first one more or less: {extra!r}"


def notebook_of(lesson):
    (notebook,) = NOTEBOOKS.glob(f"{lesson:02d}_*.ipynb")
    return notebook


def lesson_differences(lesson, folder):
    """differences() over lesson number ``lesson``, its longest training shortened as SHORTER says."""
    return differences(notebook_of(lesson), folder, SHORTER.get(lesson, ()))
