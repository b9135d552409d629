"""The teachers' answer keys for students' own numbers (grader/mwm_grader/answer_keys.py, make key / make keys)."""
from __future__ import annotations

import csv

import pytest

from mwm_grader import problems
from mwm_grader.variants import numbers_for
from mwm_grader import answer_keys


def test_a_students_key_is_what_the_grader_computes():
    rows = answer_keys.key_rows("alice")
    built = problems.build_all(numbers_for("alice"))[0]
    answers = [a for p in built for q in p.parts for a in q.answers]
    assert len(rows) == len(answers)
    assert sum(r["points"] or 0 for r in rows) == sum(p.points for p in built)
    for row, a in zip(rows, answers):
        assert row["variable"] == (a.signature or a.name)
        if a.kind == "number" and a.sig is None:
            assert float(row["answer"]) == pytest.approx(a.expected, abs=0.51 * 10 ** -a.decimals)
    # a different student, different answers
    assert [r["answer"] for r in answer_keys.key_rows("bob")] != [r["answer"] for r in rows]


@pytest.mark.parametrize("text, ids", [
    ("assignment,duedate,timestamp,student_id,last_name\npractice,,t,alice,A\npractice,,t,bob,B\n", ["alice", "bob"]),
    ("id\nalice\n\nbob\n", ["alice", "bob"]),
    ("carol\ndave\n", ["carol", "dave"]),
])
def test_a_roster_is_read_from_the_student_id_column_or_the_first(tmp_path, text, ids):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    assert answer_keys.read_roster(path) == ids


def test_an_empty_roster_says_so(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("student_id\n\n", encoding="utf-8")
    with pytest.raises(ValueError, match="holds no student id"):
        answer_keys.read_roster(path)


def test_every_key_of_a_roster_in_csv_and_html(tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id\nalice\nbob\n", encoding="utf-8")
    assert answer_keys.main(["--roster", str(roster), "--out", str(tmp_path / "keys.csv")]) == 0
    with open(tmp_path / "keys.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows == [{k: str(v) for k, v in r.items()} for s in ("alice", "bob") for r in answer_keys.key_rows(s)]
    assert answer_keys.main(["--roster", str(roster), "--out", str(tmp_path / "keys.html")]) == 0
    page = (tmp_path / "keys.html").read_text(encoding="utf-8")
    assert 'id="alice"' in page and 'id="bob-p16"' in page
    assert answer_keys.main(["alice"]) == 0 and "Answer key of 'alice' (66 points)" in capsys.readouterr().out
