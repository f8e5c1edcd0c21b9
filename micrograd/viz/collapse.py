"""Fitting a big graph into a node budget by collapsing what repeats.

A graph is first turned into *blocks* (``blocks``), one per Value.  While the drawing
would need more Graphviz nodes than the budget allows, the steps below run
in turn, each losing a little more detail than the one before:

1. chains of ``+`` (or ``*``) whose partial results nothing else uses, as
   ``sum(...)`` builds them, become one n-ary node;
2. a sum of ``w*x`` products plus a bias becomes one ``w·x+b`` node, the
   same node ``engine.dot`` builds for a neuron;
3. parameters, and other leaves used once, are folded into the operations that use them (the
   operation says how many it holds); a leaf counts as a parameter when the drawing knows it is
   one (``params``, ``model``, or a ``w·x+b`` node): unnamed weights are never called constants;
4. sibling operations (same shape, same inputs), such as the neurons of a
   layer, become one group box "16 × ReLU";
5. many terms of one sum that have the same shape (one per sample) are
   shown twice, the rest as one "98 more like these" box;
6. if still too big, only the nodes nearest the output are kept and one box
   stands for the rest.

Every step keeps the order deterministic: blocks are visited in the graph's
topological order, and sets and dicts keyed by blocks (which hash by
identity) are only used for lookups, never iterated to decide an order.
"""

import gc
from collections import Counter

from .blocks import GROUP, MORE, REST, VALUE, Block, Plan, full_plan
from .graph import WEIGHTED_SUM

MIN_GROUP = 3  # fewer siblings than this stay separate
MIN_REPEATS = 4  # a sum needs this many look-alike terms before some are hidden
KEEP_REPEATS = 2  # look-alike terms still drawn in full

_CHAIN_OPS = ("+", "*")


def fit(index, max_nodes):
    """A plan for the graph that needs at most ``max_nodes`` Graphviz nodes."""
    # A plan holds one object per Value and no reference cycles; pausing the
    # cyclic collector stops it from rescanning the whole graph again and
    # again while they are made (a third of the time on a 65 000-node graph).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _fit(index, max_nodes)
    finally:
        if collecting:
            gc.enable()


def _fit(index, max_nodes):
    plan = full_plan(index)
    if max_nodes is None:
        return plan
    for step in (_fuse_chains, _fuse_weighted_sums, _fold_leaves, _group_siblings, _hide_repeats):
        if plan.node_count() <= max_nodes:
            return plan
        note = step(plan.blocks, index)
        if note:  # a step that says nothing changed nothing
            plan = Plan(_reachable(plan.root), plan.notes + [note])
    if plan.node_count() > max_nodes:
        plan = _keep_nearest(plan, max_nodes)
    return plan


# -- the steps ------------------------------------------------------------------
# Each step changes blocks in place and returns a note saying what it did.
# Blocks it makes unreachable are dropped afterwards by _reachable.


def _uses(blocks):
    uses = Counter()
    for block in blocks:
        for child in block.inputs:
            uses[child] += 1
    return uses


def _is_plain_intermediate(block, uses, root):
    """A Value nothing else uses, with no label of its own: safe to merge away."""
    return block.kind == VALUE and block is not root and uses[block] == 1 and not block.value.label


def _fuse_chains(blocks, index):
    uses = _uses(blocks)
    root = blocks[-1]
    merged = 0
    for block in blocks:  # inputs first, so a chain's lower links are already merged
        if block.kind != VALUE or block.op not in _CHAIN_OPS:
            continue
        inputs = []
        changed = False
        for child in block.inputs:
            if child.op == block.op and child.inputs and _is_plain_intermediate(child, uses, root):
                inputs.extend(child.inputs)
                merged += 1
                changed = True
            else:
                inputs.append(child)
        if changed:
            block.inputs = inputs
            block.terms = len(inputs)
            block.as_recorded = False
    if merged:
        return f"{merged:,} partial results of + and * chains merged into n-ary nodes"
    return ""


def _fuse_weighted_sums(blocks, index):
    uses = _uses(blocks)
    root = blocks[-1]
    fused = 0
    for block in blocks:
        if block.kind != VALUE or block.op != "+" or len(block.inputs) < 3:
            continue
        pairs, others = [], []
        for child in block.inputs:
            pair = _weight_and_input(child, index, uses, root)
            if pair:
                pairs.extend(pair)
            else:
                others.append(child)
        bias_ok = len(others) <= 1 and all(not b.op and index.is_parameter(b.value) for b in others)
        if len(pairs) >= 4 and bias_ok:
            block.inputs = pairs + others
            block.op = WEIGHTED_SUM
            block.terms = 0
            block.as_recorded = False
            fused += 1
    if fused:
        return f"{fused:,} sums of w*x products shown as single w·x+b nodes"
    return ""


def _weight_and_input(block, index, uses, root):
    """(w, x) if block is w*x for one parameter w, used only by its sum."""
    if block.op != "*" or len(block.inputs) != 2 or not _is_plain_intermediate(block, uses, root):
        return None
    a, b = block.inputs
    a_param = not a.op and index.is_parameter(a.value)
    b_param = not b.op and index.is_parameter(b.value)
    if a_param == b_param:
        return None
    return (a, b) if a_param else (b, a)


def _fold_leaves(blocks, index):
    uses = _uses(blocks)
    folded = {"parameter": set(), "leaf": set()}  # distinct leaves
    for block in blocks:
        if not block.inputs:
            continue
        kept = []
        for child in block.inputs:
            kind = _foldable(child, index, uses)
            if kind:
                block.folded[kind] = block.folded.get(kind, 0) + 1
                folded[kind].add(child)
            else:
                kept.append(child)
        if len(kept) != len(block.inputs):
            block.inputs = kept
            block.as_recorded = False
    parts = [folded_count(kind, len(ids), other=bool(folded["parameter"])) for kind, ids in folded.items() if ids]
    if parts:
        return f"{' and '.join(parts)} folded into the operations using them"
    return ""


