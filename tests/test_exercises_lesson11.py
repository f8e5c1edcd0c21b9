"""Lesson 11's checkers: microgpt's own code and other right ways pass, the usual slips are named, stubs are not attempted."""

import random
from pathlib import Path

import pytest
from gpt_answers import (CAUSAL_MASKED, HEAD_LOOPS, HEAD_NUMPY, RMSNORM_LOOPS, RMSNORM_NUMPY, SOFTMAX_LOOPS,
                         SOFTMAX_MAX_AS_A_VALUE, SOFTMAX_NUMPY, STEP_ADAM_WRITTEN_OUT, STEP_BACKWARD_PER_POSITION, STEP_CROSS_ENTROPY, STEP_KEY,
                         STEP_SLIPS, load, load_source, namespace, swapped)

from micrograd.course.carry import saved
from micrograd.course import exercise_titles
from micrograd.course.lessons import lesson11 as check
from micrograd.course.verdicts import TODO
from micrograd.course.lessons.lesson11.exercises import parameter_count_of

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "11_gpt.ipynb"


@pytest.fixture(autouse=True)
def _quiet(capsys):
    yield  # checkers print their verdict; the tests read the returned one


def stub(key):
    """The build-it cell as the lesson gives it, run as the lesson runs it."""
    (code,) = [code for k, code in saved.stored_cells(LESSON) if k == key]
    return load_source(code, key.split(": ", 1)[1])


def test_the_titles_are_in_the_lessons_order():
    assert exercise_titles(11) == ["Build it: softmax", "Build it: RMSNorm", "Build it: one attention head",
                                   "Build it: the training step", "Exercise 1: attention over a whole name",
                                   "Exercise 2: sampling with a temperature", "Exercise 3: the parameters of a GPT"]


@pytest.mark.parametrize("key, checker", [("lesson 11: softmax", check.softmax), ("lesson 11: rmsnorm", check.rmsnorm),
                                          ("lesson 11: attention_head", check.attention_head),
                                          ("lesson 11: training_step", check.training_step)])
def test_the_stubs_are_not_attempted_and_microgpts_own_functions_pass(key, checker):
    assert checker(stub(key)).status == "not attempted"
    assert checker(load(key)).passed


def test_the_exercises_untouched_are_not_attempted():
    def untouched(*args):
        raise NotImplementedError

    for checker in (check.causal_attention, check.sample_next, check.parameter_count):
        assert checker(untouched).status == "not attempted"
    assert check.softmax(TODO).status == "not attempted"


# -- softmax ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", [SOFTMAX_LOOPS, SOFTMAX_NUMPY, SOFTMAX_MAX_AS_A_VALUE],
                         ids=["loops-and-powers", "numpy-object-arrays", "the-max-as-a-value"])
def test_softmax_written_another_way_passes(source):
    assert check.softmax(load_source(source, "softmax")).passed


@pytest.mark.parametrize("swap, words", [
    (("max_val = max(val.data for val in logits)", "max_val = 0"), "exp of a large logit overflows a float"),
    (("max_val = max(val.data for val in logits)", "max_val = -max(val.data for val in logits)"), "overflows"),
    (("return [e / total for e in exps]", "return exps"), "divide each by their total"),
    (("exps = [(val - max_val).exp() for val in logits]", "exps = [val - max_val for val in logits]"), "expected"),
    (("return [e / total for e in exps]", "return [Value(e.data / total.data) for e in exps]"),
     "not connected to them"),
    (("return [e / total for e in exps]", "return [e.data / total.data for e in exps]"), "not a Value"),
    (("return [e / total for e in exps]", "return None"), "returns None"),
])
def test_softmax_slips_are_named(swap, words):
    verdict = check.softmax(load("lesson 11: softmax", swap))
    assert verdict.status == "failed" and words in verdict.message, verdict.message


@pytest.mark.parametrize("shift, words", [
    ("min(val.data for val in logits)", "it subtracts the smallest logit (-1)"),
    ("sum(val.data for val in logits) / len(logits)", "it subtracts their mean (1)"),
    ("logits[0].data", "it subtracts the first logit (2)"),
    ("min(val.data for val in logits) + 0.5", "it subtracts -0.5 from the logits"),
])
def test_a_shift_by_anything_but_the_largest_logit_is_named(shift, words):
    # The numbers are the same for any shift; logits far apart overflow every shift but the largest.
    verdict = check.softmax(load("lesson 11: softmax", ("max(val.data for val in logits)", shift)))
    assert verdict.status == "failed" and words in verdict.message, verdict.message
    assert "microgpt subtracts the largest, 3.5" in verdict.message


