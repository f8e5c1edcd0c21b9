"""What a drawing shows: *blocks* (a Value, a group of look-alike Values, or a stand-in for what was
left out) and a *plan*, the blocks in topological order, root last.

``full_plan`` makes one block per Value; ``collapse.fit`` changes blocks until the plan fits its
node budget.  Blocks hash by identity: sets and dicts keyed by them serve lookups, never an order.
"""

VALUE = "value"  # one Value: a record, plus an op node if it has an op
GROUP = "group"  # sibling Values of the same shape drawn as one box
MORE = "more"  # repeated terms left out of a sum
REST = "rest"  # everything cut off by the last step


class Block:
    """One thing the drawing shows: a Value, a group of Values, or a stand-in."""

    __slots__ = ("kind", "members", "op", "inputs", "as_recorded", "folded", "terms", "hidden")

    def __init__(self, kind, members, op, inputs, as_recorded=False):
        self.kind = kind
        self.members = members  # Values shown (VALUE, GROUP) or summarised (MORE)
        self.op = op
        self.inputs = inputs  # Blocks, in operand order, repeated as often as used
        self.as_recorded = as_recorded  # inputs still the Value's own, lined up with its local derivatives
        self.folded = {}  # "parameter"/"leaf" -> how many leaves folded in
        self.terms = 0  # number of original inputs of a fused chain (0: not fused)
        self.hidden = 0  # terms (MORE) or Graphviz nodes (REST) left out

    @property
    def value(self):
        return self.members[0]

    @property
    def local_grads(self):  # read when drawn: a stepper learns a class's derivatives as it goes
        return self.members[0].local_grads if self.as_recorded else None

    def node_cost(self):
        """Graphviz nodes this block needs: a Value with an op has two."""
        return 2 if self.kind == VALUE and self.op else 1


class Plan:
    """Blocks in topological order (root last), and notes on what was collapsed."""

    def __init__(self, blocks, notes=()):
        self.blocks = blocks
        self.notes = list(notes)
        self._node_count = None  # counted once: a step that changes blocks makes a new Plan

    @property
    def root(self):
        return self.blocks[-1]

    def node_count(self):
        if self._node_count is None:
            self._node_count = sum(block.node_cost() for block in self.blocks)
        return self._node_count


def full_plan(index):
    """One block per Value of the graph, nothing collapsed."""
    blocks = []
    block_of = {}
    for node in index.order:
        block = Block(VALUE, [node], node.op, [block_of[child] for child in node.inputs], as_recorded=True)
        block_of[node] = block
        blocks.append(block)
    return Plan(blocks)
