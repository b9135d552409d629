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
* ``sam``, ``tess``, ``uma``  slips of the mistakes catalogue planted in problem 1 (the cells a
  student making them would write) and parts left blank (PLANTED below): the class report
  (``mwm_grader.report``, ``grader/mwm_grader/class_report.py``) must count exactly what was planted.
Submissions that try to cheat are in tests/test_grading_attacks.py.
"""
from __future__ import annotations

import html
import json
import re

import nbformat
import numpy as np
import pytest

from mwm_grader import mistakes as mistakes_mod
from mwm_grader import problems as problems_mod
from mwm_grader import report as report_mod
from mwm_practice.notebook import MIME_STUDENT
from mwm_grader.variants import numbers_for
from mwm_grader import make_exercises as mk
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


# Students who make catalogued slips in problem 1 and leave parts blank: student -> ({part: slip key}, parts
# left blank, as released). Problems 6-16 left blank put uma below half the points, with most parts blank.
LATE = [p for p in BY_ID if int(p[1:3]) >= 6]
PLANTED = {"sam": ({"p01-a": "w-u-swapped"}, []),
           "tess": ({"p01-b": "bias-forgotten", "p01-c": "no-tanh"}, ["p02-a", "p02-b"]),
           "uma": ({"p01-b": "one-step-too-few", "p01-c": "sigmoid-for-tanh"}, LATE)}
# Slips the rest of the class makes: one-wrong's forgotten squash is the catalogue's no-tanh.
KNOWN_SLIPS = {"one-wrong": {WRONG_PART: "no-tanh"}}
# Students the report must list as needing attention: blank and uma score below half the points and
# left most parts blank; deleted-test has grading notes (its deleted hand-in cell was put back).
ATTENTION = {"blank", "uma", "deleted-test"}


def _plant(nb, student):
    """Solve ``student``'s notebook, then write each planted slip's cell and leave the planted parts as released."""
    slips, blank = PLANTED[student]
    by_id = _for(student)
    solve(nb, by_id, skip=blank)
    for pid, key in slips.items():
        problem, part = by_id[pid]
        (slip,) = [m for m in mistakes_mod.catalogue(problem)[part.letter] if m.key == key]
        (answer,) = part.answers
        # the slip must name itself for these numbers (not dropped as ambiguous for them)
        assert slip in mistakes_mod.usable(problem, part).get(answer.name, []), (student, pid, key)
        cell(nb, f"{pid}-answer").source = slip.code
    for pid in slips:  # the part after a slip starts from the right value, so only the slip is wrong
        problem, part = by_id[pid]
        after = f"{problem.slug}-{chr(ord(part.letter) + 1)}"
        if after in by_id and after not in blank:
            (answer,) = part.answers
            cell(nb, f"{after}-answer").source = f"{answer.name} = {answer.expected!r}\n" + cell(nb, f"{after}-answer").source
    return [*slips, *blank]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    # each student works on their own numbers: the worked solutions built from them
    class_ = {name: (lambda nb, name=name: (solve(nb, _for(name)), [])[1]) for name in HONEST}
    class_["blank"] = lambda nb: list(BY_ID)
    class_["one-wrong"] = lambda nb: (solve(nb, _for("one-wrong")), _one_wrong(nb))[1]
    class_["dave"] = lambda nb: (solve(nb, _for("dave")), _typed_from_bob(nb))[1]
    for name, change in BAD.items():
        class_[name] = lambda nb, change=change, name=name: (solve(nb, _for(name)), change(nb))[1]
    for name in PLANTED:
        class_[name] = lambda nb, name=name: _plant(nb, name)
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
    """What GradingExecute hands the sandboxed kernel: statements, given numbers, forms; no answer, no slip."""
    from mwm_grader.views import grading_view, problem_view

    built = problems_mod.build_all(numbers_for(student))[0]
    whole = json.dumps(grading_view(student, built))
    for key in ("expected", "case_wants", "slips", "solution"):
        assert f'"{key}"' not in whole, key
    for problem in built:
        view = json.dumps(problem_view(problem))
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




# --------------------------------------------------------------------------------------
# The class report (mwm_grader.report, grader/mwm_grader/class_report.py) on the graded class
# --------------------------------------------------------------------------------------
def test_the_judged_verdicts_reach_the_autograded_notebook(graded):
    """Every hand-in cell of every autograded notebook keeps the judge's record (the report reads it)."""
    from mwm_grader.judge import JUDGED

    for student in graded["students"]:
        nb = autograded(graded, student)
        records = {gid(c)[:-len("-test")]: c.metadata.get(JUDGED) for c in nb.cells if gid(c).endswith("-test")}
        assert set(records) == set(BY_ID), student
        missing = [p for p, r in records.items() if not r or r.get("part") != p]
        assert not missing, f"{student}: no {JUDGED} record in the autograded notebook for {missing[:5]}"


