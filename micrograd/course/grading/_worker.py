"""Runs one submitted notebook in a fresh kernel and reports what it showed.

``python -m micrograd.course.grading._worker NOTEBOOK --scratch DIR --lesson NN
--time-limit S --memory BYTES [--alias NAME] [--sandbox] [--carried MY_MICROGRAD_PY]``

The grader starts this in a process of its own.  The worker runs no student
code: it starts a fresh kernel (inside bubblewrap with --sandbox, see
micrograd.course.grading._sandbox), runs the notebook's cells in order with nbclient
(a failing cell does not stop the ones after it), and writes one JSON line per
event to its standard output, a pipe the grader reads as it goes:

- {"event": "started", "kernel_pid": pid, "sandboxed": bool}
- {"event": "verdict", "cell": i, "verdict": {...}}   an application/vnd.micrograd.verdict+json output
- {"event": "error", "cell": i, "ename": ..., "evalue": ...}
- {"event": "patched", "cell": i, "what": [...]}      what the integrity check found replaced after cell i
- {"event": "unchecked", "cell": i, "why": ...}      the integrity check could not run after cell i
- {"event": "flood", "cell": i, "limit": n}          cell i showed more than n verdicts: the rest are dropped
- {"event": "printed", "cell": i, "text": ..., "cut": n}  what cell i printed, up to MAX_PRINTED_CHARS (n cut)
- {"event": "hidden", "result": {...}}              the teacher's hidden checks (micrograd.course.grading.hidden)
- {"event": "timeout", "cell": i}
- {"event": "done", "output_bytes": n, "seconds": t}

That pipe is a copy of the worker's standard output made before anything else
runs (the kernel inherits /dev/null in its place), so the kernel never holds it:
a notebook cannot write an event, and there is no events file for it to find.
The worker cannot be inspected by the kernel either (it is not dumpable, and
under bubblewrap not even visible).

Outputs other than verdicts and errors are counted, and only the first
MAX_PRINTED_CHARS of each cell's text kept (for the student's feedback): a
notebook that prints a gigabyte costs this process one message at a time.

When the worker ends, however it ends, the kernel and everything it started
end too: under bubblewrap they share a PID namespace that dies with the
sandbox, and without it the worker is a child subreaper (orphans of the
kernel become its children) that kills every descendant before it exits.  The
worker itself dies with the grader (PR_SET_PDEATHSIG).
"""

import argparse
import ast
import json
import os
import resource
import signal
import sys
import time
from pathlib import Path

from micrograd.course.verdicts import VERDICT_MIME  # the checkers' own name for it

MAX_VERDICT_BYTES = 16_384  # a verdict is a few hundred bytes; anything bigger is not one
# A lesson's cell shows a verdict or two; past these, the rest are not passed on to the grader.
MAX_VERDICTS_PER_CELL = 50
MAX_VERDICTS = 2000
MAX_ERROR_TEXT = 500
MAX_PRINTED_CHARS = 2000  # of each cell's printed text, for the feedback
AUDIT_TIMEOUT = 10  # seconds for the integrity check between cells

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


def _prctl(option, value):
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def harden(parent_pid):
    """Die with the grader, adopt the kernel's orphans, and keep the kernel out of this process."""
    if not sys.platform.startswith("linux"):
        return
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the grader died before the line above took effect
        os._exit(1)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_DUMPABLE, 0)  # /proc/<worker>/fd and /mem: not for other processes of this user


def kill_descendants():
    """SIGKILL every process below this one, until none is left (orphans come back to us as subreaper)."""
    try:
        import psutil
    except ImportError:
        return
    me = psutil.Process()
    for _ in range(200):
        family = me.children(recursive=True)
        if not family:
            break
        for member in family:
            try:
                member.kill()
            except psutil.Error:
                pass
        for member in family:
            try:
                member.wait(timeout=0.05)  # reaps our own children; others are reaped by their parents
            except (psutil.Error, psutil.TimeoutExpired):
                pass
    # Reap anything adopted (we are a subreaper) that exited meanwhile.
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break


