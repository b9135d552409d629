"""The mistakes catalogue names the slip a wrong answer makes, with each student's own numbers.

For every entry of :mod:`mwm_grader.mistakes` and many students (ids drawn as
tests/test_practice_variants.py draws them), the entry's ``code`` is run here as a student
making that slip would run it. It runs after the given cell and the right answers of the
earlier parts, and in place of the part's right answer. What it sets is handed in as the
notebook's hand-in cell records it (:func:`mwm_practice.notebook.encode`, the calls of a
function) and judged by the autograder's own :func:`mwm_grader.judge.judge_part`:

* a submission that makes exactly one catalogued slip gets exactly that slip's hint, on the
  answers the slip changes, and on no other answer;
* a right answer never gets a hint;
* no hint, nor any line of the verdict, shows the expected value;
* an entry not usable for a student's numbers (its value is the right answer, or another
  slip's) is never named for that student;
* at least 40 of the 50 parts have an entry, and every entry is usable for most students.
"""
from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

from mwm_grader import mistakes as mistakes_mod
from mwm_grader import problems as problems_mod
from mwm_grader.judge import judge_part
from mwm_practice.notebook import _calls, encode
from mwm_grader.variants import numbers_for
from tests.test_practice_variants import ODD_IDS

#: the students: the website's numbers, every eighth ordinary id and the odd ones
IDS = [None] + [f"student{i:04d}" for i in range(0, 200, 8)] + ODD_IDS


def _built(student):
    return problems_mod.build_all(numbers_for(student))[0]


@pytest.fixture(scope="module")
def classes():
    """student -> the sixteen problems built with that student's numbers."""
    return {student: _built(student) for student in IDS}


def _run(code: str, namespace: dict) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, namespace)  # noqa: S102 - the course's own solution and slip code


def _namespace_before(problem, part) -> dict:
    """The given numbers and the right answers of the parts before ``part``, as a notebook has them."""
    namespace = {"np": np}
    _run(problem.given, namespace)
    for earlier in problem.parts:
        if earlier is part:
            break
        _run(earlier.solution, namespace)
    return namespace


def _record(part_id, part, namespace) -> dict:
    answers = {}
    for a in part.answers:
        value = namespace[a.name]
        answers[a.name] = {"calls": _calls(value, a.cases)} if a.kind == "function" else encode(value)
    return {"part": part_id, "student": None, "answers": answers}


def _shown_expected(answer) -> list[str]:
    """How the expected value of ``answer`` would be written in a message (each number at its precision)."""
    if answer.kind in ("number", "vector"):
        values = np.ravel(np.asarray(answer.expected, dtype=float))
        if answer.decimals is not None:
            return [f"{v:.{answer.decimals}f}" for v in values]
        return [f"{v:.{answer.sig}g}" for v in values]
    if answer.kind == "function":
        return [f"= {want}" for _args, want in answer.cases]
    return []


def _entries(student_problems):
    for problem in student_problems:
        for part in problem.parts:
            for slip in mistakes_mod.catalogue(problem).get(part.letter, []):
                yield problem, part, slip


def _hint_lines(lines, slip):
    return [ln for ln in lines if slip.hint in ln]


def test_most_parts_have_an_entry():
    problems = _built(None)
    parts = [(p, q) for p in problems for q in p.parts]
    covered = [f"{p.slug}-{q.letter}" for p, q in parts if mistakes_mod.catalogue(p).get(q.letter)]
    assert len(parts) == 50
    assert len(covered) >= 40, f"{len(covered)} parts have an entry: {covered}"


def test_entries_are_well_formed():
    problems = _built(None)
    for problem, part, slip in _entries(problems):
        where = f"{problem.slug}-{part.letter} {slip.key}"
        names = {a.name for a in part.answers}
        assert slip.values and set(slip.values) <= names, where
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slip.key), where
        assert slip.hint.strip() and "$" not in slip.hint, where  # feedback is plain text
        assert slip.how.strip() and slip.code.strip(), where
    for problem in problems:
        for part in problem.parts:
            keys = [m.key for m in mistakes_mod.catalogue(problem).get(part.letter, [])]
            assert len(keys) == len(set(keys)), f"{problem.slug}-{part.letter}: {keys}"


