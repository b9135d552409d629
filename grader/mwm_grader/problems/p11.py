"""Problem 11, one LSTM step (chapter 9): sigmoid gates, a tanh candidate, the cell state and the hidden state."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 11, one LSTM step (chapter 9): sigmoid gates, a tanh candidate, the cell state and the hidden state.

    Its words are ``p11.md.j2``.

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
    text = Text(11, c_prev=c_prev, a_f=pre["f"], a_i=pre["i"], a_o=pre["o"], a_c=pre["c"], f_t=f, i_t=i, o_t=o,
                c_tilde=g, c_t=c, tanh_c=np.tanh(c), h_t=h)
    return Problem(
        11, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
        parts=[
            Part("a", text("question_a"),
                 [Answer("f_t", "number", f, what="a number"), Answer("i_t", "number", i, what="a number"),
                  Answer("o_t", "number", o, what="a number"), Answer("c_tilde", "number", g, what="a number")],
                 text("solution_a"), points=2),
            Part("b", text("question_b"),
                 [Answer("c_t", "number", c, what="a number"), Answer("h_t", "number", h, what="a number")],
                 text("solution_b")),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
