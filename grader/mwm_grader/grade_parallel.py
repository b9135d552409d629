"""Grade every collected submission of an assignment: on one machine or many, through a kept job queue.

Usage, from the course folder (``exercises/``), or ``make grade [WORKERS=n]``::

    mwm-grade practice [--workers N] [--force] [--max-attempts 3] [--retry-failed] [--feedback]
    mwm-grade --help-all     # the options, and the settings nbgrader_config.py can give (c.GradeSettings)

Each student is graded by nbgrader's own command, ``nbgrader autograde <assignment> --student
<id> --force``, in a process of its own (forked from a process that has imported nbgrader once,
which saves about 3 s of CPU per student). A progress bar shows the students done out of the
total and the failures; a summary follows.

The gradebook is the course's ``CourseDirectory.db_url`` (``exercises/nbgrader_config.py``
takes it from ``MWM_GRADEBOOK_URL``; nbgrader's default is the SQLite file ``gradebook.db``).
Before grading, this command creates the gradebook's tables (nbgrader's, at its newest
revision) or migrates an older gradebook (nbgrader's ``dbutil.upgrade``, what ``nbgrader db
upgrade`` runs), adds the assignment from ``source/`` if the gradebook lacks it, and adds every
student: nbgrader would otherwise create them from several processes at once, which races.

* **With PostgreSQL** (``postgresql+psycopg://user@host/dbname``) students are graded through a
  job queue kept in the same database (procrastinate; :mod:`mwm_grader.queue`): this command
  queues every student not yet graded (unless a job already waits or runs for them), then works
  on the queue with ``--workers`` jobs at once (default: the machine's cores) until no student
  of the assignment waits or is being graded anywhere. Run the same command on every machine
  that shares the course folder and the database: each takes the next student, so the
  slowest machine does not set the finish. A student is never graded twice at once; a machine
  that dies (its worker silent for three ``--heartbeat`` periods, 10 s each) loses its student
  back to the queue, and another machine grades them.
* **With SQLite** (one writer) the students are graded one after another, here.

What has been graded is recorded in a table of the same database, ``mwm_autograde`` (one row
per course, assignment and student: state, attempts, when, where). A student is marked
``running`` before their autograde starts, and ``done`` only after it exits with status 0.
A rerun grades every student not marked ``done`` (with nbgrader's ``--force``, so a half-written
``autograded/`` folder left by a killed worker is replaced) and leaves the others alone
(``--force`` here regrades everyone). An autograde that exits with an error, or whose process
dies, marks the student ``failed``; every start counts as an attempt, a failure is retried while
attempts are left, and a student who has used ``--max-attempts`` attempts (3) is parked: skipped
and listed until the command runs with ``--retry-failed``.

A student who submits again after being graded (``nbgrader collect --update`` replaces their
folder) is graded again: the record keeps a fingerprint of the submission it graded.

What could not be graded as handed in (a notebook that was not JSON, deleted cells: see
:class:`mwm_grader.judge.RestoreDeletedCells`) and every failure are listed in the summary,
one line each, and in ``autograde-logs/<assignment>/grading-notes.csv``, to send on.

A gradebook on PostgreSQL is remembered in ``.gradebook-url`` in the course folder, which the
course's config reads when ``MWM_GRADEBOOK_URL`` is unset.

Exit status: 0 when every student is graded, 1 when some failed or were skipped after too many
attempts, 2 for bad arguments, 3 when the gradebook cannot be reached.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import COURSE_ROOT  # noqa: E402

ROOT = COURSE_ROOT

#: The completion record's table, in the gradebook's database.
TABLE = "mwm_autograde"
#: Where each student's autograde output is kept, in the course folder.
LOG_FOLDER = "autograde-logs"
#: Longest wall time, in seconds, one nbgrader command for one student may take before it is killed
#: (and counted as a failed attempt): far above a graded kernel's own time limit.
STUDENT_TIMEOUT = 1800


class UsageError(ValueError):
    """A bad argument; the message names it."""


class GradebookError(RuntimeError):
    """The gradebook's database cannot be reached, or stopped answering; the message says what to do."""


def _database_errors():
    import psycopg
    import sqlalchemy.exc
    from procrastinate.exceptions import ConnectorException

    return (sqlalchemy.exc.OperationalError, sqlalchemy.exc.InterfaceError, sqlalchemy.exc.ProgrammingError,
            psycopg.OperationalError, ConnectorException)


