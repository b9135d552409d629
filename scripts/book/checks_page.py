"""Write checks.md, the website's "How we checked" page: every script that builds a data file, every test file.

Usage (from the project root):
    .venv/bin/python scripts/book/checks_page.py [--check]

A reader of the website has no checkout, so the chapters link each script or test they name to
this page, which says what each one does (the first line of its docstring), how it is run and
which chapters use it. The page is generated from the files themselves; ``--check`` exits 1 if
the committed page differs from what the files give (tests/test_checks_page.py runs it).
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "checks.md"
#: The scripts that train a model or write a data file a chapter reads, in the order of the chapters.
DATA_SCRIPTS = ("make_railway_sentences", "train_char_lm", "jacobian_norms_across_seeds", "sweep_start", "train_memory_task",
                "sweep_memory_task", "train_reset_gate", "train_layers", "make_parallel_corpus", "train_translator",
                "translate_test_set", "sweep_beam", "sweep_bottleneck", "make_course_prose", "train_tiny")


def first_line(path: Path) -> str:
    """The first line of a Python file's module docstring (empty if it has none)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.splitlines()[0].strip() if doc else ""


def chapters_using(name: str) -> list[str]:
    """The chapter numbers (two digits) whose cells name ``scripts/<name>.py``."""
    found = []
    for path in sorted((ROOT / "chapters").glob("[0-9][0-9]-*.ipynb")):
        if f"scripts/{name}.py" in path.read_text(encoding="utf-8"):
            found.append(path.name[:2])
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def page() -> str:
    """The text of checks.md."""
    lines = ["# How we checked", "",
             "Every number a chapter states is computed by the chapter's own code, or read from a small data file "
             "that one of the scripts below rebuilds exactly, from fixed seeds. The course's tests then recompute "
             "those numbers and compare. Both live in the course's repository, beside the chapters; run a script from "
             "the repository's top folder, for example `.venv/bin/python scripts/train_char_lm.py`, and all the tests "
             "with `make test` (see its README).", "",
             "## Scripts that train the models and write the data files", "",
             "| script | what it does | chapters |", "|---|---|---|"]
    for name in DATA_SCRIPTS:
        used = ", ".join(str(int(n)) for n in chapters_using(name)) or "none"
        lines.append(f"| `scripts/{name}.py` | {_cell(first_line(ROOT / 'scripts' / f'{name}.py'))} | {used} |")
    lines += ["", "## Tests", "",
              "Each file below is one group of checks; `make test` runs them all, together with a fresh run of every "
              "chapter compared cell by cell with the committed one.", "",
              "| test file | what it checks |", "|---|---|"]
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        lines.append(f"| `tests/{path.name}` | {_cell(first_line(path))} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if checks.md is not what the files give")
    args = parser.parse_args(argv)
    text = page()
    if args.check:
        if PAGE.read_text(encoding="utf-8") != text:
            print("checks.md is out of date: run .venv/bin/python scripts/book/checks_page.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
