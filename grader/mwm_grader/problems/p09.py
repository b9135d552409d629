"""Problem 9, eigenvalues decide (chapter 7): split a hidden state along eigenvectors, power each part."""
from __future__ import annotations

import numpy as np

from .base import Answer, Part, Problem, fmt, fmt_list, lit, num, tex_matrix, tex_vec


def build(n) -> Problem:
    """Problem 9, eigenvalues decide (chapter 7): split a hidden state along eigenvectors, power each part.

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
    for name in ("A", "B"):
        M = np.array(n[name], dtype=float)
        values, directions, coefs = eigen_split(M, v)
        assert np.all(directions[:, 0] != 0), "each eigenvector needs a non-zero first entry"
        directions = directions / directions[:, :1]           # first entry 1, as the problem asks
        coefs = np.linalg.solve(directions.T, v)              # v = coefs @ directions
        radius = spectral_radius(M)
        out[name] = dict(M=M, values=values, directions=directions, coefs=coefs, radius=radius,
                         memory="fades" if radius < 1 else "explodes",
                         power=matrix_powers(M, v, T)[-1])
    A, B = out["A"], out["B"]
    step_lines = []
    for name, d in out.items():
        parts = [f"$W_{name}\\,{tex_vec(e)}={tex_vec(d['M'] @ e)}={num(l)}\\,{tex_vec(e)}$"
                 for l, e in zip(d["values"], d["directions"])]
        word = "below" if d["memory"] == "fades" else "above"
        step_lines.append(
            f"**(a) $W_{name}$.** " + " and ".join(parts) + f": eigenvalues ${num(d['values'][0])}$ and "
            f"${num(d['values'][1])}$, so $|\\lambda|_{{\\max}}={num(d['radius'])}$ is {word} 1 and the memory "
            f"{d['memory']}.")
    def split(d):
        return f"{tex_vec(v)}=" + " + ".join(f"{num(c)}\\,{tex_vec(e)}" for c, e in zip(d["coefs"], d["directions"]))

    if np.allclose(A["directions"], B["directions"]):
        step_lines.append(f"**(b) Split $\\boldsymbol v$.** ${split(A)}$. This one split serves $W_A$ and $W_B$ alike, "
                          "because both matrices have these eigenvectors.")
    else:
        step_lines.append(f"**(b) Split $\\boldsymbol v$.** Along the eigenvectors of $W_A$: ${split(A)}$; "
                          f"along those of $W_B$: ${split(B)}$.")
    for name, d, dec in (("A", A, 4), ("B", B, 2)):
        terms = [c * l ** T for c, l in zip(d["coefs"], d["values"])]
        expansion = " + ".join(f"{num(c)}\\cdot {num(l)}^{{{T}}}\\,{tex_vec(e)}"
                               for c, l, e in zip(d["coefs"], d["values"], d["directions"]))
        sizes = "$ and $".join(f"{num(c)}\\cdot {num(l)}^{{{T}}}\\approx {fmt(t, 6 if abs(t) < 1 else 4)}"
                               for c, l, t in zip(d["coefs"], d["values"], terms))
        step_lines.append(f"**(b) $W_{name}^{{{T}}}\\boldsymbol v$.** $W_{name}^{{{T}}}\\boldsymbol v={expansion}$, "
                          f"with ${sizes}$: $W_{name}^{{{T}}}\\boldsymbol v\\approx {fmt_list(d['power'], dec)}$.")
    choice = ("fades", "explodes")
    return Problem(
        9, "Eigenvalues decide", "medium", "splitting a hidden state along eigenvectors and powering each part",
        statement=(
            f"Two recurrent weight matrices: $W_A={tex_matrix(A['M'])}$ and $W_B={tex_matrix(B['M'])}$. A hidden "
            "state is fed "
            "through each of them again and again (no input, no squashing)."),
        given=f"W_A = np.array({lit(A['M'])})\nW_B = np.array({lit(B['M'])})\nv = np.array({lit(v)})\nsteps = {T}",
        parts=[
            Part("a", "For each matrix: its eigenvalues, largest first; its eigenvectors, one per row in the "
                      "same order, each scaled so that its first entry is 1; and whether a state fed through it "
                      "again and again “fades” or “explodes”. Store them in `eig_A`, `dirs_A`, `memory_A` and "
                      "`eig_B`, `dirs_B`, `memory_B` (four decimals).",
                 [Answer("eig_A", "vector", A["values"].tolist(), what="two numbers"),
                  Answer("dirs_A", "vector", A["directions"].tolist(), what="two rows of two numbers"),
                  Answer("memory_A", "choice", A["memory"], options=choice, what="“fades” or “explodes”"),
                  Answer("eig_B", "vector", B["values"].tolist(), what="two numbers"),
                  Answer("dirs_B", "vector", B["directions"].tolist(), what="two rows of two numbers"),
                  Answer("memory_B", "choice", B["memory"], options=choice, what="“fades” or “explodes”")],
                 "# Eigen-pairs with numpy; sort by size, largest first; scale each direction to start with 1.\n"
                 "def eigen(M):\n    values, vectors = np.linalg.eig(M)\n"
                 "    order = np.argsort(-np.abs(values))\n"
                 "    values, vectors = values[order].real, vectors[:, order].real\n"
                 "    return values, (vectors / vectors[0]).T\n"
                 "eig_A, dirs_A = eigen(W_A)\neig_B, dirs_B = eigen(W_B)\n"
                 "memory_A = 'fades' if np.abs(eig_A).max() < 1 else 'explodes'\n"
                 "memory_B = 'fades' if np.abs(eig_B).max() < 1 else 'explodes'\n"
                 "print(eig_A, dirs_A.tolist(), memory_A)\nprint(eig_B, dirs_B.tolist(), memory_B)", points=3),
            Part("b", f"The hidden state after {T} steps from $\\boldsymbol v={tex_vec(v)}$: $W_A^{{{T}}}\\boldsymbol v$ to four "
                      f"decimals and $W_B^{{{T}}}\\boldsymbol v$ to two. Store them in `A_T_v` and `B_T_v`.",
                 [Answer("A_T_v", "vector", A["power"].tolist(), what="two numbers"),
                  Answer("B_T_v", "vector", B["power"].tolist(), decimals=2, what="two numbers")],
                 "# Either multiply the matrix in again and again, or power each eigen-part: both agree.\n"
                 "A_T_v = np.linalg.matrix_power(W_A, steps) @ v\nB_T_v = np.linalg.matrix_power(W_B, steps) @ v\n"
                 "print(A_T_v.round(4), B_T_v.round(2))", points=2),
        ],
        steps=step_lines,
        remember=("Fed through one matrix step after step, a hidden state keeps mostly its part along the "
                  "eigenvector of largest $|\\lambda|$, since every other part shrinks in comparison. Its "
                  "length then scales like $|\\lambda|_{\\max}^t$, dying out when that is under 1 and "
                  "blowing up when it is over 1."),
        numbers=n)
