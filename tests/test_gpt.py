"""The package's GPT: microgpt's model, from fused nodes, against microgpt's design written plainly."""

import math
import random

import pytest

import micrograd
from micrograd import Value, dot
from micrograd.data import CharTokenizer
from micrograd.engine import topological_order
from micrograd.gpt import GPT, KVCache, LAYER_MATRICES, attention_head, linear, rmsnorm, sample, softmax, token_probabilities
from micrograd.gpt_training import MICROGPT_ADAM, document_loss, microgpt_adam, train, train_step
from micrograd.losses import cross_entropy
from micrograd.module import Module
from gpt_answers import microgpt

DOCS = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper", "evelyn"]
TOKENIZER = CharTokenizer(DOCS)
SMALL = {"n_embd": 8, "n_head": 2, "block_size": 8}  # a smaller model, where the size does not matter


# -- microgpt's design, written plainly with Value: benchmarks/microgpt.py, the project's one copy ------

class Reference(microgpt.Microgpt):
    """microgpt's model (``benchmarks/microgpt.py``) on its own copies of a GPT's weights (new leaves with the same
    numbers), keeping each head's attention weights as the package's model does."""

    def __init__(self, model):  # microgpt's sizes and weights taken from model, none drawn
        self.model = model
        self.n_head, self.n_layer, self.block_size, self.head_dim = model.n_head, model.n_layer, model.block_size, model.head_dim
        self.state_dict = {name: [[Value(p.data) for p in row] for row in mat] for name, mat in model.state_dict().items()}
        self.params = [p for mat in self.state_dict.values() for row in mat for p in row]
        self.attention = [[[] for _ in range(model.n_head)] for _ in range(model.n_layer)]
        self._heads = None  # while gpt() runs: the (layer, head) of each softmax it calls, in its order

    def gpt(self, token_id, pos_id, keys, values):
        self._heads = iter([(li, h) for li in range(self.n_layer) for h in range(self.n_head)])
        try:
            return super().gpt(token_id, pos_id, keys, values)
        finally:
            self._heads = None

    def softmax(self, logits):
        weights = microgpt.Microgpt.softmax(logits)
        if self._heads is not None:  # one of gpt()'s attention heads
            li, h = next(self._heads)
            self.attention[li][h].append([w.data for w in weights])
        return weights

    def logits(self, tokens):
        keys, values = [[] for _ in range(self.n_layer)], [[] for _ in range(self.n_layer)]
        return [self.gpt(t, pos, keys, values) for pos, t in enumerate(tokens)]


def microgpt_draws(seed, vocab_size, n_embd=16, n_layer=1, block_size=16):
    """The numbers microgpt's matrix() draws, in its order, from random.Random(seed)."""
    rng = random.Random(seed)
    shapes = [(vocab_size, n_embd), (block_size, n_embd), (vocab_size, n_embd)]
    shapes += [(n_embd, n_embd)] * 4 + [(4 * n_embd, n_embd), (n_embd, 4 * n_embd)]
    shapes = shapes[:3] + shapes[3:] * n_layer
    return [rng.gauss(0, 0.08) for nout, nin in shapes for _ in range(nout * nin)]


# -- size, order, start ------------------------------------------------------------------------

def test_microgpts_parameter_count_and_3072_more_per_layer():
    assert len(GPT(27, rng=0).parameters()) == 4192
    assert len(GPT(27, n_layer=2, rng=0).parameters()) == 4192 + 3072
    assert len(GPT(27, n_layer=3, rng=0).parameters()) == 4192 + 2 * 3072


def test_a_module_with_parameters_and_zero_grad():
    model = GPT(27, rng=0)
    assert isinstance(model, Module)
    assert micrograd.GPT is micrograd.nn.GPT is GPT
    assert micrograd.nn.Module is Module
    document_loss(model, TOKENIZER.document("emma")).backward()
    assert any(p.grad != 0.0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())


