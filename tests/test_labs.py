"""The coding labs' grading (grader/mwm_grader/labs.py, lib/mwm_practice/labs.py), in this process.

A lab's hand-in runs the student's function on the student's cases in their kernel
(``record_calls``); the teacher's judge recomputes every case with ``mwm``. Checked: the worked
solutions (written as a student writes them) get every case right under many ids; each
catalogued wrong implementation fails, on a case it names, with its own hint; an argument
changed in place, an error, a record made on another student's inputs and junk records are
each told apart; no feedback line shows an expected number; every lab has a batch of one and
hidden size 1 among its cases.
"""
import json
import math
import re
from collections import Counter

import numpy as np
import pytest

from mwm_grader import labs
from mwm_practice.labs import Unreadable, decode_value, encode_value, record_calls

IDS = ["", "alice", "bob", "carol", "Mary.Jones", "s0001", "s0002", "x-long-id-9", "zed", "0"]


def _solution(slug):
    import torch

    space = {"np": np, "math": math, "Counter": Counter, "torch": torch}
    exec(labs.SOLUTIONS[slug], space)   # noqa: S102 - the course's own worked solution
    return space[labs.LABS[slug].function]


def _graded(slug, function, student="alice"):
    cases = json.loads(json.dumps(labs.view_cases(slug, student), sort_keys=True))   # as a view reaches the kernel
    calls = record_calls(function, cases)
    json.dumps(calls)   # the record is plain JSON, as it leaves the kernel
    return labs.judge(slug, student, calls)


@pytest.mark.parametrize("slug", list(labs.LABS))
@pytest.mark.parametrize("student", IDS)
def test_the_worked_solution_is_right_for_every_student(slug, student):
    right, lines = _graded(slug, _solution(slug), student)
    assert right, lines
    assert len(lines) == len(labs.cases_for(slug, student)) and all(line.endswith(": right") for line in lines)


@pytest.mark.parametrize("slug,wrong", [(slug, w) for slug, ws in labs.WRONG.items() for w in ws],
                         ids=lambda x: x if isinstance(x, str) else x.key)
@pytest.mark.parametrize("student", ["alice", "bob", "s0002"])
def test_each_common_mistake_fails_and_is_named(slug, wrong, student):
    right, lines = _graded(slug, wrong.function, student)
    assert not right
    assert lines[-1] == f"Hint: {wrong.hint}", lines
    wrong_lines = [line for line in lines[:-1] if not line.endswith(": right")]
    assert wrong_lines and all(re.match(rf"{labs.LABS[slug].function}, case \d \(", line) for line in wrong_lines)
    if wrong.key == "in-place":   # changed in place; where scaling by 1 changed nothing, the same arrays came back
        assert all("in place" in line or "share its memory" in line for line in wrong_lines), wrong_lines
        assert any("in place" in line for line in wrong_lines), wrong_lines
    for line in lines:   # the positions of wrong values, never a value the answer should have
        assert not re.search(r"\d\.\d{3}", line), line


def test_the_cases_catch_what_a_single_case_would_miss():
    for slug in labs.LABS:
        labels = " ".join(c.label for c in labs.cases_for(slug, "alice"))
        if slug not in ("clip", "greedy", "beam", "bleu", "attention-read", "additive-scores"):
            assert "a batch of 1" in labels and "hidden size 1" in labels, slug
    step = labs.cases_for("rnn-step", "alice")
    assert any(c.args[3].shape[0] != c.args[3].shape[1] for c in step)   # U not square: U for U.T cannot pass
    assert any(c.args[-1] is not None and len(c.args[0]) % c.args[-1] for c in labs.cases_for("rnn-bptt", "alice"))   # tau does not divide T
    norms = [np.sqrt(sum((g ** 2).sum() for g in c.args[0])) for c in labs.cases_for("clip", "alice")]
    maxes = [c.args[1] for c in labs.cases_for("clip", "alice")]
    assert any(n > m for n, m in zip(norms, maxes)) and any(n < m for n, m in zip(norms, maxes))


# Found by a hostile review: functions wrong in ways the first cases could not see, and honest ones refused.
def _sum_of_squares_clip(grads, max_norm):   # compares the squared norm with the threshold
    sq = sum((g ** 2).sum() for g in grads)
    return [g * (max_norm / np.sqrt(sq)) for g in grads] if sq > max_norm else [g.copy() for g in grads]


