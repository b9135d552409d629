"""The teacher's parallel grading command, grader/mwm_grader/grade_parallel.py, on a real PostgreSQL gradebook.

A class of 8 synthetic submissions (2 correct, each for the student's own numbers; 2 with
parts left unanswered; 1 blank; 3 of tests/test_grading_attacks.py's attackers, one of which
kills its own kernel) is placed in
``submitted/`` of a temporary course. What each student earns is known part by part: a worked
solution gets the part's points, a part left out or an attacker's part 0. The command grades
four of them serially into the SQLite gradebook (``--workers 1``, the default gradebook) and
the whole class with 2 workers into a database of a throwaway PostgreSQL server
(grader/mwm_grader/postgres.py: its own data folder and port, stopped at the end): every part's
grade must be what the answers earn, in both, so the two runs agree wherever both graded.

Then two machines share the job queue (grader/mwm_grader/queue.py): two commands, one per view
of a shared course folder, grade 5 of those students and a broken submission into one database;
one is SIGKILLed (its whole process group) while a student's autograde has started writing its
``autograded/`` folder. The other takes that student back from the queue and grades them, and no
one who was done; nobody is graded twice at once (procrastinate's events); the gradebook holds
one submission per student with the grades the answers earn; the broken submission is retried,
then parked, and a later run skips it.

Skipped with a message where the sandbox (bubblewrap) or PostgreSQL's server programs are
missing, except under MWM_REQUIRE_SANDBOX=1 / MWM_REQUIRE_POSTGRES=1 (CI's .ci/run), where
that is an error.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from mwm_grader import problems as problems_mod
from mwm_grader.variants import numbers_for
from mwm_grader import grade_parallel as gp
from mwm_grader import make_exercises as mk
from mwm_grader.postgres import scratch_postgres, why_no_postgres
from tests.practice_course import ROOT, SOURCE, parts_of, solve

pytestmark = [pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")]

COURSE_ID = "machines-with-memory"
COMMAND = [str(Path(sys.executable).parent / "mwm-grade"), "practice", "--no-progress"]   # the console script
CORRECT = [f"c{i:02d}" for i in range(2)]
#: Students who leave parts unanswered, and which (last parts of their problems: no other part builds on them).
PARTIAL = {"p01": ("p01-c", "p05-c"), "p03": ("p03-e", "p07-d", "p16-d")}
BLANK = ["b00"]
ATTACKERS = ["a2-hooks", "a4-hide", "z2-osexit"]
#: The kill test's class: a few of the same students, and a submission nbgrader cannot read.
KILL_CLASS = ["c00", "c01", "p01", "b00", "a4-hide"]
BROKEN = "zz-broken"
#: The class of the remembered-gradebook test: one full marks and one blank (two: one is graded
#: before its server is stopped in the middle of a run, the other by the next run; partial
#: marks are checked on PostgreSQL by the two-workers test).
REMEMBERED = ["c00", "b00"]
#: The students the serial run grades: one of each kind.
SERIAL = ["c00", "p01", "b00", "a2-hooks"]
CLASS_SIZE = len(CORRECT) + len(PARTIAL) + len(BLANK) + len(ATTACKERS)


def _require(why: str, variable: str, what: str) -> None:
    if why and os.environ.get(variable) == "1":
        raise RuntimeError(f"{variable}=1 but {what} cannot run: {why}")
    if why:
        pytest.skip(f"{what} cannot run here: {why}")


@pytest.fixture(scope="module")
def server():
    """A throwaway PostgreSQL server for this file's tests."""
    from mwm_grader.sandbox import why_no_sandbox

    _require(why_no_sandbox(), "MWM_REQUIRE_SANDBOX", "grading's sandbox")
    _require(why_no_postgres(), "MWM_REQUIRE_POSTGRES", "a PostgreSQL server")
    with scratch_postgres() as srv:
        yield srv


