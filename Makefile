# Machines with Memory: the two jobs a fresh machine runs are `make book` and `make test`
# (README.md). `make help` lists every target with one line each (the `##` text on its line);
# a new target gets one too (tests/test_package.py checks). The teacher's targets run the
# console scripts of the teacher's package, grader/ (mwm-exercises, mwm-grade, ...; each has --help).
# (the labs pass LAB_ARGS on to jupyter lab, e.g. LAB_ARGS=--allow-root)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LAB_DEFAULTS := $(VENV)/share/jupyter/lab/settings/overrides.json
# Every Jupyter server this .venv starts loads mwm_grader.guard (the Formgrader's pages run no
# student script; README, "How a grade is decided"), as pip-installed extensions enable themselves.
SERVER_GUARD := $(VENV)/etc/jupyter/jupyter_server_config.d/mwm-guard.json
# Test processes (pytest-xdist): one more than the cores. Many of the suite's files wait on
# other processes (graded kernels and their time limits, Jupyter servers, the browser), so two
# workers on two cores left the cores idle a tenth of the run; three kept them 99% busy and
# finished 6% sooner. --dist loadfile keeps each test file in one process (so the site
# test_site.py reads is built once) and each notebook's cells in one kernel, in order (nbval);
# --no-loadscope-reorder hands files out in collection order, which tests/conftest.py starts
# with the slowest. --durations lists the slowest tests. make test-fast, all computation, uses
# one worker per core (FAST_JOBS).
CORES  := $(shell nproc 2>/dev/null || echo 1)
JOBS   ?= $(shell echo $$(($(CORES) + 1)))
FAST_JOBS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(JOBS) --dist loadfile --no-loadscope-reorder --durations=15
.PHONY: help venv book test test-fast test-notebooks-portable setup clean exercises key keys system-packages lab teacher-lab student student-lab grade report gradebook-db gradebook-db-stop roster

# `make help`: every target with its one line (the text after `##` on the target's line).
help:  ## list these targets
	@awk -F ':.*## ' '/^[a-zA-Z_-]+:.*## / { printf "  make %-24s %s\n", $$1, $$2 }' $(firstword $(MAKEFILE_LIST))

setup: system-packages $(STAMP) $(LAB_DEFAULTS) $(SERVER_GUARD)  ## create .venv, install requirements.txt and the Lab defaults (the first step of book and test)

# The Python environment alone (.ci/run builds it while Debian's packages install).
venv: $(STAMP)  ## create .venv and install requirements.txt only

# The grading sandbox (grader/mwm_grader/sandbox.py, tests/test_sandbox.py) needs Debian's
# bubblewrap (bwrap) and util-linux (prlimit, setpriv). Installed with apt-get when missing, as
# .ci/run installs chromium (through sudo when not root). Where that is impossible (no apt-get,
# no sudo) only a note is printed: reading and building the course does not need them, grading
# does (nbgrader autograde then stops with SandboxUnavailable, and the sandbox tests are skipped).
# PostgreSQL (Debian's postgresql, for grading with several workers) is not installed here: the
# package starts a database service on install, which a contributor's machine need not run; the
# test that needs it (tests/test_grade_parallel.py) is skipped without it, and CI's .ci/run installs it.
SANDBOX_TOOLS := bwrap prlimit setpriv
system-packages:  ## install Debian's bubblewrap and util-linux for grading's sandbox, and nodejs for the book's formulas, if missing and possible
	@missing=""; for t in $(SANDBOX_TOOLS); do command -v $$t >/dev/null 2>&1 || missing=" bubblewrap util-linux"; done; \
	command -v node >/dev/null 2>&1 || command -v nodejs >/dev/null 2>&1 || missing="$$missing nodejs"; \
	if [ -n "$$missing" ]; then \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
	  if command -v apt-get >/dev/null 2>&1 && { [ -z "$$SUDO" ] || command -v sudo >/dev/null 2>&1; }; then \
	    echo "Installing$$missing (the grading sandbox; nodejs typesets the book's formulas): $$SUDO apt-get install$$missing"; \
	    { $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; } \
	      || echo "Could not install them; grading needs bubblewrap and util-linux, the book nodejs: sudo apt-get install$$missing"; \
	  else \
	    echo "Note: grading practice problems needs bubblewrap and util-linux (Linux), building the book nodejs: sudo apt-get install$$missing"; \
	  fi; \
	fi