def test_weights_are_drawn_as_microgpt_draws_them():
    model = GPT(27, n_layer=2, rng=7)
    assert [p.data for p in model.parameters()] == microgpt_draws(7, 27, n_layer=2)
    expected = ["wte", "wpe", "lm_head"] + [f"layer{i}.{name}" for i in range(2) for name in LAYER_MATRICES]
    assert list(model.state_dict()) == expected
    shapes = {name: (len(mat), len(mat[0])) for name, mat in model.state_dict().items()}
    assert shapes["wte"] == (27, 16) and shapes["layer1.mlp_fc1"] == (64, 16) and shapes["layer1.mlp_fc2"] == (16, 64)


def test_no_rng_means_pythons_global_generator_as_in_microgpt():
    state = random.getstate()
    try:
        random.seed(42)
        model = GPT(27)
    finally:
        random.setstate(state)
    assert [p.data for p in model.parameters()] == [p.data for p in GPT(27, rng=random.Random(42)).parameters()]


def test_named_parameters_follow_the_state_dict():
    model = GPT(27, rng=0)
    names = dict(model.named_parameters())
    assert len(names) == 4192
    assert names["wte.3.5"] is model.state_dict()["wte"][3][5]
    assert names["layer0.mlp_fc2.15.63"] is model.state_dict()["layer0.mlp_fc2"][15][63]
    assert list(names.values()) == model.parameters()


# -- the same numbers as microgpt's design ------------------------------------------------------

@pytest.mark.parametrize("sizes", [{}, {"n_embd": 8, "n_head": 2, "n_layer": 2, "block_size": 8}])
def test_loss_and_every_gradient_equal_microgpts_design(sizes):
    model = GPT(TOKENIZER.vocab_size, rng=3, **sizes)
    reference = Reference(model)
    tokens = TOKENIZER.document("isabella")
    loss, expected = document_loss(model, tokens), reference.loss(tokens)
    loss.backward()
    expected.backward()
    assert loss.data == pytest.approx(expected.data, abs=1e-12)
    assert max(abs(p.grad - r.grad) for p, r in zip(model.parameters(), reference.params)) < 1e-9
    assert sum(abs(p.grad) for p in model.parameters()) > 1.0  # gradients that are there to compare
    # ... from several times fewer nodes
    assert len(topological_order(expected)) > 5 * len(topological_order(loss))


def test_logits_and_attention_equal_microgpts_design():
    model = GPT(TOKENIZER.vocab_size, n_layer=2, rng=5, **SMALL)
    reference = Reference(model)
    tokens = TOKENIZER.document("amelia")
    logits, expected = model(tokens), reference.logits(tokens)
    assert max(abs(a.data - b.data) for row, ref in zip(logits, expected) for a, b in zip(row, ref)) < 1e-12
    assert len(model.attention) == 2 and len(model.attention[0]) == 2 and len(model.attention[0][0]) == len(tokens)
    for layer, ref_layer in zip(model.attention, reference.attention):
        for head, ref_head in zip(layer, ref_layer):
            for t, (weights, ref_weights) in enumerate(zip(head, ref_head)):
                assert len(weights) == t + 1 and math.isclose(sum(weights), 1.0)
                assert all(type(w) is float for w in weights)
                assert weights == pytest.approx(ref_weights, abs=1e-12)


def test_building_blocks_are_microgpts_functions():
    rng = random.Random(1)
    x = [Value(rng.gauss(0, 1)) for _ in range(6)]
    w = [[Value(rng.gauss(0, 1)) for _ in range(6)] for _ in range(3)]
    for ours, theirs in ((linear(x, w), Reference.linear(x, w)), (rmsnorm(x), Reference.rmsnorm(x)), (softmax(x), microgpt.Microgpt.softmax(x))):
        assert [o.data for o in ours] == pytest.approx([t.data for t in theirs], abs=1e-14)
    # a matrix row is the node dot() makes, bit for bit
    row = linear(x, w)[1]
    node = dot(w[1], x)
    assert (row.data, row.inputs, row.local_grads, row.op) == (node.data, node.inputs, node.local_grads, node.op)
    assert node.op == "w·x"


