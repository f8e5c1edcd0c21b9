"""microgpt's GPT on this package's ``Value``, built from fused nodes.

Karpathy's microgpt (February 2026: the post https://karpathy.github.io/2026/02/12/microgpt/
and the file https://gist.github.com/karpathy/8627fe009c40f57531cb18360106ce95) trains a
GPT-2-like model in one file of pure Python on a scalar autograd engine: token and position
embeddings, RMSNorm, causal multi-head attention with a KV cache, an MLP block, residual
connections, and a linear head that gives one logit per token.  ``GPT`` is that model, step
for step, in microgpt's order and with its parameters drawn in its order, so that from the
same random generator it starts from the same numbers.

What changes is how many nodes the arithmetic makes.  microgpt writes a matrix row times a
vector as ``sum(wi * xi for ...)``: 2n nodes.  Here a matrix row, an attention score and a
weighted sum of values are each one ``dot`` node, a softmax's ``exp(z - max)`` is one node,
and so is the sum of its exps.  The sums are added up in microgpt's order, so the numbers
are microgpt's, up to a last bit of rounding where a chain of nodes becomes one; the graph
has several times fewer nodes.

The building blocks (``linear``, ``rmsnorm``, ``softmax``, ``attention_head``) are in
``gpt_blocks``, and importable from here.  Each, and the model, takes an optional ``tape`` (``micrograd.tape.Tape``) and
records on it every node it makes, in the order made: the training step's backward runs over
that record instead of walking the graph.

    >>> from micrograd.gpt import GPT
    >>> model = GPT(vocab_size=27, rng=42)
    >>> len(model.parameters())
    4192
    >>> logits = model([26, 4, 12, 12, 0])   # one list of 27 logits per position
"""

import math
import numbers
import operator

from .engine import Value
from .gpt_blocks import attention_head, linear, linear_rows, matrix_numbers, rmsnorm, softmax
from .module import Module, random_generator

__all__ = ["GPT", "KVCache", "sample", "token_probabilities", "linear", "rmsnorm", "softmax", "attention_head",
           "LAYER_MATRICES", "INIT_STD"]

INIT_STD = 0.08  # microgpt's matrix(): every weight drawn from gauss(0, 0.08)
# Each layer's matrices, in the order microgpt creates (and draws) them.
LAYER_MATRICES = ("attn_wq", "attn_wk", "attn_wv", "attn_wo", "mlp_fc1", "mlp_fc2")


# -- the model ----------------------------------------------------------------------------

class KVCache:
    """What the positions seen so far left for those after them: per layer, each position's
    key and value vectors (``keys[layer][t]``, ``values[layer][t]``), and the attention
    weights each head gave (``attention[layer][head][t]``: t + 1 floats, one per position
    0..t, summing to 1).  One cache per document: ``GPT.new_cache()`` makes an empty one.
    """

    def __init__(self, n_layer, n_head):
        self.keys = [[] for _ in range(n_layer)]
        self.values = [[] for _ in range(n_layer)]
        self.attention = [[[] for _ in range(n_head)] for _ in range(n_layer)]

    def __len__(self):
        """How many positions are cached: the next token's position."""
        return len(self.keys[0])

    def __repr__(self):
        return f"<KVCache: {len(self)} positions, {len(self.keys)} layers>"


