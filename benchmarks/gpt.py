"""microgpt's training, side by side in one run: on a node class of microgpt's design, on this
package's Value, and as this package's fused GPT.

All three start from the same random numbers (microgpt's: ``random.seed(42)``, the names
shuffled, then the weights drawn) and train on the same names, one per step, with microgpt's
Adam.  Each trains its steps in one block; the package's GPT trains before and after the
other two, and its times are averaged, so a load that drifts over the run (the machine may
be shared) falls on all three alike.  Printed: CPU ms per step (median), the speed-ups, each
step's loss (the three must agree within 1e-9), nodes and memory (tracemalloc) per step, and
microgpt's 1,000 steps as the package's GPT would take them.

    python benchmarks/gpt.py               # 30 steps each (make bench runs this)
    python benchmarks/gpt.py --steps 100
    python benchmarks/gpt.py --full        # also trains the package's GPT for 1,000 steps, timed

(a) is microgpt's own ``Value`` and model (``benchmarks/microgpt.py``, the project's one copy): a
node keeps ``_children`` and ``_local_grads``; backward is a recursive topological sort, then
``child.grad += local_grad * v.grad``; ``sum(wi * xi ...)`` for a matrix row.  (b) runs that
same model code on ``micrograd.Value``.  (c) is ``micrograd.gpt.GPT`` with
``micrograd.gpt_training.train_step``: a matrix row, an attention score and a weighted sum of
values are each one ``dot`` node, the loss at each position one node; backward runs over the
tape the forward pass recorded (``micrograd.tape``), with no walk of the graph, and the graph
is freed before the cycle collector, paused for the step, is back.
"""

import argparse
import gc
import platform
import random
import statistics
import time
import tracemalloc

from figures import emit
from micrograd.data import CharTokenizer, names
from micrograd.engine import Value, graph_size
from micrograd.gpt import GPT
from micrograd.gpt_training import document_loss, microgpt_adam, train_step
from microgpt import NUM_STEPS, Microgpt
from microgpt import Value as MicroValue

SEED = 42  # microgpt's random.seed(42)
SAME_LOSS = 1e-9
MEMORY_STEPS = 3
TARGETS = {"speedup": 12, "seconds_1000": 20}


class PackageGPT:
    """(c): the package's GPT, trained with the package's step and microgpt's Adam."""

    def __init__(self, vocab_size, rng):
        self.model = GPT(vocab_size, rng=rng)
        self.optimizer = microgpt_adam(self.model.parameters(), NUM_STEPS)

    def loss(self, tokens):
        return document_loss(self.model, tokens)

    def train_step(self, step, tokens):
        return train_step(self.model, self.optimizer, tokens)


def start():
    """microgpt's first lines: the names shuffled by random.seed(42), the tokenizer; and the
    generator's state at that point, from which each engine draws its weights."""
    rng = random.Random(SEED)
    docs = names()
    rng.shuffle(docs)
    return docs, CharTokenizer(docs), rng.getstate()


def generator(state):
    rng = random.Random()
    rng.setstate(state)
    return rng


def count_micro_nodes(root):
    seen, todo = {root}, [root]
    while todo:
        for child in todo.pop()._children:
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return len(seen)


def graph_nodes(engine, tokens):
    loss = engine.loss(tokens)
    return count_micro_nodes(loss) if isinstance(loss, MicroValue) else graph_size(loss)[0]


def step_memory(engine, first_step, documents):
    """Peak bytes tracemalloc sees during each of a few training steps (graph, backward, update)."""
    peaks = []
    for k, tokens in enumerate(documents):
        gc.collect()
        tracemalloc.start()
        engine.train_step(first_step + k, tokens)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return statistics.fmean(peaks)


def train_block(engine, documents):
    """Each step's (CPU seconds, loss), the collector's counts reset first, so that no engine
    pays for the garbage another left."""
    gc.collect()
    seconds, losses = [], []
    for step, tokens in enumerate(documents):
        began = time.process_time()
        losses.append(engine.train_step(step, tokens))
        seconds.append(time.process_time() - began)
    return seconds, losses