@pytest.fixture(scope="module")
def class_summary(graded):
    from mwm_grader import class_report

    db_url, course_id, folder = class_report.course_settings(graded["course"])
    return report_mod.gather(graded["course"], db_url, course_id, "practice", autograded=folder)


def _lost(graded) -> dict:
    """Student -> the parts they were planned to lose (what each change returned)."""
    return {s: set(graded["returned"][s]) for s in graded["students"]}


def test_the_report_counts_what_was_planted(graded, class_summary):
    summary, lost, students = class_summary, _lost(graded), graded["students"]
    assert sorted(s.student for s in summary.submitted) == sorted(students)
    assert {s.student: s.score for s in summary.students} == graded["scores"]
    assert summary.max_score == graded["max_score"] and list(summary.parts) == list(BY_ID)
    # each part's share right: everyone but those planned to lose it
    for pid, stats in summary.parts.items():
        assert stats.graded == len(students), pid
        assert stats.right == sum(pid not in lost[s] for s in students), pid
        assert stats.share_right == pytest.approx(stats.right / len(students))
    # blanks: the untouched release, and the parts planted blank
    blank = {s: set() for s in students} | {"blank": set(BY_ID)} | {s: set(b) for s, (_slips, b) in PLANTED.items()}
    assert {s.student: set(s.blank) for s in summary.students} == blank
    assert {p: stats.blank for p, stats in summary.parts.items()} == \
        {p: sum(p in b for b in blank.values()) for p in BY_ID}
    # most often first, then in the notebook's order: blank and tess, then blank and uma
    assert [(p.part, p.blank) for p in summary.most_blank(3)] == [("p02-a", 2), ("p02-b", 2), (LATE[0], 2)]
    # named mistakes, by part and slip key: exactly the planted ones (and one-wrong's forgotten squash)
    slips = {s: {} for s in students} | KNOWN_SLIPS | {s: slips for s, (slips, _b) in PLANTED.items()}
    assert {s.student: {p: set(named.values()) for p, named in s.mistakes.items()} for s in summary.students} == \
        {s: {p: {k} for p, k in named.items()} for s, named in slips.items()}
    want = {}
    for named in slips.values():
        for p, k in named.items():
            want.setdefault(p, {}).setdefault(k, 0)
            want[p][k] += 1
    assert {p: stats.mistakes for p, stats in summary.parts.items() if stats.mistakes} == want
    assert summary.top_mistakes(1) == [("p01-c", "no-tanh", 2)]
    for p, keys in want.items():  # each slip's hint, from the catalogue
        problem, part = BY_ID[p]
        for k in keys:
            (m,) = [m for m in mistakes_mod.catalogue(problem)[part.letter] if m.key == k]
            assert summary.hints[(p, k)] == m.hint
    # the cells deleted (deleted-test's hand-in cell), and who needs attention
    assert {p: stats.restored for p, stats in summary.parts.items() if stats.restored} == {"p03-a": 1}
    assert {s.student for s in summary.attention} == ATTENTION
    by_id = {s.student: s for s in summary.students}
    assert by_id["deleted-test"].attention == ["grading notes"] and by_id["deleted-test"].notes
    assert by_id["uma"].attention == ["score below 50% of the maximum", f"{len(LATE)} of {len(BY_ID)} parts left blank"]


