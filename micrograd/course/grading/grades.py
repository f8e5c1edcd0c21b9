"""A grading run's rows, its limits, and whether it runs in a sandbox."""

from dataclasses import dataclass, field

from ..verdicts import MARKS

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
    # For the gradebook and the feedback (micrograd.course.grading.roster, points, feedback):
    student: str = ""  # the student's id, "" when none was found
    claimed: str = ""  # the id the notebook's metadata names (metadata.micrograd.student), if any
    student_from: str = ""  # where the id came from ("roster", "file name", "metadata"), or "none: why"
    score: float = 0.0
    max_score: float = 0.0
    printed: dict = field(default_factory=dict)  # cell index -> what the cell printed (cut to a limit)
    cells: dict = field(default_factory=dict)  # exercise title -> index of the cell that checks it
    messages: dict = field(default_factory=dict)  # exercise title -> the check's message, in full

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
