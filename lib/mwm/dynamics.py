"""Chapter 7: why memory fades or explodes.

Strip the recurrent cell down to its loop, with no new words, and one step is
``h_t = w h_{t-1}`` (one number) or ``h_t = W h_{t-1}`` (a vector). After T steps the
hidden state is ``w^T h_0`` or ``W^T h_0``, and the gradient that travels back from
step T to step 0 is multiplied by the same power (by the transpose's power for a
matrix, which has the same eigenvalues). This module computes those powers and the
things that explain them:

* the scalar chain ``h_t = w h_{t-1}``, with or without the squeeze
  ``h_t = tanh(w h_{t-1})``, and its Jacobians ``dh_t/dh_0``
  (:func:`scalar_chain`), the first step at which a power drops below a threshold
  (:func:`first_step_below`) and the state a squeezed chain settles on
  (:func:`tanh_fixed_point`);
* powers of a matrix applied to a state (:func:`matrix_powers`), the eigenvalues and
  eigen-directions written readably, and the split of a state along them
  (:func:`readable_direction`, :func:`eigen_split`), the spectral radius
  (:func:`spectral_radius`) and the turn per step of a complex pair
  (:func:`turn_angle`).

In the other naming convention (chapter 2's table) the recurrent matrix is ``U``
(``h_t = g(U h_{t-1} + W x_t)``); a fade by a factor of 0.6 per step is
``scalar_chain(0.6, T)`` here.
"""
from __future__ import annotations

import math

import numpy as np

from ._validate import as_array, as_scalar, positive


def _steps(value, name="steps") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be 0 or more, got {value}")
    return int(value)


def scalar_chain(w, steps, h0=1.0, squash=False):
    """The hidden state and the Jacobian along the one-number chain, for t = 0..steps (chapter 7).

    Without the squeeze each step is ``h_t = w h_{t-1}``, so ``h_t = w^t h_0`` and the
    Jacobian ``dh_t/dh_0 = w^t``. With ``squash=True`` each step is
    ``h_t = tanh(w h_{t-1})`` and the Jacobian is the product of the local slopes
    ``w (1 - h_s^2)`` for s = 1..t (chain rule; the tanh slope is ``1 - tanh^2``). A
    gradient reaching h_t arrives at h_0 multiplied by it.

    Args:
        w: the recurrent weight, a finite number.
        steps: how many steps T to run, a whole number >= 0.
        h0: the starting state, a finite number.
        squash: False for the bare loop, True to put tanh around every step.

    Returns:
        (states, jacobians): two arrays of shape (steps + 1,), the hidden states
        h_0..h_T and the Jacobians dh_t/dh_0 for t = 0..T (the first is always 1).

    Raises:
        ValueError: if ``w`` or ``h0`` is not a finite number or ``steps`` is negative
        or not whole.

    Example (chapter 7): after 10 steps at w = 0.5 the Jacobian is 0.5^10 ~ 0.000977.

    >>> states, jacobians = scalar_chain(0.5, 10)
    >>> round(float(jacobians[10]), 6)
    0.000977
    """
    w, h = as_scalar(w, "w"), as_scalar(h0, "h0")
    steps = _steps(steps)
    states = np.empty(steps + 1)
    jacobians = np.empty(steps + 1)
    states[0], jacobians[0] = h, 1.0
    for t in range(1, steps + 1):
        if squash:
            h = math.tanh(w * h)
            jacobians[t] = jacobians[t - 1] * w * (1.0 - h * h)
        else:
            h = w * h
            jacobians[t] = jacobians[t - 1] * w
        states[t] = h
    return states, jacobians




def first_step_below(factor, threshold):
    """The first whole number of steps T >= 1 with ``|factor|^T < threshold`` (chapter 7).

    Args:
        factor: the per-step multiplier, with ``|factor| < 1`` (else the power never drops).
        threshold: a positive number.

    Returns:
        int T, found by multiplying step by step (no logarithms, so no rounding errors).

    Raises:
        ValueError: if ``threshold`` is not positive, or ``|factor| >= 1`` while
        ``threshold <= 1`` (the power would never drop below it).

    Example: 0.5^9 ~ 0.00195, 0.5^10 ~ 0.000977.

    >>> first_step_below(0.5, 1e-3)
    10
    """
    factor = abs(as_scalar(factor, "factor"))
    threshold = positive(threshold, "threshold")
    if factor >= 1 and threshold <= 1:
        raise ValueError(f"factor must have size below 1 to ever drop under {threshold}, got {factor}")
    power, t = factor, 1
    while power >= threshold:
        power *= factor
        t += 1
    return t


