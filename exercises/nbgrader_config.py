"""nbgrader configuration of the course's practice problems (nbgrader 0.9).

This folder is an nbgrader course directory. source/practice/ holds the instructor
version, generated from mwm_grader/problems/ by `make exercises` (which also runs nbgrader's
generate_assignment and generate_solution); release/, submitted/, autograded/,
feedback/, solution/ and gradebook.db are made by nbgrader's own commands, run from
this folder (see the README, "For teachers").
"""
import os

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = "machines-with-memory"
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))

# Where released assignments and submissions are exchanged: nbgrader's default,
# /usr/local/share/nbgrader/exchange (create it once, writable by everyone), unless
# NBGRADER_EXCHANGE names another folder, e.g. for a trial run on one machine.
if os.environ.get("NBGRADER_EXCHANGE"):
    c.Exchange.root = os.environ["NBGRADER_EXCHANGE"]

# The gradebook: nbgrader's default, the SQLite file gradebook.db in this folder, unless
# MWM_GRADEBOOK_URL names another database, e.g. PostgreSQL for grading with several
# processes at once (postgresql+psycopg://user@host/dbname; README, "Grading a large class"),
# or else the file .gradebook-url here does: `make gradebook-db` and a `make grade` on PostgreSQL
# write it, so a shell where the variable was forgotten still reads the same gradebook, instead of
# making an empty gradebook.db (and an empty grades.csv). Delete the file to go back to gradebook.db.
_remembered = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".gradebook-url")
if os.environ.get("MWM_GRADEBOOK_URL"):
    c.CourseDirectory.db_url = os.environ["MWM_GRADEBOOK_URL"]
elif os.path.isfile(_remembered):
    with open(_remembered, encoding="utf-8") as _f:
        c.CourseDirectory.db_url = _f.read().strip()
    # the course's own server (`make gradebook-db`) listens on a socket in its data folder: when no
    # socket is there, it is stopped, and a command would end in a page of SQLAlchemy; say so in one line
    # (a Jupyter server, the teacher's Lab, only prints the line and starts: the Lab opens without a gradebook)
    import glob as _glob
    import re as _re
    import sys as _sys

    _host = _re.search(r"[?&]host=([^&]+)", c.CourseDirectory.db_url)
    if _host and os.path.isabs(_host.group(1)) and not _glob.glob(os.path.join(_host.group(1), ".s.PGSQL.*")):
        print(f"the course's gradebook server is not running (its address is in {_remembered}): start it with "
              "`make gradebook-db` in the course's folder", file=_sys.stderr)
        if not _re.search(r"jupyter", _sys.argv[0] if _sys.argv else ""):
            raise SystemExit(3)

# nbgrader 0.9.6's autograde prints SQLAlchemy warnings, three per student ("SAWarning: Object of
# type <SubmittedAssignment> not in session ..."): its gradebook code adds a submission to the
# session while reading it; the grades are stored all the same. Only that message is hidden.
import warnings  # noqa: E402

from sqlalchemy.exc import SAWarning  # noqa: E402

warnings.filterwarnings("ignore", message=r"Object of type <Submitted(Assignment|Notebook)> not in session",
                        category=SAWarning)

# Grading. Every answer is a few lines of arithmetic, so a cell that runs for more than
# 15 seconds is stuck (an endless loop): nbgrader interrupts it, records the timeout as
# that cell's error and goes on with the next cell, so only that part loses its points.
c.Execute.timeout = 15
c.Execute.interrupt_on_timeout = True
# Stop each notebook's kernel at once when grading ends, instead of waiting for it.
c.Execute.shutdown_kernel = "immediate"
# Errors in the feedback in Python's plain format (the cell, the line, the error): the
# same information as IPython's coloured context, at a fraction of the cost, which counts
# when an untouched notebook raises in every answer cell.
c.Execute.extra_arguments = ["--HistoryManager.hist_file=:memory:", "--InteractiveShell.xmode=Plain"]

# A student who deleted a test cell gets it back (and graded); edited test cells and
# read-only cells are always restored from source/ before grading (nbgrader's default).
c.OverwriteCells.add_missing_cells = True

# A student who duplicates an answer or test cell also copies its nbgrader metadata.
# nbgrader's DeduplicateIds keeps the last copy and leaves the others with empty nbgrader
# metadata, which add_missing_cells (above) cannot read (nbgrader 0.9.6 stops that
# student's grading with KeyError 'grade_id'). Dropping the empty metadata first lets the
# copies run as ordinary cells and the notebook be graded.
from nbgrader.preprocessors import (  # noqa: E402
    CheckCellMetadata, ClearOutput, DeduplicateIds, NbGraderPreprocessor, OverwriteCells, OverwriteKernelspec)


class DropEmptyNbgraderMetadata(NbGraderPreprocessor):
    """Remove the empty ``nbgrader`` metadata that DeduplicateIds leaves on duplicated cells."""

    def preprocess_cell(self, cell, resources, index):
        if cell.metadata.get("nbgrader") == {}:
            del cell.metadata["nbgrader"]
        return cell, resources


from mwm_grader.judge import GradingExecute, JudgeAnswers, RecordWorkedId, RestoreDeletedCells  # noqa: E402

