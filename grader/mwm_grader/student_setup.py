"""A student's nbgrader set-up: the folder a student works in, with their nbgrader config.

Usage (from the project root; ``make student STUDENT=alice`` runs the first form):

    mwm-student alice                      # students/alice/
    mwm-student alice --dir ~/course       # another folder
    NBGRADER_EXCHANGE=/tmp/exchange mwm-student alice

It writes ``nbgrader_config.py`` and the student's view of the problems
(``mwm-practice-view.json``: their own numbers, see :mod:`mwm_grader.views`) into the student's
folder (``students/<id>/`` by default, which git ignores). nbgrader reads that file whenever it runs in that folder, so the
students' commands of the README ("For students") work there as written:

* ``CourseDirectory.course_id``: the course, ``machines-with-memory``;
* ``CourseDirectory.student_id``: the student's id. ``nbgrader submit`` and
  ``fetch_feedback`` file the work under this id (without it they take the operating
  system's user name, the same for every student of a one-machine trial);
* ``Exchange.root``: the exchange folder, if ``--exchange`` or ``NBGRADER_EXCHANGE`` names
  one (else nbgrader's default, ``/usr/local/share/nbgrader/exchange``);
* ``Exchange.cache``: the student's record of their submissions, kept in their folder
  (``.nbgrader-cache``), so students sharing a user account keep separate records.

Running it again writes the same file (it says whether anything changed). An id nbgrader
cannot file (empty, with ``+``, ``*``, ``/``, spaces...) is refused with a message naming it.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mwm_practice.ids import ID_PATTERN, check_student_id, normalize_student_id  # noqa: F401  (the one id rule; hub/ uses it from here)

from . import COURSE_ROOT  # noqa: E402
from .views import write_student_view  # noqa: E402

ROOT = COURSE_ROOT
COURSE_ID = "machines-with-memory"
def config_text(student_id: str, exchange: str | None, cache: Path) -> str:
    """The text of a student's ``nbgrader_config.py``.

    Args:
        student_id: the student's id (checked with :func:`check_student_id`).
        exchange: the exchange folder, or None for nbgrader's default.
        cache: the folder where nbgrader records the student's submissions.

    Returns:
        The Python source of the config file.

    Raises:
        TypeError, ValueError: as :func:`check_student_id`; ValueError also for an empty exchange.
    """
    check_student_id(student_id)
    if exchange is not None and not str(exchange).strip():
        raise ValueError("exchange must name a folder or be None, got an empty string")
    lines = [
        f'"""nbgrader configuration of {student_id}, a student of {COURSE_ID} (written by grader/mwm_grader/student_setup.py)."""',
        "c = get_config()  # noqa: F821",
        f"c.CourseDirectory.course_id = {COURSE_ID!r}",
        f"c.CourseDirectory.student_id = {student_id!r}",
        f"c.Exchange.cache = {str(cache)!r}",
    ]
    if exchange is not None:
        lines.append(f"c.Exchange.root = {str(Path(exchange).expanduser().resolve())!r}")
    return "\n".join(lines) + "\n"


def set_up(student_id: str, folder: Path | None = None, exchange: str | None = None) -> tuple[Path, bool]:
    """Write ``student_id``'s ``nbgrader_config.py`` and their view of the problems into ``folder`` (made if missing).

    The view (:data:`mwm_practice.notebook.VIEW_FILE`, :func:`mwm_grader.views.student_view`)
    holds the student's own numbers: the practice notebook finds it beside the config, as it
    finds the id, and checks each problem's first part with it.

    Args:
        student_id: the student's id, read as every roster id is (spaces stripped, lower-cased:
            ``Carol.Smith`` is ``carol.smith``).
        folder: the student's folder; None: ``students/<id>/`` in the course.
        exchange: the exchange folder; None: nbgrader's default.

    Returns:
        (the config file's path, whether it or the view was written or changed).

    Raises:
        TypeError, ValueError: as :func:`config_text` (the message names the id).
    """
    student_id = normalize_student_id(student_id)  # "Carol.Smith" is carol.smith, as in rosters, keys and the hub
    folder = (Path(folder).expanduser() if folder is not None else ROOT / "students" / student_id).resolve()
    text = config_text(student_id, exchange, folder / ".nbgrader-cache")
    folder.mkdir(parents=True, exist_ok=True)
    _view, view_changed = write_student_view(student_id, folder)
    path = folder / "nbgrader_config.py"
    if path.exists() and path.read_text() == text:
        return path, view_changed
    path.write_text(text)
    return path, True


def main(argv=None) -> int:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(description="Write a student's nbgrader config (course, student id, exchange) and "
                                                 "their view of the problems (their own numbers).")
    parser.add_argument("student", help="the student's id, e.g. alice")
    parser.add_argument("--dir", type=Path, default=None, help="the student's folder (default: students/<id>/)")
    parser.add_argument("--exchange", default=os.environ.get("NBGRADER_EXCHANGE") or None,
                        help="the exchange folder (default: $NBGRADER_EXCHANGE, else nbgrader's default)")
    args = parser.parse_args(argv)
    try:
        path, changed = set_up(args.student, args.dir, args.exchange)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    student = normalize_student_id(args.student)
    print(f"{'wrote' if changed else 'unchanged:'} {path}")
    if student != args.student:
        print(f"The id {args.student!r} is read as {student!r} (ids are not case-sensitive, as on the hub).")
    print(f"Work in {path.parent}: the README's student commands (\"For students\") run there as {student}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