def _first_line(exc) -> str:
    source = getattr(exc, "orig", None) or (exc.__cause__ if type(exc).__name__ == "ConnectorException" else None) or exc
    text = str(source).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def check_workers(workers: int, db_url: str) -> None:
    """Refuse a worker count the gradebook cannot take.

    Raises:
        UsageError: ``workers`` < 1, or > 1 with an SQLite gradebook (one writer at a time).
    """
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    if workers > 1 and db_url.startswith("sqlite"):
        raise UsageError(f"--workers {workers} needs a database server: the gradebook is SQLite ({db_url}), "
                         "which one process at a time may write. Set MWM_GRADEBOOK_URL=postgresql+psycopg://... "
                         "(README, 'Grading a large class'), or use --workers 1")


def submitted_students(course: Path, assignment: str) -> list[str]:
    """The ids of the students with a collected submission (``submitted/<id>/<assignment>/``), sorted."""
    folder = course / "submitted"
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / assignment).is_dir())


def _grade_settings_class():
    from traitlets import Bool, Float, Integer
    from traitlets.config import Configurable

    class GradeSettings(Configurable):
        """How ``mwm-grade`` grades: set in the course's ``nbgrader_config.py`` (``c.GradeSettings.heartbeat = 5``);
        an option on the command line wins."""

        workers = Integer(None, allow_none=True,
                          help="Autograde processes at once on this machine (None: the machine's cores with "
                               "PostgreSQL, 1 with SQLite).").tag(config=True)
        max_attempts = Integer(3, help="Attempts after which a failing student is parked.").tag(config=True)
        heartbeat = Float(10.0, help="Seconds between a machine's heartbeats; a machine silent for three loses "
                                     "its students to the others.").tag(config=True)
        feedback = Bool(False, help="Also generate each graded student's feedback, as a job of its own.").tag(config=True)

    return GradeSettings


def own_settings(cls) -> str:
    """The settings ``cls`` adds to its parents, as lines of a config file: help, default, ``# c.<cls>.<name> = ...``."""
    import textwrap

    lines = []
    for name, trait in sorted(cls.class_own_traits(config=True).items()):
        lines += ["## " + "\n#  ".join(textwrap.wrap(trait.help, 96)),
                  f"#  Default: {trait.default_value_repr()}",
                  f"# c.{cls.__name__}.{name} = {trait.default_value_repr()}", ""]
    return "\n".join(lines) + "\n"


def grade_settings(course: Path):
    """The course's :class:`GradeSettings` (traitlets), read from ``course/nbgrader_config.py`` (defaults without one)."""
    from mwm_grader import make_exercises as mk

    config = mk.course_config(course) if (Path(course) / "nbgrader_config.py").is_file() else None
    return _grade_settings_class()(config=config)


def course_settings(course: Path, db_url: str | None = None) -> tuple[str, str]:
    """The course's gradebook URL and course id, as nbgrader reads them from ``course/nbgrader_config.py``.

    ``db_url``, if given, replaces the configured URL. Returns (db_url, course_id).
    """
    from nbgrader.coursedir import CourseDirectory

    from mwm_grader import make_exercises as mk

    config = mk.course_config(course)
    if db_url:
        config.CourseDirectory.db_url = db_url
    cd = CourseDirectory(config=config)
    return cd.db_url, cd.course_id


def _record_table(metadata):
    import sqlalchemy as sa

    return sa.Table(
        TABLE, metadata,
        sa.Column("course", sa.String(128), primary_key=True),
        sa.Column("assignment", sa.String(128), primary_key=True),
        sa.Column("student", sa.String(128), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),   # running, done, failed
        sa.Column("attempts", sa.Integer, nullable=False, default=0),
        sa.Column("host", sa.String(255)),
        sa.Column("started", sa.Float),    # Unix time, seconds
        sa.Column("finished", sa.Float),
        sa.Column("seconds", sa.Float),    # wall seconds of the last attempt
        sa.Column("message", sa.Text),
        sa.Column("submission", sa.String(64)))  # the graded submission's fingerprint (submission_fingerprint)


