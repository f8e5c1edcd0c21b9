"""The Pythons CI tests: .ci/run's choice of a second interpreter, and the versions named everywhere.

.ci/run runs ``make test`` with the machine's python3, then with the newest other
supported CPython that .ci/find_pythons.py finds; the fork's workflow runs a matrix
of the same versions, and the course site's guide to checking a fork names them.
"""

import importlib.util
import os
import platform
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("find_pythons", ROOT / ".ci" / "find_pythons.py")
find_pythons = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(find_pythons)

FIRST = ("python3", (3, 11, 7))


def cpython(version, free_threaded=False):
    return "CPython", version, free_threaded


def test_the_newest_other_supported_cpython_is_chosen():
    probed = {
        "/pyenv/3.12.1/bin/python3": cpython((3, 12, 1)),
        "/pyenv/3.13.0/bin/python3": cpython((3, 13, 0)),
        "/pyenv/3.13.2/bin/python3": cpython((3, 13, 2)),
        "/pyenv/3.11.9/bin/python3": cpython((3, 11, 9)),  # newer, but python3's own minor version
    }
    second, lines = find_pythons.choose(FIRST, probed)
    assert second == "/pyenv/3.13.2/bin/python3"
    assert lines == [
        "CPython versions the course supports: 3.11, 3.12, 3.13, 3.14",
        "  3.11  python3 (CPython 3.11.7): make test",
        "  3.12  /pyenv/3.12.1/bin/python3 (CPython 3.12.1): found, not run: 3.13 is newer",
        "  3.13  /pyenv/3.13.2/bin/python3 (CPython 3.13.2): make test PYTHON=... in a fresh clone",
        "  3.14  not found",
    ]


def test_what_does_not_run_or_is_not_a_supported_cpython_is_passed_over():
    probed = {
        "/usr/bin/python3.14": None,  # a pyenv shim for a version not selected exits with an error
        "/pyenv/pypy3.10/bin/python3": ("PyPy", (3, 10, 14), False),
        "/pyenv/3.13.0t/bin/python3": cpython((3, 13, 0), free_threaded=True),
        "/pyenv/3.15.0a1/bin/python3": cpython((3, 15, 0)),
        "/pyenv/3.10.13/bin/python3": cpython((3, 10, 13)),
        "/pyenv/3.12.1/bin/python3": cpython((3, 12, 1)),
    }
    second, lines = find_pythons.choose(FIRST, probed)
    assert second == "/pyenv/3.12.1/bin/python3"
    assert "  3.13  not found" in lines and "  3.14  not found" in lines


def test_with_nothing_else_found_one_version_is_tested_and_the_report_says_so():
    second, lines = find_pythons.choose(FIRST, {"/pyenv/3.11.2/bin/python3": cpython((3, 11, 2))})
    assert second is None
    assert lines[-1].startswith("  No other supported CPython found")
    assert [line for line in lines if "not found" in line] == [f"  {v}  not found" for v in ("3.12", "3.13", "3.14")]


def test_a_real_interpreter_is_probed_for_what_it_is():
    implementation, version, free_threaded = find_pythons.probe(sys.executable)
    assert implementation == platform.python_implementation()
    assert version == tuple(sys.version_info[:3]) and free_threaded is False
    assert find_pythons.probe(str(ROOT / "no-such-python")) is None


def test_candidates_come_from_the_path_and_from_pyenv(tmp_path):
    def executable(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        return str(path)

    on_path = executable(tmp_path / "bin" / "python3.13")
    from_pyenv = executable(tmp_path / "pyenv" / "versions" / "3.12.1" / "bin" / "python3")
    executable(tmp_path / "pyenv" / "versions" / "3.12.1" / "bin" / "python3.12")  # the same build, not listed twice
    found = find_pythons.candidates(path=str(tmp_path / "bin"), pyenv_root=str(tmp_path / "pyenv"))
    assert found == [on_path, from_pyenv]


def test_ci_runs_make_test_twice_the_second_time_in_a_fresh_clone_failing_on_any_failure():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "set -euo pipefail" in script and "|| true" not in script
    assert re.search(r"^make test$", script, re.MULTILINE)
    assert re.search(r'^\s+git clone --quiet \. "\$clone"$', script, re.MULTILINE)
    assert re.search(r'^\s+make -C "\$clone" test PYTHON="\$second"$', script, re.MULTILINE)
    assert os.access(ROOT / ".ci" / "run", os.X_OK)


def test_the_workflow_the_fork_guide_and_pyproject_name_the_same_versions():
    supported = list(find_pythons.SUPPORTED)
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "test.yml").read_text(encoding="utf-8"))
    linux = workflow["jobs"]["linux"]
    assert linux["strategy"]["matrix"]["python"] == supported
    assert linux["container"]["image"] == "python:${{ matrix.python }}-bookworm"
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    assert requires == f">={supported[0]}"
    guide = " ".join((ROOT / "docs" / "teaching" / "checking_a_fork.md").read_text(encoding="utf-8").split())
    named = f"{', '.join(supported[:-1])} and {supported[-1]}"
    assert f"runs `make test` on CPython {named}" in guide, "the guide to checking a fork names other versions than the workflow"
    assert supported == ["3.11", "3.12", "3.13", "3.14"]


