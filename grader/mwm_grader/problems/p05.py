"""Problem 5, temperature forwards and backwards (chapter 5): ``p_i ∝ e^{y_i/θ}``."""
from __future__ import annotations

import math

import numpy as np

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 5, temperature forwards and backwards (chapter 5): ``p_i ∝ e^{y_i/θ}``.

    Its words are in ``p05.md.j2``.

    Args:
        n: ``dict(logits, temperatures, p_now, p_wanted)``: two float logits, a list of positive temperatures,
            and two pairs of shares (each summing to 1, neither 1:1, both favouring the same word).

    Returns:
        Problem with answers ``p_first`` (one per temperature), ``theta_new`` (> 0, three decimals), ``p_cold``.

    Raises:
        ValueError (from mwm): if ``p_now`` is 1:1 (no temperature changes it). ZeroDivisionError: if
        ``p_wanted`` is 1:1. AssertionError: if the temperature found does not give the wanted shares.
    """
    from mwm import softmax

    logits, thetas = np.array(n["logits"], dtype=float), n["temperatures"]
    firsts = [float(softmax(logits, th)[0]) for th in thetas]
    p_now, p_want = n["p_now"], n["p_wanted"]
    gap = math.log(p_now[0] / p_now[1])                 # logit gap that gives p_now at theta = 1
    scaled_gap = math.log(p_want[0] / p_want[1])        # what the gap must shrink (or grow) to
    theta_new = gap / scaled_gap                        # the same gap, divided by theta, gives p_wanted
    assert np.allclose(softmax([gap, 0.0], theta_new), p_want), "the temperature must give the wanted shares"
    cold = softmax([gap, 0.0], 1e-9)
    text = Text(5, logits=logits, temperatures=thetas, p_first=firsts, p_now=p_now, p_wanted=p_want, gap=gap,
                scaled_gap=scaled_gap, theta_new=theta_new, p_cold=cold)
    parts = [
        Part("a", text("question_a"), [Answer("p_first", "vector", firsts, what=f"{len(thetas)} numbers")],
             text("solution_a")),
        Part("b", text("question_b"), [Answer("theta_new", "number", theta_new, decimals=3, what="a number")],
             text("solution_b")),
        Part("c", text("question_c"), [Answer("p_cold", "vector", cold.tolist(), what="two numbers")],
             text("solution_c")),
    ]
    return Problem(5, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
                   parts=parts, steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