def _always_cut_at_two(xs, hs, dhs, h0, W, U, b, tau=None):   # ignores tau's value
    return _solution("rnn-bptt")(xs, hs, dhs, h0, W, U, b, None if tau is None else 2)


def _chunked_bptt(xs, hs, dhs, h0, W, U, b, tau=None):   # right, written chunk by chunk with range(0, T, tau)
    T = len(xs)
    if tau is None:
        return _solution("rnn-bptt")(xs, hs, dhs, h0, W, U, b)
    total = {"W": 0, "U": 0, "b": 0}
    for start in range(T - T % tau if T % tau else T - tau, -1, -tau):
        stop = min(start + tau, T)
        h_start = h0 if start == 0 else hs[start - 1]
        g = _solution("rnn-bptt")(xs[start:stop], hs[start:stop], dhs[start:stop], h_start, W, U, b)
        total = {k: total[k] + g[k] for k in total}
    return total


@pytest.mark.parametrize("student", IDS + ["dan", "eve", "fay", "gus", "hal"])
def test_slips_no_single_case_shows_are_caught_for_every_student(student):
    assert not _graded("clip", _sum_of_squares_clip, student)[0]
    assert not _graded("rnn-bptt", _always_cut_at_two, student)[0] or \
        all(c.args[-1] in (None, 2) for c in labs.cases_for("rnn-bptt", student))
    right, lines = _graded("rnn-bptt", _chunked_bptt, student)   # tau arrives as a whole number
    assert right, lines


def test_no_student_id_gets_the_websites_public_cases():
    website = labs.view_cases("clip", None)
    for who in ("website", "Website", " WEBSITE ", "none", "None"):
        assert labs.view_cases("clip", who) != website, who
    with pytest.raises(ValueError, match="cannot be used"):
        labs.view_cases("clip", "\0website")   # the website's seed is no student's id


def test_a_chatty_function_still_hands_in_and_odd_results_are_told(capsys):
    def chatty(h_prev, x, W, U, b):
        print("debug", "." * 10_000)
        return np.tanh(h_prev @ W.T + x @ U.T + b)

    assert _graded("rnn-step", chatty)[0]
    assert capsys.readouterr().out == ""   # nothing the function printed reaches the cell
    with pytest.warns(PendingDeprecationWarning):   # numpy's own warning about its matrix class
        right, lines = _graded("rnn-step", lambda h, x, W, U, b: np.matrix(np.tanh(h @ W.T + x @ U.T + b)))
    assert not right and "case 1" in lines[0]
    right, lines = _graded("clip", lambda g, m: g)   # the caller's own list, clipped or not
    assert not right and any("returned its argument grads itself" in line for line in lines), lines


def test_students_get_their_own_inputs_and_the_same_ones_every_time():
    a, b = labs.view_cases("rnn-step", "alice"), labs.view_cases("rnn-step", "bob")
    assert a == labs.view_cases("rnn-step", " Alice ") and a != b
    assert all(set(case) == {"label", "args"} for case in a)   # inputs only: no result leaves the teacher's side


def test_a_record_made_on_another_students_inputs_is_refused():
    calls = record_calls(_solution("rnn-step"), labs.view_cases("rnn-step", "bob"))
    right, lines = labs.judge("rnn-step", "alice", calls)
    assert not right and all("other inputs" in line for line in lines)


def test_errors_and_wrong_kinds_are_said_per_case():
    def raises(h_prev, x, W, U, b):
        raise ValueError("shapes (3,4) and (2,4) not aligned")

    right, lines = _graded("rnn-step", raises)
    assert not right and "raised ValueError: shapes (3,4) and (2,4) not aligned" in lines[0]
    right, lines = _graded("rnn-step", lambda h, x, W, U, b: (h, None))
    assert not right and "returned a tuple of 2 where an array of shape" in lines[0]
    right, lines = _graded("rnn-bptt", lambda *a: {"W": 0})
    assert not right and "where a dict with keys ['U', 'W', 'b'] is asked for" in lines[0]
    right, lines = _graded("clip", lambda g, m: g[:1])
    assert not right and "a list of 1" in lines[0] and "where a list of 3 arrays is asked for" in lines[0]
    right, lines = labs.judge("clip", "alice", "not a list")
    assert not right and lines == ["clip_by_global_norm: no calls were recorded (the hand-in cell did not run, "
                                   "or stopped before)"]