class Events:
    """JSON lines to the grader, on a descriptor the kernel does not inherit."""

    def __init__(self, fd):
        self.file = os.fdopen(fd, "w", encoding="utf-8", buffering=1)

    def __call__(self, event, **fields):
        try:
            self.file.write(json.dumps({"event": event, **fields}) + "\n")
            self.file.flush()
        except (BrokenPipeError, OSError):  # the grader is gone: nothing to report to
            kill_descendants()
            os._exit(1)


def grading_client(notebook, events, kernel_dir, runtime, sandboxed, folder):
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient
    from nbformat import v4

    class GradingClient(NotebookClient):
        output_bytes = 0

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.verdicts = {}  # cell index -> verdicts shown
            self.reported = 0  # verdicts passed on to the grader
            self.flooded = set()
            self.printed = {}  # cell index -> [text kept, characters cut]

        def keep(self, cell_index, text):
            kept = self.printed.setdefault(cell_index, ["", 0])
            room = MAX_PRINTED_CHARS - len(kept[0])
            kept[0] += text[:max(room, 0)]
            kept[1] += max(len(text) - max(room, 0), 0)

        def output(self, outs, msg, display_id, cell_index):
            content = msg["content"]
            kind = msg["msg_type"]
            size = len(content.get("text", "")) + sum(len(str(value)) for value in content.get("data", {}).values())
            self.output_bytes += size
            if kind in ("display_data", "execute_result"):
                verdict = content.get("data", {}).get(VERDICT_MIME)
                if verdict is not None and len(json.dumps(verdict)) <= MAX_VERDICT_BYTES:
                    self.verdicts[cell_index] = self.verdicts.get(cell_index, 0) + 1
                    if self.verdicts[cell_index] <= MAX_VERDICTS_PER_CELL and self.reported < MAX_VERDICTS:
                        self.reported += 1
                        events("verdict", cell=cell_index, verdict=verdict)
                    elif cell_index not in self.flooded:
                        self.flooded.add(cell_index)
                        events("flood", cell=cell_index, limit=MAX_VERDICTS_PER_CELL)
                elif isinstance(content.get("data", {}).get("text/plain"), str):
                    self.keep(cell_index, content["data"]["text/plain"] + "\n")
                placeholder = v4.new_output("display_data", data={})
            elif kind == "error":
                self.keep(cell_index, f"{content.get('ename', '')}: {content.get('evalue', '')}"[:MAX_ERROR_TEXT] + "\n")
                events(
                    "error",
                    cell=cell_index,
                    ename=str(content.get("ename", ""))[:MAX_ERROR_TEXT],
                    evalue=str(content.get("evalue", ""))[:MAX_ERROR_TEXT],
                )
                placeholder = v4.new_output("error", ename="", evalue="", traceback=[])
            else:
                if isinstance(content.get("text"), str):
                    self.keep(cell_index, content["text"])
                placeholder = v4.new_output("stream", name="stdout", text="")
            # A placeholder keeps nbclient's display-id bookkeeping in step
            # without keeping what the notebook printed.
            outs.append(placeholder)
            return placeholder

    manager = AsyncKernelManager(  # nbclient polls its channels asynchronously: a blocking manager would never time out
        kernel_name="micrograd-grading",
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dir)]),
        # Under bubblewrap the kernel has no network, not even the host's
        # loopback: it talks to the worker over Unix sockets in `runtime`.
        transport="ipc" if sandboxed else "tcp",
        connection_file=str(Path(runtime) / "kernel.json"),
    )
    return GradingClient(
        notebook,
        km=manager,
        allow_errors=True,
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},  # the kernel's working folder (bwrap's own, under bubblewrap)
        startup_timeout=120,
    )


