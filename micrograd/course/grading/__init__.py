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
``from micrograd.course.lessons import lessonNN`` and the lessons of the verdicts
shown), never from the file name.
"""

from .grades import DEFAULT_MEMORY, DEFAULT_TIME_LIMIT, MINIMUM_MEMORY, Grade, Grades, sandbox_status
from .report import format_table, sandbox_line, write_csv
from .runner import find_notebooks, grade_folder, grade_notebook
from .snapshot import lessons_imported

__all__ = [
    "Grade", "Grades", "grade_notebook", "grade_folder", "find_notebooks", "format_table", "write_csv", "sandbox_status",
    "sandbox_line", "lessons_imported", "DEFAULT_TIME_LIMIT", "DEFAULT_MEMORY", "MINIMUM_MEMORY",
]