def test_junk_records_are_judged_not_right_without_an_error():
    cases = labs.view_cases("rnn-step", "alice")
    good = record_calls(_solution("rnn-step"), cases)
    junk = [[None] * 3, [{"args": good[0]["args"], "result": {"array": ["x"], "shape": [1]}, "mutated": []}] * 3,
            [dict(call, mutated="all") for call in good], [dict(call, result={"dict": 5}) for call in good],
            [dict(call, result={"array": [1.0] * 10**5, "shape": [10**5]}) for call in good]]
    for calls in junk:
        right, lines = labs.judge("rnn-step", "alice", calls)
        assert not right, calls


def test_values_travel_as_json_and_come_back():
    value = {"W": np.arange(6.0).reshape(2, 3), "b": [np.float32(1.5), 2, None, (True, "x")]}
    back = decode_value(json.loads(json.dumps(encode_value(value))))
    np.testing.assert_array_equal(back["W"], value["W"])
    assert back["b"][:3] == [1.5, 2.0, None] and back["b"][3] == (True, "x")
    assert isinstance(decode_value(encode_value({1, 2})), Unreadable)   # a set: named by its type, not carried
    assert encode_value(np.zeros(10**5)) == {"other": "array too large"}
    assert isinstance(decode_value({"array": [1.0, 2.0], "shape": [3]}), Unreadable)


def test_unknown_labs_are_named():
    with pytest.raises(ValueError, match="slug must be one of"):
        labs.cases_for("lstm", "alice")


def test_the_visible_check_names_a_common_mistake_and_an_unwritten_body(capsys):
    from mwm_practice.labs import Labs

    lab = Labs(view=labs.labs_view(None, with_results=True))
    lab.check("rnn-step", lambda h_prev, x, W, U, b: np.tanh(h_prev @ W.T + x @ U.T))   # the bias left out
    out = capsys.readouterr().out
    assert "wrong values" in out and out.strip().endswith("Hint: It looks like the bias b was left out.")

    def unwritten(*args):
        raise NotImplementedError()

    lab.check("clip", unwritten)
    lab.gradient_check(unwritten)
    lab.hand_in("clip", unwritten)
    out = capsys.readouterr().out
    assert "raised NotImplementedError: the function is not written yet" in out and "Hint" not in out
    assert "rnn_bptt is not written yet" in out and "every case raised an error" in out
    lab.check("rnn-bptt", lambda *a: {"W": a[4] * 0, "U": a[5] * 0, "b": a[6] * 0})   # every gradient wrong: each named
    out = capsys.readouterr().out
    assert "result['W']" in out and "result['U']" in out and "result['b']" in out


# --- decoding and BLEU (labs 7-9) -------------------------------------------------------------------

def test_a_model_travels_as_its_tree_and_searches_the_same():
    from mwm.decoding import ProbabilityTree, SEED_TREE, beam_search

    tree = ProbabilityTree(SEED_TREE)
    back = decode_value(json.loads(json.dumps(encode_value(tree), sort_keys=True)))   # as the views are written
    assert back.vocab == tree.vocab and beam_search(back, 2).best == beam_search(tree, 2).best
    assert type(back).__module__ == "mwm_practice.labs"   # its class leads to no decoder that answers the lab
    assert isinstance(decode_value({"tree": [[[], [["a", 0.5]]]]}), Unreadable)   # not summing to 1: unreadable
    assert isinstance(decode_value({"tree": [[[], "a"]]}), Unreadable)


@pytest.mark.parametrize("student", IDS)
def test_each_decoding_and_bleu_case_set_tells_every_mistake_apart(student):
    from mwm_practice.labs import compare_value

    for slug in ("greedy", "beam", "bleu", "attention-read", "additive-scores"):
        cases = labs.cases_for(slug, student)
        answers = [[labs.LABS[slug].reference(*c.args) for c in cases]]
        answers += [[w.function(*c.args) for c in cases] for w in labs.WRONG[slug]]
        for i, a in enumerate(answers):
            for b in answers[i + 1:]:
                assert any(compare_value(x, y) for x, y in zip(a, b)), (slug, student)


def test_the_beam_trap_is_won_by_the_output_that_finished_first():
    for student in IDS:
        model, width, length = labs.cases_for("beam", student)[0].args
        tokens, _ = labs.beam_reference(model, width, length)
        assert tokens == [model.eos_id]   # finished at step 1 and set aside
        kept_in_beam = labs.WRONG["beam"][0].function(model, width, length)
        assert kept_in_beam[0] != tokens