class Record:
    """The completion record: one row per (course, assignment, student) in the gradebook's database.

    Args:
        db_url: SQLAlchemy URL of the gradebook.
        course_id, assignment: the rows' course and assignment.
    """

    def __init__(self, db_url: str, course_id: str, assignment: str):
        import sqlalchemy as sa

        self.engine = sa.create_engine(db_url, future=True)
        self.table = _record_table(sa.MetaData())
        self.table.metadata.create_all(self.engine)
        columns = {c["name"] for c in sa.inspect(self.engine).get_columns(TABLE)}
        if "submission" not in columns:  # a record made before resubmissions were tracked
            with self.engine.begin() as conn:
                conn.execute(sa.text(f"ALTER TABLE {TABLE} ADD COLUMN submission VARCHAR(64)"))
        self.key = dict(course=course_id, assignment=assignment)
        self.lock = threading.Lock()

    def rows(self) -> dict[str, dict]:
        """Student id -> that student's row (a dict of the columns)."""
        import sqlalchemy as sa

        t = self.table
        with self.engine.connect() as conn:
            found = conn.execute(sa.select(t).where(t.c.course == self.key["course"],
                                                    t.c.assignment == self.key["assignment"]))
            return {r.student: dict(r._mapping) for r in found}

    def _write(self, student: str, **values) -> None:
        import sqlalchemy as sa

        t = self.table
        where = (t.c.course == self.key["course"]) & (t.c.assignment == self.key["assignment"]) & (t.c.student == student)
        with self.lock, self.engine.begin() as conn:
            if conn.execute(sa.update(t).where(where).values(**values)).rowcount == 0:
                conn.execute(sa.insert(t).values(**self.key, student=student, **{"attempts": 0, **values}))

    def start(self, student: str, attempts: int, submission: str | None = None) -> None:
        """Mark ``student`` running, on its ``attempts``-th attempt (int, from 1), grading ``submission`` (a fingerprint).

        ``host`` records where: the machine's name and the grading process's id."""
        self._write(student, state="running", attempts=attempts, host=f"{socket.gethostname()} pid {os.getpid()}",
                    started=time.time(), finished=None, seconds=None, message=None, submission=submission)

    def finish(self, student: str, ok: bool, seconds: float, message: str = "") -> None:
        """Mark ``student`` done (``ok``) or failed, after ``seconds`` of wall time, with ``message``."""
        self._write(student, state="done" if ok else "failed", finished=time.time(), seconds=seconds,
                    message=message or None)

    def reset_attempts(self, students) -> None:
        """Set the attempts of ``students`` (ids) back to 0 (``--retry-failed``)."""
        for student in students:
            self._write(student, attempts=0)


def prepare_gradebook(course: Path, db_url: str, course_id: str, assignment: str, students, queue_app=None) -> None:
    """Create and migrate the gradebook, and add the assignment and ``students``, before any worker starts.

    A new gradebook gets nbgrader's tables, stamped with nbgrader's newest alembic revision;
    an older one is migrated by ``nbgrader.dbutil.upgrade`` (what ``nbgrader db upgrade`` runs);
    one at the newest revision is left alone (:func:`mwm_grader.make_exercises.migrate_gradebook`). A gradebook without
    the assignment gets it from ``source/`` with nbgrader's ``generate_assignment`` into a scratch
    folder (``release/`` is not touched). With ``queue_app`` (a procrastinate App, :mod:`mwm_grader.queue`)
    the job queue's tables are created too, if missing. On PostgreSQL this runs under an advisory lock, so that
    machines started at the same moment do it in turn.

    Raises:
        RuntimeError: generate_assignment failed.
        sqlalchemy.exc.OperationalError: the database cannot be reached.
    """
    import sqlalchemy as sa

    if db_url.startswith("postgresql"):  # machines starting at once prepare one after another
        engine = sa.create_engine(db_url, poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT pg_advisory_lock(:key)"), {"key": ADVISORY_LOCK})
            try:
                _prepare(course, db_url, course_id, assignment, students)
                if queue_app is not None:
                    from . import queue

                    queue.ensure_schema(queue_app, db_url)
            finally:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_LOCK})
        engine.dispose()
    else:
        _prepare(course, db_url, course_id, assignment, students)


#: PostgreSQL advisory lock held while a run prepares the gradebook (any fixed number).
ADVISORY_LOCK = 0x6D776D16


