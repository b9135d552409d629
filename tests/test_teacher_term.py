"""A teacher's term without surprises (issue 31), the parts that need no grading run: rosters, ids, keys,
what a student's check says, what a failed autograde says, resubmissions in the plan, the proxy's Node.

The parts that grade a class (a resubmission regraded, broken notebooks graded with notes, names,
typos) are in tests/test_class_trial.py; those on PostgreSQL (the course's own gradebook server,
one-line errors, the remembered gradebook) in tests/test_grade_parallel.py.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest

from mwm_practice import checks
from mwm_grader import judge, problems
from mwm_practice.ids import normalize_student_id
from mwm_practice.notebook import VIEW_ENV, VIEW_FILE, Practice, student_id
from mwm_grader.roster import RosterError, read_roster, read_roster_entries
from mwm_grader.untrusted import repair_unreadable
from mwm_grader.variants import numbers_for
from mwm_grader.views import student_view
from mwm_grader import answer_keys
from mwm_grader import grade_parallel as gp

ROOT = Path(__file__).resolve().parents[1]


def _roster(tmp_path, data, name="roster.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


@pytest.mark.parametrize("data, ids", [
    ("\ufeffstudent_id,last_name\nalice,A\nbob,B\n".encode("utf-8"), ["alice", "bob"]),   # Excel's CSV UTF-8
    ("Student ID,Name\nalice,Alice Smith\n", ["alice"]),                                  # a heading in words
    ("student_id;first_name\nalice;Ann\nbob;Bo\n", ["alice", "bob"]),                    # semicolons
    ("Mary.Jones\nPaul\n", ["mary.jones", "paul"]),                                        # as JupyterHub logs in
    ("Matric number\ns1234\ns5678\n", ["s1234", "s5678"]),                                 # an unknown heading
    ("carol\n\n  dave  \n", ["carol", "dave"]),
])
def test_a_roster_is_read_as_a_spreadsheet_saves_it(tmp_path, data, ids):
    assert read_roster(_roster(tmp_path, data)) == ids


def test_a_roster_gives_names_and_emails(tmp_path):
    entries = read_roster_entries(_roster(tmp_path, "Username,First name,Last name,Email\nAda,Ada,Lovelace,a@x\n"
                                                    "grace,,,\n"))
    assert [(e.id, e.first_name, e.last_name, e.email, e.row) for e in entries] == [
        ("ada", "Ada", "Lovelace", "a@x", 2), ("grace", "", "", "", 3)]
    (full,) = read_roster_entries(_roster(tmp_path, "student_id,name\nalan,Alan Mathison Turing\n", "b.csv"))
    assert (full.first_name, full.last_name) == ("Alan Mathison", "Turing")


@pytest.mark.parametrize("data, message", [
    (b"", "is empty"),
    ("student_id\n\n", "holds no student"),
    ("student_id\nalice\n../x\n", r"row 3: student_id '\.\./x' cannot be used"),
    ("student_id\nalice\nbob\nAlice\n", r"rows 2 and 4 are the same student 'alice'"),
    ("student_id\nzo\xeb\n".encode("latin-1"), r"row 2 is not UTF-8 text \(byte 0xeb\)"),
    ("student_id\nzoë\n李雷\n", r"row 2: .*'zoë'.*row 3: .*'李雷'"),
])
def test_a_roster_that_cannot_be_read_says_which_row(tmp_path, data, message):
    with pytest.raises(RosterError, match=message):
        read_roster(_roster(tmp_path, data))


def test_ids_are_one_student_whatever_their_case():
    assert normalize_student_id(" Mary.Jones ") == "mary.jones"
    assert numbers_for("Mary.Jones") == numbers_for("mary.jones") != numbers_for("mary.jane")
    for bad in ("zoë", "李雷", "../x", "a b", ""):
        with pytest.raises(ValueError, match="letters a-z"):
            normalize_student_id(bad)


def test_answer_keys_go_to_an_ignored_folder_and_warn_elsewhere_in_the_repository(tmp_path, capsys, monkeypatch):
    roster = _roster(tmp_path, "student_id\nalice\n")
    keys = tmp_path / "keys"
    monkeypatch.setattr(answer_keys, "KEYS_FOLDER", keys)
    assert answer_keys.main(["--roster", str(roster)]) == 0
    assert (keys / "keys.html").is_file() and (keys / "mathjax").is_dir()
    assert subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", str(ROOT / "keys" / "keys.html")]).returncode == 0
    assert answer_keys._published(ROOT / "keys" / "keys.html") == ""
    assert "git does not ignore it" in answer_keys._published(ROOT / "keys.html")
    assert answer_keys._published(tmp_path / "elsewhere.html") == ""
    assert answer_keys.main(["--roster", str(_roster(tmp_path, "student_id\nalice\nalice\n", "dup.csv"))]) == 2
    assert "rows 2 and 3 are the same student" in capsys.readouterr().err
    assert answer_keys.main(["Mary.Jones"]) == 0 and "Answer key of 'mary.jones'" in capsys.readouterr().out
    assert answer_keys.main(["zoë"]) == 2


def _part(number, letter):
    built = problems.build(number, numbers_for("alice"))
    return built, next(p for p in built.parts if p.letter == letter)


def test_a_students_check_says_not_right_and_never_the_expected_value(capsys):
    practice = Practice(view=student_view("alice"), show=False)
    problem, part = _part(1, "a")
    with pytest.raises(checks.AnswerError) as wrong:
        practice.hand_in("p01-a", h1=part.answers[0].expected + 0.5)
    message = str(wrong.value)
    assert "is not right" in message and f"{part.answers[0].expected:.4f}" not in message, message
    problem7, part7 = _part(7, "a")
    n_chunks = part7.answers[0]
    chunks = part7.answers[1].expected
    with pytest.raises(checks.AnswerError) as wrong:
        practice.hand_in("p07-a", n_chunks=lambda T, tau: T // tau + 5, chunks=chunks)
    message = str(wrong.value)
    (args, want), *_ = n_chunks.cases
    assert "is not right" in message and f"should be {want}" not in message, message
    practice.hand_in("p07-a", n_chunks=lambda T, tau: -(-T // tau), chunks=chunks)
    assert "n_chunks: right" in capsys.readouterr().out
    study = Practice(self_study=True, show=False)
    _, website = _part(1, "a")
    with pytest.raises(checks.AnswerError, match="should be"):  # self-study shows it: its page does too
        study.hand_in("p01-a", h1=problems.build(1, numbers_for(None)).parts[0].answers[0].expected + 0.5)


def test_a_whole_number_result_is_judged_and_shown_as_one():
    problem, part = _part(7, "a")
    answer = part.answers[0]
    calls = [{"args": [{"number": float(a)} for a in args], "result": {"number": float(want + 1)}}
             for args, want in answer.cases]
    why = judge._judge_function(answer, {"calls": calls})
    assert re.search(r"is not right: got \d+$", why) and ".0000" not in why, why


def test_the_notebook_takes_the_id_of_the_students_nbgrader_config(tmp_path, monkeypatch):
    folder = tmp_path / "students" / "alice"
    (folder / "practice").mkdir(parents=True)
    (folder / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.student_id = 'alice'\n")
    monkeypatch.chdir(folder / "practice")
    assert student_id({}) == ("alice", f"your nbgrader config, {folder / 'nbgrader_config.py'}")
    assert student_id({"MWM_STUDENT": "bob"}) == ("bob", "MWM_STUDENT")
    assert student_id({"JUPYTERHUB_USER": "carol"}) == ("carol", "JUPYTERHUB_USER")
    monkeypatch.chdir(tmp_path)
    assert student_id({})[1] in ("your user name", "no id found")


def test_the_notebook_finds_the_view_the_students_set_up_wrote_beside_the_config(tmp_path, monkeypatch, capsys):
    """``mwm-student alice`` writes her config and her view; her notebook, in a folder below, uses both."""
    from mwm_grader import student_setup

    folder = tmp_path / "students" / "alice"
    config, changed = student_setup.set_up("Alice", folder)
    assert changed and (folder / VIEW_FILE).is_file()
    assert student_setup.set_up("alice", folder) == (config, False)   # again: nothing changes
    (folder / "practice").mkdir()
    monkeypatch.chdir(folder / "practice")
    monkeypatch.delenv("MWM_STUDENT", raising=False)
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    monkeypatch.delenv(VIEW_ENV, raising=False)
    practice = Practice()
    assert practice.id == "alice" and str(folder / VIEW_FILE) in practice.source
    mine = problems.build(1, numbers_for("alice"))
    assert practice.problem(1).xs == list(mine.numbers["xs"]) if "xs" in mine.numbers else True
    assert practice.build(1).given == mine.given
    practice.hand_in("p01-a", h1=mine.parts[0].answers[0].expected)          # a first part: checked here
    practice.hand_in("p01-b", h2=mine.parts[1].answers[0].expected + 1.0)    # another: only its form
    out = capsys.readouterr().out
    assert "h1: right" in out and "h2: a number; its value is checked when your work is graded" in out
    # the view's file holds the first parts' values and nothing of the others
    view = json.loads((folder / VIEW_FILE).read_text())
    assert view["id"] == "alice" and view["checked"] == "first"
    for number, problem in view["problems"].items():
        assert all("expected" in a for a in problem["parts"][0]["answers"]), number
        assert not any(k in a for q in problem["parts"][1:] for a in q["answers"]
                       for k in ("expected", "case_wants", "slips")), number
    # someone else's id finds no view here: the website's numbers, said so, first parts checked
    monkeypatch.setenv("MWM_STUDENT", "bob")
    other = Practice()
    assert other.id is None and "No numbers were made for the student id 'bob'" in other.note
    assert other.build(1).given == problems.build(1, numbers_for(None)).given
    assert other.checked == "first"


def test_a_resubmission_is_planned_again_and_a_failure_says_why(tmp_path):
    rows = {"a": {"state": "done", "attempts": 1, "submission": "f1"},
            "b": {"state": "done", "attempts": 1, "submission": "f1"},
            "c": {"state": "failed", "attempts": 3, "submission": "f1"},
            "d": {"state": "failed", "attempts": 3, "submission": "f1"},
            "e": {"state": "done", "attempts": 1, "submission": None}}
    p = gp.plan(list(rows), rows, force=False, max_attempts=3,
                fingerprints={"a": "f1", "b": "f2", "c": "f1", "d": "f2", "e": "f9"})
    assert (p.todo, p.done, p.gave_up, p.resubmitted) == (["b", "d"], ["a", "e"], ["c"], ["b", "d"])
    (tmp_path / "submitted" / "s" / "practice").mkdir(parents=True)
    sub = tmp_path / "submitted" / "s" / "practice"
    (sub / "practice.ipynb").write_text("{}")
    before = gp.submission_fingerprint(tmp_path, "practice", "s")
    (sub / "timestamp.txt").write_text("2026-12-01 10:00:00")
    assert gp.submission_fingerprint(tmp_path, "practice", "s") != before
    log = tmp_path / "s.log"
    log.write_text("[ERROR] Traceback (most recent call last):\n  File x\n    nbformat.reader.NotJSONError: Notebook "
                   "does not appear to be JSON: '{'\n[ERROR] Please see the the above traceback\n")
    assert gp.cause(log) == "nbformat.reader.NotJSONError: Notebook does not appear to be JSON: '{'"
    log.write_text("one\ntwo\nthree\nfour\n")
    assert gp.cause(log) == "two | three | four"


def test_an_unreadable_notebook_is_kept_aside_and_the_released_one_graded(tmp_path):
    released = tmp_path / "release"
    released.mkdir()
    shutil.copy(ROOT / "exercises" / "source" / "practice" / "practice.ipynb", released)
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "practice.ipynb").write_text('{"cells": [ not json')
    (note,) = repair_unreadable(sub, released)
    assert "NotJSONError" in note and (sub / "practice.ipynb.unreadable").read_text() == '{"cells": [ not json'
    nb = nbformat.read(sub / "practice.ipynb", as_version=4)
    assert nb.metadata["mwm_collect"]["unreadable"].startswith("NotJSONError")
    assert repair_unreadable(sub, released) == []  # a good notebook is left alone


def test_the_hubs_proxy_runs_on_the_node_the_course_installs():
    """No package of package-lock.json asks for a newer Node.js than Debian's (npm ci warned EBADENGINE)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    have = tuple(int(x) for x in subprocess.run([node, "--version"], capture_output=True, text=True)
                 .stdout.strip().lstrip("v").split(".")[:3])
    lock = json.loads((ROOT / "package-lock.json").read_text())
    for name, package in lock["packages"].items():
        wanted = (package.get("engines") or {}).get("node")
        if not wanted:
            continue
        ok = False
        for alternative in wanted.split("||"):
            m = re.fullmatch(r"\s*(?:>=\s*|\^)?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*", alternative)
            if alternative.strip() == "*" or (m and have >= tuple(int(g or 0) for g in m.groups())
                                              and (not alternative.strip().startswith("^") or have[0] == int(m.group(1)))):
                ok = True
        assert ok, f"{name} needs node {wanted}, the machine has {'.'.join(map(str, have))}"