def tanh_fixed_point(w, tol=1e-15):
    """The state the squeezed loop ``h_t = tanh(w h_{t-1})`` settles on from a positive start (chapter 7).

    For ``w <= 1`` the only solution of ``h = tanh(w h)`` is h = 0 and the state fades to it.
    For ``w > 1`` there is also a positive solution h* in (0, 1), found here by bisection
    on ``tanh(w h) - h`` (positive just above 0, negative at 1); a positive start moves to
    it. At h* the Jacobian per step is ``w (1 - h*^2)``, which is below 1.

    Args:
        w: the recurrent weight, a finite number.
        tol: the bisection stops when the bracket is shorter than this.

    Returns:
        float h* (0.0 when ``w <= 1``).

    Raises:
        ValueError: if ``w`` is not a finite number or ``tol`` is not positive.

    Example: the state chapter 7 parks at.

    >>> round(tanh_fixed_point(1.5), 4)
    0.8586
    """
    w = as_scalar(w, "w")
    tol = positive(tol, "tol")
    if w <= 1:
        return 0.0
    # tanh(w h) - h is about (w - 1) h > 0 just above 0 and tanh(w) - 1 < 0 at h = 1.
    lo, hi = 1e-3, 1.0
    while math.tanh(w * lo) - lo <= 0:
        lo /= 2
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if math.tanh(w * mid) - mid > 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _square(W, name="W"):
    W = as_array(W, name, ndim=2)
    return as_array(W, name, shape=(W.shape[0], W.shape[0]))


def matrix_powers(W, v, steps):
    """The state's trajectory under the bare matrix loop: ``W^t v`` for t = 0..steps (chapter 7).

    Args:
        W: square recurrent matrix, shape (n, n).
        v: the starting state, shape (n,).
        steps: how many steps T, a whole number >= 0.

    Returns:
        array of shape (steps + 1, n): row t is W^t v (row 0 is v).

    Raises:
        ValueError: if ``W`` is not square, ``v`` has the wrong length or ``steps`` is
        negative, naming the argument.

    Example (chapter 7): W = [[0.9, 0.4], [0.1, 0.6]], v = (1, 0) gives (0.9, 0.1),
    (0.85, 0.15), ... -> (0.8, 0.2).

    >>> path = matrix_powers([[0.9, 0.4], [0.1, 0.6]], [1, 0], 60)
    >>> path[1:3].round(4).tolist(), path[60].round(4).tolist()
    ([[0.9, 0.1], [0.85, 0.15]], [0.8, 0.2])
    """
    W = _square(W)
    v = as_array(v, "v", shape=(W.shape[0],))
    steps = _steps(steps)
    out = np.empty((steps + 1, W.shape[0]))
    out[0] = v
    for t in range(1, steps + 1):
        out[t] = W @ out[t - 1]
    return out


def spectral_radius(W) -> float:
    """The largest eigenvalue size |lambda|_max of a square matrix (chapter 7).

    Below 1 every part of the state (and of the gradient) fades under repeated W; above 1
    some part explodes.

    Args:
        W: square matrix, shape (n, n).

    Returns:
        float >= 0.

    Raises:
        ValueError: if ``W`` is not square.
    """
    return float(np.max(np.abs(np.linalg.eigvals(_square(W)))))