def write_kernelspec(folder, memory, cpu_seconds, prefix, carried=None):
    """A kernelspec folder whose one kernel is micrograd.course.grading._kernel with these limits (and the
    student's my_micrograd.py, where the kernel reads it from, to start with in its working folder)."""
    spec = Path(folder) / "micrograd-grading"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [
            *prefix, sys.executable, "-m", "micrograd.course.grading._kernel",
            "--memory", str(memory), "--cpu", str(cpu_seconds), *(["--carried", str(carried)] if carried else []),
            "-f", "{connection_file}",
        ],
        "display_name": "micrograd grading",
        "language": "python",
    }))
    return Path(folder)


def audit(client, lesson, alias):
    """The kernel's fingerprint (micrograd.course.grading._audit), or raise RuntimeError saying why there is none."""
    from jupyter_core.utils import run_sync

    expression = f"__import__('micrograd.course.grading._audit', fromlist=['_']).fingerprint({lesson!r}, {alias!r})"

    async def ask():
        msg_id = client.kc.execute("", silent=True, store_history=False, user_expressions={"marks": expression})
        deadline = time.monotonic() + AUDIT_TIMEOUT
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError("the kernel did not answer")
            try:
                reply = await client.kc.get_shell_msg(timeout=remaining)
            except Exception:  # queue.Empty, from the channel
                raise RuntimeError("the kernel did not answer") from None
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                return reply["content"]

    content = run_sync(ask)()
    result = content.get("user_expressions", {}).get("marks", {})
    if result.get("status") != "ok":
        raise RuntimeError(f"{result.get('ename', 'error')}: {result.get('evalue', '')}"[:MAX_ERROR_TEXT])
    try:
        return json.loads(ast.literal_eval(result["data"]["text/plain"]))
    except (KeyError, ValueError, SyntaxError, TypeError) as error:
        raise RuntimeError(f"an answer that is not a fingerprint ({type(error).__name__})") from None


def compare(baseline, marks):
    """What differs from the first fingerprint: replaced objects and a rebound checker name."""
    changed = []
    for key, value in baseline.items():
        if key.startswith("the name "):
            continue
        if marks.get(key) != value:
            changed.append(key)
    for key, value in marks.items():
        if key.startswith("the name ") and value.startswith("something else"):
            changed.append(f"{key} (now {value})")
    return changed