# RecordWorkedId notes, before the outputs are cleared, which student id the notebook was
# worked under (its first cell says): the feedback tells a student who worked under another id.
# RestoreDeletedCells puts back, as released, every cell the student deleted, before nbgrader's
# OverwriteCells (which stops the whole notebook with KeyError when an answer cell and its
# hand-in cell are both gone): a deleted part then costs that part only, and is named in the
# feedback and in autograde-logs/<assignment>/<student>.notes.txt.
c.Autograde.sanitize_preprocessors = [RecordWorkedId, ClearOutput, DeduplicateIds, DropEmptyNbgraderMetadata,
                                      RestoreDeletedCells, OverwriteKernelspec, OverwriteCells, CheckCellMetadata]

# The grading pass. Grades are decided only here, in the teacher's process, never by code
# in the student's kernel:
# * GradingExecute runs the notebook as nbgrader's Execute does, but its kernel runs in a
#   bubblewrap sandbox (mwm_grader/sandbox.py): it reads only its own notebook's folder and
#   the Python environment, writes only a scratch folder, reaches no network, and is limited
#   in memory, CPU time, processes, disk and output. MWM_STUDENT is set to the submission's
#   student id, and the kernel is given that id's grading view (each problem's statement and
#   given numbers; mwm_grader/views.py), while the teacher's package that computes answers
#   (mwm_grader, in grader/) is not on its path and not in the sandbox: no expected value
#   exists in the kernel. Without bubblewrap grading stops with a message
#   saying how to install it (README, "For teachers"). The sandbox's limits are settings of
#   SandboxedKernelManager (`mwm-grade --help-all` lists them); to grade without it, knowingly
#   (student code then runs with your rights): c.SandboxedKernelManager.sandbox = False
# * JudgeAnswers reads each hand-in cell's answer record, computes the expected values with
#   mwm from the submission's numbers, and replaces the cell's outputs with the verdict, which
#   nbgrader's SaveAutoGrades turns into points (an error output: 0; otherwise full points).
# As nbgrader's default otherwise, without a second CheckCellMetadata: the sanitizing pass
# above has just checked the same metadata, and the check costs part of a second per student.
from nbconvert.preprocessors import ClearMetadataPreprocessor  # noqa: E402
from nbgrader.preprocessors import AssignLatePenalties, IgnorePattern, LimitOutput, SaveAutoGrades  # noqa: E402

from mwm_grader.untrusted import CleanStudentContent  # noqa: E402

c.Autograde.autograde_preprocessors = [GradingExecute, JudgeAnswers, CleanStudentContent, IgnorePattern,
                                       ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades, AssignLatePenalties]

# Student content is data, in every page a teacher opens (README, "How a grade is decided"). The
# autograded notebook is cleaned right after judging (CleanStudentContent, above), and again in every
# page nbgrader renders with this config, the Formgrader's submission view and generate_feedback's
# pages: the notebook rebuilt from what a teacher reads, every HTML fragment (markdown cells and
# outputs) through nh3, a kept sanitizer (mwm_grader/untrusted.py). The two templates are
# nbgrader's own, copied into mwm_grader/templates/ with every value escaped, each hand-in cell
# named ("Problem 1 (a): right" instead of "Test cell"), MathJax from the teacher's server with its
# "safe" extension instead of a CDN, and no inline script but static blocks that a
# Content-Security-Policy allows by hash (the Formgrader's page gets it from mwm_grader/guard.py,
# a feedback page carries it).
import nbgrader as _nbgrader  # noqa: E402

from mwm_grader.untrusted import TEMPLATE_DIR  # noqa: E402

c.HTMLExporter.extra_template_basedirs = [
    TEMPLATE_DIR, os.path.join(os.path.dirname(_nbgrader.__file__), "server_extensions", "formgrader", "templates")]
c.HTMLExporter.preprocessors = ["mwm_grader.untrusted.CleanStudentContent"]
c.HTMLExporter.sanitize_html = True  # nbconvert's own hooks: no script or widget blocks, clean_html on outputs
c.HTMLExporter.filters = {"clean_html": "mwm_grader.untrusted.clean_html"}
c.HTMLExporter.skip_svg_encoding = False  # an SVG output is shown as an image (no script runs in an <img>)

# Collect refuses a submission filed under an id the course cannot use, or (where nbgrader checks
# who owns the files) one whose files belong to another student than the id it names.
c.ExchangeFactory.collect = "mwm_grader.untrusted.CourseCollect"

# An SQLite gradebook is a file that nbgrader commits to about a hundred times per
# student; with SQLite's default journal every commit waits for the disk twice. Write-ahead
# logging with synchronous=NORMAL (SQLite's recommended pairing) commits without waiting:
# an application crash loses nothing, a power cut at worst the last grades written, and
# the file never corrupts. It needs a local disk: if the course folder is on a network
# filesystem (NFS), set MWM_GRADEBOOK_WAL=0.
if os.environ.get("MWM_GRADEBOOK_WAL", "1") != "0":
    import sqlite3

    import sqlalchemy
    from sqlalchemy.engine import Engine

    if not getattr(sqlalchemy, "_mwm_gradebook_wal", False):  # register once per process
        @sqlalchemy.event.listens_for(Engine, "connect")
        def _write_ahead_log(dbapi_connection, connection_record):
            if isinstance(dbapi_connection, sqlite3.Connection):
                dbapi_connection.execute("PRAGMA journal_mode=WAL")
                dbapi_connection.execute("PRAGMA synchronous=NORMAL")

        sqlalchemy._mwm_gradebook_wal = True

# How `mwm-grade` (make grade) grades, when its command line does not say: `mwm-grade --help-all`
# lists these settings, e.g.
# c.GradeSettings.heartbeat = 10.0     # seconds; a machine silent for three loses its students
# c.GradeSettings.max_attempts = 3     # then a failing student is parked
