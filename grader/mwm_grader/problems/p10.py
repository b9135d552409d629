"""Problem 10, clipping (chapter 8): ``g' = min(1, gamma/|g|) g`` and the step ``-lr g'``."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem, number_word
from .texts import Text


def build(n) -> Problem:
    """Problem 10, clipping (chapter 8): ``g' = min(1, gamma/|g|) g`` and the step ``-lr g'``.

    Its words are ``p10.md.j2``.

    Args:
        n: ``dict(limit, lr, g_long, g_short)``: floats, two gradients (lists of floats, any length).

    Returns:
        Problem with answers ``clipped_long``, ``change``, ``clipped_short`` (one number per entry).

    Raises:
        KeyError: if a number is missing; ValueError (from mwm): if ``limit`` is not positive.
    """
    from mwm.clipping import clip_by_global_norm

    gamma, lr = n["limit"], n["lr"]
    g1, g2 = np.array(n["g_long"], dtype=float), np.array(n["g_short"], dtype=float)
    clipped1, norm1 = clip_by_global_norm(g1, gamma)
    clipped2, norm2 = clip_by_global_norm(g2, gamma)
    change = -lr * clipped1
    n_long, n_short = f"{number_word(len(g1))} numbers", f"{number_word(len(g2))} numbers"
    text = Text(10, limit=gamma, lr=lr, g_long=g1, g_short=g2, norm_long=norm1, norm_short=norm2,
                clipped_long=clipped1, clipped_short=clipped2, change=change)
    return Problem(
        10, text("title"), "easy", text("practises"), statement=text("statement"), given=text("given"),
        parts=[
            Part("a", text("question_a"),
                 [Answer("clipped_long", "vector", clipped1.tolist(), what=n_long),
                  Answer("change", "vector", change.tolist(), what=n_long)],
                 text("solution_a"), points=2),
            Part("b", text("question_b"), [Answer("clipped_short", "vector", clipped2.tolist(), what=n_short)],
                 text("solution_b")),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
