"""Freeing a deep graph of Values in the course's browser app: one node at a time, at any depth.

A Value owns its inputs (a tuple), so a graph that loses its last reference is freed one node
inside the next: the output, then its inputs, then theirs.  Under the browser app's Pyodide each
of those nested frees takes a frame on the JavaScript engine's stack, which CPython's guard
against deep freeing does not measure, so freeing a chain some thousands of nodes deep (lesson 10
frees one of 100 000) ended the kernel: "Pyodide has suffered a fatal error".

``install()`` gives ``Value`` a finaliser (``__del__``, which Python calls as a node is about to be
freed) that takes the node's inputs away from it and puts them on a list of pending tuples.  The
finaliser that finds no other one at work drops them one tuple at a time; a node that frees runs
its own finaliser, which only adds its inputs to the list.  So a free never nests more than one
node deep, whatever the graph's depth.  The browser extension installs it; on CPython nothing
does, and freeing stays what it was there (CPython's guard covers the stack it runs on).
"""

from micrograd.engine import Value

__all__ = ["install", "uninstall", "installed"]

_pending = []  # the inputs of nodes being freed, each a tuple, not dropped yet
_draining = False  # is a finaliser dropping the pending tuples (further up this stack)?


def _free_inputs_one_at_a_time(node):
    """Value's finaliser: the node's inputs go to the pending list, and the outermost finaliser drops them."""
    global _draining
    try:
        if not node._inputs:
            return
        _pending.append(node._inputs)  # held by the list alone (no local name), so the loop below frees it
    except AttributeError:  # made with Value.__new__ and never filled in
        return
    node._inputs = ()  # the node, freed now, no longer frees its inputs inside its own free
    if _draining:
        return
    _draining = True
    try:
        while _pending:
            _pending.pop()  # a node freed here runs this finaliser, which only adds to the list
    finally:
        _draining = False


def install():
    """Every Value, those made already included, frees its graph one node at a time from now on."""
    Value.__del__ = _free_inputs_one_at_a_time  # a class attribute: Python updates the type's finaliser


def uninstall():
    """Values free as the engine alone frees them (one node inside the next)."""
    if installed():
        del Value.__del__


def installed():
    return Value.__dict__.get("__del__") is _free_inputs_one_at_a_time
