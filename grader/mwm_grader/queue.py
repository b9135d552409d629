"""Grading a class through a kept job queue: procrastinate, on the class's PostgreSQL gradebook.

One job per student (task ``mwm.autograde``): nbgrader's own ``autograde <assignment> --student
<id> --force`` in a process of its own (:func:`mwm_grader.grade_parallel.autograde_one`), then the
completion record (:class:`mwm_grader.grade_parallel.Record`). Jobs live in procrastinate's tables
in the gradebook's database, so any machine that shares the course folder and the database and
runs ``mwm-grade`` (or ``make grade``) takes the next student:

* **a student is never graded twice at once**: every job of one student carries the same
  procrastinate ``lock`` (jobs with one lock run one after another); a student is queued only
  if no job of theirs waits or runs, and a job whose student another job graded after it was
  queued (both times from the database's clock) does nothing;
* **a worker that dies loses its student**: each worker writes a heartbeat (``heartbeat``
  seconds); a job whose worker has been silent for three heartbeats goes back to the queue
  (:func:`requeue_stalled`, run by every waiting ``mwm-grade``), and its student is graded again,
  the killed attempt counted;
* **a failure is retried, then parked**: an autograde that fails is retried (procrastinate's
  :class:`~procrastinate.RetryStrategy`, on :class:`Retry`) until the student has used
  ``max_attempts`` attempts, counted in the completion record across runs; then the job fails
  (:class:`Parked`) and the student stays ``failed`` until ``--retry-failed``;
* **a rerun is idempotent**: students graded on their present submission are not queued again;
* feedback is a job too (task ``mwm.feedback``: ``nbgrader generate_feedback --student``),
  queued after a student's autograde succeeds when ``mwm-grade --feedback`` asked for it.
"""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

__all__ = ["QUEUE", "Retry", "Parked", "conninfo", "make_app", "student_lock", "ensure_schema", "pending",
           "defer_autograde", "requeue_stalled", "work"]

#: The queue every grading job goes to.
QUEUE = "mwm-grading"


class Retry(RuntimeError):
    """An autograde failed and the student has attempts left: procrastinate retries the job."""


class Parked(RuntimeError):
    """An autograde failed on the student's last attempt: the job fails and is not retried."""


def conninfo(db_url: str) -> str:
    """The libpq address of a gradebook's SQLAlchemy URL (``postgresql+psycopg://...`` -> ``postgresql://...``).

    Raises:
        ValueError: ``db_url`` is not a PostgreSQL URL (the queue needs PostgreSQL).
    """
    scheme, sep, rest = db_url.partition("://")
    if not sep or scheme.split("+")[0] not in ("postgresql", "postgres"):
        raise ValueError(f"the job queue needs a PostgreSQL gradebook, got {scheme or db_url!r}")
    return f"postgresql://{rest}"


def student_lock(course_id: str, assignment: str, student: str) -> str:
    """The procrastinate lock of one student's autograde jobs: ``course/assignment/student``."""
    return f"{course_id}/{assignment}/{student}"


def make_app(db_url: str, course: Path, course_id: str):
    """A procrastinate App on the gradebook's database, with the grading tasks of ``course``.

    Args:
        db_url: the gradebook's SQLAlchemy URL (PostgreSQL).
        course: this machine's view of the course folder (jobs name no path, so machines may
            mount the shared folder in different places).
        course_id: nbgrader's ``CourseDirectory.course_id``.

    Returns:
        procrastinate.App (not opened); ``app.mwm_cpu_seconds`` adds up the CPU seconds of the
        autograde processes its workers run in this process.
    """
    import logging

    import procrastinate

    from . import grade_parallel as gp

    # the queue's own log (tracebacks of a database that went away, retries) stays out of the
    # teacher's terminal: what happened to each student is in the completion record, the summary
    # and autograde-logs/
    for name in ("procrastinate", "psycopg.pool", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo(db_url), min_size=1, max_size=4,
                                                                  timeout=3))
    env = gp.grading_env()
    records: dict[str, gp.Record] = {}

    def record(assignment: str) -> gp.Record:
        if assignment not in records:
            records[assignment] = gp.Record(db_url, course_id, assignment)
        return records[assignment]

    @app.task(name="mwm.autograde", queue=QUEUE, pass_context=True,
              retry=procrastinate.RetryStrategy(retry_exceptions={Retry}))
    async def autograde(context, assignment: str, student: str, fingerprint: str, max_attempts: int,
                        feedback: bool = False) -> str:
        rec = record(assignment)
        row = (await asyncio.to_thread(rec.rows)).get(student)
        if (row and row["state"] == "done" and row.get("submission") == fingerprint
                and await _graded_since_queued(app, context.job)):
            return "graded since this job was queued"
        first = not row or row["state"] == "done" or (row.get("submission") or fingerprint) != fingerprint
        attempts = 1 if first else row["attempts"] + 1
        if attempts > max_attempts:
            await asyncio.to_thread(rec.finish, student, False, 0.0, f"no attempt left of {max_attempts}")
            raise Parked(f"{student}: no attempt left of {max_attempts}")
        await asyncio.to_thread(rec.start, student, attempts, fingerprint)
        outcome = await asyncio.to_thread(gp.autograde_one, course, assignment, student, db_url, env)
        app.mwm_cpu_seconds += outcome.cpu_seconds
        await asyncio.to_thread(rec.finish, student, outcome.ok, outcome.seconds, outcome.message)
        if not outcome.ok:
            raise (Retry if attempts < max_attempts else Parked)(f"{student}: {outcome.message}")
        if feedback:
            await feedback_task.configure(lock=student_lock(course_id, assignment, student) + "/feedback").defer_async(
                assignment=assignment, student=student)
        return f"graded on attempt {attempts}"

    @app.task(name="mwm.feedback", queue=QUEUE)
    async def feedback_task(assignment: str, student: str) -> str:
        argv = ["generate_feedback", assignment, "--student", student, "--force", f"--CourseDirectory.db_url={db_url}"]
        outcome = await asyncio.to_thread(gp.nbgrader_one, course, argv, f"{student}-feedback", env)
        if not outcome.ok:
            raise RuntimeError(f"{student}: feedback: {outcome.message}")
        return "feedback written"

    app.mwm_autograde = autograde
    app.mwm_cpu_seconds = 0.0   # of the autograde processes this process ran
    return app