def test_negative_logits_far_below_0_without_the_shift_are_named_too():
    def softmax(logits):
        exps = [(v - 2000.0).exp() for v in logits]  # shifted the wrong way: every exp is 0
        total = sum(exps)
        return [e / total for e in exps]

    verdict = check.softmax(softmax)
    assert verdict.status == "failed" and "so is their total" in verdict.message, verdict.message


# -- rmsnorm ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", [RMSNORM_LOOPS, RMSNORM_NUMPY], ids=["loops", "numpy"])
def test_rmsnorm_written_another_way_passes(source):
    assert check.rmsnorm(load_source(source, "rmsnorm")).passed


@pytest.mark.parametrize("swaps, words", [
    ((("(ms + 1e-5) ** -0.5", "ms ** -0.5"),), "the 1e-5 is missing"),
    ((("(ms + 1e-5) ** -0.5", "1 / (ms ** 0.5 + 1e-5)"),), "added after the square root"),
    ((("(ms + 1e-5) ** -0.5", "(ms + 1e-5) ** -1"),), "its square root"),
    ((("sum(xi * xi for xi in x) / len(x)", "sum(x) / len(x)"),), "the mean of the squares"),
    ((("sum(xi * xi for xi in x) / len(x)", "sum(xi * xi for xi in x)"),), "divide it by len(x)"),
    ((("    ms = sum", "    mean = sum(x) / len(x)\n    x = [xi - mean for xi in x]\n    ms = sum"),), "LayerNorm"),
    ((("(ms + 1e-5) ** -0.5", "(ms + 1e-8) ** -0.5"),), "its epsilon is 1e-8; microgpt's is 1e-5"),
    ((("(ms + 1e-5) ** -0.5", "(ms + 0.01) ** -0.5"),), "its epsilon is 0.01; microgpt's is 1e-5"),
])
def test_rmsnorm_slips_are_named(swaps, words):
    verdict = check.rmsnorm(load("lesson 11: rmsnorm", *swaps))
    assert verdict.status == "failed" and words in verdict.message, verdict.message
    assert_shown_apart(verdict.message)


def assert_shown_apart(message):
    """Every "gives X, expected Y" in a message shows X and Y differently."""
    import re

    for got, want in re.findall(r"gives (\[[^]]*\]|[-\d.e]+), expected (\[[^]]*\]|[-\d.e]+)", message):
        assert got != want, message


# -- one attention head ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", [HEAD_LOOPS, HEAD_NUMPY], ids=["loops-and-len", "numpy-object-dot"])
def test_a_head_written_another_way_passes(source):
    assert check.attention_head(load_source(source, "attention_head")).passed


HEAD = "lesson 11: attention_head"
SCORES = "/ head_dim**0.5\n                   for t in range(len(k_h))]"


@pytest.mark.parametrize("swaps, words", [
    (((SCORES, "\n                   for t in range(len(k_h))]"),), "not divided by √head_dim"),
    (((SCORES, "/ head_dim\n                   for t in range(len(k_h))]"),), "divided by head_dim (4)"),
    ((("attn_weights = softmax(attn_logits)", "attn_weights = attn_logits"),), "weights that add up to 1"),
    ((("attn_weights[t] * v_h[t][j]", "attn_weights[t] * k_h[t][j]"),), "it adds up the keys"),
    ((("    return head_out", "    return attn_weights"),), "one per key: the weights"),
    ((("for t in range(len(k_h))]\n", "for t in range(len(k_h) - 1, len(k_h))]\n"),
      ("attn_weights[t] * v_h[t][j] for t in range(len(v_h))", "attn_weights[0] * v_h[-1][j] for t in range(1)")),
     "only the last key"),
])
def test_head_slips_are_named(swaps, words):
    verdict = check.attention_head(load(HEAD, *swaps))
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_a_head_that_fails_through_its_softmax_says_so():
    ns = namespace()
    exec("def softmax(logits):\n    return logits\n", ns)  # a softmax that is not one
    exec(swapped(HEAD), ns)
    verdict = check.attention_head(ns["attention_head"])
    assert verdict.status == "failed" and "The softmax your head calls fails its own check" in verdict.message


