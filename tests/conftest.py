"""Shared fixtures: the website, built once per test session as ``make book`` builds it.

``test_site.py`` and ``test_site_panels.py`` read it; ``make test`` runs pytest-xdist
with ``--dist loadfile``, so each file stays in one worker, and the workers share one
build (see :func:`site`).
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def build_site(out: Path) -> subprocess.CompletedProcess:
    """Build the book into ``out`` exactly as ``make book`` does (cache prepared in parallel, panels drawn).

    Returns the completed ``jupyter-book build`` (or the failed cache preparation).
    """
    env = dict(os.environ, MWM_STATIC_PANELS="1")
    cache = out / "_build" / ".jupyter_cache"
    prepared = subprocess.run([sys.executable, str(ROOT / "scripts" / "book" / "book_cache.py"), "prepare", "--cache", str(cache)],
                              capture_output=True, text=True, env=env, timeout=1500, cwd=ROOT)
    if prepared.returncode != 0:
        return prepared
    jb = str(Path(sys.executable).with_name("jupyter-book"))
    return subprocess.run([jb, "build", str(ROOT), "--all", "-W", "--keep-going", "--path-output", str(out)],
                          capture_output=True, text=True, env=env, timeout=1500, cwd=ROOT)


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The built website's folder (``.../_build/html``), built once per test run.

    Under pytest-xdist the test files that read it may sit in different workers: the
    first to ask builds it into the run's shared temporary folder, holding a lock, and
    the others wait for it and read the same site. ``MWM_BUILT_SITE=path/_build/html``
    tests a site already built instead (while working on the site's tests).
    """
    if os.environ.get("MWM_BUILT_SITE"):
        built = Path(os.environ["MWM_BUILT_SITE"])
        assert (built / "intro.html").is_file(), f"MWM_BUILT_SITE={built} holds no built site"
        return built
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import fcntl

        out = tmp_path_factory.getbasetemp().parent / "site"
        out.mkdir(exist_ok=True)
        with open(out / "build.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            done = out / "built"
            if not done.exists():
                result = build_site(out)
                assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
                done.write_text("ok\n")
        return out / "_build" / "html"
    out = tmp_path_factory.mktemp("site")
    result = build_site(out)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return out / "_build" / "html"



#: The slowest test files, handed out first: `make test` runs pytest-xdist with
#: ``--dist loadfile --no-loadscope-reorder``, which gives whole files to the workers in
#: collection order, so the site (built once) and the second notebook pass start at once
#: instead of ending the run on one busy worker.
SLOWEST_FIRST = ("tests/test_site.py", "tests/test_notebooks_portable.py", "tests/test_portable_outputs.py",
                 "tests/test_grade_parallel.py", "tests/test_hub.py", "tests/test_grading_attacks.py",
                 "tests/test_teacher_pages.py",
                 "tests/test_exercises.py", "tests/test_lab.py", "tests/test_class_trial.py", "tests/test_sandbox.py",
                 "tests/test_solutions_every_id.py",
                 # 150 s of drawing every panel's settings: last in collection order, it ran alone at the end
                 "tests/test_widgets.py",
                 # the site's other readers: handed out once the site is likely built (the first file builds it)
                 "tests/test_site_readers.py", "tests/test_site_practice_pages.py", "tests/test_site_panels.py")


def pytest_collection_modifyitems(config, items):
    """Move the tests of SLOWEST_FIRST to the front, in that order; the rest keep theirs."""
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}

    def key(item):
        path = Path(str(item.fspath))
        try:
            name = path.relative_to(ROOT).as_posix()
        except ValueError:
            return len(rank)
        return rank.get(name, len(rank))

    items.sort(key=key)
