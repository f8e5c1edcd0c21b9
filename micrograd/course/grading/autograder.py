"""``make autograder``: the course's grading packed for the services schools grade on.

``python -m micrograd.course.grading.autograder`` builds, from the course's checkout,

- Gradescope autograder zips (micrograd.course.grading.gradescope): one per
  lesson, ``build/autograder/lessonNN.zip``, or with ``--course`` one,
  ``course.zip``, for every lesson chosen.  Each holds ``setup.sh``,
  ``run_autograder``, the package as a wheel built now, ``constraints.txt`` (the
  exact versions setup.sh installs with it), and the bundle
  (micrograd.course.grading.bundle): the settings, the released lessons, and
  the teacher's points file and hidden checks;
- with ``--classroom REPO``, a GitHub Classroom template instead
  (micrograd.course.grading.github_classroom): ``REPO/.github/workflows/classroom.yml``
  and its bundle in ``REPO/.github/classroom/``.

The teacher's files are checked before anything is written, so a mistake in one
stops the build with what to fix.
"""

import argparse
import json
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from . import hidden as hidden_checks, points as points_file
from .bundle import CONFIG_NAME, HIDDEN_FOLDER, HIDDEN_VISIBILITIES, POINTS_NAME, RELEASED_FOLDER
from .grades import DEFAULT_MEMORY, DEFAULT_TIME_LIMIT, MINIMUM_MEMORY
from .github_classroom import BUNDLE as CLASSROOM_BUNDLE, RUNNER

EXTRAS = "notebooks,grading"  # what a lesson's kernel imports, and what the grader runs it with
# The Python the Classroom workflow grades with: one the course is tested on (.github/workflows/test.yml).
CLASSROOM_PYTHON = "3.12"

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source, when it builds the autograder's image
# (Ubuntu).  It installs the course's package from the wheel beside it, with the exact versions
# constraints.txt pins, into a venv of its own: nothing is downloaded when a submission is graded.
set -euo pipefail
cd "$(dirname "$0")"
ROOT="${MICROGRAD_AUTOGRADER_ROOT:-/autograder}"
WHEEL="@WHEEL@"
if [ -n "${MICROGRAD_AUTOGRADER_TEST_VENV:-}" ]; then
    # Only the course's tests set this: the zip gets a venv of its own that sees the packages of
    # the venv they already have, instead of installing them all again.
    "$MICROGRAD_AUTOGRADER_TEST_VENV/bin/python" -m venv --without-pip "$ROOT/venv"
    "$MICROGRAD_AUTOGRADER_TEST_VENV/bin/python" -c 'import site; print(f"import site; site.addsitedir({site.getsitepackages()[0]!r})")' \
        > "$("$ROOT/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/test-venv.pth"
    "$ROOT/venv/bin/python" -c "import micrograd.course.grading.gradescope"
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# The sandbox each notebook's kernel runs in, where the image lets bubblewrap make one;
# where it cannot, the grader runs the kernel without it and results.json says so.
apt-get install -y -q bubblewrap || echo "bubblewrap not installed: notebooks will be graded without the sandbox"
PYTHON=""
for candidate in python3.14 python3.13 python3.12 python3.11 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        PYTHON="$candidate"
        break
    fi
done
if [ -z "$PYTHON" ]; then  # the course needs Python 3.11 or newer
    apt-get install -y -q python3.11 python3.11-venv
    PYTHON=python3.11