@pytest.mark.parametrize("student", IDS, ids=lambda s: s or "website")
def test_each_slip_gets_exactly_its_hint(classes, student):
    named_somewhere = 0
    for problem, part, slip in _entries(classes[student]):
        where = f"{student} {problem.slug}-{part.letter} {slip.key}"
        namespace = _namespace_before(problem, part)
        _run(part.solution, namespace)   # the part's other answers right
        _run(slip.code, namespace)       # then the slip
        for name, want in slip.values.items():   # the code makes the slip the entry computes
            answer = next(a for a in part.answers if a.name == name)
            got = ([namespace[name](*args) for args, _w in answer.cases] if answer.kind == "function"
                   else namespace[name])
            assert mistakes_mod.matches(answer, got, want), f"{where}: {name} = {got!r}, the entry says {want!r}"
        usable = mistakes_mod.usable(problem, part)
        named: dict = {}
        right, lines = judge_part(problem, part, [_record(f"{problem.slug}-{part.letter}", part, namespace)], named)
        expected_named = {name: slip.key for name in slip.values if slip in usable.get(name, [])}
        assert named == expected_named, f"{where}: named {named}, expected {expected_named}\n{lines}"
        if expected_named:
            named_somewhere += 1
            assert not right, where
            assert len(_hint_lines(lines, slip)) == len(expected_named), f"{where}: {lines}"
        for other in mistakes_mod.catalogue(problem).get(part.letter, []):
            if other is not slip and other.hint != slip.hint:
                assert not _hint_lines(lines, other), f"{where}: also names {other.key}: {lines}"
        for a in part.answers:
            for shown in _shown_expected(a):
                for ln in lines:
                    if ln.startswith(f"{a.name} is not right"):
                        assert shown not in ln.split(": got ", 1)[0] and shown not in _tail(ln), \
                            f"{where}: the expected value {shown} of {a.name} is in {ln!r}"
    assert named_somewhere > 0


def _tail(line: str) -> str:
    """The part of a verdict line after the student's own value (the hint)."""
    m = re.match(r".*?: got \S+?(\.\s|$)(.*)", line)
    return m.group(2) if m else line


@pytest.mark.parametrize("student", IDS[:8], ids=lambda s: s or "website")
def test_right_answers_get_no_hint(classes, student):
    for problem in classes[student]:
        for part in problem.parts:
            namespace = _namespace_before(problem, part)
            _run(part.solution, namespace)
            named: dict = {}
            right, lines = judge_part(problem, part, [_record(f"{problem.slug}-{part.letter}", part, namespace)],
                                      named)
            assert right and not named, f"{student} {problem.slug}-{part.letter}: {lines}"
            hints = {m.hint for m in mistakes_mod.catalogue(problem).get(part.letter, [])}
            assert not any(h in ln for h in hints for ln in lines)


def test_most_entries_are_usable_for_most_students(classes):
    """An entry left out for many students teaches few: each is usable for at least half of them."""
    counts: dict = {}
    for student in IDS:
        for problem in classes[student]:
            for part in problem.parts:
                usable = mistakes_mod.usable(problem, part)
                for slip in mistakes_mod.catalogue(problem).get(part.letter, []):
                    key = (problem.slug, part.letter, slip.key)
                    used = any(slip in v for v in usable.values())
                    counts.setdefault(key, [0, 0])
                    counts[key][0] += used
                    counts[key][1] += 1
    rare = {k: f"{u}/{n}" for k, (u, n) in counts.items() if u < n / 2}
    assert not rare, f"entries usable for fewer than half the students: {rare}"


def test_a_coinciding_slip_is_not_named():
    """Problem 1 with b = 0: leaving out the bias changes nothing, so that slip is never named."""
    numbers = {1: dict(problems_mod.NUMBERS[1], b=0.0)}
    problem = problems_mod.build(1, numbers)
    for part in problem.parts:
        usable = mistakes_mod.usable(problem, part)
        assert all(m.key != "bias-forgotten" for ms in usable.values() for m in ms)
        (answer,) = part.answers
        assert mistakes_mod.named_mistake(problem, part, answer, answer.expected) is None


def _slip_value_as_handed_in(answer, value):
    """A slip's value as a student would hand it in (a function: one giving the slip's results on the cases)."""
    if answer.kind != "function":
        return value
    table = {tuple(args): got for (args, _want), got in zip(answer.cases, value)}
    return lambda *args: table[tuple(args)]


