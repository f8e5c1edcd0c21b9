"""Every benchmark, side by side in one run: this project, micrograd 0.1.0, PyTorch, microgpt.

    make bench                                  # python benchmarks/run_all.py
    python benchmarks/run_all.py --steps 100    # the demo's full 100 steps (0.1.0 then takes minutes)

Each measurement runs in a fresh interpreter: this project's with this
interpreter, micrograd 0.1.0's in its own environment made with this
interpreter's version (on the first run, see ``reference_env.py``), PyTorch's
when torch is installed.  The figures depend on the Python version as well as
on the machine, so the table starts with the version, and every engine must
have run on it.  Times are
CPU time, averaged over steps or samples, since the machine may be shared;
the table quotes them as ratios.  The table is printed and saved to
``results/latest.txt`` (the raw figures to ``results/latest.json``), and
``results/speed.png`` plots the speed figures.
"""

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

from gpt import section as gpt_section
from reference_env import reference_python
from report import DASH, duration, ratio, speed_plot, table

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"

DEFAULT_STEPS = 10  # micrograd 0.1.0 takes over a second a step
SAME_LOSS = 1e-9  # the demo's losses must agree this closely at every step
CHAIN = 1_000_000
MNIST_SAMPLES = {"ours": 500, "ref": 3, "torch": 500}  # 0.1.0 takes about a second a sample
EPOCH = 60_000  # MNIST's training set
CPP_PORT = 52  # samples/s: the C++ port's 3 epochs of 60 000 in 58 minutes (reported, not measured here)
GPT_STEPS = 30  # microgpt's design takes a few tenths of a second a step

PYTHON = f"{platform.python_implementation()} {platform.python_version()}"  # every engine runs on this
TARGETS = {"demo": 60, "bytes": 0.25, "bytes_per_node": 150, "samples": 200, "accuracy": 0.95, "digits_seconds": 60}


class Engines:
    """Runs a benchmark script under one engine and reads back its figures."""

    def __init__(self):
        self.python = {"ours": sys.executable, "torch": sys.executable}
        self.python["ref"] = str(reference_python())
        self.has_torch = importlib.util.find_spec("torch") is not None
        self.expected = {"ours": REPO / "micrograd", "ref": Path(self.python["ref"]).parent.parent}

    def run(self, engine, script, *args):
        environment = dict(os.environ)
        environment.pop("PYTHONPATH", None)
        if engine != "ref":  # micrograd 0.1.0's interpreter must not see this project
            environment["PYTHONPATH"] = str(REPO)
        label = {"ours": "this project", "ref": "micrograd 0.1.0", "torch": "PyTorch"}[engine]
        print(f"  {script} {' '.join(args)}  [{label}]", file=sys.stderr, flush=True)
        done = subprocess.run(
            [self.python[engine], str(HERE / script), *args],
            cwd=HERE, env=environment, capture_output=True, text=True,
        )
        if done.returncode != 0:
            sys.stderr.write(done.stderr)
            raise SystemExit(f"{script} failed under {label} (exit {done.returncode}); its error is above")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        self._check_engine(engine, figures.get("micrograd"), script)
        if figures.get("python") != PYTHON:
            raise SystemExit(f"{script} ran on {figures.get('python')} under {label}, expected {PYTHON}: "
                             "delete benchmarks/results/.envs and run again")
        return figures

    def _check_engine(self, engine, micrograd_file, script):
        expected = self.expected.get(engine)
        if expected is None or micrograd_file is None:
            return
        if not Path(micrograd_file).resolve().is_relative_to(expected):
            raise SystemExit(f"{script} imported {micrograd_file}, expected the micrograd under {expected}")


def mean_ms(figures):
    """CPU ms per step, all steps counted: the garbage collector's full sweeps
    come every few steps, and a median would leave them out."""
    return statistics.fmean(figures["seconds"]) * 1e3


def samples_per_second(figures):
    return len(figures["seconds"]) / sum(figures["seconds"])