# -- the training step ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("swaps", [
    (STEP_BACKWARD_PER_POSITION, ("    return loss.data", "    return lossf")),
    (STEP_ADAM_WRITTEN_OUT,),
    (STEP_CROSS_ENTROPY,),
], ids=["backward-at-each-position", "adam-written-out-with-sqrt", "the-packages-cross-entropy"])
def test_a_training_step_written_another_way_passes(swaps):
    assert check.training_step(load(STEP_KEY, *swaps)).passed


def test_a_step_that_returns_the_loss_value_is_told_to_return_its_number():
    # The task asks for the loss's number: a loss Value kept in a list would keep every step's graph alive.
    verdict = check.training_step(load(STEP_KEY, ("    return loss.data", "    return loss")))
    assert verdict.status == "failed" and "return its number, loss.data" in verdict.message, verdict.message
    assert "returns the loss's number" in stub(STEP_KEY).__doc__  # and the task says so


@pytest.mark.parametrize("slip", list(STEP_SLIPS))
def test_training_step_slips_are_named(slip):
    swaps, words = STEP_SLIPS[slip]
    verdict = check.training_step(load(STEP_KEY, *swaps))
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_an_update_off_by_a_hair_shows_the_losses_with_digits_enough_to_differ():
    swap = ("p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps_adam)", "p.data -= lr_t * m_hat / (v_hat ** 0.5 + 3e-8)")
    verdict = check.training_step(load(STEP_KEY, swap))
    assert verdict.status == "failed" and "learning_rate, beta1, beta2, eps_adam, m_hat, v_hat, lr_t" in verdict.message
    later, expected = verdict.message.split("the later losses are ")[1].split(". Check")[0].split(", expected ")
    assert later != expected and len(later.split(", ")[0]) > len("3.3000"), verdict.message


def test_a_step_that_keeps_adams_moments_elsewhere_is_told_to_update_the_lists_it_is_given():
    swaps = (("    n = min(block_size", "    m, v = M, V\n    n = min(block_size"),)
    ns = namespace()
    ns.update(M=[0.0] * 2000, V=[0.0] * 2000)
    exec(swapped(STEP_KEY, *swaps), ns)
    verdict = check.training_step(ns["training_step"])
    assert verdict.status == "failed" and "does not update the m and v it is given" in verdict.message


def test_a_cache_made_outside_the_step_that_breaks_the_model_is_still_named():
    ns = namespace()
    ns["keys"], ns["values"] = [[[1.0] * 16]], [[[1.0] * 16]]  # the lesson's own cache, from another model
    exec(swapped(STEP_KEY, ("    keys, values = [[] for _ in range(n_layer)], [[] for _ in range(n_layer)]\n", "")), ns)
    verdict = check.training_step(ns["training_step"])
    assert verdict.status == "failed" and "KV cache is kept" in verdict.message, verdict.message


def test_the_training_check_leaves_pythons_random_numbers_alone():
    random.seed(5)
    before = random.random()
    random.seed(5)
    check.training_step(load(STEP_KEY))
    assert random.random() == before


# -- exercise 1: attention over a whole name ----------------------------------------------------------------------

def causal(body):
    return load_source(f"def causal_attention(qs, ks, vs):\n    return {body}\n", "causal_attention")


@pytest.mark.parametrize("body", [
    "[attention_head(qs[t], ks[:t + 1], vs[:t + 1]) for t in range(len(qs))]",
    "[attention_head(q, ks[:t + 1], vs[:t + 1]) for t, q in enumerate(qs)]",
])
def test_causal_attention_right_answers_pass(body):
    assert check.causal_attention(causal(body)).passed


def test_causal_attention_written_with_a_cache_passes():
    source = '''
def causal_attention(qs, ks, vs):
    keys, values, out = [], [], []
    for q, k, v in zip(qs, ks, vs):
        keys.append(k)
        values.append(v)
        out.append(attention_head(q, keys, values))
    return out
'''
    assert check.causal_attention(load_source(source, "causal_attention")).passed


def test_a_mask_of_a_large_negative_number_passes():
    assert check.causal_attention(load_source(CAUSAL_MASKED.replace("MASK", "-1e9"), "causal_attention")).passed


