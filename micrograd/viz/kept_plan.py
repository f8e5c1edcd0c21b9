"""One graph drawn in many states, read and collapsed once: what a stepper's redraw no longer pays.

A stepper draws the same graph after every click, and between clicks only numbers, colours and
highlights change: never which nodes there are, their inputs, labels or roles, which are all that
``collapse.fit`` reads.  On a graph of twenty thousand nodes (one position of microgpt's GPT)
reading it and fitting it into the node budget is most of a redraw, so a :class:`KeptPlan` does
it once and hands the same reading (``graph.GraphReading``) and plan to every later drawing of
that graph.  The numbers drawn are read afresh each time, local derivatives included (a stepper
learns a class's as it goes); the DOT text is exactly what a fresh ``draw_dot`` gives.
"""

from .collapse import fit
from .graph import GraphIndex, read_for_drawing

__all__ = ["KeptPlan"]


class KeptPlan:
    """The reading, ``GraphIndex`` and collapse plan of the last graph drawn through it, kept for the next drawing."""

    def __init__(self):
        self._reading = None  # (root, GraphReading)
        self._kept = None  # (root, params, max_nodes, index, plan)

    def reading(self, root, caller):
        """``graph.read_for_drawing(root, caller)``, read once: a class's mirror is refreshed, not made again."""
        if self._reading is not None and self._reading[0] is root:
            reading = self._reading[1]
            reading.refresh()  # its numbers as they are now
            return reading
        reading = read_for_drawing(root, caller)
        self._reading = (root, reading)
        return reading

    def index_and_plan(self, reading, params, max_nodes):
        """(index, plan) for ``reading``: the kept ones when its root, ``params`` and the budget are
        the same objects."""
        kept = self._kept
        if kept is not None and kept[0] is reading.root and kept[1] is params and kept[2] == max_nodes:
            return kept[3], kept[4]
        index = GraphIndex(reading, params)
        plan = fit(index, max_nodes)
        self._kept = (reading.root, params, max_nodes, index, plan)
        return index, plan
