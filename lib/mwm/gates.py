"""Chapters 9-10: what the LSTM and the GRU share, the gates' machinery.

* :func:`sigmoid`, the gates' squashing function (the package's only one);
* checks of a dict of named weight blocks ``W_j`` (h, h), ``U_j`` (h, d), ``b_j`` (h,)
  and of a sequence with its starting states (run once, at a public function's door);
* the backward step through one block ``a = W h_prev + U x + b``;
* conversions to and from PyTorch's stacked layout.

Both :mod:`mwm.lstm` and :mod:`mwm.gru` import these; neither imports the other.
"""
from __future__ import annotations

import numpy as np

from ._validate import as_array, as_sequence


def sigmoid(a):
    """The logistic function ``1 / (1 + exp(-a))``, entry by entry, without overflow (chapter 9).

    A gate applies it to its pre-activation ``a``. Computed as ``1 / (1 + e^-a)`` for
    ``a >= 0`` and ``e^a / (1 + e^a)`` for ``a < 0``, the same function written so that
    ``exp`` only ever sees ``-|a|``: it never overflows (``sigmoid(-1000)`` is 0 and
    ``sigmoid(1000)`` is 1, with no warning) and keeps full relative precision in the lower
    tail (``sigmoid(-40)`` is 4.25e-18, not 0).

    Args:
        a: a number or an array of any shape.

    Returns:
        float array of the shape of ``a``, each entry in [0, 1] (strictly inside for
        moderate ``a``).

    Raises:
        ValueError: if ``a`` is not numeric.

    Example:
        >>> round(float(sigmoid(2)), 4)
        0.8808
        >>> sigmoid([-1000.0, 0.0, 1000.0]).tolist()
        [0.0, 0.5, 1.0]
    """
    try:
        a = np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"a must be numeric, got {type(a).__name__}") from None
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def check_caches(caches, keys, name: str, made_by: str) -> list:
    """Check a step's cache (a dict), or a list of them, before a backward pass reads it (chapters 6, 9, 10).

    Args:
        caches: one cache dict, or a non-empty list or tuple of them.
        keys: the keys every cache must hold.
        name: the argument's name for messages ("cache" or "caches").
        made_by: the function whose caches are expected, e.g. "gru_step or gru_forward".

    Returns:
        the caches as a list (one element for a single cache).

    Raises:
        ValueError: naming ``name``, if it is not a dict (or a non-empty list of dicts) holding ``keys``.
    """
    many = isinstance(caches, (list, tuple))
    items = list(caches) if many else [caches]
    if many and not items:
        raise ValueError(f"{name} must be the non-empty list of caches of {made_by}, got an empty list")
    for cache in items:
        if not isinstance(cache, dict) or any(key not in cache for key in keys):
            what = "list of caches" if many else "cache"
            raise ValueError(f"{name} must be the {what} of {made_by} (dicts with {', '.join(keys)}), "
                             f"got {type(cache).__name__}")
    return items


def check_weights(weights, blocks, kind: str):
    """Validate a dict of named blocks; return (weights as float arrays, h, d) (chapters 9-10).

    Every ``W_j`` must be (h, h), every ``U_j`` (h, d), every ``b_j`` (h,), with one h and
    one d for all blocks ``j`` in ``blocks``.

    Raises:
        ValueError: naming the missing key or the array with the wrong shape.
    """
    if not isinstance(weights, dict):
        raise ValueError(f"weights must be a dict of {kind} blocks, got {type(weights).__name__}")
    missing = [f"{m}_{k}" for k in blocks for m in ("W", "U", "b") if f"{m}_{k}" not in weights]
    if missing:
        raise ValueError(f"weights is missing the {kind} block(s) {missing}")
    first = as_array(weights[f"W_{blocks[0]}"], f"W_{blocks[0]}", ndim=2)
    h = first.shape[0]
    first_u = as_array(weights[f"U_{blocks[0]}"], f"U_{blocks[0]}", ndim=2)
    d = first_u.shape[1]
    out = {}
    for k in blocks:
        out[f"W_{k}"] = as_array(weights[f"W_{k}"], f"W_{k}", shape=(h, h))
        out[f"U_{k}"] = as_array(weights[f"U_{k}"], f"U_{k}", shape=(h, d))
        out[f"b_{k}"] = as_array(weights[f"b_{k}"], f"b_{k}", shape=(h,))
    return out, h, d


