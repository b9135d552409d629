"""The practice problems as an nbgrader course: the generator, the grading round trip, bad submissions.

A temporary course is made from the committed instructor version (exercises/source) and the
course's own nbgrader_config.py, with a filesystem exchange in a temporary folder. nbgrader's
own steps then run in this process: generate_assignment, release_assignment; each student
fetches the assignment, changes it and submits; collect; autograde (every student in one
batch, as `nbgrader autograde practice` does); generate_feedback.

The class:
* ``solution``   every answer cell holds the worked solution        -> full marks
* ``blank``      the release, untouched                              -> 0, and no crash
* ``one-wrong``  the solution with one part's value wrong            -> loses exactly that part
* seven bad submissions (BAD below), each graded without stopping the batch, each with its
  submitted file kept byte for byte.
"""
from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "exercises" / "source" / "practice" / "practice.ipynb"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


mk = _load(ROOT / "scripts" / "make_exercises.py", "make_exercises")
problems_mod = mk.load_problems_module()
PROBLEMS, MISSING = problems_mod.build_all()
BY_ID = {f"{p.slug}-{q.letter}": (p, q) for p in PROBLEMS for q in p.parts}


def _gid(cell) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id", "")


def _cell(nb, grade_id):
    (cell,) = [c for c in nb.cells if _gid(c) == grade_id]
    return cell


def _solve(nb, skip=()):
    """Fill every answer cell with its part's worked solution (except the grade ids in ``skip``)."""
    for cell in nb.cells:
        m = re.fullmatch(r"(p\d\d-[a-z])-answer", _gid(cell))
        if m and _gid(cell) not in skip:
            cell.source = BY_ID[m.group(1)][1].solution
    return nb


# Each bad submission: (what the student did to a solved notebook, the parts it should lose).
def _loop(nb):
    _cell(nb, "p01-c-answer").source = "while True:\n    pass\nh3 = np.tanh(w * h2 + u * xs[2] + b)"
    return ["p01-c"]


def _deleted_test(nb):
    nb.cells.remove(_cell(nb, "p03-a-test"))
    return []


def _duplicated_answer(nb):
    cell = _cell(nb, "p04-a-answer")
    nb.cells.insert(nb.cells.index(cell) + 1, nbformat.from_dict(json.loads(json.dumps(cell))))
    nb.cells[nb.cells.index(cell) + 1].id = "copied-cell"
    return []


def _syntax_error(nb):
    _cell(nb, "p04-c-answer").source = "blame = probs - (\n"
    return ["p04-c"]


def _exception(nb):
    _cell(nb, "p05-c-answer").source = "p_cold = [1.0, 0.0] / 0\n"
    return ["p05-c"]


def _string(nb):
    _cell(nb, "p03-b-answer").source = "two_way = '12416'\n"
    return ["p03-b"]


def _edited_locked(nb):
    # a wrong answer, and its test cell "fixed" to pass; the given numbers changed too
    _cell(nb, "p04-b-answer").source = "loss_true, loss_other = 0.0, 0.0\n"
    _cell(nb, "p04-b-test").source = "pass\n"
    _cell(nb, "p02-given").source = _cell(nb, "p02-given").source.replace("0.5", "9.5")
    return ["p04-b"]


BAD = {"loop": _loop, "deleted-test": _deleted_test, "duplicated-answer": _duplicated_answer,
       "syntax-error": _syntax_error, "exception": _exception, "string": _string,
       "edited-locked": _edited_locked}
WRONG_PART = "p01-c"  # no later part builds on it


def _one_wrong(nb):
    _cell(nb, f"{WRONG_PART}-answer").source = "h3 = w * h2 + u * xs[2] + b  # forgot the squash\nprint(h3)"
    return [WRONG_PART]


