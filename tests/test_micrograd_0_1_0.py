"""Differential test: programs for micrograd 0.1.0 give the same numbers under this package.

micrograd 0.1.0 is installed from the package index into a temporary folder
and run by the base interpreter in isolated mode, so neither process can see
the other's package; ``programs_for_0_1_0.py`` runs unchanged under each.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).resolve().parent / "programs_for_0_1_0.py"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reference_folder(micrograd_0_1_0_folder):
    return micrograd_0_1_0_folder


def run_programs(python, engine_folder):
    """The programs' output under the ``micrograd`` found in ``engine_folder``."""
    # -I: no PYTHONPATH, no user site, no current folder; the engine's folder goes first by hand.
    code = f"import sys; sys.path.insert(0, {str(engine_folder)!r}); exec(open({str(PROGRAMS)!r}).read())"
    done = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_programs_written_for_0_1_0_give_the_same_numbers_here(reference_folder):
    theirs = run_programs(sys._base_executable, reference_folder)
    ours = run_programs(sys.executable, REPO)
    assert theirs["micrograd"].startswith(str(reference_folder))
    assert ours["micrograd"].startswith(str(REPO / "micrograd"))

    assert theirs["numbers"].keys() == ours["numbers"].keys()
    assert len(ours["numbers"]) > 100
    different = {
        name: (theirs["numbers"][name], value)
        for name, value in ours["numbers"].items()
        if not math.isclose(value, theirs["numbers"][name], rel_tol=1e-9, abs_tol=1e-9)
    }
    assert different == {}
    assert ours["reprs"] == theirs["reprs"]


def test_the_programs_check_something():
    """The comparison above is only worth something if the programs compute real gradients."""
    ours = run_programs(sys.executable, REPO)["numbers"]
    assert ours["sanity_check[1]"] == pytest.approx(46.0)  # micrograd 0.1.0's test: x.grad vs torch
    assert ours["more_ops[0]"] == pytest.approx(24.70408163265306)
    assert ours["custom_backward[1]"] == pytest.approx(2 * 3 * 1.5**2 + 2 * 1.5)
    assert ours["manual_backprop[1]"] == 6.0 and ours["manual_backprop[4]"] == 4.0
    assert ours["demo_step_3[0]"] < ours["demo_step_0[0]"]