def bracketed(engines, script, *args):
    """Runs under both engines, this project's before and after 0.1.0's, step times averaged.

    This project's run takes a second, 0.1.0's a minute: a burst of load from a
    neighbour on a shared machine would land on one short run and skew the ratio,
    and a load that drifts over the minute is seen by both sides this way.
    """
    before = engines.run("ours", script, *args)
    reference = engines.run("ref", script, *args)
    after = engines.run("ours", script, *args)
    ours = dict(before, seconds=[(a + b) / 2 for a, b in zip(before["seconds"], after["seconds"])])
    return {"ours": ours, "ref": reference}


def measure(engines, steps):
    m = {}
    torch = engines.has_torch
    print(f"Karpathy's demo loop, {steps} steps", file=sys.stderr)
    m["demo"] = bracketed(engines, "demo_loop.py", "--steps", str(steps))
    if torch:
        m["demo"]["torch"] = engines.run("torch", "torch_reference.py", "--workload", "demo", "--steps", str(steps))
    m["demo_frozen"] = bracketed(engines, "demo_loop.py", "--steps", str(steps), "--freeze-gc")
    m["gradient_check"] = engines.run("ours", "gradient_check.py")
    print("Memory", file=sys.stderr)
    m["memory"] = {e: engines.run(e, "memory.py") for e in ("ours", "ref")}
    print("Deep graphs", file=sys.stderr)
    m["chain"] = {"ours": engines.run("ours", "deep_chain.py", "--length", str(CHAIN)),
                  "ref": engines.run("ref", "deep_chain.py", "--find-limit")}
    print("MNIST-shaped throughput", file=sys.stderr)
    m["mnist"] = {e: engines.run(e, "mnist_shaped.py", "--samples", str(MNIST_SAMPLES[e])) for e in ("ours", "ref")}
    if torch:
        m["mnist"]["torch"] = engines.run("torch", "torch_reference.py", "--workload", "mnist",
                                          "--samples", str(MNIST_SAMPLES["torch"]))
    m["mnist_tools"] = engines.run("ours", "mnist_shaped.py", "--samples", str(MNIST_SAMPLES["ours"]), "--package-tools")
    print("Digits", file=sys.stderr)
    m["digits"] = engines.run("ours", "digits.py")
    print("microgpt's GPT", file=sys.stderr)
    m["gpt"] = engines.run("ours", "gpt.py", "--steps", str(GPT_STEPS))  # exits with an error if the losses differ
    return m


def without_paths(figures):
    """The figures without the file each engine ran from and its Python (those were only checks)."""
    if isinstance(figures, dict):
        return {key: without_paths(value) for key, value in figures.items() if key not in ("micrograd", "python")}
    return figures


def met(ok):
    return "met" if ok else "MISSED"


def loss_check(demo):
    """(all within SAME_LOSS, largest difference) of the two engines' demo losses."""
    ours, ref = demo["ours"]["losses"], demo["ref"]["losses"]
    largest = max(abs(a - b) for a, b in zip(ours, ref))
    return len(ours) == len(ref) and largest <= SAME_LOSS, largest


