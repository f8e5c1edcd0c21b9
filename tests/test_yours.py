"""micrograd.course.carry.yours: the learner's pieces saved by %%my_micrograd and carried to later lessons."""

import json
import math
import random
import re
from pathlib import Path

import pytest

from micrograd.course.carry import magic, pieces, saved, status, yours

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
# The lessons with build-it cells: 2 to 6, and 11.
LESSONS = sorted(NOTEBOOKS.glob("0[2-6]_*.ipynb")) + sorted(NOTEBOOKS.glob("11_*.ipynb"))
SOLUTIONS = sorted((NOTEBOOKS / "solutions").glob("0[2-6]_*.ipynb")) + sorted((NOTEBOOKS / "solutions").glob("11_*.ipynb"))

STUB_VALUE_2 = dict(saved.stored_cells(LESSONS[0]))["lesson 2: MyValue"]


def stub_sections():
    return {key: code for notebook in LESSONS for key, code in saved.stored_cells(notebook)}


def write_file(folder, found):
    for key, code in found.items():
        yours.store(key, code, folder)


def use(capsys, *names, lesson, folder):
    """What use() returns, and its status lines (each line's reason, printed indented under it, left out)."""
    got, rows = use_with_reasons(capsys, *names, lesson=lesson, folder=folder)
    return got, [line for line, _ in rows]


def use_with_reasons(capsys, *names, lesson, folder):
    got = yours.use(*names, lesson=lesson, folder=folder)
    rows = []
    for line in capsys.readouterr().out.splitlines():
        if line.startswith("    "):
            rows[-1] = (rows[-1][0], line.strip())
        else:
            rows.append((line, None))
    return got, rows


# -- the file -------------------------------------------------------------------------------


def test_store_writes_a_header_and_one_section_per_key_replacing_on_a_second_run(tmp_path):
    yours.store("lesson 3: MyValue", "x = 3\n", tmp_path)
    yours.store("lesson 2: MyValue", "x = 2\n", tmp_path)
    yours.store("lesson 3: MyValue", "x = 'three'\n", tmp_path)
    text = (tmp_path / "my_micrograd.py").read_text()
    assert text.startswith('"""my_micrograd.py: your own micrograd')
    assert re.findall(r"^# %% (.*)$", text, re.M) == ["lesson 2: MyValue", "lesson 3: MyValue"]  # in lesson order
    assert "x = 'three'" in text and "x = 3" not in text
    found = yours.sections(tmp_path)
    assert {key: code for key, (_, code) in found.items()} == {"lesson 2: MyValue": "x = 2\n", "lesson 3: MyValue": "x = 'three'\n"}
    lines = text.splitlines()
    assert [lines[first - 1] for first, _ in found.values()] == ["x = 2", "x = 'three'"]  # where each section's code starts
    # No temporary file left behind; the code replaced is kept beside the file.
    assert sorted(p.name for p in tmp_path.iterdir()) == [".my_micrograd_history.json", "my_micrograd.py"]


def test_the_file_does_not_depend_on_the_order_the_cells_ran_in(tmp_path):
    found = stub_sections()
    keys = list(found)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_file(tmp_path / "a", {k: found[k] for k in keys})
    write_file(tmp_path / "b", {k: found[k] for k in reversed(keys)})
    assert (tmp_path / "a" / "my_micrograd.py").read_text() == (tmp_path / "b" / "my_micrograd.py").read_text()