def _prepare(course: Path, db_url: str, course_id: str, assignment: str, students) -> None:
    from nbgrader import dbutil
    from nbgrader.api import Gradebook, MissingEntry

    from mwm_grader import make_exercises as mk

    mk.venv_on_path()  # nbgrader runs the alembic command, which sits beside python
    if mk.migrate_gradebook(db_url):  # an older gradebook: as before, nbgrader adds missing tables, then migrates
        with Gradebook(db_url, course_id):
            pass
        dbutil.upgrade(db_url)
    with Gradebook(db_url, course_id) as gb:
        try:
            gb.find_assignment(assignment)
            known = True
        except MissingEntry:
            known = False
    if not known:
        scratch = ".mwm-gradebook-release"
        api = mk.course_api(course, **{"CourseDirectory.db_url": db_url, "CourseDirectory.release_directory": scratch})
        try:
            mk.nbgrader_ok(api.generate_assignment(assignment, force=True), "generate_assignment")
        finally:
            shutil.rmtree(course / scratch, ignore_errors=True)
    with Gradebook(db_url, course_id) as gb:
        for student in students:
            gb.update_or_create_student(student)


@dataclass
class Outcome:
    """One student's autograde: ``ok`` (exit status 0), wall ``seconds``, the output's last lines, CPU seconds."""

    student: str
    ok: bool
    seconds: float
    message: str = ""
    cpu_seconds: float = 0.0   # of the student's process and the kernels it waited for (0 if it died)


#: Imported once by the fork server, so that each student's process starts without importing them.
PRELOAD = ["nbgrader.apps.nbgraderapp", "nbgrader.converters", "nbgrader.preprocessors", "mwm_grader.judge",
           "mwm_grader.sandbox", "sqlalchemy", "psycopg", "mwm_grader.grade_parallel"]
_forkserver = None


def _context():
    """The multiprocessing context whose fork server has nbgrader imported (made on first use)."""
    global _forkserver
    if _forkserver is None:
        import multiprocessing

        _forkserver = multiprocessing.get_context("forkserver")
        _forkserver.set_forkserver_preload(PRELOAD)
    return _forkserver


def _nbgrader_child(course: str, argv: list, log_path: str, env: dict, cpu_pipe) -> None:
    """In the student's process: run the ``nbgrader`` command line ``argv`` in ``course``, output to ``log_path``.

    Sends its CPU seconds (its own and its waited-for children's, user + system) through ``cpu_pipe``.
    """
    os.chdir(course)
    os.environ.clear()
    os.environ.update(env)
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.argv = ["nbgrader", *argv]
    from nbgrader.apps.nbgraderapp import main as nbgrader_main

    try:
        sys.exit(nbgrader_main())
    finally:
        cpu_pipe.send(sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                          for f in ("ru_utime", "ru_stime")))


def grading_env() -> dict:
    """This process's environment with its interpreter's folder first on ``PATH`` (nbgrader runs alembic from there)."""
    return dict(os.environ, PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))


def nbgrader_one(course: Path, argv: list, log_name: str, env: dict) -> Outcome:
    """Run the ``nbgrader`` command line ``argv`` in ``course``, in a process of its own.

    The process is nbgrader's own command line (``nbgrader.apps.nbgraderapp.main``, what the
    ``nbgrader`` command runs), forked from a server process that has imported nbgrader once
    (multiprocessing's "forkserver"): a fresh ``nbgrader`` command spends about 3 s of CPU on
    imports alone. Its output goes to ``course/autograde-logs/<assignment>/<log_name>.log``
    (the assignment is ``argv[1]``). Returns an Outcome (its ``student`` is ``log_name``); a
    process that exits non-zero or dies (killed by a signal) is not ok.
    """
    logs = Path(course) / LOG_FOLDER / argv[1]
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / f"{log_name}.log"
    start = time.perf_counter()
    receive, send = _context().Pipe(duplex=False)
    process = _context().Process(target=_nbgrader_child, args=(str(course), list(argv), str(log), env, send),
                                 name=f"nbgrader-{log_name}")
    process.start()
    send.close()
    process.join(timeout=STUDENT_TIMEOUT)
    if process.is_alive():   # nbgrader itself hung (a kernel's own limits are the sandbox's): stop it
        process.kill()
        process.join()
    status = process.exitcode
    seconds = time.perf_counter() - start
    cpu = receive.recv() if receive.poll() else 0.0
    receive.close()
    if status == 0:
        return Outcome(log_name, True, seconds, cpu_seconds=cpu)
    why = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
    return Outcome(log_name, False, seconds, f"{why}: {cause(log)}", cpu)


