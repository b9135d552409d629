"""Problem 9, eigenvalues decide (chapter 7): split a hidden state along eigenvectors, power each part."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 9, eigenvalues decide (chapter 7): split a hidden state along eigenvectors, power each part; its words
    are ``p09.md.j2``.

    Args:
        n: ``dict(A, B, v, steps)``: two 2x2 matrices (lists) with real eigenvalues and eigenvectors whose
            first entry is not 0, a hidden state of two floats, a whole number of steps.

    Returns:
        Problem with answers ``eig_*``, ``dirs_*`` (first entries 1), ``memory_*`` ("fades"/"explodes") and
        ``A_T_v``, ``B_T_v``.

    Raises:
        AssertionError: if an eigenvector has a first entry of 0. ValueError (from mwm): bad shapes.
    """
    from mwm.dynamics import eigen_split, matrix_powers, spectral_radius

    v, T = np.array(n["v"], dtype=float), n["steps"]
    out = {}
    for name, decimals in (("A", 4), ("B", 2)):
        M = np.array(n[name], dtype=float)
        values, directions, coefs = eigen_split(M, v)
        assert np.all(directions[:, 0] != 0), "each eigenvector needs a non-zero first entry"
        directions = directions / directions[:, :1]           # first entry 1, as the problem asks
        coefs = np.linalg.solve(directions.T, v)              # v = coefs @ directions
        radius = spectral_radius(M)
        out[name] = dict(name=name, M=M, eigenvalues=values, directions=directions, radius=radius,
                         memory="fades" if radius < 1 else "explodes", power=matrix_powers(M, v, T)[-1],
                         decimals=decimals,
                         eigen=[dict(value=l, direction=e, image=M @ e, coef=c, term=c * l ** T)
                                for l, e, c in zip(values, directions, coefs)])
    A, B = out["A"], out["B"]
    text = Text(9, v=v, steps=T, matrices=[A, B], same_directions=np.allclose(A["directions"], B["directions"]))
    choice = ("fades", "explodes")
    return Problem(
        9, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
        parts=[
            Part("a", text("question_a"),
                 [Answer("eig_A", "vector", A["eigenvalues"].tolist(), what="two numbers"),
                  Answer("dirs_A", "vector", A["directions"].tolist(), what="two rows of two numbers"),
                  Answer("memory_A", "choice", A["memory"], options=choice, what="“fades” or “explodes”"),
                  Answer("eig_B", "vector", B["eigenvalues"].tolist(), what="two numbers"),
                  Answer("dirs_B", "vector", B["directions"].tolist(), what="two rows of two numbers"),
                  Answer("memory_B", "choice", B["memory"], options=choice, what="“fades” or “explodes”")],
                 text("solution_a"), points=3),
            Part("b", text("question_b"),
                 [Answer("A_T_v", "vector", A["power"].tolist(), what="two numbers"),
                  Answer("B_T_v", "vector", B["power"].tolist(), decimals=2, what="two numbers")],
                 text("solution_b"), points=2),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
