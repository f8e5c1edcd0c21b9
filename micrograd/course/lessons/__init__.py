"""Each lesson's checkers: ``lesson01`` ... ``lesson11``, imported by a lesson as
``from micrograd.course.lessons import lesson04 as check``.

A lesson whose checks need several modules is a package of its own (``lesson02``, ``lesson03``,
``lesson04``, ``lesson11``): its ``__init__`` holds the checkers a lesson calls, its other modules what
they judge with.  ``build``: what the build-it checkers of lessons 2 to 6 share.
"""
