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

import json
import re
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest

from scripts import make_exercises

# nbgrader 0.9.6's own SQLAlchemy usage, and the cell it adds back without an id, warn.
pytestmark = [pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning"),
              pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")]

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "exercises" / "source" / "practice" / "practice.ipynb"


mk = make_exercises
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
    # and the students' submission records (nbgrader's cache) stay in the temporary folder
    settings = {"Exchange.root": str(exchange), "ExchangeCollect.check_owner": False,
                "Exchange.cache": str(tmp / "cache")}
    api = mk.course_api(course, **settings)
    mk._ok(api.generate_assignment("practice"), "generate_assignment")
    mk._ok(api.release_assignment("practice"), "release_assignment")

    class_ = {"solution": lambda nb: (_solve(nb), [])[1],
              "blank": lambda nb: [q for q in BY_ID],
              "one-wrong": lambda nb: (_solve(nb), _one_wrong(nb))[1]}
    for name, change in BAD.items():
        class_[name] = lambda nb, change=change: (_solve(nb), change(nb))[1]   # binds this loop's change
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


# --------------------------------------------------------------------------------------
# The generator, the release and the answer key
# --------------------------------------------------------------------------------------
def test_committed_files_are_what_the_generator_makes():
    """exercises/source and practice/ (pages and student notebook) equal a fresh `make exercises`."""
    assert mk.check(quiet=True) == []


def test_grade_ids_are_unique_and_every_part_has_points():
    nb = nbformat.read(SOURCE, as_version=4)
    ids = [_gid(c) for c in nb.cells if _gid(c)]
    assert len(ids) == len(set(ids))
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert [_gid(c)[:-len("-test")] for c in tests] == list(BY_ID)
    assert all(c.metadata.nbgrader["points"] == BY_ID[_gid(c)[:-5]][1].points for c in tests)
    answers = [_gid(c) for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert answers == [f"{p}-answer" for p in BY_ID]


def test_release_has_no_solution_and_no_hidden_test(graded):
    release = (graded["course"] / "release" / "practice" / "practice.ipynb").read_text(encoding="utf-8")
    assert release == (ROOT / "practice" / "downloads" / "practice.ipynb").read_text(encoding="utf-8")
    nb = nbformat.reads(release, as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")
    for pid, (_problem, part) in BY_ID.items():
        for line in part.solution.splitlines():
            if "=" in line and not line.lstrip().startswith("#"):
                assert line not in text, (pid, line)
    source_nb = nbformat.read(SOURCE, as_version=4)
    for cell in source_nb.cells:
        if "### BEGIN HIDDEN TESTS" in cell.source:
            hidden = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
            for line in hidden.strip().splitlines():
                assert line not in text, line


def test_answer_key_page_lists_every_answer():
    page = mk.answer_key_html(PROBLEMS, MISSING)
    for problem in PROBLEMS:
        assert f'id="{problem.slug}"' in page
        for a in problem.answers:
            shown = a.shown()
            assert (shown if a.kind not in ("choice",) else shown.strip("“”")) in page.replace("&quot;", '"'), (a.name, shown)


def _answers(number):
    (problem,) = [p for p in PROBLEMS if p.number == number]
    return {a.name: a.expected for a in problem.answers}


def test_answer_key_matches_lib_problems_1_to_5():
    from mwm import (cell_param_count, readout_gradient, readout_param_count, rnn_forward, scalar_rnn, softmax,
                     stack_param_count, surprise)

    n = problems_mod.NUMBERS
    a = _answers(1)
    np.testing.assert_allclose([a["h1"], a["h2"], a["h3"]], scalar_rnn(n[1]["xs"], n[1]["w"], n[1]["u"], n[1]["b"], n[1]["h0"]))
    np.testing.assert_allclose([a["h1"], a["h2"], a["h3"]], [0.7616, -0.3720, 0.1997], atol=5e-5)  # the seed's values

    a, m = _answers(2), n[2]
    hs = rnn_forward(np.reshape(m["xs"], (-1, 1)), m, h0=m["h0"])[0]
    np.testing.assert_allclose([a["h1"], a["h2"]], hs)
    np.testing.assert_allclose(hs, [[0.7616, 0], [0.3634, -0.7616]], atol=5e-5)

    a, m = _answers(3), n[3]
    h, d = m["hidden"], m["inputs"]
    assert a["plain"] == cell_param_count(h, d) == 6208
    assert a["two_way"] == stack_param_count(h, d, bidirectional=True) == 12416
    assert a["two_floors"] == stack_param_count(h, d, num_layers=2) == 14464
    assert (a["lstm"], a["gru"]) == (cell_param_count(h, d, "lstm"), cell_param_count(h, d, "gru")) == (24832, 18624)
    assert a["tagger"] == stack_param_count(h, d, "lstm", bidirectional=True) + readout_param_count(2 * h, m["tags"]) == 51212

    a, m = _answers(4), n[4]
    p = softmax(m["scores"])
    np.testing.assert_allclose(a["probs"], p)
    np.testing.assert_allclose(p, [0.8310, 0.1125, 0.0414, 0.0152], atol=5e-5)
    t, o = m["words"].index(m["truth"]), m["words"].index(m["other"])
    assert a["loss_true"] == pytest.approx(surprise(p, t)[0]) == pytest.approx(2.185, abs=5e-4)
    assert a["loss_other"] == pytest.approx(surprise(p, o)[0]) == pytest.approx(0.185, abs=5e-4)
    np.testing.assert_allclose(a["blame"], readout_gradient(p, t))
    np.testing.assert_allclose(a["blame"], [0.8310, -0.8875, 0.0414, 0.0152], atol=5e-5)

    a, m = _answers(5), n[5]
    np.testing.assert_allclose(a["p_first"], [softmax(m["scores"], T)[0] for T in m["temperatures"]])
    np.testing.assert_allclose(a["p_first"], [0.8808, 0.9820, 0.7311], atol=5e-5)
    # the key's temperature really turns the old shares into the wanted ones
    gap = np.log(m["p_now"][0] / m["p_now"][1])
    np.testing.assert_allclose(softmax([gap, 0], 1.0), m["p_now"])
    np.testing.assert_allclose(softmax([gap, 0], a["T_new"]), m["p_wanted"])
    assert a["T_new"] == pytest.approx(3.419, abs=5e-4)
    np.testing.assert_allclose(a["p_cold"], softmax([gap, 0], 1e-3), atol=1e-12)
    assert a["p_cold"] == [1.0, 0.0]


def test_answer_key_matches_lib_problems_8_and_12():
    from mwm.clipping import clip_by_global_norm
    from mwm.dynamics import first_step_below

    n = problems_mod.NUMBERS
    a, m = _answers(8), n[8]
    w, eps = m["w_fade"], m["eps"]
    assert w ** a["T_fade"] < eps <= w ** (a["T_fade"] - 1) and a["T_fade"] == 31
    assert m["w_grow"] ** a["T_explode"] > m["big"] >= m["w_grow"] ** (a["T_explode"] - 1) and a["T_explode"] == 38
    assert a["T_fade"] == first_step_below(w, eps)
    (fb,) = [x for x in PROBLEMS if x.number == 8][0].parts[0].answers
    for (f, e), T in fb.cases:
        assert f ** T < e <= f ** (T - 1) and T == first_step_below(f, e)

    a, m = _answers(12), n[12]
    for run, values in m["runs"].items():
        ratios = np.array(values[1:]) / np.array(values[:-1])
        assert a[f"factor_{run}"] == pytest.approx(np.exp(np.log(ratios).mean()))  # the mean ratio, in logs
        assert a[f"far_{run}"] == pytest.approx(a[f"factor_{run}"] ** m["ahead"])
    assert [round(a[f"factor_{r}"], 2) for r in "ABC"] == [0.42, 2.10, 0.97]
    assert (a["lstm_run"], a["small_run"], a["big_run"]) == ("C", "A", "B")
    assert a["clip_scale"] == pytest.approx(0.1225, abs=5e-5)
    assert a["clip_scale"] * 40.8 == pytest.approx(clip_by_global_norm(np.array([40.8]), m["limit"])[0][0])
    assert a["f_min"] ** m["far"] == pytest.approx(m["share"]) and a["f_min"] == pytest.approx(0.99309, abs=5e-6)


def test_changing_a_number_gives_a_consistent_key_and_tests(tmp_path):
    """A teacher sets problem 1's w to 0.7: new expected values, and the solutions pass the new tests."""
    from mwm import scalar_rnn

    numbers = json.loads(json.dumps(problems_mod.NUMBERS, default=list), object_hook=lambda d: d)
    numbers = {int(k): v for k, v in numbers.items()}
    numbers[1]["w"] = 0.7
    problem = problems_mod.build(1, numbers)
    expected = scalar_rnn(numbers[1]["xs"], 0.7, numbers[1]["u"], numbers[1]["b"], numbers[1]["h0"])
    np.testing.assert_allclose([a.expected for a in problem.answers], expected)
    assert "w=0.7" in problem.statement and "w, u, b, h0 = 0.7," in problem.given
    nb = mk.source_notebooks([problem], problems_mod.lit, layout="per-problem")["p01"]
    mk.execute(nb, tmp_path)  # raises if a solution fails its own tests
    hidden = "\n".join(c.source for c in nb.cells if "HIDDEN" in c.source)
    assert repr(float(expected[1])) in hidden and "-0.37198" not in hidden
    page = mk.answer_key_html([problem], {})
    assert f"{expected[2]:.4f}" in page and "0.1997" not in page


def test_answer_key_matches_lib_problems_6_and_7():
    from mwm import scalar_rnn
    from mwm.bptt import chunk_count, chunk_of

    n = problems_mod.NUMBERS
    a, m = _answers(6), n[6]
    w, u, b, h0, xs = m["w"], m["u"], m["b"], m["h0"], np.array(m["xs"])
    hs = scalar_rnn(xs, w, u, b, h0)
    np.testing.assert_allclose(a["hs"], hs)
    eps = 1e-6  # derivatives by central differences: an independent route to the key's values
    h3_from_h1 = lambda h1: scalar_rnn(xs[1:], w, u, b, h1)[-1]  # noqa: E731
    h3_from_h2 = lambda h2: scalar_rnn(xs[2:], w, u, b, h2)[-1]  # noqa: E731
    h2_from_h1 = lambda h1: scalar_rnn(xs[1:2], w, u, b, h1)[-1]  # noqa: E731
    diff = lambda f, x: (f(x + eps) - f(x - eps)) / (2 * eps)  # noqa: E731
    assert a["dh3_dh2"] == pytest.approx(diff(h3_from_h2, hs[1]), abs=1e-8)
    assert a["dh2_dh1"] == pytest.approx(diff(h2_from_h1, hs[0]), abs=1e-8)
    assert a["dh3_dh1"] == pytest.approx(diff(h3_from_h1, hs[0]), abs=1e-8)
    x1 = lambda v: scalar_rnn(np.r_[v, xs[1:]], w, u, b, h0)[-1]  # noqa: E731
    assert a["dh3_dx1"] == pytest.approx(diff(x1, xs[0]), abs=1e-8)
    np.testing.assert_allclose([*a["hs"], a["dh3_dh2"], a["dh2_dh1"], a["dh3_dh1"], a["dh3_dx1"]],
                               [0.7616, 0.5436, 0.4094, 0.6659, 0.5636, 0.3753, 0.1576], atol=5e-5)

    a, m = _answers(7), n[7]
    N, k = m["length"], m["k"]
    chunks = [list(range(s, min(s + k, N + 1))) for s in range(1, N + 1, k)]  # the chunks, listed
    assert a["chunks"] == len(chunks) == chunk_count(N, k) == 50
    (home,) = [c for c in chunks if m["blame_from"] in c]
    assert a["reaches_back_to"] == home[0] == chunk_of(m["blame_from"], k)[1] == 101
    same = lambda i, j: any(i in c and j in c for c in chunks)  # noqa: E731
    assert (a["learn_pair_1"], a["learn_pair_2"]) == (same(*m["pair_across"]), same(*m["pair_inside"])) == (False, True)
    assert (a["full_steps"], a["truncated_steps"]) == (N - 1, max(len(c) for c in chunks) - 1) == (2499, 49)
    (fn,) = [x for x in PROBLEMS if x.number == 7][0].parts[0].answers[:1]
    assert all(chunk_count(*args) == want == -(-args[0] // args[1]) for args, want in fn.cases)


def test_answer_key_matches_lib_problems_11_13_14():
    from mwm import scalar_rnn
    from mwm.gru import gru_step
    from mwm.lstm import LSTMState, lstm_step, sigmoid

    n = problems_mod.NUMBERS
    a, m = _answers(11), n[11]
    scores = {"f": m["forget"], "i": m["input"], "o": m["output"], "g": m["candidate"]}
    weights = {f"{p}_{k}": [[0.0]] for k in scores for p in "WU"} | {f"b_{k}": [s] for k, s in scores.items()}
    (h, c), cache = lstm_step(LSTMState([0.0], [m["c_prev"]]), [0.0], weights)
    assert [a["f_t"], a["i_t"], a["o_t"], a["g_t"]] == pytest.approx([cache[k][0] for k in "fiog"])
    assert [a["f_t"], a["i_t"], a["o_t"]] == pytest.approx(sigmoid([m["forget"], m["input"], m["output"]]))
    assert (a["c_t"], a["h_t"]) == pytest.approx((c[0], h[0]))
    np.testing.assert_allclose([a["f_t"], a["i_t"], a["o_t"], a["g_t"], a["c_t"], a["h_t"]],
                               [0.8808, 0.5, 0.7311, 0.7616, 2.1424, 0.7112], atol=5e-5)

    a, m = _answers(13), n[13]
    w = {"W_z": [[0.0]], "U_z": [[0.0]], "b_z": [m["update_score"]], "W_r": [[0.0]], "U_r": [[0.0]],
         "b_r": [m["reset_score"]], "W_h": [[m["w_old"]]], "U_h": [[m["w_input"]]], "b_h": [0.0]}
    h, cache = gru_step([m["h_prev"]], [m["x"]], w)
    assert (a["z_t"], a["r_t"], a["draft"], a["h_t"]) == pytest.approx(
        (cache["z"][0], cache["r"][0], cache["candidate"][0], h[0]))
    # r = 1: a reset score so large that the sigmoid is 1 to double precision
    h_open, open_cache = gru_step([m["h_prev"]], [m["x"]], dict(w, b_r=[50.0]))
    assert (a["draft_open"], a["h_open"]) == pytest.approx((open_cache["candidate"][0], h_open[0]))
    np.testing.assert_allclose([a["z_t"], a["r_t"], a["draft"], a["h_t"], a["draft_open"], a["h_open"]],
                               [0.7311, 0.2689, 0.9392, 0.5521, 0.7616, 0.4223], atol=5e-5)
    assert a["draft_was"] == "higher"

    a, m = _answers(14), n[14]
    fwd = scalar_rnn(m["xs"], m["w"], m["u"], m["b"])
    bwd = scalar_rnn(m["xs"][::-1], m["w"], m["u"], m["b"])[::-1]
    np.testing.assert_allclose(a["fwd"], fwd)
    np.testing.assert_allclose(a["bwd"], bwd)
    np.testing.assert_allclose(a["word2"], [fwd[1], bwd[1]])
    np.testing.assert_allclose([*a["fwd"], *a["bwd"]], [0.7616, 0.3634, 0.5926, 0.8053, 0.2270, 0.4621], atol=5e-5)
    changed = np.array(m["xs"], dtype=float)
    changed[2] = -3.0
    assert scalar_rnn(changed, m["w"], m["u"], m["b"])[0] == fwd[0]
    assert scalar_rnn(changed[::-1], m["w"], m["u"], m["b"])[-1] != bwd[0]
    assert a["changes"] == "backward"


def test_answer_key_matches_lib_problems_9_and_10():
    from mwm.clipping import clip_by_global_norm
    from mwm.dynamics import matrix_powers, spectral_radius

    n = problems_mod.NUMBERS
    a, m = _answers(9), n[9]
    for name in "AB":
        M = np.array(m[name])
        values, dirs = np.array(a[f"eig_{name}"]), np.array(a[f"dirs_{name}"])
        assert abs(values[0]) >= abs(values[1])
        for value, d in zip(values, dirs):
            assert d[0] == 1
            np.testing.assert_allclose(M @ d, value * d, atol=1e-12)  # really an eigen-pair
        assert a[f"memory_{name}"] == ("fades" if spectral_radius(M) < 1 else "explodes")
        np.testing.assert_allclose(a[f"{name}_T_v"], np.linalg.matrix_power(M, m["steps"]) @ m["v"])
        np.testing.assert_allclose(a[f"{name}_T_v"], matrix_powers(M, m["v"], m["steps"])[-1])
    np.testing.assert_allclose([*a["eig_A"], *a["eig_B"]], [0.8, 0.4, 1.4, 0.8])
    assert (a["memory_A"], a["memory_B"]) == ("fades", "explodes")
    np.testing.assert_allclose(a["A_T_v"], [0.05374, 0.05363], atol=5e-6)
    np.testing.assert_allclose(a["B_T_v"], [14.516, 14.409], atol=5e-4)

    a, m = _answers(10), n[10]
    for g, key in ((m["g_long"], "clipped_long"), (m["g_short"], "clipped_short")):
        g, clipped = np.array(g), np.array(a[key])
        assert np.linalg.norm(clipped) == pytest.approx(min(np.linalg.norm(g), m["limit"]))
        np.testing.assert_allclose(clipped * np.linalg.norm(g), g * np.linalg.norm(clipped))  # same direction
        np.testing.assert_allclose(clipped, clip_by_global_norm(g, m["limit"])[0])
    np.testing.assert_allclose(a["change"], -m["lr"] * np.array(a["clipped_long"]))
    np.testing.assert_allclose([*a["clipped_long"], *a["change"], *a["clipped_short"]],
                               [2.4, -3.2, 0, -0.24, 0.32, 0, 1, 2, 2], atol=1e-12)


def test_answer_key_matches_lib_problems_15_and_16():
    import math

    from mwm.bleu import bleu_details
    from mwm.decoding import ProbabilityTree, beam_search, greedy_decode

    n = problems_mod.NUMBERS
    a, m = _answers(15), n[15]
    outputs = {f"{w1} {w2}": p1 * p2 for w1, p1 in m["first"].items() for w2, p2 in m["second"][w1].items()}
    w1 = max(m["first"], key=m["first"].get)
    w2 = max(m["second"][w1], key=m["second"][w1].get)
    assert (a["greedy_words"], a["greedy_prob"]) == (f"{w1} {w2}", pytest.approx(outputs[f"{w1} {w2}"]))
    tree = ProbabilityTree({(): m["first"], **{(w,): nxt for w, nxt in m["second"].items()}})
    assert a["greedy_words"] == tree.words(greedy_decode(tree.model).tokens)
    # width 2 keeps both first words here, so the beam finds the best of all outputs
    assert len(m["first"]) <= m["beam_width"]
    best = max(outputs, key=outputs.get)
    assert (a["beam_words"], a["beam_prob"]) == (best, pytest.approx(outputs[best]))
    assert a["beam_words"] == tree.words(beam_search(tree.model, m["beam_width"]).best.tokens)
    assert (a["greedy_log"], a["beam_log"]) == pytest.approx((math.log(a["greedy_prob"]), math.log(a["beam_prob"])))
    assert (a["greedy_words"], a["beam_words"]) == ("the cup", "my chai")
    assert (a["greedy_prob"], a["beam_prob"], a["greedy_log"], a["beam_log"]) == pytest.approx(
        (0.24, 0.32, -1.427, -1.139), abs=5e-4)

    a, m = _answers(16), n[16]
    ref = m["reference"].split()
    for k, cand in m["candidates"].items():
        words = cand.split()
        sc = bleu_details(cand, m["reference"], max_n=2)
        assert (a[f"p1_{k}"], a[f"p2_{k}"], a[f"bp_{k}"], a[f"bleu_{k}"]) == pytest.approx(
            (sc.precisions[0], sc.precisions[1], sc.brevity_penalty, sc.score))
        # no word or pair repeats in these sentences, so clipping changes nothing: plain set counts
        pairs = lambda ws: list(zip(ws, ws[1:]))  # noqa: E731
        assert len(set(words)) == len(words) and len(set(pairs(words))) == len(pairs(words))
        p1 = sum(w in ref for w in words) / len(words)
        p2 = sum(p in pairs(ref) for p in pairs(words)) / len(pairs(words))
        bp = min(1.0, math.exp(1 - len(ref) / len(words)))
        assert a[f"bleu_{k}"] == pytest.approx(bp * math.sqrt(p1 * p2))
    np.testing.assert_allclose([a[f"{q}_{k}"] for k in "ABC" for q in ("p1", "p2", "bp", "bleu")],
                               [0.8, 0.5, 1, 0.6325, 0.8, 0.75, 1, 0.7746, 1, 1, 0.5134, 0.5134], atol=5e-5)
    assert (a["keeps_meaning"], a["scores_highest"], a["bleu_judges_meaning"]) == ("A", "B", False)