#: Whether another autograde job of the same student succeeded after this job was queued (both
#: times from the database's clock, so machines' clocks need not agree).
_GRADED_SINCE = """
SELECT EXISTS (
    SELECT 1 FROM procrastinate_jobs other JOIN procrastinate_events done ON done.job_id = other.id
     WHERE other.lock = %(lock)s AND other.task_name = 'mwm.autograde' AND other.id <> %(job_id)s
       AND done.type = 'succeeded'
       AND done.at > (SELECT min(at) FROM procrastinate_events WHERE job_id = %(job_id)s AND type = 'deferred')
) AS graded
"""


async def _graded_since_queued(app, job) -> bool:
    row = await app.connector.execute_query_one_async(query=_GRADED_SINCE, lock=job.lock, job_id=job.id)
    return bool(row["graded"])


def ensure_schema(app, db_url: str) -> None:
    """Create procrastinate's tables in the gradebook's database if they are missing.

    Called by :func:`mwm_grader.grade_parallel.prepare_gradebook`, under its advisory lock, so
    that machines started at the same moment do not create them twice.
    """
    import sqlalchemy as sa

    engine = sa.create_engine(db_url, poolclass=sa.pool.NullPool)
    try:
        missing = "procrastinate_jobs" not in sa.inspect(engine).get_table_names()
    finally:
        engine.dispose()
    if missing:
        with app.open():
            app.schema_manager.apply_schema()


def pending(app, course_id: str, assignment: str) -> dict[str, str]:
    """Student id -> "todo" or "doing", for each student of ``assignment`` with an autograde job waiting or running."""
    prefix = student_lock(course_id, assignment, "")
    found = {}
    for status in ("doing", "todo"):
        for job in app.job_manager.list_jobs(queue=QUEUE, status=status, task="mwm.autograde"):
            if job.lock and job.lock.startswith(prefix) and job.lock[len(prefix):] not in found:
                found[job.lock[len(prefix):]] = status
    return found


def defer_autograde(app, course_id: str, assignment: str, student: str, fingerprint: str, max_attempts: int,
                    feedback: bool = False) -> None:
    """Queue one student's autograde, under their lock (their jobs run one after another, never two at once).

    Two machines that plan at the same moment may both queue a student: the later job then finds
    the student graded since it was queued, and does nothing.
    """
    lock = student_lock(course_id, assignment, student)
    app.mwm_autograde.configure(lock=lock).defer(assignment=assignment, student=student, fingerprint=fingerprint,
                                                 max_attempts=max_attempts, feedback=feedback)


def requeue_stalled(app, heartbeat: float) -> list[int]:
    """Put back in the queue every grading job whose worker has sent no heartbeat for three ``heartbeat`` s; their ids."""
    async def run():
        async with app.open_async():
            jobs = await app.job_manager.get_stalled_jobs(queue=QUEUE, seconds_since_heartbeat=3 * heartbeat)
            done = []
            for job in jobs:
                try:
                    await app.job_manager.retry_job(job)
                    done.append(job.id)
                except Exception:  # noqa: BLE001 - another machine put it back first
                    pass
            return done

    return asyncio.run(run())


def work(app, students, course_id: str, assignment: str, concurrency: int, heartbeat: float = 10.0,
         poll: float = 0.5) -> None:
    """Work on the queue until no job of ``students`` waits or runs anywhere.

    Runs a procrastinate worker (``concurrency`` jobs at once) while jobs wait; while only other
    machines' jobs run, waits and puts back the jobs of workers that stopped sending heartbeats.
    """
    students = set(students)
    while True:
        with app.open():
            left = {s: state for s, state in pending(app, course_id, assignment).items() if s in students}
        if not left:
            return
        if "todo" in left.values():
            app.run_worker(queues=[QUEUE], concurrency=concurrency, wait=False, listen_notify=False,
                           install_signal_handlers=False, update_heartbeat_interval=heartbeat,
                           stalled_worker_timeout=3 * heartbeat, fetch_job_polling_interval=poll,
                           delete_jobs="never")
            continue
        if not requeue_stalled(app, heartbeat):
            time.sleep(poll)
