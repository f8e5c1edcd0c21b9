"""The backprop stepper on a GPT: one position's loss of microgpt's model, on microgpt's own Value.

microgpt's ``Value`` (``benchmarks/microgpt.py``: inputs in ``_children``, local
derivatives in ``_local_grads``, no ``_backward``) is a foreign class to the stepper, which reads
it through ``micrograd.graphs`` and steps a mirror of it.  One position's loss of microgpt's model
(n_embd 16, 4 heads, 1 layer) is 11,223 nodes at the first position of a name and about 1,300
more at each later one, the keys and values cached before it included.  For each position asked
for, this prints the time a learner waits for ``BackpropStepper(loss)`` to show (start), for one
Step click (the median of a few, and the slowest), and for "To the end" (finish), then checks
that every gradient the stepper left on microgpt's own nodes equals what microgpt's own
``backward()`` gives on the same graph.

    python benchmarks/stepper_gpt.py                           # positions 0 and 7 (11,223 and 20,391 nodes)
    python benchmarks/stepper_gpt.py --before /tmp/original    # also a checkout of older code, side by side
    python benchmarks/stepper_gpt.py --positions 0 3 7 --repeat 5

``--before DIR`` runs the same measurements with the ``micrograd`` package of the checkout DIR
(for instance ``git worktree add --detach /tmp/original <commit>``): each measurement runs in a
fresh interpreter whose ``import micrograd`` is the checkout's, and the table shows both.
Times are wall-clock seconds (the median of ``--repeat`` runs; CPU seconds in brackets): the
machine may be shared, so compare columns of one run.  No figure here is checked by a test;
``tests/test_stepper_big.py`` checks that the gradients stay exact.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TARGETS = {"start": 2.0, "click": 0.3, "finish": 2.0}  # seconds
NAME_LENGTH = 8  # the first name of microgpt's shuffled list this long: positions 0 to 8
CLICKS = 5


def position_loss(position):
    """One position's loss of microgpt's model, on microgpt's Value, from microgpt's own start
    (``random.seed(42)``, the names shuffled, the weights drawn); the name it reads."""
    from gpt import generator, start
    from microgpt import Microgpt
    from microgpt import Value as MicroValue

    docs, tokenizer, state = start()
    name = next(doc for doc in docs if len(doc) >= NAME_LENGTH)
    tokens = tokenizer.document(name)
    if not 0 <= position < len(tokens) - 1:
        raise SystemExit(f"--positions: {name!r} has positions 0 to {len(tokens) - 2}, not {position}")
    model = Microgpt(MicroValue, tokenizer.vocab_size, generator(state))
    keys, values = [[] for _ in range(model.n_layer)], [[] for _ in range(model.n_layer)]
    for pos in range(position + 1):
        logits = model.gpt(tokens[pos], pos, keys, values)
    return -model.softmax(logits)[tokens[position + 1]].log(), model.params, name


def timed(action):
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    return (time.perf_counter() - wall, time.process_time() - cpu), result


def measure_once(position):
    """(figures, the stepper's gradients equal microgpt's backward()'s) for one fresh graph."""
    from gpt import count_micro_nodes

    from micrograd.widgets import BackpropStepper

    loss, params, name = position_loss(position)
    start, stepper = timed(lambda: BackpropStepper(loss))
    clicks = [timed(stepper.step)[0] for _ in range(CLICKS)]
    finish, _ = timed(stepper.finish)
    stepped = [p.grad for p in params]
    reference, reference_params, _ = position_loss(position)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * count_micro_nodes(reference)))
    reference.backward()  # microgpt's own: a recursive topological sort, then the chain rule
    expected = [p.grad for p in reference_params]
    return {"nodes": count_micro_nodes(loss), "name": name, "start": start, "finish": finish,
            "click": tuple(statistics.median(c[k] for c in clicks) for k in (0, 1)),
            "slowest_click": max(clicks), "exact": stepped == expected,
            "largest_difference": max(abs(a - b) for a, b in zip(stepped, expected))}


