"""Self-checking exercises for the lessons, one module per lesson.

A lesson imports its checker, ``from micrograd.exercises import lesson01 as
check``, and each exercise cell ends with a call such as
``check.slope_at(answer)``.  A checker prints one line: ✓ with a short
confirmation, ✗ with what is wrong and a hint, or "not attempted yet" while
the answer is still ``...``, so an untouched lesson runs top to bottom.
"""