def test_an_unanswered_function_part_says_it_is_no_function_yet_not_that_a_call_raised():
    from types import SimpleNamespace

    from mwm_grader.judge import _judge_function
    from mwm_practice.notebook import encode

    answer = SimpleNamespace(name="n_chunks", cases=[((10, 3), 4)], decimals=None, sig=None)
    unanswered = {"calls": [{"args": [encode(10), encode(3)], "error": "not a function: None (no answer yet)"}]}
    assert _judge_function(answer, unanswered) == "n_chunks is not a function: None (no answer yet)"
    raised = {"calls": [{"args": [encode(10), encode(3)], "error": "ZeroDivisionError: division by zero"}]}
    assert _judge_function(answer, raised) == "n_chunks(10, 3) raised ZeroDivisionError: division by zero"


def test_a_views_given_numbers_are_read_never_run(tmp_path, monkeypatch):
    """The given cells of every problem, under several ids, read as running them would; anything else is refused unrun."""
    import numpy as np

    from mwm_practice.notebook import given_values

    for student in (None, "alice", "x7", "Mary.Jones"):
        for problem in problems.build_all(numbers_for(student))[0]:
            ran = {"np": np}
            exec(problem.given, ran)   # the teacher's own code, here only to compare
            read = given_values(problem.given)
            assert list(read) == [n for n in ran if n != "np" and not n.startswith("__")], problem.number
            for name, value in read.items():
                assert type(value) is type(ran[name]) and np.array_equal(np.asarray(value, dtype=object),
                                                                          np.asarray(ran[name], dtype=object)), name
    marker = tmp_path / "ran"
    for code in (f"x = __import__('os').system('touch {marker}')", f"x = open({str(marker)!r}, 'w')",
                 "import os", "x = np.array([1.0], dtype=object)", "x = y = 1.0", "x.y = 1.0"):
        with pytest.raises(ValueError, match="given code should"):
            given_values(code)
    assert not marker.exists()
    planted = student_view("alice")
    planted["problems"]["1"]["given"] = f"w = __import__('os').system('touch {marker}')"
    practice = Practice(view=planted, show=False)
    with pytest.raises(ValueError, match="given code should"):
        practice.problem(1)
    assert not marker.exists()


def test_a_notebook_worked_without_a_view_of_its_own_says_so_in_the_feedback():
    """No view for the id when it ran (the website's numbers, id None): the note says so, not "the id None"."""
    from mwm_grader.judge import JudgeAnswers

    note = JudgeAnswers._id_note("alice", {"id": None, "source": "your user name", "self_study": False})
    assert "the website's numbers" in note and "None" not in note and "'alice'" in note, note
    assert "worked under the id 'bob' but submitted by 'alice'" in JudgeAnswers._id_note("alice", {"id": "bob"})
    assert JudgeAnswers._id_note("alice", {"id": "alice"}) == ""
