"""How long the GPT lesson's pictures and its generation stepper take.

For microgpt's model (vocabulary 27, 16 numbers per position, 4 heads, 1 layer, block 16):

- one GenerationStepper step: the forward pass of one position through the KV cache, the
  draw, and the redraw of its panels (the target: under 0.1 s), and the redraw alone;
- a whole name (To the end), and Back (which replays the seeded steps from BOS);
- attention_heatmaps and loss_curve: making the figure and its PNG at twice the pixels;
- draw_gpt: the DOT text, and its SVG.

Times are the median of ``--repeat`` runs, measured side by side in one process; no figure
here is checked by a test.

    python benchmarks/bench_gpt_pictures.py [--repeat 20]
"""

import argparse
import random
import statistics
import time

from micrograd import GPT
from micrograd.data import CharTokenizer, names
from micrograd.viz import attention_heatmaps, draw_gpt, loss_curve
from micrograd.widgets import GenerationStepper

TARGET_STEP_SECONDS = 0.1


def median_of(repeat, action, before=None):
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="runs per measurement; the median is shown")
    repeat = parser.parse_args().repeat
    tokenizer = CharTokenizer(names())
    model = GPT(tokenizer.vocab_size, rng=42)
    stepper = GenerationStepper(model, tokenizer, temperature=1.0, seed=0)

    def fresh_if_done():
        if stepper.done:
            stepper.reset()

    rows = []
    step = median_of(repeat, stepper.step, before=fresh_if_done)
    rows.append(("GenerationStepper: one step (forward, draw, redraw)", step))
    rows.append(("GenerationStepper: the redraw alone", median_of(repeat, stepper.redraw)))
    stepper.reset()
    rows.append(("GenerationStepper: To the end (a whole name)", median_of(repeat, stepper.to_end, before=stepper.reset)))
    rows.append(("GenerationStepper: Back (replays the steps)", median_of(repeat, stepper.back, before=stepper.to_end)))

    tokens = tokenizer.document("christopher")[:-1]
    model(tokens)
    letters = [tokenizer.symbol(t) for t in tokens]
    rows.append(("attention_heatmaps, 12 positions, with its PNG", median_of(max(3, repeat // 4), lambda: attention_heatmaps(model.attention[0], letters).png())))
    rng = random.Random(0)
    losses = [3.3 - k / 500 + rng.gauss(0, 0.3) for k in range(1000)]
    rows.append(("loss_curve, 1000 steps, with its PNG", median_of(max(3, repeat // 4), lambda: loss_curve(losses, 27).png())))
    rows.append(("draw_gpt: the DOT text", median_of(repeat, lambda: draw_gpt(model, letters).source)))
    rows.append(("draw_gpt: the DOT text and its SVG", median_of(max(3, repeat // 4), lambda: draw_gpt(model, letters).svg())))

    width = max(len(label) for label, _ in rows)
    for label, seconds in rows:
        print(f"{label:<{width}}  {seconds * 1000:8.1f} ms")
    verdict = "meets" if step < TARGET_STEP_SECONDS else "MISSES"
    print(f"one step: {step * 1000:.1f} ms, {verdict} the target of {TARGET_STEP_SECONDS * 1000:.0f} ms")


if __name__ == "__main__":
    main()
