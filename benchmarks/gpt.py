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

(a) is written here from microgpt's description: a node keeps ``_children`` and
``_local_grads``; backward is a recursive topological sort, then ``child.grad += local_grad *
v.grad``; the model is microgpt's code, ``sum(wi * xi ...)`` for a matrix row.  (b) runs that
same model code on ``micrograd.Value``.  (c) is ``micrograd.gpt.GPT`` with
``micrograd.gpt_training.train_step``: a matrix row, an attention score and a weighted sum of
values are each one ``dot`` node, the loss at each position one node; backward runs over the
tape the forward pass recorded (``micrograd.tape``), with no walk of the graph, and the graph
is freed before the cycle collector, paused for the step, is back.
"""

import argparse
import gc
import math
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

SEED = 42  # microgpt's random.seed(42)
NUM_STEPS = 1000  # microgpt's training run: its learning rate decays over these
SAME_LOSS = 1e-9
MEMORY_STEPS = 3
TARGETS = {"speedup": 12, "seconds_1000": 20}


class MicroValue:
    """A node of microgpt's design: data, grad, and the children with their local gradients."""

    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data = data
        self.grad = 0
        self._children = children
        self._local_grads = local_grads

    def __add__(self, other):
        other = other if isinstance(other, MicroValue) else MicroValue(other)
        return MicroValue(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, MicroValue) else MicroValue(other)
        return MicroValue(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other): return MicroValue(self.data**other, (self,), (other * self.data**(other - 1),))
    def log(self): return MicroValue(math.log(self.data), (self,), (1 / self.data,))
    def exp(self): return MicroValue(math.exp(self.data), (self,), (math.exp(self.data),))
    def relu(self): return MicroValue(max(0, self.data), (self,), (float(self.data > 0),))
    def __neg__(self): return self * -1
    def __radd__(self, other): return self + other
    def __sub__(self, other): return self + (-other)
    def __rsub__(self, other): return other + (-self)
    def __rmul__(self, other): return self * other
    def __truediv__(self, other): return self * other**-1
    def __rtruediv__(self, other): return other * self**-1

    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._children:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        self.grad = 1
        for v in reversed(topo):
            for child, local_grad in zip(v._children, v._local_grads):
                child.grad += local_grad * v.grad


class Microgpt:
    """microgpt's model, loss and Adam, as its file writes them, on the node class ``Value``."""

    def __init__(self, Value, vocab_size, rng, n_embd=16, n_head=4, n_layer=1, block_size=16):
        self.n_head, self.n_layer, self.block_size = n_head, n_layer, block_size
        self.head_dim = n_embd // n_head
        matrix = lambda nout, nin, std=0.08: [[Value(rng.gauss(0, std)) for _ in range(nin)] for _ in range(nout)]  # noqa: E731
        self.state_dict = {"wte": matrix(vocab_size, n_embd), "wpe": matrix(block_size, n_embd),
                           "lm_head": matrix(vocab_size, n_embd)}
        for i in range(n_layer):
            self.state_dict[f"layer{i}.attn_wq"] = matrix(n_embd, n_embd)
            self.state_dict[f"layer{i}.attn_wk"] = matrix(n_embd, n_embd)
            self.state_dict[f"layer{i}.attn_wv"] = matrix(n_embd, n_embd)
            self.state_dict[f"layer{i}.attn_wo"] = matrix(n_embd, n_embd)
            self.state_dict[f"layer{i}.mlp_fc1"] = matrix(4 * n_embd, n_embd)
            self.state_dict[f"layer{i}.mlp_fc2"] = matrix(n_embd, 4 * n_embd)
        self.params = [p for mat in self.state_dict.values() for row in mat for p in row]
        self.m = [0.0] * len(self.params)
        self.v = [0.0] * len(self.params)

    @staticmethod
    def linear(x, w):
        return [sum(wi * xi for wi, xi in zip(wo, x)) for wo in w]

    @staticmethod
    def softmax(logits):
        max_val = max(val.data for val in logits)
        exps = [(val - max_val).exp() for val in logits]
        total = sum(exps)
        return [e / total for e in exps]

    @staticmethod
    def rmsnorm(x):
        ms = sum(xi * xi for xi in x) / len(x)
        scale = (ms + 1e-5) ** -0.5
        return [xi * scale for xi in x]

    def gpt(self, token_id, pos_id, keys, values):
        linear, softmax, rmsnorm, state_dict = self.linear, self.softmax, self.rmsnorm, self.state_dict
        n_head, head_dim = self.n_head, self.head_dim
        tok_emb = state_dict["wte"][token_id]
        pos_emb = state_dict["wpe"][pos_id]
        x = [t + p for t, p in zip(tok_emb, pos_emb)]
        x = rmsnorm(x)
        for li in range(self.n_layer):
            x_residual = x
            x = rmsnorm(x)
            q = linear(x, state_dict[f"layer{li}.attn_wq"])
            k = linear(x, state_dict[f"layer{li}.attn_wk"])
            v = linear(x, state_dict[f"layer{li}.attn_wv"])
            keys[li].append(k)
            values[li].append(v)
            x_attn = []
            for h in range(n_head):
                hs = h * head_dim
                q_h = q[hs:hs + head_dim]
                k_h = [ki[hs:hs + head_dim] for ki in keys[li]]
                v_h = [vi[hs:hs + head_dim] for vi in values[li]]
                attn_logits = [sum(q_h[j] * k_h[t][j] for j in range(head_dim)) / head_dim**0.5 for t in range(len(k_h))]
                attn_weights = softmax(attn_logits)
                head_out = [sum(attn_weights[t] * v_h[t][j] for t in range(len(v_h))) for j in range(head_dim)]
                x_attn.extend(head_out)
            x = linear(x_attn, state_dict[f"layer{li}.attn_wo"])
            x = [a + b for a, b in zip(x, x_residual)]
            x_residual = x
            x = rmsnorm(x)
            x = linear(x, state_dict[f"layer{li}.mlp_fc1"])
            x = [xi.relu() for xi in x]
            x = linear(x, state_dict[f"layer{li}.mlp_fc2"])
            x = [a + b for a, b in zip(x, x_residual)]
        return linear(x, state_dict["lm_head"])

    def loss(self, tokens):
        n = min(self.block_size, len(tokens) - 1)
        keys, values = [[] for _ in range(self.n_layer)], [[] for _ in range(self.n_layer)]
        losses = []
        for pos_id in range(n):
            token_id, target_id = tokens[pos_id], tokens[pos_id + 1]
            logits = self.gpt(token_id, pos_id, keys, values)
            probs = self.softmax(logits)
            loss_t = -probs[target_id].log()
            losses.append(loss_t)
        return (1 / n) * sum(losses)

    def train_step(self, step, tokens):
        loss = self.loss(tokens)
        loss.backward()
        learning_rate, beta1, beta2, eps_adam = 0.01, 0.85, 0.99, 1e-8
        m, v = self.m, self.v
        lr_t = learning_rate * (1 - step / NUM_STEPS)
        for i, p in enumerate(self.params):
            m[i] = beta1 * m[i] + (1 - beta1) * p.grad
            v[i] = beta2 * v[i] + (1 - beta2) * p.grad ** 2
            m_hat = m[i] / (1 - beta1 ** (step + 1))
            v_hat = v[i] / (1 - beta2 ** (step + 1))
            p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps_adam)
            p.grad = 0
        return loss.data


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