class _Refs:
    """Every tag, every attribute that can load or go somewhere, and each script's attributes, of an HTML page."""

    def __init__(self, page: str):
        from html.parser import HTMLParser

        self.tags, self.refs, self.scripts = [], [], []

        class Parser(HTMLParser):
            def handle_starttag(parser, tag, attrs):  # noqa: N805
                self.tags.append(tag)
                if tag == "script":
                    self.scripts.append(dict(attrs))
                for name, value in attrs:
                    if name in ("src", "href", "srcset", "data", "action", "formaction", "poster", "background",
                                "xlink:href", "ping", "manifest") or name.startswith("on"):
                        self.refs.append((tag, name, value or ""))

        Parser().feed(page)


def _check_page_is_inert(page: str):
    """The page loads nothing, runs only its own script (allowed by hash) and says so in its CSP."""
    import base64
    import hashlib

    refs = _Refs(page)
    assert not {"link", "iframe", "frame", "object", "embed", "base", "form", "svg"} & set(refs.tags)
    assert refs.tags.count("style") == 1
    assert 'http-equiv="refresh"' not in page.lower()
    bad = [r for r in refs.refs if not (r[1] == "src" and r[2].startswith("data:image/png;base64,"))
           and not (r[1] == "href" and r[2].startswith("#"))]
    assert not bad, bad
    assert refs.scripts == [{}]  # one script, inline, without attributes
    assert "url(" not in page.split("</style>")[0] and "@import" not in page
    (meta,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page)
    assert meta.replace("&#x27;", "'") == report_mod.csp()
    assert "default-src 'none'" in report_mod.csp() and "img-src data:" in report_mod.csp()
    for tag in ("script", "style"):
        (body,) = re.findall(f"<{tag}>(.*?)</{tag}>", page, flags=re.S)
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{tag}-src 'sha256-{digest}'" in report_mod.csp(), tag
    for writes_markup in ("innerHTML", "outerHTML", "insertAdjacent", "document.write", "eval(", "Function(", "fetch",
                          "XMLHttpRequest", "location", "getAttribute(\"data", "dataset"):
        assert writes_markup not in report_mod.SORT_SCRIPT, writes_markup


