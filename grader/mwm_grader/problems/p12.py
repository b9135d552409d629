"""Problem 12, diagnose the runs (chapters 7-9): a constant ratio per step names the run behind it."""
from __future__ import annotations

import math

import numpy as np

from .base import Answer, ORDINAL, Part, Problem, fmt, lit, num, number_word


def build(n) -> Problem:
    """Problem 12, diagnose the runs (chapters 7-9): a constant ratio per step names the run behind it.

    Args:
        n: ``dict(runs, ahead, limit, far, share)``: ``runs`` maps three letters to logged gradient sizes (a list
            from 1, 2 to 9 entries long, each shrinking or growing by a near-constant factor; one fades, one
            explodes, one is near 1); ``ahead`` and ``far`` whole numbers, ``limit`` and ``share`` floats.

    Returns:
        Problem with answers ``factor_*``, ``far_*``, ``lstm_run``, ``small_run``, ``big_run``, ``fix_small``,
        ``fix_big``, ``clip_scale``, ``f_min``.

    Raises:
        AssertionError: if no run fades or none explodes.
    """
    runs = {k: np.array(v, dtype=float) for k, v in n["runs"].items()}
    names = list(runs)
    ahead, limit, far, share = n["ahead"], n["limit"], n["far"], n["share"]
    steps_recorded = {k: len(v) - 1 for k, v in runs.items()}
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
    hardly = all(abs(round(factor[k], 2) ** ahead / predicted[k] - 1) <= 0.03 for k in names)
    table = "| run / steps back | " + " | ".join(f"{i}" for i in range(len(runs[names[0]]))) + " |\n"
    table += "|---|" + "---|" * len(runs[names[0]]) + "\n"
    for k in names:
        table += f"| {k} | " + " | ".join(f"${x:g}$" for x in runs[k]) + " |\n"
    opts_run = tuple(names)
    fixes = ("gates", "clipping")
    return Problem(
        12, "Diagnose the runs", "hard", "spotting a constant ratio, and naming the training run behind it",
        statement=(
            "Someone trained three recurrent models on one task and, for each, logged the size of the gradient "
            f"reaching the hidden state 0 to {len(runs[names[0]]) - 1} steps before the end:\n\n" + table),
        given="runs = {\n" + "".join(f"    {k!r}: {lit(runs[k])},\n" for k in names) + "}\n"
              f"ahead, limit, far, share = {ahead}, {lit(limit)}, {far}, {lit(share)}",
        parts=[
            Part("a", "Each run's factor per step, to three decimals: the ratio of neighbouring entries is "
                      f"nearly constant, so take the {ORDINAL[steps_recorded[names[0]]]} root of the last "
                      "entry over the first. Store them in " + ", ".join(f"`factor_{k}`" for k in names) + ".",
                 [Answer(f"factor_{k}", "number", factor[k], decimals=3, what="a number") for k in names],
                 "# Neighbouring entries keep the same ratio: take the root of last / first.\n"
                 + "".join(f"factor_{k} = (runs[{k!r}][-1] / runs[{k!r}][0]) ** (1 / (len(runs[{k!r}]) - 1))\n"
                           for k in names)
                 + "print(" + ", ".join(f"round(factor_{k}, 3)" for k in names) + ")"),
            Part("b", f"Using its factor, estimate how large each run's gradient would be {ahead} steps before the "
                      f"end: three significant figures for "
                      f"{' and '.join(plain)}, three decimals for {lstm_run}. Store them in "
                      + ", ".join(f"`far_{k}`" for k in names) + ".",
                 [Answer(f"far_{k}", "number", predicted[k], decimals=None if k != lstm_run else 3,
                         sig=3 if k != lstm_run else None, what="a number") for k in names],
                 "# Raise each factor to the power of the number of steps.\n"
                 + "".join(f"far_{k} = factor_{k} ** ahead\n" for k in names)
                 + "print(" + ", ".join(f"f'{{far_{k}:.3g}}'" for k in names) + ")"),
            Part("c", "Behind the three runs are an LSTM, a plain cell whose recurrent weights are small, and a "
                      "plain cell whose recurrent weights are large. Match them: store the run letters in "
                      "`lstm_run`, `small_run` and `big_run`. Which remedy does each plain cell need most, “gates” or “clipping”? "
                      "Store the answers in `fix_small` and `fix_big`.",
                 [Answer("lstm_run", "choice", lstm_run, options=opts_run, what="a run letter"),
                  Answer("small_run", "choice", small_run, options=opts_run, what="a run letter"),
                  Answer("big_run", "choice", big_run, options=opts_run, what="a run letter"),
                  Answer("fix_small", "choice", "gates", options=fixes, what="“gates” or “clipping”"),
                  Answer("fix_big", "choice", "clipping", options=fixes, what="“gates” or “clipping”")],
                 "# Near 1: the LSTM's cell state. Below 1: fading, small weights. Above 1: exploding, big weights.\n"
                 "factors = {" + ", ".join(f"{k!r}: factor_{k}" for k in names) + "}\n"
                 "lstm_run = min(factors, key=lambda k: abs(np.log(factors[k])))   # the closest to 1\n"
                 "small_run = min(factors, key=factors.get)   # below 1: fading\n"
                 "big_run = max(factors, key=factors.get)     # above 1: exploding\n"
                 "fix_small = 'gates'      # fading needs a path that does not shrink\n"
                 "fix_big = 'clipping'     # exploding needs its steps capped first\n"
                 "print(lstm_run, small_run, big_run, fix_small, fix_big)", points=2),
            Part("d", f"If run {big_run}'s last value, ${runs[big_run][-1]:g}$, were the length of the whole "
                      f"gradient, by what factor would clipping at $\\gamma={num(limit)}$ scale it? Four decimals; "
                      "store it in `clip_scale`.",
                 [Answer("clip_scale", "number", scale, what="a number")],
                 "# Clipping multiplies the gradient by min(1, gamma / length); here the length is the exploding\n"
                 "# run's last value.\n"
                 "clip_scale = min(1.0, limit / runs[big_run][-1])\nprint(round(clip_scale, 4))"),
            Part("e", f"Along run {lstm_run}'s cell state the gradient keeps a factor $f$ per step. What is the "
                      f"smallest $f$ that still delivers at least {share:g} of the gradient from {far} steps back? "
                      "Five decimals; store it in `f_min`.",
                 [Answer("f_min", "number", f_min, decimals=5, what="a number")],
                 "# f ** far >= share  <=>  f >= share ** (1 / far).\n"
                 "f_min = share ** (1 / far)\nprint(round(f_min, 5))"),
        ],
        steps=[
            "**(a) One ratio per run.** Neighbouring entries keep an almost constant ratio, and the root "
            "averages it: " + ", ".join(
                f"{k}: $({runs[k][-1]:g}" + ("" if runs[k][0] == 1 else f"/{runs[k][0]:g}")
                + f")^{{1/{steps_recorded[k]}}}\\approx {fmt(factor[k], 3)}$" for k in names) + ".",
            f"**(b) {number_word(ahead).capitalize()} steps.** " + ", ".join(
                f"{k}: ${fmt(factor[k], 4)}^{{{ahead}}}\\approx "
                f"{fmt(predicted[k], None if k != lstm_run else 3, 3 if k != lstm_run else None)}$" for k in names)
            + (" (with the factors rounded to two decimals the answers hardly move, " if hardly else
               " (with the factors rounded to two decimals the answers move a lot, so keep the third decimal: ")
            + ", ".join(f"${fmt(factor[k], 2)}^{{{ahead}}}\\approx "
                        f"{fmt(round(factor[k], 2) ** ahead, None if k != lstm_run else 3, 3 if k != lstm_run else None)}$"
                        for k in names) + ").",
            f"**(c) Which is which.** Run {lstm_run}'s factor, ${fmt(factor[lstm_run], 2)}$, is the one closest "
            "to 1: its gradient wears away only slowly, as along an LSTM's cell state whose forget gate stays "
            f"near 1. Run {small_run}'s factor, ${fmt(factor[small_run], 2)}$, lies below 1, so its gradient "
            "vanishes: that "
            "is the plain cell with small weights, and the remedy is gates (an LSTM or a GRU). "
            f"Run {big_run}'s factor, ${fmt(factor[big_run], 2)}$, lies above 1, so its gradient explodes: that is "
            "the plain cell with large weights, which must be clipped before anything else, though gates "
            "would help it as well.",
            f"**(d) Clipping.** ${runs[big_run][-1]:g}>{num(limit)}$, so the gradient is scaled by "
            f"${num(limit)}/{runs[big_run][-1]:g}\\approx {fmt(scale)}$.",
            f"**(e) The cell state.** We need $f^{{{far}}}\\ge {share:g}$, that is $f\\ge {share:g}^{{1/{far}}}"
            f"=e^{{\\ln {share:g}/{far}}}\\approx {fmt(f_min, 5)}$. Run {lstm_run}'s ${fmt(factor[lstm_run], 2)}$ "
            f"is far short of that: ${fmt(factor[lstm_run], 2)}^{{{far}}}\\approx {fmt(lane_far, 3)}$.",
        ],
        remember=("When the logged gradient changes by the same ratio at every step, that single ratio is the "
                  "diagnosis. Under 1 the gradient vanishes and over 1 it explodes; a ratio near 1 is what lets "
                  "it reach far back."),
        numbers=n)
