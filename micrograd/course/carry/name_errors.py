"""A NameError in a lesson's cell, with one sentence under it that says what to run first.

After a restart, a learner who comes back for a lesson's second half runs a cell whose names come from
cells above that the new kernel has not run: a bare ``NameError: name 'random' is not defined`` says
nothing of that.  ``explain_name_errors(shell)`` has IPython show such an error as it always does, with
the sentence after it.  ``magic.load_ipython_extension`` calls it, so every kernel of the environment
has it from its start (``python -m micrograd.course.carry.magic --autoload``), after a restart too.
"""

import builtins

__all__ = ["explain_name_errors", "what_to_run_first"]


def what_to_run_first(name):
    """The sentence shown under a NameError for name."""
    return (f"This kernel has no {name}: if a cell above makes it, this kernel has not run that cell yet (after a "
            f"restart, say), so run Run > Run All Above, then this cell again.")


def _with_what_to_run_first(shell, etype, value, tb, tb_offset=None):
    name = getattr(value, "name", None)
    if isinstance(name, str) and not hasattr(builtins, name):
        note = what_to_run_first(name)
        if note not in getattr(value, "__notes__", ()):
            value.add_note(note)  # shown by IPython's traceback, after the error's own line
    # IPython runs this handler in place of showing the traceback (and ignores what it returns): show it.
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)


def explain_name_errors(shell):
    """Have shell show each NameError with what to run first; running it again changes nothing, and a handler
    someone else set for other errors is left alone."""
    if not shell.custom_exceptions:
        shell.set_custom_exc((NameError,), _with_what_to_run_first)
