"""Problem 6, the gradient through time (chapter 6): the backward product ``prod w (1 - h_t^2)`` over three steps."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem, fmt, lit, num, par, tex_vec


def build(n) -> Problem:
    """Problem 6, the gradient through time (chapter 6): the backward product ``prod w (1 - h_t^2)`` over three steps.

    Args:
        n: ``dict(w, u, b, h0, xs)``: floats, ``xs`` a list of three floats.

    Returns:
        Problem with answers ``hs`` (three numbers), ``dh3_dh2``, ``dh2_dh1``, ``dh3_dh1``, ``dh3_dx1``.

    Raises:
        KeyError: if a number is missing; IndexError: if ``xs`` has fewer than three inputs.
    """
    from mwm import scalar_rnn
    from mwm.bptt import scalar_bptt, step_factors

    w, u, b, h0, xs = n["w"], n["u"], n["b"], n["h0"], n["xs"]
    hs = scalar_rnn(xs, w=w, u=u, b=b, h0=h0)
    factors = step_factors(hs, w)                  # dh_t / dh_{t-1}, t = 1..3
    d32, d21 = float(factors[2]), float(factors[1])
    # the gradient of L = h_3 sent back by BPTT: dh[0] is dh_3/dh_1, da[0] * u is dh_3/dx_1
    grads = scalar_bptt(xs, hs, [0.0, 0.0, 1.0], w, u, b, h0)
    d31, d3x1 = float(grads.dh[0]), float(grads.da[0] * u)
    assert np.isclose(d31, d32 * d21)
    prev = [h0, *hs[:-1]]
    sums = [w * p + u * x + b for p, x in zip(prev, xs)]
    return Problem(
        6, "The gradient through time", "medium", "the backward product $\\prod w\\,(1-h_t^2)$",
        statement=(
            f"A one-number cell with $w={num(w)}$, $u={num(u)}$, $b={num(b)}$ and $h_0={num(h0)}$ reads "
            f"$x={tex_vec(xs)}$, using $h_t=\\tanh(w\\,h_{{t-1}}+u\\,x_t+b)$. Give every answer to four decimals."),
        given=f"w, u, b, h0 = {lit(w)}, {lit(u)}, {lit(b)}, {lit(h0)}\nxs = {lit(xs)}",
        parts=[
            Part("a", "The three hidden states $h_1, h_2, h_3$. Store them as a list in `hs`.",
                 [Answer("hs", "vector", hs.tolist(), what="three numbers")],
                 "# Forward first, keeping every state: the way back needs them.\n"
                 "hs, h = [], h0\nfor x in xs:\n    h = np.tanh(w * h + u * x + b)\n    hs.append(h)\n"
                 "print(np.round(hs, 4))"),
            Part("b", "The one-step Jacobians $\\partial h_3/\\partial h_2$ and $\\partial h_2/\\partial h_1$ "
                      "(here single numbers), and their product $\\partial h_3/\\partial h_1$. Store them in `dh3_dh2`, `dh2_dh1`, `dh3_dh1`.",
                 [Answer("dh3_dh2", "number", d32, what="a number"),
                  Answer("dh2_dh1", "number", d21, what="a number"),
                  Answer("dh3_dh1", "number", d31, what="a number")],
                 "# One factor per step back: dh_t/dh_(t-1) = w (1 - h_t^2); the chain multiplies them.\n"
                 "dh3_dh2 = w * (1 - hs[2] ** 2)\ndh2_dh1 = w * (1 - hs[1] ** 2)\n"
                 "dh3_dh1 = dh3_dh2 * dh2_dh1\nprint(round(dh3_dh2, 4), round(dh2_dh1, 4), round(dh3_dh1, 4))",
                 points=2),
            Part("c", "How much does $h_3$ move per unit of the first input: $\\partial h_3/\\partial x_1$? "
                      "Store it in `dh3_dx1`.",
                 [Answer("dh3_dx1", "number", d3x1, what="a number")],
                 "# h1 = tanh(w h0 + u x1 + b), so dh1/dx1 = u (1 - h1^2); then on to h3.\n"
                 "dh3_dx1 = dh3_dh1 * u * (1 - hs[0] ** 2)\nprint(round(dh3_dx1, 4))"),
        ],
        steps=[
            "**(a) Forward.** " + "; ".join(
                f"$h_{t + 1}=\\tanh({fmt(sums[t])})\\approx {fmt(hs[t])}$" for t in range(3)) + ".",
            f"**(b) One factor per step.** $\\partial h_3/\\partial h_2={num(w)}\\,(1-{par(hs[2])}^2)\\approx "
            f"{fmt(d32)}$ and $\\partial h_2/\\partial h_1={num(w)}\\,(1-{par(hs[1])}^2)\\approx {fmt(d21)}$.",
            f"**(b) Multiply.** $\\partial h_3/\\partial h_1\\approx {fmt(d32)}\\times {par(d21)}\\approx {fmt(d31)}$.",
            f"**(c) Down to the input.** Since $h_1=\\tanh(w\\,h_0+u\\,x_1+b)$, "
            f"$\\partial h_1/\\partial x_1=u\\,(1-h_1^2)\\approx {fmt(u * (1 - hs[0] ** 2))}$, and "
            f"$\\partial h_3/\\partial x_1\\approx {fmt(d31)}\\times {par(u * (1 - hs[0] ** 2))}\\approx {fmt(d3x1)}$.",
        ],
        remember=("The gradient flowing back through time is a product with one factor $w\\,(1-h_t^2)$ per step: "
                  "the weight and how saturated each state is decide together how much survives."),
        numbers=n)
