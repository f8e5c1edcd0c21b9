"""microgpt's training loop, for the package's ``GPT``.

    from micrograd.data import CharTokenizer, names
    from micrograd.gpt import GPT, sample
    from micrograd.gpt_training import train

    docs = names()
    random.seed(42); random.shuffle(docs)        # microgpt's first lines
    tokenizer = CharTokenizer(docs)
    model = GPT(tokenizer.vocab_size)
    losses = train(model, tokenizer, docs, num_steps=1000)
    print(sample(model, tokenizer, temperature=0.5, rng=0))

One training step is microgpt's: one document, ``[BOS] + its characters + [BOS]``, the mean
cross-entropy of each next token, backward, one step of Adam with microgpt's settings
(lr 0.01 falling linearly to 0, betas 0.85 and 0.99, eps 1e-8).
"""

import contextlib
import gc
import numbers

from .losses import fused_cross_entropy
from .optim import Adam, linear_decay
from .tape import Tape

__all__ = ["MICROGPT_ADAM", "microgpt_adam", "document_loss", "train_step", "train", "cycle_collector_paused"]

# microgpt's: learning_rate, beta1, beta2, eps_adam = 0.01, 0.85, 0.99, 1e-8
MICROGPT_ADAM = {"lr": 0.01, "betas": (0.85, 0.99), "eps": 1e-8}


def microgpt_adam(parameters, num_steps):
    """Adam with microgpt's settings, its learning rate falling linearly from 0.01 to 0 over
    ``num_steps`` steps: step k uses ``0.01 * (1 - k / num_steps)``."""
    if isinstance(num_steps, bool) or not isinstance(num_steps, numbers.Integral) or num_steps < 1:
        raise ValueError(f"num_steps must be a positive whole number (the length of the decay), got {num_steps!r}")
    settings = dict(MICROGPT_ADAM)
    settings["lr"] = linear_decay(settings["lr"], 0.0, num_steps)
    return Adam(parameters, **settings)


def document_loss(model, tokens, tape=None):
    """microgpt's loss on one document, ``tokens = [BOS, ..., BOS]``: the mean over positions
    0..n-1 of the cross-entropy of the next token, ``n = min(block_size, len(tokens) - 1)``.

    ``tape``: a ``Tape`` the model and the loss record every node on (``train_step``'s)."""
    tokens = list(tokens)
    if len(tokens) < 2:
        raise ValueError(f"a document needs at least two tokens ([BOS, BOS] at the least) to predict one, got {tokens!r}")
    n = min(model.block_size, len(tokens) - 1)
    logits = model(tokens[:n]) if tape is None else model(tokens[:n], tape=tape)
    losses = [fused_cross_entropy(logits[pos_id], tokens[pos_id + 1]) for pos_id in range(n)]
    made, total = list(losses), losses[0]
    for loss_t in losses[1:]:  # microgpt's sum(losses), without its first 0 + (the same numbers)
        total = total + loss_t
        made.append(total)
    made.append((1 / n) * total)  # the final average loss over the document
    if tape is not None:
        tape.record(made)
    return made[-1]


def train_step(model, optimizer, tokens):
    """One step on one document: loss, backward, the optimiser's step.  Returns the loss (a float).

    The backward runs over a ``Tape`` the forward pass recorded: ``loss.backward()``'s
    gradients (within rounding) without its walk of the graph."""
    with cycle_collector_paused():
        tape = Tape()
        loss = document_loss(model, tokens, tape)
        optimizer.zero_grad()
        tape.backward(loss, leaves=model.parameters())
        optimizer.step()
        loss_number = loss.data
        # Freed before the collector is back: it would otherwise find the whole graph alive
        # among the young objects, and walk it once more, at the first allocation after.
        del tape, loss
    return loss_number


@contextlib.contextmanager
def cycle_collector_paused():
    """Python's cycle collector off for the block, as it was after it.

    A step makes thousands of nodes, and the collector would walk the young ones again and
    again looking for reference cycles.  A graph of this engine has none (a node keeps
    numbers, not closures), so reference counting frees it whole once the loss is dropped,
    and the walks find nothing: pausing them saves their time (benchmarks/gpt.py measures it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def train(model, tokenizer, docs, num_steps, optimizer=None, on_step=None):
    """microgpt's loop: step k trains on ``docs[k % len(docs)]``.  Returns the loss of each step.

    ``optimizer`` defaults to ``microgpt_adam(model.parameters(), num_steps)``;
    ``on_step(step, loss)`` is called after each step (step counts from 1).
    """
    docs = list(docs)
    if not docs:
        raise ValueError("train needs at least one document")
    if optimizer is None:
        optimizer = microgpt_adam(model.parameters(), num_steps)
    losses = []
    for step in range(num_steps):
        loss = train_step(model, optimizer, tokenizer.document(docs[step % len(docs)]))
        losses.append(loss)
        if on_step is not None:
            on_step(step + 1, loss)
    return losses
