# make lab    open the lessons in JupyterLab (first run sets up .venv)
# make test   run the whole test suite: unit and property tests, then every notebook under strict nbval
# make notebooks   re-run every notebook and store its outputs (run after editing a lesson)
# make bench  print the benchmark figures
# make site   build the course as a static site in build/site (from the stored outputs; works offline),
#             with the browser app of the course beside it in build/site/lite
# make lite   build only the browser app (JupyterLite: the lessons run in the browser, nothing installed)
# make grade DIR=submissions/   grade a folder of submitted notebooks: a table on screen, grades.csv in DIR
#             (ARGS="--roster FILE --points FILE --hidden FOLDER --canvas FILE ..."; DIR=one.ipynb re-grades it)
# make autograder   Gradescope autograder zips, one per lesson, in build/autograder (ARGS="--course" for one
#             zip of every lesson, "--lesson 3 --points FILE --hidden FOLDER"; "--lesson 3 --classroom REPO"
#             writes a GitHub Classroom template's workflow instead); see docs/teaching/grading.md
# make lock   refresh constraints.txt, the exact versions the course is validated with
# make clean  remove .venv, .venv-3.*, and every cache the commands above leave behind
#
# Another Python: make test PYTHON=python3.13 (or a path to an interpreter) sets up and
# uses a venv of its own, .venv-3.13, named for the interpreter's version, beside the
# .venv of the machine's python3, so that each keeps its packages.  Every target takes it.
# PYTHON=python3.13 make test, with PYTHON in the environment, does the same: .venv is
# only ever the machine's python3's (a make that runs make passes PYTHON on this way too).
# An empty PYTHON names none.

ifeq ($(strip $(PYTHON)),)
override PYTHON := python3
VENV := .venv
else
PYTHON_VERSION := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
ifeq ($(PYTHON_VERSION),)
$(error PYTHON=$(PYTHON), from the $(origin PYTHON), does not run here: name a Python 3.11 or newer, such as PYTHON=python3.13 or its full path)
endif
VENV := .venv-$(PYTHON_VERSION)
endif
VENV_PYTHON := $(VENV)/bin/python
# Remembers which pyproject.toml and constraints.txt the venv was installed from.
SETUP_STAMP := $(VENV)/.installed
# npm ci writes it: the npm packages package-lock.json pins are in node_modules.
NPM_STAMP := node_modules/.package-lock.json
TEST_WORKERS ?= auto
# Python writes the bytecode of what it imports beside the source (in .venv, and in __pycache__
# folders of the checkout that git ignores and make clean removes), also where the environment
# forbids it: otherwise every test worker, kernel and server would compile it all again.  Only
# what is imported is compiled, once; compiling all of .venv at setup cost more than it saved.
export PYTHONDONTWRITEBYTECODE :=
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with notebooks/sanitize.cfg

.PHONY: setup lab test notebooks bench site lite grade autograder lock clean

setup: $(SETUP_STAMP) $(NPM_STAMP)

$(NPM_STAMP): package.json package-lock.json
	@scripts/ensure-system-deps npm
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

$(SETUP_STAMP): pyproject.toml constraints.txt
	@if [ ! -x $(VENV_PYTHON) ]; then \
		PYTHON=$(PYTHON) scripts/ensure-system-deps python3-venv && \
		echo "Creating $(VENV) with $(PYTHON)" && \
		$(PYTHON) -m venv $(VENV); \
	fi
	@# uv installs the versions constraints.txt pins, as pip would, in a fraction of pip's time.
	$(VENV_PYTHON) -m pip install --quiet 'uv==0.13.9'
	$(VENV)/bin/uv pip install --quiet --python $(VENV_PYTHON) -c constraints.txt -e '.[notebooks,test,site]'
	@# What pyproject.toml's [tool.uv] leaves out, also from a venv set up before it did.
	@$(VENV)/bin/uv pip uninstall --quiet --python $(VENV_PYTHON) rfc3987-syntax
	@# Every kernel of the venv knows %%my_micrograd, so a build-it cell runs after a restart.
	@$(VENV_PYTHON) -m micrograd.course.carry.magic --autoload >/dev/null
	@touch $@