def autograde_one(course: Path, assignment: str, student: str, db_url: str, env: dict) -> Outcome:
    """Run ``nbgrader autograde <assignment> --student <student> --force`` in ``course`` (:func:`nbgrader_one`).

    Its output goes to ``course/autograde-logs/<assignment>/<student>.log``.
    """
    argv = ["autograde", assignment, "--student", student, "--force", f"--CourseDirectory.db_url={db_url}"]
    return nbgrader_one(course, argv, student, env)


_EXCEPTION = re.compile(r"^\s*((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Missing\w*)"
                        r"(?::.*)?)$")


def cause(log: Path) -> str:
    """One line saying why an autograde failed: the last exception its log names, else its last lines."""
    lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
    found = [m.group(1).strip() for line in lines if (m := _EXCEPTION.match(line))]
    if found:
        return found[-1][:300]
    return " | ".join(line.strip() for line in lines[-3:])[-300:] or "no output"


@dataclass
class Plan:
    """Which students a run grades, and which it leaves: lists of ids."""

    todo: list = field(default_factory=list)
    done: list = field(default_factory=list)
    gave_up: list = field(default_factory=list)
    resubmitted: list = field(default_factory=list)  # in todo: submitted again since graded


def submission_fingerprint(course: Path, assignment: str, student: str) -> str:
    """A fingerprint of ``student``'s collected submission: sha256 of its files' names and bytes (hex, 64).

    ``nbgrader collect --update`` replaces the folder when the student submits again, so a new
    fingerprint means a submission not yet graded.
    """
    import hashlib

    folder = course / "submitted" / student / assignment
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(os.fsencode(path.relative_to(folder)) + b"\0")   # any name a file system allows
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def plan(students, rows: dict, force: bool, max_attempts: int, fingerprints: dict | None = None) -> Plan:
    """Split ``students`` by their completion rows (see Record.rows).

    Graded: those without a ``done`` row for the submission they have now (all with ``force``;
    a student who submitted again since, by ``fingerprints`` (id -> fingerprint), is graded
    again), unless they have used ``max_attempts`` attempts on it (then ``gave_up``).
    """
    p = Plan()
    fingerprints = fingerprints or {}
    for s in students:
        row = rows.get(s)
        resubmitted = bool(row and fingerprints.get(s) and row.get("submission")
                           and row["submission"] != fingerprints[s])
        if row and row["state"] == "done" and not force and not resubmitted:
            p.done.append(s)
        elif resubmitted:
            p.todo.append(s)
            p.resubmitted.append(s)
        elif row and row["state"] != "done" and row["attempts"] >= max_attempts:
            p.gave_up.append(s)
        else:
            p.todo.append(s)
    return p


