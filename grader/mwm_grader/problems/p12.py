"""Problem 12, diagnose the runs (chapters 7-9): a constant ratio per step names the run behind it."""
from __future__ import annotations

import math

import numpy as np

from .base import ORDINAL, Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 12, diagnose the runs (chapters 7-9): a constant ratio per step names the run behind it.

    Its words are in ``p12.md.j2``.

    Args:
        n: ``dict(runs, ahead, limit, far, share)``: ``runs`` maps three letters to logged gradient sizes (a list
            from 1, 3 to 10 entries long (2 to 9 recorded steps), each shrinking or growing by a near-constant factor; one fades, one
            explodes, one is near 1); ``ahead`` and ``far`` whole numbers, ``limit`` and ``share`` floats.

    Returns:
        Problem with answers ``factor_*``, ``far_*``, ``lstm_run``, ``small_run``, ``big_run``, ``fix_small``,
        ``fix_big``, ``clip_scale``, ``f_min``.

    Raises:
        ValueError: if a run has fewer than 3 or more than 10 entries. AssertionError: if no run fades or none explodes.
    """
    runs = {k: np.array(v, dtype=float) for k, v in n["runs"].items()}
    names = list(runs)
    ahead, limit, far, share = n["ahead"], n["limit"], n["far"], n["share"]
    steps_recorded = {k: len(v) - 1 for k, v in runs.items()}
    for k, steps in steps_recorded.items():
        if steps not in ORDINAL:
            raise ValueError(f"problem 12: runs[{k!r}] needs 3 to 10 entries, got {steps + 1}")
    # the factor per step of a geometric sequence: the k-th root of last / first
    factor = {k: float((v[-1] / v[0]) ** (1 / (len(v) - 1))) for k, v in runs.items()}
    predicted = {k: factor[k] ** ahead for k in names}
    lstm_run = min(names, key=lambda k: abs(math.log(factor[k])))
    plain = [k for k in names if k != lstm_run]
    small_run = min(plain, key=lambda k: factor[k])
    big_run = max(plain, key=lambda k: factor[k])
    assert factor[small_run] < 1 < factor[big_run], "one plain run should fade and one explode"
    from mwm.clipping import clip_by_global_norm

    longest = runs[big_run][-1]
    clipped, length = clip_by_global_norm(np.array([longest]), limit)   # a gradient of that length
    scale = float(clipped[0] / longest)
    f_min = share ** (1 / far)
    lane_far = factor[lstm_run] ** far
    # do the estimates survive factors rounded to two decimals? (they do when within 3 per cent)
    rounded = {k: round(factor[k], 2) ** ahead for k in names}
    hardly = all(abs(rounded[k] / predicted[k] - 1) <= 0.03 for k in names)
    text = Text(12, runs=runs, names=names, ahead=ahead, limit=limit, far=far, share=share,
                steps_recorded=steps_recorded, root=ORDINAL[steps_recorded[names[0]]], factor=factor,
                predicted=predicted, rounded=rounded, hardly=hardly, lstm_run=lstm_run, small_run=small_run,
                big_run=big_run, plain=plain, scale=scale, f_min=f_min, lane_far=lane_far)
    opts_run = tuple(names)
    fixes = ("gates", "clipping")
    return Problem(
        12, text("title"), "hard", text("practises"),
        # the table's last row keeps its line break, which a block's text loses
        statement=text("statement") + "\n",
        given=text("given"),
        parts=[
            Part("a", text("question_a"),
                 [Answer(f"factor_{k}", "number", factor[k], decimals=3, what="a number") for k in names],
                 text("solution_a")),
            Part("b", text("question_b"),
                 [Answer(f"far_{k}", "number", predicted[k], decimals=None if k != lstm_run else 3,
                         sig=3 if k != lstm_run else None, what="a number") for k in names],
                 text("solution_b")),
            Part("c", text("question_c"),
                 [Answer("lstm_run", "choice", lstm_run, options=opts_run, what="a run letter"),
                  Answer("small_run", "choice", small_run, options=opts_run, what="a run letter"),
                  Answer("big_run", "choice", big_run, options=opts_run, what="a run letter"),
                  Answer("fix_small", "choice", "gates", options=fixes, what="“gates” or “clipping”"),
                  Answer("fix_big", "choice", "clipping", options=fixes, what="“gates” or “clipping”")],
                 text("solution_c"), points=2),
            Part("d", text("question_d"), [Answer("clip_scale", "number", scale, what="a number")],
                 text("solution_d")),
            Part("e", text("question_e"), [Answer("f_min", "number", f_min, decimals=5, what="a number")],
                 text("solution_e")),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