def check_inputs(xs, n_in: int, n_hidden: int, states: dict):
    """Validate a sequence (T, d) or (T, B, d) and its starting states; zeros where None.

    Returns:
        (xs, batch, states): batch is None for a single sequence; each state has shape
        (h,) or (B, h).

    Raises:
        ValueError: for an empty sequence or a shape that disagrees, naming the argument.
    """
    xs, batch = as_sequence(xs, n_in)
    shape = (n_hidden,) if batch is None else (batch, n_hidden)
    out = {}
    for name, value in states.items():
        out[name] = np.zeros(shape) if value is None else as_array(value, name, shape=shape)
    return xs, batch, out


def check_step(x, n_in: int, n_hidden: int, **states):
    """Validate one step's input x, (d,) or (B, d), and its states, each (h,) or (B, h).

    Returns:
        (x, states): float arrays; states is a dict in the order given.

    Raises:
        ValueError: for a shape that disagrees, naming the argument.
    """
    x = as_array(x, "x", ndim=(1, 2))
    batch = None if x.ndim == 1 else x.shape[0]
    x = as_array(x, "x", shape=(n_in,) if batch is None else (batch, n_in))
    shape = (n_hidden,) if batch is None else (batch, n_hidden)
    return x, {name: as_array(v, name, shape=shape) for name, v in states.items()}


def check_gradient(value, name: str, shape):
    """Validate a gradient array of the given shape (zeros if None)."""
    return np.zeros(shape) if value is None else as_array(value, name, shape=shape)




def backward_block(grads, da, h_prev, x, w, block):
    """Add one block's weight gradients for the pre-activation ``a = W_j h_prev + U_j x + b_j`` (j = ``block``);
    return the (dh_prev, dx) shares.

    ``grads`` (a dict of arrays shaped like the weights) is updated in place.
    """
    j = block
    if da.ndim == 1:
        grads[f"W_{j}"] += np.outer(da, h_prev)
        grads[f"U_{j}"] += np.outer(da, x)
        grads[f"b_{j}"] += da
    else:
        grads[f"W_{j}"] += da.T @ h_prev
        grads[f"U_{j}"] += da.T @ x
        grads[f"b_{j}"] += da.sum(axis=0)
    return da @ w[f"W_{j}"], da @ w[f"U_{j}"]


def from_stacked(weight_ih, weight_hh, bias_ih, bias_hh, blocks):
    """Named blocks from a stacked layout ``[U_j; ...]``, ``[W_j; ...]`` in the order ``blocks``; biases summed.

    Raises:
        ValueError: if the shapes are not (n h, d), (n h, h) and (n h,) for n blocks.
    """
    n = len(blocks)
    weight_hh = as_array(weight_hh, "weight_hh", ndim=2)
    h = weight_hh.shape[1]
    weight_hh = as_array(weight_hh, "weight_hh", shape=(n * h, h))
    weight_ih = as_array(weight_ih, "weight_ih", ndim=2)
    weight_ih = as_array(weight_ih, "weight_ih", shape=(n * h, None))
    bias = np.zeros(n * h)
    for name, value in (("bias_ih", bias_ih), ("bias_hh", bias_hh)):
        if value is not None:
            bias = bias + as_array(value, name, shape=(n * h,))
    out = {}
    for j, k in enumerate(blocks):
        rows = slice(j * h, (j + 1) * h)
        out[f"W_{k}"], out[f"U_{k}"], out[f"b_{k}"] = weight_hh[rows].copy(), weight_ih[rows].copy(), bias[rows].copy()
    return out


def to_stacked(w, blocks):
    """The stacked layout from named blocks: (weight_ih, weight_hh, bias_ih, bias_hh = zeros)."""
    weight_ih = np.concatenate([w[f"U_{k}"] for k in blocks])
    weight_hh = np.concatenate([w[f"W_{k}"] for k in blocks])
    bias_ih = np.concatenate([w[f"b_{k}"] for k in blocks])
    return weight_ih, weight_hh, bias_ih, np.zeros_like(bias_ih)
