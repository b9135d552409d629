"""The solution notebook scores full marks for every student, not just for the website's numbers.

nbgrader's ``generate_solution`` writes one solution notebook for the whole class; a teacher may
release it after the deadline. Its worked solutions must compute from the given values of the
notebook they run in, so that, handed in unchanged under any student id, it earns every point.

The solution notebook is made here as ``make exercises`` makes it (nbgrader's own
``generate_solution`` in a temporary course built from the committed ``exercises/source``, then
the worked steps added; ``exercises/solution/`` is a build output git ignores). It is handed in
unchanged under many ids, drawn as tests/test_practice_variants.py draws them, two ways:

* **nbgrader**: three ids (alice, bob and one more) go through the real round trip
  (tests/practice_course.py: fetch, submit, collect, ``nbgrader autograde`` with the sandbox);
* **in this process**: every id (at least 50) has the notebook's code cells run here, one after
  another, under the conditions the sandboxed kernel gets (``MWM_STUDENT`` = the id, the
  problems' public view in ``MWM_PRACTICE_VIEW``), the answer records the hand-in cells display
  put into the cells' outputs, and the executed notebook is judged by the autograder's own step,
  :class:`mwm_grader.judge.JudgeAnswers`, and scored by nbgrader's own rule
  (``nbgrader.utils.determine_grade``: a hand-in cell with an error output scores 0, else its points).

The two paths judge alike: the verdicts per part of the three nbgrader ids equal those of the
in-process path (checked below). What differs is only where the code runs (a sandboxed kernel
against this process), and a kernel per id would cost seconds each.
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import time
import traceback

import nbformat
import pytest
from nbformat.notebooknode import NotebookNode

from mwm_practice import notebook as practice_notebook
from mwm_grader import problems as problems_mod
from mwm_grader.judge import PART_CELL, JudgeAnswers, expected_problems
from mwm_grader.views import grading_view
from mwm_practice.notebook import VIEW_ENV
from mwm_grader import make_exercises as mk
from tests.practice_course import SOURCE, grade_class, parts_of
from tests.test_practice_variants import ODD_IDS

pytestmark = [pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning"),
              pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")]

#: ids whose solution notebook nbgrader itself autogrades in the sandbox (a kernel each)
GRADED_BY_NBGRADER = ["alice", "bob", "student0007"]
#: every id the solution notebook is handed in under, in this process: ids as the variant tests
#: draw them (every fourth ordinary one, and every odd one), and the three above
IDS = [f"student{i:04d}" for i in range(0, 200, 4)] + ODD_IDS + GRADED_BY_NBGRADER

PROBLEMS = problems_mod.build_all()[0]
BY_ID = parts_of(PROBLEMS)
MAX_SCORE = sum(p.points for p in PROBLEMS)


@pytest.fixture(scope="module")
def solution(tmp_path_factory):
    """The solution notebook ``make exercises`` leaves in exercises/solution/practice/, made afresh."""
    course = tmp_path_factory.mktemp("solution") / "course"
    (course / "source").mkdir(parents=True)
    (course / "nbgrader_config.py").write_bytes((mk.COURSE / "nbgrader_config.py").read_bytes())
    (course / "source" / "practice").mkdir()
    (course / "source" / "practice" / "practice.ipynb").write_bytes(SOURCE.read_bytes())
    mk.generate_assignment(course)          # nbgrader's generate_solution wants the assignment in the gradebook
    mk.generate_solution(course)
    path = course / "solution" / "practice" / "practice.ipynb"
    mk.add_worked_solutions(path, PROBLEMS)
    return nbformat.read(path, as_version=4)


# --------------------------------------------------------------------------------------
# In this process: the notebook's code run as the graded kernel runs it, judged by JudgeAnswers
# --------------------------------------------------------------------------------------
@contextlib.contextmanager
def _as_graded_kernel(student: str, outputs: list):
    """The environment GradingExecute gives the sandboxed kernel, and displays caught into ``outputs``."""
    views = grading_view(student, list(expected_problems(student).values()))
    saved = {k: os.environ.get(k) for k in ("MWM_STUDENT", VIEW_ENV)}
    shown = practice_notebook._display
    os.environ["MWM_STUDENT"] = student
    os.environ[VIEW_ENV] = json.dumps(views, separators=(",", ":"))
    # a kernel sends a display's MIME bundle to the notebook as JSON: so here
    practice_notebook._display = lambda bundle: outputs[-1].append(nbformat.v4.new_output(
        "display_data", data=json.loads(json.dumps(bundle))))
    try:
        yield
    finally:
        practice_notebook._display = shown
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_here(nb, student: str) -> NotebookNode:
    """A copy of ``nb`` with every code cell run in order, in one namespace, as the graded kernel would."""
    nb = copy.deepcopy(nb)
    outputs: list = []
    namespace: dict = {"__name__": "__main__"}
    with _as_graded_kernel(student, outputs):
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            outputs.append([])
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed):
                    exec(compile(cell.source, f"<cell {cell.get('id')}>", "exec"), namespace)
            except Exception as exc:  # noqa: BLE001 - the kernel reports it in the cell and goes on
                outputs[-1].append(nbformat.v4.new_output(
                    "error", ename=type(exc).__name__, evalue=str(exc),
                    traceback=traceback.format_exception(exc)))
            if printed.getvalue():
                outputs[-1].insert(0, nbformat.v4.new_output("stream", name="stdout", text=printed.getvalue()))
            cell.outputs = outputs[-1]
    return nb


def judged_here(nb, student: str) -> dict[str, float]:
    """Part id -> points, as nbgrader would record them for ``nb`` handed in by ``student``."""
    from nbgrader.utils import determine_grade

    executed = run_here(nb, student)
    executed, _ = JudgeAnswers().preprocess(executed, {"nbgrader": {"student": student}})
    scores = {}
    for cell in executed.cells:
        m = PART_CELL.fullmatch(cell.metadata.get("nbgrader", {}).get("grade_id", ""))
        if m:
            scores[m.group(1)] = determine_grade(cell)[0]
    return scores


def _lost(scores: dict) -> dict:
    return {p: f"{scores.get(p)}/{BY_ID[p][1].points}" for p in BY_ID if scores.get(p) != BY_ID[p][1].points}


# --------------------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------------------
def test_the_solution_notebook_is_the_generated_one(solution):
    """It holds every part's worked solution, the hand-in cells as released, and the worked steps."""
    sources = {c.metadata.get("nbgrader", {}).get("grade_id"): c.source for c in solution.cells}
    for pid, (_problem, part) in BY_ID.items():
        assert part.solution in sources[f"{pid}-answer"]
        assert f"practice.hand_in({pid!r}" in sources[f"{pid}-test"]
    assert sum(c.source.startswith("### Worked solution of problem") for c in solution.cells) == len(PROBLEMS)