def test_store_writes_without_a_lock_where_fcntl_has_no_flock(tmp_path, monkeypatch):
    # Pyodide's kernel puts an empty stand-in fcntl module in sys.modules (one tab, one kernel).
    import sys
    import types

    monkeypatch.setitem(sys.modules, "fcntl", types.ModuleType("fcntl"))
    yours.store("lesson 2: MyValue", "x = 2\n", tmp_path)
    yours.store("lesson 2: MyValue", "x = 'two'\n", tmp_path)
    assert {key: code for key, (_, code) in yours.sections(tmp_path).items()} == {"lesson 2: MyValue": "x = 'two'\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == [".my_micrograd_history.json", "my_micrograd.py"]


def test_section_key_reads_the_magic_line():
    assert saved.section_key(" lesson 3: MyValue") == "lesson 3: MyValue"
    assert saved.section_key("lesson 05 : MyNeuron, MyLayer, MyMLP ") == "lesson 5: MyNeuron, MyLayer, MyMLP"
    assert saved.section_key("MyValue") is None


@pytest.mark.parametrize("folder, notebooks", [("notebooks", LESSONS), ("solutions", SOLUTIONS)])
def test_the_committed_file_is_what_the_cells_write(folder, notebooks):
    """What the shipped cells write, whatever the order they ran in: so no stored output depends on run order."""
    path = (NOTEBOOKS if folder == "notebooks" else NOTEBOOKS / "solutions") / "my_micrograd.py"
    assert len(notebooks) == 6
    assert path.read_text() == saved.expected_file(notebooks)


def test_every_build_it_cell_of_the_lessons_is_saved():
    keys = [key for notebook in LESSONS for key, _ in saved.stored_cells(notebook)]
    assert keys == [piece.key for piece in yours.PIECES]


# -- the cell magic -------------------------------------------------------------------------


def test_the_magic_runs_the_cell_and_saves_it(tmp_path, monkeypatch, capsys, shell):
    monkeypatch.chdir(tmp_path)
    shell.run_cell("%load_ext micrograd.course.carry.yours")
    shell.run_cell("%%my_micrograd lesson 2: MyValue\nanswer = 41\n")
    shell.run_cell("%%my_micrograd lesson 2: MyValue\nanswer = 42\n")
    assert shell.user_ns["answer"] == 42
    assert [code for _, code in yours.sections(tmp_path).values()] == ["answer = 42\n"]
    assert 'saved in my_micrograd.py as "lesson 2: MyValue"' in capsys.readouterr().out
    shell.run_cell("%%my_micrograd MyValue\nanswer = 43\n")  # no lesson: run, not saved, and told how
    assert shell.user_ns["answer"] == 43
    assert "not saved" in capsys.readouterr().out
    assert list(yours.sections(tmp_path)) == ["lesson 2: MyValue"]


def test_no_shell_is_left_behind_for_other_tests():
    from IPython import get_ipython

    assert get_ipython() is None


# -- loading ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lesson, names", [(2, ["MyValue"]), (3, ["MyValue"]), (4, ["MyValue", "my_topological_order", "my_backward"]),
                                           (5, ["MyValue", "my_backward", "MyMLP"]), (6, ["MyValue", "MyMLP", "my_train"]),
                                           (11, ["MyValue", "softmax", "rmsnorm", "attention_head", "training_step"])])
def test_a_missing_file_and_the_stubs_give_the_same_lines(tmp_path, capsys, lesson, names):
    (tmp_path / "missing").mkdir()
    (tmp_path / "stubs").mkdir()
    write_file(tmp_path / "stubs", stub_sections())
    _, missing = use(capsys, *names, lesson=lesson, folder=tmp_path / "missing")
    _, stubs = use(capsys, *names, lesson=lesson, folder=tmp_path / "stubs")
    assert missing == stubs
    assert len(stubs) == len(names)
    assert all(line.startswith("… ") and "not written yet" in line and "worked answer" in line for line in stubs)


def test_the_worked_answers_pass_and_are_used(tmp_path, capsys):
    write_file(tmp_path, yours.ANSWERS)
    (value, mlp, train), lines = use(capsys, "MyValue", "MyMLP", "my_train", lesson=6, folder=tmp_path)
    assert lines == [
        "✓ MyValue: using yours, from lesson 3 (it passes lesson 3's check)",
        "✓ MyNeuron, MyLayer, MyMLP: using yours, from lesson 5 (it passes lesson 5's check)",
        "✓ my_train: using yours, from lesson 6 (it passes lesson 6's check)",
    ]
    random.seed(0)
    losses = train(mlp(3, [4, 4, 1]), [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5]], [1.0, -1.0], 5, 0.05)
    assert losses[-1] < losses[0]


