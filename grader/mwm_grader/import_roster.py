"""A roster's students, with their names and emails, into the course's gradebook (``make roster ROSTER=...``).

Usage (from the project root)::

    mwm-roster roster.csv

The roster is read as ``make keys`` reads it (:func:`mwm_grader.roster.read_roster_entries`:
a column headed ``student_id``, ``Student ID``, ``username``... or the first; ``first_name`` and
``last_name``, or ``name``, and ``email`` columns when present; every id lower-cased and checked).
Each student is added to the gradebook of ``exercises/`` (``MWM_GRADEBOOK_URL``, or the
remembered ``.gradebook-url``, or ``gradebook.db``) or updated, with the names the roster gives:
the Formgrader and ``nbgrader export`` then show them, instead of "None, None". A student graded
without a name in the gradebook is named by their id (``mwm_grader.judge.JudgeAnswers``).

Exit status: 0 done; 2 the roster cannot be read (the message names the rows).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import COURSE_ROOT  # noqa: E402

ROOT = COURSE_ROOT
from mwm_grader import make_exercises as mk  # noqa: E402

from mwm_grader.roster import RosterError, read_roster_entries  # noqa: E402


def import_roster(roster: Path, course: Path = ROOT / "exercises", out=None) -> int:
    """Add or update every student of ``roster`` in ``course``'s gradebook; returns how many.

    Raises:
        RosterError: as :func:`~mwm_grader.roster.read_roster_entries`.
    """
    out = out or sys.stdout   # looked up now: a stream saved at import may be closed since
    from nbgrader.api import Gradebook
    from nbgrader.coursedir import CourseDirectory

    entries = read_roster_entries(roster)
    mk.venv_on_path()  # nbgrader's gradebook calls alembic on first use
    cd = CourseDirectory(config=mk.course_config(course))
    named = 0
    with Gradebook(cd.db_url, cd.course_id) as gb:
        for e in entries:
            values = {k: v for k, v in (("first_name", e.first_name), ("last_name", e.last_name), ("email", e.email))
                      if v}
            if e.first_name or e.last_name:
                named += 1
            gb.update_or_create_student(e.id, **values)
    print(f"{len(entries)} students in the gradebook from {roster} ({named} with names)", file=out)
    return len(entries)


def main(argv=None) -> int:
    """The command line (see the module's docstring); returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roster", type=Path, help="the roster, a CSV file")
    ap.add_argument("--course", type=Path, default=ROOT / "exercises", help="the course folder (default exercises/)")
    args = ap.parse_args(argv)
    try:
        import_roster(args.roster, args.course)
    except RosterError as exc:
        print(f"import_roster: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
