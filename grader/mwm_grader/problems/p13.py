"""Problem 13, one GRU step (chapter 10): the reset gate shapes the candidate, the update gate blends."""
from __future__ import annotations

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 13, one GRU step (chapter 10): the reset gate shapes the candidate, the update gate blends.

    Its words are ``p13.md.j2``.

    Args:
        n: ``dict(h_prev, x, a_z, a_r, w_input, w_old)``: floats (``a_z``, ``a_r`` the gates' pre-activations).

    Returns:
        Problem with answers ``z_t``, ``r_t``, ``h_tilde``, ``h_t``, ``h_tilde_open``, ``h_open`` and
        ``candidate_was`` ("higher"/"lower").

    Raises:
        KeyError: if a number is missing.
    """
    from mwm.gru import blend, gru_candidate, gru_step

    hp, x, az, ar, wx, wo = (n[k] for k in ("h_prev", "x", "a_z", "a_r", "w_input", "w_old"))
    # a one-number GRU whose gate pre-activations are the given numbers (zero weights, the numbers as biases)
    weights = {"W_z": [[0.0]], "U_z": [[0.0]], "b_z": [az], "W_r": [[0.0]], "U_r": [[0.0]], "b_r": [ar],
               "W_h": [[wo]], "U_h": [[wx]], "b_h": [0.0]}
    h, cache = gru_step([hp], [x], weights)
    z, r, cand, h = float(cache["z"][0]), float(cache["r"][0]), float(cache["candidate"][0]), float(h[0])
    cand_open = float(gru_candidate([hp], 1.0, [[wo]], [wx * x])[0])
    h_open = float(blend(hp, cand_open, z))
    direction = "higher" if cand > cand_open else "lower"
    text = Text(13, h_prev=hp, x=x, a_z=az, a_r=ar, w_input=wx, w_old=wo, z_t=z, r_t=r, h_tilde=cand, h_t=h,
                h_tilde_open=cand_open, h_open=h_open, candidate_was=direction)
    return Problem(
        13, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
        parts=[
            Part("a", text("question_a"),
                 [Answer("z_t", "number", z, what="a number"), Answer("r_t", "number", r, what="a number"),
                  Answer("h_tilde", "number", cand, what="a number"), Answer("h_t", "number", h, what="a number")],
                 text("solution_a"), points=2),
            Part("b", text("question_b"),
                 [Answer("h_tilde_open", "number", cand_open, what="a number"),
                  Answer("h_open", "number", h_open, what="a number"),
                  Answer("candidate_was", "choice", direction, options=("higher", "lower"),
                         what="“higher” or “lower”")],
                 text("solution_b"), points=2),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