def _make_setup_dry_run(*arguments, **environment_changes):
    """`make -n -B setup`: the commands setup would run, printed, as if nothing were set up.

    It starts as a user's make in a fresh shell would: under `make test PYTHON=...` the make
    running this test exports PYTHON, and its variables reach a child make through MAKEFLAGS.
    """
    leaked = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PYTHON")
    environment = {key: value for key, value in os.environ.items() if key not in leaked}
    return subprocess.run(["make", "-n", "-B", "setup", *arguments], cwd=ROOT, env={**environment, **environment_changes},
                          capture_output=True, text=True)


def test_make_gives_an_interpreter_named_on_the_command_line_a_venv_of_its_own():
    minor = "{}.{}".format(*sys.version_info[:2])
    named = _make_setup_dry_run(f"PYTHON={sys.executable}")
    assert named.returncode == 0, named.stderr
    assert f"{sys.executable} -m venv .venv-{minor}" in named.stdout
    assert f".venv-{minor}/bin/python -m pip install" in named.stdout
    default = _make_setup_dry_run()
    assert "python3 -m venv .venv;" in default.stdout and ".venv-" not in default.stdout
    missing = _make_setup_dry_run("PYTHON=no-such-python3.99")
    assert missing.returncode != 0
    assert ("PYTHON=no-such-python3.99, from the command line, does not run here: name a Python 3.11 or newer"
            in missing.stderr)


def test_make_gives_an_interpreter_named_in_the_environment_a_venv_of_its_own_too():
    # `PYTHON=python3.13 make test`, and what a make running make passes on: an interpreter whose
    # path ends in `python` (a venv's, pyenv's) as much as one ending in `python3`.
    minor = "{}.{}".format(*sys.version_info[:2])
    for interpreter in (sys.executable, str(Path(sys.executable).with_name("python3"))):
        named = _make_setup_dry_run(PYTHON=interpreter)
        assert named.returncode == 0, named.stderr
        assert f"{interpreter} -m venv .venv-{minor}" in named.stdout
        assert f"touch .venv-{minor}/.installed" in named.stdout
        assert "touch .venv/.installed" not in named.stdout, "the machine's python3's .venv, set up with another interpreter"
    for empty in (_make_setup_dry_run(PYTHON=""), _make_setup_dry_run("PYTHON=")):  # names no interpreter
        assert empty.returncode == 0, empty.stderr
        assert "python3 -m venv .venv;" in empty.stdout and ".venv-" not in empty.stdout
    missing = _make_setup_dry_run(PYTHON="no-such-python3.99")
    assert missing.returncode != 0
    assert "PYTHON=no-such-python3.99, from the environment, does not run here" in missing.stderr


_MICROGRAD_COMMAND = re.compile(r"-m (micrograd(?:\.\w+)+)((?: --?[\w-]+)*)")


def _runs_as_a_program(module):
    """Whether `python -m module` runs something: a module with a main guard, or a package with __main__.py."""
    path = ROOT.joinpath(*module.split("."))
    if path.is_dir():
        return (path / "__main__.py").exists()
    source = path.with_suffix(".py")
    return source.exists() and 'if __name__ == "__main__":' in source.read_text(encoding="utf-8")


def test_every_micrograd_command_the_workflow_the_makefile_and_the_guides_run_is_a_program():
    # `python -m` on a module without a main guard imports it and exits 0: a step that does nothing, silently.
    for name in (".github/workflows/test.yml", "Makefile", "docs/guide/setup.md", "docs/teaching/grading.md"):
        modules = {match[0] for match in _MICROGRAD_COMMAND.findall((ROOT / name).read_text(encoding="utf-8"))}
        assert modules, f"{name} runs no micrograd module"
        for module in modules:
            assert _runs_as_a_program(module), f"{name} runs python -m {module}, which runs nothing"


def test_the_macos_job_sets_up_as_make_setup_does():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    setup = makefile[makefile.index("$(SETUP_STAMP): "):makefile.index("\n\n", makefile.index("$(SETUP_STAMP): "))]
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "test.yml").read_text(encoding="utf-8"))
    install = next(step["run"] for step in workflow["jobs"]["macos"]["steps"] if step.get("name", "").startswith("Install"))
    assert _MICROGRAD_COMMAND.findall(install) == _MICROGRAD_COMMAND.findall(setup) == [("micrograd.course.carry.magic", " --autoload")]
