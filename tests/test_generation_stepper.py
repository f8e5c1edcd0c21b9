"""GenerationStepper: a GPT's name one token per click, driven here without a browser."""

import bisect
import itertools
import re

import pytest

from micrograd import GPT
from micrograd.data import CharTokenizer, names
from micrograd.gpt import sample, token_probabilities
from micrograd.widgets import GenerationStepper
from micrograd.widgets.generation_html import BAR_PX, CELL_PX, DRAW_BAR_PX
from micrograd.viz import PAGE_WIDTH_PX


@pytest.fixture(scope="module")
def tokenizer():
    return CharTokenizer(names())


@pytest.fixture(scope="module")
def model(tokenizer):
    return GPT(tokenizer.vocab_size, rng=42)


def clicks_to_the_end(stepper):
    while not stepper.done:
        stepper.step_button.click()
    return stepper.name


@pytest.mark.parametrize("temperature, seed", [(0.5, 0), (0.5, 1), (1.0, 2), (1.5, 3), (0.3, 4)])
def test_clicking_step_draws_the_name_sample_draws(model, tokenizer, temperature, seed):
    stepper = GenerationStepper(model, tokenizer, temperature=temperature, seed=seed)
    name = clicks_to_the_end(stepper)
    assert name == sample(model, tokenizer, temperature=temperature, rng=seed)
    assert stepper.step_button.disabled and stepper.end_button.disabled
    last = stepper.steps[-1]
    assert last.token == tokenizer.bos or len(stepper.steps) == model.block_size


def test_different_seeds_draw_different_names(model, tokenizer):
    drawn = {clicks_to_the_end(GenerationStepper(model, tokenizer, temperature=1.0, seed=seed)) for seed in range(6)}
    assert len(drawn) > 1  # so the comparison with sample() above is not between constants


def test_each_step_shows_what_it_drew_from(model, tokenizer):
    stepper = GenerationStepper(model, tokenizer, temperature=0.7, seed=5)
    stepper.step_button.click()
    stepper.step_button.click()
    step = stepper.steps[-1]
    assert step.position == 1 and step.read == stepper.tokens[1]
    # The probabilities are the model's at this temperature, from the tokens read so far.
    logits = model(stepper.tokens[:2])[-1]
    assert step.probabilities == pytest.approx(token_probabilities(logits, 0.7), abs=1e-12)
    # random.choices picks the token whose stretch of the cumulative sum holds u · total.
    cumulative = list(itertools.accumulate(step.probabilities))
    assert bisect.bisect(cumulative, step.u * cumulative[-1]) == step.token
    # Each head's attention from this position: the same as a full forward pass gives.
    assert [[len(w) for w in layer] for layer in step.attention] == [[2] * model.n_head]
    for h in range(model.n_head):
        assert step.attention[0][h] == pytest.approx(model.attention[0][h][1], abs=1e-12)
    # The panels say it.
    drawn = tokenizer.symbol(step.token)
    panel = stepper.choice_panel.value
    assert re.search(r'class="micrograd-bar micrograd-drawn".*?' + re.escape(drawn), panel)
    assert f"u = {step.u:.3f}" in panel
    assert "micrograd-draw-marker" in panel
    assert f"{100 * max(step.probabilities):.1f}%" in panel
    attention = stepper.attention_panel.value
    assert attention.count("head ") == model.n_head
    assert f"{step.attention[0][0][0]:.2f}"[1:] in attention or step.attention[0][0][0] >= 0.995
    assert "class='micrograd-step'>2<" in stepper.status.value


def test_back_takes_one_step_back_and_step_repeats_it(model, tokenizer):
    stepper = GenerationStepper(model, tokenizer, temperature=1.0, seed=11)
    for _ in range(3):
        stepper.step()
    third = stepper.steps[-1]
    stepper.back_button.click()
    assert len(stepper.steps) == 2 and len(stepper.tokens) == 3
    again = stepper.step()
    assert (again.token, again.u, again.probabilities) == (third.token, third.u, third.probabilities)


def test_reset_starts_the_same_name_again_and_to_end_finishes_it(model, tokenizer):
    stepper = GenerationStepper(model, tokenizer, temperature=1.0, seed=3)
    stepper.end_button.click()
    name = stepper.name
    assert stepper.done and not stepper.back_button.disabled
    stepper.reset_button.click()
    assert stepper.steps == [] and stepper.tokens == [tokenizer.bos] and stepper.back_button.disabled
    assert "Press Step" in stepper.choice_panel.value and stepper.attention_panel.value == ""
    assert clicks_to_the_end(stepper) == name
    assert stepper.step() is None  # a finished name takes no more steps


