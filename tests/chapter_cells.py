"""The chapter notebooks' own code cells, for the tests that run what the learner reads.

Several tests (chapters 2, 6, 8, 10, 12 and 13) take a function or a whole cell from a chapter's
committed notebook and run it, instead of a copy that could drift from the page. This module is
the one place that reads the notebook JSON and finds those cells; imported as
``from tests.chapter_cells import ...`` (pytest.ini puts the repository root on sys.path).
Nothing here is cached: every call reads the notebook afresh, as the tests always did.
"""
from __future__ import annotations

import json
from pathlib import Path

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"


def chapter_path(number: int) -> Path:
    """The notebook of chapter ``number``.

    Args:
        number: the chapter's number, e.g. 6 for ``chapters/06-backprop-through-time.ipynb``.
    Returns:
        the path of the one notebook ``chapters/NN-*.ipynb`` (NN the number in two digits).
    Raises:
        LookupError: no notebook, or more than one, is named for that chapter.
    """
    found = sorted(CHAPTERS.glob(f"{number:02d}-*.ipynb"))
    if len(found) != 1:
        raise LookupError(f"chapter {number}: expected one notebook chapters/{number:02d}-*.ipynb, found {len(found)}")
    return found[0]


def _code_cell_dicts(path: Path) -> list[dict]:
    """The notebook's code cells as JSON dicts (keys ``source``, ``outputs``, ...), in order."""
    return [c for c in json.loads(Path(path).read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]


def source_of(cell: dict) -> str:
    """A cell's source as one string.

    Args:
        cell: a notebook cell as read from the JSON (its ``source`` a list of lines or a string).
    Returns:
        the lines joined, exactly as the notebook stores them.
    """
    return "".join(cell["source"])


def code_cells(path: Path) -> list[str]:
    """The sources of a notebook's code cells.

    Args:
        path: the notebook (e.g. from ``chapter_path``).
    Returns:
        one string per code cell, in notebook order; markdown and raw cells are left out.
    Raises:
        OSError / json.JSONDecodeError: the notebook cannot be read or parsed.
    """
    return [source_of(c) for c in _code_cell_dicts(path)]


def cells_with(path: Path, marker: str) -> list[dict]:
    """Every code cell whose source contains ``marker``.

    Args:
        path: the notebook.
        marker: a piece of source text, e.g. ``"def train("``.
    Returns:
        the matching cells as JSON dicts (so ``outputs`` can be read too), in notebook order;
        an empty list when none matches.
    """
    return [c for c in _code_cell_dicts(path) if marker in source_of(c)]


def cell_with(path: Path, marker: str) -> dict:
    """The first code cell whose source contains ``marker``.

    Args:
        path: the notebook.
        marker: a piece of source text, e.g. ``"opt = torch.optim.Adam("``.
    Returns:
        the cell as a JSON dict (``source_of(cell)`` for its text, ``cell["outputs"]`` for what
        the committed notebook printed); the first in notebook order if several match.
    Raises:
        LookupError: no code cell of the notebook contains the marker (the message names both).
    """
    for cell in _code_cell_dicts(path):
        if marker in source_of(cell):
            return cell
    raise LookupError(f"no code cell of {Path(path).name} contains {marker!r}")


def definition(source: str, name: str) -> str:
    """The ``def name(...)`` block of a cell's source, without what follows it.

    Args:
        source: a code cell's source.
        name: the function's name.
    Returns:
        the text from ``def name(`` up to (not including) the first blank line after it, or to
        the end of the source if no blank line follows; the cells put their checks after a blank line.
    Raises:
        LookupError: the source has no ``def name(``.
    """
    start = source.find(f"def {name}(")
    if start == -1:
        raise LookupError(f"the source has no 'def {name}('")
    end = source.find("\n\n", start)
    return source[start:end if end != -1 else None]


def chapter_function(path: Path, name: str, namespace: dict):
    """Run a chapter's own ``def name(...)`` and return the function.

    Args:
        path: the notebook.
        name: the function's name; the first code cell containing ``def name(`` is used.
        namespace: the globals the definition runs in (e.g. ``{"np": np}``); it is changed in
            place, ``namespace[name]`` being the new function.
    Returns:
        the function the chapter defines.
    Raises:
        LookupError: no code cell of the notebook defines ``name`` (the message names the notebook).
    """
    exec(definition(source_of(cell_with(path, f"def {name}(")), name), namespace)
    return namespace[name]