def test_the_report_command_writes_an_inert_page_of_the_class(graded, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "mwm-report"   # the console script
    shown = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and "--course" in shown.stdout and "reports/class-report.html" in shown.stdout
    out = tmp_path / "reports" / "class-report.html"
    done = subprocess.run([str(script), "--course", str(graded["course"]), "--out", str(out)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    n = len(graded["students"])
    assert f"{n} graded submissions of {n} students, {len(ATTENTION)} needing attention" in done.stdout
    page = out.read_text(encoding="utf-8")
    _check_page_is_inert(page)
    assert page.count("<img ") == 4  # the scores, the parts, the named mistakes, the blank parts
    problem, part = BY_ID["p01-c"]
    (no_tanh,) = [m for m in mistakes_mod.catalogue(problem)["c"] if m.key == "no-tanh"]
    assert html.escape(no_tanh.hint) in page
    assert report_mod.attention_rule().split(" (")[0] in page.replace("&#x27;", "'")
    from mwm_grader import class_report

    assert class_report.main(["--course", str(graded["course"]), "--assignment", "nope", "--out", str(out)]) == 2


HOSTILE = "<img src=x onerror=alert(1)>"


def test_the_report_page_escapes_every_student_value():
    """Names and notes (hostile text) come out as text; only the page's own markup is markup."""
    parts = {"p01-a": report_mod.PartStats("p01-a", "Problem 1 (a)", 1, graded=2, right=1, blank=1,
                                           mistakes={"no-tanh": 1})}
    students = [report_mod.StudentRow("mallory", HOSTILE, True, 0.0, 1.0, [], ["p01-a"], [], {}, True,
                                      [f"</td><script>alert(2)</script>{HOSTILE}", "\"'><svg onload=alert(3)>"],
                                      ["grading notes"]),
                report_mod.StudentRow("alice", "Alice <b>Smith</b> & co", True, 1.0, 1.0, ["p01-a"], [], [],
                                      {"p01-a": {"h1": "no-tanh"}}, True, [], [])]
    summary = report_mod.ClassSummary("machines-with-memory", "practice", 1.0, parts, students,
                                      {("p01-a", "no-tanh"): "It looks like <the sum> was not squashed."})
    page = report_mod.render_html(summary)
    _check_page_is_inert(page)
    for raw in (HOSTILE, "<script>alert(2)", "<svg", "<b>Smith</b>", "<the sum>"):
        assert raw not in page, raw
    for shown in (HOSTILE, "</td><script>alert(2)</script>", "\"'><svg onload=alert(3)>", "Alice <b>Smith</b> & co",
                  "It looks like <the sum> was not squashed."):
        assert html.escape(shown) in page, shown
    assert page.count("<script") == 1


def test_the_report_reads_only_the_judges_records(tmp_path):
    """A record in another cell, for another part, or with keys of an odd form is not read."""
    from mwm_grader.judge import JUDGED

    def code(grade_id, record, kind="code"):
        return {"cell_type": kind, "metadata": {"nbgrader": {"grade_id": grade_id}, JUDGED: record},
                "source": "", **({"outputs": []} if kind == "code" else {})}

    rec = {"part": "p01-a", "right": False, "blank": False, "restored": False,
           "mistakes": {"h1": "no-tanh", "h1<x": "no-tanh", "h2": "<script>"}}
    cells = [code("p01-a-test", rec), code("p01-a-test", {**rec, "mistakes": {"h1": "bias-forgotten"}}),
             code("p01-b-test", {**rec, "part": "p01-c"}), code("p01-c-test", {**rec, "part": "p01-c"}, "markdown"),
             code("p01-c-answer", {**rec, "part": "p01-c"}), code("p02-a-test", {**rec, "part": "p02-a", "blank": "yes"})]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    assert report_mod.read_judged(path) == {
        "p01-a": {"right": False, "blank": False, "restored": False, "mistakes": {"h1": "no-tanh"}},
        "p02-a": {"right": False, "blank": False, "restored": False, "mistakes": {"h1": "no-tanh"}}}


def test_a_submitted_verdict_record_does_not_outlive_the_sanitizing_pass():
    """nbgrader writes the sanitized notebook to autograded/ before grading it: no record a student planted is in it."""
    from nbformat.notebooknode import from_dict

    from mwm_grader.judge import JUDGED, RecordWorkedId

    forged = {"part": "p01-a", "right": True, "blank": False, "restored": False, "mistakes": {}}
    nb = from_dict({"cells": [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "p01-a-test"}, JUDGED: forged},
                               "source": "", "outputs": [], "execution_count": None}],
                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    nb, _ = RecordWorkedId().preprocess(nb, {})
    assert JUDGED not in nb.cells[0].metadata


def test_a_notebook_too_deep_to_read_is_skipped_not_fatal(tmp_path):
    """read_judged fails on a notebook nested deeper than json can read; the report's loop skips it."""
    path = tmp_path / "deep.ipynb"
    path.write_text('{"cells":' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    with pytest.raises(RecursionError):
        report_mod.read_judged(path)
    assert report_mod._read_notebook(path) is None
    good = tmp_path / "good.ipynb"
    good.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    assert report_mod._read_notebook(good) == ({}, set())
