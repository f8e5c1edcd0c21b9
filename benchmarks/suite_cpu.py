"""Where the test suite's CPU goes: core-seconds by kind of process, while a command runs (Linux).

    python benchmarks/suite_cpu.py                      # make test
    python benchmarks/suite_cpu.py -- .venv/bin/python -m pytest tests/test_site.py

The suite is CPU-bound on a small machine: its wall time is about its CPU time over the cores.
So this samples /proc every quarter of a second while the command runs.  For each process it
keeps the last CPU time seen, counting only what was used after sampling began.  It prints the
wall time, the machine's busy core-seconds, and the share of each kind of process: the test
workers themselves, Chromium, kernels, Node, servers.  A process that lives less than a quarter
of a second is missed, so the kinds add up to a little less than the machine's figure.
"""

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# (kind, pattern on the command line), first match wins.
KINDS = [
    ("test workers (pytest-xdist)", r"-c import sys;exec\(eval"),
    ("kernels", r"ipykernel|grading\._kernel"),
    ("Chromium", r"chrom"),
    ("Node (Pyodide, the app's bytecode)", r"(^|/)node "),
    ("JupyterLab servers", r"jupyter[ -]?lab|jupyterlab"),
    ("Sphinx (the site)", r"sphinx"),
    ("grading", r"micrograd\.course\.grading"),
    ("pytest itself", r"pytest"),
]
TICK = os.sysconf("SC_CLK_TCK")


def busy_ticks():
    with open("/proc/stat") as stat:
        fields = stat.readline().split()[1:]
    return sum(int(value) for index, value in enumerate(fields[:8]) if index not in (3, 4))  # not idle, not iowait


def sample(seen, baseline):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as stat:
                text = stat.read()
            rest = text[text.rindex(")") + 2:].split()
            used, started = (int(rest[11]) + int(rest[12])) / TICK, rest[19]
            key = (pid, started)
            if key not in seen:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
                seen[key] = [command, used]
                if baseline is not None:  # already running when sampling began: count from now
                    baseline[key] = used
            else:
                seen[key][1] = used
        except (OSError, ValueError, IndexError):
            pass  # ended while read


def kind(command):
    return next((name for name, pattern in KINDS if re.search(pattern, command)), "other")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="*", help="the command to run (default: make test)")
    args = parser.parse_args(argv)
    command = args.command or ["make", "test"]
    seen, baseline = {}, {}
    sample(seen, baseline)
    done = threading.Event()

    def sampler():
        while not done.is_set():
            sample(seen, None)
            time.sleep(0.25)

    thread = threading.Thread(target=sampler, daemon=True)
    busy, start = busy_ticks(), time.monotonic()
    thread.start()
    result = subprocess.run(command, cwd=ROOT)
    done.set()
    thread.join()
    wall, busy = time.monotonic() - start, (busy_ticks() - busy) / TICK
    me = str(os.getpid())
    by_kind = Counter()
    for key, (line, used) in seen.items():
        if key[0] != me and line:
            by_kind[kind(line)] += used - baseline.get(key, 0.0)
    print(f"\n{' '.join(map(str, command))}\nexit status {result.returncode}; {wall:.1f} s wall; "
          f"{busy:.0f} core-s busy on {os.cpu_count()} cores")
    for name, used in by_kind.most_common():
        print(f"{used:8.1f} core-s  {name}")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