def _env(**extra) -> dict:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=os.pathsep.join([str(ROOT / "lib"), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("MWM_GRADEBOOK_URL", None)
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def classroom(server, tmp_path_factory):
    """A course template with the assignment generated and the class's submissions; the expected scores.

    Returns dict: "course" (Path), "expected" (student -> points), "grades" (student -> (points,
    {grade cell: points}), as :func:`_grades` reads them), "max" (points).
    """
    tmp = tmp_path_factory.mktemp("classroom")
    course = tmp / "course"
    (course / "source").mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / "nbgrader_config.py", course)
    shutil.copytree(SOURCE.parent, course / "source" / "practice")
    mk.generate_assignment(course)
    from tests.test_grading_attacks import ATTACKS

    by_id = parts_of(problems_mod.build_all()[0])
    total = sum(q.points for _, q in by_id.values())
    changes, earned = {}, {}   # earned: student -> the part ids whose points the answers earn
    for s in CORRECT:
        changes[s], earned[s] = (lambda nb, s=s: solve(nb, parts_of(problems_mod.build_all(numbers_for(s))[0]))), set(by_id)
    for s, skip in PARTIAL.items():
        changes[s] = lambda nb, s=s, skip=skip: solve(nb, parts_of(problems_mod.build_all(numbers_for(s))[0]), skip)
        earned[s] = set(by_id) - set(skip)
    for s in BLANK:
        changes[s], earned[s] = (lambda nb: nb), set()
    for s in ATTACKERS:
        changes[s], earned[s] = ATTACKS[s](), set()
    grades = {s: (float(sum(by_id[p][1].points for p in parts)),
                  {f"{p}-test": float(by_id[p][1].points if p in parts else 0) for p in by_id})
              for s, parts in earned.items()}
    expected = {s: points for s, (points, _) in grades.items()}
    release = course / "release" / "practice" / "practice.ipynb"
    for s, change in changes.items():
        nb = nbformat.read(release, as_version=4)
        change(nb)
        _place(course, s, nbformat.writes(nb))
    assert len(changes) == CLASS_SIZE
    return dict(course=course, expected=expected, grades=grades, max=total)


def _place(course: Path, student: str, text: str) -> None:
    """Put a submission where ``nbgrader collect`` puts it: submitted/<student>/practice/."""
    folder = course / "submitted" / student / "practice"
    folder.mkdir(parents=True)
    (folder / "practice.ipynb").write_text(text)
    (folder / "timestamp.txt").write_text("2026-01-01 10:00:00.000000 UTC")


def _copy(classroom, dest: Path, keep=None) -> Path:
    """A copy of the template course in ``dest`` (only the students in ``keep``, if given)."""
    shutil.copytree(classroom["course"], dest)
    if keep is not None:
        for folder in (dest / "submitted").iterdir():
            if folder.name not in keep:
                shutil.rmtree(folder)
    return dest


def _grades(db_url: str, students) -> dict:
    """Student -> (total score, {grade cell: score}) from a gradebook."""
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(db_url, COURSE_ID) as gb:
        for s in students:
            nb = gb.find_submission_notebook("practice", "practice", s)
            out[s] = (gb.find_submission("practice", s).score, {g.name: g.score for g in nb.grades})
    return out


def _submissions_per_student(db_url: str) -> dict:
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT student_id, count(*) FROM submitted_assignment GROUP BY student_id"))
        found = dict(rows.all())
    engine.dispose()
    return found


def _run(course: Path, *args, env=None, expect=0) -> str:
    done = subprocess.run([*COMMAND, *args], cwd=course, env=env or _env(), capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == expect, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def serial(classroom, tmp_path_factory):
    """The students of SERIAL graded by the command with one worker into the default SQLite gradebook: _grades of them."""
    course = _copy(classroom, tmp_path_factory.mktemp("serial") / "course", keep=set(SERIAL))
    out = _run(course, "--workers", "1")
    assert f"graded {len(SERIAL)}, failed 0" in out and "; 1 worker(s) here;" in out, out
    return _grades(f"sqlite:///{course / 'gradebook.db'}", SERIAL)


def test_two_workers_on_postgresql_grade_as_the_serial_run(server, classroom, serial, tmp_path):
    expected, grades = classroom["expected"], classroom["grades"]
    assert serial == {s: grades[s] for s in SERIAL}  # what the answers earn, part by part
    course = _copy(classroom, tmp_path / "course")
    url = server.create_database("two_workers")
    out = _run(course, "--workers", "2", env=_env(MWM_GRADEBOOK_URL=url))
    assert f"graded {CLASS_SIZE}, failed 0" in out and "2 worker(s)" in out, out
    assert _grades(url, expected) == grades  # so the same as the serial run's, for the students both graded
    assert _submissions_per_student(url) == {s: 1 for s in expected}
    # a rerun leaves everyone alone
    again = _run(course, "--workers", "2", env=_env(MWM_GRADEBOOK_URL=url))
    assert f"graded 0, failed 0, graded before (left alone) {CLASS_SIZE}" in again, again


def _record_rows(url: str) -> dict:
    return gp.Record(url, COURSE_ID, "practice").rows()


def test_two_machines_grade_one_class_through_the_queue_and_one_dies_mid_student(server, classroom, tmp_path):
    """Two ``mwm-grade`` processes (two machines: two views of one shared course folder, one database).

    Machine A is SIGKILLed (its whole process group, as a machine going down) while one of its
    students is being graded. Machine B takes that student back from the queue once A's heartbeat
    is three beats old and grades them; the unreadable submission is retried, then parked. Every
    score is what the answers earn (as the serial run gives), nobody is graded twice at once,
    the killed student is graded once more (2 attempts), everyone else once.
    """
    shared = _copy(classroom, tmp_path / "shared" / "course", keep=KILL_CLASS)
    _place(shared, BROKEN, '{"cells": [ this is not a notebook')
    view_b = tmp_path / "machine-b-mount"
    view_b.symlink_to(shared, target_is_directory=True)
    url = server.create_database("machines")
    env = _env(MWM_GRADEBOOK_URL=url)
    args = ["--workers", "1", "--heartbeat", "1", "--max-attempts", "2", "--feedback"]
    a = subprocess.Popen([*COMMAND, *args], cwd=shared, env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    b = subprocess.Popen([*COMMAND, *args], cwd=view_b, env=env, start_new_session=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    try:
        while True:  # until A is grading someone and has begun writing their results
            assert a.poll() is None, "machine A ended before it could be killed"
            assert time.monotonic() < deadline, "machine A graded no one in 10 minutes"
            rows = _record_rows(url) if _has_record(url) else {}
            mine = [s for s, r in rows.items() if r["state"] == "running" and r["host"].endswith(f" pid {a.pid}")
                    and (shared / "autograded" / s / "practice").is_dir()]
            if mine and any(r["state"] == "done" for r in rows.values()):
                break
            time.sleep(0.2)
        os.killpg(a.pid, signal.SIGKILL)
        killed_at = time.time()
    finally:
        if a.poll() is None:
            os.killpg(a.pid, signal.SIGKILL)
        a.wait()
    (killed,) = mine
    out, err = b.communicate(timeout=900)
    assert b.returncode == 1, out[-3000:] + err[-3000:]   # 1: the broken submission is parked
    assert f"FAILED {BROKEN}" in out, out
    rows = _record_rows(url)
    assert {s: r["state"] for s, r in rows.items()} == {**{s: "done" for s in KILL_CLASS}, BROKEN: "failed"}, rows
    assert rows[killed]["attempts"] == 2 and rows[killed]["finished"] > killed_at, rows[killed]
    assert rows[killed]["host"].endswith(f" pid {b.pid}"), rows[killed]
    assert all(rows[s]["attempts"] == 1 for s in KILL_CLASS if s != killed), rows
    assert rows[BROKEN]["attempts"] == 2, rows[BROKEN]          # retried once, then parked
    assert _grades(url, KILL_CLASS) == {s: classroom["grades"][s] for s in KILL_CLASS}
    assert _submissions_per_student(url) == {s: 1 for s in KILL_CLASS} | _broken_submission(url)
    jobs = _queue_jobs(url)
    assert jobs[BROKEN] == ["failed"] and jobs[killed] == ["succeeded"], jobs   # one job each: retried in place
    overlaps = _overlapping_runs(url)
    assert not overlaps, overlaps
    assert {s for s, states in jobs.items() if states != ["succeeded"]} == {BROKEN}, jobs
    # feedback is a job of its own, queued once a student is graded: one page each, none for the parked one
    feedback = _queue_jobs(url, "mwm.feedback")
    assert feedback == {f"{s}/feedback": ["succeeded"] for s in KILL_CLASS}, feedback
    for s in KILL_CLASS:
        page = shared / "feedback" / s / "practice" / "practice.html"
        assert page.is_file() and page.stat().st_mtime > rows[s]["finished"] - 1, s
    assert not (shared / "feedback" / BROKEN).exists()

    # a later run with one attempt allowed skips the parked submission, says so, grades nobody
    out = _run(shared, "--workers", "1", "--heartbeat", "1", "--max-attempts", "1", env=env, expect=1)
    assert f"SKIPPED {BROKEN}" in out and f"graded 0, failed 0, graded before (left alone) {len(KILL_CLASS)}" in out
    assert _record_rows(url)[BROKEN]["attempts"] == 2


def _queue_jobs(url: str, task: str = "mwm.autograde") -> dict:
    """The last part of each job's lock (the student; ``<student>/feedback``) -> the statuses of its ``task`` jobs, oldest first."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT lock, status FROM procrastinate_jobs WHERE task_name = :task ORDER BY id"),
                            {"task": task}).all()
    engine.dispose()
    out: dict = {}
    for lock, status in rows:
        out.setdefault(lock.split("/", 2)[-1], []).append(status)
    return out


def _overlapping_runs(url: str) -> list:
    """Pairs of one student's job runs (from a 'started' event to the next event of that job) that overlap in time."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.connect() as conn:
        events = conn.execute(sa.text(
            "SELECT j.lock, e.job_id, e.type, e.at FROM procrastinate_events e JOIN procrastinate_jobs j "
            "ON j.id = e.job_id WHERE j.task_name = 'mwm.autograde' ORDER BY e.at, e.id")).all()
    engine.dispose()
    runs: dict = {}
    open_runs: dict = {}
    for lock, job, kind, at in events:
        if kind == "started":
            open_runs[job] = (lock, at)
        elif job in open_runs:
            lock0, start = open_runs.pop(job)
            runs.setdefault(lock0, []).append((start, at))
    for lock, start in open_runs.values():
        runs.setdefault(lock, []).append((start, start))
    found = []
    for lock, spans in runs.items():
        spans.sort()
        found += [(lock, x, y) for x, y in zip(spans, spans[1:]) if y[0] < x[1]]
    return found


def _has_record(url: str) -> bool:
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    try:
        return gp.TABLE in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()


def _broken_submission(url: str) -> dict:
    """{BROKEN: n} if nbgrader filed a submission for the unreadable notebook before failing, else {}."""
    found = _submissions_per_student(url).get(BROKEN)
    return {BROKEN: found} if found else {}


def test_bad_arguments_are_named(tmp_path, capsys, monkeypatch):
    """Each bad option is named in one line with exit status 2: the console script for a misspelt assignment,
    the command's ``main`` in this process for the options (the same code, without a Python start each)."""
    course = tmp_path / "course"
    (course / "source" / "practice").mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / "nbgrader_config.py", course)
    cases = {("--workers", "0"): "--workers must be at least 1",
             ("--heartbeat", "0"): "--heartbeat must be a number of seconds above 0",
             ("--workers", "2"): "--workers 2 needs a database server",
             ("--max-attempts", "0"): "--max-attempts must be at least 1"}
    done = subprocess.run([COMMAND[0], "practise"], cwd=course, env=_env(), capture_output=True, text=True)
    assert done.returncode == 2 and "no assignment 'practise'" in done.stderr and "Did you mean 'practice'?" in \
        done.stderr, done.stderr
    monkeypatch.delenv("MWM_GRADEBOOK_URL", raising=False)
    for args, message in cases.items():
        status = gp.main(["practice", "--course", str(course), "--no-progress", *args])
        stderr = capsys.readouterr().err
        assert status == 2 and message in stderr, (args, stderr[-2000:])
        assert "Traceback" not in stderr
    # without --workers, an SQLite gradebook gets one worker
    done = subprocess.run(COMMAND, cwd=course, env=_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "no submissions of practice" in done.stdout and "(1 worker(s))" in done.stdout


def test_the_courses_config_gives_the_commands_settings_and_an_option_wins(tmp_path, capsys, monkeypatch):
    """``c.GradeSettings`` in the course's nbgrader_config.py (traitlets, nbgrader's way) is read; ``--help-all`` shows it."""
    course = tmp_path / "course"
    (course / "source" / "practice").mkdir(parents=True)
    shutil.copy(ROOT / "exercises" / "nbgrader_config.py", course)
    monkeypatch.delenv("MWM_GRADEBOOK_URL", raising=False)
    assert gp.main(["--help-all"]) == 0
    shown = capsys.readouterr().out
    assert "# c.GradeSettings.heartbeat = 10.0" in shown
    assert "# c.SandboxedKernelManager.sandbox = True" in shown and "# c.SandboxedKernelManager.memory_limit = " in shown
    assert "# c.SandboxedExecute.max_output_per_cell = 100000" in shown
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text() + "\nc.GradeSettings.workers = 2\n")
    assert gp.main(["practice", "--course", str(course), "--no-progress"]) == 2
    assert "--workers 2 needs a database server" in capsys.readouterr().err
    assert gp.main(["practice", "--course", str(course), "--no-progress", "--workers", "1"]) == 0
    assert "(1 worker(s))" in capsys.readouterr().out


def test_a_gradebook_url_becomes_the_queues_address_and_each_student_has_one_lock():
    from mwm_grader import queue

    assert queue.conninfo("postgresql+psycopg://t:pw@db.example.org:5433/grades") == \
        "postgresql://t:pw@db.example.org:5433/grades"
    with pytest.raises(ValueError, match="needs a PostgreSQL gradebook"):
        queue.conninfo("sqlite:///gradebook.db")
    locks = {queue.student_lock(COURSE_ID, "practice", s) for s in ["alice", "bob", "alice"]}
    assert locks == {f"{COURSE_ID}/practice/alice", f"{COURSE_ID}/practice/bob"}


def test_the_readme_shows_the_commands():
    readme = (ROOT / "README.md").read_text()
    for command in ("make grade WORKERS=8", "mwm-grade practice --workers 8",
                    "export MWM_GRADEBOOK_URL=postgresql+psycopg://", "make grade FEEDBACK=1",
                    "--retry-failed", "--max-attempts"):
        assert command in readme, f"the README no longer shows {command!r}"
    for extra, assignment in (([], "practice"), (["ASSIGNMENT=practise"], "practise")):  # make passes the name on
        shown = subprocess.run(["make", "-n", "grade", *extra], cwd=ROOT, capture_output=True, text=True, check=True)
        assert f'mwm-grade "{assignment}"' in shown.stdout, shown.stdout


def test_a_rerun_grades_whoever_is_not_done_within_the_attempts():
    rows = {"done": {"state": "done", "attempts": 1}, "killed": {"state": "running", "attempts": 1},
            "failed": {"state": "failed", "attempts": 2}, "spent": {"state": "failed", "attempts": 3}}
    students = ["new", *rows]
    p = gp.plan(students, rows, force=False, max_attempts=3)
    assert (p.todo, p.done, p.gave_up) == (["new", "killed", "failed"], ["done"], ["spent"])
    p = gp.plan(students, rows, force=True, max_attempts=3)
    assert (p.todo, p.done, p.gave_up) == (["new", "done", "killed", "failed"], [], ["spent"])
    p = gp.plan(students, rows, force=False, max_attempts=1)
    assert (p.todo, p.gave_up) == (["new"], ["killed", "failed", "spent"])


def _one_line_error(done, expect: str):
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("INFO  [alembic")]
    assert len(lines) == 1 and expect in lines[0] and "Traceback" not in done.stderr, done.stderr[-3000:]


def test_the_courses_own_gradebook_server_is_remembered_and_its_errors_are_one_line(classroom, tmp_path):
    """make gradebook-db on a machine without sudo; later commands find it; a stopped server is one line."""
    import sqlalchemy as sa

    from mwm_grader import gradebook_db

    course = _copy(classroom, tmp_path / "course", keep=set(REMEMBERED))
    url = gradebook_db.start(course)
    assert (course / ".gradebook-url").read_text().strip() == url and "?host=" in url
    assert (course / ".gradebook-url").stat().st_mode & 0o777 == 0o600  # it names the gradebook's user and address
    try:
        out = _run(course, "--workers", "2")  # no MWM_GRADEBOOK_URL: the remembered gradebook
        assert f"graded {len(REMEMBERED)}, failed 0" in out and "gradebook postgresql" in out, out
        exported = subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "export"], cwd=course, env=_env(),
                                  capture_output=True, text=True, timeout=300)
        assert exported.returncode == 0, exported.stderr[-2000:]
        rows = (course / "grades.csv").read_text().strip().splitlines()
        assert len(rows) == 1 + len(REMEMBERED), rows  # the remembered PostgreSQL gradebook, not the template's empty gradebook.db
        wrong = url.replace("/mwm_gradebook?", "/mwm_gradebok?")
        done = subprocess.run(COMMAND, cwd=course, env=_env(MWM_GRADEBOOK_URL=wrong), capture_output=True, text=True,
                              timeout=300)
        _one_line_error(done, "cannot reach the gradebook")

        # the server stops in the middle of a run: one line; the next run finishes the class
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.execute(sa.text("DELETE FROM mwm_autograde"))
        engine.dispose()
        run = subprocess.Popen([*COMMAND, "--workers", "1"], cwd=course, env=_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
            with engine.connect() as conn:
                done_count = conn.execute(sa.text("SELECT count(*) FROM mwm_autograde WHERE state = 'done'")).scalar()
            engine.dispose()
            if done_count >= 1:
                break
            time.sleep(0.5)
        gradebook_db.stop(course)
        out, err = run.communicate(timeout=300)
        _one_line_error(subprocess.CompletedProcess(run.args, run.returncode, out, err), "stopped answering during the run")
        # with the server stopped, nbgrader's own commands say so in one line too (the course's config)
        roster = tmp_path / "roster.csv"
        roster.write_text("student_id\nc00\n", encoding="utf-8")
        for command in (["nbgrader", "export"],
                        ["mwm-roster", str(roster), "--course", str(course)]):
            done = subprocess.run([str(Path(sys.executable).parent / command[0]), *command[1:]], cwd=course, env=_env(),
                                  capture_output=True, text=True, timeout=300)
            _one_line_error(done, "gradebook server is not running")
    finally:
        gradebook_db.start(course)
    out = _run(course)
    assert "graded 0" not in out and "failed 0" in out, out
    assert _grades(url, REMEMBERED) == {s: classroom["grades"][s] for s in REMEMBERED}
    gradebook_db.stop(course)


def test_a_new_gradebook_is_made_at_nbgraders_revision_and_only_an_older_one_is_migrated(tmp_path):
    """migrate_gradebook: nbgrader's tables and the revision nbgrader's own alembic command names; no migration at it."""
    import sqlalchemy as sa
    from nbgrader.api import Gradebook, get_alembic_version

    mk.venv_on_path()
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    assert mk.migrate_gradebook(url) is False  # a new gradebook: made here
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all() == \
            [get_alembic_version()]  # what nbgrader stamps (it asks the alembic command)
    with Gradebook(url, COURSE_ID) as gb:  # nbgrader reads it as its own
        gb.update_or_create_student("c00")
    own = f"sqlite:///{tmp_path / 'nbgrader.db'}"
    with Gradebook(own, COURSE_ID):
        pass
    assert sa.inspect(sa.create_engine(own)).get_table_names() == sa.inspect(engine).get_table_names()
    assert mk.migrate_gradebook(url) is False  # at nbgrader's revision: left alone
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = 'older'"))
    assert mk.migrate_gradebook(url) is True   # an older one: the caller migrates it
    engine.dispose()
