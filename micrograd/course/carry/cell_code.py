"""A build-it cell's code, read before it runs: the names it takes from the kernel, and whether it takes
the name ``Value``, which the lessons keep for the package's class.

Read with Python's own parser and symbol tables, never run: the ``%%my_micrograd`` magic asks before the
cell runs, so it can say what to run first (after a restart, say) or why the cell was not run.
"""

import ast
import builtins
import symtable

__all__ = ["python_of", "names_used", "missing_names", "binds_value"]


def python_of(cell):
    """The cell as Python: IPython's own syntax (``%magic``, ``!shell``) turned into calls, as IPython runs it."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython comes with the notebooks
        return cell
    return TransformerManager().transform_cell(cell)


def _global_reads(table, found):
    """Names read from the module's namespace anywhere in table: at the top, in classes and in functions."""
    top = table.get_type() == "module"
    for symbol in table.get_symbols():
        if not symbol.is_referenced():
            continue
        if top:
            if not (symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()):
                found.add(symbol.get_name())
        elif symbol.is_global() and not symbol.is_declared_global():
            found.add(symbol.get_name())
        elif table.get_type() == "class" and not (symbol.is_assigned() or symbol.is_local() or symbol.is_free()):
            found.add(symbol.get_name())
    for child in table.get_children():
        _global_reads(child, found)


def _bound_at_top(table):
    """Names the code binds at module level: assignments, definitions, imports, loop targets."""
    return {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}


def names_used(code):
    """The names code reads from the kernel's namespace without binding them itself, sorted; None when
    it cannot tell (a syntax error, or ``from x import *``)."""
    try:
        tree = ast.parse(code)
        table = symtable.symtable(code, "<cell>", "exec")
    except SyntaxError:
        return None
    if any(isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names) for node in ast.walk(tree)):
        return None
    found = set()
    _global_reads(table, found)
    return sorted(found - _bound_at_top(table))


def missing_names(code, namespace):
    """The names code uses that neither namespace nor Python's builtins hold: what the kernel has not run yet."""
    used = names_used(code) or []
    return [name for name in used if name not in namespace and not hasattr(builtins, name)]


def binds_value(code):
    """'class' when code defines ``class Value`` at its top level, 'name' when it assigns ``Value = ...``
    there, else None.  An import of the package's Value binds the same class again, and is fine."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Value":
            return "class"
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        if any(isinstance(sub, ast.Name) and sub.id == "Value" for t in targets for sub in ast.walk(t)):
            return "name"
    return None
