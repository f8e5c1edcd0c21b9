"""Karpathy's microgpt, the one copy the project keeps: its ``Value`` and its model, loss and training step.

microgpt (https://gist.github.com/karpathy/8627fe009c40f57531cb18360106ce95) writes a GPT on a scalar
``Value`` in one file.  Here is that ``Value`` as its file writes it (inputs in ``_children``, local
derivatives in ``_local_grads``, a recursive topological sort in ``backward()``), and its ``gpt()``,
loss and Adam step in ``Microgpt``, which takes the node class to build on, so that the same model code
runs on this ``Value`` or on ``micrograd.Value``.

Who reads it:

- ``benchmarks/gpt.py`` and ``benchmarks/stepper_gpt.py`` import it by name (``from microgpt import
  ...``): a benchmark runs as a script from this folder, which Python puts first on ``sys.path``.
- The tests (``tests/gpt_answers.py``, ``tests/test_foreign_nodes.py``, ``tests/test_stepper_big.py``)
  load this file by its path (``gpt_answers.microgpt``, with importlib), and take ``Value``'s source
  text from ``value_source()``: what a learner pastes into a notebook, run in a namespace of its own.

It lives here rather than in ``tests/`` because the benchmarks are scripts that import only their
own folder, while a test can load a file by path; so neither folder is put on the other's
``sys.path``.  It is not part of the ``micrograd`` package: it is the yardstick the package is
measured against and checked by, not course material.
"""

import ast
import math
from pathlib import Path

NUM_STEPS = 1000  # microgpt's training run: its learning rate decays over these
ADAM = (0.01, 0.85, 0.99, 1e-8)  # microgpt's learning_rate, beta1, beta2, eps_adam


class Value:
    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data = data
        self.grad = 0
        self._children = children
        self._local_grads = local_grads

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, other):
        return Value(self.data**other, (self,), (other * self.data**(other - 1),))

    def log(self):
        return Value(math.log(self.data), (self,), (1 / self.data,))

    def exp(self):
        return Value(math.exp(self.data), (self,), (math.exp(self.data),))

    def relu(self):
        return Value(max(0, self.data), (self,), (float(self.data > 0),))

    def __neg__(self): return self * -1
    def __radd__(self, other): return self + other
    def __sub__(self, other): return self + (-other)
    def __rsub__(self, other): return other + (-self)
    def __rmul__(self, other): return self * other
    def __truediv__(self, other): return self * other**-1
    def __rtruediv__(self, other): return other * self**-1

    def backward(self):
        topo, visited = [], set()

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
        learning_rate, beta1, beta2, eps_adam = ADAM
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


def value_source():
    """microgpt's ``Value`` as source text, its ``import math`` first: what a learner pastes into a cell."""
    text = Path(__file__).read_text(encoding="utf-8")
    node = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == "Value")
    return f"import math\n\n\n{ast.get_source_segment(text, node)}\n"

