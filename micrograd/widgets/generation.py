"""GenerationStepper: a GPT makes up a name one letter at a time, and shows how it chose each."""

import html
import random

from ..gpt import token_probabilities
from ._base import Controller, message_html, static_html, widgets
from .accessible import LiveRegion, on_press, page_support
from .generation_html import CHOICE_PX, attention_html, draw_html, name_html, panel, probabilities_html, row

__all__ = ["GenerationStepper"]

TEMPERATURE_RANGE = (0.05, 2.0)


class GenerationStepper(Controller):
    """Generate a name with ``model`` one token per click, microgpt's way.

    ``GenerationStepper(model, tokenizer, temperature=0.5, seed=0)``: ``model`` is a
    ``micrograd.nn.GPT`` (anything with ``vocab_size``, ``block_size``, ``new_cache()`` and
    ``forward_token(token_id, cache)``), ``tokenizer`` a ``CharTokenizer`` (``bos``,
    ``symbol(id)``, ``decode(ids)``).  From BOS, each step reads the last token through the KV
    cache, turns its logits into probabilities at ``temperature`` and draws the next token with
    ``random.Random(seed)``, as ``sample(model, tokenizer, temperature, rng=seed)`` does: the
    same seed and temperature give the same name.  The name ends when BOS is drawn or the block
    is full.

    Each step shows the name so far, the ``top`` likeliest next tokens with the drawn one
    marked, where the random number fell among all the tokens' probabilities laid end to end,
    and each head's attention from the position just read to the tokens so far.

    The buttons call ``step()``, ``back()``, ``to_end()`` and ``reset()``; the temperature
    slider and the seed box start the name again (``set_temperature``, ``set_seed``).
    """

    def __init__(self, model, tokenizer, temperature=0.5, seed=0, *, top=8):
        for name in ("vocab_size", "block_size", "new_cache", "forward_token"):
            if not hasattr(model, name):
                raise TypeError(
                    f"GenerationStepper needs a GPT (micrograd.nn.GPT): {type(model).__name__} has no {name}"
                )
        for name in ("bos", "symbol", "decode"):
            if not hasattr(tokenizer, name):
                raise TypeError(
                    f"GenerationStepper needs the tokenizer the model was trained with (a CharTokenizer): "
                    f"{type(tokenizer).__name__} has no {name}"
                )
        if getattr(tokenizer, "vocab_size", model.vocab_size) != model.vocab_size:
            raise ValueError(
                f"the tokenizer has {tokenizer.vocab_size} tokens but the model {model.vocab_size}: "
                "give the tokenizer the model was made for"
            )
        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise ValueError(f"top is how many of the likeliest tokens to show as bars, a whole number ≥ 1, got {top!r}")
        self.model = model
        self.tokenizer = tokenizer
        self.bos = tokenizer.bos
        self.symbols = [tokenizer.symbol(i) for i in range(model.vocab_size)]
        self.top = top
        self.temperature = _checked_temperature(temperature)
        self.seed = _checked_seed(seed)
        self._build_widgets()
        self.reset(say=False)  # a stepper just drawn says nothing until it is used

    # -- the state -------------------------------------------------------------------------

    @property
    def name(self):
        """The name drawn so far, as text (BOS left out)."""
        return self.tokenizer.decode(self.tokens[1:])

    @property
    def done(self):
        """Whether the name has ended: BOS drawn, or the block full."""
        return bool(self.steps) and (self.steps[-1].token == self.bos or len(self.steps) == self.model.block_size)

    @property
    def position(self):
        """How many steps have been taken: the position the next step reads."""
        return len(self.steps)

    def _build_widgets(self):
        button = {"width": "118px"}
        self.step_button = widgets.Button(description="Step", tooltip="draw the next letter", layout=button)
        self.back_button = widgets.Button(description="Back", tooltip="take back the last letter", layout=button)
        self.end_button = widgets.Button(description="To the end", tooltip="draw until the name ends", layout=button)
        self.reset_button = widgets.Button(description="Reset", tooltip="start again from BOS", layout=button)
        low, high = TEMPERATURE_RANGE
        self.temperature_slider = widgets.FloatSlider(
            value=self.temperature, min=min(low, self.temperature), max=max(high, self.temperature), step=0.05, readout_format=".2f",
            description="temperature", continuous_update=False, layout={"width": "330px"},
            style={"description_width": "86px"},
        )
        self.seed_box = widgets.BoundedIntText(value=self.seed, min=0, max=2**31 - 1, description="seed", layout={"width": "150px"},
                                               style={"description_width": "40px"})
        self.status = widgets.HTML()
        self.name_panel = widgets.HTML()
        self.choice_panel = widgets.HTML()
        self.attention_panel = widgets.HTML()
        self.live = LiveRegion()  # what a screen reader says after a press, in one sentence
        # A button that disables itself hands the focus on: at the name's end, to Reset; at BOS, to Step.
        on_press(self.step_button, self.step, self.reset_button)
        on_press(self.back_button, self.back, self.step_button)
        on_press(self.end_button, self.to_end, self.reset_button)
        on_press(self.reset_button, self.reset, self.step_button)
        self.temperature_slider.observe(lambda change: self.set_temperature(change["new"]), names="value")
        self.seed_box.observe(lambda change: self.set_seed(change["new"]), names="value")
        buttons = widgets.HBox([self.step_button, self.back_button, self.end_button, self.reset_button])
        settings = widgets.HBox([self.temperature_slider, self.seed_box])
        panels = widgets.HBox([self.choice_panel, self.attention_panel], layout={"flex_flow": "row wrap"})
        self.widget = widgets.VBox([buttons, settings, self.status, self.live.widget, self.name_panel, panels, page_support()])
        self.widget.add_class("micrograd-generation-stepper")
        self.status.add_class("micrograd-status")
        self.choice_panel.add_class("micrograd-choice")
        self.attention_panel.add_class("micrograd-attention-panel")

    # -- what the buttons do -------------------------------------------------------------------

    def step(self, redraw=True):
        """Read the last token, draw the next one; returns the step (None once the name has ended)."""
        if self.done:
            return None
        position = len(self.steps)
        read = self.tokens[-1]
        logits = self.model.forward_token(read, self.cache)
        probabilities = token_probabilities(logits, self.temperature)
        before = self.rng.getstate()
        # The very call sample() makes, so the same seed draws the same token.
        token = self.rng.choices(range(self.model.vocab_size), weights=probabilities)[0]
        replay = random.Random()
        replay.setstate(before)
        u = replay.random()  # what choices() drew: the token whose stretch of the cumulative sum holds u · total
        attention = [[heads[-1] for heads in layer] for layer in self.cache.attention]
        record = GenerationStep(position, read, probabilities, u, token, attention)
        self.steps.append(record)
        if token != self.bos:
            self.tokens.append(token)
        if redraw:
            self.redraw()
            self.live.say(self._step_sentence())
        return record

    def to_end(self):
        """Draw until the name ends."""
        taken = len(self.steps)
        while not self.done:
            self.step(redraw=False)
        self.redraw()
        count = len(self.steps) - taken
        self.live.say(f"Drew {count} more token{'s' * (count != 1)}: {self._ending()}.")

    def back(self):
        """Take back the last step: the same steps again from BOS, one fewer (the draws are seeded)."""
        if not self.steps:
            return
        count = len(self.steps) - 1
        self._start()
        for _ in range(count):
            self.step(redraw=False)
        self.redraw()
        self.live.say(f"Took back the last letter: the name so far is {self.name!r}, after {count} step{'s' * (count != 1)}.")

    def reset(self, say=True):
        """Back to BOS with the seed's first random number: the same name again, step by step
        (``say``: in the live region too)."""
        self._start()
        self.redraw()
        if say:
            self.live.say(f"Back at BOS, at temperature {self.temperature:.2f} with seed {self.seed}: Step draws the first letter.")

    def set_temperature(self, temperature):
        """Generate at ``temperature`` from now on, starting the name again (the slider follows)."""
        self.temperature = _checked_temperature(temperature)
        slider = self.temperature_slider
        if slider.value != self.temperature:
            # A temperature beyond the slider widens it rather than being clipped to it.
            slider.min, slider.max = min(slider.min, self.temperature), max(slider.max, self.temperature)
            slider.value = self.temperature  # its observer calls back here, once
            return
        self.reset()

    def set_seed(self, seed):
        """Draw with ``random.Random(seed)``, starting the name again."""
        self.seed = _checked_seed(seed)
        if self.seed_box.value != self.seed:
            self.seed_box.value = self.seed
            return
        self.reset()

    def _start(self):
        self.rng = random.Random(self.seed)
        self.cache = self.model.new_cache()
        self.tokens = [self.bos]
        self.steps = []

    # -- display -------------------------------------------------------------------------

    def redraw(self):
        done, empty = bool(self.done), not self.steps
        self.step_button.disabled = self.end_button.disabled = done
        self.back_button.disabled = self.reset_button.disabled = empty
        self.status.value = self._status_html()
        self.name_panel.value = self._name_html()
        self.choice_panel.value = self._choice_html()
        self.attention_panel.value = self._attention_html()

    def _status_html(self):
        return (
            f"step <b class='micrograd-step'>{len(self.steps)}</b> of at most {self.model.block_size} · "
            f"temperature {self.temperature:.2f} · seed {self.seed}"
        )

    def _step_sentence(self):
        """What a screen reader hears after a step: the letter drawn, its probability, the name so far."""
        last = self.steps[-1]
        drawn = self.symbols[last.token]
        sentence = (f"Step {len(self.steps)}: drew {drawn!r} with probability {last.probabilities[last.token]:.2f}; "
                    f"the name so far is {self.name!r}")
        return sentence + (f"; {self._ending()}." if self.done else ".")

    def _ending(self):
        """How the name ended (the name ended)."""
        if self.steps and self.steps[-1].token == self.bos:
            return f"BOS drawn, the name is {self.name!r}"
        return f"the block is full ({self.model.block_size} positions), the name is {self.name!r}"

    def _name_html(self):
        symbols = [self.symbols[t] for t in self.tokens]
        if not self.steps:
            return name_html(symbols)
        last = self.steps[-1]
        done = None
        if last.token == self.bos:
            done = f"BOS drawn: the name is {self.name!r}"
        elif len(self.steps) == self.model.block_size:
            done = f"the block is full ({self.model.block_size} positions): the name is {self.name!r}"
        return name_html(symbols, self.symbols[last.token], done)

    def _choice_html(self):
        if not self.steps:
            return message_html(
                f"Press Step: the model reads {self.symbols[self.bos]} at position 0 and gives the first "
                "letter's probabilities; a random number picks one."
            )
        last = self.steps[-1]
        read = self.symbols[last.read]
        bars = probabilities_html(self.symbols, last.probabilities, last.token, self.top)
        fell = draw_html(self.symbols, last.probabilities, last.token, last.u)
        title = f"After {read!r} at position {last.position}: the next token, at temperature {self.temperature:.2f}"
        caption = (
            "<div style='font-size:12px;margin-top:6px'>The same probabilities end to end, in token order; "
            f"the random number u = {last.u:.3f} falls in {html.escape(repr(self.symbols[last.token]))}</div>"
        )
        return panel(title, bars + caption + fell, "micrograd-probabilities", width=CHOICE_PX)

    def _attention_html(self):
        if not self.steps:
            return ""
        last = self.steps[-1]
        symbols = [self.symbols[t] for t in self.tokens[: last.position + 1]]
        title = f"Each head's attention from position {last.position} ({self.symbols[last.read]!r})"
        return panel(title, attention_html(symbols, last.attention), "micrograd-attention-heads")

    def static_html(self):
        body = (
            f"<div>{self.status.value}</div>{self.name_panel.value}"
            f"{row(self.choice_panel.value, self.attention_panel.value)}"
        )
        return static_html(body)

    def summary(self):
        state = "ended" if self.done else "so far"
        return (
            f"GenerationStepper: {self.name!r} {state} after {len(self.steps)} step{'s' * (len(self.steps) != 1)}, "
            f"temperature {self.temperature:g}, seed {self.seed}"
        )


class GenerationStep:
    """One step: at ``position`` the model read token ``read``, gave ``probabilities`` (one per
    token), and the uniform number ``u`` picked ``token``; ``attention[layer][head]`` is what each
    head gave positions 0..position."""

    __slots__ = ("position", "read", "probabilities", "u", "token", "attention")

    def __init__(self, position, read, probabilities, u, token, attention):
        self.position, self.read, self.probabilities = position, read, probabilities
        self.u, self.token, self.attention = u, token, attention

    def __repr__(self):
        return f"<GenerationStep {self.position}: read {self.read}, drew {self.token} (u = {self.u:.3f})>"


def _checked_temperature(temperature):
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 < temperature < float("inf"):
        raise ValueError(
            f"temperature must be a number greater than 0, got {temperature!r}: it divides the logits "
            "(small: the likeliest letters almost always; 1: the model's own probabilities; above 1: flatter)"
        )
    return float(temperature)


def _checked_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed is a whole number ≥ 0 for random.Random(seed), got {seed!r}")
    return seed
