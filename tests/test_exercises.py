"""The practice problems as an nbgrader course: the generator, the grading round trip, bad submissions.

A class fetches, works and submits the assignment, and nbgrader grades it in one batch
(tests/practice_course.py): every kernel runs in the sandbox, every part is judged in the
teacher's process from the numbers of the submission's own student id.

The class:
* ``alice``, ``bob``, ``carol``  every answer cell holds the worked solution, each worked on
  their own numbers                                                      -> full marks each
* ``blank``      the release, untouched                                  -> 0, and no crash
* ``one-wrong``  the solution with one part's value wrong                -> loses exactly that part
* ``dave``       problem 1 answered with numbers typed in from another id's notebook, worked
  under that id                                                          -> loses problem 1, told why
* seven bad submissions (BAD below), each graded without stopping the batch, each with its
  submitted file kept byte for byte.
Submissions that try to cheat are in tests/test_grading_attacks.py.
"""
from __future__ import annotations

import json
import re

import nbformat
import numpy as np
import pytest

from mwm.practice import problems as problems_mod
from mwm.practice.notebook import MIME_STUDENT
from mwm.practice.variants import numbers_for
from scripts import make_exercises as mk
from tests.practice_course import ROOT, SOURCE, autograded, cell, errors, gid, grade_class, parts_of, solve, text

