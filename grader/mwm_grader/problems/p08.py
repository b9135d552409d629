"""Problem 8, fade or explode (chapter 7): the first whole ``T`` with ``w^T < eps`` (or ``w^T > big``)."""
from __future__ import annotations

import math

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 8, fade or explode (chapter 7): the first whole ``T`` with ``w^T < eps`` (or ``w^T > big``); its words
    are ``p08.md.j2``.

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
    text = Text(8, w_fade=w, eps=eps, w_grow=w2, big=big, T_fade=T_fade, T_explode=T_grow,
                log_w_fade=math.log(w), log_eps=math.log(eps), log_w_grow=math.log(w2), log_big=math.log(big))
    return Problem(
        8, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
        parts=[
            Part("a", text("question_a"),
                 [Answer("first_below", "function", None, decimals=None, cases=cases, n_args=2, what="a function",
                         signature="first_below(w, eps)",
                         formula="\\lfloor \\ln\\varepsilon/\\ln w\\rfloor+1")],
                 text("solution_a"), points=2),
            Part("b", text("question_b"), [Answer("T_fade", "integer", T_fade, what="a whole number")],
                 text("solution_b")),
            Part("c", text("question_c"), [Answer("T_explode", "integer", T_grow, what="a whole number")],
                 text("solution_c")),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
