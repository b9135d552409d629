"""Count the words of a chapter's main prose: what a reader reads without opening a fold.

Main prose is the text of the markdown cells with folded blocks (```{dropdown}``` and
```{toggle}```), display maths (``$$...$$``), links' targets and HTML tags removed; a word
is what ``wc -w`` counts (an inline formula or a number is a word too). The course
keeps every chapter's main prose at or under ``LIMIT`` words (tests/test_chapters.py).

Usage: ``python scripts/book/prose_words.py [chapters/NN-....ipynb ...]`` prints one line per
chapter (all chapters when none is named): its main words and its folded words.
"""
import json
import re
import sys
from pathlib import Path

LIMIT = 2000
ROOT = Path(__file__).resolve().parents[2]
_FOLD = re.compile(r"^(`{3,}|:{3,})\{(dropdown|toggle)\}")


def main_prose(markdown):
    """Return ``markdown`` (str) without folded blocks, display maths, link targets and tags."""
    kept, lines, i = [], markdown.splitlines(), 0
    while i < len(lines):
        fold = _FOLD.match(lines[i])
        if fold:
            fence = fold.group(1)
            i += 1
            while i < len(lines) and lines[i].strip() != fence:
                i += 1
            i += 1
            continue
        kept.append(lines[i])
        i += 1
    text = "\n".join(kept)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"</?[A-Za-z][A-Za-z0-9]*(\s[^<>]*)?/?>", " ", text)   # tags, not maths like word_{<t}
    return text


def _markdown(notebook) -> str:
    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def prose_words(notebook):
    """Number of words in the main prose of ``notebook`` (a path to an .ipynb file)."""
    return len(main_prose(_markdown(notebook)).split())


def folded_words(notebook):
    """Number of words inside the folds of ``notebook`` (proofs, answers, optional depth), counted as :func:`prose_words` counts."""
    markdown = _markdown(notebook)
    # the folds opened: their fences and options dropped, their text kept
    unfolded = re.sub(r"^((`{3,}|:{3,})(\{(dropdown|toggle)\}.*)?|:\w+:.*)$", "", markdown, flags=re.M)
    return len(main_prose(unfolded).split()) - prose_words(notebook)


if __name__ == "__main__":
    paths = sys.argv[1:] or sorted(str(p) for p in (ROOT / "chapters").glob("[0-9][0-9]-*.ipynb"))
    print(" main folded")
    for path in paths:
        n = prose_words(path)
        print(f"{n:5d} {folded_words(path):6d} {'over ' if n > LIMIT else '     '}{path}")
