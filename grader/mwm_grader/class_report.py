"""The class report after grading: one offline HTML page for the teacher (scores, parts, named mistakes, blanks).

Usage (from the project root; ``make report`` runs the first line)::

    mwm-report                        # exercises/, practice -> reports/class-report.html
    mwm-report --course exercises --assignment practice --out reports/class-report.html
    cd exercises && mwm-report               # from the course folder, as nbgrader runs

The page (:mod:`mwm_grader.report`) shows the score distribution, each part's share right, the
most frequent named mistakes per part with the hint of the mistakes catalogue, the parts most often
left blank and the students needing attention, as plots and sortable tables. It is computed from
the gradebook (nbgrader's ``Gradebook`` on the course's ``db_url``: ``gradebook.db``, or the
PostgreSQL database of ``MWM_GRADEBOOK_URL`` or ``.gradebook-url``) and from the verdicts the grader
wrote into the autograded notebooks. It loads nothing from anywhere (plots are inline images), runs
no script but its own table sorter, and shows every student's id, name and notes as escaped text.

The page names students and their scores: it goes to ``reports/``, which git ignores, and the
command warns when ``--out`` names a file elsewhere in the repository that git would take.

Exit status: 0 when the page is written, 2 for bad arguments or an assignment the gradebook does
not know, 3 when the gradebook cannot be reached.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import COURSE_ROOT  # noqa: E402

ROOT = COURSE_ROOT
from mwm_grader import make_exercises as mk  # noqa: E402

from mwm_grader import report  # noqa: E402

#: The page, unless --out says otherwise (relative to the current folder): a folder git ignores.
DEFAULT_OUT = Path("reports") / "class-report.html"


def default_course() -> Path:
    """The current folder when it is a course folder (holds ``nbgrader_config.py``), else the repository's ``exercises/``."""
    here = Path.cwd()
    return here if (here / "nbgrader_config.py").is_file() else ROOT / "exercises"


def course_settings(course: Path, db_url: str | None = None) -> tuple[str, str, str]:
    """The course's gradebook URL, course id and autograded folder, as nbgrader reads ``course/nbgrader_config.py``.

    Args:
        course: the course folder.
        db_url: if given, replaces the configured gradebook URL.

    Returns:
        (db_url, course_id, autograded folder name).

    Raises:
        SystemExit: the course's config stops (its own gradebook server is not running).
    """
    from nbgrader.coursedir import CourseDirectory

    config = mk.course_config(course)
    if db_url:
        config.CourseDirectory.db_url = db_url
    cd = CourseDirectory(config=config)
    return cd.db_url, cd.course_id, cd.autograded_directory


def _published(out: Path) -> str:
    """Why writing the page at ``out`` could publish it ("" if it cannot): inside this repository and not ignored by git."""
    from mwm_grader.answer_keys import git_would_take

    if not git_would_take(out):
        return ""
    return (f"{out} is inside the course's repository and git does not ignore it: the page names every student "
            "and their score. Reports belong in reports/ (the default), which git ignores.")


def _share(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"a share between 0 and 1, got {text}")
    return value


def main(argv=None) -> int:
    """The command line (see the module's docstring); returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--course", type=Path, default=None,
                    help="the course folder (default: the current folder if it holds nbgrader_config.py, else exercises/)")
    ap.add_argument("--assignment", default="practice", help="the assignment's id (default: practice)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help=f"the page to write (default: {DEFAULT_OUT}, a folder git ignores)")
    ap.add_argument("--db-url", help="the gradebook (default: the course's, MWM_GRADEBOOK_URL or gradebook.db)")
    ap.add_argument("--below", type=_share, default=report.ATTENTION_BELOW,
                    help=f"attention: a score below this share of the maximum (default {report.ATTENTION_BELOW})")
    ap.add_argument("--blank", type=_share, default=report.ATTENTION_BLANK,
                    help=f"attention: at least this share of the parts left blank (default {report.ATTENTION_BLANK})")
    args = ap.parse_args(argv)
    course = (args.course or default_course()).resolve()
    if not (course / "nbgrader_config.py").is_file():
        print(f"class_report: {course} is not a course folder (no nbgrader_config.py)", file=sys.stderr)
        return 2
    if args.out.suffix != ".html":
        ap.error(f"--out must end in .html, got {args.out}")

    import sqlalchemy.exc
    from nbgrader.api import MissingEntry

    db_url, course_id, autograded = course_settings(course, args.db_url)
    try:
        summary = report.gather(course, db_url, course_id, args.assignment, autograded=autograded,
                                below=args.below, blank_share=args.blank)
    except MissingEntry:
        print(f"class_report: the gradebook has no assignment {args.assignment!r} (grade it first)", file=sys.stderr)
        return 2
    except sqlalchemy.exc.OperationalError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"class_report: cannot read the gradebook: {first}", file=sys.stderr)
        return 3
    warning = _published(args.out)
    if warning:
        print(f"class_report: WARNING: {warning}", file=sys.stderr)
    report.write_report(summary, args.out)
    print(f"{len(summary.submitted)} graded submissions of {len(summary.students)} students, "
          f"{len(summary.attention)} needing attention -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
