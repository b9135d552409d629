"""Problem 13, one GRU step (chapter 10): the reset gate shapes the candidate, the update gate blends."""
from __future__ import annotations


from .base import Answer, Part, Problem, fmt, lit, num, par, plus


def build(n) -> Problem:
    """Problem 13, one GRU step (chapter 10): the reset gate shapes the candidate, the update gate blends.

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
    hp_ = f"({num(hp)})" if hp < 0 else num(hp)        # the old state, in parentheses when negative
    return Problem(
        13, "One GRU step", "medium", "where each GRU gate acts: the reset gate shapes the candidate, the update "
                                      "gate mixes the candidate with the old state",
        statement=(
            f"A one-number GRU holds the hidden state $h_{{t-1}}={num(hp)}$ and reads the input $x={num(x)}$. The "
            f"pre-activations of its update and reset gates are $a_z={num(az)}$ and $a_r={num(ar)}$, so "
            "$z=\\sigma(a_z)$ and $r=\\sigma(a_r)$. The candidate weighs the input by "
            f"${num(wx)}$ and the old state, scaled by the reset gate, by ${num(wo)}$: "
            f"$\\tilde h_t=\\tanh({num(wx)}\\,x{plus(wo, None)}\\,r\\,h_{{t-1}})$, and the new hidden state is the "
            "blend $h_t=(1-z)\\,h_{t-1}+z\\,\\tilde h_t$. Four decimals throughout."),
        given=f"h_prev, x = {lit(hp)}, {lit(x)}\na_z, a_r = {lit(az)}, {lit(ar)}\n"
              f"w_input, w_old = {lit(wx)}, {lit(wo)}",
        parts=[
            Part("a", "The gates $z$ and $r$, the candidate $\\tilde h_t$ and the new hidden state $h_t$. Store "
                      "them in `z_t`, `r_t`, `h_tilde` and `h_t`.",
                 [Answer("z_t", "number", z, what="a number"), Answer("r_t", "number", r, what="a number"),
                  Answer("h_tilde", "number", cand, what="a number"), Answer("h_t", "number", h, what="a number")],
                 "# Squash the pre-activations; the reset gate scales the old state inside the candidate; blend.\n"
                 "sigmoid = lambda a: 1 / (1 + np.exp(-a))\n"
                 "z_t, r_t = sigmoid(a_z), sigmoid(a_r)\n"
                 "h_tilde = np.tanh(w_input * x + w_old * r_t * h_prev)\n"
                 "h_t = (1 - z_t) * h_prev + z_t * h_tilde\n"
                 "print(round(z_t, 4), round(r_t, 4), round(h_tilde, 4), round(h_t, 4))", points=2),
            Part("b", "Work the candidate and the hidden state again with the reset gate wide open, $r=1$ (store "
                      "them in `h_tilde_open` and `h_open`). Did the reset gate of part (a) make the candidate "
                      "“higher” or “lower” than it would be with $r=1$? Store the word in `candidate_was`.",
                 [Answer("h_tilde_open", "number", cand_open, what="a number"),
                  Answer("h_open", "number", h_open, what="a number"),
                  Answer("candidate_was", "choice", direction, options=("higher", "lower"),
                         what="“higher” or “lower”")],
                 "# The same step with r = 1: the candidate now sees the whole old state.\n"
                 "h_tilde_open = np.tanh(w_input * x + w_old * 1.0 * h_prev)\n"
                 "h_open = (1 - z_t) * h_prev + z_t * h_tilde_open\n"
                 "candidate_was = 'higher' if h_tilde > h_tilde_open else 'lower'\n"
                 "print(round(h_tilde_open, 4), round(h_open, 4), candidate_was)", points=2),
        ],
        steps=[
            f"**(a) The gates.** $z=\\sigma({num(az)})\\approx {fmt(z)}$ and $r=\\sigma({num(ar)})\\approx {fmt(r)}$.",
            f"**(a) The candidate.** $r\\,h_{{t-1}}\\approx {fmt(r)}\\cdot {hp_}={fmt(r * hp)}$; times ${num(wo)}$: "
            f"${fmt(wo * r * hp)}$; with the input's ${fmt(wx * x)}$ the sum is ${fmt(wx * x + wo * r * hp)}$, and "
            f"$\\tilde h_t=\\tanh({fmt(wx * x + wo * r * hp)})\\approx {fmt(cand)}$.",
            f"**(a) The blend.** $h_t\\approx (1-{fmt(z)})\\cdot {hp_}+{fmt(z)}\\cdot {par(cand)}\\approx "
            f"{fmt((1 - z) * hp)}{plus(z * cand)}={fmt(h)}$.",
            f"**(b) Reset wide open.** $\\tilde h_t=\\tanh({fmt(wx * x)}{plus(wo, None)}\\cdot {hp_})"
            f"=\\tanh({fmt(wx * x + wo * hp)})\\approx {fmt(cand_open)}$ and $h_t\\approx (1-{fmt(z)})\\cdot {hp_}"
            f"+{fmt(z)}\\cdot {par(cand_open)}\\approx {fmt((1 - z) * hp)}{plus(z * cand_open)}={fmt(h_open)}$.",
            f"**(b) What the gate did.** In (a) only a share $r\\approx {fmt(r)}$ of the old state ${num(hp)}$ "
            f"went into the candidate; with $r=1$ all of it goes in, and the candidate moves from ${fmt(cand)}$ to "
            f"${fmt(cand_open)}$. So the reset gate of (a) made the candidate {direction} than it would be "
            "with $r=1$.",
        ],
        remember=("Each gate has its own place: the reset gate filters the old state before the candidate is "
                  "made, and the update gate weighs the candidate against the old state in the blend. Whatever "
                  "the gates do, a share $1-z$ of the old state goes straight into the new one."),
        numbers=n)