fi
"$PYTHON" -m venv "$ROOT/venv" || { apt-get install -y -q "$PYTHON-venv" && "$PYTHON" -m venv "$ROOT/venv"; }
"$ROOT/venv/bin/python" -m pip install --quiet --upgrade pip
"$ROOT/venv/bin/python" -m pip install --quiet -c constraints.txt "./$WHEEL[@EXTRAS@]"
"$ROOT/venv/bin/python" -c "import micrograd.course.grading.gradescope"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for each submission (the student's files in /autograder/submission): it grades
# them as make grade does and writes /autograder/results/results.json (micrograd/course/grading/gradescope.py).
ROOT="${MICROGRAD_AUTOGRADER_ROOT:-/autograder}"
exec "$ROOT/venv/bin/python" -m micrograd.course.grading.gradescope
"""

WORKFLOW = """# GitHub Classroom's autograding: grades the lesson notebooks of each push and reports the points.
# Written by make autograder ARGS="--classroom ..." (micrograd/course/grading/github_classroom.py).
name: Autograding Tests
"on":
  - push
  - workflow_dispatch
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    timeout-minutes: 30
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "@PYTHON@"
      - name: Install the course's grader
        run: python -m pip install --quiet -c @BUNDLE@/constraints.txt "./@BUNDLE@/@WHEEL@[@EXTRAS@]"
      - name: Grade the lesson notebooks
        id: @RUNNER@
        run: python -m micrograd.course.grading.github_classroom
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          @RUNNER_UPPER@_RESULTS: "${{ steps.@RUNNER@.outputs.result }}"
        with:
          runners: @RUNNER@
"""


def _filled(template, **values):
    """The template with each @NAME@ replaced (shell and YAML keep their own braces)."""
    for name, value in values.items():
        template = template.replace(f"@{name}@", value)
    return template


class BuildError(ValueError):
    """What stops a build; the message says what to fix."""


def checkout():
    """The course's checkout (the released lessons, constraints.txt, pyproject.toml); BuildError when not one."""
    import micrograd

    root = Path(micrograd.__file__).resolve().parent.parent
    missing = [name for name in ("pyproject.toml", "constraints.txt", "notebooks") if not (root / name).exists()]
    if missing:
        raise BuildError(f"{root} is not the course's checkout (no {', '.join(missing)}): run make autograder there")
    return root


def build_wheel(root, out):
    """The package as a wheel, built in a copy of what the wheel holds (the checkout is left as it was)."""
    with tempfile.TemporaryDirectory(prefix="micrograd-wheel-") as folder:
        source = Path(folder) / "source"
        source.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(root / name, source / name)
        shutil.copytree(root / "micrograd", source / "micrograd",
                        ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "*.pyc"))
        try:
            from uv import find_uv_bin

            command = [find_uv_bin(), "build", "--wheel", "--quiet", "--out-dir", str(out), str(source)]
        except ImportError:
            command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(source)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise BuildError(f"the wheel could not be built ({' '.join(command[:3])}): {result.stderr.strip()[-500:]}")
    (wheel,) = Path(out).glob("micrograd_lessons-*.whl")
    return wheel


def write_bundle(folder, root, lessons, *, points=None, hidden=None, settings=None):
    """The bundle's files in folder: autograder.json, released/, and the teacher's points file and hidden checks."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG_NAME).write_text(json.dumps({"lessons": lessons, **(settings or {})}, indent=2) + "\n", encoding="utf-8")
    released = folder / RELEASED_FOLDER
    shutil.rmtree(released, ignore_errors=True)
    released.mkdir()
    for lesson in lessons:
        for path in (root / "notebooks").glob(f"{lesson}_*.ipynb"):
            shutil.copy2(path, released / path.name)
    if points:
        shutil.copy2(points, folder / POINTS_NAME)
    for lesson, (path, _) in sorted((hidden or {}).items()):
        if lesson in lessons:
            (folder / HIDDEN_FOLDER).mkdir(exist_ok=True)
            shutil.copy2(path, folder / HIDDEN_FOLDER / f"lesson{lesson}.py")


def gradescope_zip(path, root, wheel, lessons, **bundle):
    """One Gradescope autograder zip: setup.sh and run_autograder at its root, beside the wheel and the bundle."""
    with tempfile.TemporaryDirectory(prefix="micrograd-autograder-") as folder:
        source = Path(folder)
        write_bundle(source, root, lessons, **bundle)
        shutil.copy2(wheel, source / wheel.name)
        shutil.copy2(root / "constraints.txt", source / "constraints.txt")
        (source / "setup.sh").write_text(_filled(SETUP_SH, WHEEL=wheel.name, EXTRAS=EXTRAS), encoding="utf-8")
        (source / "run_autograder").write_text(RUN_AUTOGRADER, encoding="utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for file in sorted(source.rglob("*")):
                if file.is_file():
                    info = zipfile.ZipInfo.from_file(file, file.relative_to(source).as_posix())
                    executable = file.name in ("setup.sh", "run_autograder")
                    info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    archive.writestr(info, file.read_bytes())
    return path


def classroom_template(repository, root, wheel, lessons, **bundle):
    """The workflow and its bundle in a GitHub Classroom template repository; returns the workflow's path."""
    folder = repository / CLASSROOM_BUNDLE
    write_bundle(folder, root, lessons, **bundle)
    for old in folder.glob("micrograd_lessons-*.whl"):
        old.unlink()
    shutil.copy2(wheel, folder / wheel.name)
    shutil.copy2(root / "constraints.txt", folder / "constraints.txt")
    workflow = repository / ".github" / "workflows" / "classroom.yml"
    workflow.parent.mkdir(parents=True, exist_ok=True)
    workflow.write_text(_filled(WORKFLOW, PYTHON=CLASSROOM_PYTHON, BUNDLE=CLASSROOM_BUNDLE.as_posix(), WHEEL=wheel.name,
                                EXTRAS=EXTRAS, RUNNER_UPPER=RUNNER.upper(), RUNNER=RUNNER), encoding="utf-8")
    return workflow


