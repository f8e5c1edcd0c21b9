"""micrograd.course.source: lessons quote the package's current source."""

from micrograd import Value
from micrograd.course.source import show_source, source_of


def test_source_of_a_method_is_its_current_text():
    text = source_of(Value.__add__)
    assert text.startswith("def __add__(self, other")
    assert text.endswith("\n") and not text.startswith(" ")


def test_show_source_prints_where_and_what_outside_ipython(capsys):
    show_source(Value.__mul__, "Value.tanh")
    out = capsys.readouterr().out
    assert "# micrograd/engine.py · Value.__mul__\ndef __mul__" in out
    assert "# micrograd/engine.py · Value.tanh\ndef tanh" in out


def test_show_source_names_what_is_missing_instead_of_failing(capsys):
    show_source("Value.no_such_method", "no_such_module.f")
    out = capsys.readouterr().out
    assert "Value.no_such_method: not in this version of the package" in out
    assert "no_such_module.f: not in this version" in out


def test_show_source_displays_highlighted_html_in_a_notebook():
    import nbformat
    from nbclient import NotebookClient

    cell = nbformat.v4.new_code_cell("from micrograd import Value\nfrom micrograd.course import show_source\nshow_source(Value.__add__)")
    notebook = nbformat.v4.new_notebook(cells=[cell])
    NotebookClient(notebook, kernel_name="python3").execute()
    (output,) = notebook.cells[0].outputs
    assert output.output_type == "display_data"
    assert output.data["text/plain"].startswith("# micrograd/engine.py · Value.__add__")
    assert "<span" in output.data["text/html"]


def test_show_source_shows_the_package_s_code_for_a_notebook_class_named_value(capsys):
    # A learner's class that took the name Value (the lecture's name) is not the package's: "The package's
    # version" cells pass Value.tanh, and must still show micrograd/engine.py, never the learner's code.
    namespace = {"__name__": "__main__"}
    exec("class Value:\n    def tanh(self):\n        return 'mine'\n    def only_mine(self):\n        pass\n", namespace)
    show_source(namespace["Value"].tanh, namespace["Value"].only_mine)
    out = capsys.readouterr().out
    assert "# micrograd/engine.py · Value.tanh\ndef tanh" in out and "'mine'" not in out and "__main__" not in out
    assert "# Value.only_mine: code of this notebook's, not the package's" in out
