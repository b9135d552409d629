"""The website: the book builds with warnings as errors, and a failing notebook fails it.

The site is the one ``conftest.site`` builds once per session, exactly as ``make book``
does; these tests check the Sphinx side (the table of contents, maths, figures, the
practice pages). A tiny book with a failing cell checks that a failure stops the build.
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
JB = str(Path(sys.executable).with_name("jupyter-book"))


def _build(source: Path, out: Path, config: dict) -> subprocess.CompletedProcess:
    config = dict(config, sphinx=dict(config["sphinx"]))
    config["sphinx"]["local_extensions"] = {name: str(ROOT / path)  # the copy lives elsewhere
                                            for name, path in config["sphinx"]["local_extensions"].items()}
    cfg = out / "_config_test.yml"
    out.mkdir(parents=True, exist_ok=True)
    cfg.write_text(yaml.safe_dump(config), encoding="utf-8")
    return subprocess.run([JB, "build", str(source), "--all", "-W", "--keep-going", "--config", str(cfg),
                           "--path-output", str(out)], capture_output=True, text=True, timeout=900)


def _chapters_in_toc():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [c["file"] for part in toc["parts"] for c in part["chapters"] if c["file"].startswith("chapters/")]


def test_intro_and_every_chapter_page_exist(site):
    assert (site / "intro.html").is_file() and (site / "index.html").is_file()
    for doc in _chapters_in_toc():
        assert (site / f"{doc}.html").is_file(), doc


def _visible_text(html: str) -> str:
    html = re.sub(r"<(script|style|pre)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r'<span class="math[^"]*">.*?</span>', " ", html, flags=re.S)
    html = re.sub(r'<div class="math[^"]*">.*?</div>', " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.parametrize("doc", _chapters_in_toc())
def test_chapter_page_has_figures_maths_and_no_raw_dollars(site, doc):
    html = (site / f"{doc}.html").read_text(encoding="utf-8")
    images = re.findall(r'<img [^>]*src="([^"]+)"', html)
    assert images, "every chapter shows at least one figure (its Try panel)"
    for src in images:
        assert (site / doc).parent.joinpath(src).resolve().is_file(), src
    assert 'class="math notranslate nohighlight"' in html, "inline maths rendered"
    assert "$" not in _visible_text(html), "a $ left in the text: maths that did not parse"
    assert "dropdown" in html, "answers and proofs are folded away"


def test_display_and_inline_maths_on_the_intro(site):
    html = (site / "intro.html").read_text(encoding="utf-8")
    assert '<div class="math notranslate nohighlight">' in html  # $$ ... $$
    assert '<span class="math notranslate nohighlight">' in html  # $ ... $


def test_a_failing_notebook_fails_the_build(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    shutil.copy(ROOT / "intro.md", book / "intro.md")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Broken"), nbformat.v4.new_code_cell("raise RuntimeError('broken cell')")]
    nbformat.write(nb, book / "broken.ipynb")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: broken\n", encoding="utf-8")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert config["execute"]["execute_notebooks"] == "cache"
    result = _build(book, tmp_path / "out", config)
    assert result.returncode != 0
    assert "broken cell" in result.stdout + result.stderr


PRACTICE_PAGES = sorted(p.stem for p in (ROOT / "practice").glob("problem-*.md"))


def test_practice_part_offers_the_student_notebook(site):
    html = (site / "practice" / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="([^"]*_downloads/[^"]*practice\.ipynb)"', html)
    assert links, "the practice index links the student notebook"
    notebook = (site / "practice" / links[0]).resolve()
    assert notebook.is_file()
    assert notebook.read_bytes() == (ROOT / "practice" / "downloads" / "practice.ipynb").read_bytes()
    for page in PRACTICE_PAGES:
        assert f'href="{page}.html"' in html, page


@pytest.mark.parametrize("page", PRACTICE_PAGES)
def test_practice_page_states_the_problem_with_its_solution_folded(site, page):
    html = (site / "practice" / f"{page}.html").read_text(encoding="utf-8")
    assert re.search(r"<details[^>]*dropdown", html) or 'class="dropdown' in html, "the solution is folded away"
    assert "Worked solution" in html and "_downloads/" in html
    assert 'class="math notranslate nohighlight"' in html
    assert "$" not in _visible_text(html), "a $ left in the text: maths that did not parse"
