"""Chapter 4: reading answers out of the hidden state.

The read-out turns the hidden state into logits and the logits into probabilities,

    y = V h + b_V,    p = softmax(y),

the loss of one step is its cross-entropy ``-ln p[true]``, a sequence's loss is the sum
of its steps' cross-entropies, and the gradient each read-out sends back to its logits
is "prediction minus truth", ``p - one_hot(true)``.
"""
from __future__ import annotations

import numpy as np

from ._validate import as_array, positive


def softmax(logits, temperature=1.0) -> np.ndarray:
    """Turn logits into probabilities, ``p_i = exp(y_i / θ) / sum_j exp(y_j / θ)`` (chapters 4-5).

    Numerically stable: the largest logit is subtracted before exponentiating, so a
    tiny temperature gives exact zeros and a one, never NaN
    (``softmax([1, 2, 3], 1e-3)`` -> [0, 0, 1]).

    Args:
        logits: array of shape (..., K) with K >= 1; the softmax runs over the last axis.
        temperature: θ > 0. θ = 1 leaves the logits as they are; θ < 1 sharpens
            (θ -> 0 is greedy); θ > 1 flattens (θ -> infinity is uniform).

    Returns:
        array of the same shape as ``logits``; each row is >= 0 and sums to 1.

    Raises:
        ValueError: if ``logits`` is empty or not finite, or ``temperature`` is not > 0.
    """
    s = as_array(logits, "logits")
    if s.ndim == 0 or s.shape[-1] == 0:
        raise ValueError(f"logits must have at least one entry on its last axis, got shape {s.shape}")
    return _softmax(s / positive(temperature, "temperature"))


def log_softmax(logits, temperature=1.0) -> np.ndarray:
    """The logarithm of :func:`softmax`, computed without under- or overflow (chapters 12-13).

    ``log p_i = z_i - log sum_j exp(z_j)`` with ``z = y / θ`` shifted by its largest entry,
    so a logit far below the others gives a large negative number, never ``-inf`` from
    ``log(0)``.

    Args:
        logits: array of shape (..., K) with K >= 1; over the last axis.
        temperature: θ > 0.

    Returns:
        array of the shape of ``logits``, every entry <= 0; ``exp`` of each row sums to 1.

    Raises:
        ValueError: if ``logits`` is empty or not finite, or ``temperature`` is not > 0.

    Example:
        >>> log_softmax([0.0, 0.0]).round(4).tolist()
        [-0.6931, -0.6931]
        >>> float(log_softmax([0.0, -1000.0])[1])
        -1000.0
    """
    s = as_array(logits, "logits")
    if s.ndim == 0 or s.shape[-1] == 0:
        raise ValueError(f"logits must have at least one entry on its last axis, got shape {s.shape}")
    return _log_softmax(s / positive(temperature, "temperature"))


def _log_softmax(z):
    """The unchecked kernel of :func:`log_softmax` (θ = 1) for a float array."""
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _softmax(z):
    """The unchecked kernel of :func:`softmax` (θ = 1) for a float array."""
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def readout(h, V, b_V, temperature=1.0) -> np.ndarray:
    """The read-out layer: logits ``y = V h + b_V``, probabilities ``softmax(y)`` (chapter 4).

    Args:
        h: hidden state, shape (n,) or (..., n) for several steps at once.
        V: read-out matrix, shape (K, n), one row of weights per possible answer.
        b_V: read-out bias, shape (K,).
        temperature: θ, as in :func:`softmax`.

    Returns:
        probabilities, shape (K,) or (..., K).

    Raises:
        ValueError: if the shapes disagree, naming the argument.
    """
    V = as_array(V, "V", ndim=2)
    n_out, n = V.shape
    b_V = as_array(b_V, "b_V", shape=(n_out,))
    h = as_array(h, "h", ndim=(1, 2, 3))
    if h.shape[-1] != n:
        raise ValueError(f"h must have {n} numbers on its last axis to match V {V.shape}, got shape {h.shape}")
    return softmax(h @ V.T + b_V, temperature)


def one_hot(index: int, size: int) -> np.ndarray:
    """A vector of ``size`` zeros with a 1 at ``index`` (the "truth" of chapter 4).

    Raises:
        ValueError: if ``index`` is not a whole number in [0, size).
    """
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < size:
        raise ValueError(f"index must be a whole number in [0, {size}), got {index!r}")
    v = np.zeros(size)
    v[index] = 1.0
    return v


def _targets(probs, targets):
    p = as_array(probs, "probs", ndim=(1, 2))
    if p.shape[-1] == 0:
        raise ValueError("probs must have at least one entry per step")
    p2 = p.reshape(-1, p.shape[-1])
    t = np.atleast_1d(np.asarray(targets))
    if t.ndim != 1 or t.shape[0] != p2.shape[0]:
        raise ValueError(f"targets must give one index per step ({p2.shape[0]}), got {np.asarray(targets).shape}")
    if t.size and (not np.issubdtype(t.dtype, np.integer) or t.min() < 0 or t.max() >= p2.shape[1]):
        raise ValueError(f"targets must be whole numbers in [0, {p2.shape[1]}), got {t.tolist()}")
    if np.any(p2 < 0) or not np.allclose(p2.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError("probs must be probabilities: each row >= 0 and summing to 1")
    return p, p2, t


def cross_entropy(probs, targets) -> np.ndarray:
    """Each step's cross-entropy loss ``-ln p(true)`` in nats (chapter 4).

    Args:
        probs: one step's probabilities, shape (K,), or T steps', shape (T, K).
        targets: the true answer's index, an int, or T ints.

    Returns:
        array of shape (T,) (T = 1 for a single step), each >= 0; ``inf`` where p = 0.

    Raises:
        ValueError: if ``probs`` rows are not probabilities or ``targets`` do not fit.
    """
    _, p2, t = _targets(probs, targets)
    with np.errstate(divide="ignore"):
        return -np.log(p2[np.arange(len(t)), t])




def sequence_loss(probs, targets) -> float:
    """The loss of a whole sequence: the sum of its steps' cross-entropies, ``L = sum_t -ln p_t(true_t)`` (chapter 4).

    Args and errors as :func:`cross_entropy`.

    Returns:
        float >= 0, in nats.
    """
    return float(cross_entropy(probs, targets).sum())


def readout_gradient(probs, targets) -> np.ndarray:
    """The gradient at the read-out's logits: "prediction minus truth", ``p - y*`` (chapter 4 proof).

    This is dL/dy for the logits ``y = V h + b_V``, ``p = softmax(y)`` and ``L = -ln p[true]``
    (``y*`` the one-hot truth).

    Args:
        probs: shape (K,) or (T, K); targets: one index per step.

    Returns:
        array of the shape of ``probs``; each row sums to 0 (up to rounding).
    """
    p, p2, t = _targets(probs, targets)
    grad = p2.copy()
    grad[np.arange(len(t)), t] -= 1.0
    return grad.reshape(p.shape)
