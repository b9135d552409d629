"""Problem 6, the gradient through time (chapter 6): the backward product ``prod w (1 - h_t^2)`` over three steps."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 6, the gradient through time (chapter 6): the backward product ``prod w (1 - h_t^2)`` over three steps;
    its words are ``p06.md.j2``.

    Args:
        n: ``dict(w, u, b, h0, xs)``: floats, ``xs`` a list of three floats.

    Returns:
        Problem with answers ``hs`` (three numbers), ``dh3_dh2``, ``dh2_dh1``, ``dh3_dh1``, ``dh3_dx1``.

    Raises:
        KeyError: if a number is missing; IndexError: if ``xs`` has fewer than three inputs.
    """
    from mwm import scalar_rnn
    from mwm.bptt import scalar_bptt, step_factors

    w, u, b, h0, xs = n["w"], n["u"], n["b"], n["h0"], n["xs"]
    hs = scalar_rnn(xs, w=w, u=u, b=b, h0=h0)
    factors = step_factors(hs, w)                  # dh_t / dh_{t-1}, t = 1..3
    d32, d21 = float(factors[2]), float(factors[1])
    # the gradient of L = h_3 sent back by BPTT: dh[0] is dh_3/dh_1, da[0] * u is dh_3/dx_1
    grads = scalar_bptt(xs, hs, [0.0, 0.0, 1.0], w, u, b, h0)
    d31, d3x1 = float(grads.dh[0]), float(grads.da[0] * u)
    assert np.isclose(d31, d32 * d21)
    prev = [h0, *hs[:-1]]
    sums = [w * p + u * x + b for p, x in zip(prev, xs)]
    text = Text(6, w=w, u=u, b=b, h0=h0, xs=xs, hs=hs, sums=sums, dh3_dh2=d32, dh2_dh1=d21, dh3_dh1=d31,
                dh1_dx1=u * (1 - hs[0] ** 2), dh3_dx1=d3x1)
    return Problem(
        6, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
        parts=[
            Part("a", text("question_a"), [Answer("hs", "vector", hs.tolist(), what="three numbers")],
                 text("solution_a")),
            Part("b", text("question_b"),
                 [Answer("dh3_dh2", "number", d32, what="a number"),
                  Answer("dh2_dh1", "number", d21, what="a number"),
                  Answer("dh3_dh1", "number", d31, what="a number")],
                 text("solution_b"), points=2),
            Part("c", text("question_c"), [Answer("dh3_dx1", "number", d3x1, what="a number")],
                 text("solution_c")),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