def grade(course: Path, assignment: str, workers: int | None = None, force=False, max_attempts=3,
          retry_failed=False, db_url=None, progress=True, out=None, heartbeat: float = 10.0,
          feedback: bool = False) -> dict:
    """Grade the submissions of ``assignment`` in ``course``: with PostgreSQL through the job queue, else one by one.

    Args:
        course: the course folder (holds nbgrader_config.py and submitted/).
        assignment: the assignment's id ("practice").
        workers: autograde processes at once on this machine (>= 1; > 1 needs a PostgreSQL
            gradebook); None: the machine's cores with PostgreSQL, 1 with SQLite.
        force: regrade students already recorded done.
        max_attempts: attempts (int >= 1) after which a failing student is parked.
        retry_failed: give the parked students new attempts.
        db_url: the gradebook's SQLAlchemy URL; default the course's (MWM_GRADEBOOK_URL or gradebook.db).
        progress: show a tqdm progress bar (on stderr).
        out: where the summary is written.
        heartbeat: seconds between a worker's heartbeats (PostgreSQL); a worker silent for three
            loses its student to the queue.
        feedback: also generate each graded student's feedback (a job of its own).
    Returns:
        dict: "graded", "failed" (id -> message), "done_before", "gave_up" (lists of ids),
        "seconds" (wall, float), "cpu_seconds" (of this machine's autograde processes, float).
    Raises:
        UsageError: bad workers, max_attempts, heartbeat, or no such course folder or assignment.
        GradebookError: the gradebook cannot be reached.
    """
    out = out or sys.stdout   # looked up now: a stream saved at import may be closed since
    course = Path(course).resolve()
    if not (course / "nbgrader_config.py").is_file():
        raise UsageError(f"--course: {course} holds no nbgrader_config.py (run the command from the course folder)")
    if max_attempts < 1:
        raise UsageError(f"--max-attempts must be at least 1, got {max_attempts}")
    if not heartbeat > 0:
        raise UsageError(f"--heartbeat must be a number of seconds above 0, got {heartbeat}")
    assignments = sorted(p.name for p in (course / "source").iterdir() if p.is_dir()) \
        if (course / "source").is_dir() else []
    if assignment not in assignments:
        import difflib

        near = difflib.get_close_matches(assignment, assignments, n=1)
        hint = f" Did you mean {near[0]!r}?" if near else (f" The course has: {', '.join(assignments)}."
                                                           if assignments else "")
        raise UsageError(f"no assignment {assignment!r} in {course / 'source'}.{hint}")
    db_url, course_id = course_settings(course, db_url)
    queued = not db_url.startswith("sqlite")
    if workers is None:
        workers = os.cpu_count() or 1 if queued else 1
    check_workers(workers, db_url)
    students = submitted_students(course, assignment)
    if not students:
        print(f"no submissions of {assignment} in {course / 'submitted'} ({workers} worker(s)): nothing to "
              "grade (nbgrader collect puts them there)", file=out, flush=True)
        return dict(graded=[], failed={}, done_before=[], gave_up=[], seconds=0.0, cpu_seconds=0.0, resubmitted=[],
                    notes={}, notes_file=None)
    env = grading_env()
    app = None
    if queued:
        from . import queue

        app = queue.make_app(db_url, course, course_id)
    try:
        prepare_gradebook(course, db_url, course_id, assignment, students, queue_app=app)
        record = Record(db_url, course_id, assignment)
        rows = record.rows()
    except _database_errors() as exc:
        raise GradebookError(f"cannot reach the gradebook at {_safe(db_url)}: {_first_line(exc)}. Is its server "
                             "running (`make gradebook-db`, or the system's PostgreSQL), and is the database name "
                             "right? (README, 'Grading a large class')") from None
    if queued:
        remember_gradebook(course, db_url)
    if retry_failed:
        record.reset_attempts([s for s in students if s in rows and rows[s]["state"] != "done"])
        rows = record.rows()
    fingerprints = {s: submission_fingerprint(course, assignment, s) for s in students}
    p = plan(students, rows, force, max_attempts, fingerprints)
    again = f" ({len(p.resubmitted)} submitted again since graded)" if p.resubmitted else ""
    print(f"{len(students)} submissions of {assignment}: {len(p.todo)} to grade{again}, {len(p.done)} "
          f"graded before, {len(p.gave_up)} skipped after {max_attempts} failed attempts; {workers} worker(s) here; "
          f"gradebook {_safe(db_url)}" + (", job queue on it" if queued else ""), file=out, flush=True)
    start_wall, start = time.time(), time.perf_counter()
    try:
        if queued:
            cpu = _grade_through_queue(app, record, course_id, assignment, p, fingerprints, workers, max_attempts,
                                       heartbeat, feedback, progress)
        else:
            cpu = _grade_one_by_one(course, assignment, record, rows, p, fingerprints, db_url, env, progress)
    except KeyboardInterrupt:
        print("interrupted: run the command again to grade the students not done", file=out, flush=True)
        raise
    except _database_errors() as exc:
        raise GradebookError(f"the gradebook at {_safe(db_url)} stopped answering during the run ({_first_line(exc)}); "
                             "the students graded so far are recorded. Run the command again once the "
                             "database is back: it grades the students not done, and nobody twice") from None
    rows = record.rows()
    finished = {s: rows[s] for s in p.todo if s in rows and (rows[s].get("finished") or 0) >= start_wall - 1}
    graded = sorted(s for s, r in finished.items() if r["state"] == "done")
    failed = {s: r.get("message") or "failed" for s, r in finished.items() if r["state"] == "failed"}
    result = dict(graded=graded, failed=failed, done_before=p.done, gave_up=p.gave_up,
                  seconds=time.perf_counter() - start, cpu_seconds=cpu, resubmitted=p.resubmitted,
                  notes=grading_notes(course, assignment, students))
    result["notes_file"] = write_notes_file(course, assignment, result)
    summarize(result, max_attempts, out)
    return result