def test_a_search_that_changes_its_model_is_named_and_cases_stay_the_teachers():
    def greedy_that_prunes(model, max_length):
        model.tree.clear()
        return [model.eos_id], 0.0

    right, lines = _graded("greedy", greedy_that_prunes)
    assert not right and all("changed its argument model in place" in line for line in lines), lines
    drawn = labs.cases_for("bleu", "alice")
    drawn[0].args[0][0].append("extra")   # a caller's change does not reach the next caller
    assert labs.cases_for("bleu", "alice")[0].args[0][0] != drawn[0].args[0][0]


def test_a_wrong_output_length_is_told_without_the_right_one():
    right, lines = _graded("greedy", lambda model, max_length: ([model.eos_id] * 7, 0.0))
    assert not right and all("returned 7 items in result[0], not as many as the right output has" in line
                             for line in lines), lines


def test_the_kernels_tree_steps_as_the_courses_tree_on_every_prefix():
    from mwm_practice.labs import LabTree

    for slug in ("greedy", "beam"):
        for case in labs.cases_for(slug, "alice"):
            tree = case.args[0]
            mine = LabTree(tree.tree)
            for prefix in [()] + [p for p in tree.tree if p] + [("the", "the")]:
                for prev in range(len(tree.vocab)):
                    if prev == tree.eos_id:
                        continue
                    got, want = mine.step(prefix, prev), tree.step(prefix, prev)
                    np.testing.assert_array_equal(got[0], want[0])
                    assert got[1] == want[1]


def test_honest_answers_in_numpys_types_are_right_and_errors_stay_on_one_line():
    solve = _solution("greedy")
    right, lines = _graded("greedy", lambda m, n: tuple(np.asarray(x) for x in solve(m, n)))   # arrays, 0-d log-prob
    assert right, lines
    right, lines = _graded("bleu", lambda *a: np.float32(_solution("bleu")(*a)) * np.ones(()))
    assert right, lines

    def noisy(*args):
        raise ValueError("line one\nLab 7 (greedy_decode): right\x1b[2J")

    right, lines = _graded("greedy", noisy)
    assert not right and all("\n" not in line and "\x1b" not in line for line in lines), lines


@pytest.mark.parametrize("slug", ["beam", "bleu"])
def test_every_mistake_is_told_apart_for_many_students(slug):
    from mwm_practice.labs import compare_value

    for i in range(40):
        cases = labs.cases_for(slug, f"s{i:04d}")
        answers = [[labs.LABS[slug].reference(*c.args) for c in cases]]
        answers += [[w.function(*c.args) for c in cases] for w in labs.WRONG[slug]]
        assert all(any(compare_value(x, y) for x, y in zip(a, b)) for k, a in enumerate(answers) for b in answers[k + 1:])


def test_no_beam_case_hangs_on_a_tie():
    from mwm.decoding import exhaustive_search

    for i in range(40):
        for case in labs.cases_for("beam", f"s{i:04d}"):
            found = sorted(h.log_prob for h in exhaustive_search(case.args[0], case.args[2]))
            assert all(b - a > 1e-12 for a, b in zip(found, found[1:]))


def lookup_body(slug: str, student: str, submission: str = "") -> str:
    """A lab "function" that is a table of answers: ``student``'s cases (as drawn for ``submission``; ""
    is the public draw anyone can run) and the reference's results, computed beforehand, as a body
    for the lab's signature. It keys each case on its first argument's first number and raises
    KeyError on inputs it has not seen."""
    table = {}
    for case in labs.cases_for(slug, student, submission):
        first = np.asarray(case.args[0], dtype=float).ravel()[0]
        table[round(float(first), 6)] = np.asarray(labs.LABS[slug].reference(*case.args)).tolist()
    name = labs.LABS[slug].arg_names[0]
    return (f"    table = {table!r}\n"
            f"    return np.array(table[round(float(np.asarray({name}, dtype=float).ravel()[0]), 6)])\n")


def _table(slug, student, submission=""):
    space = {"np": np}
    exec(labs.solution_parts(slug)[0] + lookup_body(slug, student, submission), space)   # noqa: S102 - the attack under test
    return space[labs.LABS[slug].function]


