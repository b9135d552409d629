"""The book's execution cache: invalidated by what the chapters run on, filled from the committed chapters.

Jupyter Book 1 (``execute_notebooks: cache``) keeps each chapter's outputs in a
jupyter-cache database, keyed on the chapter's code cells only. A change in the library
``lib/`` or in the pinned environment would therefore re-use outputs computed by the old
code. This script closes that gap and fills the cache before the build:

``python scripts/book/book_cache.py prepare [--cache DIR] [--workers N]``
    1. computes a digest of everything a chapter's outputs depend on besides its own
       code: every file under ``lib/`` (sources and data), ``requirements.txt``,
       ``_config.yml``, the ``MWM_STATIC_PANELS`` setting, the Python version and every
       installed distribution's version;
    2. if the digest differs from the one stored beside the cache (or there is none),
       empties the cache;
    3. fills it with every chapter of ``_toc.yml`` it does not hold yet:

       * a chapter committed executed (every code cell run once, top to bottom: the rule
         the chapters keep, and ``nbval`` in ``make test`` checks that a fresh run prints
         the same outputs) is stored with its committed outputs, and with
         ``MWM_STATIC_PANELS=1`` each "Try" panel's display (a cell that is just a call of a
         builder of ``mwm.widgets``, such as ``tank_try()``) gets the kernel-free twin the
         panel would add in a run (:func:`mwm.widgets.static.static_html`: every setting
         drawn, shared among the cores). Nothing of the chapter is run again;
       * any other chapter (a draft not yet executed, or a panel displayed some other way)
         is executed, ``N`` at a time (default: the usable cores), exactly as Jupyter Book
         would (in the chapter's folder, with the configured cell timeout, errors not
         allowed). A chapter that fails is left out of the cache, and the book build that
         follows executes it again and reports its error.

``make book`` runs it before ``jupyter-book build``. Editing a chapter's prose changes no
code cell: the build then re-uses every cached chapter.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import multiprocessing
import os
import re
import shutil
import sys
import time
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[2]
#: Files whose content every chapter's outputs may depend on (besides the chapter's code).
INPUT_GLOBS = ("lib/**/*", "requirements.txt", "_config.yml")
#: Environment variables that change what a chapter prints or displays.
INPUT_ENV = ("MWM_STATIC_PANELS",)
STAMP = "inputs.sha256"
SKIPPED_PARTS = ("__pycache__", ".egg-info")


def environment() -> list[str]:
    """The interpreter's version and every installed distribution as "name==version", sorted.

    requirements.txt pins the packages the course names, not what they pull in (pillow,
    fonttools, the BLAS inside numpy...): this list covers those too.
    """
    names = {f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions()
             if d.metadata["Name"]}
    return [f"python {sys.version}"] + sorted(names, key=str.lower)


def inputs_digest(root: Path = ROOT, env: dict | None = None, packages: list[str] | None = None) -> str:
    """sha256 (hex) of the files in INPUT_GLOBS (paths and contents), the INPUT_ENV values and the environment.

    Byte-compiled files and packaging metadata are skipped; they follow from the sources.
    ``packages`` defaults to :func:`environment` (the interpreter and installed distributions).
    """
    env = os.environ if env is None else env
    digest = hashlib.sha256()
    for line in environment() if packages is None else packages:
        digest.update(line.encode() + b"\0")
    files = sorted({p for pattern in INPUT_GLOBS for p in root.glob(pattern)
                    if p.is_file() and not any(part in str(p) for part in SKIPPED_PARTS)})
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for name in INPUT_ENV:
        digest.update(f"{name}={env.get(name, '')}\0".encode())
    return digest.hexdigest()


def invalidate_if_changed(cache: Path, digest: str) -> bool:
    """Empty ``cache`` unless its stored digest equals ``digest``; store ``digest``. True if emptied.

    Raises:
        ValueError: if ``cache`` exists and is neither empty nor a jupyter-cache folder
            (no ``global.db`` nor stamp): a mistyped path never deletes anything else.
    """
    stamp = cache / STAMP
    if stamp.is_file() and stamp.read_text(encoding="utf-8").strip() == digest:
        return False
    if cache.exists():
        if any(cache.iterdir()) and not ((cache / "global.db").is_file() or stamp.is_file()):
            raise ValueError(f"cache {cache} is not an execution cache (no global.db or {STAMP}); not emptying it")
        shutil.rmtree(cache)
    cache.mkdir(parents=True)
    stamp.write_text(digest + "\n", encoding="utf-8")
    return True


def book_config(root: Path = ROOT) -> dict:
    """The book's ``_config.yml`` as a dict."""
    return yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))


def toc_notebooks(root: Path = ROOT) -> list[Path]:
    """Every notebook the table of contents lists, in order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc.get("parts", []) for c in part["chapters"]]
    return [root / f"{f}.ipynb" for f in files if (root / f"{f}.ipynb").is_file()]


def _execute(job: tuple[str, int]) -> tuple[str, dict | None, float, str | None]:
    """Run one notebook as myst-nb's cache mode does; return (path, notebook or None, seconds, error)."""
    from jupyter_cache.executors.utils import single_nb_execution

    path, timeout = Path(job[0]), job[1]
    nb = nbformat.read(path, as_version=4)
    result = single_nb_execution(nb, cwd=str(path.parent), allow_errors=False, timeout=timeout, meta_override=True)
    if result.err is not None:
        return str(path), None, result.time, f"{type(result.err).__name__}: {result.err}"
    return str(path), nb, result.time, None