class GPT(Module):
    """microgpt's model: a character-level GPT-2-like transformer, causal, without biases.

    ``GPT(vocab_size, block_size=16, n_embd=16, n_head=4, n_layer=1)``: microgpt's defaults.
    For a vocabulary of 27 (26 letters and BOS) that is microgpt's 4,192 parameters, and
    3,072 more per extra layer.  Weights are drawn from ``gauss(0, 0.08)`` with ``rng`` (a
    seed, a ``random.Random``, or None for Python's global generator), matrix by matrix in
    microgpt's order: ``wte``, ``wpe``, ``lm_head``, then per layer ``attn_wq``, ``attn_wk``,
    ``attn_wv``, ``attn_wo``, ``mlp_fc1``, ``mlp_fc2``.  So ``random.seed(42)``, microgpt's
    ``random.shuffle(docs)``, then ``GPT(27)`` starts where microgpt starts.

    ``model(tokens)`` gives one list of ``vocab_size`` logits per position; position t sees
    tokens 0..t only.  After it, ``model.attention[layer][head][t]`` holds the attention
    weights (floats) that position t gave positions 0..t.  ``forward_token`` is microgpt's
    ``gpt(token_id, pos_id, keys, values)``: one position, with a ``KVCache``.
    """

    def __init__(self, vocab_size, block_size=16, n_embd=16, n_head=4, n_layer=1, *, rng=None):
        for name, n in (("vocab_size", vocab_size), ("block_size", block_size), ("n_embd", n_embd),
                        ("n_head", n_head), ("n_layer", n_layer)):
            if isinstance(n, bool) or not isinstance(n, int) or n < 1:
                raise ValueError(f"GPT's {name} must be a positive whole number, got {n!r}")
        if n_embd % n_head:
            raise ValueError(f"n_embd ({n_embd}) must split evenly into n_head ({n_head}) heads; choose n_embd a multiple of n_head")
        self.vocab_size, self.block_size, self.n_embd = vocab_size, block_size, n_embd
        self.n_head, self.n_layer, self.head_dim = n_head, n_layer, n_embd // n_head
        rng = random_generator(rng)
        gauss = rng.gauss

        def matrix(nout, nin):  # microgpt's matrix(): rows of Values, drawn row by row
            return [[Value(gauss(0, INIT_STD)) for _ in range(nin)] for _ in range(nout)]

        self._state = {"wte": matrix(vocab_size, n_embd), "wpe": matrix(block_size, n_embd),
                       "lm_head": matrix(vocab_size, n_embd)}
        for i in range(n_layer):
            for name, shape in zip(LAYER_MATRICES, _layer_shapes(n_embd)):
                self._state[f"layer{i}.{name}"] = matrix(*shape)
        self._params = [p for mat in self._state.values() for row in mat for p in row]
        # The matrices the linears use, as tuples of rows (a node's inputs are a tuple).
        self._rows = {name: [tuple(row) for row in mat] for name, mat in self._state.items() if name not in ("wte", "wpe")}
        self.attention = None

    def state_dict(self):
        """microgpt's ``state_dict``: matrix name -> list of rows of the model's own Values."""
        return dict(self._state)

    def parameters(self):
        """Every weight, in microgpt's order: ``[p for mat in state_dict.values() for row in mat for p in row]``."""
        return list(self._params)

    def named_parameters(self, prefix=""):
        """``wte.3.5`` is ``state_dict()['wte'][3][5]``, in the order of parameters()."""
        for name, mat in self._state.items():
            for i, row in enumerate(mat):
                for j, p in enumerate(row):
                    yield f"{prefix}{name}.{i}.{j}", p

    def zero_grad(self):
        for p in self._params:
            p.grad = 0.0

    def new_cache(self):
        """An empty ``KVCache``, for a new document."""
        return KVCache(self.n_layer, self.n_head)

    def __call__(self, tokens, tape=None):
        """Logits for every position of ``tokens`` (token ids, at most ``block_size``).

        ``tape``: a ``micrograd.tape.Tape`` to record every node made on, for its faster
        ``backward`` (``gpt_training.train_step`` uses one)."""
        tokens = self._checked_tokens(tokens)
        cache = self.new_cache()
        numbers = self._weight_numbers()  # read once for all the positions
        logits = [self._forward(token_id, pos_id, cache, numbers, tape) for pos_id, token_id in enumerate(tokens)]
        self.attention = cache.attention
        return logits

    def forward_token(self, token_id, cache):
        """microgpt's ``gpt(token_id, pos_id, keys, values)``: the logits after one more token.

        The token's position is the number of positions in ``cache``; its key and value are
        appended there, with each head's attention weights.
        """
        pos_id = len(cache)
        if pos_id >= self.block_size:
            raise ValueError(
                f"this cache already holds {pos_id} positions, the model's block_size: start a new document with model.new_cache()"
            )
        return self._forward(self._checked_token(token_id), pos_id, cache, self._weight_numbers())

    def _weight_numbers(self):
        return {name: matrix_numbers(rows) for name, rows in self._rows.items()}

    def _forward(self, token_id, pos_id, cache, numbers, tape=None):
        rows = self._rows
        record = _unrecorded if tape is None else tape.record

        def linear(x, name):
            return linear_rows(x, rows[name], numbers[name], tape)

        tok_emb = self._state["wte"][token_id]
        pos_emb = self._state["wpe"][pos_id]
        x = record([t + p for t, p in zip(tok_emb, pos_emb)])  # joint token and position embedding
        x = rmsnorm(x, tape)
        head_dim = self.head_dim
        for li in range(self.n_layer):
            # 1) multi-head attention
            x_residual = x
            x = rmsnorm(x, tape)
            q = linear(x, f"layer{li}.attn_wq")
            k = linear(x, f"layer{li}.attn_wk")
            v = linear(x, f"layer{li}.attn_wv")
            keys, values = cache.keys[li], cache.values[li]
            keys.append(k)
            values.append(v)
            x_attn = []
            for h in range(self.n_head):
                hs, he = h * head_dim, (h + 1) * head_dim
                head_out, weights = attention_head(q[hs:he], [ki[hs:he] for ki in keys], [vi[hs:he] for vi in values], tape)
                x_attn.extend(head_out)
                cache.attention[li][h].append(weights)
            x = linear(x_attn, f"layer{li}.attn_wo")
            x = record([a + b for a, b in zip(x, x_residual)])
            # 2) MLP
            x_residual = x
            x = rmsnorm(x, tape)
            x = linear(x, f"layer{li}.mlp_fc1")
            x = record([xi.relu() for xi in x])
            x = linear(x, f"layer{li}.mlp_fc2")
            x = record([a + b for a, b in zip(x, x_residual)])
        return linear(x, "lm_head")

    def _checked_token(self, token_id):
        try:
            if isinstance(token_id, bool):
                raise TypeError
            token_id = operator.index(token_id)
        except TypeError:
            raise TypeError(f"a token id is a whole number from 0 to {self.vocab_size - 1}, got {type(token_id).__name__} {token_id!r}") from None
        if not 0 <= token_id < self.vocab_size:
            raise ValueError(f"token id {token_id!r} is outside the vocabulary: this model's ids run from 0 to {self.vocab_size - 1}")
        return token_id

    def _checked_tokens(self, tokens):
        if isinstance(tokens, (int, str)):
            raise TypeError(f"GPT takes a list of token ids, got the single {type(tokens).__name__} {tokens!r}; wrap it: [token_id]")
        tokens = [self._checked_token(t) for t in tokens]
        if not tokens:
            raise ValueError("GPT needs at least one token id, e.g. [BOS]")
        if len(tokens) > self.block_size:
            raise ValueError(
                f"the sequence has {len(tokens)} tokens but the model's block_size is {self.block_size}; pass at most {self.block_size}"
            )
        return tokens

    def __repr__(self):
        return (f"GPT(vocab_size={self.vocab_size}, block_size={self.block_size}, n_embd={self.n_embd}, "
                f"n_head={self.n_head}, n_layer={self.n_layer}): {len(self._params):,} parameters")