def test_one_attention_head_is_scores_softmax_and_a_weighted_sum():
    rng = random.Random(2)
    q = [Value(rng.gauss(0, 1)) for _ in range(4)]
    keys = [[Value(rng.gauss(0, 1)) for _ in range(4)] for _ in range(3)]
    values = [[Value(rng.gauss(0, 1)) for _ in range(4)] for _ in range(3)]
    out, weights = attention_head(q, keys, values)
    scores = [sum(qi.data * ki.data for qi, ki in zip(q, key)) / 2.0 for key in keys]
    expected = [math.exp(s - max(scores)) for s in scores]
    expected = [e / sum(expected) for e in expected]
    assert weights == pytest.approx(expected, abs=1e-14)
    assert [o.data for o in out] == pytest.approx([sum(a * v[j].data for a, v in zip(expected, values)) for j in range(4)])


# -- causal -------------------------------------------------------------------------------------

def test_changing_a_later_token_leaves_every_earlier_position_alone():
    model = GPT(TOKENIZER.vocab_size, n_layer=2, rng=0, **SMALL)
    tokens = TOKENIZER.document("sophia")
    base = [[z.data for z in row] for row in model(tokens)]
    for t in range(1, len(tokens)):
        changed = tokens[:t] + [(tokens[t] + 1) % TOKENIZER.vocab_size] + tokens[t + 1:]
        logits = [[z.data for z in row] for row in model(changed)]
        assert logits[:t] == base[:t]  # exactly: nothing before t read token t
        assert logits[t] != base[t]


def test_no_gradient_reaches_a_later_position_by_construction():
    model = GPT(TOKENIZER.vocab_size, rng=0)
    logits = model(TOKENIZER.document("mia"))
    logits[1][3].backward()  # position 1's logit for token 3
    wpe = model.state_dict()["wpe"]
    assert any(p.grad != 0.0 for p in wpe[0] + wpe[1])
    assert all(p.grad == 0.0 for row in wpe[2:] for p in row)


def test_forward_token_with_a_cache_is_the_same_as_the_whole_sequence():
    model = GPT(TOKENIZER.vocab_size, rng=4)
    tokens = TOKENIZER.document("harper")
    whole = [[z.data for z in row] for row in model(tokens)]
    cache = model.new_cache()
    assert isinstance(cache, KVCache) and len(cache) == 0
    one_by_one = [[z.data for z in model.forward_token(t, cache)] for t in tokens]
    assert one_by_one == whole
    assert len(cache) == len(tokens) and cache.attention == model.attention


# -- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "call, error, fragment",
    [
        (lambda m: m([3, 27]), ValueError, "token id 27 is outside the vocabulary: this model's ids run from 0 to 26"),
        (lambda m: m([-1]), ValueError, "token id -1 is outside the vocabulary"),
        (lambda m: m([2.0]), TypeError, "a token id is a whole number from 0 to 26, got float 2.0"),
        (lambda m: m([True]), TypeError, "got bool True"),
        (lambda m: m(list(range(17))), ValueError, "the sequence has 17 tokens but the model's block_size is 16"),
        (lambda m: m([]), ValueError, "at least one token id"),
        (lambda m: m(5), TypeError, "wrap it: [token_id]"),
        (lambda m: m("emma"), TypeError, "a list of token ids"),
        (lambda m: [m.forward_token(0, c) for c in [m.new_cache()] for _ in range(17)], ValueError, "already holds 16 positions"),
        (lambda m: GPT(27, n_embd=10, n_head=4), ValueError, "n_embd (10) must split evenly into n_head (4) heads"),
        (lambda m: GPT(0), ValueError, "vocab_size must be a positive whole number, got 0"),
        (lambda m: GPT(27, rng="seed"), TypeError, "rng takes a seed"),
    ],
)
def test_bad_input_gets_one_clear_sentence(call, error, fragment):
    model = GPT(27, rng=0)
    with pytest.raises(error) as raised:
        call(model)
    assert fragment in str(raised.value)


def test_numpy_integers_are_token_ids():
    import numpy as np  # installed with the course (make setup): this test always runs
    model = GPT(27, rng=0)
    assert [z.data for z in model([np.int64(26), np.int64(4)])[1]] == [z.data for z in model([26, 4])[1]]


# -- training -----------------------------------------------------------------------------------

