"""Lesson 10's claims about behaviour, each demonstrated by a small experiment (helpers: tests/claims.py)."""

import collections
import gc
import re
import subprocess
import sys
import tracemalloc

import pytest
from claims import REPO, SPEED, claim, lesson_cells, lesson_code, run_lesson_code, squeezed, young_objects
from micrograd import MLP, Value, dot, graph_size, topological_order
from micrograd.data import four_samples
from micrograd.losses import sum_of_squares


# "every 700 net allocations on CPython 3.11 and 3.12 and every 2 000 on 3.13": a figure, then the
# versions it holds on.
_PER_VERSION = re.compile(r"(\d{1,3}(?:[ ,]\d{3})+|\d+)[^,;()\d]*? on (?:CPython )?(3\.\d+(?:(?:, | and )3\.\d+)*)")


def stated_per_version(sentence):
    """{(3, 11): 700, ...}: each figure a sentence states, for each CPython version it names."""
    figures = {}
    for figure, versions in _PER_VERSION.findall(squeezed(sentence)):
        for version in re.findall(r"3\.\d+", versions):
            figures[tuple(map(int, version.split(".")))] = int(re.sub("[ ,]", "", figure))
    assert figures, f"no figure for a Python version in {sentence!r}"
    return figures


def this_python():
    return sys.version_info[:2], "CPython {}.{}".format(*sys.version_info[:2])


def test_lesson10_deleting_the_loss_frees_the_graph_at_once_down_to_the_parameters():
    claim(10, "when that count reaches zero the object is freed at once")
    claim(10, "The cascade stops at nodes that something else still holds: the 41 parameters")
    model = MLP(3, [4, 4, 1], activation="tanh", rng=0)
    xs, ys = four_samples()
    gc.disable()
    try:
        before = young_objects(Value)
        loss = sum_of_squares([model(x) for x in xs], ys)
        loss.backward()
        made = young_objects(Value) - before
        del loss
        assert made > 80 and young_objects(Value) - before == 0
    finally:
        gc.enable()
    assert len(model.parameters()) == 41


def test_lesson10_a_list_of_loss_values_keeps_every_graph_and_pytorchs_total_loss_does_the_same():
    claim(10, "Keeping Values, it grows by 85 nodes every step, forever")
    claim(10, "PyTorch users meet the same leak as `total_loss += loss`")
    model = MLP(3, [4, 4, 1], activation="tanh", rng=0)
    xs, ys = four_samples()
    kept = []
    for _ in range(3):
        kept.append(sum_of_squares([model(x) for x in xs], ys))
    assert len({node for loss in kept for node in topological_order(loss)}) == 41 + 3 * 85
    torch = pytest.importorskip("torch")
    p = torch.tensor(1.0, requires_grad=True)
    total = 0
    for _ in range(3):
        loss = (p * 2) ** 2
        total += loss  # a tensor that remembers how it was summed, each loss's graph included
        del loss

    def kept(function, name):
        return (function.name() == name) + sum(kept(f, name) for f, _ in function.next_functions if f is not None)

    assert kept(total.grad_fn, "PowBackward0") == 3


def test_lesson10_one_dot_node_gives_the_same_number_and_gradients_from_5_nodes_instead_of_13():
    claim(10, "The same number and the same gradients (each weight's is its input, the bias's is 1), from 5 nodes")
    claim(10, "instead of 13")
    namespace = run_lesson_code(10, "neuron = MLP(3, [1], rng=0)", namespace={"MLP": MLP, "dot": dot, "graph_size": graph_size})
    assert namespace["fused"].data == namespace["built"].data
    assert namespace["fused_grads"] == [2.0, 3.0, -1.0, 1.0]
    assert graph_size(namespace["fused"])[0] == 5 and graph_size(namespace["built"])[0] == 13


COLLECTOR_RUNS = (
    "Python's cycle collector runs every 700 net allocations on CPython 3.11 and 3.12 and every 2 000 on 3.13 and 3.14"
)


def test_figures_per_version_are_read_with_the_versions_they_are_stated_for():
    assert stated_per_version(COLLECTOR_RUNS) == {(3, 11): 700, (3, 12): 700, (3, 13): 2000, (3, 14): 2000}
    assert stated_per_version("costs 32 bytes on CPython 3.11, 3.12 and 16 on 3.13") == {
        (3, 11): 32, (3, 12): 32, (3, 13): 16}
    with pytest.raises(AssertionError, match="no figure"):
        stated_per_version("runs every few hundred net allocations")


def test_lesson10_the_cycle_collector_runs_as_often_as_the_lesson_says_on_this_python():
    claim(10, COLLECTOR_RUNS)
    claim(10, "(`gc.get_threshold()[0]` says how many on yours)")
    version, name = this_python()
    stated = stated_per_version(COLLECTOR_RUNS)
    assert version in stated, f"lesson 10 does not say how often the cycle collector runs on {name}: add its gc.get_threshold()[0]"
    # A fresh interpreter's, as a learner's kernel starts with: nothing here may have changed it.
    fresh = subprocess.run([sys.executable, "-c", "import gc; print(gc.get_threshold()[0])"],
                           capture_output=True, text=True, check=True)
    assert int(fresh.stdout) == stated[version], f"on {name} the collector runs every {fresh.stdout.strip()} net allocations"


