"""The grading on the services schools use, run here the way each service runs it.

Gradescope: ``make autograder``'s zip is unpacked into a folder laid out like
/autograder (source/, submission/, results/), setup.sh runs there, and then
run_autograder for each submission, each in a root of its own as each
submission has a container of its own; results.json is checked against a
schema written from Gradescope's specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/).
setup.sh is given the test's venv (MICROGRAD_AUTOGRADER_TEST_VENV) instead of
installing every package again; what it installs on Gradescope is checked by
reading it.

GitHub Classroom: the template ``--classroom`` writes becomes a student's
repository (git), which is cloned afresh, and the workflow's grading step runs
in the clone as GitHub Actions runs it, with $GITHUB_OUTPUT; the points are
added up from the step's result the way the reporter action does.

The submissions are lesson 1's: its solution (every point), its checker calls
on answers still ``...`` (no point), and its solution with Exercise 2's answer
wrong (some points).  The four kernels' runs happen at once, in one fixture.
"""

import base64
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import nbformat
import pytest

from micrograd.course import exercise_titles
from micrograd.course.grading import gradescope, sandbox_status
from micrograd.course.grading.bundle import Exercise, Outcome
from micrograd.course.grading.github_classroom import RUNNER
from test_grading import notebook_of, untouched_small, wrong_answers
from test_workflows import load as load_workflow, problems, validator  # noqa: F401 (validator: a fixture)

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(sys.prefix)
TITLES = exercise_titles("01")
POINTS = '["01"]\n"Exercise 1" = 2\n"Hidden 1" = 2\n'
HIDDEN = '''
from micrograd.course.verdicts import as_number, failed, not_attempted, passed

def check_slope_of_a_cube(names):
    """Hidden 1: slope() on x**3"""
    slope = names.get("slope", ...)
    if slope is ... or slope is None:
        return not_attempted("there is no slope function to check")
    measured = as_number(slope(lambda x: x**3, 2.0))
    if measured is not None and abs(measured - 12) < 1e-3:
        return passed("slope works on x**3 at 2 too")
    return failed(f"slope(x**3, 2) should be 12, yours gives {measured}")
'''
RUN_SECONDS = 900  # four lesson-1 kernels at once on a loaded 2-core machine, with room to spare

# Gradescope's results.json, from its specification: the fields it names, and no others.
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
RESULTS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "score": {"type": "number"},
        "execution_time": {"type": "number"},
        "output": {"type": "string"},
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": {
            "type": "object",
            "additionalProperties": False,
            "required": ["name", "max_score"],
            "properties": {
                "score": {"type": "number"},
                "max_score": {"type": "number"},
                "status": {"enum": ["passed", "failed"]},
                "name": {"type": "string"},
                "number": {"type": "string"},
                "output": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "visibility": VISIBILITY,
                "extra_data": {"type": "object"},
            },
        }},
    },
    "anyOf": [{"required": ["score"]}, {"properties": {"tests": {"items": {"required": ["score"]}}}, "required": ["tests"]}],
}