def measure(steps, full):
    docs, tokenizer, state = start()
    vocab_size = tokenizer.vocab_size
    makers = {
        "micro": lambda: Microgpt(MicroValue, vocab_size, generator(state)),
        "value": lambda: Microgpt(Value, vocab_size, generator(state)),
        "gpt": lambda: PackageGPT(vocab_size, generator(state)),
    }
    documents = [tokenizer.document(docs[k % len(docs)]) for k in range(steps + MEMORY_STEPS)]
    engines = {name: make() for name, make in makers.items()}
    figures = {name: {"nodes": graph_nodes(engine, documents[0])} for name, engine in engines.items()}
    starts = [[p.data for p in (e.params if isinstance(e, Microgpt) else e.model.parameters())] for e in engines.values()]
    # The package's GPT trains before and after the other two (each from the same start);
    # its time per step is the mean of the two, so a load that drifts over the run (the
    # machine may be shared) is seen by all three.
    before = train_block(makers["gpt"](), documents[:steps])
    for name in ("micro", "value", "gpt"):
        figures[name]["seconds"], figures[name]["losses"] = train_block(engines[name], documents[:steps])
    figures["gpt"]["seconds"] = [(a + b) / 2 for a, b in zip(before[0], figures["gpt"]["seconds"])]
    for name, engine in engines.items():  # a few more steps, each under tracemalloc
        figures[name]["peak_bytes"] = step_memory(engine, steps, documents[steps:])
    result = {"steps": steps, "same_start": starts[0] == starts[1] == starts[2],
              "same_gpt_runs": before[1] == figures["gpt"]["losses"], "engines": figures,
              "python": platform.python_version(), "characters": sum(len(t) - 2 for t in documents[:steps])}
    if full:
        engine = makers["gpt"]()
        began = time.process_time()
        losses = [engine.train_step(step, tokenizer.document(docs[step % len(docs)])) for step in range(NUM_STEPS)]
        result["full"] = {"seconds": time.process_time() - began, "first_loss": losses[0],
                          "last_100_mean_loss": statistics.fmean(losses[-100:])}
    return result


def median_ms(figures):
    return statistics.median(figures["seconds"]) * 1e3


def loss_differences(result):
    """Largest |loss - microgpt's loss| over the steps, for (b) and (c)."""
    engines = result["engines"]
    reference = engines["micro"]["losses"]
    return {name: max(abs(a - b) for a, b in zip(engines[name]["losses"], reference)) for name in ("value", "gpt")}


def section(result):
    """(title, rows) in report.table's format; run_all.py prints the same rows."""
    from report import DASH, ratio

    engines = result["engines"]
    ms = {name: median_ms(figures) for name, figures in engines.items()}
    differences = loss_differences(result)
    same = max(differences.values()) <= SAME_LOSS and result["same_start"] and result["same_gpt_runs"]
    speedup = ms["micro"] / ms["gpt"]
    projected = ms["gpt"] * NUM_STEPS / 1e3
    header = ("", "microgpt's design", "micrograd Value", "package GPT", "ratios")
    rows = [
        header,
        ("CPU ms per step (median)", f"{ms['micro']:.0f}", f"{ms['value']:.0f}", f"{ms['gpt']:.1f}",
         f"design / GPT: {ratio(ms['micro'], ms['gpt'])}; Value / GPT: {ratio(ms['value'], ms['gpt'])}"),
        ("nodes per step (first name)", f"{engines['micro']['nodes']:,}", f"{engines['value']['nodes']:,}",
         f"{engines['gpt']['nodes']:,}", f"design / GPT: {ratio(engines['micro']['nodes'], engines['gpt']['nodes'])}"),
        ("peak MB per step (tracemalloc)", *(f"{engines[name]['peak_bytes'] / 1e6:.1f}" for name in engines),
         f"design / GPT: {ratio(engines['micro']['peak_bytes'], engines['gpt']['peak_bytes'])}"),
        ("largest loss difference from microgpt's", DASH, f"{differences['value']:.1e}", f"{differences['gpt']:.1e}", ""),
        ("microgpt's 1,000 steps would take", _seconds(ms["micro"]), _seconds(ms["value"]), _seconds(ms["gpt"]), ""),
    ]
    if "full" in result:
        full = result["full"]
        rows.append(("  measured, 1,000 steps", "", "", f"{full['seconds']:.1f} s",
                     f"loss {full['first_loss']:.2f} at step 1, {full['last_100_mean_loss']:.2f} over the last 100"))
    rows += [
        (f"Same start and the same loss at all {result['steps']} steps (within {SAME_LOSS:g}): {'yes' if same else 'NO'}.  "
         f"Targets: at least {TARGETS['speedup']}x faster than microgpt's design: {_met(speedup >= TARGETS['speedup'])}; "
         f"1,000 steps in under {TARGETS['seconds_1000']} s: {_met(projected < TARGETS['seconds_1000'])}.",),
        (f"Python {result['python']}; n_embd 16, 4 heads, 1 layer, block 16, one name per step "
         f"({result['characters'] / result['steps']:.1f} letters on average); the GPT timed before and after the others.",),
    ]
    return (f"microgpt's training step (4,192 parameters), {result['steps']} steps", rows)


def _seconds(ms_per_step):
    seconds = ms_per_step * NUM_STEPS / 1e3
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _met(ok):
    return "met" if ok else "MISSED"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30, help="training steps of each engine (default 30)")
    parser.add_argument("--full", action="store_true", help="then train the package's GPT for microgpt's 1,000 steps, timed")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    result = measure(args.steps, args.full)
    from report import table

    print(table([section(result)]))
    emit(**result)
    differences = loss_differences(result)
    if not (result["same_start"] and result["same_gpt_runs"]) or max(differences.values()) > SAME_LOSS:
        raise SystemExit(f"the engines' losses differ by more than {SAME_LOSS:g}: {differences}")


if __name__ == "__main__":
    main()
