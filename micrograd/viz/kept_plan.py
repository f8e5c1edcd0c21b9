"""One graph drawn in many states, read and collapsed once: what a stepper's redraw no longer pays.

A stepper draws the same graph after every click, and between clicks only numbers, colours and
highlights change: never which nodes there are, their inputs, labels or roles, which are all that
``collapse.fit`` reads.  On a graph of twenty thousand nodes (one position of microgpt's GPT)
reading it and fitting it into the node budget is most of a redraw, so a :class:`KeptPlan` does
it once and hands the same reading and plan to every later drawing of that graph (``draw_dot``'s
own two tries, left to right and top to bottom, included).  The numbers drawn are read afresh
each time, local derivatives included (a stepper learns a class's as it goes); the DOT text is
exactly what a fresh ``draw_dot`` gives.
"""

from ..graphs import read_graph
from .collapse import fit
from .graph import GraphIndex

__all__ = ["KeptPlan"]


class KeptPlan:
    """The reading, ``GraphIndex`` and collapse plan of the last graph drawn through it, kept for the next drawing."""

    def __init__(self):
        self._view = None  # (root, GraphView)
        self._kept = None  # (root, params, max_nodes, index, plan)

    def view(self, root, caller):
        """``graphs.read_graph(root, caller)``, read once: a class's mirror is refreshed, not made again."""
        if self._view is not None and self._view[0] is root:
            view = self._view[1]
            view.refresh()  # its numbers as they are now
            return view
        view = read_graph(root, caller)
        self._view = (root, view)
        return view

    def index_and_plan(self, view, params, max_nodes):
        """(index, plan) for the graph ``view`` reads: the kept ones when its root, ``params`` and the
        budget are the same objects."""
        kept = self._kept
        if kept is not None and kept[0] is view.root and kept[1] is params and kept[2] == max_nodes:
            return kept[3], kept[4]
        index = GraphIndex(view.root, view.map_params(params))
        plan = fit(index, max_nodes)
        self._kept = (view.root, params, max_nodes, index, plan)
        return index, plan
