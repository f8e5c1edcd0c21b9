"""The teacher's hidden checks: checks of a lesson that are not in the lesson, kept where students never look.

Format: a folder (``--hidden FOLDER``) with one Python file per lesson,
``lesson01.py``, ``lesson02.py``...  Each top-level function whose name starts
with ``check_`` is one check.  Its docstring's first line is its title (the
exercise's name in the CSV, the points file and the feedback), unique within
the lesson.  It receives the student's names after the last cell (a read-only
mapping) and returns what a lesson's checker returns::

    from micrograd.course.verdicts import as_number, failed, not_attempted, passed

    def check_slope_of_a_cube(names):
        \"\"\"Hidden 1: slope() on a function the lesson never shows\"\"\"
        slope = names.get("slope", ...)
        if slope is ... or slope is None:
            return not_attempted("there is no slope function to check")
        measured = as_number(slope(lambda x: x**3, 2.0))
        if measured is not None and abs(measured - 12) < 1e-3:
            return passed("slope works on x**3 at 2 too")
        return failed(f"slope(x**3, 2) should be 12, yours gives {measured}")

A check that raises NotImplementedError counts as not attempted; any other
exception fails it, saying only which exception (never its text, which the
student's code chose).  Points: the same points file as the lesson's exercises,
by title (micrograd.course.grading.points).

How they stay hidden and untouched (see _hidden_runner for the kernel's side):

- the folder is never in the sandbox: the grader copies a lesson's file into
  the worker's own folder, and the worker sends its text to the kernel only
  after the notebook's last cell has run (and been audited), so no cell can
  read it, search for it, or prepare for its names;
- the code that runs them comes with them, as text (the package holds no
  module a notebook could import and patch in advance), and reports through
  the reply to the worker's own request, with a token made for this run:
  a verdict a notebook displays, prints or writes is never a hidden verdict;
- they run in a namespace of their own; a check whose names change while it
  runs (a student's function reaching up into its caller) is failed and the
  row marked suspect; a notebook that leaves threads or a trace function
  running gets no hidden verdicts at all, and the row says why;
- what the notebook patched before (the checkers' helpers, math, the
  builtins) the worker's audit reports, as for the lesson's own checkers.

All of this runs in the student's process, as the lesson's checkers do: it
stops what a student would try, not one who studies the grader.
"""

import ast
import secrets
import time
from pathlib import Path

from micrograd.course.verdicts import MARKS

HIDDEN_TIMEOUT = 60  # seconds for all of a lesson's hidden checks, after the notebook's own time limit
MAX_MESSAGE = 300  # characters of a hidden check's message kept


class HiddenChecksError(ValueError):
    """A hidden checks file the grader cannot use; the message says what to fix."""


def load(folder):
    """{lesson: (path, [titles])} of the hidden checks folder; raises HiddenChecksError for a bad file."""
    from micrograd.course import exercise_titles

    folder = Path(folder)
    if not folder.is_dir():
        raise HiddenChecksError(f"{folder} is not a folder: give the folder of hidden checks (lesson01.py, ...)")
    found = {}
    for path in sorted(folder.glob("*.py")):
        if not path.stem.startswith("lesson") or not path.stem[6:].isdigit():
            raise HiddenChecksError(f"{path}: name a hidden checks file after its lesson, lesson01.py to lesson11.py")
        lesson = f"{int(path.stem[6:]):02d}"
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        except (SyntaxError, UnicodeDecodeError) as error:
            raise HiddenChecksError(f"{path} is not valid Python: {error}") from None
        titles = []
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("check_"):
                doc = ast.get_docstring(node)
                if not doc:
                    raise HiddenChecksError(f"{path}: {node.name} has no docstring; its first line is the check's title")
                title = doc.strip().splitlines()[0].strip()
                if title in titles or title in exercise_titles(lesson):
                    raise HiddenChecksError(f"{path}: two checks of lesson {lesson} are titled {title!r}; give each its own")
                titles.append(title)
        if not titles:
            raise HiddenChecksError(f"{path} has no check: define functions named check_... (see grading/hidden.py)")
        found[lesson] = (path, titles)
    return found


def kernel_request(source, token):
    """The code the worker asks the kernel to run, and the expression whose value is the verdicts."""
    runner = (Path(__file__).with_name("_hidden_runner.py")).read_text(encoding="utf-8")
    result = f"_micrograd_hidden_{token}"
    code = f"{runner}\n{result} = _micrograd_hidden_run({source!r}, {token!r})\ndel _micrograd_hidden_run\n"
    return code, result


def run_in_kernel(client, source):
    """Worker side: run the checks in the kernel after the last cell; {"token", "results", "refused"} or {"error"}."""
    from jupyter_core.utils import run_sync

    token = secrets.token_hex(16)
    code, expression = kernel_request(source, token)

    async def ask():
        msg_id = client.kc.execute(code, silent=True, store_history=False, user_expressions={"hidden": expression})
        deadline = time.monotonic() + HIDDEN_TIMEOUT
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                reply = await client.kc.get_shell_msg(timeout=remaining)
            except Exception:  # queue.Empty, from the channel
                return None
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                return reply["content"]

    content = run_sync(ask)()
    if content is None:
        return {"error": f"the hidden checks did not finish within {HIDDEN_TIMEOUT} s"}
    value = content.get("user_expressions", {}).get("hidden", {})
    if content.get("status") != "ok" or value.get("status") != "ok":
        what = content if content.get("status") != "ok" else value
        return {"error": f"the hidden checks could not run ({str(what.get('ename', 'error'))[:100]})"}
    try:
        # repr of plain dicts, lists and strings both ways: nothing a notebook can have patched (json can be)
        result = ast.literal_eval(ast.literal_eval(value["data"]["text/plain"]))
    except (KeyError, ValueError, SyntaxError, TypeError):
        return {"error": "the hidden checks gave an answer that is not theirs"}
    if not isinstance(result, dict) or result.get("token") != token:
        return {"error": "the hidden checks gave an answer that is not theirs"}
    return result


def apply(grade, event, titles):
    """Put a "hidden" event's verdicts into the grade: results, messages, suspect reasons."""
    result = (event or {}).get("result") or {"error": "the hidden checks did not run (the notebook's run ended first)"}
    verdicts = {}
    for item in result.get("results", []) if isinstance(result.get("results"), list) else []:
        if isinstance(item, dict) and item.get("title") in titles and item.get("status") in MARKS:
            verdicts[item["title"]] = item
            if item.get("tampered"):
                grade.suspect.append(f"{item['title'].split(':')[0]}: the hidden check's names changed while it ran")
    why = result.get("error") or result.get("refused")
    if result.get("refused"):
        grade.suspect.append(f"hidden checks not run: {result['refused']}")
    for title in titles:
        item = verdicts.get(title)
        if item is None:
            grade.results[title] = "no verdict"
            grade.messages[title] = why or "the hidden check gave no verdict"
            continue
        message = str(item.get("message", ""))[:MAX_MESSAGE]
        grade.results[title] = f"failed: {message}" if item["status"] == "failed" else item["status"]
        grade.messages[title] = message
