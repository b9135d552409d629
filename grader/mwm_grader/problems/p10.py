"""Problem 10, clipping (chapter 8): ``g' = min(1, gamma/|g|) g`` and the step ``-lr g'``."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem, lit, num, number_word, tex_vec


def build(n) -> Problem:
    """Problem 10, clipping (chapter 8): ``g' = min(1, gamma/|g|) g`` and the step ``-lr g'``.

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

    def length(g, norm):
        squares = "+".join(num(x * x) for x in g)
        return f"\\|\\boldsymbol g\\|=\\sqrt{{{squares}}}={num(norm)}"

    def verdict(norm, clipped):
        if norm > gamma:
            return (f"${num(norm)}>{num(gamma)}$, so multiply by ${num(gamma)}/{num(norm)}={num(gamma / norm)}$: "
                    f"$\\boldsymbol g'={tex_vec(clipped)}$, of length ${num(gamma)}$.")
        return f"${num(norm)}\\le {num(gamma)}$, so nothing changes: $\\boldsymbol g'={tex_vec(clipped)}$."

    return Problem(
        10, "Clipping", "easy", "$\\boldsymbol g'=\\min(1, \\gamma/\\|\\boldsymbol g\\|)\\,\\boldsymbol g$",
        statement=(
            f"Gradients are clipped at the threshold $\\gamma={num(gamma)}$, and the weights then move by "
            f"$-\\eta\\,\\boldsymbol g'$ with learning rate $\\eta={num(lr)}$. Four decimals throughout."),
        given=f"gamma, lr = {lit(gamma)}, {lit(lr)}\ng_long = np.array({lit(g1)})\ng_short = np.array({lit(g2)})",
        parts=[
            Part("a", f"Clip $\\boldsymbol g={tex_vec(g1)}$ and give the change of the weights, $-\\eta\\,\\boldsymbol g'$. "
                      "Store them in `clipped_long` and `change`.",
                 [Answer("clipped_long", "vector", clipped1.tolist(), what=n_long),
                  Answer("change", "vector", change.tolist(), what=n_long)],
                 "# The length first; shrink the whole vector only if it is longer than gamma.\n"
                 "def clip(g, gamma):\n    return g * min(1.0, gamma / np.linalg.norm(g))\n"
                 "clipped_long = clip(g_long, gamma)\nchange = -lr * clipped_long\n"
                 "print(clipped_long, change)", points=2),
            Part("b", f"Clip $\\boldsymbol g={tex_vec(g2)}$. Store it in `clipped_short`.",
                 [Answer("clipped_short", "vector", clipped2.tolist(), what=n_short)],
                 "clipped_short = clip(g_short, gamma)\nprint(clipped_short)"),
        ],
        steps=[
            f"**(a) The length.** ${length(g1, norm1)}$.",
            f"**(a) Scale.** {verdict(norm1, clipped1)}",
            f"**(a) The step.** $-{num(lr)}\\,\\boldsymbol g'={tex_vec(change)}$.",
            f"**(b)** ${length(g2, norm2)}$: {verdict(norm2, clipped2)}",
        ],
        remember=("Clipping multiplies the whole gradient by one number, so its direction survives: "
                  f"${num(clipped1[0])}:{num(clipped1[1])}$ is still ${num(g1[0])}:{num(g1[1])}$."),
        numbers=n)