def _fetch_and_submit(cls_fetch, cls_submit, api, config, student: str, home: Path, change):
    """A student fetches the assignment into ``home``, edits the notebook with ``change`` and submits."""
    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory

    from traitlets.config import Config

    cfg = Config(config)
    cfg.Exchange.assignment_dir = str(home)
    cfg.CourseDirectory.root = str(home)
    cd = CourseDirectory(config=cfg)
    cd.assignment_id = "practice"
    auth = Authenticator(config=cfg)
    fetch = cls_fetch(coursedir=cd, authenticator=auth, config=cfg)
    fetch.start()
    path = home / "practice" / "practice.ipynb"
    nb = nbformat.read(path, as_version=4)
    lost = change(nb)
    nbformat.write(nb, path)
    cd.student_id = student
    submit = cls_submit(coursedir=cd, authenticator=auth, config=cfg)
    submit.start()
    return lost, path.read_bytes()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from nbgrader.api import Gradebook
    from nbgrader.converters import Autograde
    from nbgrader.exchange.default import ExchangeFetchAssignment, ExchangeSubmit
    from nbgrader.utils import capture_log

    tmp = tmp_path_factory.mktemp("course")
    course, exchange = tmp / "course", tmp / "exchange"
    (course / "source").mkdir(parents=True)
    exchange.mkdir()
    shutil.copy(ROOT / "exercises" / "nbgrader_config.py", course)
    shutil.copytree(SOURCE.parent, course / "source" / "practice")
    # the students here are names, not accounts: collect need not check who owns each file
    settings = {"Exchange.root": str(exchange), "ExchangeCollect.check_owner": False}
    api = mk.course_api(course, **settings)
    mk._ok(api.generate_assignment("practice"), "generate_assignment")
    mk._ok(api.release_assignment("practice"), "release_assignment")

    class_ = {"solution": lambda nb: (_solve(nb), [])[1],
              "blank": lambda nb: [q for q in BY_ID],
              "one-wrong": lambda nb: (_solve(nb), _one_wrong(nb))[1]}
    for name, change in BAD.items():
        class_[name] = (lambda change: lambda nb: (_solve(nb), change(nb))[1])(change)
    config = mk.course_config(course, **settings)
    lost, submitted = {}, {}
    for student, change in class_.items():
        lost[student], submitted[student] = _fetch_and_submit(
            ExchangeFetchAssignment, ExchangeSubmit, api, config, student, tmp / "home" / student, change)
    mk._ok(api.collect("practice"), "collect")

    # the whole class in one batch, like `nbgrader autograde practice`
    api.coursedir.assignment_id, api.coursedir.student_id = "practice", "*"
    app = Autograde(coursedir=api.coursedir, parent=api)
    app.force = True
    result = capture_log(app)
    api.coursedir.student_id = "*"
    feedback = api.generate_feedback("practice")

    with Gradebook(api.coursedir.db_url, api.coursedir.course_id) as gb:
        scores, parts = {}, {}
        for student in class_:
            sub = gb.find_submission("practice", student)
            scores[student] = sub.score
            nb = gb.find_submission_notebook("practice", "practice", student)
            parts[student] = {g.name[:-len("-test")]: g.score for g in nb.grades}
        max_score = gb.find_assignment("practice").max_score
    return dict(course=course, result=result, feedback=feedback, scores=scores, parts=parts, lost=lost,
                submitted=submitted, max_score=max_score, students=list(class_))


def _points(part_ids) -> int:
    return sum(BY_ID[p][1].points for p in part_ids)


def test_the_batch_ran_to_the_end(graded):
    assert graded["result"]["success"], graded["result"].get("error")
    assert graded["feedback"]["success"], graded["feedback"].get("error")
    assert graded["max_score"] == sum(p.points for p in PROBLEMS)


def test_solution_gets_full_marks_on_every_problem(graded):
    parts = graded["parts"]["solution"]
    assert set(parts) == set(BY_ID)
    assert all(parts[p] == BY_ID[p][1].points for p in parts), parts
    assert graded["scores"]["solution"] == graded["max_score"]


def test_untouched_release_gets_zero(graded):
    assert graded["scores"]["blank"] == 0
    assert set(graded["parts"]["blank"].values()) == {0}


def test_one_wrong_part_loses_exactly_its_points(graded):
    parts = graded["parts"]["one-wrong"]
    assert parts[WRONG_PART] == 0
    assert all(parts[p] == BY_ID[p][1].points for p in parts if p != WRONG_PART)
    assert graded["scores"]["one-wrong"] == graded["max_score"] - _points([WRONG_PART])


@pytest.mark.parametrize("kind", list(BAD))
def test_bad_submission_is_graded_and_kept(graded, kind):
    lost = graded["lost"][kind]
    parts = graded["parts"][kind]
    assert {p for p, s in parts.items() if s != BY_ID[p][1].points} == set(lost), parts
    assert graded["scores"][kind] == graded["max_score"] - _points(lost)
    # the submitted file is kept as the student sent it, and the graded copy exists
    submitted = graded["course"] / "submitted" / kind / "practice" / "practice.ipynb"
    assert submitted.read_bytes() == graded["submitted"][kind]
    assert (graded["course"] / "autograded" / kind / "practice" / "practice.ipynb").is_file()


def _autograded(graded, student):
    return nbformat.read(graded["course"] / "autograded" / student / "practice" / "practice.ipynb", as_version=4)


def _errors(cell) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for o in cell.get("outputs", []) if o.output_type == "error"]


def test_the_endless_loop_times_out_and_the_next_cells_run(graded):
    nb = _autograded(graded, "loop")
    assert any("Timeout" in e for e in _errors(_cell(nb, "p01-c-answer")))
    assert not _errors(_cell(nb, "p02-a-test"))


def test_a_deleted_test_cell_is_restored(graded):
    nb = _autograded(graded, "deleted-test")
    cell = _cell(nb, "p03-a-test")
    assert "check_integer('plain', plain" in cell.source and not _errors(cell)


def test_an_edited_locked_cell_is_restored(graded):
    nb = _autograded(graded, "edited-locked")
    assert _cell(nb, "p04-b-test").source == _cell(nbformat.read(SOURCE, as_version=4), "p04-b-test").source
    assert "0.5" in _cell(nb, "p02-given").source and "9.5" not in _cell(nb, "p02-given").source


def test_a_wrong_type_gets_a_one_line_message(graded):
    nb = _autograded(graded, "string")
    (error,) = [o for o in _cell(nb, "p03-b-test").outputs if o.output_type == "error"]
    assert error.evalue == "two_way should be a whole number, got a string '12416'"
    assert len(error.traceback) == 1, "one line, no traceback through the grading code"


def test_feedback_html_for_every_student(graded):
    for student in graded["students"]:
        page = graded["course"] / "feedback" / student / "practice" / "practice.html"
        assert page.is_file(), student
    text = (graded["course"] / "feedback" / "string" / "practice" / "practice.html").read_text(encoding="utf-8")
    assert "two_way should be a whole number, got a string" in text
