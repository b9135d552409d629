"""The book's execution cache (scripts/book/book_cache.py): emptied when what chapters run on changes."""
import nbformat
import pytest

from scripts.book import book_cache


@pytest.fixture
def book(tmp_path):
    """A one-chapter book with a library file, a requirements file and a config."""
    (tmp_path / "lib" / "pkg").mkdir(parents=True)
    (tmp_path / "lib" / "pkg" / "core.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (tmp_path / "requirements.txt").write_text("numpy==2.4.6\n", encoding="utf-8")
    (tmp_path / "_config.yml").write_text("execute:\n  execute_notebooks: cache\n  timeout: 60\n", encoding="utf-8")
    (tmp_path / "chapters").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# One"), nbformat.v4.new_code_cell("print(6 * 7)")]
    nbformat.write(nb, tmp_path / "chapters" / "one.ipynb")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: C\n    chapters:\n"
                                       "      - file: chapters/one\n", encoding="utf-8")
    return tmp_path


def test_digest_follows_library_requirements_config_and_panel_setting(book):
    env = {}
    base = book_cache.inputs_digest(book, env)
    assert book_cache.inputs_digest(book, env) == base
    (book / "lib" / "pkg" / "core.py").write_text("def f():\n    return 2\n", encoding="utf-8")
    edited = book_cache.inputs_digest(book, env)
    assert edited != base
    (book / "requirements.txt").write_text("numpy==2.4.7\n", encoding="utf-8")
    pinned = book_cache.inputs_digest(book, env)
    assert pinned != edited
    assert book_cache.inputs_digest(book, {"MWM_STATIC_PANELS": "1"}) != pinned
    (book / "lib" / "pkg" / "__pycache__").mkdir()
    (book / "lib" / "pkg" / "__pycache__" / "core.cpython-311.pyc").write_bytes(b"\0")
    assert book_cache.inputs_digest(book, env) == pinned, "byte-compiled files do not count"
    (book / "chapters" / "one.ipynb").write_text("{}", encoding="utf-8")
    assert book_cache.inputs_digest(book, env) == pinned, "a chapter is keyed by the cache itself"


def test_invalidate_keeps_a_matching_cache_and_empties_a_stale_one(tmp_path):
    cache = tmp_path / "cache"
    assert book_cache.invalidate_if_changed(cache, "a") is True
    (cache / "kept.txt").write_text("x", encoding="utf-8")
    assert book_cache.invalidate_if_changed(cache, "a") is False
    assert (cache / "kept.txt").is_file()
    assert book_cache.invalidate_if_changed(cache, "b") is True
    assert not (cache / "kept.txt").exists()
    assert (cache / book_cache.STAMP).read_text(encoding="utf-8").strip() == "b"


def test_prepare_executes_once_then_again_after_a_library_edit(book):
    cache = book / "_build" / ".jupyter_cache"
    first = book_cache.prepare(cache, workers=1, root=book, log=lambda *_: None)
    assert list(first) == ["chapters/one.ipynb"]
    assert book_cache.prepare(cache, workers=1, root=book, log=lambda *_: None) == {}, "cached: nothing runs"
    # an edit of the chapter's prose keeps the cache
    nb = nbformat.read(book / "chapters" / "one.ipynb", as_version=4)
    nb.cells[0].source = "# One, reworded"
    nbformat.write(nb, book / "chapters" / "one.ipynb")
    assert book_cache.prepare(cache, workers=1, root=book, log=lambda *_: None) == {}
    # an edit of the library runs the chapter again
    (book / "lib" / "pkg" / "core.py").write_text("def f():\n    return 3\n", encoding="utf-8")
    assert list(book_cache.prepare(cache, workers=1, root=book, log=lambda *_: None)) == ["chapters/one.ipynb"]


def test_prepare_rejects_zero_workers(book):
    with pytest.raises(ValueError, match="workers"):
        book_cache.prepare(book / "cache", workers=0, root=book)


def test_invalidate_refuses_a_folder_that_is_not_a_cache(tmp_path):
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text("<p>not a cache</p>", encoding="utf-8")
    with pytest.raises(ValueError, match="not an execution cache"):
        book_cache.invalidate_if_changed(folder, "a")
    assert (folder / "index.html").is_file()


