"""Chapter 6, backpropagation through time: the gradient walks back along the words.

Backpropagation through time (BPTT) is the ordinary backward pass run on the
unrolled cell ``h_t = tanh(a_t)``, ``a_t = W h_{t-1} + U x_t + b`` (``a_t`` the
pre-activation). It has two passes:

1. forward: run the cell and keep every hidden state (:func:`mwm.rnn_forward` or
   :func:`mwm.scalar_rnn` does this);
2. backward: walk from the last word to the first. At every step two rules apply:

   * Rule A (through the tanh): ``dL/da_t = dL/dh_t * (1 - h_t**2)``;
   * Rule B (through ``W h_{t-1} + U x_t + b``): the previous hidden state gets
     ``W^T dL/da_t``, and the shared weight gets the step's contribution to its
     gradient, ``dL/da_t h_{t-1}^T`` (``dL/da_t x_t^T`` for ``U``, ``dL/da_t`` for
     ``b``). Every step's contribution is added up.

The loss interface. These functions do not know the loss. The caller passes
``dL_dh``, an array shaped like the hidden states: entry t is the gradient the loss
puts on ``h_t`` *directly*, at its own step, not through later states. Examples:

* a loss on the last state only, ``L = 1/2 (h_T - y)^2``: zeros everywhere except
  ``h_T - y`` at the last step (:func:`last_state_loss` builds it);
* a read-out at every step, ``p_t = softmax(V h_t + b_V)`` with cross-entropy:
  ``dL_dh[t] = V^T (p_t - y_t)``, i.e. ``readout_gradient(probs, targets) @ V``.

BPTT adds what flows back from later steps, so ``grads.dh[t]`` (the *total* gradient
reaching ``h_t``) is ``dL_dh[t] + W^T dL/da_{t+1}``.

Truncation. With ``tau`` (τ) given, the text is cut into chunks of ``tau`` words
(words 1..τ, τ+1..2τ, ...). The hidden state still flows forward across every cut,
but no gradient crosses one: walking back, the gradient is reset to the loss's own
share at the last word of every chunk. This equals PyTorch autograd with
``h = h.detach()`` at the start of every chunk.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Mapping

import numpy as np

from ._validate import as_array, as_scalar, as_sequence, batch_major, positive, positive_int, time_major
from .cell import check_rnn_weights


# --------------------------------------------------------------------------- the one-number cell

@dataclass
class ScalarGrads:
    """What BPTT returns for the one-number cell (:func:`scalar_bptt`).

    Attributes:
        dw, du, db: dL/dw, dL/du, dL/db, each the sum of the steps' contributions.
        dh: shape (T,), the total gradient reaching each hidden state h_t (its own loss
            plus what flows back from later states of the same chunk).
        da: shape (T,), the gradient at each pre-activation a_t after Rule A:
            ``dh * (1 - h_t**2)``.
        dw_steps: shape (T,), each step's contribution to dL/dw, ``da[t] * h_{t-1}``;
            ``dw == dw_steps.sum()``.
        dh0: the gradient reaching the starting state h_0.
    """

    dw: float
    du: float
    db: float
    dh: np.ndarray
    da: np.ndarray
    dw_steps: np.ndarray
    dh0: float



def _check_tau(tau):
    return None if tau is None else positive_int(tau, "tau")


def scalar_bptt(xs, hs, dL_dh, w, u, b=0.0, h0=0.0, tau=None) -> ScalarGrads:
    """Backprop through time for the one-number cell ``h_t = tanh(w h_{t-1} + u x_t + b)`` (chapter 6).

    Written as a plain loop over the words, last to first, with Rule A and Rule B
    spelled out; :func:`rnn_bptt` is the same walk with matrices and batches.

    Args:
        xs: the inputs x_1..x_T, shape (T,), T >= 1.
        hs: the hidden states h_1..h_T saved by the forward pass, shape (T,); each in
            (-1, 1) (``scalar_rnn(xs, w, u, b, h0)``).
        dL_dh: shape (T,): the gradient the loss puts directly on each state (see the
            module docstring; :func:`last_state_loss` for a loss on the last state).
        w, u, b: the cell's weights; h0: the state before the first word.
        tau: the truncation length τ of truncated BPTT (no gradient crosses from word
            mτ+1 back to word mτ); None for full BPTT.

    Returns:
        :class:`ScalarGrads`.

    Raises:
        ValueError: if the lengths disagree, ``hs`` is outside (-1, 1), a weight is not a
            finite number, or ``tau`` is not a whole number >= 1, naming the argument.

    Example (chapter 6, the step machine): x = (1, 0, 0, 0), w = 0.5, u = 1, loss
    ``1/2 (h_4 - 1)^2``; with tau = 2 only words 3 and 4 contribute:

        >>> from mwm.cell import scalar_rnn
        >>> hs = scalar_rnn([1, 0, 0, 0], w=0.5, u=1)
        >>> _, dL_dh = last_state_loss(hs, 1.0)
        >>> g = scalar_bptt([1, 0, 0, 0], hs, dL_dh, w=0.5, u=1)
        >>> g.dw_steps.round(4).tolist(), round(g.dw, 4)
        ([0.0, -0.1444, -0.1588, -0.1623], -0.4655)
        >>> round(scalar_bptt([1, 0, 0, 0], hs, dL_dh, w=0.5, u=1, tau=2).dw, 4)
        -0.3211
    """
    xs = as_array(xs, "xs", ndim=1)
    if xs.size == 0:
        raise ValueError("xs must contain at least one step")
    hs = as_array(hs, "hs", shape=xs.shape)
    dL_dh = as_array(dL_dh, "dL_dh", shape=xs.shape)
    if np.any(np.abs(hs) >= 1):
        raise ValueError("hs must be hidden states of the forward pass, each strictly inside (-1, 1)")
    w, u, b, h0 = (as_scalar(v, n) for v, n in ((w, "w"), (u, "u"), (b, "b"), (h0, "h0")))
    tau = _check_tau(tau)
    T = len(xs)
    h_prev = np.concatenate(([h0], hs[:-1]))   # the state each step started from
    dh, da, dw_steps = np.zeros(T), np.zeros(T), np.zeros(T)
    from_later = 0.0                            # gradient sent back by step t+1
    for t in reversed(range(T)):
        if tau is not None and (t + 1) % tau == 0:  # word t+1 ends a chunk: nothing crosses the cut
            from_later = 0.0
        dh[t] = dL_dh[t] + from_later            # total gradient on h_t
        da[t] = dh[t] * (1.0 - hs[t] ** 2)       # Rule A: times the tanh slope
        dw_steps[t] = da[t] * h_prev[t] + 0.0    # Rule B: the step's contribution to dL/dw, times the state that came in
                                                 # (+ 0.0 prints -0.0 as 0.0)
        from_later = da[t] * w                   # Rule B: the previous state's share, times w
    return ScalarGrads(dw=float(dw_steps.sum()), du=float(da @ xs), db=float(da.sum()),
                       dh=dh, da=da, dw_steps=dw_steps, dh0=float(from_later))


def last_state_loss(hs, target) -> tuple[float, np.ndarray]:
    """A loss on the last hidden state only, ``L = 1/2 ||h_T - y||^2``, and its gradient per step (chapter 6's widget).

    Args:
        hs: hidden states, shape (T,), (T, h) or (T, B, h) (a batch adds its losses).
        target: y, a number or an array broadcastable to ``hs[-1]``.

    Returns:
        (L, dL_dh): L >= 0, a float; dL_dh has the shape of ``hs``, zero except at the last
        step, where it is ``h_T - y``. Pass it to :func:`scalar_bptt` or :func:`rnn_bptt`.

    Raises:
        ValueError: if ``hs`` is empty or ``target`` does not fit ``hs[-1]``.
    """
    hs = as_array(hs, "hs", ndim=(1, 2, 3))
    if hs.shape[0] == 0:
        raise ValueError("hs must contain at least one step")
    target = as_array(target, "target")
    try:
        diff = hs[-1] - np.broadcast_to(target, hs[-1].shape)
    except ValueError:
        raise ValueError(f"target must fit the last state's shape {hs[-1].shape}, got {target.shape}") from None
    dL_dh = np.zeros_like(hs)
    dL_dh[-1] = diff
    return 0.5 * float(np.sum(diff ** 2)), dL_dh




# --------------------------------------------------------------------------- the vector cell

@dataclass
class RNNGrads:
    """What BPTT returns for the vector cell (:func:`rnn_bptt`).

    Attributes:
        dW: (h, h), dU: (h, d), db: (h,): the gradients, summed over steps (and over the batch).
        dh: (T, h) or (T, B, h): the total gradient reaching each hidden state h_t.
        da: same shape: the gradient at each pre-activation a_t, ``dh * (1 - h_t**2)``.
        dh0: (h,) or (B, h): the gradient reaching the starting state h_0.
        h_prev: same shape as ``dh``: the state each step started from (h_0, h_1, ..., h_{T-1}).
        dW_steps: (T, h, h), computed on first use: step t's contribution to dL/dW,
            ``da_t h_{t-1}^T`` (summed over the batch); ``dW_steps.sum(0) == dW``.
    """

    dW: np.ndarray
    dU: np.ndarray
    db: np.ndarray
    dh: np.ndarray
    da: np.ndarray
    dh0: np.ndarray
    h_prev: np.ndarray

    @cached_property
    def dW_steps(self) -> np.ndarray:
        if self.da.ndim == 2:
            return np.einsum("ti,tj->tij", self.da, self.h_prev)
        return np.einsum("tbi,tbj->tij", self.da, self.h_prev)



def rnn_bptt(xs, hs, dL_dh, weights, h0=None, tau=None) -> RNNGrads:
    """Backprop through time for the vector cell ``h_t = tanh(W h_{t-1} + U x_t + b)`` (chapter 6).

    The backward half of the two-pass algorithm (chapter 6): ``hs`` are the states the
    forward pass saved. Walking back, each step applies
    ``da_t = dh_t * (1 - h_t**2)`` (Rule A) and sends ``W^T da_t`` to ``h_{t-1}``
    (Rule B), so one step back multiplies the gradient by the transposed Jacobian
    ``W^T diag(1 - h_t**2)``. The weights' gradients are the sums of every step's
    contributions, taken at the end in one matrix product each:
    ``dW = sum_t da_t h_{t-1}^T``, ``dU = sum_t da_t x_t^T``, ``db = sum_t da_t``.
    :func:`rnn_backward` is the same walk behind the three cells' common contract
    (caches in, ``(grads, dh0, dxs)`` out); this one also keeps every step's gradient
    and can truncate.

    Args:
        xs: inputs, shape (T, d) or (T, B, d), T >= 1.
        hs: the forward pass's states, ``rnn_forward(xs, weights, h0)[0]``, shape (T, h) or (T, B, h).
        dL_dh: the gradient the loss puts directly on each state, the shape of ``hs`` (see
            the module docstring: e.g. ``readout_gradient(probs, targets) @ V``).
        weights: dict ``{"W": (h, h), "U": (h, d), "b": (h,)}`` (as :func:`mwm.rnn_forward`).
        h0: the state before the first input, (h,) or (B, h); zeros if None.
        tau: the truncation length τ of truncated BPTT: no gradient crosses from word
            mτ+1 back to word mτ (the state still flows forward); None for full BPTT.

    Returns:
        :class:`RNNGrads`.

    Raises:
        ValueError: if a weight is missing, any shape disagrees or ``tau`` is not a whole number >= 1,
            naming the argument.
    """
    W, U, b = check_rnn_weights(weights)
    n_hidden, n_in = U.shape
    xs, batch = as_sequence(xs, n_in)
    lead = xs.shape[:-1]
    hs = as_array(hs, "hs", shape=(*lead, n_hidden))
    dL_dh = as_array(dL_dh, "dL_dh", shape=(*lead, n_hidden))
    state_shape = (n_hidden,) if batch is None else (batch, n_hidden)
    h0 = np.zeros(state_shape) if h0 is None else as_array(h0, "h0", shape=state_shape)
    return _rnn_bptt(xs, hs, dL_dh, W, h0, _check_tau(tau))


def _rnn_bptt(xs, hs, dL_dh, W, h0, tau):
    """The unchecked kernel of :func:`rnn_bptt` and :func:`rnn_backward`."""
    n_hidden, n_in = W.shape[0], xs.shape[-1]
    T = xs.shape[0]
    h_prev = np.concatenate((h0[None], hs[:-1]))   # the state each step started from
    slope = 1.0 - hs * hs                          # every step's tanh slope, known after the forward pass
    dh = np.empty_like(hs)
    da = np.empty_like(hs)
    from_later = np.zeros(h0.shape)                # gradient sent back by step t+1
    for t in range(T - 1, -1, -1):
        if tau is not None and (t + 1) % tau == 0:  # word t+1 ends a chunk: no gradient crosses the cut
            from_later = 0.0
        np.add(dL_dh[t], from_later, out=dh[t])    # total gradient on h_t
        np.multiply(dh[t], slope[t], out=da[t])    # Rule A
        from_later = da[t] @ W                     # Rule B for the previous state: W^T da_t (rows: da_t W)
    da2 = da.reshape(-1, n_hidden)                 # all steps (and sequences) as rows
    dW = da2.T @ h_prev.reshape(-1, n_hidden)      # Rule B for the weights, every step's contribution added up
    dU = da2.T @ xs.reshape(-1, n_in)
    db = da2.sum(axis=0)
    return RNNGrads(dW=dW, dU=dU, db=db, dh=dh, da=da, dh0=from_later, h_prev=h_prev)


def _check_cache(cache, name, n_hidden):
    if not isinstance(cache, dict) or any(key not in cache for key in ("h_prev", "x", "h")):
        raise ValueError(f"{name} must be a cache of rnn_step or rnn_forward (a dict with h_prev, x, h)")
    h_new = as_array(cache["h"], f"{name}['h']", ndim=(1, 2))
    if h_new.shape[-1] != n_hidden:
        raise ValueError(f"{name}['h'] must have {n_hidden} numbers per state, got shape {h_new.shape}")
    h_prev = as_array(cache["h_prev"], f"{name}['h_prev']", shape=h_new.shape)
    x = as_array(cache["x"], f"{name}['x']", ndim=h_new.ndim)
    if x.shape[:-1] != h_new.shape[:-1]:
        raise ValueError(f"{name}['x'] must have the batch shape of h {h_new.shape[:-1]}, got shape {x.shape}")
    return h_prev, x, h_new


def rnn_step_backward(dh, cache, weights):
    """The backward step of :func:`mwm.rnn_step`: Rule A, then Rule B (chapter 6).

    Args:
        dh: the total gradient on the step's new state, shape (h,) or (B, h).
        cache: the dict ``{"h_prev", "x", "h"}`` returned by ``rnn_step``.
        weights: the weights ``{"W", "U", "b"}`` used in that step.

    Returns:
        (grads, dh_prev, dx): grads is a dict with this step's contributions to the
        gradients of ``"W"`` (h, h), ``"U"`` (h, d) and ``"b"`` (h,), summed over a batch;
        dh_prev (shape of h_prev) is the gradient sent to the previous state, ``W^T da``;
        dx (shape of x) the gradient sent to the input, ``U^T da``.

    Raises:
        ValueError: if a weight is missing or the shapes disagree, naming the argument.
    """
    W, U, _ = check_rnn_weights(weights)
    h_prev, x, h_new = _check_cache(cache, "cache", W.shape[0])
    if x.shape[-1] != U.shape[1]:
        raise ValueError(f"cache['x'] must have {U.shape[1]} numbers per input, got shape {x.shape}")
    dh = as_array(dh, "dh", shape=h_new.shape)
    da = dh * (1.0 - h_new ** 2)                      # Rule A
    da2, hp2, x2 = (np.atleast_2d(a) for a in (da, h_prev, x))
    grads = {"W": da2.T @ hp2, "U": da2.T @ x2, "b": da2.sum(axis=0)}   # Rule B
    return grads, da @ W, da @ U


def rnn_backward(dhs, caches, weights, *, batch_first: bool = False):
    """Backprop through time for the vector cell over the caches of :func:`mwm.rnn_forward` (chapter 6).

    The plain cell's side of the contract the three cells share (:func:`mwm.gru_backward`,
    :func:`mwm.lstm_backward`); the walk is :func:`rnn_bptt`'s, without truncation.

    Args:
        dhs: the gradient the loss puts directly on each step's state, (T, h) or (T, B, h).
        caches: the list returned by :func:`mwm.rnn_forward`.
        weights: the same weights as the forward pass.
        batch_first: True if ``dhs`` is (B, T, h), as ``rnn_forward(..., batch_first=True)``
            returns its states; ``dxs`` then comes back as (B, T, d).

    Returns:
        (grads, dh0, dxs): grads is a dict with dL/dW, dL/dU, dL/db (keys ``"W"``, ``"U"``,
        ``"b"``, summed over steps and batch); dh0 = dL/dh_0 has the shape of h0; dxs has
        the shape of xs.

    Raises:
        ValueError: if a weight is missing, ``caches`` is empty or ``dhs`` does not match the
            forward pass, naming it.
    """
    W, U, _ = check_rnn_weights(weights)
    if not isinstance(caches, (list, tuple)) or len(caches) == 0:
        raise ValueError("caches must be the non-empty list returned by rnn_forward")
    h0, x0, _ = _check_cache(caches[0], "caches[0]", W.shape[0])
    if x0.shape[-1] != U.shape[1]:
        raise ValueError(f"caches' inputs must have {U.shape[1]} numbers, got shape {x0.shape}")
    xs = np.stack([c["x"] for c in caches])
    hs = np.stack([c["h"] for c in caches])
    dhs = as_array(time_major(dhs, batch_first, "dhs"), "dhs", shape=hs.shape)
    g = _rnn_bptt(xs, hs, dhs, W, h0, None)
    return {"W": g.dW, "U": g.dU, "b": g.db}, g.dh0, batch_major(g.da @ U, batch_first)


# --------------------------------------------------------------------------- truncation: chunks

def chunk_count(n_words, tau) -> int:
    """How many chunks truncated BPTT cuts a text of ``n_words`` into: ceil(N / τ) (chapter 6 proof).

    Raises:
        ValueError: if either argument is not a whole number >= 1.
    """
    n, tau = positive_int(n_words, "n_words"), positive_int(tau, "tau")
    return -(-n // tau)


def chunk_of(word, tau) -> tuple[int, int, int]:
    """The chunk that holds word ``word`` (counted from 1) when chunks have ``tau`` words (chapter 6).

    Returns:
        (m, first, last): chunk m = ceil(word / τ) holds words (m-1)τ+1 .. mτ. The gradient
        from ``word`` walks back at most to ``first``, ``word - first <= τ - 1`` steps.

    Raises:
        ValueError: if either argument is not a whole number >= 1.

    Example:
        >>> chunk_of(45, 20)
        (3, 41, 60)
    """
    t, tau = positive_int(word, "word"), positive_int(tau, "tau")
    m = -(-t // tau)
    return m, (m - 1) * tau + 1, m * tau


def taught_positions(gap, tau) -> list[int]:
    """Where truncated BPTT can teach a link that reaches back ``gap`` words (chapter 6, rule of thumb).

    The cuts sit at fixed places, so the link from word ``t - gap`` to word ``t`` gets a
    gradient only when :func:`chunk_of` puts both words in the same chunk. This checks
    every position of one chunk (one far enough from the text's start that word
    ``t - gap`` exists) and returns the positions where that holds.

    Args:
        gap: how many words before the effect its cause lies, a whole number >= 1.
        tau: the truncation length τ (the chunk length), a whole number >= 1.

    Returns:
        list of positions p (1 = a chunk's first word): the word at position p can be
        taught by the word ``gap`` before it. They are ``gap + 1 .. τ``, so there are
        ``max(τ - gap, 0)`` of every ``τ``.

    Raises:
        ValueError: if either argument is not a whole number >= 1.

    Example (5 positions in 20):
        >>> taught_positions(15, 20)
        [16, 17, 18, 19, 20]
    """
    gap, tau = positive_int(gap, "gap"), positive_int(tau, "tau")
    m = -(-gap // tau) + 1                     # chunk m starts after word (m-1)τ >= gap
    first = (m - 1) * tau + 1
    return [t - first + 1 for t in range(first, m * tau + 1) if chunk_of(t - gap, tau)[0] == m]


def step_factors(hs, w) -> np.ndarray:
    """The one-number cell's per-step Jacobians ``dh_t/dh_{t-1} = w (1 - h_t^2)`` (chapter 6).

    Args:
        hs: the hidden states h_1..h_T, shape (T,), each in (-1, 1); w: the recurrent weight.

    Returns:
        shape (T,): entry t-1 is ``dh_t/dh_{t-1}``. A product of consecutive entries is
        ``dh_T/dh_k`` (e.g. ``prod(step_factors(hs, w)[k:T])``).

    Raises:
        ValueError: if ``hs`` is not 1-D or leaves (-1, 1), or ``w`` is not a number.
    """
    hs = as_array(hs, "hs", ndim=1)
    if np.any(np.abs(hs) >= 1):
        raise ValueError("hs must be hidden states of the forward pass, each strictly inside (-1, 1)")
    return as_scalar(w, "w") * (1.0 - hs ** 2)


# --------------------------------------------------------------------------- gradient check

def numerical_gradient(loss: Callable[[], float], x: np.ndarray, eps=1e-5) -> np.ndarray:
    """Central-difference gradient of a scalar function, one entry at a time, in float64.

    ``(L(x + eps e_i) - L(x - eps e_i)) / (2 eps)`` for every entry i, L = ``loss``. ``x`` is
    nudged in place and restored, so ``loss`` (which takes no arguments) must read ``x`` itself.

    Args:
        loss: a function of no arguments returning a float (the loss).
        x: a float64 array that ``f`` reads, changed in place and restored.
        eps: the nudge, > 0.

    Returns:
        array of the shape of ``x``.

    Raises:
        ValueError: if ``x`` is not a float64 numpy array or ``eps`` is not > 0.
    """
    if not isinstance(x, np.ndarray) or x.dtype != np.float64:
        raise ValueError("x must be a float64 numpy array (it is nudged in place)")
    eps = positive(eps, "eps")
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    if not np.shares_memory(flat, x):
        raise ValueError("x must be contiguous (it is nudged in place)")
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = loss()
        flat[i] = old - eps
        down = loss()
        flat[i] = old
        gflat[i] = (up - down) / (2 * eps)
    return grad


def relative_error(first, second, floor=1e-8) -> float:
    """The largest entrywise relative difference ``|first - second| / max(|first|, |second|, floor)``.

    ``floor`` keeps entries where both values are (almost) zero from dividing by zero:
    there the difference is measured absolutely, in units of ``floor``.

    Raises:
        ValueError: if the shapes differ or ``floor`` is not > 0.
    """
    a, b = as_array(first, "first"), as_array(second, "second")
    if a.shape != b.shape:
        raise ValueError(f"first and second must have the same shape, got {a.shape} and {b.shape}")
    floor = positive(floor, "floor")
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b) / np.maximum(np.maximum(np.abs(a), np.abs(b)), floor)))


def gradient_check(loss: Callable[[], float], params: Mapping[str, np.ndarray],
                   grads: Mapping[str, np.ndarray], eps=1e-5) -> dict[str, float]:
    """Compare analytic gradients with float64 central differences (chapter 6; CS231n's gradient check).

    Args:
        loss: function of no arguments returning the loss, reading the arrays in ``params``.
        params: name -> float64 array that ``loss`` reads (each nudged in place and restored).
        grads: name -> the analytic gradient to check, same shape as ``params[name]``.
        eps: the central-difference nudge, > 0.

    Returns:
        name -> the largest relative error (:func:`relative_error`) between the analytic and
        numerical gradient. Float64 BPTT typically gives 1e-8 or less.

    Raises:
        ValueError: if a name in ``params`` is missing from ``grads`` or the shapes differ.
    """
    out = {}
    for name, x in params.items():
        if name not in grads:
            raise ValueError(f"grads must have an entry for {name!r}")
        g = as_array(grads[name], f"grads[{name!r}]", shape=np.shape(x))
        out[name] = relative_error(g, numerical_gradient(loss, x, eps))
    return out


__all__ = ["ScalarGrads", "RNNGrads", "scalar_bptt", "rnn_bptt", "rnn_step_backward", "rnn_backward", "last_state_loss",
           "chunk_count", "chunk_of", "step_factors", "numerical_gradient", "relative_error", "gradient_check"]

