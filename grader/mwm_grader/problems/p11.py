"""Problem 11, one LSTM step (chapter 9): sigmoid gates, a tanh candidate, the cell state and the hidden state."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem, fmt, lit, num, par, plus, pnum


def build(n) -> Problem:
    """Problem 11, one LSTM step (chapter 9): sigmoid gates, a tanh candidate, the cell state and the hidden state.

    Args:
        n: ``dict(c_prev, forget, input, output, candidate)``: floats (the four pre-activations).

    Returns:
        Problem with answers ``f_t``, ``i_t``, ``o_t``, ``c_tilde``, ``c_t``, ``h_t``.

    Raises:
        KeyError: if a number is missing.
    """
    from mwm.lstm import LSTMState, lstm_step

    c_prev = n["c_prev"]
    pre = {"f": n["forget"], "i": n["input"], "o": n["output"], "c": n["candidate"]}
    # a one-number LSTM whose pre-activations are exactly the given numbers: zero weights, the numbers as
    # biases (mwm.lstm's block for the candidate is "c", its value in the cache "c_tilde")
    weights = {}
    for key, a in pre.items():
        weights.update({f"W_{key}": [[0.0]], f"U_{key}": [[0.0]], f"b_{key}": [a]})
    (h, c), cache = lstm_step(LSTMState([0.0], [c_prev]), [0.0], weights)
    f, i, o, g = (float(cache[key][0]) for key in ("f", "i", "o", "c_tilde"))
    c, h = float(c[0]), float(h[0])
    return Problem(
        11, "One LSTM step", "medium", "sigmoid gates, a tanh candidate, the cell state and the hidden state",
        statement=(
            f"A one-number LSTM carries the cell state $c_{{t-1}}={num(c_prev)}$. Its pre-activations are: "
            f"forget gate $a_f={num(pre['f'])}$, input gate $a_i={num(pre['i'])}$, output gate "
            f"$a_o={num(pre['o'])}$, candidate $a_c={num(pre['c'])}$. The gates are the sigmoids of theirs, "
            "$f_t=\\sigma(a_f)$ and so on, the candidate is $\\tilde c_t=\\tanh a_c$, and "
            "$c_t=f_t\\,c_{t-1}+i_t\\,\\tilde c_t$, $h_t=o_t\\tanh c_t$. Four decimals throughout."),
        given=f"c_prev = {lit(c_prev)}\na_f, a_i, a_o, a_c = "
              f"{lit(pre['f'])}, {lit(pre['i'])}, {lit(pre['o'])}, {lit(pre['c'])}",
        parts=[
            Part("a", "The forget, input and output gates and the candidate. Store them in `f_t`, `i_t`, `o_t`, "
                      "`c_tilde`.",
                 [Answer("f_t", "number", f, what="a number"), Answer("i_t", "number", i, what="a number"),
                  Answer("o_t", "number", o, what="a number"), Answer("c_tilde", "number", g, what="a number")],
                 "# Gates: sigmoids of their pre-activations. Candidate: tanh of its pre-activation.\n"
                 "sigmoid = lambda a: 1 / (1 + np.exp(-a))\n"
                 "f_t, i_t, o_t = sigmoid(a_f), sigmoid(a_i), sigmoid(a_o)\n"
                 "c_tilde = np.tanh(a_c)\n"
                 "print(round(f_t, 4), round(i_t, 4), round(o_t, 4), round(c_tilde, 4))",
                 points=2),
            Part("b", "The new cell state $c_t$ and the new hidden state $h_t$. Store them in `c_t` and `h_t`.",
                 [Answer("c_t", "number", c, what="a number"), Answer("h_t", "number", h, what="a number")],
                 "# Keep part of the old cell state, add part of the candidate; then read it out.\n"
                 "c_t = f_t * c_prev + i_t * c_tilde\nh_t = o_t * np.tanh(c_t)\nprint(round(c_t, 4), round(h_t, 4))"),
        ],
        steps=[
            f"**(a) The gates.** $f_t=\\sigma({num(pre['f'])})\\approx {fmt(f)}$, $i_t=\\sigma({num(pre['i'])})"
            f"\\approx {fmt(i)}$, $o_t=\\sigma({num(pre['o'])})\\approx {fmt(o)}$.",
            f"**(a) The candidate.** $\\tilde c_t=\\tanh({num(pre['c'])})\\approx {fmt(g)}$.",
            f"**(b) The cell state.** $c_t={fmt(f)}\\cdot {pnum(c_prev)}+{fmt(i)}\\cdot {par(g)}\\approx "
            f"{fmt(f * c_prev)}{plus(i * g)}={fmt(c)}$.",
            f"**(b) The hidden state.** $\\tanh({fmt(c)})\\approx {fmt(np.tanh(c))}$, so $h_t\\approx {fmt(o)}\\cdot "
            f"{par(np.tanh(c))}\\approx {fmt(h)}$.",
        ],
        remember=("Nothing squashes the cell state, so it may grow past 1. Only the hidden state $h_t$ is "
                  "squashed, when the output gate reads the cell state out."),
        numbers=n)