def sections(m, steps, torch):
    demo, frozen, memory = m["demo"], m["demo_frozen"], m["memory"]
    ours_ms, ref_ms = mean_ms(demo["ours"]), mean_ms(demo["ref"])
    torch_ms = mean_ms(demo["torch"]) if torch else None
    same, largest = loss_check(demo)
    header = ("", "this project", "micrograd 0.1.0", "PyTorch float64", "ratios")

    speedup = ref_ms / ours_ms
    demo_rows = [
        header,
        ("CPU ms per step", f"{ours_ms:.1f}", f"{ref_ms:,.0f}", f"{torch_ms:.2f}" if torch else DASH,
         f"0.1.0 / this: {ratio(ref_ms, ours_ms)}" + (f"; this / PyTorch: {ratio(ours_ms, torch_ms)}" if torch else "")),
        ("  after gc.freeze() (*)", f"{mean_ms(frozen['ours']):.1f}", f"{mean_ms(frozen['ref']):,.0f}", "",
         f"0.1.0 / this: {ratio(mean_ms(frozen['ref']), mean_ms(frozen['ours']))}"),
        (f"Same losses as 0.1.0 (within {SAME_LOSS:g}) at all {steps} steps: {'yes' if same else 'NO'} "
         f"(largest difference {largest:.1e}).  Target at least {TARGETS['demo']}x faster: {met(speedup >= TARGETS['demo'])}.",),
        (f"backward()'s check that no gradient is inf or nan: {m['gradient_check']['backward_ms']:.2f} ms per "
         f"backward() of the demo's loss, {m['gradient_check']['backward_without_check_ms']:.2f} ms without it "
         f"({100 * m['gradient_check']['check_cost']:+.1f} %).",),
        ("(*) explanatory, not the demo as written: gc.freeze() after the imports stops Python's cyclic",),
        ("    collector re-scanning the objects numpy and scikit-learn leave; graphs here have no cycles.",),
    ]

    o, r = memory["ours"], memory["ref"]
    per_node = o["tree_bytes_per_node"] / r["tree_bytes_per_node"]
    memory_rows = [
        header[:3] + ("", "this / 0.1.0"),
        (f"bytes per node, tree of {o['tree_nodes']:,} nodes", f"{o['tree_bytes_per_node']:.0f}",
         f"{r['tree_bytes_per_node']:.0f}", "", f"{per_node:.2f}"),
        ("  the same after backward()", f"{o['tree_bytes_per_node_after_backward']:.0f}",
         f"{r['tree_bytes_per_node_after_backward']:.0f}", "",
         f"{o['tree_bytes_per_node_after_backward'] / r['tree_bytes_per_node_after_backward']:.2f}"),
        ("demo's loss graph: nodes", f"{o['demo_nodes']:,}", f"{r['demo_nodes']:,}", "",
         f"{o['demo_nodes'] / r['demo_nodes']:.2f}"),
        ("demo's loss graph: MB", f"{o['demo_bytes'] / 1e6:.1f}", f"{r['demo_bytes'] / 1e6:.1f}", "",
         f"{o['demo_bytes'] / r['demo_bytes']:.2f}"),
        (f"Target at most {TARGETS['bytes']} of 0.1.0's bytes per node: {met(per_node <= TARGETS['bytes'])}; "
         f"at most {TARGETS['bytes_per_node']} bytes: {met(o['tree_bytes_per_node'] <= TARGETS['bytes_per_node'])}.",),
        ("After backward every node of this project holds a float gradient;",),
        ("0.1.0's gradients in this tree stay small cached ints (its root gradient is the int 1).",),
    ]

    chain, limit = m["chain"]["ours"], m["chain"]["ref"]
    chain_rows = [
        header[:3],
        (f"backward() of a {CHAIN:,}-node chain",
         f"{chain['backward_seconds']:.1f} s" if chain["completed"] else "failed",
         "RecursionError" if limit["longest"] else "completed"),
        ("  peak memory, building it and backward()", f"{chain['peak_bytes'] / 1e6:.0f} MB" if chain["completed"] else DASH, ""),
        ("  longest chain backward() handles", f"≥ {CHAIN:,} nodes", f"{limit['longest']:,} nodes" if limit["longest"] else DASH),
        (f"Target completes: {met(chain['completed'])}.",),
    ]

    mnist = m["mnist"]
    rates = {e: samples_per_second(f) for e, f in mnist.items()}
    tools = samples_per_second(m["mnist_tools"])
    mnist_rows = [
        header,
        ("samples per second", f"{rates['ours']:.0f}", f"{rates['ref']:.2f}",
         f"{rates['torch']:,.0f}" if torch else DASH,
         f"this / 0.1.0: {ratio(rates['ours'], rates['ref'])}"
         + (f"; PyTorch / this: {ratio(rates['torch'], rates['ours'])}" if torch else "")),
        ("three epochs of 60 000 would take", duration(3 * EPOCH / rates["ours"]), duration(3 * EPOCH / rates["ref"]),
         duration(3 * EPOCH / rates["torch"]) if torch else DASH, ""),
        ("  with cross_entropy and optim.SGD", f"{tools:.0f}", "", "", ""),
        (f"{MNIST_SAMPLES['ours']} synthetic samples ({MNIST_SAMPLES['ref']} for 0.1.0), squared error on one-hot "
         f"targets, plain SGD.  Target {TARGETS['samples']}/s, about 4x the C++ port's {CPP_PORT}/s: "
         f"{met(rates['ours'] >= TARGETS['samples'])} ({ratio(rates['ours'], CPP_PORT)} the port).",),
    ]

    digits = m["digits"]
    accuracy_ok = digits["test_accuracy"] >= TARGETS["accuracy"]
    time_ok = digits["training_seconds"] < TARGETS["digits_seconds"]
    digits_rows = [
        ("test accuracy", f"{digits['test_accuracy']:.1%}", "", "", ""),
        ("CPU seconds of training", f"{digits['training_seconds']:.1f}", "", "", ""),
        (f"{digits['train_samples']:,} training and {digits['test_samples']} test images, {digits['epochs']} epochs.  "
         f"Target at least 95 % in under 60 s: {met(accuracy_ok and time_ok)}.",),
    ]

    return [
        (f"Karpathy's demo loop (MLP 2-16-16-1, 100 moons, full batch, user code unchanged), {steps} steps", demo_rows),
        ("Memory (tracemalloc, the same graphs built by the same code in both engines)", memory_rows),
        ("Deep graphs", chain_rows),
        ("MNIST-shaped training: MLP 784-30-10, one sample at a time", mnist_rows),
        ("Digits (scikit-learn 8x8): lesson 8's MLP 64-24-10, cross-entropy, Adam on batches of 16", digits_rows),
        gpt_section(m["gpt"]),
    ]


