"""The README's one-machine class trial, run with its own commands: two students, two folders.

The teacher releases the assignment into a temporary exchange; ``alice`` and ``bob`` each get a
folder of their own from ``grader/mwm_grader/student_setup.py`` (what ``make student STUDENT=id`` runs),
fetch, answer and submit there with the students' commands of the README, as the same
operating-system user; the teacher collects and grades. Each must be filed and graded under
their own id: two submissions collected, one grade each, equal to what their answers earn.
Every command the test runs is checked to appear, word for word, in the README.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from mwm_grader import problems as problems_mod
from mwm_grader.variants import numbers_for
from tests.practice_course import ROOT, SOURCE, need_sandbox, parts_of, solve

COURSE = "machines-with-memory"
FETCH = f"nbgrader fetch_assignment practice --course {COURSE}"
SUBMIT = f"nbgrader submit practice --course {COURSE}"
RELEASE = "nbgrader release_assignment practice"
COLLECT = "nbgrader collect practice --ExchangeCollect.check_owner=False"
AUTOGRADE = "nbgrader autograde practice"
#: What each student leaves unanswered (bob skips two last parts, which no other part builds on).
#: The course's Python, quoted for a command line (a clone's path may hold spaces).
PY = shlex.quote(sys.executable)
#: The teacher's command that sets a student up (what `make student` runs), quoted.
STUDENT_SETUP = shlex.quote(str(Path(sys.executable).parent / "mwm-student"))
ROSTER_IMPORT = shlex.quote(str(Path(sys.executable).parent / "mwm-roster"))
SKIPPED = {"alice": (), "bob": ("p01-c", "p05-c")}


def _run(command: str, cwd: Path, env: dict) -> str:
    """Run one README command in ``cwd``; its output (stdout and stderr), or a failure showing it."""
    done = subprocess.run(shlex.split(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{command} (in {cwd}) failed:\n{output[-4000:]}"
    return output


def _course(tmp_path: Path) -> tuple[Path, dict]:
    """A fresh course in ``tmp_path/course`` (the config and the source of ``exercises/``), an exchange
    beside it open to all, and the environment the README's commands run in (no MWM_STUDENT, no
    MWM_GRADEBOOK_URL): (course folder, environment)."""
    course, exchange = tmp_path / "course", tmp_path / "exchange"
    (course / "source").mkdir(parents=True)
    exchange.mkdir()
    exchange.chmod(0o777)
    shutil.copy(ROOT / "exercises" / "nbgrader_config.py", course)
    shutil.copytree(SOURCE.parent, course / "source" / "practice")
    env = dict(os.environ, NBGRADER_EXCHANGE=str(exchange), HOME=str(tmp_path / "home"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=os.pathsep.join([str(ROOT / "lib"), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    for name in ("MWM_STUDENT", "MWM_GRADEBOOK_URL"):
        env.pop(name, None)
    return course, env


def test_two_students_on_one_machine_are_graded_under_their_own_ids(tmp_path):
    need_sandbox()
    readme = (ROOT / "README.md").read_text()
    for command in (FETCH, SUBMIT, RELEASE, COLLECT, AUTOGRADE, "make student STUDENT=alice",
                    "export NBGRADER_EXCHANGE=/tmp/exchange"):
        assert command in readme, f"the README no longer shows {command!r}"

    course, env = _course(tmp_path)
    _run("nbgrader generate_assignment practice", course, env)  # what `make exercises` does in exercises/
    _run(RELEASE, course, env)

    by_id = parts_of(problems_mod.build_all()[0])
    for student, skipped in SKIPPED.items():
        own = parts_of(problems_mod.build_all(numbers_for(student))[0])  # solutions for the student's numbers
        folder = tmp_path / "students" / student
        _run(f"{STUDENT_SETUP} {student} --dir {shlex.quote(str(folder))}", ROOT, env)
        student_env = dict(env, MWM_STUDENT=student)
        _run(FETCH, folder, student_env)
        path = folder / "practice" / "practice.ipynb"
        nb = nbformat.read(path, as_version=4)
        nbformat.write(solve(nb, own, skip=skipped), path)
        _run(SUBMIT, folder, student_env)

    collected = _run(COLLECT, course, env)
    assert "cheating attempt" not in collected
    assert sorted(p.name for p in (course / "submitted").iterdir()) == sorted(SKIPPED)
    graded = _run(AUTOGRADE, course, env)
    assert "SAWarning" not in graded, graded[-2000:]

    from nbgrader.api import Gradebook

    total = sum(q.points for _, q in by_id.values())
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE) as gb:
        assert sorted(s.id for s in gb.students) == sorted(SKIPPED)
        for student, skipped in SKIPPED.items():
            expected = total - sum(by_id[p][1].points for p in skipped)
            assert gb.find_submission("practice", student).score == expected, student


def test_student_setup_writes_the_config_once_and_refuses_ids_nbgrader_cannot_file(tmp_path):
    from traitlets.config.loader import PyFileConfigLoader

    from mwm_grader import student_setup

    folder = tmp_path / "alice"
    path, changed = student_setup.set_up("alice", folder, str(tmp_path / "exchange"))
    assert changed and path == folder / "nbgrader_config.py"
    config = PyFileConfigLoader(path.name, path=str(folder)).load_config()
    assert config.CourseDirectory.student_id == "alice" and config.CourseDirectory.course_id == COURSE
    assert config.Exchange.root == str(tmp_path / "exchange")
    assert config.Exchange.cache == str(folder / ".nbgrader-cache")
    assert student_setup.set_up("alice", folder, str(tmp_path / "exchange")) == (path, False)  # idempotent
    assert "Exchange.root" not in student_setup.config_text("bob", None, folder)  # nbgrader's default
    # one id rule: a capital is the hub's lower-case login, as in rosters and keys (issue 31's carol)
    carol, _ = student_setup.set_up("Carol.Smith", tmp_path / "carol", None)
    assert PyFileConfigLoader(carol.name, path=str(carol.parent)).load_config().CourseDirectory.student_id == "carol.smith"
    for bad in ["", "a+b", "*", "../x", "two words", "-dash", "x" * 65]:
        with pytest.raises(ValueError, match="student_id"):
            student_setup.set_up(bad, tmp_path / "bad")
    with pytest.raises(TypeError, match="student_id"):
        student_setup.check_student_id(7)
    assert not (tmp_path / "bad").exists()
    done = subprocess.run([str(Path(sys.executable).parent / "mwm-student"), "a+b"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "student_id 'a+b' cannot be used" in done.stderr


def test_a_term_resubmissions_deleted_cells_unreadable_notebooks_names_and_typos(tmp_path):
    """Issue 31's term, with the README's commands: every student gets the grade their work earns, and a word.

    alice works without MWM_STUDENT (her notebook takes her id from her nbgrader config); bob
    hands in a blank notebook, is graded, then submits full marks again, which ``nbgrader collect
    --update`` and a second ``make grade`` must grade; carol deletes a part's answer and hand-in
    cells (nbgrader alone stopped her whole grading with KeyError); dan's notebook is not JSON.
    The roster's names reach the gradebook; a student not on it is named by their id; a misspelt
    assignment is refused with a suggestion.
    """
    need_sandbox()
    from nbgrader.api import Gradebook

    readme = (ROOT / "README.md").read_text()
    for command in ("make roster ROSTER=roster.csv", "nbgrader collect --update practice", "make grade",
                    "make grade RETRY_FAILED=1"):
        assert command in readme, f"the README no longer shows {command!r}"
    course, env = _course(tmp_path)
    _run("nbgrader generate_assignment practice", course, env)
    _run(RELEASE, course, env)
    by_id = parts_of(problems_mod.build_all()[0])
    total = sum(q.points for _, q in by_id.values())

    def work(student, change, fetch=True):
        folder = tmp_path / "students" / student
        if fetch:
            _run(f"{STUDENT_SETUP} {student} --dir {shlex.quote(str(folder))}", ROOT, env)
            _run(FETCH, folder, env)
        path = folder / "practice" / "practice.ipynb"
        change(path, parts_of(problems_mod.build_all(numbers_for(student))[0]))
        _run(SUBMIT, folder, env)

    def solved(path, own):
        nbformat.write(solve(nbformat.read(path, as_version=4), own), path)

    def run_notebook(path, own):  # alice runs her notebook, as a student does before submitting
        from nbclient import NotebookClient

        nb = solve(nbformat.read(path, as_version=4), own)
        NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        nbformat.write(nb, path)

    def deleted(path, own):
        nb = solve(nbformat.read(path, as_version=4), own)
        nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") not in
                    ("p05-a-answer", "p05-a-test")]
        nbformat.write(nb, path)

    saved = dict(os.environ)
    os.environ.pop("MWM_STUDENT", None)  # alice's kernel (started from here) has no MWM_STUDENT
    try:
        work("alice", run_notebook)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    work("bob", lambda path, own: None)
    work("carol", deleted)
    work("dan", lambda path, own: path.write_text('{"cells": [ not json'))
    _run(COLLECT, course, env)
    roster = tmp_path / "roster.csv"
    roster.write_text("\ufeffStudent ID,First name,Last name\nAlice,Alice,Liddell\nbob,Bob,Cratchit\ncarol,Carol,Ann\n",
                      encoding="utf-8")
    _run(f"{ROSTER_IMPORT} {shlex.quote(str(roster))} --course {shlex.quote(str(course))}", ROOT, env)

    grade = [str(Path(sys.executable).parent / "mwm-grade"), "practice", "--no-progress"]   # the console script
    first = subprocess.run(grade, cwd=course, env=env, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stdout + first.stderr
    notes = (course / "autograde-logs" / "practice" / "grading-notes.csv").read_text()
    for shown in (first.stdout, notes):
        assert "carol" in shown and "Problem 5 (a)" in shown, shown
        assert "dan" in shown and "could not be read (NotJSONError" in shown, shown
    assert (course / "submitted" / "dan" / "practice" / "practice.ipynb.unreadable").is_file()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE) as gb:
        scores = {s: gb.find_submission("practice", s).score for s in ("alice", "bob", "carol", "dan")}
        assert scores == {"alice": total, "bob": 0, "carol": total - by_id["p05-a"][1].points, "dan": 0}, scores
        names = {s.id: (s.first_name, s.last_name) for s in gb.students}
    assert names == {"alice": ("Alice", "Liddell"), "bob": ("Bob", "Cratchit"), "carol": ("Carol", "Ann"),
                     "dan": ("", "dan")}, names

    work("bob", solved, fetch=False)  # bob submits again, with every answer
    _run("nbgrader collect --update practice --ExchangeCollect.check_owner=False", course, env)
    second = subprocess.run(grade, cwd=course, env=env, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "1 to grade (1 submitted again since graded), 3 graded before" in second.stdout, second.stdout
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE) as gb:
        assert gb.find_submission("practice", "bob").score == total

    typo = subprocess.run([grade[0], "practise"], cwd=course, env=env, capture_output=True, text=True)
    assert typo.returncode == 2 and "Did you mean 'practice'?" in typo.stderr, typo.stderr
