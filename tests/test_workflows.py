"""A fork's CI: the GitHub Actions workflows are valid, and they run what the guide to checking a fork says.

They are validated against GitHub's workflow schema as ``check-jsonschema``
vendors it (``--builtin-schema vendor.github-workflows``), read from the
installed package, so no network is needed.
"""

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github" / "workflows"


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(
        resources.files("check_jsonschema.builtin_schemas.vendor").joinpath("github-workflows.json").read_text(encoding="utf-8")
    )
    return jsonschema.validators.validator_for(schema)(schema)


def load(text):
    # YAML 1.1 reads the key `on` as True; GitHub (and check-jsonschema) read it as "on".
    workflow = yaml.safe_load(text)
    if True in workflow:
        workflow["on"] = workflow.pop(True)
    return workflow


def problems(validator, workflow):
    return [f"{'/'.join(map(str, error.absolute_path))}: {error.message}" for error in validator.iter_errors(workflow)]


def test_every_workflow_validates_against_the_github_schema(validator):
    paths = sorted(WORKFLOWS.glob("*.yml"))
    assert paths, "no workflow in .github/workflows"
    for path in paths:
        assert problems(validator, load(path.read_text(encoding="utf-8"))) == [], path.name
    # and the check can fail: a job with no runner is rejected
    broken = load((WORKFLOWS / "test.yml").read_text(encoding="utf-8"))
    del broken["jobs"]["linux"]["runs-on"]
    assert problems(validator, broken)


def test_linux_runs_make_test_with_the_system_dot_required():
    workflow = load((WORKFLOWS / "test.yml").read_text(encoding="utf-8"))
    linux = workflow["jobs"]["linux"]
    assert linux["runs-on"] == "ubuntu-latest"
    assert [step.get("run") for step in linux["steps"]][-1] == "make test"
    assert linux["env"]["MICROGRAD_REQUIRE_SYSTEM_DOT"] == "1"
    assert {"push", "pull_request"} <= set(workflow["on"])