def plot(m, steps, torch, path):
    blue, grey, orange, light = "#1f77b4", "#7f7f7f", "#ff7f0e", "#c7c7c7"
    ours_ms, ref_ms = mean_ms(m["demo"]["ours"]), mean_ms(m["demo"]["ref"])
    demo = {"micrograd 0.1.0": (ref_ms, grey, f"{ratio(ref_ms, ours_ms)} this project's time"),
            "this project": (ours_ms, blue, f"{ours_ms:.1f} ms")}
    rates = {e: samples_per_second(f) for e, f in m["mnist"].items()}
    mnist = {"micrograd 0.1.0": (rates["ref"], grey, f"1/{rates['ours'] / rates['ref']:.0f} of this project's rate"),
             "C++ port (reported)": (CPP_PORT, light, f"{CPP_PORT}/s, batch 50"),
             "this project": (rates["ours"], blue, f"{rates['ours']:.0f}/s, {ratio(rates['ours'], CPP_PORT)} the C++ port")}
    if torch:
        torch_ms = mean_ms(m["demo"]["torch"])
        demo["PyTorch float64"] = (torch_ms, orange, f"1/{ours_ms / torch_ms:.0f} of this project's time")
        mnist["PyTorch float64"] = (rates["torch"], orange, f"{ratio(rates['torch'], rates['ours'])} this project's rate")
    speed_plot(path, demo, mnist, steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                        help=f"steps of the demo loop for both engines (default {DEFAULT_STEPS}; the demo runs 100)")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be at least 1")

    engines = Engines()
    m = measure(engines, args.steps)
    torch = engines.has_torch
    versions = f"{PYTHON} (every engine)"
    if torch:
        import torch as torch_module

        versions += f", torch {torch_module.__version__} (one thread)"
    text = "\n".join([
        "micrograd benchmarks: CPU time, measured side by side in one run",
        f"{versions}; {platform.machine()}, {os.cpu_count()} CPUs.  Reproduce: "
        f"python benchmarks/run_all.py --steps {args.steps}" + (" (make bench)" if args.steps == DEFAULT_STEPS else ""),
        "",
        table(sections(m, args.steps, torch)),
        "" if torch else "\nPyTorch is not installed: pip install torch==2.13.0 adds its column.",
    ])
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "latest.txt").write_text(text.rstrip() + "\n")
    (RESULTS / "latest.json").write_text(json.dumps(without_paths(m), indent=1) + "\n")
    plot(m, args.steps, torch, RESULTS / "speed.png")
    print(f"Saved {RESULTS / 'latest.txt'}, latest.json and speed.png", file=sys.stderr)
    if not loss_check(m["demo"])[0]:
        raise SystemExit("the two engines' demo losses differ: see the table")


if __name__ == "__main__":
    main()
