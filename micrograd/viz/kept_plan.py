"""One graph drawn in many states, read and collapsed once: what a stepper's redraw no longer pays.

A stepper draws the same graph after every click, and between clicks only numbers, colours and
highlights change: never which nodes there are, their inputs, labels or roles, which are all that
``collapse.fit`` reads.  On a graph of twenty thousand nodes (one position of microgpt's GPT)
reading it and fitting it into the node budget is most of a redraw, so a :class:`KeptPlan` does
it once and hands the same numbering and plan to every later drawing of that graph.  The numbers
drawn are read afresh each time, local derivatives included (a stepper learns a class's as it
goes); the DOT text is exactly what a fresh ``draw_dot`` gives.
"""

from .collapse import fit
from .graph import GraphIndex

__all__ = ["KeptPlan"]


class KeptPlan:
    """The ``GraphIndex`` and collapse plan of the last graph drawn through it, kept for the next drawing."""

    def __init__(self):
        self._kept = None  # (root, params, max_nodes, index, plan)

    def index_and_plan(self, root, params, max_nodes):
        """(index, plan) for ``root``'s graph: the kept ones when root, params and budget are the same objects."""
        kept = self._kept
        if kept is not None and kept[0] is root and kept[1] is params and kept[2] == max_nodes:
            return kept[3], kept[4]
        index = GraphIndex(root, params)
        plan = fit(index, max_nodes)
        self._kept = (root, params, max_nodes, index, plan)
        return index, plan
