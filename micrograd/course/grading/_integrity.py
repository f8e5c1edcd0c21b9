"""Which verdicts of a submission the grader can vouch for: checker cells against the released lesson.

A lesson's exercise cell holds the learner's answer and ends with the call of
its checker, e.g. ``check.slope_function(slope)``.  The answer lines are the
learner's to write; the statement that calls the checker is not.  So, as
nbgrader compares its autograder cells by checksum, the grader compares every
statement that calls one of the lesson's checkers with the statements of the
lesson as released (``notebooks/NN_*.ipynb``, read when grading, so an edited
lesson is compared as it is now):

- a checker call that is not one of the released lesson's marks the row suspect;
- a verdict is vouched for only if it came from a cell whose released checker
  call names that exercise, one verdict per call: a verdict shown by any other
  cell (a hand-made display bundle), or a second one from a single call, marks
  the row suspect;
- a cell that rebinds the name the checkers are called through (``check = ...``)
  or assigns to an attribute of the checker modules marks the row suspect.

What the code does at run time (monkeypatching ``show`` or IPython's display
without naming them) is the worker's integrity check (micrograd.course.grading._audit).
"""

import ast
import importlib
import re
from pathlib import Path

CHECKER_PACKAGE = "micrograd.course.lessons"
# The package lessons import checkers from: where they live, or micrograd.course (a lesson saved before they moved).
CHECKER_IMPORTS = (CHECKER_PACKAGE, "micrograd.course")


def released_folder():
    """Where the lessons as released live: the notebooks/ folder beside the package."""
    import micrograd

    return Path(micrograd.__file__).resolve().parent.parent / "notebooks"


def _python(source):
    """A cell's code as Python (IPython magics turned into calls), or None when it does not parse."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return ast.parse(TransformerManager().transform_cell(source))
    except (SyntaxError, ValueError):
        return None


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _code_cells(notebook):
    for index, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") == "code":
            yield index, _source(cell)


def _lesson_number(name):
    match = re.fullmatch(r"lesson(\d+)", name)
    return f"{int(match.group(1)):02d}" if match else None


def aliases(notebook, lesson):
    """The names a notebook calls the lesson's checker module by: {"check"}, {"micrograd.course.lessons.lesson05"}."""
    names = set()
    for _, source in _code_cells(notebook):
        tree = _python(source)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in CHECKER_IMPORTS:
                for name in node.names:
                    if _lesson_number(name.name) == lesson:
                        names.add(name.asname or name.name)
            elif isinstance(node, ast.Import):
                for name in node.names:
                    prefix, _, last = name.name.rpartition(".")
                    if prefix in CHECKER_IMPORTS and _lesson_number(last) == lesson:
                        names.add(name.asname or name.name)
    return names


def _checkers(lesson):
    """checker function name -> exercise title, for the lesson."""
    module = importlib.import_module(f"{CHECKER_PACKAGE}.lesson{lesson}")
    return {name: value.title for name, value in vars(module).items() if callable(value) and getattr(value, "title", None)}


def checker_statements(notebook, lesson, names=None):
    """[(cell index, statement as normalised source, [exercise titles it calls])] of every statement calling a checker."""
    checkers = _checkers(lesson)
    names = aliases(notebook, lesson) if names is None else names
    found = []
    for index, source in _code_cells(notebook):
        tree = _python(source)
        if tree is None:
            continue
        for statement in tree.body:
            titles = [
                checkers[node.func.attr] for node in ast.walk(statement)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and _dotted(node.func.value) in names and node.func.attr in checkers
            ]
            if titles:
                found.append((index, ast.unparse(statement), titles))
    return found


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
          ast.GeneratorExp)


def _rebinding(notebook, names):
    """Cells that rebind a checker name or assign into the checker modules: [(cell, what)]."""
    simple = {name for name in names if "." not in name}
    found = []

    def visit(node, index, top):
        for child in ast.iter_child_nodes(node):
            # A function, class or comprehension has names of its own: binding `check` there rebinds nothing.
            inner = top and not isinstance(child, SCOPES)
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                declared = {name for each in ast.walk(child) if isinstance(each, ast.Global) for name in each.names}
                for name in sorted(declared & simple):
                    found.append((index, f"declares `global {name}` in a function"))
            if top and isinstance(child, ast.Name) and child.id in simple and isinstance(child.ctx, (ast.Store, ast.Del)):
                found.append((index, f"rebinds `{child.id}`, the name the checkers are called through"))
            if isinstance(child, (ast.Attribute, ast.Subscript)) and isinstance(child.ctx, (ast.Store, ast.Del)):
                target = _dotted(child.value)
                if target and (target in names or target.split(".")[0] in simple or target.startswith(CHECKER_PACKAGE)):
                    found.append((index, f"assigns to `{ast.unparse(child)}`"))
            if top and isinstance(child, (ast.Import, ast.ImportFrom)):
                for alias in child.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    genuine = isinstance(child, ast.ImportFrom) and child.module == CHECKER_PACKAGE or (
                        isinstance(child, ast.Import) and alias.name.startswith(CHECKER_PACKAGE + ".lesson")
                    )
                    if bound in simple and not genuine:
                        found.append((index, f"rebinds `{bound}` by an import"))
            visit(child, index, inner)

    for index, source in _code_cells(notebook):
        tree = _python(source)
        if tree is not None:
            visit(tree, index, True)
    return found


def released_lessons(folder=None):
    """{lesson: the released lesson notebook as JSON}, read now (once per run, before any submission runs)."""
    import json

    folder = Path(folder) if folder else released_folder()
    lessons = {}
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        try:
            lessons.setdefault(path.name[:2], json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return lessons


def vouched_calls(notebook, lesson, released):
    """{(cell index, exercise title): how many released checker calls of it the cell makes}."""
    genuine = None if released is None else {statement for _, statement, _ in checker_statements(released, lesson)}
    calls = {}
    for index, statement, titles in checker_statements(notebook, lesson):
        if genuine is None or statement in genuine:
            for title in titles:
                calls[(index, title)] = calls.get((index, title), 0) + 1
    return calls


def suspicions(notebook, lesson, verdicts, released):
    """Why the row's verdicts cannot be vouched for: a list of short reasons (empty when they can).

    verdicts: [(cell index, exercise title)] in the order they were shown.
    released: the released lesson notebook (JSON), or None when not found.
    """
    reasons = []
    names = aliases(notebook, lesson)
    statements = checker_statements(notebook, lesson, names)
    if released is None:
        reasons.append(f"checker cells not compared: the released lesson {lesson} was not found (--released FOLDER)")
        genuine_statements = None
    else:
        genuine_statements = {statement for _, statement, _ in checker_statements(released, lesson)}
    allowed = {}
    changed = set()
    for index, statement, titles in statements:
        if genuine_statements is not None and statement not in genuine_statements:
            shown = statement if len(statement) <= 80 else statement[:79] + "…"
            reasons.append(f"cell {index + 1} calls a checker in a way the released lesson does not: {shown}")
            changed.update((index, title) for title in titles)
            continue
        for title in titles:
            allowed[(index, title)] = allowed.get((index, title), 0) + 1
    for index, title in verdicts:
        if allowed.get((index, title), 0) > 0:
            allowed[(index, title)] -= 1
        elif (index, title) not in changed:  # a changed call has its reason already
            label = str(title).split(":")[0]
            reasons.append(f"a verdict for {label} came from cell {index + 1}, not from a call of its checker")
    for index, what in _rebinding(notebook, names):
        reasons.append(f"cell {index + 1} {what}")
    return list(dict.fromkeys(reasons))
