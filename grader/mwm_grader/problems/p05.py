"""Problem 5, temperature forwards and backwards (chapter 5): ``p_i ∝ e^{y_i/θ}``."""
from __future__ import annotations

import math

import numpy as np

from .base import Answer, Part, Problem, fmt, fmt_list, lit, num


def build(n) -> Problem:
    """Problem 5, temperature forwards and backwards (chapter 5): ``p_i ∝ e^{y_i/θ}``.

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
    theta_new = gap / math.log(p_want[0] / p_want[1])  # the same gap, divided by theta, gives p_wanted
    assert np.allclose(softmax([gap, 0.0], theta_new), p_want), "the temperature must give the wanted shares"
    cold = softmax([gap, 0.0], 1e-9)
    theta_list = ", ".join(f"$\\theta={num(th)}$" for th in thetas)
    return Problem(
        5, "Temperature, forwards and backwards", "medium",
        "$p_i\\propto e^{y_i/\\theta}$, and the ratio rule run backwards",
        statement=(
            f"A model chooses between two next words with logits ${num(logits[0])}$ and ${num(logits[1])}$, "
            "and divides the logits by a temperature $\\theta$ before the softmax."),
        given=f"logits = np.array({lit(logits)})\ntemperatures = {lit(thetas)}\n"
              f"p_now, p_wanted = {lit(p_now)}, {lit(p_want)}",
        parts=[
            Part("a", f"The first word's probability at {theta_list}, in that order, to four decimals. "
                      "Store the list in `p_first`.",
                 [Answer("p_first", "vector", firsts, what=f"{len(thetas)} numbers")],
                 "# Divide the logits by theta, then softmax; keep the first word's share.\n"
                 "p_first = [float(np.exp(logits[0] / theta) / np.exp(logits / theta).sum()) for theta in temperatures]\n"
                 "print(np.round(p_first, 4))"),
            Part("b", f"A second model gives its two words the probabilities ${num(p_now[0])}$ and "
                      f"${num(p_now[1])}$ at $\\theta=1$. At which temperature would it give them "
                      f"${num(p_want[0])}$ and ${num(p_want[1])}$? Three decimals; store it in `theta_new`.",
                 [Answer("theta_new", "number", theta_new, decimals=3, what="a number")],
                 "# At theta = 1 the ratio of the shares is e^gap; at theta it is e^(gap / theta).\n"
                 "gap = np.log(p_now[0] / p_now[1])\n"
                 "theta_new = gap / np.log(p_wanted[0] / p_wanted[1])\nprint(round(theta_new, 3))"),
            Part("c", "What does the second model give its two words as $\\theta\\to 0$? "
                      "Store the two probabilities in `p_cold`.",
                 [Answer("p_cold", "vector", cold.tolist(), what="two numbers")],
                 "# gap / theta grows without bound: the likelier word takes everything.\n"
                 "p_cold = [1.0, 0.0] if p_now[0] > p_now[1] else [0.0, 1.0]\nprint(p_cold)"),
        ],
        steps=[
            "**(a) Two words make a sigmoid.** $p_1=\\dfrac{e^{y_1/\\theta}}{e^{y_1/\\theta}+e^{y_2/\\theta}}"
            "=\\sigma\\big((y_1-y_2)/\\theta\\big)$, so "
            + ", ".join(f"$\\theta={num(th)}$: $\\sigma({num((logits[0] - logits[1]) / th)})\\approx {fmt(q)}$"
                        for th, q in zip(thetas, firsts)) + ".",
            f"**(b) The gap.** At $\\theta=1$ the shares stand in the ratio ${num(p_now[0])}/{num(p_now[1])}="
            f"{num(p_now[0] / p_now[1])}=e^{{\\Delta}}$, so the logit gap is "
            f"$\\Delta=\\ln {num(p_now[0] / p_now[1])}\\approx {fmt(gap)}$.",
            f"**(b) The temperature.** We need $e^{{\\Delta/\\theta}}={num(p_want[0])}/{num(p_want[1])}="
            f"{num(p_want[0] / p_want[1])}$, so $\\Delta/\\theta=\\ln {num(p_want[0] / p_want[1])}\\approx "
            f"{fmt(math.log(p_want[0] / p_want[1]))}$ and $\\theta\\approx {fmt(gap)}/{fmt(math.log(p_want[0] / p_want[1]))}"
            f"\\approx {fmt(theta_new, 3)}$.",
            "**(c) Freezing.** As $\\theta\\to 0$ the scaled gap $\\Delta/\\theta$ grows without limit: the shares "
            f"tend to ${fmt_list(cold, 0)}$, which is greedy choice.",
        ],
        remember=("Temperature only rescales the gaps between logits. Any two shares stand in the ratio "
                  "$e^{\\text{gap}/\\theta}$, so the rule can be used in either direction."),
        numbers=n)