def test_lesson_11s_worked_answers_pass_and_compute_a_softmax_and_a_norm_on_myvalue(tmp_path, capsys):
    write_file(tmp_path, yours.ANSWERS)
    (value, softmax, rmsnorm, head, step), lines = use(capsys, "MyValue", "softmax", "rmsnorm", "attention_head",
                                                       "training_step", lesson=11, folder=tmp_path)
    assert lines == ["✓ MyValue: using yours, from lesson 3 (it passes lesson 3's check)"] + [
        f"✓ {name}: using yours, from lesson 11 (it passes lesson 11's check)"
        for name in ("softmax", "rmsnorm", "attention_head", "training_step")]
    from micrograd import Value

    def loss_and_gradients(cls):
        logits = [cls(2.0), cls(-1.0), cls(0.5), cls(1.5)]
        out = head(logits, [logits, [cls(0.3) for _ in range(4)]], [[cls(0.1 * k) for k in range(4)], logits])
        loss = -softmax(logits)[0].log() + sum(x.relu() for x in rmsnorm(logits)) + sum(out)
        loss.backward()
        return loss.data, [x.grad for x in logits]

    mine, package = loss_and_gradients(value), loss_and_gradients(Value)
    assert mine[0] == pytest.approx(package[0], rel=1e-12) and mine[1] == pytest.approx(package[1], rel=1e-9)


def test_lesson_11s_operations_work_on_either_style_and_twice():
    from foreign_nodes import LECTURE_MY_VALUE

    for style, value in [("lesson 3's", yours.ANSWERS["lesson 3: MyValue"]), ("the lecture's", LECTURE_MY_VALUE)]:
        namespace = {}
        for code in (value, yours.ANSWERS["lesson 4: my_topological_order"], yours.ANSWERS["lesson 4: my_backward"],
                     yours.ANSWERS["lesson 4: more operations"], yours.ANSWERS["lesson 11: more operations"],
                     yours.ANSWERS["lesson 11: more operations"]):
            exec(code, namespace)
        assert pieces.BY_KEY["lesson 11: more operations"].check(namespace)[0] == "passed", style
        x = namespace["MyValue"](3.0)
        y = (x * x).log() + (x - 5).relu() + (2 * x).relu()
        y.backward()
        assert abs(y.data - (math.log(9.0) + 6.0)) < 1e-12 and abs(x.grad - (2 / 3 + 2)) < 1e-12, style


def test_yours_is_what_comes_back_when_it_passes(tmp_path, capsys):
    code = yours.ANSWERS["lesson 3: MyValue"] + "\nMyValue.mine = True\n"
    yours.store("lesson 3: MyValue", code, tmp_path)
    value, lines = use(capsys, "MyValue", lesson=3, folder=tmp_path)
    assert getattr(value, "mine", False)
    assert lines[0].startswith("✓ MyValue: using yours, from lesson 3")


SLIPS = {
    "a wrong local derivative": (
        yours.ANSWERS["lesson 3: MyValue"].replace("local_grads = (1 - t**2,)", "local_grads = (1 - t,)"),
        "tanh (at n = 0.8814",
    ),
    "a syntax error": (yours.ANSWERS["lesson 3: MyValue"].replace("def tanh(self):", "def tanh(self)"), "syntax error on line"),
    "an error when the cell runs": ("import math\nraise ValueError('oops')\n", "running it raised ValueError: oops"),
    "a cell that defines something else": ("class MyOtherValue:\n    pass\n", "does not define MyValue"),
}


@pytest.mark.parametrize("slip", sorted(SLIPS))
def test_a_failing_piece_is_named_with_the_reason_and_the_worked_answer_is_used(tmp_path, capsys, slip):
    code, reason = SLIPS[slip]
    yours.store("lesson 3: MyValue", code, tmp_path)
    value, rows = use_with_reasons(capsys, "MyValue", lesson=3, folder=tmp_path)
    assert len(rows) == 1
    line, why = rows[0]
    assert line == "✗ MyValue: using the worked answer, as yours fails lesson 3's check"  # one short line, no message
    assert reason in why
    assert 'yours.answer("lesson 3: MyValue") shows the worked answer' in why
    assert "Traceback" not in why
    t = value(0.5).tanh()  # the worked answer: the right local derivative
    assert t._local_grads == (1 - t.data**2,)


def test_a_syntax_error_is_reported_on_the_file_s_own_line(tmp_path, capsys):
    yours.store("lesson 2: MyValue", yours.ANSWERS["lesson 2: MyValue"], tmp_path)
    yours.store("lesson 3: MyValue", "import math\nclass MyValue(:\n    pass\n", tmp_path)
    lines = (tmp_path / "my_micrograd.py").read_text().splitlines()
    broken = next(i for i, line in enumerate(lines, start=1) if line.startswith("class MyValue(:"))
    _, rows = use_with_reasons(capsys, "MyValue", lesson=3, folder=tmp_path)
    assert f"syntax error on line {broken} of my_micrograd.py" in rows[0][1]