def build(*args):
    return subprocess.run([sys.executable, "-m", "micrograd.course.grading.autograder", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=RUN_SECONDS)


def unpack(archive, root):
    """The zip laid out as Gradescope lays it out: source/ holds it, run_autograder is copied beside."""
    (root / "source").mkdir(parents=True)
    (root / "submission").mkdir()
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(root / "source")
        for info in zipped.infolist():  # extractall drops the modes the zip holds
            (root / "source" / info.filename).chmod((info.external_attr >> 16) & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")


def environment(root):
    return {**os.environ, gradescope.ROOT_VARIABLE: str(root), "MICROGRAD_AUTOGRADER_TEST_VENV": str(VENV)}


def submit(folder, notebook):
    nbformat.write(notebook, folder / "01_derivatives.ipynb")
    shutil.copy2(ROOT / "notebooks" / "solutions" / "my_micrograd.py", folder / "my_micrograd.py")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("autograder")
    (tmp / "points.toml").write_text(POINTS)
    (tmp / "hidden").mkdir()
    (tmp / "hidden" / "lesson01.py").write_text(HIDDEN)
    made = build("--lesson", "1", "--points", str(tmp / "points.toml"), "--hidden", str(tmp / "hidden"), "--out", str(tmp / "zips"))
    assert made.returncode == 0, made.stderr
    archive = tmp / "zips" / "lesson01.zip"
    with zipfile.ZipFile(archive) as zipped:
        (wheel,) = [name for name in zipped.namelist() if name.endswith(".whl")]
        zipped.extract(wheel, tmp)
    template = tmp / "template"
    (tmp / "classroom-points.toml").write_text(POINTS.replace('"Hidden 1" = 2\n', ""))  # no hidden checks there
    made = build("--lesson", "1", "--points", str(tmp / "classroom-points.toml"), "--classroom", str(template),
                 "--wheel", str(tmp / wheel))
    assert made.returncode == 0, made.stderr
    return {"tmp": tmp, "zip": archive, "wheel": wheel, "template": template}


@pytest.fixture(scope="module")
def runs(built):
    """Every kernel's run at once: three Gradescope submissions, and one push to a GitHub Classroom repository."""
    tmp = built["tmp"]
    submissions = {"solution": notebook_of("01", solution=True), "template": untouched_small("01"),
                   "wrong": wrong_answers("01", [TITLES[1]])}
    started = {}
    for name, notebook in submissions.items():
        root = tmp / f"gradescope-{name}"
        unpack(built["zip"], root)
        setup = subprocess.run(["bash", "setup.sh"], cwd=root / "source", env=environment(root),
                               capture_output=True, text=True, timeout=RUN_SECONDS)
        assert setup.returncode == 0, setup.stderr
        submit(root / "submission", notebook)
        started[name] = subprocess.Popen([str(root / "run_autograder")], cwd=root, env=environment(root),
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    # A student's repository made from the template, pushed, and cloned afresh as Actions' checkout does.
    student = tmp / "student"
    shutil.copytree(built["template"], student)
    submit(student, wrong_answers("01", [TITLES[1]]))
    git = ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.org", "-c", "init.defaultBranch=main"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "lesson 1"]):
        subprocess.run([*git, *command], cwd=student, check=True, capture_output=True)
    clone = tmp / "clone"
    subprocess.run(["git", "clone", "-q", str(student), str(clone)], check=True, capture_output=True)
    workflow = load_workflow((clone / ".github" / "workflows" / "classroom.yml").read_text(encoding="utf-8"))
    (step,) = [step for step in workflow["jobs"]["run-autograding-tests"]["steps"] if step.get("id") == RUNNER]
    output = tmp / "github_output"
    output.write_text("")
    env = {**os.environ, "GITHUB_OUTPUT": str(output), "PATH": f"{VENV / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    started["classroom"] = subprocess.Popen(["bash", "-e", "-c", step["run"]], cwd=clone, env=env,
                                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finished = {}
    for name, process in started.items():
        printed, _ = process.communicate(timeout=RUN_SECONDS)
        finished[name] = (process.returncode, printed)
    return {"finished": finished, "output": output, "workflow": workflow, "clone": clone}


def results(built, name):
    return json.loads((built["tmp"] / f"gradescope-{name}" / "results" / "results.json").read_text(encoding="utf-8"))


def scores(answer):
    return {test["name"]: (test["score"], test["max_score"]) for test in answer["tests"]}


def test_the_zip_holds_setup_and_run_autograder_at_its_root_and_setup_installs_the_wheel_it_holds(built):
    with zipfile.ZipFile(built["zip"]) as zipped:
        names = set(zipped.namelist())
        modes = {info.filename: (info.external_attr >> 16) & 0o777 for info in zipped.infolist()}
        setup = zipped.read("setup.sh").decode()
    assert {"setup.sh", "run_autograder", "constraints.txt", "autograder.json", built["wheel"],
            "released/01_derivatives.ipynb", "points.toml", "hidden/lesson01.py"} <= names
    assert modes["run_autograder"] & 0o111 and modes["setup.sh"] & 0o111
    assert subprocess.run(["bash", "-n"], input=setup, text=True).returncode == 0
    assert f'WHEEL="{built["wheel"]}"' in setup
    assert 'pip install --quiet -c constraints.txt "./$WHEEL[notebooks,grading]"' in setup
    # and the check can fail: a script with a syntax error is caught by bash -n
    assert subprocess.run(["bash", "-n"], input=setup + "\nif then\n", text=True, capture_output=True).returncode != 0


def test_a_bad_points_file_stops_the_build_before_anything_is_written(tmp_path):
    (tmp_path / "points.toml").write_text('["01"]\n"Exercise 9" = 2\n')
    made = build("--lesson", "1", "--points", str(tmp_path / "points.toml"), "--out", str(tmp_path / "zips"),
                 "--wheel", str(tmp_path / "none.whl"))
    assert made.returncode == 2 and "'Exercise 9' is no exercise of the lesson" in made.stderr
    assert not (tmp_path / "zips").exists()


def test_results_json_follows_gradescopes_format(built, runs):
    check = jsonschema.Draft7Validator(RESULTS_SCHEMA)
    for name in ("solution", "template", "wrong"):
        code, printed = runs["finished"][name]
        assert code == 0, printed
        assert list(check.iter_errors(results(built, name))) == [], name
    # and the schema can fail: a visibility Gradescope does not know
    broken = results(built, "solution")
    broken["tests"][0]["visibility"] = "students"
    assert list(check.iter_errors(broken))


def test_gradescope_gives_the_solution_every_point_with_the_teachers_points_and_hidden_check(built, runs):
    answer = results(built, "solution")
    assert scores(answer) == {TITLES[0]: (2, 2), TITLES[1]: (1, 1), TITLES[2]: (1, 1), "Hidden 1: slope() on x**3": (2, 2)}
    assert answer["score"] == 6
    visibility = {test["name"]: test["visibility"] for test in answer["tests"]}
    assert visibility == {**{title: "visible" for title in TITLES}, "Hidden 1: slope() on x**3": "after_published"}
    assert answer["output"].splitlines()[0] == f"Sandbox: {sandbox_status()[1]}"


def test_gradescope_gives_the_untouched_lesson_nothing_and_says_why(built, runs):
    answer = results(built, "template")
    assert answer["score"] == 0 and all(test["score"] == 0 for test in answer["tests"])
    outputs = {test["name"]: test["output"] for test in answer["tests"]}
    assert outputs[TITLES[0]].startswith("not attempted yet")
    assert outputs["Hidden 1: slope() on x**3"] == "there is no slope function to check"


def test_gradescope_gives_a_wrong_answer_the_other_exercises_points(built, runs):
    answer = results(built, "wrong")
    assert scores(answer) == {TITLES[0]: (2, 2), TITLES[1]: (0, 1), TITLES[2]: (1, 1), "Hidden 1: slope() on x**3": (2, 2)}
    assert answer["score"] == 5
    (wrong,) = [test for test in answer["tests"] if test["name"] == TITLES[1]]
    assert wrong["status"] == "failed" and wrong["output"].startswith("failed: ")


def test_a_submission_with_no_notebook_scores_nothing_and_says_what_to_submit(built, tmp_path, monkeypatch):
    unpack(built["zip"], tmp_path)
    monkeypatch.setenv(gradescope.ROOT_VARIABLE, str(tmp_path))
    (tmp_path / "submission" / "my_micrograd.py").write_text("# nothing else\n")
    assert gradescope.main() == 0
    answer = json.loads((tmp_path / "results" / "results.json").read_text())
    assert answer["score"] == 0 and {test["output"] for test in answer["tests"]} == {"not submitted"}
    assert "No notebook (.ipynb) in the submission: submit your notebook of lesson 01." in answer["output"]
    assert len(answer["tests"]) == 4  # the most anyone can score is the same: 6 points


def test_the_classroom_workflow_is_valid_and_hands_its_result_to_the_reporter(built, runs, validator):  # noqa: F811
    workflow = runs["workflow"]
    assert problems(validator, workflow) == []
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    reporter = steps[-1]
    assert reporter["uses"].startswith("classroom-resources/autograding-grading-reporter@")
    assert reporter["with"]["runners"] == RUNNER
    assert reporter["env"][f"{RUNNER.upper()}_RESULTS"] == f"${{{{ steps.{RUNNER}.outputs.result }}}}"
    install = next(step["run"] for step in steps if "pip install" in step.get("run", ""))
    assert built["wheel"] in install and (runs["clone"] / ".github" / "classroom" / built["wheel"]).is_file()


def test_github_classroom_reports_the_points_of_a_push(built, runs):
    code, printed = runs["finished"]["classroom"]
    assert code == 0, printed
    (line,) = [line for line in runs["output"].read_text().splitlines() if line.startswith("result=")]
    result = json.loads(base64.b64decode(line[len("result="):]))
    # As the reporter adds them up: the tests' scores against max_score.
    assert (sum(test["score"] for test in result["tests"]), result["max_score"]) == (3, 4)
    assert [(test["name"], test["status"]) for test in result["tests"]] == [
        (f"Lesson 01: {TITLES[0]}", "pass"), (f"Lesson 01: {TITLES[1]}", "fail"), (f"Lesson 01: {TITLES[2]}", "pass")]
    assert result["status"] == "fail" and "Points 3/4" in printed


def test_hidden_checks_are_refused_for_github_classroom(tmp_path):
    (tmp_path / "hidden").mkdir()
    made = build("--lesson", "1", "--hidden", str(tmp_path / "hidden"), "--classroom", str(tmp_path / "repo"))
    assert made.returncode == 2 and "a student can read everything in their repository" in made.stderr
    assert not (tmp_path / "repo").exists()


def test_a_course_zip_holds_every_lesson_and_names_its_tests_by_lesson(built, tmp_path):
    made = build("--course", "--out", str(tmp_path), "--wheel", str(built["tmp"] / built["wheel"]))
    assert made.returncode == 0, made.stderr
    every = [f"{number:02d}" for number in range(100) if exercise_titles(f"{number:02d}")]
    with zipfile.ZipFile(tmp_path / "course.zip") as zipped:
        assert json.loads(zipped.read("autograder.json"))["lessons"] == every
        released = sorted(name[len("released/"):][:2] for name in zipped.namelist() if name.startswith("released/"))
    assert released == every
    outcome = Outcome([Exercise("02", "Build it", 1, "passed"), Exercise("03", "Exercise 1", 2, "not attempted")])
    answer = gradescope.results_json(outcome, several_lessons=True)
    assert [(test["name"], test["score"], test["max_score"]) for test in answer["tests"]] == [
        ("Lesson 02 · Build it", 1, 1), ("Lesson 03 · Exercise 1", 0, 2)]
    assert answer["score"] == 1
