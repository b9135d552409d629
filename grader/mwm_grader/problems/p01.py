"""Problem 1, a forward pass by hand (the one-number cell, chapter 2): ``h_t = tanh(w h_{t-1} + u x_t + b)``."""
from __future__ import annotations

from .base import ORDINAL_WORDS, Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 1, a forward pass by hand (the one-number cell, chapter 2); its words are ``p01.md.j2``.

    Args:
        n: ``dict(w, u, b, h0, xs)``: floats, ``xs`` a list of 1 to 10 floats (three on the website).

    Returns:
        Problem with one part per input, answer ``h1``, ``h2``, ... (numbers in (-1, 1), four decimals).

    Raises:
        ValueError: if ``xs`` has no input or more than ten. KeyError: if a number is missing.
    """
    from mwm import scalar_rnn

    w, u, b, h0, xs = n["w"], n["u"], n["b"], n["h0"], n["xs"]
    if not 1 <= len(xs) <= len(ORDINAL_WORDS):
        raise ValueError(f"problem 1 needs 1 to {len(ORDINAL_WORDS)} inputs, got {len(xs)}")
    hs = scalar_rnn(xs, w=w, u=u, b=b, h0=h0)
    prev = [h0, *hs[:-1]]
    sums = [w * p + u * x + b for p, x in zip(prev, xs)]
    text = Text(1, w=w, u=u, b=b, h0=h0, xs=xs, hs=hs, sums=sums, ordinal=ORDINAL_WORDS)
    parts = [Part(letter, text("question", t=t), [Answer(f"h{t + 1}", "number", float(hs[t]), what="a number")],
                  text("solution", t=t))
             for t, letter in zip(range(len(xs)), "abcdefghij")]
    return Problem(1, text("title"), "easy", text("practises"), statement=text("statement"), given=text("given"),
                   parts=parts, steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