def test_loss_at_the_start_is_about_ln_vocab_size():
    model = GPT(27, rng=42)
    losses = [document_loss(model, TOKENIZER.document(doc)).data for doc in DOCS]
    assert sum(losses) / len(losses) == pytest.approx(math.log(27), abs=0.15)


def test_a_few_training_steps_lower_the_loss():
    model = GPT(TOKENIZER.vocab_size, rng=1, **SMALL)
    tokens = TOKENIZER.document("charlotte")
    before = document_loss(model, tokens).data
    optimizer = microgpt_adam(model.parameters(), num_steps=20)
    losses = [train_step(model, optimizer, tokens) for _ in range(8)]
    assert losses[0] == before
    assert document_loss(model, tokens).data < before - 0.5


def test_train_is_microgpts_loop():
    model = GPT(TOKENIZER.vocab_size, rng=2, **SMALL)
    twin = GPT(TOKENIZER.vocab_size, rng=2, **SMALL)
    seen = []
    losses = train(model, TOKENIZER, DOCS[:3], num_steps=5, on_step=lambda step, loss: seen.append((step, loss)))
    assert [step for step, _ in seen] == list(range(1, 6)) and [loss for _, loss in seen] == losses
    optimizer = microgpt_adam(twin.parameters(), 5)
    by_hand = [train_step(twin, optimizer, TOKENIZER.document(DOCS[k % 3])) for k in range(5)]
    assert losses == by_hand  # step k trains on docs[k % len(docs)]


def test_microgpts_adam_settings_and_decay():
    assert MICROGPT_ADAM == {"lr": 0.01, "betas": (0.85, 0.99), "eps": 1e-8}
    optimizer = microgpt_adam([Value(1.0)], num_steps=1000)
    assert (optimizer.betas, optimizer.eps) == ((0.85, 0.99), 1e-8)
    for step in (0, 1, 500, 999):
        optimizer.steps = step
        assert optimizer.learning_rate() == pytest.approx(0.01 * (1 - step / 1000), abs=1e-18)
    with pytest.raises(ValueError, match="num_steps must be a positive whole number"):
        microgpt_adam([Value(1.0)], 0)


def test_a_document_needs_two_tokens():
    with pytest.raises(ValueError, match="at least two tokens"):
        document_loss(GPT(27, rng=0), [26])


# -- sampling -----------------------------------------------------------------------------------

def test_sampling_is_deterministic_given_the_seed():
    model = GPT(TOKENIZER.vocab_size, rng=0, **SMALL)
    names = [sample(model, TOKENIZER, rng=seed) for seed in range(6)]
    assert names == [sample(model, TOKENIZER, rng=seed) for seed in range(6)]
    assert len(set(names)) > 1
    assert all(set(name) <= set(TOKENIZER.chars) and len(name) <= model.block_size for name in names)


def test_sampling_is_microgpts_inference_loop():
    """From BOS, a KV cache, softmax(logits / temperature), random.choices, until BOS."""
    model = GPT(TOKENIZER.vocab_size, rng=0, **SMALL)
    reference = Reference(model)
    rng = random.Random(9)
    expected = []
    for _ in range(3):
        keys, values = [[] for _ in range(model.n_layer)], [[] for _ in range(model.n_layer)]
        token_id, name = TOKENIZER.bos, []
        for pos_id in range(model.block_size):
            probs = reference.softmax([z / 0.5 for z in reference.gpt(token_id, pos_id, keys, values)])
            token_id = rng.choices(range(model.vocab_size), weights=[p.data for p in probs])[0]
            if token_id == TOKENIZER.bos:
                break
            name.append(TOKENIZER.chars[token_id])
        expected.append("".join(name))
    rng = random.Random(9)
    assert [sample(model, TOKENIZER, temperature=0.5, rng=rng) for _ in range(3)] == expected


def test_sampling_with_the_bos_id_gives_token_ids():
    model = GPT(TOKENIZER.vocab_size, rng=0, **SMALL)
    ids = sample(model, TOKENIZER.bos, rng=3)
    assert TOKENIZER.decode(ids) == sample(model, TOKENIZER, rng=3)
    assert TOKENIZER.bos not in ids