def folded_count(kind, count, other=False):
    """``'3 parameters'``, ``'1 leaf'``, ``'2 other leaves'`` (``other``: after parameters)."""
    if kind == "parameter":
        return f"{count:,} parameter{'s' * (count != 1)}"
    return f"{count:,} {'other ' * other}{'leaf' if count == 1 else 'leaves'}"


def _foldable(block, index, uses):
    if block.kind != VALUE or block.op or block.value.inputs:  # inputs without an op name: not a leaf
        return None
    node = block.value
    if index.is_parameter(node):
        return "parameter"
    if uses[block] == 1 and not node.label:
        return "leaf"
    return None


def _signatures(blocks, index):
    """A small int per block; equal ints mean the same shape of computation below.

    Leaves count by role only, so the same computation on another sample,
    or in another neuron of the layer, has the same signature.
    """
    table = {}
    signature = {}
    for block in blocks:
        if block.kind == VALUE and not block.op and not block.value.inputs:
            key = ("leaf", index.role(block.value))
        else:
            folded = tuple(sorted(block.folded.items())) if block.folded else ()
            key = (block.kind, len(block.members), block.op, tuple(map(signature.__getitem__, block.inputs)), folded)
        signature[block] = table.setdefault(key, len(table))
    return signature


def _group_siblings(blocks, index):
    signature = _signatures(blocks, index)
    depth = {}
    for block in blocks:
        depth[block] = 1 + max((depth[child] for child in block.inputs), default=-1)
    by_depth = {}
    for block in blocks:
        by_depth.setdefault(depth[block], []).append(block)
    root = blocks[-1]
    group_of = {}  # member -> its group
    groups = members = 0
    for level in sorted(by_depth):
        candidates = {}
        for block in by_depth[level]:
            block.inputs = _replace_members(block.inputs, group_of)
            if block.kind == VALUE and block.op and block is not root:
                key = (signature[block], tuple(child for child in block.inputs))
                candidates.setdefault(key, []).append(block)
        for siblings in candidates.values():
            if len(siblings) < MIN_GROUP:
                continue
            first = siblings[0]
            group = Block(GROUP, [s.value for s in siblings], first.op, first.inputs)
            group.folded = first.folded
            group.terms = first.terms
            for sibling in siblings:
                group_of[sibling] = group
            groups += 1
            members += len(siblings)
    if groups:
        return f"{members:,} look-alike operations shown as {groups:,} group boxes (n × op)"
    return ""


def _replace_members(inputs, group_of):
    """Inputs with grouped Values replaced by their group, each group once."""
    if not any(child in group_of for child in inputs):
        return inputs
    replaced = []
    seen_groups = set()
    for child in inputs:
        group = group_of.get(child)
        if group is None:
            replaced.append(child)
        elif group not in seen_groups:
            seen_groups.add(group)
            replaced.append(group)
    return replaced


def _hide_repeats(blocks, index):
    signature = _signatures(blocks, index)
    uses = _uses(blocks)
    hidden_terms = 0
    for block in blocks:
        if len(block.inputs) < MIN_REPEATS:
            continue
        alike = {}
        for child in block.inputs:
            if child.inputs and uses[child] == 1:
                alike.setdefault(signature[child], []).append(child)
        hide = set()
        for terms in alike.values():
            if len(terms) >= MIN_REPEATS:
                hide.update(t for t in terms[KEEP_REPEATS:])
        if not hide:
            continue
        inputs = []
        more = None
        for child in block.inputs:
            if child not in hide:
                inputs.append(child)
                continue
            if more is None:
                more = Block(MORE, [], child.op, [])
                inputs.append(more)
            more.members.extend(child.members)
            more.hidden += 1
        block.inputs = inputs
        block.as_recorded = False
        hidden_terms += len(hide)
    if hidden_terms:
        return f"{hidden_terms:,} look-alike terms of sums left out (boxes say how many)"
    return ""


def _keep_nearest(plan, max_nodes):
    """Keep the blocks nearest the root (breadth-first); one box stands for the rest."""
    budget = max_nodes - 1  # room for the box
    kept = set()
    total = 0
    queue = [plan.root]
    for block in queue:  # the list grows while it is walked
        if block in kept:
            continue
        if total + block.node_cost() > budget:
            break
        kept.add(block)
        total += block.node_cost()
        queue.extend(block.inputs)
    rest = Block(REST, [], "", [])
    for block in plan.blocks:
        if block not in kept:
            continue
        if any(child not in kept for child in block.inputs):
            block.inputs = [child for child in block.inputs if child in kept] + [rest]
            block.as_recorded = False
    rest.hidden = sum(b.node_cost() for b in plan.blocks if b not in kept)
    notes = plan.notes + [f"only the {len(kept):,} boxes nearest the output kept; one box stands for the rest"]
    return Plan(_reachable(plan.root), notes)


def _reachable(root):
    """Blocks below root in topological order (inputs first), root last."""
    order = []
    seen = set()
    stack = [(root, False)]
    while stack:
        block, inputs_done = stack.pop()
        if inputs_done:
            order.append(block)
            continue
        if block in seen:
            continue
        seen.add(block)
        stack.append((block, True))
        for child in reversed(block.inputs):
            if child not in seen:
                stack.append((child, False))
    return order
