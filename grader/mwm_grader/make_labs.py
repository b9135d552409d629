"""The coding labs as an nbgrader assignment and as website pages (run by ``mwm-exercises`` with the problems).

Writes, from :mod:`mwm_grader.labs`:

1. ``lib/mwm_practice/labs_view.json``: the website's labs view (the website's inputs and their
   results), which a student's kernel reads while working and the self-study notebook uses;
2. ``exercises/source/labs/labs.ipynb``: the instructor version, executed. Per lab: its words,
   the function with its worked body between nbgrader's solution markers, a visible check
   (``labs.check``; for BPTT also ``labs.gradient_check``) and a hand-in cell worth
   :data:`POINTS` points (``labs.hand_in``), which the grader judges outside the notebook;
3. the website's lab pages ``practice/lab-NN.md`` (the worked solution folded) and the
   self-study download ``practice/downloads/labs.ipynb``.

nbgrader's own ``generate_assignment labs`` makes the student version, as for the practice problems.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat

from . import labs as L
from .make_exercises import _code, _markdown, execute, new_notebook, write_notebook

#: Points of each lab's hand-in cell.
POINTS = 2
#: The website's download of the labs, beside the practice notebook.
DOWNLOAD = "downloads/labs.ipynb"
IMPORTS = ("import math\nfrom collections import Counter\n\nimport numpy as np\nimport torch\nfrom mwm_practice.labs import Labs\n\n"
           "labs = Labs()  # the labs' cases: small visible ones here, your own when your work is graded")


def _number(slug: str) -> int:
    return list(L.LABS).index(slug) + 1


def _no_links(text: str) -> str:
    """The words without their links to chapters: the downloaded notebook sits apart from the website."""
    return re.sub(r"\[(chapter \d+)\]\(\.\./chapters/[^)]*\)", r"\1", text)


def lab_cells(slug: str) -> list:
    """One lab's instructor cells: its words, the function to write, the checks and the hand-in."""
    lab = L.LABS[slug]
    n = _number(slug)
    head, body = L.solution_parts(slug)
    indent = " " * (len(body) - len(body.lstrip(" ")))
    cells = [
        _markdown(f"lab-{slug}-statement", f"## Lab {n}. {lab.title}\n\n{_no_links(L.statement(slug))}", locked=True),
        _code(f"lab-{slug}-answer", f"{head}{indent}### BEGIN SOLUTION\n{body}{indent}### END SOLUTION\n",
              solution=True),
        _code(f"lab-{slug}-check", f"# Lab {n}: small cases whose answers the course knows (nothing is graded here)\n"
                                   f"labs.check({slug!r}, {lab.function})", locked=True),
    ]
    if slug == "rnn-bptt":
        cells.append(_code(f"lab-{slug}-gradient-check",
                           "# Lab 3: your gradients against central differences of the loss sum(hs * dhs)\n"
                           f"labs.gradient_check({lab.function})", locked=True))
    cells.append(_code(f"lab-{slug}-test", f"# Lab {n}: hand in your function ({POINTS} points); it is run on your "
                                           f"own inputs when your work is graded\nlabs.hand_in({slug!r}, {lab.function})",
                       grade=True, locked=True, points=POINTS))
    if L.afterword(slug):
        cells.append(_markdown(f"lab-{slug}-afterword", L.afterword(slug), locked=True))
    return cells


def source_notebook() -> nbformat.NotebookNode:
    """The instructor version of the labs (not executed)."""
    listing = "\n".join(f"{_number(s)}. {lab.title} (`{lab.function}`, chapter {lab.chapter}, {POINTS} points)"
                        for s, lab in L.LABS.items())
    cells = [_markdown("labs-header", f"# Coding labs\n\n{L.statement('header')}\n\n**The labs:**\n\n{listing}",
                       locked=True),
             _code("labs-imports", IMPORTS, locked=True)]
    for slug in L.LABS:
        cells += lab_cells(slug)
    return new_notebook(cells)


def write_view(path: Path) -> None:
    """Write the website's labs view (the website's inputs with their results)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(L.labs_view(None, with_results=True), separators=(",", ":"), sort_keys=True) + "\n",
                    encoding="utf-8")


def write_source(course: Path) -> Path:
    """Write the executed instructor notebook into ``course/source/labs/labs.ipynb``."""
    folder = course / "source" / "labs"
    folder.mkdir(parents=True, exist_ok=True)
    nb = execute(source_notebook(), folder)
    path = folder / "labs.ipynb"
    write_notebook(nb, path)
    return path


def self_study_notebook(release: Path) -> nbformat.NotebookNode:
    """The website's download: the student version without nbgrader's metadata (it is not graded)."""
    nb = nbformat.read(release, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("nbgrader", None)
    return nb


def site_pages() -> dict[str, str]:
    """The website's lab pages (MyST Markdown), by file name under ``practice/``."""
    pages = {}
    for slug, lab in L.LABS.items():
        n = _number(slug)
        head, body = L.solution_parts(slug)
        pages[f"lab-{n:02d}.md"] = f"""# Lab {n}. {lab.title}

*A coding lab: write `{lab.function}` in {lab.framework}.* Work it in the
{{download}}`labs notebook <{DOWNLOAD}>`, where a check runs your function on small cases.

{L.statement(slug)}

```python
{head.rstrip()}
    ...
```

::::{{dropdown}} Worked solution
```python
{(head + body).rstrip()}
```
::::
""" + (f"\n{L.afterword(slug)}\n" if L.afterword(slug) else "")
    return pages


def build(course: Path, site: Path, view: Path, say=print) -> None:
    """The labs' part of ``mwm-exercises``: the website's view, the instructor notebook, nbgrader's
    student version, the website's pages and download."""
    from .make_exercises import generate_assignment

    write_view(view)
    say(f"the website's labs view: {view}")
    path = write_source(course)
    say(f"labs, instructor version: {path}")
    generate_assignment(course, "labs")
    release = course / "release" / "labs" / "labs.ipynb"
    say(f"labs, student version (nbgrader generate_assignment): {release}")
    for name, text in site_pages().items():
        (site / name).write_text(text, encoding="utf-8")
    write_notebook(self_study_notebook(release), site / DOWNLOAD)
    say(f"labs' website pages: {site}/lab-*.md and {DOWNLOAD}")
