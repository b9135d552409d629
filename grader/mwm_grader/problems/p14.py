"""Problem 14, reading both ways (chapter 11): one plain cell run forwards and backwards over three inputs."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem, fmt, fmt_list, lit, num, tex_vec


def build(n) -> Problem:
    """Problem 14, reading both ways (chapter 11): one plain cell run forwards and backwards over three inputs.

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
    return Problem(
        14, "Reading both ways", "medium", "one cell run in two directions, and which half knows what",
        statement=(
            f"Two one-number plain cells, each with $w={num(w)}$, $u={num(u)}$, $b={num(b)}$ and a starting state of 0, "
            f"read the inputs $x={tex_vec(xs)}$: the forward cell from left to right, the backward cell from right "
            "to left. Four decimals throughout."),
        given=f"w, u, b = {lit(w)}, {lit(u)}, {lit(b)}\nxs = {lit(xs)}",
        parts=[
            Part("a", "The forward hidden states $\\overrightarrow h_1, \\overrightarrow h_2, \\overrightarrow h_3$. "
                      "Store them as a list in `fwd`.",
                 [Answer("fwd", "vector", fwd.tolist(), what=f"{T} numbers")],
                 "# Left to right, from a state of 0.\nfwd, h = [], 0.0\nfor x in xs:\n"
                 "    h = np.tanh(w * h + u * x + b)\n    fwd.append(h)\nprint(np.round(fwd, 4))"),
            Part("b", "The backward hidden states, listed in word order: $\\overleftarrow h_1, \\overleftarrow h_2, "
                      "\\overleftarrow h_3$. Store them in `bwd`.",
                 [Answer("bwd", "vector", bwd.tolist(), what=f"{T} numbers")],
                 "# Right to left, from a state of 0; then put the states back in word order.\nbwd, h = [], 0.0\n"
                 "for x in reversed(xs):\n    h = np.tanh(w * h + u * x + b)\n    bwd.append(h)\n"
                 "bwd = bwd[::-1]\nprint(np.round(bwd, 4))"),
            Part("c", "Word 2's two-way hidden state, forward half first. Store it in `word2`.",
                 [Answer("word2", "vector", states[1].tolist(), what="two numbers")],
                 "# Put the two halves side by side.\nword2 = [fwd[1], bwd[1]]\nprint(np.round(word2, 4))"),
            Part("d", "If $x_3$ changed, which half of word 1's two-way hidden state would change: “forward”, “backward”, "
                      "“both” or “neither”? Store the word in `changes`.",
                 [Answer("changes", "choice", which, options=("forward", "backward", "both", "neither"),
                         what="one of the four words")],
                 "# The forward half of word 1 has read x1 only; the backward half has read x3, x2, x1\n"
                 "# (x3 reaches it through u, then through w twice: unless one of them is 0).\n"
                 "changes = 'backward' if w * u != 0 else 'neither'\nprint(changes)"),
        ],
        steps=[
            "**(a) Forward, from word 1.** " + "; ".join(
                f"$\\overrightarrow h_{t + 1}=\\tanh({fmt(f_sums[t])})\\approx {fmt(fwd[t])}$" for t in range(T)) + ".",
            "**(b) Backward, from the last word.** " + "; ".join(
                f"$\\overleftarrow h_{t + 1}=\\tanh({fmt(b_sums[t])})\\approx {fmt(bwd[t])}$"
                for t in reversed(range(T))) + ".",
            f"**(c) Word 2.** $(\\overrightarrow h_2,\\overleftarrow h_2)\\approx {fmt_list(states[1])}$.",
            "**(d) Who has read $x_3$.** $\\overrightarrow h_1$ depends on $x_1$ alone, so it cannot move; "
            f"$\\overleftarrow h_1$ has read $x_3$, $x_2$ and $x_1$. Only the {which} half changes.",
        ],
        remember=("The same cell, run the other way: the forward half of a word's state knows what came before it, "
                  "the backward half knows what comes after."),
        numbers=n)
