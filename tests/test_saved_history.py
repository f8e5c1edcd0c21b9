"""Nothing a learner writes is lost: a cell that still shows the lesson's template never replaces their saved
code (it runs theirs, and puts it back in the cell), and code replaced by other code is kept, to bring back
with yours.restore(...)."""

import json
import time
from pathlib import Path

import pytest

import foreign_nodes
from micrograd.course.carry import history, pieces, saved, templates, yours

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
KEY = "lesson 3: MyValue"
TEMPLATE = templates.template(KEY)
LECTURE = foreign_nodes.LECTURE_MY_VALUE  # the lecture's Value, named MyValue, as a learner types it in


def payloads(shell):
    found = shell.payload_manager.read_payload()
    shell.payload_manager.clear_payload()
    return found


def run(shell, code, key=KEY):
    return shell.run_cell(f"%%my_micrograd {key}\n{code}")


def section(folder, key=KEY):
    return yours.sections(folder)[key][1]


@pytest.fixture
def kernel(shell, tmp_path, monkeypatch):
    """The shell in a learner's folder, with the lesson's first cell run (enable_magic, and a check module)."""
    monkeypatch.chdir(tmp_path)
    shell.run_cell("from micrograd.course.carry import yours\nyours.enable_magic()\ncheck = None")
    payloads(shell)
    return shell


@pytest.fixture
def clock(monkeypatch):
    """history's clock, one minute a call from a fixed time."""
    ticks = iter(range(1_700_000_000, 1_800_000_000, 60))
    monkeypatch.setattr(history, "_now", lambda: float(next(ticks)))


def when(seconds):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


# -- the templates the package ships ------------------------------------------------------------


def test_the_shipped_templates_are_the_lessons_build_it_cells():
    lessons = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    shipped = json.loads(templates.TEMPLATES_FILE.read_text(encoding="utf-8"))
    assert shipped == templates.from_notebooks(lessons), (
        "micrograd/course/carry/templates.json differs from the lessons' build-it cells: run scripts/execute_notebooks.py "
        "(make notebooks), which writes it first")
    assert list(shipped) == [piece.key for piece in pieces.PIECES]


def test_the_committed_file_holds_exactly_the_templates():
    """nbval runs the lessons with it: each build-it cell is its template, so each run saves as it always did."""
    found = {key: code for key, (_, code) in saved.sections(NOTEBOOKS).items()}
    assert found == {key: templates.template(key) for key in found}
    assert list(found) == [piece.key for piece in pieces.PIECES]


def test_a_template_is_known_with_blank_lines_at_either_end_and_not_with_a_change():
    assert templates.is_template(KEY, f"\n\n{TEMPLATE}\n\n")
    assert not templates.is_template(KEY, TEMPLATE.replace("...", "(1.0, 1.0)", 1))
    assert not templates.is_template("lesson 2: MyValue", TEMPLATE)  # another piece's template
    assert not templates.is_template("lesson 9: not a piece", TEMPLATE)


# -- a cell that shows the template --------------------------------------------------------------


def test_the_template_runs_the_learners_saved_code_instead_and_puts_it_back_in_the_cell(kernel, tmp_path, capsys):
    run(kernel, LECTURE)
    capsys.readouterr()
    run(kernel, TEMPLATE)  # the cell as a reload shows it, run again (or by Run All)
    out = capsys.readouterr().out
    assert section(tmp_path) == saved.body(LECTURE)  # not replaced
    assert [p["source"] for p in payloads(kernel)] == ["set_next_input"]
    # The learner's class ran, not the template's: the lecture's MyValue has a _backward closure on each node.
    assert kernel.user_ns["MyValue"](2.0)._backward() is None
    assert "(saved in" not in out
    assert out.strip() == magic_sentence()
    assert 'ran in place of the lesson\'s template' in out and "my_micrograd.py" in out
    assert 'yours.restore("lesson 3: MyValue", "template")' in out


def magic_sentence():
    from micrograd.course.carry.magic import kept_sentence

    return kept_sentence(KEY)


def test_the_cell_is_given_back_the_learners_code_in_place_of_the_template(kernel, tmp_path):
    run(kernel, LECTURE)
    payloads(kernel)
    run(kernel, TEMPLATE)
    (payload,) = payloads(kernel)
    assert payload == {"source": "set_next_input", "replace": True, "text": f"%%my_micrograd {KEY}\n{LECTURE.strip()}"}


@pytest.mark.parametrize("before", ["template", "nothing"])
def test_a_template_run_saves_and_prints_as_always_where_nothing_else_is_saved(kernel, tmp_path, capsys, before):
    if before == "template":
        run(kernel, TEMPLATE)
    capsys.readouterr()
    run(kernel, TEMPLATE)
    assert capsys.readouterr().out == f'(saved in my_micrograd.py as "{KEY}")\n'
    assert payloads(kernel) == []
    assert section(tmp_path) == TEMPLATE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_micrograd.py"]  # the template is not a version to keep