def test_digest_follows_the_installed_packages(book):
    base = book_cache.inputs_digest(book, {}, packages=["python 3.11.7", "pillow==12.0.0"])
    assert book_cache.inputs_digest(book, {}, packages=["python 3.11.7", "pillow==12.1.0"]) != base
    assert book_cache.inputs_digest(book, {}, packages=["python 3.12.1", "pillow==12.0.0"]) != base
    listed = book_cache.environment()
    assert listed[0].startswith("python ") and any(line.lower().startswith("numpy==") for line in listed)


def test_coalesce_streams_merges_consecutive_prints_of_one_stream():
    from scripts.book.execute_notebooks import coalesce_streams

    out = [nbformat.v4.new_output("stream", name="stdout", text="a\n"),
           nbformat.v4.new_output("stream", name="stdout", text="b\n"),
           nbformat.v4.new_output("stream", name="stderr", text="warn\n"),
           nbformat.v4.new_output("stream", name="stdout", text="c\n"),
           nbformat.v4.new_output("execute_result", data={"text/plain": "1"}),
           nbformat.v4.new_output("stream", name="stdout", text="d\n")]
    merged = coalesce_streams(out)
    assert [(o.get("name"), o.get("text")) for o in merged] == [
        ("stdout", "a\nb\n"), ("stderr", "warn\n"), ("stdout", "c\n"), (None, None), ("stdout", "d\n")]


def _panel_chapter(book, source="window_try()"):
    """chapters/one.ipynb committed executed: a print whose stored output is not what a run prints, and a panel."""
    nb = nbformat.read(book / "chapters" / "one.ipynb", as_version=4)
    printed = nbformat.v4.new_code_cell("print(6 * 7)", execution_count=1)
    printed.outputs = [nbformat.v4.new_output("stream", name="stdout", text="as committed\n")]
    panel = nbformat.v4.new_code_cell(source, execution_count=2)
    panel.outputs = [nbformat.v4.new_output("execute_result", execution_count=2, data={
        book_cache.WIDGET_VIEW: {"model_id": "0" * 32, "version_major": 2, "version_minor": 0},
        "text/plain": "Try: a panel"})]
    nb.cells = [nb.cells[0], printed, panel]
    nbformat.write(nb, book / "chapters" / "one.ipynb")
    return nb


def test_a_committed_chapter_is_stored_as_committed_with_its_panels_drawn(book, monkeypatch):
    from jupyter_cache import get_cache

    from mwm.widgets import window_try
    from mwm.widgets.static import static_html

    monkeypatch.setenv("MWM_STATIC_PANELS", "1")
    nb = _panel_chapter(book)
    cache = book / "_build" / ".jupyter_cache"
    assert list(book_cache.prepare(cache, workers=1, root=book, log=lambda *_: None)) == ["chapters/one.ipynb"]
    record = get_cache(str(cache)).match_cache_notebook(nb)
    printed, panel = get_cache(str(cache)).get_cache_bundle(record.pk).nb.cells   # the cache keeps code cells
    assert printed.outputs[0]["text"] == "as committed\n", "the chapter is not run again"
    view = panel.outputs[0]["data"]
    assert view["text/html"] == static_html(window_try()), "the twin the panel adds in a run"
    assert view["text/plain"] == "Try: a panel"


def test_a_chapter_not_committed_executed_or_with_another_display_is_executed(book):
    nb = _panel_chapter(book)
    assert book_cache.committed_run(nb) and book_cache.panel_cells(nb) == [(2, "window_try")]
    nb.cells[2].execution_count = 3   # not one run, top to bottom
    assert not book_cache.committed_run(nb)
    for other in ("panel = window_try()\npanel", "no_such_try()"):
        assert book_cache.panel_cells(_panel_chapter(book, other)) is None, other


def test_every_chapter_of_the_book_is_stored_from_its_committed_outputs():
    shown = 0
    for path in book_cache.toc_notebooks():
        nb = nbformat.read(path, as_version=4)
        panels = book_cache.panel_cells(nb)
        assert book_cache.committed_run(nb) and panels, f"{path.name}: it would be executed by the build"
        shown += len(panels)
    import mwm.widgets

    builders = [name for name in mwm.widgets.__all__ if name.endswith("_try")]
    assert shown == len(builders) == 24   # every "Try" of the course (mwm.widgets' table), each shown once