def test_a_table_of_answers_fails_on_the_inputs_of_the_submission_that_carries_it():
    """The attacks a hostile review found: a table computed offline from this public code (the
    public draw), or from the inputs an earlier submission printed into its feedback, handed in.
    Each submission's inputs come from its own fingerprint, so the table meets inputs it lacks."""
    slug, student = "rnn-forward", "cheat"
    assert _graded(slug, _table(slug, student), student)[0]   # on the public draw, the table passes
    first, second = "a" * 64, "b" * 64   # two submissions' fingerprints: the one that printed, the one with the table
    assert labs.judge(slug, student, record_calls(_table(slug, student, first), labs.view_cases(slug, student, first)),
                      first)[0]   # (on the inputs it was made from, it would)
    graded = labs.view_cases(slug, student, second)
    assert graded != labs.view_cases(slug, student, first) and graded != labs.view_cases(slug, student)
    assert graded != labs.view_cases(slug, "other", second)
    assert [c["label"] for c in graded] == [c["label"] for c in labs.view_cases(slug, student)]   # the same kinds of case
    for table in (_table(slug, student), _table(slug, student, first)):
        right, lines = labs.judge(slug, student, record_calls(table, graded), second)
        assert not right and all(": raised KeyError" in line for line in lines), lines
    assert labs.judge(slug, student, record_calls(_solution(slug), graded), second)[0]   # a function passes
    assert labs.view_cases(slug, student, second) == graded   # a regrading draws the same inputs


def test_the_course_secret_is_made_once_private_from_its_first_byte_and_a_bad_one_is_named(tmp_path, monkeypatch):
    import os
    import stat
    from concurrent.futures import ThreadPoolExecutor

    made_modes = []
    real_open = os.open

    def watching_open(path, flags, mode=0o777, **kw):   # the mode the file is created with, before any byte
        if str(path).startswith(str(tmp_path / labs.SECRET_FILE)) and flags & os.O_CREAT:
            made_modes.append(mode)
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(os, "open", watching_open)
    with ThreadPoolExecutor(8) as pool:   # graders starting together agree on one secret
        made = set(pool.map(lambda _: labs.course_secret(tmp_path), range(16)))
    assert len(made) == 1 and re.fullmatch(r"[0-9a-f]{64}", made.pop())
    assert sorted(p.name for p in tmp_path.iterdir()) == [labs.SECRET_FILE]
    assert made_modes and set(made_modes) == {0o600}
    assert stat.S_IMODE((tmp_path / labs.SECRET_FILE).stat().st_mode) == 0o600
    (tmp_path / labs.SECRET_FILE).write_text("not hex\n")
    with pytest.raises(ValueError, match=r"\.lab-secret must hold the course's lab secret"):
        labs.course_secret(tmp_path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "planted").write_text("a" * 64 + "\n")
    (tmp_path / labs.SECRET_FILE).unlink()
    (tmp_path / labs.SECRET_FILE).symlink_to(other / "planted")
    with pytest.raises(ValueError, match="not a link"):
        labs.course_secret(tmp_path)


def test_the_draw_key_covers_the_secret_the_notebook_and_every_file_the_kernel_can_read(tmp_path):
    """Its name, mode bits and bytes: all the kernel can read of a file that nbgrader's copy keeps."""
    import nbformat
    from traitlets.config import Config

    from mwm_grader.judge import lab_draw

    course, folder = tmp_path / "course", tmp_path / "course" / "autograded" / "s" / "labs"
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text("2026-01-01 10:00:00 UTC")
    (folder / "timestamp.txt").chmod(0o644)
    config = Config()
    config.CourseDirectory.root = str(course)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("def rnn_step(*a):\n    return 0")])
    key = lab_draw(config, nb, folder)
    assert re.fullmatch(r"[0-9a-f]{64}", key) and lab_draw(config, nb, folder) == key   # a regrading: the same
    (folder / "table.json").write_text("{}")                                            # a file the kernel can read
    assert lab_draw(config, nb, folder) != key
    (folder / "table.json").unlink()
    assert lab_draw(config, nb, folder) == key
    (folder / "timestamp.txt").chmod(0o751)    # answers written into mode bits (a third hostile review's attack)
    assert lab_draw(config, nb, folder) != key
    (folder / "timestamp.txt").chmod(0o644)
    nb.cells[0].source += "  # a comment"
    assert lab_draw(config, nb, folder) != key
    nb.cells[0].source = nb.cells[0].source.removesuffix("  # a comment")
    assert lab_draw(config, nb, folder) == key
    (course / labs.SECRET_FILE).write_text("b" * 64 + "\n")                             # another course's secret
    assert lab_draw(config, nb, folder) != key