def _grade_one_by_one(course, assignment, record, rows, p, fingerprints, db_url, env, progress) -> float:
    """An SQLite gradebook (one writer): the students of ``p.todo`` graded in turn, here. Returns CPU seconds."""
    from tqdm import tqdm

    cpu, failed = 0.0, 0

    def first_try(s):
        row = rows.get(s, {})
        return row.get("state") == "done" or (row.get("submission") or fingerprints[s]) != fingerprints[s]

    with tqdm(total=len(p.todo), unit="student", disable=not progress or not p.todo, file=sys.stderr) as bar:
        bar.set_postfix(failed=0)
        for s in p.todo:
            attempts = (0 if first_try(s) else rows.get(s, {}).get("attempts", 0)) + 1
            record.start(s, attempts, fingerprints[s])
            outcome = autograde_one(course, assignment, s, db_url, env)
            record.finish(s, outcome.ok, outcome.seconds, outcome.message)
            cpu += outcome.cpu_seconds
            failed += not outcome.ok
            bar.set_postfix(failed=failed)
            bar.update()
    return cpu


def _grade_through_queue(app, record, course_id, assignment, p, fingerprints, workers, max_attempts, heartbeat,
                         feedback, progress) -> float:
    """The students of ``p.todo`` queued (unless already waiting or running), then worked on with the other machines.

    Returns the CPU seconds of the autograde processes this machine ran."""
    from tqdm import tqdm

    from . import queue

    with app.open():
        waiting = queue.pending(app, course_id, assignment)
        for s in p.todo:
            if s not in waiting:
                queue.defer_autograde(app, course_id, assignment, s, fingerprints[s], max_attempts, feedback)
    stop = threading.Event()
    started = time.time()

    def watch(bar):
        while not stop.wait(0.5):
            try:
                rows = record.rows()
            except _database_errors():   # the run itself says so
                continue
            done = [s for s in p.todo if (rows.get(s, {}).get("finished") or 0) >= started
                    and rows[s]["state"] in ("done", "failed")]
            bar.set_postfix(failed=sum(rows[s]["state"] == "failed" for s in done))
            bar.n = len(done)
            bar.refresh()

    with tqdm(total=len(p.todo), unit="student", disable=not progress or not p.todo, file=sys.stderr) as bar:
        watcher = threading.Thread(target=watch, args=(bar,), daemon=True)
        watcher.start()
        try:
            queue.work(app, p.todo, course_id, assignment, workers, heartbeat)
        finally:
            stop.set()
            watcher.join(timeout=5)
    return app.mwm_cpu_seconds


def remember_gradebook(course: Path, db_url: str) -> None:
    """Write ``db_url`` to ``course/.gradebook-url`` (owner-only), which the course's config reads when
    MWM_GRADEBOOK_URL is unset: a later command in a shell without the variable reads the same gradebook."""
    path = course / ".gradebook-url"
    if path.exists() and path.read_text(encoding="utf-8").strip() == db_url:
        return
    from mwm_grader.gradebook_db import write_url

    write_url(path, db_url)


def grading_notes(course: Path, assignment: str, students) -> dict:
    """Student id -> the lines of their grading notes (what could not be graded as handed in), for ``students``."""
    from mwm_grader.judge import NOTES

    found = {}
    for s in students:
        path = course / NOTES.format(assignment=assignment, student=s)
        if path.is_file():
            found[s] = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return found


def write_notes_file(course: Path, assignment: str, result: dict) -> Path | None:
    """``autograde-logs/<assignment>/grading-notes.csv``: student, what, why; one row per note or failure.

    Returns its path, or None (and no file) when nothing is to be said."""
    import csv

    rows = [(s, "not graded", why) for s, why in sorted(result["failed"].items())]
    rows += [(s, "skipped", "failed every attempt; see its log") for s in result["gave_up"]]
    rows += [(s, "graded, with a note", line) for s, lines in sorted(result["notes"].items()) for line in lines]
    path = course / LOG_FOLDER / assignment / "grading-notes.csv"
    if not rows:
        if path.exists():
            path.unlink()
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "what", "why"])
        writer.writerows(rows)
    return path