$(STAMP): requirements.txt lib/pyproject.toml grader/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "The course needs Python 3.11 (its pinned torch wheel is built for it); got " + sys.version.split()[0] + ". Run: make PYTHON=python3.11 ...")'
	@# uv (pinned in requirements.txt, installed first with pip) installs the pinned set: it resolves,
	@# fetches and unpacks in parallel (about 10 s; pip alone took about 50). It is told where pip finds
	@# local wheels (PIP_FIND_LINKS or pip's config: the CPU build of torch on the course machines).
	@# Where uv cannot be installed, pip installs everything.
	@links="$${PIP_FIND_LINKS:-$$($(BIN)/python -m pip config get global.find-links 2>/dev/null)}"; \
	if $(BIN)/python -m pip install --quiet "$$(grep -m1 '^uv==' requirements.txt)"; then \
	  echo "$(BIN)/uv pip install -r requirements.txt$${links:+ (find-links: $$links)}"; \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python $$(for l in $$links; do printf -- '--find-links %s ' "$$l"; done) -r requirements.txt; \
	else \
	  echo "uv could not be installed: pip installs requirements.txt"; \
	  $(BIN)/python -m pip install --quiet --no-compile -r requirements.txt; \
	fi
	@# Byte-compile once, on every core (about 20 s; pip's own serial pass takes longer). A machine
	@# with PYTHONDONTWRITEBYTECODE=1 never keeps what imports compile, and every kernel, grader and
	@# test process would compile its imports again (a kernel start took 11 s instead of 4). Left
	@# out: torch's file in 3.12 syntax, and what nothing of the course imports (sympy and networkx,
	@# which only torch.compile loads, torch's compiler, the installers): a fifth of the files.
	$(BIN)/python -m compileall -q -j 0 -x 'py312_intrinsics|/site-packages/(sympy|networkx|pip|setuptools)/|/torch/_inductor/' $(VENV)/lib lib grader >/dev/null
	touch $(STAMP)

# JupyterLab's defaults for every Lab this .venv starts, `jupyter lab` as much as `make lab`
# (JupyterLab reads <prefix>/share/jupyter/lab/settings/overrides.json): widgets' state is saved
# with the notebook, so a chapter reopened after a restart shows its "Try" panels' pictures,
# not "Error displaying widget: model not found". A user's own setting still wins.
$(LAB_DEFAULTS): labs/overrides.json $(STAMP)
	mkdir -p $(@D) && cp labs/overrides.json $@

$(SERVER_GUARD): labs/jupyter_server_config.d/mwm-guard.json $(STAMP)
	mkdir -p $(@D) && cp labs/jupyter_server_config.d/mwm-guard.json $@

# book_cache.py: empty the execution cache if lib/, requirements.txt or _config.yml changed,
# then add the chapters it lacks: their committed outputs with every "Try" panel's settings drawn
# (a draft not committed executed is executed; see the script's docstring).
# -W: every Sphinx warning is an error (a failing notebook is one);
# --keep-going: list all of them before failing.
# MWM_STATIC_PANELS=1: every "Try" panel also draws all its settings for the website.
book: system-packages $(STAMP) $(LAB_DEFAULTS) $(SERVER_GUARD)  ## set up, then build the website into _build/html from the committed chapters (every panel drawn)
	MWM_STATIC_PANELS=1 $(BIN)/python scripts/book/book_cache.py prepare
	MWM_STATIC_PANELS=1 $(BIN)/jupyter-book build . --all -W --keep-going
	@echo "The site is in _build/html; open _build/html/index.html"

# The browser tests' JavaScript: axe-core, pinned in package-lock.json, from the npm registry
# (Debian's nodejs and npm). `make book` does not need it. Without npm only a note is printed
# and the accessibility checks skip (CI's .ci/run installs npm and makes that an error).
NODE_STAMP := node_modules/.installed
$(NODE_STAMP): package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --no-audit --no-fund && touch $(NODE_STAMP); \
	else \
	  echo "Note: the accessibility checks of the browser tests need npm (sudo apt-get install npm) to install axe-core"; \
	fi