def main(argv=None):
    from micrograd.course import exercise_titles

    every = [f"{number:02d}" for number in range(100) if exercise_titles(f"{number:02d}")]
    parser = argparse.ArgumentParser(prog="python -m micrograd.course.grading.autograder",
                                     description="Build Gradescope autograder zips (one per lesson, or --course), "
                                     "or a GitHub Classroom template (--classroom REPO).")
    parser.add_argument("--lesson", type=int, action="append", metavar="N",
                        help="a lesson to grade (repeat for several; default: every lesson with exercises)")
    parser.add_argument("--course", action="store_true", help="one autograder for all the lessons chosen, not one each")
    parser.add_argument("--points", metavar="TOML", help="points per exercise (micrograd/course/grading/points.py)")
    parser.add_argument("--hidden", metavar="FOLDER", help="the teacher's hidden checks (Gradescope only)")
    parser.add_argument("--hidden-visibility", choices=HIDDEN_VISIBILITIES, default="after_published",
                        help="when students see the hidden checks' results on Gradescope (default after_published)")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS")
    parser.add_argument("--memory", type=float, default=DEFAULT_MEMORY / 1024**3, metavar="GB")
    parser.add_argument("--out", default="build/autograder", metavar="FOLDER", help="where the zips go")
    parser.add_argument("--classroom", metavar="REPO", help="write a GitHub Classroom template's workflow and bundle into REPO")
    parser.add_argument("--wheel", metavar="FILE", help="use this wheel of the package instead of building one")
    args = parser.parse_args(argv)
    lessons = sorted({f"{number:02d}" for number in args.lesson}) if args.lesson else every
    unknown = [lesson for lesson in lessons if lesson not in every]
    if unknown:
        parser.error(f"--lesson {', '.join(unknown)}: no such lesson with exercises; they are {', '.join(every)}")
    if args.memory * 1024**3 < MINIMUM_MEMORY:
        parser.error(f"--memory {args.memory:g} is too little: give {MINIMUM_MEMORY / 1024**3:g} or more")
    if args.classroom and args.hidden:
        parser.error("--hidden with --classroom: a student can read everything in their repository; "
                     "hidden checks belong on Gradescope or in make grade")
    if args.classroom and len(lessons) > 1 and not args.course:
        parser.error("--classroom grades one assignment: name its lesson (--lesson N), or give --course for several")
    try:
        root = checkout()
        hidden = hidden_checks.load(args.hidden) if args.hidden else None
        if args.points:
            points_file.load(args.points, hidden)
    except (BuildError, ValueError) as error:
        parser.error(str(error))
    settings = {"time_limit": args.time_limit, "memory": int(args.memory * 1024**3), "hidden_visibility": args.hidden_visibility}
    bundle = {"points": args.points, "hidden": hidden, "settings": settings}
    with tempfile.TemporaryDirectory(prefix="micrograd-wheel-out-") as folder:
        try:
            wheel = Path(args.wheel) if args.wheel else build_wheel(root, Path(folder))
        except BuildError as error:
            parser.error(str(error))
        if args.classroom:
            workflow = classroom_template(Path(args.classroom), root, wheel, lessons, **bundle)
            print(f"GitHub Classroom template: {workflow} and {Path(args.classroom) / CLASSROOM_BUNDLE}")
            return 0
        groups = [lessons] if args.course else [[lesson] for lesson in lessons]
        for group in groups:
            name = "course.zip" if args.course else f"lesson{group[0]}.zip"
            path = gradescope_zip(Path(args.out) / name, root, wheel, group, **bundle)
            print(f"Gradescope autograder: {path} (lessons {', '.join(group)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
