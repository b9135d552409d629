"""The book build: a notebook with a failing cell fails it.

The website built from the course itself is checked in ``test_site.py`` (built once per
session by ``conftest.site``, exactly as ``make book`` builds it).
"""
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
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