def test_temperature_sharpens_or_flattens():
    logits = [Value(2.0), Value(1.0), Value(0.0)]
    cold, warm = token_probabilities(logits, 0.5), token_probabilities(logits, 2.0)
    assert sum(cold) == pytest.approx(1.0) and sum(warm) == pytest.approx(1.0)
    assert cold[0] > token_probabilities(logits)[0] > warm[0]
    assert token_probabilities(logits) == pytest.approx([p.data for p in microgpt.Microgpt.softmax(logits)])


@pytest.mark.parametrize("temperature", [0, -0.5, float("nan"), float("inf"), "hot", True])
def test_a_temperature_must_be_a_positive_number(temperature):
    model = GPT(TOKENIZER.vocab_size, rng=0, **SMALL)
    with pytest.raises(ValueError, match="temperature must be a number greater than 0"):
        sample(model, TOKENIZER, temperature=temperature, rng=0)


def test_sample_needs_a_tokenizer_or_the_bos_id():
    with pytest.raises(TypeError, match="a CharTokenizer or the BOS token id"):
        sample(GPT(27, rng=0), "abc", rng=0)
    with pytest.raises(TypeError, match="a CharTokenizer or the BOS token id"):
        sample(GPT(27, rng=0), 27, rng=0)


def test_the_loss_node_is_cross_entropy():
    model = GPT(TOKENIZER.vocab_size, rng=0)
    tokens = TOKENIZER.document("ava")
    logits = model(tokens[:-1])
    expected = cross_entropy(logits, tokens[1:])
    assert document_loss(model, tokens).data == pytest.approx(expected.data, abs=1e-14)


def _tiny_model_and_tokens():
    tokenizer = CharTokenizer(["ab", "ba"])
    return GPT(tokenizer.vocab_size, block_size=4, n_embd=4, n_head=2, rng=1), tokenizer.document("ab")


@pytest.mark.parametrize("enabled", [True, False])
def test_a_step_pauses_the_cycle_collector_and_leaves_it_as_it_was(enabled, monkeypatch):
    import gc

    model, tokens = _tiny_model_and_tokens()
    optimizer = microgpt_adam(model.parameters(), 10)
    seen, forward = [], GPT.__call__
    monkeypatch.setattr(GPT, "__call__", lambda self, tokens, tape=None: seen.append(gc.isenabled()) or forward(self, tokens, tape))
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        train_step(model, optimizer, tokens)
        assert seen == [False] and gc.isenabled() is enabled
        with pytest.raises(ValueError):
            train_step(model, optimizer, [0])  # fails inside the pause: the collector is still given back
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_steps_graph_holds_no_reference_cycles_so_reference_counting_frees_it():
    """What makes pausing the cycle collector safe: a step leaves it nothing to collect."""
    import gc

    model, tokens = _tiny_model_and_tokens()
    optimizer = microgpt_adam(model.parameters(), 10)
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            train_step(model, optimizer, tokens)
        assert gc.collect() == 0
        loss = document_loss(model, tokens)
        loss.backward()
        cyclic = Value(1.0)
        cyclic.cycle = cyclic  # the control: a real cycle is found
        del loss, cyclic
        assert gc.collect() > 0
    finally:
        if was:
            gc.enable()


def test_a_step_frees_its_graph_before_the_collector_is_back():
    """Else the collector's first pass after the step walks the whole graph, still alive."""
    import gc

    model, tokens = GPT(TOKENIZER.vocab_size, rng=1), TOKENIZER.document("isabella")
    optimizer = microgpt_adam(model.parameters(), 10)
    graph_nodes = len(topological_order(document_loss(model, tokens)))
    young = []  # how many objects each collection found in the youngest generation

    def seen(phase, info):
        if phase == "start" and info["generation"] == 0:
            young.append(len(gc.get_objects(generation=0)))

    was = gc.isenabled()
    gc.enable()
    gc.collect()
    gc.callbacks.append(seen)
    try:
        for _ in range(3):
            train_step(model, optimizer, tokens)
    finally:
        gc.callbacks.remove(seen)
        if not was:
            gc.disable()
    assert young and max(young) < graph_nodes / 4, (young, graph_nodes)
