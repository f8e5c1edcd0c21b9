"""The learner's own code, carried from lesson to lesson.

``yours`` is what a lesson imports (``from micrograd.course.carry import yours``): the pieces a learner
wrote, checked, or the worked answer (``answers``).  The ``%%my_micrograd`` cell magic (``magic``) saves a
build-it cell's code in ``my_micrograd.py`` (``saved``, its earlier versions in ``history``, brought back by
``restore``); ``templates`` knows a cell that still shows its template, ``pieces`` what each piece is and
how it is checked (lesson 11's in ``gpt_pieces``), ``status`` the line each piece gets, ``stale`` what a
cell's last run left from before, ``cell_code`` and ``name_errors`` what a cell needs before it runs.
"""