def test_lesson10_a_chain_of_100_000_negations_is_far_deeper_than_the_recursion_limit():
    claim(10, "A chain of 100 000 negations is far deeper than Python's recursion limit (1 000 by default, and here)")
    claim(10, "(an even number of sign flips)")
    assert sys.getrecursionlimit() == 1000 and re.search(r"for _ in range\(100_000\):\n    chain = -chain", lesson_code(10, "chain = -chain"))
    x = chain = Value(1.0)
    for _ in range(20_000):  # even, as 100 000 is; the walk's depth has a test of its own (lesson 4)
        chain = -chain
    chain.backward()
    assert x.grad == 1.0 and len(topological_order(chain)) == 20_001


def test_lesson10_the_benchmarks_run_backward_on_a_million_node_chain():
    claim(10, "the benchmarks run `backward()` on a chain of a million nodes")
    assert re.search(r"^CHAIN = 1_000_000$", (REPO / "benchmarks" / "run_all.py").read_text(), re.MULTILINE)


def test_lesson10_under_two_hundred_bytes_a_node_and_plus_nodes_share_their_local_derivatives():
    claim(10, "Under two hundred bytes")
    claim(10, "A graph of a hundred thousand nodes is then under twenty megabytes")
    claim(10, "a `+` shares one tuple of local derivatives with every other `+`")
    a, b = Value(1.0), Value(2.0)
    assert (a + b)._local_grads is (b + 3.0)._local_grads
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        chain = a
        for _ in range(20_000):
            chain = chain + a
        per_node = (tracemalloc.get_traced_memory()[0] - before) / 20_000
    finally:
        tracemalloc.stop()
    assert per_node < 200


ROOM_IN_LESSON_10 = "that room costs every node 32 bytes on CPython 3.11 and 3.12 and 16 on 3.13"
ROOM_ON_SPEED_PAGE = "a `__dict__` slot costs every object 32 bytes on CPython 3.11 and 3.12 (a 16-byte header and a small table made at creation) and 16 on 3.13 (the header alone)"


def test_lesson10_and_the_speed_page_give_room_for_attributes_its_cost_on_this_python():
    claim(10, ROOM_IN_LESSON_10)
    claim(10, "(the cell above measures it on yours)")
    claim(SPEED, ROOM_ON_SPEED_PAGE)
    assert "__dict__" in Value.__slots__

    def bytes_each(cls):
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            kept = [cls() for _ in range(4_000)]
            return (tracemalloc.get_traced_memory()[0] - before) / len(kept)
        finally:
            tracemalloc.stop()

    fields = ("data", "grad", "op", "_inputs", "_local_grads")
    with_room = type("WithRoom", (), {"__slots__": fields + ("__dict__",)})
    without = type("Without", (), {"__slots__": fields})
    room = bytes_each(with_room) - bytes_each(without)
    # The lesson's cell measures it too, and prints it with the Python's version: the same figure.
    namespace = run_lesson_code(10, "def room_for_attributes(", replace=(("100_000", "1_000"),),
                                namespace={"Value": Value, "tracemalloc": tracemalloc, "python": "this Python"})
    assert round(namespace["room_for_attributes"]()) == pytest.approx(room, abs=1)
    version, name = this_python()
    for where, sentence in (("lesson 10", ROOM_IN_LESSON_10), (SPEED, ROOM_ON_SPEED_PAGE)):
        stated = stated_per_version(sentence)
        # A version the sentence leaves out reads the figure from the lesson's cell; one it names must match.
        if version in stated:
            assert room == pytest.approx(stated[version], abs=1), f"{where}: on {name} the room costs {room:.1f} bytes"


def test_lesson10_the_pytorch_side_of_where_next_trains_and_no_grad_records_nothing():
    torch = pytest.importorskip("torch")
    claim(10, "`torch.no_grad()`, which tells PyTorch not to record the update in the graph")
    markdown = next(source for kind, source in lesson_cells(10) if kind == "markdown" and "torch.nn.Sequential" in source)
    snippet = re.findall(r"```python\n(import torch\n.*?)```", markdown, re.DOTALL)[0]
    xs, ys = four_samples()
    torch.manual_seed(0)
    namespace = {"xs": xs, "ys": ys}
    exec(compile(snippet.replace("range(50)", "range(20)"), "lesson 10's PyTorch side", "exec"), namespace)
    first = ((namespace["model"](namespace["X"])[:, 0] - namespace["Y"]) ** 2).sum().item()
    assert namespace["loss"].item() > first  # the loss of step 19, before its update, is above the one after it
    with torch.no_grad():
        p = next(namespace["model"].parameters())
        assert not (p * 2).requires_grad


def test_lesson10_the_46_leaves_of_the_fused_step_are_the_parameters_the_targets_and_the_starting_zero():
    claim(10, "The 46 leaves are the 41 parameters, the 4 targets (each becomes a constant leaf in $p - t$) and the 0 "
              "that `sum()` starts from. The inputs make no node at all")
    claim(10, "Per sample there is one `w·x+b` per neuron and one tanh per hidden neuron, then a `-`, a `**2` and a "
              "`+` into the loss.")
    claim(10, "the breakdown of the 126 nodes above is your model")
    model = MLP(3, [4, 4, 1], activation="tanh", rng=0)
    xs, ys = four_samples()
    loss = sum_of_squares([model(x) for x in xs], ys)
    order = topological_order(loss)
    parameters = {id(p) for p in model.parameters()}
    others = [node.data for node in order if not node.inputs and id(node) not in parameters]
    assert len(parameters) == 41 and sorted(others) == sorted([0.0, *ys])  # the targets and the zero, no input
    ops = collections.Counter(node.op for node in order if node.inputs)
    assert ops == {"w·x+b": 4 * 9, "tanh": 4 * 8, "-": 4, "**2": 4, "+": 4} and len(order) == 126
