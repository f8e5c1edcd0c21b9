"""Lesson 11's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import math
import random

import pytest
from claims import claim, lesson_code, run_lesson_code
from micrograd import Value, dot, graph_size, topological_order
from micrograd.losses import cross_entropy, softmax


def _gpt(seed=0, **sizes):
    from micrograd.nn import GPT

    return GPT(sizes.pop("vocab_size", 27), **sizes, rng=seed)


def test_lesson11_softmax_is_the_same_with_the_largest_logit_taken_out_and_exp_of_1000_overflows():
    claim(11, "Subtract the largest score first: $e^{z_i - m}$ is at most 1 and never overflows, and the probabilities are the same")
    claim(11, "on logits near 1000, where `exp` without the shift overflows a float, and on logits far apart, where a "
              "shift by anything but the largest overflows it")
    logits = [2.0, -1.0, 0.5, 3.5]
    plain = [math.exp(z) / sum(math.exp(y) for y in logits) for z in logits]
    shifted = [math.exp(z - 3.5) / sum(math.exp(y - 3.5) for y in logits) for z in logits]
    assert plain == pytest.approx(shifted, rel=1e-15)
    with pytest.raises(OverflowError):
        math.exp(1000.0)
    assert [p.data for p in softmax([Value(1000.0), Value(999.0)])] == pytest.approx([1 / (1 + math.e**-1), 1 / (1 + math.e)])
    far_apart = [-1000.0, 1000.0, 0.0]
    for shift in (min(far_apart), sum(far_apart) / 3, far_apart[0]):  # the smallest, the mean, the first
        with pytest.raises(OverflowError):
            [math.exp(z - shift) for z in far_apart]
    assert [math.exp(z - max(far_apart)) for z in far_apart] == [0.0, 1.0, 0.0]


def test_lesson11_dividing_by_the_root_of_head_dim_keeps_the_spread_whatever_the_width():
    claim(11, "A dot product of $d$ terms spreads out as $d$ grows, and softmax of widely spread scores gives nearly all "
              "the weight to one position. Dividing keeps the spread the same whatever the head's width")
    rng = random.Random(11)
    for d in (4, 16, 64):
        scores = [sum(rng.gauss(0, 1) * rng.gauss(0, 1) for _ in range(d)) for _ in range(4000)]
        variance = sum(s * s for s in scores) / len(scores)
        assert variance == pytest.approx(d, rel=0.15)
        assert variance / d == pytest.approx(1, rel=0.15)

    def mean_largest_weight(d, scale):
        """Over eight keys, the largest softmax weight of the scores q·k / scale, on average."""
        total = 0.0
        for _ in range(200):
            q = [rng.gauss(0, 1) for _ in range(d)]
            scores = [sum(qj * rng.gauss(0, 1) for qj in q) / scale for _ in range(8)]
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            total += 1 / sum(weights)  # the largest weight: exp(0) over the total
        return total / 200

    assert mean_largest_weight(256, 1) > 0.9  # unscaled, a wide head's softmax nearly picks one key
    assert mean_largest_weight(256, 16) < 0.5 and mean_largest_weight(4, 2) < 0.5  # scaled: it mixes, at any width


def test_lesson11_a_scores_gradients_are_the_other_vectors_numbers_halved():
    claim(11, "After `backward()`, the query's gradients are the key's numbers halved, and the other way round")
    ns = run_lesson_code(11, 'score.label = "score"', namespace={"Value": Value, "head_dim": 4, "draw_dot": lambda *args, **kwargs: None})
    q_h, k_t = ns["q_h"], ns["k_t"]
    assert [q.grad for q in q_h] == pytest.approx([k.data / 2 for k in k_t])
    assert [k.grad for k in k_t] == pytest.approx([q.data / 2 for q in q_h])


def test_lesson11_the_model_is_causal_no_position_depends_on_a_later_token():
    claim(11, "so position $t$ sees positions $0$ to $t$ and nothing after: the model is **causal** by construction")
    model = _gpt()
    first = [[z.data for z in row] for row in model([26, 4, 12, 12, 0])]
    changed = [[z.data for z in row] for row in model([26, 4, 12, 25, 3])]
    assert first[:3] == changed[:3] and first[3] != changed[3]


def test_lesson11_one_position_is_thousands_of_values_and_sum_of_products_makes_two_nodes_a_term():
    claim(11, "One position's computation is thousands of Values")
    claim(11, "where `sum(wi * xi ...)` makes two nodes per term")
    from micrograd.course.carry.gpt_pieces import ANSWERS

    ns = {"math": math, "random": random, "MyValue": Value, "vocab_size": 27, "microgpt_start": random.Random(0).getstate()}
    for key in ("lesson 11: softmax", "lesson 11: rmsnorm", "lesson 11: attention_head"):
        exec(ANSWERS[key], ns)
    run_lesson_code(11, "matrix = lambda nout", "def gpt(token_id, pos_id, keys, values)", namespace=ns)
    logits = ns["gpt"](26, 0, [[]], [[]])
    nodes = len(topological_order(sum(logits)))
    assert nodes > 2000, nodes
    w, x = [Value(0.5) for _ in range(16)], [Value(1.5) for _ in range(16)]
    built = sum(wi * xi for wi, xi in zip(w, x))
    assert graph_size(built)[0] - 32 == 2 * 16 + 1  # 16 products, 16 sums (the first from 0), the constant 0
    assert graph_size(dot(w, x, 0.0))[0] - 32 == 2  # one node, with its bias leaf


def test_lesson11_knowing_nothing_scores_ln_27():
    claim(11, r"A model that knows nothing gives every token $1/27$ and scores $\ln 27$")
    assert cross_entropy([Value(0.0)] * 27, 5).data == pytest.approx(math.log(27), rel=1e-15)


def test_lesson11_microgpt_is_gpt_2_without_biases_with_rmsnorm_and_relu():
    claim(11, 'microgpt\'s comment names three changes from GPT-2: "layernorm -> rmsnorm, no biases, GeLU -> ReLU"')
    claim(11, "GPT-2 uses LayerNorm, which also subtracts the mean and adds a learnt scale and shift; microgpt keeps only "
              "the rescaling")
    from micrograd.gpt import rmsnorm as package_rmsnorm

    model = _gpt()
    n, vocab = 16, 27
    assert len(model.parameters()) == 2 * vocab * n + 16 * n + 12 * n * n  # matrices only: no bias anywhere
    ops = {node.op for node in topological_order(sum(model([26, 4])[-1]))}
    assert "ReLU" in ops and not any("gelu" in op.lower() or "tanh" in op.lower() for op in ops)
    x = [0.5, 2.0, -1.0, 3.5]
    out = [v.data for v in package_rmsnorm([Value(v) for v in x])]
    assert sum(out) / len(out) != pytest.approx(0.0, abs=0.1)  # the mean stays: nothing is subtracted
    assert sum(v * v for v in out) / len(out) == pytest.approx(1.0, rel=1e-4)
    mean = sum(x) / len(x)
    centred = [v - mean for v in x]
    layernorm = [v / math.sqrt(sum(c * c for c in centred) / len(x) + 1e-5) for v in centred]  # scale 1, shift 0
    assert layernorm == pytest.approx([v.data for v in package_rmsnorm([Value(c) for c in centred])], rel=1e-12)


def test_lesson11_the_score_is_drawn_first_with_no_leaf_holding_0_and_its_gradients_are_the_other_halved():
    claim(11, "One score, drawn from the score at the top down to the query and the key at the bottom")
    claim(11, "(`sum()` starts here from the first product: started from 0, as it is by default, it would add a leaf "
              "holding 0 to the drawing.)")
    claim(11, "the query's gradients are the key's numbers halved, and the other way round")
    from micrograd.viz import draw_dot

    ns = run_lesson_code(11, "products = [q * k", namespace={"Value": Value, "head_dim": 4, "draw_dot": draw_dot})
    score, q_h, k_t = ns["score"], ns["q_h"], ns["k_t"]
    leaves = [node for node in topological_order(score) if not node._prev]
    assert [leaf.data for leaf in leaves if not leaf.label] == [2.0]  # √4 alone: no 0 for sum() to start from
    assert [q.grad for q in q_h] == [k.data / 2 for k in k_t] and [k.grad for k in k_t] == [q.data / 2 for q in q_h]
    assert "rankdir=BT" in draw_dot(score, precision=2, rankdir="BT").source.replace('"', "")
    assert 'rankdir="BT"' in lesson_code(11, "products = [q * k")
    started_from_0 = sum(q * k for q, k in zip(q_h, k_t))
    assert 0.0 in [node.data for node in topological_order(started_from_0) if not node._prev and not node.label]


def test_lesson11_microgpt_norms_its_embeddings_has_no_final_norm_and_an_lm_head_of_its_own():
    claim(11, "It normalises the embeddings once before the first block (the `rmsnorm` right after "
              "`tok_emb + pos_emb`), which GPT-2 does not; it has no norm after the last block, where GPT-2 has a "
              "final LayerNorm; and its `lm_head` is a matrix of its own, where GPT-2 reuses `wte` (tied weights)")
    from micrograd.course.carry.gpt_pieces import ANSWERS

    ns = {"math": math, "random": random, "MyValue": Value, "vocab_size": 27, "microgpt_start": random.Random(0).getstate()}
    for key in ("lesson 11: softmax", "lesson 11: rmsnorm", "lesson 11: attention_head"):
        exec(ANSWERS[key], ns)
    run_lesson_code(11, "matrix = lambda nout", "def gpt(token_id, pos_id, keys, values)", namespace=ns)
    normed, given = [], ns["rmsnorm"]

    def recorded(x):
        out = given(x)
        normed.append((x, out))
        return out

    ns["rmsnorm"] = recorded
    sd = ns["state_dict"]
    ns["gpt"](4, 0, [[]], [[]])
    first_in, _ = normed[0]
    assert [v.data for v in first_in] == [t.data + p.data for t, p in zip(sd["wte"][4], sd["wpe"][0])]
    # The embeddings, then one before attention and one before the MLP in each block: none after the last block
    # (GPT-2's ln_f would make it 2 + 2 per block).
    assert len(normed) == 1 + 2 * ns["n_layer"]
    wte, lm_head = {id(p) for row in sd["wte"] for p in row}, {id(p) for row in sd["lm_head"] for p in row}
    assert not wte & lm_head and len(lm_head) == 27 * 16  # not tied: a matrix of its own


def test_lesson11_the_package_s_gpt_fuses_the_loss_and_its_gradients_agree_within_rounding_not_all_bits():
    claim(11, "and the loss at each position, softmax and $-\\ln p$ together, is one node too")
    claim(11, "a fused node adds up its terms in its own order, and a sum of floats can change in its last bit "
              "when the order does")
    from micrograd.data import CharTokenizer
    from micrograd.gpt_training import document_loss
    from micrograd.losses import fused_cross_entropy

    tokenizer = CharTokenizer(["emma", "olivia", "ava"])
    model = _gpt(vocab_size=tokenizer.vocab_size)
    tokens = tokenizer.document("olivia")
    logits = model(tokens[:1])[0]
    fused = fused_cross_entropy(logits, tokens[1])
    assert {id(x) for x in fused._inputs} == {id(z) for z in logits}  # one node, straight from the logits
    from test_gpt import Reference

    reference = Reference(model)
    document_loss(model, tokens).backward()
    reference.loss(tokens).backward()
    pairs = list(zip(model.parameters(), reference.params))
    assert all(p.grad == pytest.approx(q.grad, rel=1e-12, abs=1e-15) for p, q in pairs)
    assert 0 < sum(p.grad == q.grad for p, q in pairs) < len(pairs)  # many the same to the last bit, not all


def test_lesson11_a_residual_connection_keeps_a_path_for_the_gradient_when_a_block_gives_nothing():
    claim(11, "the vector that flows through the model is only ever added to, which gives the gradients a straight path back")
    from micrograd.course.carry.gpt_pieces import ANSWERS

    def wte_gradient(residual):
        ns = {"math": math, "random": random, "MyValue": Value, "vocab_size": 27, "microgpt_start": random.Random(0).getstate()}
        for key in ("lesson 11: softmax", "lesson 11: rmsnorm", "lesson 11: attention_head"):
            exec(ANSWERS[key], ns)
        replace = () if residual else (("x = [a + b for a, b in zip(x, x_residual)]", "x = x"),)
        run_lesson_code(11, "matrix = lambda nout", "def gpt(token_id, pos_id, keys, values)", namespace=ns, replace=replace)
        for name in ("layer0.attn_wo", "layer0.mlp_fc2"):  # both blocks give 0: only the residual carries x on
            for row in ns["state_dict"][name]:
                for p in row:
                    p.data = 0.0
        logits = ns["gpt"](4, 0, [[]], [[]])
        cross_entropy(logits, 12).backward()
        return max(abs(p.grad) for p in ns["state_dict"]["wte"][4])

    assert wte_gradient(residual=True) > 1e-3
    assert wte_gradient(residual=False) == 0.0


def test_lesson11_adams_moments_start_too_small_the_correction_fixes_it_and_the_rate_falls_to_0():
    claim(11, "Both averages start at 0, so in the first steps they are too small; dividing them by $1 - \\beta^{t}$ "
              "(step $t$ counted from 1) undoes that")
    claim(11, "The learning rate decays linearly from 0.01 to 0 over the run")
    from micrograd.gpt_training import microgpt_adam

    beta1, beta2, g = 0.85, 0.99, 0.3
    m, v = (1 - beta1) * g, (1 - beta2) * g * g
    assert m < g and v < g * g
    assert m / (1 - beta1) == pytest.approx(g) and v / (1 - beta2) == pytest.approx(g * g)
    p = Value(1.0)
    optimizer = microgpt_adam([p], num_steps=300)
    assert optimizer.learning_rate() == 0.01
    optimizer.steps = 150
    assert optimizer.learning_rate() == pytest.approx(0.005)
    optimizer.steps = 300
    assert optimizer.learning_rate() == 0.0


def test_lesson11_a_lower_temperature_makes_likely_letters_likelier_and_the_package_refuses_0():
    claim(11, "below 1 the likely letters get likelier, and the names tamer; above 1 the choice flattens")
    claim(11, "or raise a `ValueError` that says why 0 is refused (the package's `sample` does that)")
    from micrograd.gpt import sample, token_probabilities

    logits = [Value(z) for z in (2.0, 1.0, 0.5, 3.0)]
    cool, plain, hot = (token_probabilities(logits, t) for t in (0.5, 1.0, 2.0))
    assert max(cool) > max(plain) > max(hot)
    assert cool.index(max(cool)) == plain.index(max(plain)) == 3
    with pytest.raises(ValueError, match="temperature"):
        sample(_gpt(), 26, temperature=0)


def test_lesson11_attention_over_a_whole_name_with_a_mask_gives_what_the_cache_gives():
    claim(11, "Without a KV cache, a model can compute every position at once, as GPT-2 does when it trains: then each "
              "position must be told which keys it may read")
    from micrograd.gpt import attention_head

    rng = random.Random(3)
    qs, ks, vs = ([[Value(rng.gauss(0, 1)) for _ in range(4)] for _ in range(5)] for _ in range(3))
    cached = [[x.data for x in attention_head(qs[t], ks[:t + 1], vs[:t + 1])[0]] for t in range(5)]
    masked = []
    for t in range(5):  # every score at once, the ones after t set to -inf: their weight is exactly 0
        scores = [sum(q.data * k.data for q, k in zip(qs[t], ks[s])) / 2 if s <= t else -math.inf for s in range(5)]
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        masked.append([sum(w * vs[s][j].data for s, w in enumerate(weights)) / sum(weights) for j in range(4)])
    assert all(row == pytest.approx(other, rel=1e-12) for row, other in zip(cached, masked))


def test_lesson11_the_training_step_runs_the_chain_rule_over_a_tape_with_backwards_gradients(monkeypatch):
    claim(11, "The step's `backward` does not walk the graph as `backward()` does")
    claim(11, "since a node is always made after its inputs, that list read backwards is already an order for the chain rule")
    claim(11, "it gives `backward()`'s gradients with less work, added up in another order, so they can differ in their last bits")
    from micrograd.data import CharTokenizer
    from micrograd import engine
    from micrograd.gpt_training import document_loss, microgpt_adam, train_step
    from micrograd.tape import Tape

    tokenizer = CharTokenizer(["emma", "olivia", "ava"])
    taped, walked = _gpt(vocab_size=tokenizer.vocab_size), _gpt(vocab_size=tokenizer.vocab_size)
    tokens = tokenizer.document("olivia")
    tape = Tape()
    loss = document_loss(taped, tokens, tape)
    made = [node for step in tape._steps for node in step]
    place = {node: k for k, node in enumerate(made)}
    assert all(place[child] < place[node] for node in made for child in node._inputs if child._inputs)  # inputs first
    tape.backward(loss)
    by_walk = document_loss(walked, tokens)
    by_walk.backward()
    pairs = list(zip(taped.parameters(), walked.parameters()))
    assert all(p.grad == pytest.approx(q.grad, rel=1e-12, abs=1e-16) for p, q in pairs)  # the last bits
    assert sum(p.grad != q.grad for p, q in pairs) > 0  # not always the same bits: another order of adding

    def no_walk(*args, **kwargs):
        raise AssertionError("train_step walked the graph")

    monkeypatch.setattr(engine, "topological_order", no_walk)
    monkeypatch.setattr(engine.Value, "backward", no_walk)
    train_step(taped, microgpt_adam(taped.parameters(), 10), tokens)