def test_later_pieces_run_on_the_fallback_of_an_earlier_one(tmp_path, capsys):
    """A failing MyValue is replaced before lesson 4's operations and lesson 5's network are run on it."""
    found = dict(yours.ANSWERS)
    found["lesson 3: MyValue"] = found["lesson 3: MyValue"].replace("child.grad += local * self.grad", "child.grad = local * self.grad")
    write_file(tmp_path, found)
    (value, mlp), lines = use(capsys, "MyValue", "MyMLP", lesson=5, folder=tmp_path)
    assert lines[0].startswith("✗ MyValue: using the worked answer, as yours fails lesson 3's check")
    assert lines[1].startswith("✓ MyNeuron, MyLayer, MyMLP: using yours")
    x = value(3.0)
    y = x * x + x
    y.backward()
    assert x.grad == 7.0  # += in the worked answer: both uses of x count
    assert isinstance(mlp(3, [4, 1])([1.0, 2.0, 3.0]), value)


def test_a_passing_piece_says_when_a_piece_folded_into_it_was_replaced(tmp_path, capsys):
    found = {key: code for key, code in yours.ANSWERS.items() if key != "lesson 4: more operations"}
    write_file(tmp_path, found)
    value, rows = use_with_reasons(capsys, "MyValue", lesson=4, folder=tmp_path)
    assert rows == [("✓ MyValue: using yours, from lesson 3, with the worked answer's more operations",
                     "Yours passes lesson 3's check; here it runs with the worked answer's more operations. "
                     "Your more operations (lesson 4) is not written yet.")]
    assert (2 - value(5.0)).data == -3.0


def test_use_leaves_python_s_random_numbers_alone(tmp_path, capsys):
    write_file(tmp_path, yours.ANSWERS)
    random.seed(5)
    expected = random.random()
    random.seed(5)
    use(capsys, "MyMLP", "my_train", lesson=6, folder=tmp_path)
    assert random.random() == expected


def test_nothing_the_learner_s_code_prints_reaches_the_screen(tmp_path, capsys):
    yours.store("lesson 2: MyValue", "print('hello from the cell')\n" + yours.ANSWERS["lesson 2: MyValue"], tmp_path)
    _, lines = use(capsys, "MyValue", lesson=2, folder=tmp_path)
    assert lines == ["✓ MyValue: using yours, from lesson 2 (it passes lesson 2's check)"]


def test_an_unknown_piece_name_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no lesson up to 3 writes MyMLP"):
        yours.use("MyMLP", lesson=3, folder=tmp_path)


def test_the_lessons_load_what_their_text_says():
    """Each use() in lessons 3 to 6 asks for pieces of earlier lessons (or of its own, after its cell)."""
    for notebook in LESSONS + SOLUTIONS:
        lesson = int(notebook.name[:2])
        cells = json.loads(notebook.read_text())["cells"]
        for cell in cells:
            text = "".join(cell["source"])
            for wanted in re.findall(r"yours\.use\([^)]*lesson=(\d+)\)", text):
                assert int(wanted) <= lesson, (notebook.name, text)


def test_a_check_left_in_a_saved_cell_does_no_harm(tmp_path, capsys):
    yours.store("lesson 2: MyValue", yours.ANSWERS["lesson 2: MyValue"] + "\ncheck.my_value(MyValue)\n", tmp_path)
    _, lines = use(capsys, "MyValue", lesson=2, folder=tmp_path)
    assert lines == ["✓ MyValue: using yours, from lesson 2 (it passes lesson 2's check)"]


def test_lesson_4s_operations_can_be_run_twice_as_a_learner_reruns_a_cell():
    namespace = {}
    for key in ("lesson 3: MyValue", "lesson 4: my_topological_order", "lesson 4: my_backward"):
        exec(yours.ANSWERS[key], namespace)
    for _ in range(2):
        exec(yours.ANSWERS["lesson 4: more operations"], namespace)
    x = namespace["MyValue"](3.0)
    y = 2 * x + 1 - x / 2
    assert y.data == 5.5
    y.backward()
    assert x.grad == 1.5


# -- run order: a cell run again, after a restart, or with a mistake in it ---------------------------------------


