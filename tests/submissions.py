"""Submitted lesson notebooks of the kinds grading meets, made from the course itself.

A right answer is the lesson's solution notebook, an untouched submission is the lesson as shipped, a wrong
answer is the solution with some exercises' answers set to None just before their (unchanged) checker calls,
and a student of the lecture writes the lecture's code (tests/foreign_nodes.py) into the build-it cells, with
their inputs kept in ``_prev`` as the lecture does, or under another name (``children``).  So the notebooks
follow the lessons as they change; tests/test_grading.py and benchmarks/grading.py both grade them.
"""

import ast
import importlib
from pathlib import Path

import nbformat

from foreign_nodes import LECTURE_AUTOGRAD, LECTURE_MY_VALUE

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
MAGIC = "%%my_micrograd"


def notebook_of(lesson, solution=False):
    folder = NOTEBOOKS / "solutions" if solution else NOTEBOOKS
    (path,) = folder.glob(f"{lesson}_*.ipynb")
    return nbformat.read(path, as_version=4)


def checker_calls(source, lesson):
    """Calls like check.slope_function(slope) in a cell whose target is one of the lesson's checkers."""
    module = importlib.import_module(f"micrograd.course.lessons.lesson{lesson}")
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: never a checker cell
        return None, []
    calls = [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "check"
        and getattr(getattr(module, node.func.attr, None), "title", None)
    ]
    return tree, calls


def wrong_answers(lesson, titles):
    """The solution with the answers of these exercises set to None around their (unchanged) checker calls."""
    module = importlib.import_module(f"micrograd.course.lessons.lesson{lesson}")
    notebook = notebook_of(lesson, solution=True)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        tree, calls = checker_calls(cell.source, lesson)
        calls = [call for call in calls if getattr(module, call.func.attr).title in titles]
        assert all(isinstance(arg, ast.Name) for call in calls for arg in call.args), "a checker called on an expression"
        names = ", ".join(arg.id for call in calls for arg in call.args)
        if names:
            lines = cell.source.splitlines()
            # The answers go back after the call: a later exercise may build on them.
            lines.insert(max(call.end_lineno for call in calls), f"{names}, = kept_answers")
            lines.insert(min(call.lineno for call in calls) - 1, f"kept_answers = ({names},)\n{names}, = [None] * len(kept_answers)")
            cell.source = "\n".join(lines)
    return notebook


def lecture_code(inputs="_prev"):
    """{build-it key: code} of a student who types the lecture's micrograd, its inputs kept in ``inputs``."""
    value = LECTURE_MY_VALUE.replace("_prev", inputs).strip()
    order, backward = LECTURE_AUTOGRAD.replace("v._prev", f"v.{inputs}").split("\n\ndef my_backward")
    return {
        "lesson 2: MyValue": value,
        "lesson 3: MyValue": value,
        "lesson 4: my_topological_order": order.strip(),
        "lesson 4: my_backward": ("def my_backward" + backward).strip(),
    }


# Lesson 4's exercise 3 as a student who predicts answers it: 15 on the package's Value, and 27 on a MyValue whose
# my_backward leaves the nodes in between their gradients, as the lecture's does.  The call is the released one.
PREDICTED_THREE_BACKWARDS = "answer = 15\nanswer_mine = 27\ncheck.grad_after_three_backwards(answer, answer_mine, MyValue)"


def lecture_student(lesson, inputs="_prev"):
    """The lesson's solution with the lecture's code in its build-it cells (the given 'more operations' kept), and
    lesson 4's exercise 3 predicted (PREDICTED_THREE_BACKWARDS) rather than computed."""
    notebook = notebook_of(lesson, solution=True)
    code = lecture_code(inputs)
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        first, _, _ = cell.source.partition("\n")
        key = first[len(MAGIC):].strip() if first.startswith(MAGIC) else None
        if key in code:
            cell.source = f"{first}\n{code[key]}"
        elif "check.grad_after_three_backwards(" in cell.source:
            cell.source = PREDICTED_THREE_BACKWARDS
    return notebook