def _unrecorded(nodes):
    return nodes


# -- sampling ----------------------------------------------------------------------------

def token_probabilities(logits, temperature=1.0):
    """The next token's probabilities (floats): ``softmax(logits / temperature)``, from the
    logits (Values or numbers) as microgpt computes them when it samples.

    A temperature below 1 sharpens the distribution, above 1 flattens it.
    """
    inverse = _checked_temperature(temperature) ** -1  # microgpt's Value divides as x * t**-1
    scaled = [(z.data if isinstance(z, Value) else z) * inverse for z in logits]
    max_val = max(scaled)
    exps = [math.exp(z - max_val) for z in scaled]
    total = 0.0
    for e in exps:
        total += e
    inverse = total**-1
    return [e * inverse for e in exps]


def sample(model, tokenizer, temperature=0.5, rng=None):
    """A new document from the model, microgpt's way: from BOS, one token at a time through a
    KV cache, each drawn from ``token_probabilities(logits, temperature)``, until the model
    gives BOS or the block is full.

    ``tokenizer`` is a ``CharTokenizer`` (returns the text) or the BOS token id (returns the
    token ids, without BOS).  ``rng`` is a seed, a ``random.Random`` or None (Python's global
    generator, as microgpt draws with ``random.choices``): the same seed, the same document.
    """
    as_ids = isinstance(tokenizer, numbers.Integral)
    bos = tokenizer if as_ids else getattr(tokenizer, "bos", None)
    if bos is None or isinstance(bos, bool) or not 0 <= bos < model.vocab_size:
        raise TypeError(f"sample takes a CharTokenizer or the BOS token id (0 to {model.vocab_size - 1}), got {tokenizer!r}")
    temperature = _checked_temperature(temperature)
    rng = random_generator(rng)
    cache = model.new_cache()
    token_id, generated = bos, []
    for _ in range(model.block_size):
        probs = token_probabilities(model.forward_token(token_id, cache), temperature)
        token_id = rng.choices(range(model.vocab_size), weights=probs)[0]
        if token_id == bos:
            break
        generated.append(token_id)
    return generated if as_ids else tokenizer.decode(generated)


def _checked_temperature(temperature):
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real) or not 0 < temperature < math.inf:
        raise ValueError(
            f"temperature must be a number greater than 0, got {temperature!r}; it divides the logits, "
            "so 0 has no meaning (for the likeliest token every time, take a small temperature such as 0.01)"
        )
    return float(temperature)


def _layer_shapes(n_embd):
    """(rows, columns) of each of LAYER_MATRICES."""
    return (n_embd, n_embd), (n_embd, n_embd), (n_embd, n_embd), (n_embd, n_embd), (4 * n_embd, n_embd), (n_embd, 4 * n_embd)
