"""Problem 4, read-out and loss (chapter 4): softmax, the cross-entropy ``-ln p`` and prediction minus truth."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem, fmt, fmt_list, lit, num, number_word


def build(n) -> Problem:
    """Problem 4, read-out and loss (chapter 4): softmax, the cross-entropy ``-ln p`` and prediction minus truth.

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
    e = np.exp(logits)
    logit_list = ", ".join(f"“{w}” ${num(y)}$" for w, y in zip(words, logits))
    quoted = ", ".join(f"“{w}”" for w in words)
    count = number_word(len(words))
    return Problem(
        4, "Read-out and loss", "easy", "softmax, the cross-entropy $-\\ln p$, and prediction minus truth",
        statement=(
            f"A language model has just read “{n['context']}”. Its read-out gives the possible next "
            f"words these logits: {logit_list}. Keep the words in this order ({quoted}) in every list "
            "you give."),
        given=f"words = {lit(words)}\nlogits = np.array({lit(logits)})\n"
              f"true_word, other_word = {n['truth']!r}, {n['other']!r}",
        parts=[
            Part("a", f"The probabilities of the {count} words, to four decimals. Store the list in `probs`.",
                 [Answer("probs", "vector", p.tolist(), what=f"{count} numbers")],
                 "# Softmax: exponentiate each logit, add them up, divide.\n"
                 "probs = np.exp(logits) / np.exp(logits).sum()\nprint(probs.round(4))"),
            Part("b", f"Suppose the word that really came next is “{n['truth']}”. How large is the loss at "
                      f"this step? How large would it be had “{n['other']}” come next instead? Three decimals; "
                      "store them in `loss_true` and `loss_other`.",
                 [Answer("loss_true", "number", float(loss_t), decimals=3, what="a number"),
                  Answer("loss_other", "number", float(loss_o), decimals=3, what="a number")],
                 "# The loss of one step is the cross-entropy -ln p of the true word.\n"
                 "loss_true = -np.log(probs[words.index(true_word)])\n"
                 "loss_other = -np.log(probs[words.index(other_word)])\n"
                 "print(round(loss_true, 3), round(loss_other, 3))"),
            Part("c", f"The gradient of the loss with respect to the {count} logits (prediction minus truth), "
                      "to four decimals. Store the list in `grad_logits`.",
                 [Answer("grad_logits", "vector", grad.tolist(), what=f"{count} numbers")],
                 "# Subtract the one-hot truth from the prediction.\n"
                 "truth = np.zeros(len(words))\ntruth[words.index(true_word)] = 1\n"
                 "grad_logits = probs - truth\nprint(grad_logits.round(4))"),
        ],
        steps=[
            "**Exponentiate.** " + ", ".join(f"$e^{{{num(y)}}}\\approx {fmt(v)}$" for y, v in zip(logits, e))
            + f"; together $\\approx {fmt(e.sum())}$.",
            "**(a) Divide.** " + ", ".join(f"{w} $\\approx {fmt(q)}$" for w, q in zip(words, p)) + ".",
            f"**(b) Cross-entropy.** The loss is $-\\ln {fmt(p[t])}\\approx {fmt(loss_t, 3)}$. Had the truth been "
            f"“{n['other']}”, it would have been $-\\ln {fmt(p[o])}\\approx {fmt(loss_o, 3)}$.",
            f"**(c) Prediction minus truth.** Take 1 away from the entry of “{n['truth']}”: "
            f"${fmt_list(grad)}$.",
        ],
        remember=("Confidence in the wrong word is what costs: the loss is small only when the true word "
                  "got a large share. A step against this gradient lowers every other logit in proportion to "
                  "its probability and raises the true word's by one minus its probability."),
        numbers=n)
