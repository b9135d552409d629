"""Problem 4, read-out and loss (chapter 4): softmax, the cross-entropy ``-ln p`` and prediction minus truth."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem, number_word
from .texts import Text


def build(n) -> Problem:
    """Problem 4, read-out and loss (chapter 4): softmax, the cross-entropy ``-ln p`` and prediction minus truth.

    Its words are in ``p04.md.j2``.

    Args:
        n: ``dict(context, words, logits, truth, other)``: a str, a list of distinct words, one float logit
            per word, and two of the words (the true next word and another).

    Returns:
        Problem with answers ``probs`` and ``grad_logits`` (one number per word), ``loss_true``, ``loss_other``;
        the notebook is given ``words``, ``logits``, ``true_word`` and ``other_word``.

    Raises:
        ValueError: if ``truth`` or ``other`` is not among ``words``. KeyError: if a number is missing.
    """
    from mwm import cross_entropy, readout_gradient, softmax

    words, logits = n["words"], np.array(n["logits"], dtype=float)
    t, o = words.index(n["truth"]), words.index(n["other"])
    p = softmax(logits)
    loss_t, loss_o = cross_entropy(p, t)[0], cross_entropy(p, o)[0]
    grad = readout_gradient(p, t)
    text = Text(4, context=n["context"], words=words, logits=logits, truth=n["truth"], other=n["other"],
                exps=np.exp(logits), probs=p, p_true=p[t], p_other=p[o], loss_true=loss_t, loss_other=loss_o,
                grad_logits=grad)
    count = f"{number_word(len(words))} numbers"
    parts = [
        Part("a", text("question_a"), [Answer("probs", "vector", p.tolist(), what=count)], text("solution_a")),
        Part("b", text("question_b"), [Answer("loss_true", "number", float(loss_t), decimals=3, what="a number"),
                                       Answer("loss_other", "number", float(loss_o), decimals=3, what="a number")],
             text("solution_b")),
        Part("c", text("question_c"), [Answer("grad_logits", "vector", grad.tolist(), what=count)], text("solution_c")),
    ]
    return Problem(4, text("title"), "easy", text("practises"), statement=text("statement"), given=text("given"),
                   parts=parts, steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
