"""Checks on the chapter notebooks as documents.

* Every decimal number a chapter's text states is computed in that chapter: it must
  appear in a code cell (as an input) or match, at the precision written, a number
  printed by a code cell's output. A typo in a stated number fails here.
* Notebooks are committed executed, import ``mwm`` by name and never edit sys.path.
* Every chapter is listed in _toc.yml.
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]-*.ipynb"))
NUMBER = re.compile(r"(?<![\w.])[-−]?\d+\.\d+(?![\w.])|(?<![\w.])[-−]?\.\d+")


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _text(cell):
    src = cell["source"]
    return "".join(src) if isinstance(src, list) else src


def _output_text(cell):
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append(_text({"source": out["text"]}))
        for key in ("text/plain", "text/html", "text/markdown"):
            if key in out.get("data", {}):
                parts.append(_text({"source": out["data"][key]}))
    return "\n".join(parts)


def _numbers(text):
    return [m.replace("−", "-") for m in NUMBER.findall(text)]


def _matches(stated: str, computed: list[float]) -> bool:
    decimals = len(stated.split(".")[1])
    x = float(stated)
    tol = 0.5 * 10 ** -decimals + 1e-12
    return any(abs(y - x) <= tol for y in computed)


@pytest.fixture(params=CHAPTERS, ids=lambda p: p.stem)
def chapter(request):
    return request.param


def test_there_are_chapters():
    assert len(CHAPTERS) >= 4


def test_every_stated_decimal_is_computed_in_the_chapter(chapter):
    cells = _cells(chapter)
    code = "\n".join(_text(c) for c in cells if c["cell_type"] == "code")
    outputs = "\n".join(_output_text(c) for c in cells if c["cell_type"] == "code")
    computed = [float(n) for n in _numbers(outputs)]
    code_literals = set(_numbers(code))
    missing = []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        for stated in _numbers(_text(cell)):
            if stated in code_literals or stated.lstrip("-") in code_literals:
                continue
            if not _matches(stated, computed) and not _matches(stated.lstrip("-"), [abs(c) for c in computed]):
                missing.append(stated)
    assert not missing, f"{chapter.name}: numbers stated in the text but not computed: {sorted(set(missing))}"


def test_committed_executed_and_imports_by_name(chapter):
    cells = _cells(chapter)
    code = [c for c in cells if c["cell_type"] == "code" and _text(c).strip()]
    assert code and all(c.get("execution_count") for c in code), "commit the notebook executed"
    assert all(not any(o.get("output_type") == "error" for o in c.get("outputs", [])) for c in code)
    source = "\n".join(_text(c) for c in code)
    assert "sys.path" not in source
    assert re.search(r"^(from|import) mwm", source, re.M)
    for c in code:  # pause-and-predict answers stay folded in JupyterLab too
        if "hide-cell" in c["metadata"].get("tags", []):
            assert c["metadata"].get("jupyter") == {"source_hidden": True, "outputs_hidden": True}
    numbers = [c["execution_count"] for c in code]
    assert numbers == list(range(1, len(code) + 1)), "execute top to bottom in one run"


def test_every_chapter_is_in_the_toc():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    for path in CHAPTERS:
        assert f"chapters/{path.stem}" in toc, path.name


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem[:2])
def test_main_prose_is_focused(chapter):
    """What a reader meets without opening a fold stays at or under LIMIT words."""
    from scripts.book import prose_words as prose

    n = prose.prose_words(chapter)
    assert n <= prose.LIMIT, f"{chapter.name}: {n} words of main prose (limit {prose.LIMIT}); fold or cut"


def test_prose_counter_folds_maths_and_tags():
    """Folded blocks and display maths are not main prose; inline maths like word_{<t} is not a tag."""
    from scripts.book.prose_words import main_prose

    text = main_prose('One two <img src="a.svg" alt="x"> $p(\\text{word}_t\\mid\\text{word}_{<t})$ three.\n'
                      "```{dropdown} Answer\nhidden words here\n```\n$$\na>b\n$$\nfour five")
    assert text.split() == ["One", "two", "$p(\\text{word}_t\\mid\\text{word}_{<t})$", "three.", "four", "five"]


def _summary(cells) -> str:
    text = next(_text(c) for c in cells if c["cell_type"] == "markdown" and "## In one sentence" in _text(c))
    return text.split("## In one sentence", 1)[1].strip().split("\n\n")[0]


def test_the_summary_is_one_short_sentence(chapter):
    """Issue 26: one sentence, at most 40 words (a formula counts as one) and at most 3 numbers outside the maths."""
    summary = _summary(_cells(chapter))
    prose = re.sub(r"\$[^$]*\$", "F", summary)
    assert len(prose.split()) <= 40, (len(prose.split()), summary)
    assert len(re.findall(r"(?<![\w.])\d+(?:[.,]\d+)*", prose)) <= 3, summary
    assert prose.rstrip().endswith(".") and prose.count(". ") == 0, "one sentence"