# Everything: the linter, then every test (tests/test_notebooks_portable.py runs the
# notebook checks a second time on other numerical kernels, overlapping the rest).
test: system-packages $(STAMP) $(LAB_DEFAULTS) $(SERVER_GUARD) $(NODE_STAMP)  ## set up (and npm's axe-core), then run the whole test suite: what CI runs
	$(BIN)/ruff check .
	$(PYTEST)

# The second notebook pass alone.
test-notebooks-portable: $(STAMP)  ## re-run every chapter on portable numpy kernels and compare with its committed outputs
	$(BIN)/python -m pytest -p no:xdist tests/test_notebooks_portable.py

# The contributors' loop: everything but the book, browser, nbval, grading and the reruns of the
# training scripts (tests marked `training`), in about 3 minutes on 2 cores (goal: 1.5). Its files need no
# shared fixture, so single tests are handed out (--dist load): no worker waits at the end.
test-fast: system-packages $(STAMP)  ## the unit, property and torch tests and the chapters' text checks (no book, browser, nbval or grading), about 3 min
	$(BIN)/python -m pytest -n $(FAST_JOBS) --dist load -m "not training" --durations=15 tests lib --ignore=tests/test_book.py --ignore=tests/test_site.py --ignore=tests/test_exercises.py \
	          --ignore=tests/test_grading_attacks.py --ignore=tests/test_class_trial.py --ignore=tests/test_sandbox.py --ignore=tests/test_notebooks_portable.py \
	          --ignore=tests/test_grade_parallel.py --ignore=tests/test_hub.py --ignore=tests/test_lab.py \
	          --ignore=tests/test_teacher_pages.py --ignore=tests/test_site_panels.py --ignore=tests/test_site_readers.py --ignore=tests/test_site_practice_pages.py \
	          --ignore=tests/test_solutions_every_id.py --ignore=tests/test_labs_graded.py

# The instructor notebook, nbgrader's student version and solutions, the answer key and
# the website's practice pages, all from the numbers in grader/mwm_grader/problems/__init__.py.
exercises: $(STAMP)  ## teacher: rebuild the practice problems, answer key, website view and pages (mwm-exercises)
	$(BIN)/mwm-exercises

# One student's answer key (their own numbers), or every key of a roster (CSV of ids).
key: $(STAMP)  ## teacher: one student's answer key, STUDENT=id (mwm-answer-keys)
	@test -n "$(STUDENT)" || { echo "usage: make key STUDENT=<student id>"; exit 2; }
	$(BIN)/mwm-answer-keys "$(STUDENT)"

roster: $(STAMP)  ## teacher: a roster's students, with their names, into the gradebook, ROSTER=roster.csv (mwm-roster)
	@test -n "$(ROSTER)" || { echo "usage: make roster ROSTER=roster.csv"; exit 2; }
	$(BIN)/mwm-roster "$(ROSTER)"

keys: $(STAMP)  ## teacher: every answer key of a roster, ROSTER=roster.csv [OUT=keys/keys.html]
	@test -n "$(ROSTER)" || { echo "usage: make keys ROSTER=roster.csv [OUT=keys/keys.html or keys/keys.csv]"; exit 2; }
	$(BIN)/mwm-answer-keys --roster "$(ROSTER)" --out "$(or $(OUT),keys/keys.html)"

# JupyterLab three ways. Each lab's nbgrader parts are chosen by a Jupyter config folder in labs/
# (JUPYTER_CONFIG_DIR: it replaces ~/.jupyter for that command only): the learner's hides all of
# nbgrader; the student's keeps the Assignments tab and Validate, hides Create Assignment and
# formgrader. Both save widgets' state in saved notebooks (lab/user-settings/), so a notebook
# reopened later shows its panels' last pictures, not "model not found". The teacher's lab runs in exercises/, where nbgrader finds the course's config
# (the exchange: NBGRADER_EXCHANGE if set); nbgrader calls alembic, so .venv/bin goes on PATH.
LAB_ARGS ?=
lab: $(STAMP) $(LAB_DEFAULTS) $(SERVER_GUARD)  ## learner: JupyterLab for the chapters (nbgrader's tools hidden)
	JUPYTER_CONFIG_DIR=$(CURDIR)/labs/learner $(BIN)/jupyter lab $(LAB_ARGS)

