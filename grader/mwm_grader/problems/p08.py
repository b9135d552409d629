"""Problem 8, fade or explode (chapter 7): the first whole ``T`` with ``w^T < eps`` (or ``w^T > big``)."""
from __future__ import annotations

import math


from .base import Answer, Part, Problem, fmt, lit, num, par, sci


def build(n) -> Problem:
    """Problem 8, fade or explode (chapter 7): the first whole ``T`` with ``w^T < eps`` (or ``w^T > big``).

    Args:
        n: ``dict(w_fade, eps, w_grow, big)``: 0 < w_fade < 1, eps > 0, w_grow > 1, big > 1 (floats).

    Returns:
        Problem with answers ``first_below`` (a function, checked on cases), ``T_fade``, ``T_explode``
        (whole numbers).

    Raises:
        AssertionError: if a bound ln(eps)/ln(w) falls within 1e-6 of a whole number (rounding would decide).
        ValueError (from mwm): if w_fade is not below 1.
    """
    from mwm.dynamics import first_step_below

    w, eps, w2, big = n["w_fade"], n["eps"], n["w_grow"], n["big"]
    T_fade = first_step_below(w, eps)
    T_grow = first_step_below(1 / w2, 1 / big)     # w2^T > big  <=>  (1/w2)^T < 1/big
    assert w ** T_fade < eps <= w ** (T_fade - 1) and w2 ** T_grow > big >= w2 ** (T_grow - 1)
    cases = tuple(((f, e), first_step_below(f, e))
                  for f, e in [(0.5, 0.01), (0.9, 0.5), (0.99, 0.1), (0.3, 1e-6), (w, eps)])
    for (f, e), T in cases:  # no case sits on a boundary, where rounding could decide
        bound = math.log(e) / math.log(f)
        assert abs(bound - round(bound)) > 1e-6 and T == math.floor(bound) + 1
    return Problem(
        8, "Fade or explode", "medium", "solving $w^T<\\varepsilon$ for the number of steps $T$ with logarithms",
        statement=(
            "In the scalar chain $h_t=w\\,h_{t-1}$ the gradient that travels back $T$ steps is multiplied by $w^T$."),
        given=f"w_fade, eps = {lit(w)}, {lit(eps)}\nw_grow, big = {lit(w2)}, {lit(big)}",
        parts=[
            Part("a", "For $0<w<1$, find a formula for the smallest whole $T$ with $w^T<\\varepsilon$, and "
                      "write it as a Python function `first_below(w, eps)` that returns that whole number.",
                 [Answer("first_below", "function", None, decimals=None, cases=cases, n_args=2, what="a function",
                         signature="first_below(w, eps)",
                         formula="\\lfloor \\ln\\varepsilon/\\ln w\\rfloor+1")],
                 "# w^T < eps  <=>  T ln w < ln eps  <=>  T > ln eps / ln w  (ln w < 0 flips the sign).\n"
                 "def first_below(w, eps):\n"
                 "    return int(np.floor(np.log(eps) / np.log(w))) + 1\n"
                 "print(first_below(w_fade, eps))", points=2),
            Part("b", f"Use it for $w={num(w)}$ and $\\varepsilon={num(eps)}$. Store the step in `T_fade`.",
                 [Answer("T_fade", "integer", T_fade, what="a whole number")],
                 "T_fade = first_below(w_fade, eps)\nprint(T_fade)"),
            Part("c", f"For $w={num(w2)}$, the first $T$ at which $w^T$ exceeds ${num(big)}$. "
                      "Store it in `T_explode`.",
                 [Answer("T_explode", "integer", T_grow, what="a whole number")],
                 "# w^T > big  <=>  T > ln big / ln w  (ln w > 0: no flip).\n"
                 "T_explode = int(np.floor(np.log(big) / np.log(w_grow))) + 1\nprint(T_explode)"),
        ],
        steps=[
            "**(a) Take logarithms.** $w^T<\\varepsilon \\iff T\\ln w<\\ln\\varepsilon \\iff "
            "T>\\dfrac{\\ln\\varepsilon}{\\ln w}$; the inequality turns round because $\\ln w<0$. The first "
            "whole number past that bound is $T=\\lfloor \\ln\\varepsilon/\\ln w\\rfloor+1$.",
            f"**(b) Fading.** $\\ln {num(eps)}/\\ln {num(w)}\\approx {fmt(math.log(eps))}/{par(math.log(w))}"
            f"\\approx {fmt(math.log(eps) / math.log(w), 2)}$, so $T={T_fade}$. Check against "
            f"$\\varepsilon={sci(eps)}$: ${num(w)}^{{{T_fade - 1}}}\\approx {sci(w ** (T_fade - 1))}$ is not yet "
            f"below it, ${num(w)}^{{{T_fade}}}\\approx {sci(w ** T_fade)}$ is.",
            f"**(c) Exploding.** ${num(w2)}^T>{num(big)} \\iff T>\\ln {num(big)}/\\ln {num(w2)}\\approx "
            f"{fmt(math.log(big))}/{par(math.log(w2))}\\approx {fmt(math.log(big) / math.log(w2), 2)}$, so "
            f"$T={T_grow}$. Check: ${num(w2)}^{{{T_grow - 1}}}\\approx {fmt(w2 ** (T_grow - 1), 1)}$, "
            f"${num(w2)}^{{{T_grow}}}\\approx {fmt(w2 ** T_grow, 1)}$.",
        ],
        remember=(f"A factor that looks harmless compounds fast. Repeated {T_fade} times, ${num(w)}$ leaves "
                  f"less than ${num(eps)}$ of the gradient; repeated {T_grow} times, ${num(w2)}$ multiplies it by "
                  f"more than ${num(big)}$. The logarithm turns each of these counts into one division."),
        numbers=n)
