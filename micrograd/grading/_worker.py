"""Runs one submitted notebook in a fresh kernel and reports what it showed.

``python -m micrograd.grading._worker NOTEBOOK EVENTS --time-limit S --memory BYTES``

The grader starts this in a process of its own, in a temporary folder holding
a copy of the notebook.  It starts a fresh kernel through a kernelspec of its
own (micrograd.grading._kernel, which limits the kernel's memory), runs the
cells in order with nbclient, a failing cell not stopping the ones after it,
and appends one JSON line per event to EVENTS as it happens, so that what a
notebook showed before it was stopped still counts:

- {"event": "started", "kernel_pid": pid}
- {"event": "verdict", "cell": i, "verdict": {...}}   an application/vnd.micrograd.verdict+json output
- {"event": "error", "cell": i, "ename": ..., "evalue": ...}
- {"event": "timeout", "cell": i}
- {"event": "done", "output_bytes": n, "seconds": t}

Outputs other than verdicts and errors are counted and dropped, never kept:
a notebook that prints a gigabyte costs this process one message at a time.
"""

import argparse
import json
import os
import resource
import signal
import sys
import time
from pathlib import Path

from micrograd.exercises.checking import VERDICT_MIME  # the checkers' own name for it

MAX_VERDICT_BYTES = 16_384  # a verdict is a few hundred bytes; anything bigger is not one
MAX_ERROR_TEXT = 500


class Events:
    def __init__(self, path):
        self.file = open(path, "a", encoding="utf-8")

    def __call__(self, event, **fields):
        self.file.write(json.dumps({"event": event, **fields}) + "\n")
        self.file.flush()


def grading_client(notebook, folder, events, kernel_dir):
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient
    from nbformat import v4

    class GradingClient(NotebookClient):
        output_bytes = 0

        def output(self, outs, msg, display_id, cell_index):
            content = msg["content"]
            kind = msg["msg_type"]
            size = len(content.get("text", "")) + sum(len(str(value)) for value in content.get("data", {}).values())
            self.output_bytes += size
            if kind in ("display_data", "execute_result"):
                verdict = content.get("data", {}).get(VERDICT_MIME)
                if verdict is not None and len(json.dumps(verdict)) <= MAX_VERDICT_BYTES:
                    events("verdict", cell=cell_index, verdict=verdict)
                placeholder = v4.new_output("display_data", data={})
            elif kind == "error":
                events(
                    "error",
                    cell=cell_index,
                    ename=str(content.get("ename", ""))[:MAX_ERROR_TEXT],
                    evalue=str(content.get("evalue", ""))[:MAX_ERROR_TEXT],
                )
                placeholder = v4.new_output("error", ename="", evalue="", traceback=[])
            else:
                placeholder = v4.new_output("stream", name="stdout", text="")
            # A placeholder keeps nbclient's display-id bookkeeping in step
            # without keeping what the notebook printed.
            outs.append(placeholder)
            return placeholder

    manager = AsyncKernelManager(  # nbclient polls its channels asynchronously: a blocking manager would never time out
        kernel_name="micrograd-grading",
        kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dir)]),
    )
    return GradingClient(
        notebook,
        km=manager,
        allow_errors=True,
        record_timing=False,
        # The kernel runs in the folder of the notebook's temporary copy.
        resources={"metadata": {"path": str(folder)}},
        startup_timeout=120,
    )


def write_kernelspec(folder, memory, cpu_seconds):
    """A kernelspec folder whose one kernel is micrograd.grading._kernel with these limits."""
    spec = Path(folder) / "micrograd-grading"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [
            sys.executable, "-m", "micrograd.grading._kernel",
            "--memory", str(memory), "--cpu", str(cpu_seconds),
            "-f", "{connection_file}",
        ],
        "display_name": "micrograd grading",
        "language": "python",
    }))
    return Path(folder)


def run(notebook_path, events_path, time_limit, memory):
    import nbformat
    from nbclient.exceptions import CellTimeoutError

    events = Events(events_path)
    notebook = nbformat.read(notebook_path, as_version=4)
    started = time.monotonic()
    # The kernelspec, like the connection file and temporary files (the grader
    # points JUPYTER_RUNTIME_DIR and TMPDIR there), lives in the grader's scratch
    # folder for this notebook, which it removes however the run ended.
    kernel_dir = write_kernelspec(Path(events_path).parent / "kernelspec", memory, cpu_seconds=int(time_limit * 2) + 30)
    client = grading_client(notebook, Path(notebook_path).parent, events, kernel_dir)
    with client.setup_kernel():
        kernel_pid = client.km.provisioner.pid
        events("started", kernel_pid=kernel_pid)
        deadline = time.monotonic() + time_limit
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
                os._exit(0)
            except Exception as error:  # the kernel died (out of memory, killed, ...)
                events("error", cell=index, ename=type(error).__name__, evalue=str(error)[:MAX_ERROR_TEXT])
                break
    events("done", output_bytes=client.output_bytes, seconds=round(time.monotonic() - started, 2))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebook")
    parser.add_argument("events")
    parser.add_argument("--time-limit", type=float, required=True)
    parser.add_argument("--memory", type=int, required=True)
    args = parser.parse_args(argv)
    # This process decodes one of the kernel's messages at a time: room for the
    # biggest the limited kernel can send, and no more.  (Set here rather than by
    # the grader before exec, which is unsafe when it runs notebooks in threads.)
    worker_memory = 2 * args.memory + 1024**3
    resource.setrlimit(resource.RLIMIT_AS, (worker_memory, worker_memory))
    run(args.notebook, args.events, args.time_limit, args.memory)


if __name__ == "__main__":
    main()
