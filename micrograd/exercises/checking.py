"""What every lesson's checkers share: the verdict and how it is printed."""

import functools
import math
import numbers
from dataclasses import dataclass

__all__ = ["Verdict", "checker", "close", "not_attempted", "passed", "failed", "TODO"]

TODO = ...  # what an exercise's answer is until the learner fills it in


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: passed, or not, or not attempted yet."""

    exercise: str
    status: str  # "passed", "failed" or "not attempted"
    message: str

    @property
    def passed(self):
        return self.status == "passed"

    def _ipython_display_(self):
        pass  # the checker has printed the verdict already; don't show it twice

    def __str__(self):
        mark = {"passed": "✓", "failed": "✗", "not attempted": "…"}[self.status]
        return f"{mark} {self.exercise}: {self.message}"


def passed(message="correct"):
    return ("passed", message)


def failed(message):
    return ("failed", message)


def not_attempted(message="not attempted yet: replace ... with your answer and run the cell again"):
    return ("not attempted", message)


def checker(title):
    """Turn ``f(answer) -> passed(...)/failed(...)`` into a printing checker.

    The wrapped checker prints its verdict and returns it.  An answer that is
    still ``...`` (or a function that raises NotImplementedError) counts as
    not attempted; any other exception in the learner's code is reported as
    a failure with its message rather than a traceback.
    """

    def wrap(check):
        @functools.wraps(check)
        def run(*answers):
            if any(answer is TODO for answer in answers):
                outcome = not_attempted()
            else:
                try:
                    outcome = check(*answers)
                except NotImplementedError:
                    outcome = not_attempted("not attempted yet: fill in the function and run the cell again")
                except Exception as error:  # the learner's code failed: say how, don't crash the lesson
                    outcome = failed(f"your code raised {type(error).__name__}: {error}")
            verdict = Verdict(title, *outcome)
            print(verdict)
            return verdict

        return run

    return wrap


def close(answer, expected, tol=1e-6):
    """Is a numeric answer within tol (absolute or relative) of expected?"""
    answer = getattr(answer, "data", answer)
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        return False
    return math.isclose(answer, expected, rel_tol=tol, abs_tol=tol)
