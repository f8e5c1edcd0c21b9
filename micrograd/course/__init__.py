"""The course's machinery, apart from the library it teaches: the library never imports it.

- ``lesson01`` ... ``lesson10``: each lesson's checkers.  A lesson imports them as
  ``from micrograd.course import lesson01 as check``, and each exercise cell ends with a call
  such as ``check.slope_at(answer)``.  A checker shows one verdict: ✓ with a short
  confirmation, ✗ with what is wrong and a hint, or "not attempted yet" while the answer is
  still ``...``, so an untouched lesson runs top to bottom.  In a notebook the verdict is
  coloured HTML and carries its data (``Verdict.to_dict()``) for grading; elsewhere it is one
  printed line.  ``exercise_titles(5)`` lists lesson 5's exercises in order.
- ``verdicts``: the verdict objects and the reading of answers every checker shares;
  ``build`` and ``figures``: what the build-it checkers share, and their failure drawings.
- ``yours``: the learner's own code, saved by the ``%%my_micrograd`` cell magic (``magic``)
  and carried to later lessons, with a status line per piece (``status``).
- ``grading``: ``make grade``, which runs submitted notebooks in a sandbox.
- ``source``: ``show_source``, the package's own lines as a lesson quotes them.
"""

from .source import show_source
from .verdicts import Verdict, exercise_titles

__all__ = ["Verdict", "exercise_titles", "show_source"]