def run(notebook_path, events, *, scratch, runtime, lesson, alias, time_limit, memory, sandboxed, hidden=None, carried=None):
    # nbformat imports jsonschema, which builds grammars for IRI formats from
    # rfc3987_syntax when that is installed: seconds of CPU in every worker, for a
    # format no notebook field has.  Without it, jsonschema skips that format.
    sys.modules.setdefault("rfc3987_syntax", None)
    import nbformat
    from nbclient.exceptions import CellTimeoutError

    from . import _sandbox

    notebook = nbformat.read(notebook_path, as_version=4)
    started = time.monotonic()
    scratch = Path(scratch)
    runtime = Path(runtime)  # the kernel's connection file and sockets: the only host folder it can write
    if sandboxed:
        prefix = _sandbox.bwrap_command(runtime, carried=carried)
        carried = _sandbox.CARRIED_IN_SANDBOX if carried else None  # where the kernel sees it
        env = {}  # bwrap clears the environment and sets the kernel's own
    else:
        home = scratch / "home"
        home.mkdir(mode=0o700)
        prefix = []
        env = _sandbox.kernel_environment(home)
    kernel_dir = write_kernelspec(scratch / "kernelspec", memory, int(time_limit * 2) + 30, prefix, carried)
    client = grading_client(notebook, events, kernel_dir, runtime, sandboxed, runtime if sandboxed else home)
    log = open(scratch / "kernel.log", "wb")
    kernel_pid = None
    try:
        with client.setup_kernel(env={**env, "PATH": env.get("PATH", os.environ.get("PATH", ""))}, stdout=log, stderr=log,
                                 stdin=__import__("subprocess").DEVNULL):
            kernel_pid = client.km.provisioner.pid
            events("started", kernel_pid=kernel_pid, sandboxed=sandboxed)
            try:
                baseline = audit(client, lesson, alias)
            except RuntimeError as error:
                baseline = None
                events("unchecked", cell=-1, why=str(error))
            deadline = time.monotonic() + time_limit
            reported = set()
            for index, cell in enumerate(notebook.cells):
                if cell.cell_type != "code":
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    events("timeout", cell=index)
                    break
                client.timeout = max(1, int(remaining + 0.999))
                try:
                    client.execute_cell(cell, index)
                except CellTimeoutError:
                    events("timeout", cell=index)
                    # A kernel stuck in a loop would make nbclient's polite
                    # shutdown wait: kill it (it leads its own process group).
                    os.killpg(kernel_pid, signal.SIGKILL)
                    kill_descendants()
                    os._exit(0)
                except Exception as error:  # the kernel died (out of memory, killed, ...)
                    events("error", cell=index, ename=type(error).__name__, evalue=str(error)[:MAX_ERROR_TEXT])
                    break
                if index in client.printed:
                    text, cut = client.printed.pop(index)
                    events("printed", cell=index, text=text, cut=cut)
                if baseline is not None:
                    try:
                        changed = [key for key in compare(baseline, audit(client, lesson, alias)) if key not in reported]
                    except RuntimeError as error:
                        events("unchecked", cell=index, why=str(error))
                        baseline = None  # one report is enough
                        continue
                    if changed:
                        reported.update(changed)
                        events("patched", cell=index, what=changed)
            if hidden:  # after the last cell: the checks were nowhere the notebook could see them until now
                from . import hidden as hidden_checks

                events("hidden", result=hidden_checks.run_in_kernel(client, hidden))
            events("done", output_bytes=client.output_bytes, seconds=round(time.monotonic() - started, 2))
            # Under bubblewrap the sandbox ends with its first process; without
            # it, the kernel's process group and whatever left it go here.
            try:
                os.killpg(kernel_pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    finally:
        kill_descendants()
        log.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("--scratch", required=True, help="this notebook's folder of the grader's (removed after)")
    parser.add_argument("--runtime", required=True,
                        help="an empty folder for the kernel's connection file and sockets, with a short path")
    parser.add_argument("--lesson", required=True)
    parser.add_argument("--alias", default=None, help="the name the notebook calls the lesson's checkers by")
    parser.add_argument("--time-limit", type=float, required=True)
    parser.add_argument("--memory", type=int, required=True)
    parser.add_argument("--sandbox", action="store_true", help="run the kernel under bubblewrap")
    parser.add_argument("--carried", default=None, help="the student's my_micrograd.py, for the kernel's working folder")
    parser.add_argument("--parent", type=int, required=True, help="the grader's PID")
    parser.add_argument("--hidden", default=None, help="a file of the teacher's hidden checks, run after the last cell")
    args = parser.parse_args(argv)
    harden(args.parent)
    # The events pipe: a copy of stdout that children do not inherit (os.dup
    # makes it non-inheritable); stdout itself becomes /dev/null.
    events = Events(os.dup(1))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    # This process decodes one of the kernel's messages at a time: room for the
    # biggest the limited kernel can send, and no more.  (Set here rather than by
    # the grader before exec, which is unsafe when it runs notebooks in threads.)
    worker_memory = 2 * args.memory + 1024**3
    resource.setrlimit(resource.RLIMIT_AS, (worker_memory, worker_memory))
    run(args.notebook, events, scratch=args.scratch, runtime=args.runtime, lesson=args.lesson, alias=args.alias,
        time_limit=args.time_limit, memory=args.memory, sandboxed=args.sandbox, carried=args.carried,
        hidden=Path(args.hidden).read_text(encoding="utf-8") if args.hidden else None)


if __name__ == "__main__":
    main()
