# Machines with Memory: the two jobs a fresh machine runs (see README.md).
#   make book   set up .venv, execute every chapter and build the site into _build/html
#   make test   set up .venv and run the whole test suite (what CI runs)
#   make exercises   rebuild the practice problems from exercises/problems.py (README, "For teachers")

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test setup clean exercises

setup: $(STAMP)

$(STAMP): requirements.txt lib/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "The course needs Python 3.11 (its pinned torch wheel is built for it); got " + sys.version.split()[0] + ". Run: make PYTHON=python3.11 ...")'
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

# -W: every Sphinx warning is an error (a failing notebook is one);
# --keep-going: list all of them before failing.
# MWM_STATIC_PANELS=1: every "Try" panel also draws all its settings for the website.
book: $(STAMP)
	MWM_STATIC_PANELS=1 $(BIN)/jupyter-book build . --all -W --keep-going
	@echo "The site is in _build/html; open _build/html/index.html"

test: $(STAMP)
	$(BIN)/python -m pytest

# The instructor notebook, nbgrader's student version and solutions, the answer key and
# the website's practice pages, all from the numbers in exercises/problems.py.
exercises: $(STAMP)
	$(BIN)/python scripts/make_exercises.py

clean:
	rm -rf _build