# Drawings need no system Graphviz: pygraphviz's wheel (installed by setup) bundles it.
lab: $(SETUP_STAMP)
	$(VENV_PYTHON) scripts/lab.py

# One run, so one report shows every failure: the tests and every notebook's cells, on
# every core (pytest-xdist), a file's tests on one worker: a module's server, browser or
# site is made once, and a notebook's cells run in order on one kernel.  Files go out in
# the order collected, the longest first (tests/conftest.py), so no core idles at the end.
test: $(SETUP_STAMP) $(NPM_STAMP)
	@scripts/ensure-system-deps chromium bubblewrap
	$(VENV_PYTHON) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(NBVAL) tests notebooks

notebooks: $(SETUP_STAMP)
	$(VENV_PYTHON) scripts/execute_notebooks.py

bench: $(SETUP_STAMP)
	$(VENV_PYTHON) benchmarks/run_all.py

site: $(SETUP_STAMP) $(NPM_STAMP)
	$(VENV_PYTHON) docs/build_site.py build/site
	$(VENV_PYTHON) browser_app/build_app.py build/site/lite

# PYODIDE=folder-or-url of a full Pyodide distribution builds an app in which every lesson runs.
lite: $(SETUP_STAMP) $(NPM_STAMP)
	$(VENV_PYTHON) browser_app/build_app.py build/site/lite $(if $(PYODIDE),--pyodide $(PYODIDE))

# Runs each submitted notebook (untrusted code) in a fresh kernel inside a bubblewrap
# sandbox, with time and memory limits; see docs/teaching/grading.md, on the course site.
# Where bubblewrap cannot be installed (macOS), grading runs unsandboxed and says so.
grade: $(SETUP_STAMP)
	@if [ -z "$(DIR)" ]; then echo "usage: make grade DIR=folder-of-submitted-notebooks" >&2; exit 2; fi
	@if [ "$$(uname -s)" = Linux ]; then scripts/ensure-system-deps bubblewrap; fi
	$(VENV_PYTHON) -m micrograd.course.grading "$(DIR)" $(ARGS)

# The same grading, packed for Gradescope and GitHub Classroom (micrograd/course/grading/autograder.py).
autograder: $(SETUP_STAMP)
	$(VENV_PYTHON) -m micrograd.course.grading.autograder $(ARGS)

# Resolves the dependencies afresh in a throwaway venv, so nothing installed by
# hand (torch, for one) ends up pinned.
lock:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON) -m venv "$$tmp/venv"; \
	"$$tmp/venv/bin/python" -m pip install --quiet -e '.[notebooks,test,site]'; \
	{ echo "# Exact versions the course is validated with: make lab and make test install with these."; \
	  echo "# Stored notebook outputs are compared strictly, so a teacher's CI should use them too."; \
	  echo "# Refresh: make lock"; \
	  "$$tmp/venv/bin/python" -m pip freeze --exclude-editable; } > constraints.txt.new; \
	mv constraints.txt.new constraints.txt
	npm install --package-lock-only --ignore-scripts --no-audit --no-fund
	@# The browser app's wheels, resolved for the Python of the Pyodide package-lock.json pins (on wasm32),
	@# with their hashes.
	UV_PYTHON_DOWNLOADS=never $(VENV)/bin/uv pip compile --quiet --upgrade browser_app/requirements.in \
	  --python-version $$($(PYTHON) browser_app/pyodide_version.py --python) --python-platform wasm32-pyodide2024 \
	  --only-binary :all: --generate-hashes --no-emit-package widgetsnbextension --no-emit-package ipykernel \
	  --custom-compile-command "make lock" -o browser_app/requirements.txt
	@# What make lite builds the app with, installed apart from .venv by each build.
	UV_PYTHON_DOWNLOADS=never $(VENV)/bin/uv pip compile --quiet --upgrade browser_app/build-requirements.in \
	  --universal --python-version 3.11 --generate-hashes --custom-compile-command "make lock" \
	  -o browser_app/build-requirements.txt
	@echo "constraints.txt, browser_app/*requirements.txt and package-lock.json refreshed; run make test before committing them"
	@echo "(the Pyodide package.json pins must be the one jupyterlite-pyodide-kernel was made for: make lite checks it)"

clean:
	rm -rf .venv .venv-3.* $(VENV) node_modules build dist *.egg-info .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