#: A cell that displays a "Try" panel: nothing but a call of one of mwm.widgets' builders.
PANEL_CELL = re.compile(r"\s*(?P<builder>[A-Za-z_][A-Za-z0-9_]*_try)\(\)\s*")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def committed_run(nb) -> bool:
    """Whether ``nb`` holds the outputs of one run, top to bottom: its non-empty code cells numbered 1, 2, ... n."""
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    return bool(code) and [c.get("execution_count") for c in code] == list(range(1, len(code) + 1))


def panel_cells(nb) -> list[tuple[int, str]] | None:
    """(cell index, builder name) of every cell whose output is a "Try" panel; None if one is not a plain builder call.

    A panel's display is recognised by its widget view; it must come from a cell that is just
    ``name_try()`` with ``name_try`` a builder of :mod:`mwm.widgets`, so that the panel can be
    made again outside the chapter's kernel.
    """
    from mwm import widgets

    found = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        views = [o for o in cell.get("outputs", []) if WIDGET_VIEW in o.get("data", {})]
        if not views:
            continue
        match = PANEL_CELL.fullmatch(cell.source)
        if len(views) != 1 or not match or not callable(getattr(widgets, match["builder"], None)):
            return None
        found.append((index, match["builder"]))
    return found


def add_static_twins(nb, panels: list[tuple[int, str]]) -> None:
    """Give each panel's display (``panels`` as from :func:`panel_cells`) the kernel-free twin a run would add.

    The twin is :func:`mwm.widgets.static.static_html` of the builder's fresh panel: the same
    ``text/html`` the panel's own display carries when the chapter runs with ``MWM_STATIC_PANELS=1``.
    """
    from mwm import widgets
    from mwm.widgets.static import static_html

    for index, builder in panels:
        (view,) = [o for o in nb.cells[index].outputs if WIDGET_VIEW in o.get("data", {})]
        view["data"]["text/html"] = static_html(getattr(widgets, builder)())


def prepare(cache_path: Path, workers: int, root: Path = ROOT, log=print) -> dict[str, float]:
    """Invalidate ``cache_path`` if the inputs changed, then add the chapters it lacks.

    A chapter committed executed (:func:`committed_run`) whose panels are recognised
    (:func:`panel_cells`) is added with its committed outputs, its panels' twins drawn when
    ``MWM_STATIC_PANELS`` is on; every other chapter is executed, ``workers`` at a time.

    Returns:
        {notebook path: seconds} for the chapters added now (cached ones are absent).

    Raises:
        ValueError: if ``workers`` < 1.
    """
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    from mwm.widgets.static import static_enabled

    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if invalidate_if_changed(cache_path, inputs_digest(root)):
        log(f"book cache: the library, requirements or settings changed (or no cache yet): "
            f"every chapter is added again ({cache_path})")
    cache = get_cache(str(cache_path))
    missing = []
    for path in toc_notebooks(root):
        try:
            cache.match_cache_notebook(nbformat.read(path, as_version=4))
        except KeyError:
            missing.append(path)
    times = {}

    def store(path, nb, seconds, how):
        name = Path(path).relative_to(root).as_posix()
        record = cache.add_nb_to_project(str(path))
        cache.cache_notebook_bundle(CacheBundleIn(nb, record.uri, data={"seconds": seconds, "from": how}),
                                    check_validity=False, overwrite=True)
        times[name] = seconds
        return name

    todo = []
    for path in missing:
        nb = nbformat.read(path, as_version=4)
        panels = panel_cells(nb)
        if not committed_run(nb) or panels is None:
            todo.append(path)
            continue
        start = time.perf_counter()
        if static_enabled():
            add_static_twins(nb, panels)
        seconds = time.perf_counter() - start
        name = store(path, nb, seconds, "committed")
        drawn = f", {len(panels)} panel(s) drawn in every setting in {seconds:.1f} s" if static_enabled() and panels else ""
        log(f"book cache: {name} from its committed outputs{drawn}")

    # longest first (a notebook's size, outputs included, is a fair guess of its running time),
    # so the slowest chapter never starts last
    todo.sort(key=lambda p: p.stat().st_size, reverse=True)
    timeout = int(book_config(root).get("execute", {}).get("timeout", 30))
    log(f"book cache: {len(toc_notebooks(root)) - len(missing)} chapters cached before, {len(missing) - len(todo)} "
        f"added from their committed outputs, executing {len(todo)}"
        + (f" with {min(workers, len(todo))} worker(s)" if todo else ""))
    if not todo:
        return times
    jobs = [(str(p), timeout) for p in todo]
    with multiprocessing.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
        for path, nb, seconds, error in pool.imap_unordered(_execute, jobs):
            name = Path(path).relative_to(root).as_posix()
            if error is not None:
                log(f"book cache: {name} failed after {seconds:.1f} s ({error}); the build will report it")
                continue
            store(path, nb, seconds, "executed")
            log(f"book cache: executed {name} in {seconds:.1f} s")
    return times


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["prepare", "digest"])
    parser.add_argument("--cache", type=Path, default=None,
                        help="cache folder (default: execute.cache of _config.yml, else _build/.jupyter_cache)")
    parser.add_argument("--workers", type=int, default=default_workers())
    args = parser.parse_args(argv)
    if args.command == "digest":
        print(inputs_digest())
        return 0
    cache = args.cache or ROOT / (book_config().get("execute", {}).get("cache") or "_build/.jupyter_cache")
    start = time.perf_counter()
    prepare(cache.resolve(), args.workers)
    print(f"book cache: ready in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