def test_a_template_run_leaves_the_learners_code_saved_when_it_raises(kernel, tmp_path, capsys):
    broken = LECTURE + "\nraise RuntimeError('half written')\n"
    yours.store(KEY, broken)
    capsys.readouterr()
    run(kernel, TEMPLATE)
    out = capsys.readouterr().out
    assert "RuntimeError" in out and "half written" in out and magic_sentence() in out
    assert section(tmp_path) == saved.body(broken)


def test_changed_code_replaces_the_section_and_the_replaced_code_is_kept(kernel, tmp_path, capsys, clock):
    run(kernel, LECTURE)
    changed = LECTURE.replace('return f"Value(data={self.data})"', 'return f"MyValue(data={self.data})"')
    run(kernel, changed)
    assert capsys.readouterr().out.count(f'(saved in my_micrograd.py as "{KEY}")') == 2
    assert payloads(kernel) == []
    assert section(tmp_path) == saved.body(changed)
    assert [v["code"] for v in history.earlier(tmp_path, KEY, section(tmp_path))] == [saved.body(LECTURE)]


# -- the history ---------------------------------------------------------------------------------


def test_the_last_five_versions_are_kept_newest_first_each_with_when_it_was_saved(tmp_path, clock):
    for n in range(8):
        yours.store(KEY, f"x = {n}\n", tmp_path)
    earlier = history.earlier(tmp_path, KEY, section(tmp_path))
    assert history.KEEP == 5
    assert [v["code"] for v in earlier] == [f"x = {n}\n" for n in (6, 5, 4, 3, 2)]
    first = 1_700_000_000
    assert [v["saved"] for v in earlier] == [first + 60 * n for n in (6, 5, 4, 3, 2)]
    assert history.saved_at(tmp_path, KEY, "x = 7\n") == first + 60 * 7
    # One dot-file beside my_micrograd.py, and no temporary file left.
    assert sorted(p.name for p in tmp_path.iterdir()) == [".my_micrograd_history.json", "my_micrograd.py"]


@pytest.mark.parametrize("where", ["README.md", "notebooks/README.md", "notebooks/my_micrograd.py"])
def test_the_pages_that_say_how_many_versions_are_kept_say_how_many(where):
    text = " ".join((NOTEBOOKS.parent / where).read_text(encoding="utf-8").split())
    assert f"the last {history.KEEP} versions" in text and history.HISTORY_NAME in text


def test_saving_the_same_code_again_keeps_no_new_version_and_writes_no_history(tmp_path, clock):
    yours.store(KEY, LECTURE, tmp_path)
    before = history.history_path(tmp_path).read_text()
    yours.store(KEY, LECTURE + "\n\n", tmp_path)
    assert history.history_path(tmp_path).read_text() == before
    assert history.earlier(tmp_path, KEY, LECTURE) == []


def test_a_version_seen_twice_is_kept_once_at_its_latest(tmp_path, clock):
    for code in ("a = 1\n", "b = 2\n", "a = 1\n", "c = 3\n"):
        yours.store(KEY, code, tmp_path)
    assert [v["code"] for v in history.earlier(tmp_path, KEY, "c = 3\n")] == ["a = 1\n", "b = 2\n"]


def test_code_edited_in_the_file_by_hand_is_kept_when_a_cell_replaces_it(tmp_path, clock):
    yours.store(KEY, "x = 1\n", tmp_path)
    path = tmp_path / "my_micrograd.py"
    path.write_text(path.read_text().replace("x = 1", "x = 'by hand'"))
    yours.store(KEY, "x = 2\n", tmp_path)
    assert [(v["code"], v["saved"]) for v in history.earlier(tmp_path, KEY, "x = 2\n")] == [
        ("x = 'by hand'\n", None), ("x = 1\n", 1_700_000_000)]


def test_history_is_kept_where_fcntl_has_no_flock(tmp_path, monkeypatch, clock):
    # Pyodide's kernel (the browser app) puts an empty stand-in fcntl module in sys.modules.
    import sys
    import types

    monkeypatch.setitem(sys.modules, "fcntl", types.ModuleType("fcntl"))
    yours.store(KEY, "x = 1\n", tmp_path)
    yours.store(KEY, "x = 2\n", tmp_path)
    assert [v["code"] for v in history.earlier(tmp_path, KEY, "x = 2\n")] == ["x = 1\n"]


def test_an_unreadable_history_is_set_aside_not_deleted(tmp_path, clock):
    yours.store(KEY, "x = 1\n", tmp_path)
    history.history_path(tmp_path).write_text("{ not json")
    with pytest.raises(ValueError, match="not a history this course wrote"):
        history.read(tmp_path)
    yours.store(KEY, "x = 2\n", tmp_path)
    (aside,) = tmp_path.glob(".my_micrograd_history.json.unreadable-*")
    assert aside.read_text() == "{ not json"
    assert [v["code"] for v in history.earlier(tmp_path, KEY, "x = 2\n")] == ["x = 1\n"]


# -- restore -------------------------------------------------------------------------------------