teacher-lab: $(STAMP) $(LAB_DEFAULTS) $(SERVER_GUARD)  ## teacher: JupyterLab in exercises/ (Formgrader, Assignments tab)
	cd exercises && PATH=$(CURDIR)/$(BIN):$$PATH jupyter lab $(LAB_ARGS)

# A student's folder, students/<id>/ (git ignores it), with their nbgrader config: the course,
# their id, the exchange (NBGRADER_EXCHANGE if set). Running it again changes nothing.
student: $(STAMP)  ## teacher, or a student with a clone: a student's folder students/<id>/ with their nbgrader config and numbers, STUDENT=id (mwm-student)
	@test -n "$(STUDENT)" || { echo "usage: make student STUDENT=<student id>"; exit 2; }
	$(BIN)/mwm-student "$(STUDENT)"

# ids are not case-sensitive (grader/mwm_grader/student_setup.py reads Carol.Smith as carol.smith, as the hub does)
STUDENT_ID = $(shell printf '%s' '$(STUDENT)' | tr '[:upper:]' '[:lower:]')
student-lab: student $(LAB_DEFAULTS) $(SERVER_GUARD)  ## student: their JupyterLab in students/<id>/ (Assignments tab, Validate), STUDENT=id
	cd "students/$(STUDENT_ID)" && MWM_STUDENT="$(STUDENT_ID)" JUPYTER_CONFIG_DIR=$(CURDIR)/labs/student \
	  PATH=$(CURDIR)/$(BIN):$$PATH jupyter lab $(LAB_ARGS)

# Grade every collected submission of the practice assignment in exercises/, WORKERS autograde
# processes at once on this machine (default: the cores; more than one needs a PostgreSQL gradebook:
# make gradebook-db, or MWM_GRADEBOOK_URL; with it, the students go through a job queue in that
# database, and the same command on other machines takes students from it too); FEEDBACK=1 also
# writes each student's feedback; FORCE=1 regrades everyone, RETRY_FAILED=1 gives students skipped after 3 failures new attempts, and
# GRADE_ARGS passes any other option on. The plain command it runs is in README.md, "Grading a large class".
WORKERS ?=
FEEDBACK ?=
FORCE ?=
RETRY_FAILED ?=
GRADE_ARGS ?=
ASSIGNMENT ?= practice
grade: $(STAMP)  ## teacher: grade every collected submission [ASSIGNMENT= WORKERS= FEEDBACK=1 FORCE=1 RETRY_FAILED=1] (mwm-grade)
	cd exercises && PATH=$(CURDIR)/$(BIN):$$PATH mwm-grade "$(ASSIGNMENT)" \
	  $(if $(WORKERS),--workers $(WORKERS)) $(if $(FEEDBACK),--feedback) $(if $(FORCE),--force) $(if $(RETRY_FAILED),--retry-failed) $(GRADE_ARGS)

# After grading: the class report (grader/mwm_grader/class_report.py), one offline HTML page from the gradebook and the
# judged notebooks of exercises/: scores, each part's share right, named mistakes, blank parts, students
# needing attention. It names students: it goes to reports/, which git ignores.
report: $(STAMP)  ## teacher: after grading, the class report, one offline page [OUT=reports/class-report.html] (mwm-report)
	$(BIN)/mwm-report --course exercises --assignment "$(ASSIGNMENT)" --out "$(or $(OUT),reports/class-report.html)"

# The course's own PostgreSQL gradebook, on a local socket, for machines without sudo or systemd
# (grader/mwm_grader/gradebook_db.py; README, "Grading a large class"); every command uses it once started.
gradebook-db: $(STAMP)  ## teacher: start the course's own PostgreSQL gradebook on a local socket (mwm-gradebook)
	$(BIN)/mwm-gradebook start

gradebook-db-stop: $(STAMP)  ## teacher: stop it
	$(BIN)/mwm-gradebook stop

clean:  ## remove the built website (_build)
	rm -rf _build