def readable_direction(vector, tol=1e-9):
    """Rescale an eigenvector so it reads like the textbook's: (4, 1) rather than (0.970, 0.243).

    A real vector is divided by its entry of smallest nonzero size and its sign is
    chosen so the first nonzero entry is positive; entries within ``tol`` of a whole
    number are rounded to it. A complex vector is divided by its first nonzero entry
    (so that entry becomes 1), with the same rounding of real and imaginary parts.

    Args:
        vector: shape (n,), real or complex, not all zero.
        tol: how close to a whole number an entry must be to be rounded.

    Returns:
        array of shape (n,), float (real input) or complex, a multiple of ``vector``.

    Raises:
        ValueError: if the vector is all zeros or not 1-D.
    """
    v = np.asarray(vector)
    dtype = complex if np.iscomplexobj(v) else float
    v = as_array(v, "vector", ndim=1, dtype=dtype)
    sizes = np.abs(v)
    scale = np.max(sizes) if v.size else 0.0
    if scale == 0:
        raise ValueError("vector must not be all zeros")
    nonzero = np.flatnonzero(sizes > 1e-12 * scale)
    if dtype is float:
        v = v / sizes[nonzero].min()
        if v[nonzero[0]] < 0:
            v = -v
        near = np.abs(v - np.round(v)) < tol
        v[near] = np.round(v[near])
        return v + 0.0  # no negative zeros
    v = v / v[nonzero[0]]
    re, im = v.real.copy(), v.imag.copy()
    for part in (re, im):
        near = np.abs(part - np.round(part)) < tol
        part[near] = np.round(part[near])
    return (re + 0.0) + 1j * (im + 0.0)


def eigen_split(W, v):
    """Eigenvalues, readable eigen-directions, and the split of a state along them (chapter 7).

    With W e_i = lambda_i e_i and v = sum_i a_i e_i, every step multiplies part i by
    its own lambda_i: ``W^t v = sum_i a_i lambda_i^t e_i``.

    Args:
        W: square matrix, shape (n, n), with n independent eigenvectors (diagonalisable).
        v: the state to split, shape (n,).

    Returns:
        (eigenvalues, directions, coefficients): eigenvalues shape (n,), sorted by size,
        largest first (complex pairs kept together, the one with positive imaginary
        part first); directions shape (n, n) with direction i in ROW i, rescaled by
        :func:`readable_direction`; coefficients shape (n,) with
        ``v = coefficients @ directions``. Real when all eigenvalues are real,
        complex otherwise.

    Raises:
        ValueError: if the shapes disagree or W is not diagonalisable (its eigenvectors
        do not span the space).

    Example (chapter 7): W = [[0.9, 0.4], [0.1, 0.6]], v = (1, 0) gives eigenvalues (1, 0.5),
    directions (4, 1) and (1, -1), coefficients (0.2, 0.2).

    >>> values, directions, coefficients = eigen_split([[0.9, 0.4], [0.1, 0.6]], [1, 0])
    >>> values.real.round(4).tolist(), directions.real.tolist(), coefficients.real.round(4).tolist()
    ([1.0, 0.5], [[4.0, 1.0], [1.0, -1.0]], [0.2, 0.2])
    """
    W = _square(W)
    v = as_array(v, "v", shape=(W.shape[0],))
    values, vectors = np.linalg.eig(W)
    order = sorted(range(len(values)), key=lambda i: (-round(abs(values[i]), 12), -values[i].imag))
    values, vectors = values[order], vectors[:, order]
    if np.all(np.abs(values.imag) < 1e-12):
        values, vectors = values.real, vectors.real
    directions = np.array([readable_direction(vectors[:, i]) for i in range(len(values))])
    if np.linalg.cond(directions) > 1e10:
        raise ValueError("W must be diagonalisable: its eigenvectors do not span the space")
    coefficients = np.linalg.solve(directions.T, v.astype(directions.dtype))
    return values, directions, coefficients


def turn_angle(W) -> float:
    """The turn per step, in degrees, of a 2x2 matrix with a complex eigenvalue pair (chapter 7).

    For eigenvalues r e^{+-i phi} the state turns by phi each step and its length is
    multiplied by r. For [[0.8, -0.6], [0.6, 0.8]]: 0.8 +- 0.6i, r = 1, phi ~ 36.87 deg.

    Args:
        W: matrix of shape (2, 2).

    Returns:
        float phi in (0, 180).

    Raises:
        ValueError: if ``W`` is not 2x2 or its eigenvalues are real (no turn).
    """
    W = as_array(W, "W", shape=(2, 2))
    values = np.linalg.eigvals(W)
    if np.all(np.abs(values.imag) < 1e-12):
        raise ValueError("W must have complex eigenvalues to turn the state; its eigenvalues are real")
    return float(abs(np.degrees(np.angle(values[0]))))
