"""A fork's CI: the GitHub Actions workflows are valid, and they run what the README says."""

import subprocess
import sys
from pathlib import Path

import yaml

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github" / "workflows"


def validate(*paths):
    """check-jsonschema against the GitHub workflow schema it vendors (no network)."""
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows", *map(str, paths)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_every_workflow_validates_against_the_github_schema(tmp_path):
    paths = sorted(WORKFLOWS.glob("*.yml"))
    assert paths, "no workflow in .github/workflows"
    result = validate(*paths)
    assert result.returncode == 0, result.stdout + result.stderr
    # and the check can fail: a job with no runner is rejected
    text = (WORKFLOWS / "test.yml").read_text(encoding="utf-8")
    assert "    runs-on: ubuntu-latest\n" in text
    (tmp_path / "broken.yml").write_text(text.replace("    runs-on: ubuntu-latest\n", ""), encoding="utf-8")
    result = validate(tmp_path / "broken.yml")
    assert result.returncode != 0 and "runs-on" in result.stdout + result.stderr


def test_linux_runs_make_test_with_the_system_dot_required():
    workflow = yaml.safe_load((WORKFLOWS / "test.yml").read_text(encoding="utf-8"))
    linux = workflow["jobs"]["linux"]
    assert linux["runs-on"] == "ubuntu-latest"
    assert [step.get("run") for step in linux["steps"]][-1] == "make test"
    assert linux["env"]["MICROGRAD_REQUIRE_SYSTEM_DOT"] == "1"
    triggers = workflow[True] if True in workflow else workflow["on"]  # YAML 1.1 reads `on` as true
    assert {"push", "pull_request"} <= set(triggers)
