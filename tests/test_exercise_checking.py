from micrograd import Value
from micrograd.exercises.checking import TODO, checker, close, failed, passed


@checker("Exercise 1: the slope at 3")
def check_slope(answer):
    if close(answer, 14.0):
        return passed("14, as the tangent shows")
    return failed(f"{answer} is not the slope; hint: nudge x by a small h")


@checker("Exercise 2: write f")
def check_function(f):
    return passed() if f(2) == 4 else failed("f(2) should be 4")


def test_right_wrong_and_untouched_answers(capsys):
    assert check_slope(14.0000001).status == "passed"
    assert check_slope(Value(14.0)).passed
    wrong = check_slope(13.0)
    assert wrong.status == "failed" and "hint" in wrong.message
    untouched = check_slope(TODO)
    assert untouched.status == "not attempted"
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("✓ Exercise 1") and lines[2].startswith("✗ Exercise 1: the slope at 3: 13.0")
    assert "not attempted yet" in lines[3]


def test_learner_code_that_raises_is_a_verdict_not_a_traceback(capsys):
    def unfinished(x):
        raise NotImplementedError

    def broken(x):
        return x / 0

    assert check_function(unfinished).status == "not attempted"
    verdict = check_function(broken)
    assert verdict.status == "failed" and "ZeroDivisionError" in verdict.message
    assert check_function(lambda x: x * x).passed


def test_close_rejects_non_numbers():
    assert not close("14", 14.0)
    assert not close(None, 14.0)
    assert not close([14.0], 14.0)


def test_a_verdict_is_shown_once_in_a_notebook():
    import nbformat
    from nbclient import NotebookClient

    cell = nbformat.v4.new_code_cell(
        "from micrograd.exercises.checking import checker, passed\n"
        "check = checker('Exercise')(lambda a: passed())\n"
        "check(1)"
    )
    notebook = nbformat.v4.new_notebook(cells=[cell])
    NotebookClient(notebook, kernel_name="python3").execute()
    outputs = notebook.cells[0].outputs
    assert [o.output_type for o in outputs] == ["stream"]
    assert outputs[0].text == "✓ Exercise: correct\n"
