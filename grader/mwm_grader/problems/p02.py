"""Problem 2, one step with matrices (the vector cell, chapter 2), two steps of a two-number hidden state."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 2, one step with matrices (the vector cell, chapter 2), two steps of a two-number hidden state.

    Its words are in ``p02.md.j2``.

    Args:
        n: ``dict(W, U, b, h0, xs)``: W 2x2, U 2x1, b and h0 two floats, xs two floats (lists).

    Returns:
        Problem with answers ``h1``, ``h2`` (two numbers each, four decimals).

    Raises:
        KeyError: if a number is missing; ValueError (from mwm): if a shape is wrong.
    """
    from mwm import rnn_forward

    W, U, b, h0, xs = (np.array(n[k], dtype=float) for k in ("W", "U", "b", "h0", "xs"))
    hs = rnn_forward(xs.reshape(-1, 1), dict(W=W, U=U, b=b), h0=h0)[0]
    pieces = []
    prev = h0
    for t in range(2):
        Wh, Ux = W @ prev, U @ xs[t:t + 1]
        pieces.append((Wh, Ux, Wh + Ux + b))
        prev = hs[t]
    text = Text(2, W=W, U=U, b=b, h0=h0, xs=xs, hs=hs, pieces=pieces)
    parts = [Part(letter, text("question", t=t), [Answer(f"h{t + 1}", "vector", hs[t].tolist(), what="two numbers")],
                  text(f"solution_{letter}"))
             for t, letter in enumerate("ab")]
    return Problem(2, text("title"), "easy", text("practises"), statement=text("statement"), given=text("given"),
                   parts=parts, steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
