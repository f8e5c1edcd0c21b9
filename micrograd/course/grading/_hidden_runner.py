"""Kernel side of the hidden checks: sent as text by the worker after the notebook's last cell, never imported.

micrograd.course.grading.hidden describes the format and what this guards
against.  The worker runs this file's text, then
``_micrograd_hidden_run(SOURCE, TOKEN)``, in the kernel, in one silent request;
the returned text (the repr of a dict: token, results, refused) is read from
that request's reply.
"""


def _micrograd_hidden_run(source, token):
    import sys
    import threading
    import types

    from IPython import get_ipython

    from micrograd.course.verdicts import MARKS

    def reply(results=(), refused=""):
        return repr({"token": token, "results": list(results), "refused": refused})

    # Anything of the notebook's still running could watch or change the checks as they run.
    # The kernel's own threads are the kernel's classes running the kernel's methods; a notebook's run its code.
    def of_the_notebook(thread):
        target = getattr(thread, "_target", None)
        return type(thread).__module__ == "__main__" or (
            target is not None and getattr(target, "__module__", None) in ("__main__", None))

    others = [thread for thread in threading.enumerate() if thread is not threading.current_thread() and of_the_notebook(thread)]
    if others:
        return reply(refused=f"the notebook left {len(others)} thread(s) of its own running")
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return reply(refused="the notebook left a trace or profile function set")

    names = types.MappingProxyType(dict(get_ipython().user_ns))
    module = types.ModuleType("micrograd_hidden_checks")
    exec(compile(source, "<hidden checks>", "exec"), vars(module))
    checks = [(name, value) for name, value in vars(module).items()
              if name.startswith("check_") and isinstance(value, types.FunctionType)]
    results = []
    for name, check in checks:
        title = (check.__doc__ or "").strip().splitlines()[0].strip()
        before = {key: id(value) for key, value in vars(module).items()}
        code = check.__code__
        try:
            outcome = check(names)
        except NotImplementedError:
            outcome = ("not attempted", "not attempted yet: fill in the code and run the notebook again")
        except BaseException as error:  # the student's code, called by the check, fails: say what, not its text
            outcome = ("failed", f"the hidden check stopped with {type(error).__name__}")
        sys.settrace(None)
        sys.setprofile(None)
        tampered = check.__code__ is not code or {key: id(value) for key, value in vars(module).items()} != before
        if type(outcome) is not tuple or len(outcome) < 2 or type(outcome[0]) is not str or outcome[0] not in MARKS \
                or type(outcome[1]) is not str:
            outcome = ("failed", "the hidden check gave no verdict (it returned something else)")
        if tampered:
            outcome = ("failed", "not counted: something changed the hidden check while it ran")
        results.append({"title": title, "status": outcome[0], "message": outcome[1][:300], "tampered": tampered})
    return reply(results)