@pytest.mark.parametrize("mask", ["Value(float('-inf'))", "float('-inf')", "-math.inf"])
def test_a_mask_of_minus_infinity_is_told_why_a_value_refuses_it_and_what_to_use(mask):
    verdict = check.causal_attention(load_source(CAUSAL_MASKED.replace("MASK", mask), "causal_attention"))
    assert verdict.status == "failed", verdict.message
    assert "A Value refuses a mask of -inf, GPT-2's way, because it holds finite numbers only" in verdict.message
    assert "-1e9" in verdict.message, verdict.message
    assert "Does position 0 read no key" not in verdict.message


@pytest.mark.parametrize("body, words", [
    ("[attention_head(qs[t], ks, vs) for t in range(len(qs))]", "looks at later positions"),
    ("[attention_head(qs[t], ks[:t], vs[:t]) for t in range(len(qs))]", "keys up to and including its own"),
    ("[attention_head(qs[t], ks[t:t + 1], vs[t:t + 1]) for t in range(len(qs))]", "only its own key"),
    ("attention_head(qs[-1], ks, vs)", "one output per position"),
    ("[attention_head(qs[t], ks[:t + 1], vs[:t + 1]) for t in range(len(qs) - 1)]", "for a name of 4 positions"),
    ("[attention_head(qs[0], ks[:t + 1], vs[:t + 1]) for t in range(len(qs))]",
     "position 1 gives [0.05898, -0.05716, 0.5875, -0.4857], expected [0.4303, -0.2319, 0.4346, -0.1362], the first "
     "position that differs"),
])
def test_causal_attention_slips_are_named(body, words):
    verdict = check.causal_attention(causal(body))
    assert verdict.status == "failed" and words in verdict.message, verdict.message
    assert_shown_apart(verdict.message)


# -- exercise 2: sampling with a temperature ------------------------------------------------------------------------

MICROGPT_SAMPLING = '''
def sample_next(logits, temperature):
    if temperature == 0:
        return max(range(len(logits)), key=lambda i: logits[i].data)
    probs = softmax([l / temperature for l in logits])
    return random.choices(range(len(logits)), weights=[p.data for p in probs])[0]
'''


def sampler(source):
    return load_source(source, "sample_next")


def test_sampling_right_answers_pass():
    assert check.sample_next(sampler(MICROGPT_SAMPLING)).passed
    refusing = MICROGPT_SAMPLING.replace("        return max(range(len(logits)), key=lambda i: logits[i].data)",
                                         "        raise ValueError('temperature 0 divides by zero; use a small one')")
    verdict = check.sample_next(sampler(refusing))
    assert verdict.passed and "refused" in verdict.message
    by_hand = '''
def sample_next(logits, temperature):
    if temperature == 0:
        return max(range(len(logits)), key=lambda i: logits[i].data)
    scaled = [l.data / temperature for l in logits]
    top = max(scaled)
    weights = [math.exp(s - top) for s in scaled]
    r = random.random() * sum(weights)
    for i, w in enumerate(weights):
        r -= w
        if r < 0:
            return i
    return len(weights) - 1
'''
    assert check.sample_next(sampler(by_hand)).passed


def test_sampling_with_numpys_generator_passes_seeded_by_the_check():
    import numpy as np  # installed with the course (make setup): this test always runs
    source = '''
import numpy as np

def sample_next(logits, temperature):
    if temperature == 0:
        return int(np.argmax([l.data for l in logits]))
    z = np.array([l.data for l in logits]) / temperature
    p = np.exp(z - z.max())
    return int(np.random.choice(len(p), p=p / p.sum()))
'''
    state = np.random.get_state()
    assert check.sample_next(sampler(source)).passed
    assert all((a == b).all() if hasattr(a, "all") else a == b for a, b in zip(np.random.get_state(), state))


