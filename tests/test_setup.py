"""The three set-up files agree: pyproject.toml, environment.yml and constraints.txt.

pip users get pyproject.toml's dependencies pinned by constraints.txt; conda and
Binder users get environment.yml.  A dependency added to one and not the others
would leave one route without it, so these tests compare them package by package.
"""

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent

# pip name -> conda-forge name, where the two differ.
CONDA_NAME = {"graphviz": "python-graphviz", "playwright": "playwright-python"}
# conda packages with no pip counterpart: the interpreter, pip itself, Graphviz's dot program.
CONDA_ONLY = {"python", "pip", "graphviz"}
# Not on conda-forge: environment.yml has pip install these from PyPI.
PYPI_ONLY = {"sphinx-mathjax-offline"}
_CONDA_SPEC = re.compile(r"^([A-Za-z0-9_.-]+)\s*(.*)$")


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def environment():
    return yaml.safe_load((ROOT / "environment.yml").read_text())


def pip_requirements(project):
    """Every requirement of the package and its extras, by canonical name."""
    requirements = {}
    groups = [project["project"].get("dependencies", [])]
    groups += project["project"].get("optional-dependencies", {}).values()
    for group in groups:
        for text in group:
            requirement = Requirement(text)
            requirements[canonicalize_name(requirement.name)] = requirement
    return requirements


def conda_packages(env):
    """package name -> its version spec ('' when unversioned): conda's, then those pip installs."""
    entries = [entry for entry in env["dependencies"] if isinstance(entry, str)]
    for section in env["dependencies"]:
        if isinstance(section, dict):
            entries += [entry for entry in section["pip"] if entry != "-e ."]
    packages = {}
    for entry in entries:
        name, spec = _CONDA_SPEC.match(entry).groups()
        packages[canonicalize_name(name)] = spec.replace(" ", "")
    return packages


def mismatches(project, env):
    """What one file asks for and the other lacks, or where their version bounds differ."""
    wanted = {
        canonicalize_name(CONDA_NAME.get(name, name)): str(req.specifier)
        for name, req in pip_requirements(project).items()
    }
    present = {name: spec for name, spec in conda_packages(env).items() if name not in CONDA_ONLY}
    problems = [
        f"{name}: in pyproject.toml, missing from environment.yml"
        for name in sorted(wanted.keys() - present.keys())
    ]
    problems += [
        f"{name}: in environment.yml, missing from pyproject.toml"
        for name in sorted(present.keys() - wanted.keys())
    ]
    for name in sorted(wanted.keys() & present.keys()):
        if SpecifierSet(wanted[name]) != SpecifierSet(present[name]):
            problems.append(
                f"{name}: pyproject.toml says {wanted[name]!r}, environment.yml {present[name]!r}"
            )
    return problems


def test_environment_yml_has_every_dependency_and_nothing_else():
    assert mismatches(pyproject(), environment()) == []


@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda p, e: p["project"]["optional-dependencies"]["notebooks"].append("rich>=13"),
         "rich: in pyproject.toml, missing from environment.yml"),
        (lambda p, e: e["dependencies"].insert(3, "pandas>=2"),
         "pandas: in environment.yml, missing from pyproject.toml"),
        (lambda p, e: e["dependencies"].remove("python-graphviz>=0.20"),
         "python-graphviz: in pyproject.toml, missing from environment.yml"),
        (lambda p, e: e["dependencies"].__setitem__(e["dependencies"].index("pytest>=8"), "pytest>=7"),
         "pytest: pyproject.toml says '>=8', environment.yml '>=7'"),
    ],
    ids=["pip side gains one", "conda side gains one", "conda side loses one", "bounds differ"],
)
def test_a_one_sided_change_is_reported(edit, expected):
    project, env = pyproject(), environment()
    edit(project, env)
    assert mismatches(project, env) == [expected]


def test_environment_yml_pins_python_from_conda_forge_and_installs_the_package():
    env = environment()
    assert env["channels"] == ["conda-forge"]
    python = conda_packages(env)["python"]
    assert re.fullmatch(r"=3\.\d+", python), f"pin Python to a minor version, got {python!r}"
    assert Version(python[1:]) in SpecifierSet(pyproject()["project"]["requires-python"])
    pip_sections = [entry["pip"] for entry in env["dependencies"] if isinstance(entry, dict)]
    # `-e .` is also what tells repo2docker to copy the repository before building the env.
    assert len(pip_sections) == 1 and pip_sections[0][-1] == "-e ."
    from_pypi = {canonicalize_name(_CONDA_SPEC.match(entry).group(1)) for entry in pip_sections[0][:-1]}
    assert from_pypi == PYPI_ONLY, "only what conda-forge lacks comes from PyPI"


def test_constraints_pin_every_dependency_within_its_bounds():
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, version = line.split("==")
            pins[canonicalize_name(name)] = Version(version)
    for name, requirement in pip_requirements(pyproject()).items():
        assert name in pins, f"{name} is not pinned in constraints.txt: run make lock"
        assert pins[name] in requirement.specifier, (
            f"constraints.txt pins {name}=={pins[name]}, outside pyproject.toml's "
            f"{requirement.specifier}: run make lock"
        )


def test_make_setup_leaves_out_rfc3987_syntax_and_jupyter_works_without_it():
    # pyproject.toml's [tool.uv] excludes it: building its grammar cost every Jupyter process 1.7 s to start.
    assert pyproject()["tool"]["uv"]["exclude-dependencies"] == ["rfc3987-syntax"]
    if Path(sys.prefix).resolve().parent == ROOT:  # make setup's venv (.venv, .venv-3.X); conda's may have it
        assert importlib.util.find_spec("rfc3987_syntax") is None
    # Without it, as in that venv: jsonschema skips the one format it checked, nbformat validates, Jupyter's server
    # imports (test_lab_server and test_jupyterlab start JupyterLab in that venv).
    code = ("import sys; sys.modules['rfc3987_syntax'] = None\n"
            "import jsonschema, nbformat, jupyter_server.serverapp\n"
            "assert 'iri' not in jsonschema.FormatChecker().checkers\n"
            "nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('1 + 1')]))\n"
            "print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout == "ok\n", result.stderr[-2000:]
