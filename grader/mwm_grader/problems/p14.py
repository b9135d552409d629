"""Problem 14, reading both ways (chapter 11): one plain cell run forwards and backwards over three inputs."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 14, reading both ways (chapter 11): one plain cell run forwards and backwards over three inputs.

    Its words are ``p14.md.j2``.

    Args:
        n: ``dict(w, u, b, xs)``: floats, ``xs`` a list of three floats.

    Returns:
        Problem with answers ``fwd``, ``bwd`` (one number per input), ``word2`` and ``changes``.

    Raises:
        KeyError: if a number is missing; IndexError: if ``xs`` has fewer than two inputs.
    """
    from mwm.readers import bidirectional_forward

    w, u, b, xs = n["w"], n["u"], n["b"], n["xs"]
    cell = {"W": [[w]], "U": [[u]], "b": [b]}
    states = bidirectional_forward(np.reshape(xs, (-1, 1)), cell, cell, cell="rnn")
    fwd, bwd = states[:, 0], states[:, 1]
    changed = np.array(xs, dtype=float)
    changed[-1] += 1.0
    moved = np.abs(bidirectional_forward(changed.reshape(-1, 1), cell, cell, cell="rnn")[0] - states[0]) > 1e-12
    which = {(False, True): "backward", (True, False): "forward", (True, True): "both", (False, False): "neither"}[
        tuple(bool(m) for m in moved)]
    T = len(xs)
    f_sums = [w * p + u * x + b for p, x in zip([0.0, *fwd[:-1]], xs)]
    b_sums = [w * p + u * x + b for p, x in zip([*bwd[1:], 0.0], xs)]
    text = Text(14, w=w, u=u, b=b, xs=xs, fwd=fwd, bwd=bwd, f_sums=f_sums, b_sums=b_sums, word2=states[1],
                changes=which)
    return Problem(
        14, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
        parts=[
            Part("a", text("question_a"), [Answer("fwd", "vector", fwd.tolist(), what=f"{T} numbers")],
                 text("solution_a")),
            Part("b", text("question_b"), [Answer("bwd", "vector", bwd.tolist(), what=f"{T} numbers")],
                 text("solution_b")),
            Part("c", text("question_c"), [Answer("word2", "vector", states[1].tolist(), what="two numbers")],
                 text("solution_c")),
            Part("d", text("question_d"),
                 [Answer("changes", "choice", which, options=("forward", "backward", "both", "neither"),
                         what="one of the four words")],
                 text("solution_d")),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
