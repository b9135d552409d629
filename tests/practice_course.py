"""A temporary nbgrader course for the grading tests: a class fetches, works, submits and is graded.

Used by tests/test_exercises.py (honest and bad submissions) and tests/test_grading_attacks.py
(submissions that try to cheat). A temporary course is made from the committed instructor
version (exercises/source) and the course's own nbgrader_config.py, with a filesystem exchange
in a temporary folder. nbgrader's own steps run in the test's process: generate_assignment,
release_assignment; each student fetches the assignment, changes it and submits; collect;
autograde (every student in one batch, as `nbgrader autograde practice` does, so each kernel
runs in the sandbox and each part is judged outside it); generate_feedback.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from mwm_grader import make_exercises as mk

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "exercises" / "source" / "practice" / "practice.ipynb"


def gid(cell) -> str:
    """A cell's nbgrader grade id ("" for none)."""
    return cell.metadata.get("nbgrader", {}).get("grade_id", "")


def cell(nb, grade_id):
    """The one cell of ``nb`` with ``grade_id``."""
    (found,) = [c for c in nb.cells if gid(c) == grade_id]
    return found


def parts_of(problems) -> dict:
    """Part id ("p01-a") -> (problem, part), in the notebook's order."""
    return {f"{p.slug}-{q.letter}": (p, q) for p in problems for q in p.parts}


def solve(nb, by_id, skip=()):
    """Fill every answer cell with its part's worked solution (except the part ids in ``skip``)."""
    for c in nb.cells:
        m = re.fullmatch(r"(p\d\d-[a-z])-answer", gid(c))
        if m and m.group(1) not in skip:
            c.source = by_id[m.group(1)][1].solution
    return nb


def need_sandbox():
    """Skip the calling test where grading's sandbox cannot run (an error with MWM_REQUIRE_SANDBOX=1, as in CI)."""
    from mwm_grader.sandbox import why_no_sandbox

    why = why_no_sandbox()
    if why and os.environ.get("MWM_REQUIRE_SANDBOX") == "1":
        raise RuntimeError("MWM_REQUIRE_SANDBOX=1 but grading's sandbox cannot run: " + why)
    if why:
        pytest.skip(f"grading needs its sandbox, which cannot run here: {why}")


def fetch_and_submit(config, student: str, home: Path, change, assignment: str = "practice"):
    """A student fetches the assignment into ``home``, edits the notebook with ``change`` and submits.

    Returns:
        (whatever ``change`` returned, the submitted notebook's bytes).
    """
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.default import ExchangeFetchAssignment, ExchangeSubmit
    from traitlets.config import Config

    cfg = Config(config)
    cfg.Exchange.assignment_dir = str(home)
    cfg.CourseDirectory.root = str(home)
    cd = CourseDirectory(config=cfg)
    cd.assignment_id = assignment
    auth = Authenticator(config=cfg)
    ExchangeFetchAssignment(coursedir=cd, authenticator=auth, config=cfg).start()
    path = home / assignment / f"{assignment}.ipynb"
    nb = nbformat.read(path, as_version=4)
    expected = change(nb)
    nbformat.write(nb, path)
    cd.student_id = student
    ExchangeSubmit(coursedir=cd, authenticator=auth, config=cfg).start()
    return expected, path.read_bytes()


def grade_class(tmp: Path, class_: dict, before_grading=None, before_collect=None, settings=None,
                assignment: str = "practice") -> dict:
    """Run a whole class through nbgrader; ``class_`` maps student id -> change(nb) -> expected.

    ``before_grading``, if given, is called with the course folder after the submissions are
    collected and before autograde runs (e.g. to plant files or hash folders);
    ``before_collect`` with the exchange's inbound folder, after the class has submitted (e.g.
    to change a submission's files as a student could). ``settings`` ({"Class.trait": value})
    are laid over the course's nbgrader_config.py for every step. ``assignment`` is "practice" (the
    problems) or "labs" (the coding labs); its notebook has the same name.

    Returns:
        dict with the course folder, autograde's and generate_feedback's results, each
        student's total score, part scores (part id -> points), what each change returned,
        the submitted bytes, the maximum score and the students' ids.
    """
    from nbgrader.api import Gradebook
    from nbgrader.converters import Autograde
    from nbgrader.utils import capture_log

    need_sandbox()
    course, exchange = tmp / "course", tmp / "exchange"
    (course / "source").mkdir(parents=True)
    exchange.mkdir()
    shutil.copy(ROOT / "exercises" / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "exercises" / "source" / assignment, course / "source" / assignment)
    # the students here are names, not accounts: collect need not check who owns each file,
    # and the students' submission records (nbgrader's cache) stay in the temporary folder
    settings = {"Exchange.root": str(exchange), "ExchangeCollect.check_owner": False,
                "Exchange.cache": str(tmp / "cache"), **(settings or {})}
    api = mk.course_api(course, **settings)
    mk.new_sqlite_gradebook(api)
    mk.nbgrader_ok(api.generate_assignment(assignment), "generate_assignment")
    mk.nbgrader_ok(api.release_assignment(assignment), "release_assignment")
    config = mk.course_config(course, **settings)
    returned, submitted = {}, {}
    for student, change in class_.items():
        returned[student], submitted[student] = fetch_and_submit(config, student, tmp / "home" / student, change,
                                                                 assignment)
    if before_collect is not None:
        before_collect(exchange / "machines-with-memory" / "inbound")
    mk.nbgrader_ok(api.collect(assignment), "collect")
    if before_grading is not None:
        before_grading(course)

    # the whole class in one batch, like `nbgrader autograde practice`
    api.coursedir.assignment_id, api.coursedir.student_id = assignment, "*"
    app = Autograde(coursedir=api.coursedir, parent=api)
    app.force = True
    result = capture_log(app)
    api.coursedir.student_id = "*"
    feedback = api.generate_feedback(assignment)

    with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb:
        scores, parts = {}, {}
        for student in class_:
            try:
                sub = gb.find_submission(assignment, student)
            except Exception:  # noqa: BLE001 - not graded at all
                scores[student], parts[student] = None, {}
                continue
            scores[student] = sub.score
            nb = gb.find_submission_notebook(assignment, assignment, student)
            parts[student] = {g.name[:-len("-test")]: g.score for g in nb.grades}
        max_score = gb.find_assignment(assignment).max_score
    return dict(course=course, result=result, feedback=feedback, scores=scores, parts=parts, returned=returned,
                submitted=submitted, max_score=max_score, students=list(class_), assignment=assignment)


def autograded(graded: dict, student: str):
    """The notebook nbgrader graded for ``student`` (executed, judged)."""
    assignment = graded.get("assignment", "practice")
    return nbformat.read(graded["course"] / "autograded" / student / assignment / f"{assignment}.ipynb", as_version=4)


def errors(c) -> list[str]:
    """A cell's error outputs as "Name: message" lines."""
    return [f"{o.ename}: {o.evalue}" for o in c.get("outputs", []) if o.output_type == "error"]


def text(c) -> str:
    """A cell's outputs as text (streams, errors' tracebacks, plain text of displays)."""
    out = []
    for o in c.get("outputs", []):
        if o.output_type == "stream":
            out.append(o.text)
        elif o.output_type == "error":
            out.append("\n".join(o.traceback))
        else:
            out.append(str(o.get("data", {}).get("text/plain", "")))
    return "\n".join(out)
