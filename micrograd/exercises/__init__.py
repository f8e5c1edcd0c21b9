"""Self-checking exercises for the lessons, one module per lesson.

A lesson imports its checkers, ``from micrograd.exercises import lesson01 as
check``, and each exercise cell ends with a call such as
``check.slope_at(answer)``.  A checker shows one verdict: ✓ with a short
confirmation, ✗ with what is wrong and a hint, or "not attempted yet" while
the answer is still ``...``, so an untouched lesson runs top to bottom.  In
a notebook the verdict is coloured HTML and carries its data
(``Verdict.to_dict()``) for grading; elsewhere it is one printed line.

``exercise_titles(5)`` lists lesson 5's exercises in order.
"""

from .checking import Verdict, exercise_titles

__all__ = ["Verdict", "exercise_titles"]
