"""The grading kernel: ipykernel, started with resource limits on its own process.

The grader's kernelspec runs ``python -m micrograd.course.grading._kernel --memory BYTES
--cpu SECONDS -f CONNECTION_FILE`` (inside bubblewrap where it can).  The limits
are set here, in the process that then becomes the kernel (os.execv keeps the
process and its limits), so they bind the code a student wrote and everything it
starts, not the grader:

- RLIMIT_AS: address space; an allocation past it raises MemoryError in the cell.
- RLIMIT_CPU: a backstop should the grader die and leave the kernel spinning
  (the grader's own wall-clock limit is what normally stops a notebook).
- RLIMIT_FSIZE: no file the notebook writes grows past 64 MB.
- RLIMIT_CORE: no core dumps.

With ``--carried FILE`` the student's my_micrograd.py is copied into the kernel's working folder first, where
the lessons read it, as beside the notebook in JupyterLab.

IPython keeps no history of what the kernel runs (HistoryManager.hist_file is
":memory:"), so no student's code lands in a history.sqlite of anyone's.
"""

import argparse
import os
import resource
import shutil
import sys

MAX_FILE_BYTES = 64 * 1024 * 1024


def main(argv=None):
    parser = argparse.ArgumentParser(description="ipykernel with resource limits, for grading")
    parser.add_argument("--memory", type=int, required=True, help="address-space limit in bytes")
    parser.add_argument("--cpu", type=int, required=True, help="CPU-time limit in seconds")
    parser.add_argument("--carried", default=None, help="the student's my_micrograd.py, copied into the working folder")
    args, kernel_args = parser.parse_known_args(argv)
    if args.carried:
        shutil.copyfile(args.carried, os.path.join(os.getcwd(), os.path.basename(args.carried)))
    resource.setrlimit(resource.RLIMIT_AS, (args.memory, args.memory))
    resource.setrlimit(resource.RLIMIT_CPU, (args.cpu, args.cpu + 5))
    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name in ("TMPDIR", "IPYTHONDIR", "MPLCONFIGDIR"):
        if os.environ.get(name):
            os.makedirs(os.environ[name], exist_ok=True)
    os.execv(sys.executable, [
        sys.executable, "-m", "ipykernel_launcher",
        "--HistoryManager.enabled=False", "--HistoryManager.hist_file=:memory:",
        *kernel_args,
    ])


if __name__ == "__main__":
    main()
