"""Chapters 2 and 3: the plain recurrent cell, one number or a vector.

The course's convention is

    h_t = tanh(W h_{t-1} + U x_t + b)

with ``W`` the recurrent matrix (hidden -> hidden, shape (h, h)), ``U`` the input
matrix (input -> hidden, shape (h, d)) and ``b`` the shift (shape (h,)). The same
``W``, ``U`` and ``b`` are used at every step.

Notation bridge. Books that call this cell an "Elman network" (Jurafsky & Martin
among them) swap the two names: there ``W`` maps the input and ``U`` is
recurrent, ``h_t = g(U h_{t-1} + W x_t)``. Chapter 2's two-step example in those letters
(input weight 0.8, recurrent weight 0.5) is ``scalar_rnn([1.0, -0.5], w=0.5, u=0.8)`` here.

PyTorch's ``torch.nn.RNN`` computes ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``: its
``weight_hh`` is our ``W``, its ``weight_ih`` our ``U``, and our single ``b`` is its
``b_ih + b_hh``.
"""
from __future__ import annotations

import numpy as np

from ._validate import as_array, as_scalar, as_sequence, batch_major, time_major


def scalar_rnn(xs, w, u, b=0.0, h0=0.0) -> np.ndarray:
    """Run the one-number cell ``h_t = tanh(w h_{t-1} + u x_t + b)`` over a sequence (chapter 2).

    Args:
        xs: the inputs x_1..x_T, a 1-D sequence of T >= 1 numbers.
        w: recurrent weight ("keep old"), u: input weight ("new word"), b: shift;
            finite numbers.
        h0: the hidden state before the first input.

    Returns:
        array of shape (T,): h_1..h_T, each strictly inside (-1, 1).

    Raises:
        ValueError: if ``xs`` is empty or not 1-D, or a weight is not a finite number.

    Example (chapter 2):
        >>> scalar_rnn([1, 0, 0], w=0.5, u=1).round(4).tolist()
        [0.7616, 0.3634, 0.1797]
    """
    xs = as_array(xs, "xs", ndim=1)
    if xs.size == 0:
        raise ValueError("xs must contain at least one step")
    w, u, b, h = (as_scalar(v, n) for v, n in ((w, "w"), (u, "u"), (b, "b"), (h0, "h0")))
    hs = np.empty_like(xs)
    for t, x in enumerate(xs):
        h = np.tanh(w * h + u * x + b)
        hs[t] = h
    return hs


#: The plain cell's weight names: recurrent matrix, input matrix, shift.
RNN_KEYS = ("W", "U", "b")


def check_rnn_weights(weights):
    """Validate the plain cell's weights ``{"W": (h, h), "U": (h, d), "b": (h,)}``; return (W, U, b) as float arrays.

    Raises:
        ValueError: if ``weights`` is not a dict with the keys :data:`RNN_KEYS`, or a shape disagrees, naming it.
    """
    if not isinstance(weights, dict):
        raise ValueError(f"weights must be a dict with the keys {list(RNN_KEYS)}, got {type(weights).__name__}")
    missing = [k for k in RNN_KEYS if k not in weights]
    if missing:
        raise ValueError(f"weights is missing {missing}")
    W = as_array(weights["W"], "W", ndim=2)
    n_hidden = W.shape[0]
    W = as_array(W, "W", shape=(n_hidden, n_hidden))
    U = as_array(weights["U"], "U", ndim=2)
    U = as_array(U, "U", shape=(n_hidden, None))
    b = as_array(weights["b"], "b", shape=(n_hidden,))
    return W, U, b


def _rnn_step(h_prev, x, W, U, b):
    """The unchecked kernel of :func:`rnn_step`: (h, cache)."""
    h = np.tanh(h_prev @ W.T + x @ U.T + b)
    return h, {"h_prev": h_prev, "x": x, "h": h}


