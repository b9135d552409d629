"""The coding labs graded end to end by nbgrader: released, fetched, worked, submitted, collected, autograded.

A class of five (the worked solutions; the release untouched; one student with an in-place RNN
step, per-array clipping and a BLEU that returns a constant; one whose error message is markup; one
who takes four answers from the course library without naming it and hands in a table of answers
computed with the public grader code for a fifth: the graded inputs are drawn with the course's
secret and a fingerprint of what the kernel reads, so the table fails) goes through tests/practice_course.py's ``grade_class`` with the
``labs`` assignment: every kernel runs in the bubblewrap sandbox with the student's own inputs,
and every lab is judged outside it (mwm_grader.judge.JudgeAnswers, mwm_grader.labs.judge). Kept
apart from tests/test_labs.py so that ``make test-fast`` (no grading) leaves it out.
"""
import numpy as np  # noqa: F401  (the worked bodies use np)
import pytest

from mwm_grader import labs
from tests.test_labs import lookup_body


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

#: A student who takes the answers from the course library without naming it (found by a hostile
#: review): the grading hides mwm and mwm_torch from the kernel, so each of these raises.
CHEAT_BODIES = {
    "greedy": "    h = model.step.__globals__['greedy_decode'](model, max_length)\n    return list(h.tokens), h.log_prob\n",
    "bleu": "    import sacrebleu   # the course checks its BLEU against sacrebleu: hidden too\n"
            "    streams = [[' '.join(refs[k]) if k < len(refs) else None for refs in references]\n"
            "               for k in range(max(map(len, references)))]\n"
            "    bleu = sacrebleu.BLEU(tokenize='none', smooth_method='none', force=True, effective_order=False,\n"
            "                          max_ngram_order=max_n)\n"
            "    return bleu.corpus_score([' '.join(c) for c in candidates], streams).score / 100\n",
    "attention-read": "    import importlib\n    return importlib.import_module('mwm_' 'torch.translator')"
                      ".attention_read(dec, states, src_len)\n",
    "beam": "    import pathlib, mwm_practice\n    space = {}\n    exec((pathlib.Path(mwm_practice.__file__).parents[1] / "
            "'m' 'wm' / 'decoding.py').read_text(), space)\n    h = space['beam_search'](model, beam_width, "
            "max_length).best\n    return list(h.tokens), h.log_prob\n",
    # the student's cases and their answers as anyone can draw them with this public code
    "rnn-forward": lookup_body("rnn-forward", "cheat"),
}
#: An honest body that names the library in a comment: nothing is judged by the source.
HONEST_NOTE = {"greedy": "    # chapter 13's mwm.decoding.greedy_decode, written out\n" + labs.solution_parts("greedy")[1]}


@pytest.fixture(scope="module")
def graded_labs(tmp_path_factory):
    from tests.practice_course import cell, grade_class

    def worked(nb, bodies=None):
        for slug in labs.LABS:
            body = (bodies or {}).get(slug, labs.solution_parts(slug)[1])
            cell(nb, f"lab-{slug}-answer").source = _answer(slug, body)
        return []

    return grade_class(tmp_path_factory.mktemp("labs"), {"ann": lambda nb: worked(nb, HONEST_NOTE),
                                                         "blank": lambda nb: [],
                                                         "sloppy": lambda nb: worked(nb, WRONG_BODIES),
                                                         "mallory": lambda nb: worked(nb, HOSTILE_BODIES),
                                                         "cheat": lambda nb: worked(nb, CHEAT_BODIES)},
                       assignment="labs")


def test_a_labs_class_is_graded_outside_the_kernel(graded_labs):
    from tests.practice_course import autograded, cell, errors, text

    assert graded_labs["result"]["success"], graded_labs["result"].get("error")
    assert graded_labs["max_score"] == 2 * len(labs.LABS)
    assert graded_labs["scores"] == {"ann": 22.0, "blank": 0.0, "sloppy": 16.0, "mallory": 20.0, "cheat": 12.0}
    cheat = autograded(graded_labs, "cheat")
    for slug in CHEAT_BODIES:   # each raised in the kernel: the library is not there while it is graded,
        assert "raised" in text(cell(cheat, f"lab-{slug}-test")), slug   # and the table has no graded input
    assert "raised KeyError" in text(cell(cheat, "lab-rnn-forward-test"))
    secret = graded_labs["course"] / labs.SECRET_FILE   # made by the first grading, readable by its owner only
    assert secret.stat().st_mode & 0o777 == 0o600
    assert graded_labs["parts"]["sloppy"] == {"lab-rnn-step": 0.0, "lab-rnn-forward": 2.0, "lab-rnn-bptt": 2.0,
                                              "lab-clip": 0.0, "lab-lstm-step": 2.0, "lab-gru-step": 2.0,
                                              "lab-greedy": 2.0, "lab-beam": 2.0, "lab-bleu": 0.0,
                                              "lab-attention-read": 2.0, "lab-additive-scores": 2.0}
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


def test_the_class_report_lists_the_labs_with_the_mistakes_named(graded_labs):
    from mwm_grader import class_report
    from mwm_grader import report as report_mod

    db_url, course_id, folder = class_report.course_settings(graded_labs["course"])
    summary = report_mod.gather(graded_labs["course"], db_url, course_id, "labs", autograded=folder)
    assert list(summary.parts) == [f"lab-{slug}" for slug in labs.LABS]   # in the labs' order
    assert summary.parts["lab-rnn-step"].label == "Lab 1 (rnn_step)"
    sloppy = next(row for row in summary.students if row.student == "sloppy")
    assert sloppy.mistakes == {"lab-rnn-step": {"rnn_step": "in-place"}, "lab-clip": {"clip_by_global_norm": "per-array"}}
    assert summary.parts["lab-clip"].mistakes == {"per-array": 1}
    blank = next(row for row in summary.students if row.student == "blank")
    assert sorted(blank.blank) == sorted(f"lab-{slug}" for slug in labs.LABS)   # every body left unwritten
    page = report_mod.render_html(summary)
    assert "Lab 4 (clip_by_global_norm)" in page and labs.WRONG["clip"][0].hint.replace("'", "&#x27;") in page