def test_restore_lists_the_versions_with_when_each_was_saved(tmp_path, capsys, clock):
    for code in ("x = 1\n", "x = 2\n", "x = 3\ny = 3\n"):
        yours.store(KEY, code, tmp_path)
    yours.restore(KEY, folder=tmp_path)
    first = 1_700_000_000
    assert capsys.readouterr().out.splitlines() == [
        f'"{KEY}" in my_micrograd.py now: 2 lines, saved {when(first + 120)}.',
        "Earlier versions, newest first:",
        f"  1: 1 line, saved {when(first + 60)}, +1 -2 lines against now",
        f"  2: 1 line, saved {when(first)}, +1 -2 lines against now",
        f"  template: the lesson's template, {len(TEMPLATE.splitlines())} lines",
        f'yours.restore("{KEY}", 1) brings it back into my_micrograd.py and into view; the code it replaces is kept.',
    ]


def test_restore_brings_a_version_back_into_the_file_and_into_view_and_keeps_the_one_it_replaces(kernel, tmp_path, capsys, clock):
    for code in ("x = 1\n", "x = 2\n", "x = 3\n"):
        yours.store(KEY, code)
    yours.restore(KEY, 2)
    assert section(tmp_path) == "x = 1\n"
    assert payloads(kernel) == [{"source": "set_next_input", "replace": False, "text": f"%%my_micrograd {KEY}\nx = 1"}]
    out = capsys.readouterr().out
    assert f'"{KEY}" in my_micrograd.py holds version 2 (saved {when(1_700_000_000)}) again' in out
    assert "the code it replaced is now version 1" in out
    assert [v["code"] for v in history.earlier(tmp_path, KEY, "x = 1\n")] == ["x = 3\n", "x = 2\n"]
    yours.restore(KEY, 1)  # undone the same way
    assert section(tmp_path) == "x = 3\n"


def test_restore_starts_over_from_the_template_and_back(kernel, tmp_path, capsys, clock):
    run(kernel, LECTURE)
    yours.restore(KEY, "template")
    assert section(tmp_path) == TEMPLATE
    assert "holds the lesson's template again, and the code it replaced is now version 1" in capsys.readouterr().out
    run(kernel, TEMPLATE)  # the template in the cell now runs as the template
    assert kernel.user_ns["MyValue"].__init__.__code__.co_varnames[:6] == ("self", "data", "_children", "_op", "label", "_local_grads")
    yours.restore(KEY, 1)
    assert section(tmp_path) == saved.body(LECTURE)


def test_restore_takes_the_key_as_a_build_it_cell_writes_it(tmp_path, capsys, clock):
    yours.store(KEY, "x = 1\n", tmp_path)
    yours.store(KEY, "x = 2\n", tmp_path)
    yours.restore("lesson 03 : MyValue", 1, folder=tmp_path)
    assert section(tmp_path) == "x = 1\n"


@pytest.mark.parametrize("key, version, error, message", [
    ("lesson 9: Nope", None, ValueError, r'no piece \'lesson 9: Nope\' in my_micrograd.py .* The pieces kept: "lesson 3: MyValue"'),
    ("MyValue", 1, ValueError, r"name one as the build-it cell does"),
    (KEY, 3, ValueError, r'"lesson 3: MyValue" has no version 3: 2 earlier versions are kept; give a number from 1 to 2 or "template"'),
    (KEY, 0, ValueError, r"has no version 0"),
    (KEY, "2", TypeError, r'the version is a number yours.restore\("lesson 3: MyValue"\) lists, or "template"; got \'2\''),
    (KEY, True, TypeError, r"got True"),
    (KEY, 1.0, TypeError, r"got 1.0"),
])
def test_restore_says_what_was_wrong_with_a_key_or_a_version(tmp_path, clock, key, version, error, message):
    for code in ("x = 1\n", "x = 2\n", "x = 3\n"):
        yours.store(KEY, code, tmp_path)
    with pytest.raises(error, match=message):
        yours.restore(key, version, folder=tmp_path)
    assert section(tmp_path) == "x = 3\n"


def test_a_piece_with_no_template_and_no_earlier_version_says_so(tmp_path, capsys, clock):
    yours.store("lesson 7: my_extra", "z = 1\n", tmp_path)
    with pytest.raises(ValueError, match=r'no lesson has a template for "lesson 7: my_extra", and no earlier version of it is kept'):
        yours.restore("lesson 7: my_extra", "template", folder=tmp_path)
    yours.restore("lesson 7: my_extra", folder=tmp_path)
    assert "No earlier version is kept" in capsys.readouterr().out


def test_a_saved_file_that_is_not_utf8_is_kept_aside_not_written_over(tmp_path, capsys):
    # Saved by another editor in another encoding: its sections cannot be read, and a new file must not replace it.
    mine = "# %% lesson 2: MyValue\nclass MyValue:\n    name = 'café'\n".encode("latin-1")
    saved.path_in(tmp_path).write_bytes(mine)
    saved.store(KEY, LECTURE, folder=tmp_path)
    (aside,) = tmp_path.glob(f"{saved.FILE_NAME}.unreadable-*")
    assert aside.read_bytes() == mine
    assert section(tmp_path) == saved.body(LECTURE)
    assert f"kept as {aside.name}" in capsys.readouterr().out