def test_a_cell_with_a_syntax_error_is_not_saved_over_working_code(tmp_path, monkeypatch, capsys, shell):
    monkeypatch.chdir(tmp_path)
    shell.run_cell("%load_ext micrograd.course.carry.yours\ncheck = None")
    shell.run_cell("%%my_micrograd lesson 2: MyValue\nanswer = 42\n")
    capsys.readouterr()
    shell.run_cell("%%my_micrograd lesson 2: MyValue\ndef broken(:\n    pass\n")
    said = capsys.readouterr().out
    assert [code for _, code in yours.sections(tmp_path).values()] == ["answer = 42\n"]
    assert "not saved: this cell has a syntax error" in said and "keeps the code it saved last time" in said
    shell.run_cell("%%my_micrograd lesson 2: MyValue\nraise ValueError('no')\n")
    assert "not saved: this cell raised ValueError" in capsys.readouterr().out
    assert [code for _, code in yours.sections(tmp_path).values()] == ["answer = 42\n"]


def test_after_a_restart_a_build_it_cell_alone_runs_saves_and_says_what_to_run_first(tmp_path, monkeypatch, capsys,
                                                                                        shell):
    """What IPython runs in each kernel of an environment with the autoload config: a fresh shell, then a build-it cell."""
    from traitlets.config.loader import PyFileConfigLoader

    path = magic.install_autoload(tmp_path / "prefix")
    assert magic.install_autoload(tmp_path / "prefix").read_text() == path.read_text()  # a second run adds nothing
    config = PyFileConfigLoader(path.name, path=str(path.parent)).load_config()
    monkeypatch.chdir(tmp_path)
    for line in config.InteractiveShellApp.exec_lines.get_value([]):
        assert shell.run_cell(line, store_history=False).success
    result = shell.run_cell("%%my_micrograd lesson 2: MyValue\nanswer = 42\n")
    assert result.success and shell.user_ns["answer"] == 42
    said = capsys.readouterr().out
    assert 'saved in my_micrograd.py as "lesson 2: MyValue"' in said
    assert "has not run the lesson's first cell" in said
    for _ in range(2):  # the lessons' first cell, run twice: quiet, though the magic is there already
        assert shell.run_cell("from micrograd.course.carry import yours\nyours.enable_magic()").success
    assert capsys.readouterr().out == ""
    assert shell.run_cell("%%my_micrograd lesson 2: MyValue\nanswer = 43\n").success and shell.user_ns["answer"] == 43


EARLIER_AUTOLOAD = (  # what --autoload wrote while the magic was micrograd.course.magic
    "\n# micrograd.course.magic: every kernel of this environment knows the %%my_micrograd cell magic from its start,\n"
    "# so a lesson's build-it cell runs even when a restart skipped the lesson's first cell.\n"
    "c.InteractiveShellApp.exec_lines.append(\n"
    "    \"try:\\n    __import__('importlib').import_module('micrograd.course.magic').load_ipython_extension(get_ipython())\\n\"\n"
    "    \"except ImportError:\\n    pass\\n\"\n"
    ")\n"
)