def rnn_step(h_prev, x, weights):
    """One step of the vector cell: ``h = tanh(W h_prev + U x + b)`` (chapter 2).

    Args:
        h_prev: the previous hidden state, shape (h,) or (B, h) for a batch of B.
        x: the input, shape (d,) or (B, d), with the same batch as ``h_prev``.
        weights: dict ``{"W": (h, h), "U": (h, d), "b": (h,)}`` (:data:`RNN_KEYS`), the
            recurrent matrix, the input matrix and the shift.

    Returns:
        (h_new, cache): h_new has the shape of ``h_prev``; cache is the dict
        ``{"h_prev", "x", "h"}``, everything :func:`mwm.bptt.rnn_step_backward` needs (chapter 6).

    Raises:
        ValueError: if a weight is missing or any shape disagrees, naming the argument.

    Example (chapter 2, one number: w = 0.5, u = 1, b = 0):
        >>> h, cache = rnn_step([0.0], [1.0], {"W": [[0.5]], "U": [[1.0]], "b": [0.0]})
        >>> round(float(h[0]), 4)
        0.7616
    """
    W, U, b = check_rnn_weights(weights)
    n_hidden, n_in = U.shape
    x = as_array(x, "x", ndim=(1, 2))
    batch = None if x.ndim == 1 else x.shape[0]
    x = as_array(x, "x", shape=(n_in,) if batch is None else (batch, n_in))
    h_prev = _check_state(h_prev, "h_prev", n_hidden, batch)
    return _rnn_step(h_prev, x, W, U, b)


def _check_state(h, name, n_hidden, batch):
    if batch is None:
        return as_array(h, name, shape=(n_hidden,))
    return as_array(h, name, shape=(batch, n_hidden))


def rnn_forward(xs, weights, h0=None, *, batch_first: bool = False):
    """Run the vector cell over a whole sequence and return every hidden state (chapters 2-3).

    The same ``W``, ``U``, ``b`` are used at every step: unrolled, this is a deep
    network of T layers that all share one set of weights.

    Args:
        xs: inputs, shape (T, d), or (T, B, d) for a batch of B sequences; T >= 1.
        weights: dict ``{"W": (h, h), "U": (h, d), "b": (h,)}``.
        h0: the state before the first input, shape (h,) or (B, h); zeros if None.
        batch_first: True if ``xs`` is a batch given batch first, (B, T, d) (torch's
            ``batch_first=True``); ``hs`` then comes back as (B, T, h). Without it a (B, T, d)
            array is read as T = B steps of a batch of T.

    Returns:
        (hs, caches): hs has shape (T, h) or (T, B, h), h_1..h_T (h0 is not included);
        caches is a list of T step caches (as :func:`rnn_step` returns) for
        :func:`mwm.bptt.rnn_backward`.

    Raises:
        ValueError: if the sequence is empty, a weight is missing or any shape disagrees,
            naming the argument.

    Example (chapter 2: one number, w = 0.5, u = 1, inputs 1, 0, 0):
        >>> hs, _ = rnn_forward([[1.0], [0.0], [0.0]], {"W": [[0.5]], "U": [[1.0]], "b": [0.0]})
        >>> hs[:, 0].round(4).tolist()
        [0.7616, 0.3634, 0.1797]
    """
    W, U, b = check_rnn_weights(weights)
    n_hidden, n_in = U.shape
    xs, batch = as_sequence(time_major(xs, batch_first), n_in)
    if h0 is None:
        h = np.zeros((n_hidden,) if batch is None else (batch, n_hidden))
    else:
        h = _check_state(h0, "h0", n_hidden, batch)
    inputs = xs @ U.T + b  # every step's U x_t + b at once: they do not depend on h
    hs = np.empty(inputs.shape)
    caches = []
    for t in range(xs.shape[0]):
        h_prev = h
        h = np.tanh(h @ W.T + inputs[t])
        hs[t] = h
        caches.append({"h_prev": h_prev, "x": xs[t], "h": hs[t]})
    return batch_major(hs, batch_first), caches
