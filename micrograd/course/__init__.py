"""The course's machinery, apart from the library it teaches: the library never imports it.

- ``lessons``: each lesson's checkers.  A lesson imports them as
  ``from micrograd.course.lessons import lesson01 as check``, and each exercise cell ends with a call
  such as ``check.slope_at(answer)``.  A checker shows one verdict: ✓ with a short
  confirmation, ✗ with what is wrong and a hint, or "not attempted yet" while the answer is
  still ``...``, so an untouched lesson runs top to bottom.  In a notebook the verdict is
  coloured HTML and carries its data (``Verdict.to_dict()``) for grading; elsewhere it is one
  printed line.  ``exercise_titles(5)`` lists lesson 5's exercises in order.
- ``verdicts``: the verdict objects and the reading of answers (``answer_numbers``) every checker shares;
  ``figures``: the drawing under a failed build-it check.
- ``carry``: the learner's own code, saved by the ``%%my_micrograd`` cell magic (``carry.magic``)
  and carried to later lessons (``carry.yours``).
- ``browser``: the IPython extension of the browser app's kernel, and its stand-ins.
- ``grading``: ``make grade``, which runs submitted notebooks in a sandbox.
- ``source``: ``show_source``, the package's own lines as a lesson quotes them.
"""

from .source import show_source
from .verdicts import Verdict, exercise_titles

__all__ = ["Verdict", "exercise_titles", "show_source"]

# A lesson saved before the checkers moved to lessons/ and the carried code to carry/ says
# ``from micrograd.course import lesson04 as check`` or ``... import yours``: it still runs.
_MOVED = {**{f"lesson{n:02d}": f"lessons.lesson{n:02d}" for n in range(1, 12)}, "yours": "carry.yours"}


def __getattr__(name):
    if name in _MOVED:
        import importlib

        return importlib.import_module(f"{__name__}.{_MOVED[name]}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