def test_make_setup_replaces_the_autoload_line_written_before_the_magic_moved_and_keeps_the_rest(tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    folder = tmp_path / "prefix" / "etc" / "ipython"
    folder.mkdir(parents=True)
    (folder / magic.AUTOLOAD_CONFIG).write_text("c.InteractiveShellApp.exec_lines = ['x = 1']\n" + EARLIER_AUTOLOAD)
    path = magic.install_autoload(tmp_path / "prefix")
    text = path.read_text()
    assert "'micrograd.course.magic'" not in text and text.count("micrograd.course.carry.magic'") == 1, text
    assert text.startswith("c.InteractiveShellApp.exec_lines = ['x = 1']\n")
    lines = PyFileConfigLoader(path.name, path=str(path.parent)).load_config().InteractiveShellApp.exec_lines
    assert len(lines) == 2 and "micrograd.course.carry.magic" in lines[1]


def test_a_lesson_saved_before_the_checkers_and_yours_moved_still_imports_them():
    from micrograd.course import lesson04 as check, yours as earlier
    from micrograd.course.lessons import lesson04

    assert check is lesson04 and earlier is yours
    with pytest.raises(ImportError, match="no_such_module"):
        exec("from micrograd.course import no_such_module")


def test_the_given_operations_show_no_machinery_and_work_on_either_style():
    from foreign_nodes import LECTURE_MY_VALUE

    given = yours.ANSWERS["lesson 4: more operations"]
    assert "setattr" not in given and "vars(" not in given and "_your_add" not in given
    for style, value in [("lesson 3's", yours.ANSWERS["lesson 3: MyValue"]), ("the lecture's", LECTURE_MY_VALUE)]:
        namespace = {}
        for code in (value, yours.ANSWERS["lesson 4: my_topological_order"], yours.ANSWERS["lesson 4: my_backward"], given):
            exec(code, namespace)
        status, message = pieces._check_operations(namespace)
        assert status == "passed", (style, message)


# -- status lines -----------------------------------------------------------------------------------------------


def test_a_status_is_one_line_per_piece_with_its_reason_one_click_away_and_wraps_between_words(tmp_path):
    found = dict(yours.ANSWERS)
    found["lesson 3: MyValue"] = found["lesson 3: MyValue"].replace("child.grad += local * self.grad",
                                                                  "child.grad = local * self.grad")
    write_file(tmp_path, found)
    _, results = yours._load(4, tmp_path)
    rows = [status.row("MyValue", results["lesson 3: MyValue"], results)]
    html = status.Status(rows)._repr_html_()
    assert html.count("<details>") == 1 and "<summary" in html
    summary = re.search(r"<summary[^>]*>(.*?)</summary>", html).group(1)
    assert summary == "✗ MyValue: using the worked answer, as yours fails lesson 3&#x27;s check"
    assert "gradients from the two uses" in html.split("</summary>")[1]  # the checker's message, a click away
    assert "word-break: normal" in html and "<pre" not in html and "monospace" not in html


def test_a_backward_that_passes_on_the_worked_answer_s_order_says_so_without_contradicting_its_check(tmp_path, capsys):
    found = dict(yours.ANSWERS)
    found["lesson 4: my_topological_order"] = found["lesson 4: my_topological_order"].replace(
        "        if node not in visited:\n            visited.add(node)\n            for child in node._prev:\n"
        "                visit(child)\n            order.append(node)",
        "        for child in node._prev:\n            visit(child)\n        order.append(node)")
    write_file(tmp_path, found)
    _, rows = use_with_reasons(capsys, "my_topological_order", "my_backward", lesson=4, folder=tmp_path)
    assert rows[0][0] == "✗ my_topological_order: using the worked answer, as yours fails lesson 4's check"
    line, why = rows[1]
    assert line == "✓ my_backward: using yours, from lesson 4, with the worked answer's my_topological_order"
    assert why.startswith("Yours passes lesson 4's check; here it runs with the worked answer's my_topological_order.")
    assert "as lesson 4's is fails" not in line + why


# -- a build-it cell read before it runs: the name Value, what to run first, what is left from before -------------------


def test_a_build_it_cell_that_names_its_class_value_is_not_run_not_saved_and_says_so_in_one_sentence(tmp_path, monkeypatch,
                                                                                                      capsys, shell):
    from foreign_nodes import LECTURE_MY_VALUE

    from micrograd import Value

    monkeypatch.chdir(tmp_path)
    shell.run_cell("from micrograd import Value\nfrom micrograd.course.carry import yours\nyours.enable_magic()\ncheck = None")
    result = shell.run_cell("%%my_micrograd lesson 3: MyValue\n" + LECTURE_MY_VALUE.replace("MyValue", "Value"))
    assert isinstance(result.error_in_exec, magic.NotRun)  # an error: Run All stops at this cell
    assert shell.user_ns["Value"] is Value and "MyValue" not in shell.user_ns  # not run: the package's Value stays
    assert yours.sections(tmp_path) == {}
    said = capsys.readouterr()
    assert "Traceback" not in said.out + said.err
    assert "Not run, not saved: this cell names its class Value, as the lecture does" in said.out + said.err
    result = shell.run_cell("%%my_micrograd lesson 3: MyValue\nclass MyValue:\n    pass\nValue = MyValue\n")
    assert "assigns the name Value" in str(result.error_in_exec) and shell.user_ns["Value"] is Value
    # An import of the package's Value takes nothing: the cell runs.
    assert shell.run_cell("%%my_micrograd lesson 3: MyValue\nfrom micrograd import Value\nclass MyValue:\n    pass\n").success
    assert "lesson 3: MyValue" in yours.sections(tmp_path)


def test_a_saved_section_that_names_its_class_value_is_told_to_name_it_my_value(tmp_path, capsys):
    from foreign_nodes import LECTURE_MY_VALUE

    yours.store("lesson 3: MyValue", LECTURE_MY_VALUE.replace("MyValue", "Value"), tmp_path)
    value, rows = use_with_reasons(capsys, "MyValue", lesson=4, folder=tmp_path)
    assert rows[0][0] == "✗ MyValue: using the worked answer, as yours fails lesson 3's check"
    assert "it names its class Value, as the lecture does" in rows[0][1] and "name yours MyValue" in rows[0][1]
    assert isinstance(2 * value(3.0), value)  # the worked answer, lesson 4's operations on it


def test_a_cell_using_a_name_this_kernel_lacks_says_what_to_run_first(tmp_path, monkeypatch, capsys, shell):
    monkeypatch.chdir(tmp_path)
    shell.run_cell("from micrograd.course.carry import yours\nyours.enable_magic()\ncheck = None\nimport random")
    shell.run_cell("%%my_micrograd lesson 5: MyNeuron, MyLayer, MyMLP\n"
                   "class MyNeuron:\n    def __init__(self, nin):\n        self.w = [MyValue(random.uniform(-1, 1))]\n"
                   "MyLayer = MyMLP = MyNeuron\n")
    said = capsys.readouterr().out
    assert "This kernel has no MyValue yet, which this cell uses: it comes from a cell above" in said
    assert "Run > Run All Above, then this cell again" in said and "random" not in said.split("no ")[1].split(" yet")[0]
    shell.run_cell("MyValue = float")
    shell.run_cell("%%my_micrograd lesson 5: MyNeuron, MyLayer, MyMLP\nclass MyNeuron:\n    w = MyValue\n"
                   "MyLayer = MyMLP = MyNeuron\n")
    assert "This kernel has no" not in capsys.readouterr().out  # nothing missing now: nothing said


def test_a_check_does_not_pass_a_piece_the_cell_above_did_not_define_on_its_last_run(tmp_path, monkeypatch, capsys, shell):
    from micrograd.course.lessons import lesson02

    monkeypatch.chdir(tmp_path)
    shell.run_cell("from micrograd.course.carry import yours\nyours.enable_magic()\ncheck = None")
    good = "%%my_micrograd lesson 2: MyValue\n" + yours.ANSWERS["lesson 2: MyValue"]
    assert shell.run_cell(good).success
    assert lesson02.my_value(shell.user_ns["MyValue"]).passed
    older = shell.user_ns["MyValue"]
    shell.run_cell("%%my_micrograd lesson 2: MyValue\nraise ValueError('typed half-way')\n" + yours.ANSWERS["lesson 2: MyValue"])
    assert shell.user_ns["MyValue"] is older  # the raise came before the class: the kernel keeps the older one
    verdict = lesson02.my_value(older)
    assert verdict.status == "failed" and "the MyValue here is left from before" in verdict.message
    assert "(it raised ValueError)" in verdict.message
    shell.run_cell("%%my_micrograd lesson 2: MyValue\nclass MyOtherValue:\n    pass\n")
    assert "This cell defines no MyValue" in capsys.readouterr().out
    assert "it does not define MyValue" in lesson02.my_value(older).message
    assert shell.run_cell(good).success  # run right again: the check judges the new class
    assert lesson02.my_value(shell.user_ns["MyValue"]).passed


def test_whose_names_the_learner_s_piece_or_the_worked_answer_and_refuses_what_use_did_not_give(tmp_path):
    from micrograd.course.carry.yours import ANSWERS, store, use, whose

    MyValue = use("MyValue", lesson=3, folder=tmp_path)  # nothing saved: the worked answer
    assert whose(MyValue) == "the worked answer's MyValue"

    class Grown(MyValue):  # a lesson's class MyValue(MyValue) is whose its base is
        pass

    assert whose(Grown) == "the worked answer's Grown"
    store("lesson 2: MyValue", ANSWERS["lesson 2: MyValue"], tmp_path)
    store("lesson 3: MyValue", ANSWERS["lesson 3: MyValue"], tmp_path)
    assert whose(use("MyValue", lesson=3, folder=tmp_path)) == "your MyValue"
    with pytest.raises(ValueError, match=r"int did not come from yours.use\(...\): load it with use\(\) first"):
        whose(int)