@pytest.mark.parametrize("swap, words", [
    (("weights=[p.data for p in probs]", "weights=[l.data for l in logits]"), "in proportion to the logits"),
    (("[l / temperature for l in logits]", "[l * temperature for l in logits]"), "multiplied by the temperature"),
    (("[l / temperature for l in logits]", "logits"), "the temperature changes nothing"),
    (("    probs = softmax", "    return max(range(len(logits)), key=lambda i: logits[i].data)\n    probs = softmax"),
     "always picks the most likely token"),
    (("    if temperature == 0:\n        return max(range(len(logits)), key=lambda i: logits[i].data)\n", ""),
     "at temperature 0 it divides by zero"),
    (("weights=[p.data for p in probs]", "weights=[p.data ** 2 for p in probs]"), "expected about"),
    (("return random.choices(range(len(logits))", "return 'abcde'[random.choices(range(len(logits))"),
     "return the token id"),
])
def test_sampling_slips_are_named(swap, words):
    source = MICROGPT_SAMPLING.replace(*swap)
    assert source != MICROGPT_SAMPLING
    if "'abcde'[" in source:
        source = source.replace("[p.data for p in probs])[0]", "[p.data for p in probs])[0]]")
    verdict = check.sample_next(sampler(source))
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_sampling_that_ignores_the_seed_is_named():
    source = MICROGPT_SAMPLING.replace("random.choices", "random.SystemRandom().choices")
    verdict = check.sample_next(sampler(source))
    assert verdict.status == "failed" and "random.seed" in verdict.message


def test_the_sampling_check_leaves_pythons_random_numbers_alone():
    random.seed(9)
    before = random.random()
    random.seed(9)
    check.sample_next(sampler(MICROGPT_SAMPLING))
    assert random.random() == before


# -- exercise 3: counting parameters ----------------------------------------------------------------------------------

def test_the_count_is_the_package_gpts():
    from micrograd.nn import GPT

    for sizes in [(27, 16, 16, 1), (27, 16, 16, 2), (11, 8, 5, 3)]:
        vocab_size, n_embd, block_size, n_layer = sizes
        model = GPT(vocab_size, block_size=block_size, n_embd=n_embd, n_head=4, n_layer=n_layer)
        assert len(model.parameters()) == parameter_count_of(*sizes)


@pytest.mark.parametrize("answer", [
    lambda V, n, B, L: 2 * V * n + B * n + L * 12 * n**2,
    lambda V, n, B, L: sum(rows * cols for rows, cols in [(V, n), (B, n), (V, n)] + L * [(n, n)] * 4
                           + L * [(4 * n, n), (n, 4 * n)]),
    lambda V, n, B, L: float(V * n * 2 + n * B + 12 * L * n * n),
])
def test_parameter_count_right_answers_pass(answer):
    verdict = check.parameter_count(answer)
    assert verdict.passed and "4,192" in verdict.message and "3,072 more" in verdict.message


@pytest.mark.parametrize("answer, words", [
    (lambda V, n, B, L: V * n + B * n + L * 12 * n * n, "lm_head is missing: microgpt's lm_head is a vocab_size × n_embd "
                                                        "matrix of its own (GPT-2 ties"),
    (lambda V, n, B, L: 2 * V * n + B * n + L * (12 * n * n + 9 * n), "it counts biases (the attention's four biases, the "
                                                                    "MLP's two biases), and microgpt has none"),
    (lambda V, n, B, L: 2 * V * n + B * n + L * (12 * n * n + 9 * n) + V, "lm_head's bias), and microgpt has none"),
    (lambda V, n, B, L: V * n + B * n + L * (12 * n * n + 9 * n) + (2 * L + 1) * 2 * n,  # GPT-2's count, in full
     "lm_head is missing"),
    (lambda V, n, B, L: V * n + B * n + L * (12 * n * n + 9 * n) + (2 * L + 1) * 2 * n, "LayerNorm's weight and bias"),
    (lambda V, n, B, L: 2 * V * n + B * n + L * 12 * n * n + (2 * L + 1) * n, "microgpt's RMSNorm has no weights"),
    (lambda V, n, B, L: 2 * V * n + L * 12 * n * n, "position embeddings are missing"),
    (lambda V, n, B, L: 2 * V * n + B * n + L * 6 * n * n, "4 times as wide"),
    (lambda V, n, B, L: 2 * V * n + B * n + 12 * n * n, "multiply them by n_layer"),
    (lambda V, n, B, L: 2 * V * n + B * n + L * 4 * n * n, "the MLP's two are missing"),
    (lambda V, n, B, L: 4192, "expected"),
    (lambda V, n, B, L: "4192", "a whole number"),
])
def test_parameter_count_slips_are_named(answer, words):
    verdict = check.parameter_count(answer)
    assert verdict.status == "failed" and words in verdict.message, verdict.message


def test_an_answer_that_is_not_a_function_is_told_to_pass_the_function():
    verdict = check.softmax([0.5, 0.5])
    assert verdict.status == "failed" and "pass the function itself" in verdict.message