# nbgrader 0.9.6's own SQLAlchemy usage, and the cell it adds back without an id, warn.
pytestmark = [pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning"),
              pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")]

PROBLEMS, MISSING = problems_mod.build_all()
BY_ID = parts_of(PROBLEMS)


def _for(student):
    return parts_of(problems_mod.build_all(numbers_for(student))[0])


# Each bad submission: (what the student did to a solved notebook, the parts it should lose).
def _loop(nb):
    cell(nb, "p01-c-answer").source = "while True:\n    pass\nh3 = np.tanh(w * h2 + u * xs[2] + b)"
    return ["p01-c"]


def _deleted_test(nb):
    nb.cells.remove(cell(nb, "p03-a-test"))
    return []


def _duplicated_answer(nb):
    c = cell(nb, "p04-a-answer")
    nb.cells.insert(nb.cells.index(c) + 1, nbformat.from_dict(json.loads(json.dumps(c))))
    nb.cells[nb.cells.index(c) + 1].id = "copied-cell"
    return []


def _syntax_error(nb):
    cell(nb, "p04-c-answer").source = "grad_logits = probs - (\n"
    return ["p04-c"]


def _exception(nb):
    cell(nb, "p05-c-answer").source = "p_cold = [1.0, 0.0] / 0\n"
    return ["p05-c"]


def _string(nb):
    cell(nb, "p03-b-answer").source = "two_way = str(2 * plain)\n"
    return ["p03-b"]


def _edited_locked(nb):
    # a wrong answer, and its hand-in cell "fixed" to pass; the given numbers changed too
    cell(nb, "p04-b-answer").source = "loss_true, loss_other = 0.0, 0.0\n"
    cell(nb, "p04-b-test").source = "pass\n"
    cell(nb, "p02-given").source = "W, U, b, h0, xs = 0, 0, 0, 0, [0, 0]\n"
    return ["p04-b"]


BAD = {"loop": _loop, "deleted-test": _deleted_test, "duplicated-answer": _duplicated_answer,
       "syntax-error": _syntax_error, "exception": _exception, "string": _string,
       "edited-locked": _edited_locked}
WRONG_PART = "p01-c"  # no later part builds on it
HONEST = ["alice", "bob", "carol"]


def _one_wrong(nb):
    cell(nb, f"{WRONG_PART}-answer").source = "h3 = w * h2 + u * xs[2] + b  # forgot the squash\nprint(h3)"
    return [WRONG_PART]


def _typed_from_bob(nb):
    """Worked under the id bob (the first cell says so), problem 1's answers typed in as numbers."""
    bob = _for("bob")
    cell(nb, "imports").outputs = [nbformat.v4.new_output(
        "display_data", data={MIME_STUDENT: {"id": "bob", "source": "MWM_STUDENT", "self_study": False},
                              "text/plain": "bob"})]
    for letter in "abc":
        (a,) = bob[f"p01-{letter}"][1].answers
        cell(nb, f"p01-{letter}-answer").source = f"{a.name} = {a.expected!r}"
    return ["p01-a", "p01-b", "p01-c"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    # each student works on their own numbers: the worked solutions built from them
    class_ = {name: (lambda nb, name=name: (solve(nb, _for(name)), [])[1]) for name in HONEST}
    class_["blank"] = lambda nb: list(BY_ID)
    class_["one-wrong"] = lambda nb: (solve(nb, _for("one-wrong")), _one_wrong(nb))[1]
    class_["dave"] = lambda nb: (solve(nb, _for("dave")), _typed_from_bob(nb))[1]
    for name, change in BAD.items():
        class_[name] = lambda nb, change=change, name=name: (solve(nb, _for(name)), change(nb))[1]
    return grade_class(tmp_path_factory.mktemp("class"), class_)


def _points(part_ids) -> int:
    return sum(BY_ID[p][1].points for p in part_ids)


def test_the_batch_ran_to_the_end(graded):
    assert graded["result"]["success"], graded["result"].get("error")
    assert graded["feedback"]["success"], graded["feedback"].get("error")
    assert graded["max_score"] == sum(p.points for p in PROBLEMS)


@pytest.mark.parametrize("student", HONEST)
def test_each_solution_gets_full_marks_on_its_own_numbers(graded, student):
    parts = graded["parts"][student]
    assert set(parts) == set(BY_ID)
    assert all(parts[p] == BY_ID[p][1].points for p in parts), parts
    assert graded["scores"][student] == graded["max_score"]
    # the notebook was run on this student's numbers: problem 1's statement shows them
    nb = autograded(graded, student)
    shown = text(cell(nb, "p01-given"))
    w = numbers_for(student)[1]["w"]
    assert f"w={w:g}" in cell(nb, "p01-given").outputs[0]["data"]["text/markdown"], shown
    assert repr(student) in text(cell(nb, "imports"))


def test_the_three_students_had_different_numbers():
    statements = {s: [problems_mod.build(n, numbers_for(s)).given for n in range(1, 17)] for s in HONEST}
    for n in range(16):
        assert len({statements[s][n] for s in HONEST}) > 1, f"problem {n + 1} is the same for all three"


def test_untouched_release_gets_zero(graded):
    assert graded["scores"]["blank"] == 0
    assert set(graded["parts"]["blank"].values()) == {0}


def test_one_wrong_part_loses_exactly_its_points(graded):
    parts = graded["parts"]["one-wrong"]
    assert parts[WRONG_PART] == 0
    assert all(parts[p] == BY_ID[p][1].points for p in parts if p != WRONG_PART)
    assert graded["scores"]["one-wrong"] == graded["max_score"] - _points([WRONG_PART])


def test_answers_typed_from_another_id_lose_and_the_feedback_says_why(graded):
    parts = graded["parts"]["dave"]
    lost = graded["returned"]["dave"]
    assert {p for p, s in parts.items() if s != BY_ID[p][1].points} == set(lost), parts
    nb = autograded(graded, "dave")
    assert "worked under the id 'bob' but submitted by 'dave'" in text(cell(nb, "imports"))
    page = (graded["course"] / "feedback" / "dave" / "practice" / "practice.html").read_text(encoding="utf-8")
    assert "worked under the id &#39;bob&#39; but submitted by &#39;dave&#39;" in page or \
        "worked under the id 'bob' but submitted by 'dave'" in page


@pytest.mark.parametrize("kind", list(BAD))
def test_bad_submission_is_graded_and_kept(graded, kind):
    lost = graded["returned"][kind]
    parts = graded["parts"][kind]
    assert {p for p, s in parts.items() if s != BY_ID[p][1].points} == set(lost), parts
    assert graded["scores"][kind] == graded["max_score"] - _points(lost)
    # the submitted file is kept as the student sent it, and the graded copy exists
    submitted = graded["course"] / "submitted" / kind / "practice" / "practice.ipynb"
    assert submitted.read_bytes() == graded["submitted"][kind]
    assert (graded["course"] / "autograded" / kind / "practice" / "practice.ipynb").is_file()


def test_the_endless_loop_times_out_and_the_next_cells_run(graded):
    nb = autograded(graded, "loop")
    assert any("Timeout" in e for e in errors(cell(nb, "p01-c-answer")))
    assert not errors(cell(nb, "p02-a-test"))


def test_a_deleted_hand_in_cell_is_restored(graded):
    nb = autograded(graded, "deleted-test")
    c = cell(nb, "p03-a-test")
    assert "practice.hand_in('p03-a', plain=plain)" in c.source and not errors(c)


def test_an_edited_locked_cell_is_restored(graded):
    nb = autograded(graded, "edited-locked")
    source = nbformat.read(SOURCE, as_version=4)
    for grade_id in ("p04-b-test", "p02-given"):
        assert cell(nb, grade_id).source == cell(source, grade_id).source


def test_a_wrong_type_gets_a_one_line_message(graded):
    nb = autograded(graded, "string")
    (error,) = [o for o in cell(nb, "p03-b-test").outputs if o.output_type == "error"]
    assert error.evalue == "Problem 3 (b): not right"
    assert error.traceback == [f"NotRight: Problem 3 (b): not right\n  two_way should be a whole number, got a "
                               f"string '{2 * _for('string')['p03-a'][1].answers[0].expected}'"]


def test_a_right_part_says_so_per_answer(graded):
    nb = autograded(graded, "alice")
    assert text(cell(nb, "p04-b-test")) == "Problem 4 (b): right\n  loss_true: right\n  loss_other: right\n"


def test_feedback_labels_every_part_and_shows_no_expected_value(graded):
    for student in graded["students"]:
        page = graded["course"] / "feedback" / student / "practice" / "practice.html"
        assert page.is_file(), student
    page = (graded["course"] / "feedback" / "one-wrong" / "practice" / "practice.html").read_text(encoding="utf-8")
    assert "Test cell" not in page
    assert page.count(": right</a>") + page.count(": not right</a>") == len(BY_ID)
    assert ">Problem 1 (c): not right</a>" in page and ">Problem 1 (b): right</a>" in page
    # the wrong part's expected value is nowhere on the page; blank's page shows no answer at all
    (h3,) = _for("one-wrong")[WRONG_PART][1].answers
    assert f"{h3.expected:.4f}" not in page and f"{h3.expected:.3f}" not in page
    blank = (graded["course"] / "feedback" / "blank" / "practice" / "practice.html").read_text(encoding="utf-8")
    statements = "".join(p.statement for p in problems_mod.build_all(numbers_for("blank"))[0])
    for _problem, part in _for("blank").values():
        for a in part.answers:
            if a.kind == "number" and abs(a.expected) > 0.01:
                shown = f"{a.expected:.4f}"
                if shown.lstrip("-").rstrip("0") not in statements:
                    assert shown not in blank, (a.name, shown)
    assert "two_way should be a whole number, got a string" in \
        (graded["course"] / "feedback" / "string" / "practice" / "practice.html").read_text(encoding="utf-8")


# --------------------------------------------------------------------------------------
# The generator, the release and the self-study notebook
# --------------------------------------------------------------------------------------
def test_committed_files_are_what_the_generator_makes():
    """exercises/source and practice/ (pages and the self-study notebook) equal a fresh `make exercises`."""
    assert mk.check(quiet=True) == []


def test_grade_ids_are_unique_and_every_part_has_points():
    nb = nbformat.read(SOURCE, as_version=4)
    ids = [gid(c) for c in nb.cells if gid(c)]
    assert len(ids) == len(set(ids))
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert [gid(c)[:-len("-test")] for c in tests] == list(BY_ID)
    assert all(c.metadata.nbgrader["points"] == BY_ID[gid(c)[:-5]][1].points for c in tests)
    answers = [gid(c) for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert answers == [f"{p}-answer" for p in BY_ID]


def test_no_notebook_holds_an_expected_value(graded):
    """Neither the instructor notebook's sources nor the release hold a hidden test or a value to compare with."""
    release = (graded["course"] / "release" / "practice" / "practice.ipynb").read_text(encoding="utf-8")
    nb = nbformat.reads(release, as_version=4)
    released = "\n".join(c.source for c in nb.cells)
    assert "BEGIN SOLUTION" not in released and "HIDDEN TESTS" not in released
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    for pid, (_problem, part) in BY_ID.items():
        for line in part.solution.splitlines():
            if "=" in line and not line.lstrip().startswith("#"):
                assert line not in released, (pid, line)
    source = nbformat.read(SOURCE, as_version=4)
    for c in source.cells:
        if gid(c).endswith("-test"):
            assert "HIDDEN" not in c.source and c.source.count("\n") == 1, c.source
            assert re.fullmatch(r"practice\.hand_in\('p\d\d-[a-z]'(, (\w+)=\2)+\)", c.source.split("\n")[1]), c.source


@pytest.mark.parametrize("student", ["alice", "dave"])
def test_the_view_a_graded_kernel_gets_holds_no_expected_value(student):
    """What GradingExecute hands the sandboxed kernel: statements, given numbers, forms; no answer."""
    from mwm.practice.notebook import public_view

    for problem in problems_mod.build_all(numbers_for(student))[0]:
        view = json.dumps(public_view(problem))
        assert "expected" not in view and "solution" not in view
        for a in problem.answers:
            values = [w for _args, w in a.cases] if a.kind == "function" else np.ravel(a.expected).tolist() \
                if a.kind in ("number", "vector") else []
            for x in values:
                if isinstance(x, float) and len(repr(x)) > 8:   # a computed value, not a given number
                    assert repr(x) not in view and f"{x:.4f}" not in problem.given, (problem.number, a.name)


def test_hand_in_cells_say_what_they_checked():
    nb = nbformat.read(SOURCE, as_version=4)
    assert text(cell(nb, "p01-a-test")).endswith("h1: right\n")
    assert text(cell(nb, "p01-b-test")).endswith("h2: a number; its value is checked when your work is graded\n")
    assert "No student id (MWM_STUDENT): the numbers are the website's" in text(cell(nb, "imports"))


def test_the_self_study_notebook_checks_every_value(tmp_path):
    """The website's notebook: the website's numbers, and a wrong 1(b) fails its own hand-in cell."""
    nb = nbformat.read(ROOT / "practice" / "downloads" / "practice.ipynb", as_version=4)
    assert "Practice(self_study=True)" in nb.cells[1].source
    assert not any("nbgrader" in c.metadata for c in nb.cells)
    # keep problem 1 only (the cells up to problem 2) and answer 1(b) wrongly
    first = next(i for i, c in enumerate(nb.cells) if c.source.startswith("## Problem 2."))
    nb.cells = nb.cells[:first]
    cells = {c.id: c for c in nb.cells}   # no nbgrader metadata here: the cells keep their ids
    for letter in "abc":
        cells[f"p01-{letter}-answer"].source = BY_ID[f"p01-{letter}"][1].solution
    cells["p01-b-answer"].source = "h2 = 0.5"
    client_nb = mk.NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True,
                                  resources={"metadata": {"path": str(tmp_path)}})
    client_nb.execute()
    h2 = BY_ID["p01-b"][1].answers[0].expected
    assert errors(cells["p01-b-test"]) == [f"AnswerError: h2 should be {h2:.4f} ± 0.0005, got 0.5000"]
    assert text(cells["p01-a-test"]).endswith("h1: right\n")
    assert "Self-study: the numbers are the website's" in text(cells["imports"])


def test_answer_key_page_lists_every_answer():
    page = mk.answer_key_html(PROBLEMS, MISSING)
    for problem in PROBLEMS:
        assert f'id="{problem.slug}"' in page
        for a in problem.answers:
            shown = a.shown()
            assert (shown if a.kind not in ("choice",) else shown.strip("“”")) in page.replace("&quot;", '"'), (a.name, shown)


