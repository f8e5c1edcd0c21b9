"""backward() through a long chain: y = x.relu().relu()...relu(), one node a link.

Runs under either engine.  ``--length N`` builds a chain of N links, times
backward() on it and then measures, with tracemalloc, the peak memory of
building the chain and running backward.  ``--find-limit`` instead looks for
the longest chain backward() handles (micrograd 0.1.0 walks the graph
recursively, so Python's recursion limit stops it).

    python benchmarks/deep_chain.py --length 1000000
    python benchmarks/deep_chain.py --find-limit
"""

import argparse
import gc
import time
import tracemalloc

from figures import emit
from micrograd.engine import Value


def chain(length):
    x = Value(1.0)
    y = x
    for _ in range(length):
        y = y.relu()  # x > 0, so every link passes the gradient on: x.grad is 1
    return x, y


def backward_works(length):
    x, y = chain(length)
    try:
        y.backward()
    except RecursionError:
        return False
    return x.grad == 1


def longest_chain(upper=1_000_000):
    """Largest length that works, by doubling then bisection (None if all do)."""
    good, bad = 0, 1
    while backward_works(bad):
        good, bad = bad, bad * 2
        if bad > upper:
            return None
    while bad - good > 1:
        middle = (good + bad) // 2
        good, bad = (middle, bad) if backward_works(middle) else (good, middle)
    return good


def timed_backward(length):
    x, y = chain(length)
    gc.collect()
    start = time.process_time()
    y.backward()
    seconds = time.process_time() - start
    if x.grad != 1:
        raise SystemExit(f"wrong gradient through the chain: {x.grad}, expected 1")
    return seconds


def peak_bytes(length):
    gc.collect()
    tracemalloc.start()
    x, y = chain(length)
    built = tracemalloc.get_traced_memory()[0]
    y.backward()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return built, peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--length", type=int, help="links in the chain")
    group.add_argument("--find-limit", action="store_true", help="find the longest chain backward() handles")
    args = parser.parse_args()
    if args.find_limit:
        longest = longest_chain()
        emit(longest=longest, fails_at=None if longest is None else longest + 1)
        return
    try:
        seconds = timed_backward(args.length)
    except RecursionError:
        emit(length=args.length, completed=False)
        return
    built, peak = peak_bytes(args.length)
    emit(length=args.length, completed=True, backward_seconds=seconds, graph_bytes=built, peak_bytes=peak)


if __name__ == "__main__":
    main()
