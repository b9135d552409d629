"""Write lib/mwm/data/course_prose.txt: the course's own words, for chapter 15's model to read.

The text is the prose of the chapters given (by default chapters 1-14, in order): every markdown
cell, with what is not prose taken out (maths, code, links' addresses, pictures, tables, HTML and
Markdown's marks), one paragraph per line. It is the course's own writing, so it may be shipped
with the course.

The committed file is a snapshot: it was written from the chapters as they stood when chapter 15's
model was trained (``scripts/train_tiny.py`` trains on it), and it is not rewritten when a chapter
changes, so the trained model stays what chapter 15 shows. Run this script, then
``scripts/train_tiny.py``, then re-execute chapter 15, to train on newer words.

    python scripts/make_course_prose.py [--out PATH] [NOTEBOOK ...]
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "lib" / "mwm" / "data" / "course_prose.txt"

_DROP = [
    (re.compile(r"(`{3,}).*?\1", re.S), " "),              # code blocks and folds (fences of 3 or more backticks)
    (re.compile(r"\$\$.*?\$\$", re.S), " "),               # display maths
    (re.compile(r"\$[^$\n]*\$"), " "),                     # inline maths
    (re.compile(r"`[^`\n]*`"), " "),                       # inline code
    (re.compile(r"!\[(?:[^\[\]]|\[[^\]]*\])*\]\([^)]*\)"), " "),   # pictures (alt texts may hold brackets)
    (re.compile(r"\[([^\]]*)\]\([^)]*\)"), r"\1"),         # links: their words, not their addresses
    (re.compile(r"<[^>]+>"), " "),                         # HTML tags
    (re.compile(r"^\s*\|.*$", re.M), " "),                 # table rows
    (re.compile(r"^\s*#+\s+(.*)$", re.M), r"\1\n"),         # a heading: its words, a paragraph of their own
    (re.compile(r"^\s*([-*+]|\d+\.)\s+", re.M), ""),        # lists' marks
    (re.compile(r"(?<!\w)[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}(?!\w)"), ""),  # emphasis (not a word's own underscore)
]


def prose(markdown: str) -> list[str]:
    """The paragraphs of prose in a markdown cell's text, Markdown's marks and all maths and code removed."""
    text = markdown
    for pattern, replacement in _DROP:
        text = pattern.sub(replacement, text)
    paragraphs = (re.sub(r" ([,.;:)])", r"\1", " ".join(p.split())) for p in re.split(r"\n\s*\n", text))
    return [p for p in paragraphs if len(p.split()) >= 4 and not p.startswith("{")]


def course_prose(notebooks) -> str:
    """Every notebook's markdown cells as prose (:func:`prose`), one paragraph per line, ending with a newline."""
    lines = []
    for path in notebooks:
        cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "markdown":
                source = cell["source"]
                lines += prose("".join(source) if isinstance(source, list) else source)
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path, help="the chapters to read (default: chapters 1-14)")
    ap.add_argument("--out", type=Path, default=OUT, help=f"where to write it (default {OUT.relative_to(ROOT)})")
    args = ap.parse_args(argv)
    notebooks = args.notebooks or sorted((ROOT / "chapters").glob("[01][0-9]-*.ipynb"))[:14]
    text = course_prose(notebooks)
    args.out.write_text(text, encoding="utf-8")
    print(f"{args.out}: {len(text):,} characters, {len(set(text))} different ones, {text.count(chr(10))} paragraphs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
