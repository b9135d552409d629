"""nbgrader configuration of the course's practice problems (nbgrader 0.9).

This folder is an nbgrader course directory. source/practice/ holds the instructor
version, generated from problems.py by `make exercises` (which also runs nbgrader's
generate_assignment and generate_solution); release/, submitted/, autograded/,
feedback/, solution/ and gradebook.db are made by nbgrader's own commands, run from
this folder (see the README, "For teachers").
"""
import os

c = get_config()  # noqa: F821  (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = "machines-with-memory"
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))

# Where released assignments and submissions are exchanged. nbgrader's usual place on a
# shared server is /srv/nbgrader/exchange (create it once, writable by everyone); set
# NBGRADER_EXCHANGE to use another folder, e.g. for a trial run on one machine.
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")

# Grading. Every answer is a few lines of arithmetic, so a cell that runs for more than
# 15 seconds is stuck (an endless loop): nbgrader interrupts it, records the timeout as
# that cell's error and goes on with the next cell, so only that part loses its points.
c.Execute.timeout = 15
c.Execute.interrupt_on_timeout = True
# Stop each notebook's kernel at once when grading ends, instead of waiting for it.
c.Execute.shutdown_kernel = "immediate"

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


c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, DropEmptyNbgraderMetadata,
                                      OverwriteKernelspec, OverwriteCells, CheckCellMetadata]