def _safe(db_url: str) -> str:
    """The URL without its password."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", db_url)


def summarize(result: dict, max_attempts: int, out=None) -> None:
    """Print what a run did (the dict :func:`grade` returns) to ``out``."""
    out = out or sys.stdout   # looked up now: a stream saved at import may be closed since
    n = len(result["graded"]) + len(result["failed"])
    per = f"; {result['seconds'] / n:.2f} s per student (wall)" if n else ""
    if n and result["cpu_seconds"]:
        per += f", {result['cpu_seconds'] / n:.2f} CPU s"
    print(f"graded {len(result['graded'])}, failed {len(result['failed'])}, graded before (left alone) "
          f"{len(result['done_before'])}, skipped {len(result['gave_up'])}; {result['seconds']:.1f} s{per}",
          file=out)
    for student, message in sorted(result["failed"].items()):
        print(f"  FAILED {student}: {message} (log: {LOG_FOLDER}/)", file=out)
    for student in result["gave_up"]:
        print(f"  SKIPPED {student}: failed {max_attempts} times; rerun with --retry-failed (make grade "
              f"RETRY_FAILED=1) after a look at {LOG_FOLDER}/", file=out)
    for student, lines in sorted(result.get("notes", {}).items()):
        for line in lines:
            print(f"  NOTE {student}: {line}", file=out)
    if result.get("notes_file"):
        print(f"  (the list above, to send on: {result['notes_file']})", file=out)
    out.flush()


def main(argv=None) -> int:
    """The command line (see the module's docstring); returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 epilog="--workers, --max-attempts, --heartbeat and --feedback can also be set in the course's "
                                        "nbgrader_config.py (c.GradeSettings.<name>); --help-all shows how.")
    ap.add_argument("assignment", help="the assignment's id, e.g. practice")
    ap.add_argument("--course", default=".", help="the course folder (default: the current folder)")
    ap.add_argument("--db-url", help="the gradebook (default: MWM_GRADEBOOK_URL, else the course's gradebook.db)")
    ap.add_argument("--force", action="store_true", help="regrade students already graded")
    ap.add_argument("--retry-failed", action="store_true", help="give skipped students new attempts")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    ap.add_argument("--workers", type=int,
                    help="autograde processes at once on this machine (default: the machine's cores; 1 with an "
                         "SQLite gradebook)")
    ap.add_argument("--max-attempts", type=int, help="skip a student after this many failures (3)")
    ap.add_argument("--heartbeat", type=float,
                    help="seconds between this machine's heartbeats; a machine silent for three loses its "
                         "students to the others (10)")
    ap.add_argument("--feedback", action="store_const", const=True,
                    help="also generate each graded student's feedback (nbgrader generate_feedback), as a job")
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--help-all" in argv:
        print(ap.format_help())
        print("Settings of the course's nbgrader_config.py (an option above wins):\n")
        from .sandbox import SandboxedExecute, SandboxedKernelManager

        text = (_grade_settings_class().class_config_section() + "\n"
                "The sandbox each graded kernel runs in, and what grading keeps of its outputs (nbgrader's own\n"
                "settings, such as c.Execute.timeout, are listed by `nbgrader autograde --help-all`):\n\n"
                + own_settings(SandboxedKernelManager) + own_settings(SandboxedExecute))
        try:
            print(text, end="")
            sys.stdout.flush()
        except BrokenPipeError:   # `mwm-grade --help-all | head`: the reader stopped reading
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    args = ap.parse_args(argv)
    settings = grade_settings(Path(args.course))

    def chosen(name):
        value = getattr(args, name)
        return getattr(settings, name) if value is None else value

    try:
        result = grade(Path(args.course), args.assignment, chosen("workers"), args.force, chosen("max_attempts"),
                       args.retry_failed, args.db_url, progress=not args.no_progress, heartbeat=chosen("heartbeat"),
                       feedback=chosen("feedback"))
    except UsageError as e:
        print(f"grade_parallel: {e}", file=sys.stderr)
        return 2
    except GradebookError as e:
        print(f"grade_parallel: {e}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    return 1 if result["failed"] or result["gave_up"] else 0


if __name__ == "__main__":
    sys.exit(main())