@pytest.mark.parametrize("student", [None, "alice", "x7"], ids=lambda s: s or "website")
def test_the_students_kernel_gives_the_same_hint_from_its_view(student):
    """Every usable slip of every part a view checks, handed in through Practice: exactly that slip's hint.

    The website's view (self-study) checks every part; a student's own view (``mwm-student``) each
    problem's first part. The kernel has only the view's data, no catalogue code.
    """
    from mwm_grader.views import student_view
    from mwm_practice import checks
    from mwm_practice.notebook import Practice

    practice = (Practice(self_study=True, show=False) if student is None
                else Practice(view=student_view(student), show=False))
    tried = 0
    for problem in problems_mod.build_all(numbers_for(student))[0]:
        parts = problem.parts if student is None else problem.parts[:1]
        for part in parts:
            for name, slips in mistakes_mod.usable(problem, part).items():
                answer = next(a for a in part.answers if a.name == name)
                in_view = {s.key for a in practice.build(problem.number).parts[parts.index(part)].answers
                           if a.name == name for s in a.slips}
                for slip in slips:
                    if slip.key not in in_view:   # left out of a student's view: it would give a later answer away
                        assert student is not None, (problem.slug, slip.key)
                        continue
                    view_answer = next(a for a in practice.build(problem.number).parts[parts.index(part)].answers
                                       if a.name == name)
                    known = [k for k, (_x, w) in enumerate(view_answer.cases) if w is not None]
                    if (student is not None and answer.kind == "function"
                            and mistakes_mod.matches(answer, [slip.values[name][k] for k in known],
                                                     [answer.cases[k][1] for k in known])):
                        continue   # a student's kernel tries a function on one case, where this slip is right
                    answers = {a.name: (a.expected if a.kind != "function" else
                                        _slip_value_as_handed_in(a, [w for _x, w in a.cases]))
                               for a in part.answers}
                    answers[name] = _slip_value_as_handed_in(answer, slip.values[name])
                    with pytest.raises(checks.AnswerError) as wrong:
                        with contextlib.redirect_stdout(io.StringIO()):
                            practice.hand_in(f"{problem.slug}-{part.letter}", **answers)
                    message = str(wrong.value)
                    assert message.endswith(slip.hint), f"{student} {problem.slug}-{part.letter} {slip.key}: {message}"
                    tried += 1
    assert tried >= (150 if student is None else 40), tried

def test_a_students_view_gives_away_no_later_answer():
    """The checks a student's own view carries (each problem's first part) name no later part's answer.

    A slip's value, or a function's case result, that is also a number or word of a later part's
    answer would hand that answer to whoever opens the view file; such slips are left out, and a
    function is checked on its first case only (tried here over 30 ids). The same views without
    that guard do give answers away (problems 8, 13, 14, 15 among them), so the check can fail.
    A function is still checked in the kernel, on a case whose result gives nothing away.
    """
    from mwm_grader.views import _gives_away, _scalars, problem_view, student_view

    unguarded = set()
    for student in [f"v{i:02d}" for i in range(30)]:
        view = student_view(student)
        for problem in problems_mod.build_all(numbers_for(student))[0]:
            later = [x for q in problem.parts[1:] for a in q.answers
                     for x in _scalars([w for _x, w in a.cases] if a.kind == "function" else a.expected)]
            first = view["problems"][str(problem.number)]["parts"][0]
            for a in first["answers"]:
                assert "expected" in a, (student, problem.number, a["name"])   # every first part still checked
                for slip in a["slips"]:
                    assert not _gives_away(slip["value"], later), (student, problem.number, slip["key"])
                known = [w for w in a["case_wants"] if w is not None]
                assert len(known) <= 1 and not _gives_away(known, later), (student, problem.number)
                assert a["kind"] != "function" or known, (student, problem.number)   # one case still checked
            loose = problem_view(problem, checked_parts=[problem.parts[0].letter])
            if any(_gives_away(s["value"], later) for a in loose["parts"][0]["answers"] for s in a["slips"]) or \
                    any(_gives_away(a["case_wants"][1:], later) for a in loose["parts"][0]["answers"]):
                unguarded.add(problem.number)
    assert {8, 13, 14, 15} <= unguarded, unguarded