def child(positions, repeat):
    """Runs in the interpreter measured: every position, ``repeat`` times; one JSON line."""
    import micrograd

    results = {}
    for position in positions:
        runs = [measure_once(position) for _ in range(repeat)]
        result = dict(runs[0])
        for key in ("start", "click", "finish"):
            result[key] = tuple(statistics.median(run[key][k] for run in runs) for k in (0, 1))
        result["slowest_click"] = max(tuple(run["slowest_click"]) for run in runs)
        result["exact"] = all(run["exact"] for run in runs)
        result["largest_difference"] = max(run["largest_difference"] for run in runs)
        results[position] = result
    print(json.dumps({"micrograd": micrograd.__file__, "results": results}))


def run(checkout, positions, repeat):
    """The figures of ``checkout``'s micrograd, measured in a fresh interpreter."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(checkout), str(HERE)])}
    arguments = ["--child", "--repeat", str(repeat), "--positions", *map(str, positions)]
    print(f"  measuring {checkout} ...", file=sys.stderr, flush=True)
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), *arguments], cwd=HERE, env=environment,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise SystemExit(f"the measurement of {checkout} failed (exit {done.returncode}); its error is above")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    expected = Path(checkout).resolve() / "micrograd" / "__init__.py"
    if Path(figures["micrograd"]).resolve() != expected:
        raise SystemExit(f"{checkout}: the measurement imported {figures['micrograd']}, not {expected}")
    return {int(position): result for position, result in figures["results"].items()}


def seconds(pair):
    wall, cpu = pair
    return f"{wall:6.2f} ({cpu:5.2f})"


def table(columns, positions, repeat):
    lines = [f"BackpropStepper on one position's loss of microgpt's model, on microgpt's own Value; "
             f"seconds, wall (CPU), median of {repeat}"]
    names = list(columns)
    header = f"{'':34}" + "".join(f"{name:>22}" for name in names)
    for position in positions:
        first = columns[names[0]][position]
        lines += ["", f"position {position} of {first['name']!r}: {first['nodes']:,} nodes", header]
        rows = [("start: BackpropStepper(loss)", "start"), (f"one Step click (median of {CLICKS})", "click"),
                ("  slowest click", "slowest_click"), ("finish: To the end", "finish")]
        for title, key in rows:
            lines.append(f"{title:34}" + "".join(f"{seconds(columns[name][position][key]):>22}" for name in names))
        lines.append(f"{'gradients equal backward()s':34}" + "".join(
            f"{('exactly' if columns[name][position]['exact'] else 'NO, by %.1e' % columns[name][position]['largest_difference']):>22}"
            for name in names))
    now = columns[names[-1]]
    met = {key: all(now[p][key][0] < limit for p in positions) for key, limit in TARGETS.items()}
    lines += ["", "Targets (this checkout, wall): " + "; ".join(
        f"{key} under {limit:g} s: {'met' if met[key] else 'MISSED'}" for key, limit in TARGETS.items())]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, nargs="+", default=[0, 7], help="positions of the name (default 0 7)")
    parser.add_argument("--repeat", type=int, default=3, help="fresh graphs per position; the median is shown (default 3)")
    parser.add_argument("--before", type=Path, help="a checkout of other code, measured side by side with this one")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.child:
        return child(args.positions, args.repeat)
    if args.before is not None and not (args.before / "micrograd" / "__init__.py").exists():
        parser.error(f"--before {args.before}: no micrograd package there; give a checkout of this repository")
    columns = {}
    if args.before is not None:
        columns["before (--before)"] = run(args.before, args.positions, args.repeat)
    columns["this checkout"] = run(REPO, args.positions, args.repeat)
    print(table(columns, args.positions, args.repeat))
    from figures import emit

    emit(positions={str(p): columns["this checkout"][p] for p in args.positions},
         before={str(p): columns["before (--before)"][p] for p in args.positions} if args.before else None)


if __name__ == "__main__":
    main()