def test_the_temperature_slider_and_the_seed_box_start_again(model, tokenizer):
    stepper = GenerationStepper(model, tokenizer, temperature=1.0, seed=0)
    stepper.step()
    stepper.temperature_slider.value = 0.25
    assert stepper.temperature == 0.25 and stepper.steps == []
    assert clicks_to_the_end(stepper) == sample(model, tokenizer, temperature=0.25, rng=0)
    stepper.seed_box.value = 8
    assert stepper.seed == 8 and stepper.steps == []
    assert clicks_to_the_end(stepper) == sample(model, tokenizer, temperature=0.25, rng=8)
    stepper.set_temperature(3.0)  # beyond the slider: the slider widens, the temperature is not clipped
    assert stepper.temperature == 3.0 and stepper.temperature_slider.value == 3.0 and stepper.temperature_slider.max == 3.0
    assert clicks_to_the_end(stepper) == sample(model, tokenizer, temperature=3.0, rng=8)


def test_a_full_block_ends_the_name(tokenizer):
    small = GPT(tokenizer.vocab_size, block_size=3, rng=0)
    for seed in range(40):
        stepper = GenerationStepper(small, tokenizer, temperature=2.0, seed=seed)
        stepper.to_end()
        if tokenizer.bos not in [s.token for s in stepper.steps]:
            break
    else:
        pytest.fail("no seed ran the block full")
    assert len(stepper.steps) == 3 and len(stepper.name) == 3
    assert stepper.name == sample(small, tokenizer, temperature=2.0, rng=seed)
    assert "the block is full (3 positions)" in stepper.name_panel.value


def test_the_static_picture_shows_the_state(model, tokenizer):
    stepper = GenerationStepper(model, tokenizer, temperature=0.5, seed=2)
    stepper.to_end()
    bundle = stepper._repr_mimebundle_()
    assert bundle["text/plain"] == stepper.summary()
    assert stepper.summary().startswith(f"GenerationStepper: {stepper.name!r} ended after {len(stepper.steps)} steps")
    picture = bundle["text/html"]
    assert "run the notebook to use it" in picture
    for part in (stepper.name_panel.value, stepper.choice_panel.value, stepper.attention_panel.value):
        assert part and part in picture
    assert "<svg" not in picture  # nothing JupyterLab would strip from an untrusted notebook
    assert "&lt;BOS&gt;" in picture and "<BOS>" not in picture


def test_the_panels_fit_the_page_side_by_side():
    # The bars' panel (label, bar, percentage) and the attention panel (a head's label and a
    # cell per position of a full block) side by side with their gap.
    bars = max(DRAW_BAR_PX, 58 + BAR_PX + 90)
    attention = 60 + 16 * (CELL_PX + 1)
    assert bars + 18 + attention <= PAGE_WIDTH_PX


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(temperature=0), "greater than 0"),
        (dict(temperature=-1.0), "greater than 0"),
        (dict(seed=-1), "seed"),
        (dict(seed=1.5), "seed"),
        (dict(top=0), "top"),
    ],
)
def test_bad_settings_are_explained(model, tokenizer, kwargs, message):
    with pytest.raises(ValueError, match=message):
        GenerationStepper(model, tokenizer, **kwargs)


def test_a_model_or_tokenizer_of_another_kind_is_explained(model, tokenizer):
    with pytest.raises(TypeError, match="needs a GPT"):
        GenerationStepper(object(), tokenizer)
    with pytest.raises(TypeError, match="CharTokenizer"):
        GenerationStepper(model, object())
    with pytest.raises(ValueError, match="the tokenizer has 4 tokens but the model 27"):
        GenerationStepper(model, CharTokenizer(["abc"]))


def test_a_screen_reader_hears_each_letter_drawn_and_the_name_so_far(model, tokenizer):
    """The live region says nothing until a press; after a step, in one sentence, what was drawn."""
    stepper = GenerationStepper(model, tokenizer, seed=3)
    assert stepper.live.text == "" and "role=" not in stepper.status.value
    step = stepper.step()
    drawn = stepper.symbols[step.token]
    assert stepper.live.text == (f"Step 1: drew {drawn!r} with probability {step.probabilities[step.token]:.2f}; "
                                 f"the name so far is {stepper.name!r}.")
    stepper.to_end()
    # An untrained model: the name runs until the block is full.
    assert stepper.live.text == f"Drew 15 more tokens: the block is full (16 positions), the name is {stepper.name!r}."
    assert all(word in stepper.widget.children[-1].value for word in (":focus-visible", "outline"))  # the focus ring's CSS
