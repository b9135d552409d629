"""The coding labs graded end to end by nbgrader: released, fetched, worked, submitted, collected, autograded.

A class of four (the worked solutions; the release untouched; one student with an in-place RNN
step, per-array clipping and a BLEU that returns a constant; one whose error message is markup) goes through tests/practice_course.py's ``grade_class`` with the
``labs`` assignment: every kernel runs in the bubblewrap sandbox with the student's own inputs,
and every lab is judged outside it (mwm_grader.judge.JudgeAnswers, mwm_grader.labs.judge). Kept
apart from tests/test_labs.py so that ``make test-fast`` (no grading) leaves it out.
"""
import numpy as np  # noqa: F401  (the worked bodies use np)
import pytest

from mwm_grader import labs


def _answer(slug, body):
    head, _ = labs.solution_parts(slug)
    return head + body


WRONG_BODIES = {   # one student's slips, written as a student would
    "rnn-step": "    h = h_prev\n    h[...] = np.tanh(h_prev @ W.T + x @ U.T + b)\n    return h\n",
    "clip": "    return [g * min(1.0, max_norm / np.sqrt((g ** 2).sum())) for g in grads]\n",
    "bleu": "    return 0.5\n",
}


#: An error message that is markup: the verdict quotes it, and every page must show it as text.
HOSTILE = "<img src=x onerror=alert(1)><script>alert(2)</script>"
HOSTILE_BODIES = {"rnn-step": f"    raise ValueError({HOSTILE!r})\n"}


@pytest.fixture(scope="module")
def graded_labs(tmp_path_factory):
    from tests.practice_course import cell, grade_class

    def worked(nb, bodies=None):
        for slug in labs.LABS:
            body = (bodies or {}).get(slug, labs.solution_parts(slug)[1])
            cell(nb, f"lab-{slug}-answer").source = _answer(slug, body)
        return []

    return grade_class(tmp_path_factory.mktemp("labs"), {"ann": worked, "blank": lambda nb: [],
                                                         "sloppy": lambda nb: worked(nb, WRONG_BODIES),
                                                         "mallory": lambda nb: worked(nb, HOSTILE_BODIES)},
                       assignment="labs")


def test_a_labs_class_is_graded_outside_the_kernel(graded_labs):
    from tests.practice_course import autograded, cell, errors, text

    assert graded_labs["result"]["success"], graded_labs["result"].get("error")
    assert graded_labs["max_score"] == 2 * len(labs.LABS)
    assert graded_labs["scores"] == {"ann": 18.0, "blank": 0.0, "sloppy": 12.0, "mallory": 16.0}
    assert graded_labs["parts"]["sloppy"] == {"lab-rnn-step": 0.0, "lab-rnn-forward": 2.0, "lab-rnn-bptt": 2.0,
                                              "lab-clip": 0.0, "lab-lstm-step": 2.0, "lab-gru-step": 2.0,
                                              "lab-greedy": 2.0, "lab-beam": 2.0, "lab-bleu": 0.0}
    nb = autograded(graded_labs, "sloppy")
    assert errors(cell(nb, "lab-rnn-step-test")) == ["NotRight: Lab 1 (rnn_step): not right"]   # 0 points
    step = text(cell(nb, "lab-rnn-step-test"))
    assert "changed its argument h_prev in place" in step and "Hint: The result is right but h_prev" in step
    clip = text(cell(nb, "lab-clip-test"))
    assert "case 1 (three arrays, longer than the threshold): wrong values in result[0]" in clip
    assert "Hint: It looks like each array was clipped on its own" in clip
    assert text(cell(nb, "lab-rnn-forward-test")).startswith("Lab 2 (rnn_forward): right")
    blank = text(cell(autograded(graded_labs, "blank"), "lab-rnn-step-test"))
    assert "raised NotImplementedError" in blank
    feedback = (graded_labs["course"] / "feedback" / "sloppy" / "labs" / "labs.html").read_text(encoding="utf-8")
    assert "changed its argument h_prev in place" in feedback


def test_an_error_message_that_is_markup_stays_text_in_the_feedback(graded_labs):
    from tests.practice_course import autograded, cell, text

    assert f"raised ValueError: {HOSTILE}" in text(cell(autograded(graded_labs, "mallory"), "lab-rnn-step-test"))
    page = (graded_labs["course"] / "feedback" / "mallory" / "labs" / "labs.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=alert(1)&gt;" in page   # shown, escaped
    assert "<img src=x" not in page and "<script>alert(2)" not in page