def test_full_marks_under_every_id_in_this_process(solution):
    started = time.perf_counter()
    short = {}
    for student in IDS:
        scores = judged_here(solution, student)
        assert set(scores) == set(BY_ID)
        if sum(scores.values()) != MAX_SCORE:
            short[student] = f"{sum(scores.values()):g}/{MAX_SCORE}: {_lost(scores)}"
    took = time.perf_counter() - started
    print(f"{len(IDS)} ids judged in this process in {took:.1f} s")
    assert len(set(IDS)) >= 50
    assert not short, "\n".join(f"{s!r} scored {why}" for s, why in short.items())


def test_full_marks_under_nbgrader_autograde(solution, tmp_path):
    """The real path, for three ids; and each part's verdict is the in-process path's."""
    def hand_in(nb):
        nb.cells, nb.metadata = copy.deepcopy(solution.cells), copy.deepcopy(solution.metadata)
        return []

    graded = grade_class(tmp_path, {student: hand_in for student in GRADED_BY_NBGRADER})
    assert graded["result"]["success"], graded["result"].get("error")
    assert graded["max_score"] == MAX_SCORE
    for student in GRADED_BY_NBGRADER:
        assert graded["parts"][student] == judged_here(solution, student)
    scores = {s: graded["scores"][s] for s in GRADED_BY_NBGRADER}
    assert scores == {s: MAX_SCORE for s in GRADED_BY_NBGRADER}, {
        s: (scores[s], _lost(graded["parts"][s])) for s in GRADED_BY_NBGRADER}


def test_worked_solutions_are_the_same_code_for_every_id():
    """One notebook serves the class: no solution's code may depend on whose numbers built it."""
    from mwm_grader.variants import numbers_for

    for student in IDS:
        theirs = parts_of(problems_mod.build_all(numbers_for(student))[0])
        differ = [pid for pid in BY_ID if theirs[pid][1].solution != BY_ID[pid][1].solution]
        assert not differ, (student, differ)
        for p, q in zip(PROBLEMS, problems_mod.build_all(numbers_for(student))[0]):
            assert practice_notebook.given_names(p.given) == practice_notebook.given_names(q.given)


def test_the_check_catches_a_solution_for_one_students_numbers(solution):
    """A worked solution with a number of the website's typed in fails for another id, and the check says so."""
    nb = copy.deepcopy(solution)
    (c,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "p01-a-answer"]
    c.source = re.sub(r"^h1 = .*$", f"h1 = {BY_ID['p01-a'][1].answers[0].expected!r}", c.source, flags=re.M)
    assert judged_here(nb, "")["p01-a"] == 1                   # the website's numbers: right
    assert judged_here(nb, "alice")["p01-a"] == 0               # alice's: wrong
