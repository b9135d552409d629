"""Chapter 9: the LSTM cell, forward and backward through time, in numpy.

The course's convention (chapter 9), for a hidden state of ``h`` numbers and words
of ``d`` numbers:

    f_t  = sigmoid(W_f h_{t-1} + U_f x_t + b_f)     forget gate
    i_t  = sigmoid(W_i h_{t-1} + U_i x_t + b_i)     input gate
    c~_t = tanh   (W_c h_{t-1} + U_c x_t + b_c)     candidate (c-tilde)
    o_t  = sigmoid(W_o h_{t-1} + U_o x_t + b_o)     output gate
    c_t  = f_t * c_{t-1} + i_t * c~_t               cell state (the express lane)
    h_t  = o_t * tanh(c_t)                          hidden state

with ``*`` the entry-by-entry product. Weights are a plain ``dict`` of named blocks:
``W_j`` (h, h) reads the previous hidden state, ``U_j`` (h, d) reads the word and
``b_j`` (h,) is the bias, for each block ``j`` in :data:`LSTM_BLOCKS` = ("i", "f", "c",
"o"), block "c" being the candidate c~. That is four blocks of ``h(h + d) + h`` numbers
(:func:`mwm.params.cell_param_count`).

PyTorch mapping. ``torch.nn.LSTM`` stacks the blocks in the order i, f, g, o (its g is
our c~): ``weight_ih_l0`` is (4h, d) = [U_i; U_f; U_c; U_o], ``weight_hh_l0`` is
(4h, h) = [W_i; W_f; W_c; W_o], and it keeps two bias vectors whose sum is our ``b_j``:
``b_j = bias_ih[j] + bias_hh[j]``. :func:`lstm_weights_from_stacked` and
:func:`lstm_weights_to_stacked` convert (numpy arrays only; no torch needed). The
values and gradients agree with torch to about 1e-15 in float64
(``tests/test_gates_torch.py``).

Forget-gate bias. At the start of training every gate's pre-activation is near 0, so
``f = sigmoid(0) = 0.5`` and the gradient along the lane shrinks as 0.5 per step.
Starting ``b_f`` at 1 or 2 (``init_lstm(..., forget_bias=2.0)``) opens the lane:
``sigmoid(2)^10 = 0.8808^10 = 0.281`` of the gradient survives ten steps instead of
``0.5^10 = 0.000977`` (:func:`lane_keep`).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import as_scalar, batch_major, positive, positive_int, time_major
from .gates import backward_block, check_caches, check_gradient, check_inputs, check_step, check_weights, from_stacked, sigmoid, to_stacked

#: The LSTM's blocks, in PyTorch's stacking order: input, forget, candidate c~, output.
LSTM_BLOCKS = ("i", "f", "c", "o")
#: Every key of an LSTM weight dict, block by block.
LSTM_KEYS = tuple(f"{m}_{j}" for j in LSTM_BLOCKS for m in ("W", "U", "b"))

#: What a step's cache holds; the backward passes check for them.
_CACHE_KEYS = ("h_prev", "c_prev", "x", "i", "f", "c_tilde", "o", "c", "tanh_c")


def _check_lstm_weights(weights):
    """:func:`mwm.gates.check_weights` for the LSTM's blocks."""
    return check_weights(weights, LSTM_BLOCKS, "LSTM")


def lane_keep(forget_bias: float, steps: int) -> float:
    """Gradient left after ``steps`` steps along a fresh LSTM's lane: ``sigmoid(b_f) ** steps`` (chapter 9).

    With all weights near zero every forget gate equals ``sigmoid(b_f)``, and
    ``dc_T / dc_0`` is the product of the forget gates.

    Args:
        forget_bias: the forget gate's bias b_f (a finite number).
        steps: how many steps back (>= 1).

    Returns:
        float in (0, 1).

    Raises:
        ValueError: if ``forget_bias`` is not a finite number or ``steps`` is not a whole number >= 1.

    Example:
        >>> round(lane_keep(0, 10), 6), round(lane_keep(2, 10), 3)
        (0.000977, 0.281)
    """
    return float(sigmoid(as_scalar(forget_bias, "forget_bias"))) ** positive_int(steps, "steps")


def init_lstm(hidden_size: int, input_size: int, seed: int = 0, scale: float | None = None,
              forget_bias: float = 1.0) -> dict:
    """Random LSTM weights: ``W_j``, ``U_j`` uniform in [-scale, scale], biases 0 except ``b_f``.

    Args:
        hidden_size: h >= 1; input_size: d >= 1.
        seed: seed of ``numpy.random.default_rng``; the same seed gives the same weights.
        scale: half-width of the uniform draw (> 0); default ``1 / sqrt(h)``, as PyTorch.
        forget_bias: the forget gate's starting bias ``b_f`` (every entry); chapter 9
            recommends 1 or 2 so the lane starts open. Other biases start at 0.

    Returns:
        dict with the keys :data:`LSTM_KEYS`: ``W_j`` (h, h), ``U_j`` (h, d), ``b_j`` (h,).

    Raises:
        ValueError: for a size below 1, a non-positive scale or a non-finite forget_bias.
    """
    h = positive_int(hidden_size, "hidden_size")
    d = positive_int(input_size, "input_size")
    scale = 1.0 / np.sqrt(h) if scale is None else positive(scale, "scale")
    forget_bias = as_scalar(forget_bias, "forget_bias")
    rng = np.random.default_rng(seed)
    weights = {}
    for j in LSTM_BLOCKS:
        weights[f"W_{j}"] = rng.uniform(-scale, scale, (h, h))
        weights[f"U_{j}"] = rng.uniform(-scale, scale, (h, d))
        weights[f"b_{j}"] = np.full(h, forget_bias if j == "f" else 0.0)
    return weights


class LSTMState(NamedTuple):
    """The LSTM's state, the pair (h, c): ``h`` the hidden state, ``c`` the cell state (the lane) (chapter 9).

    One step's state holds arrays (h,) or (B, h); :func:`lstm_forward` returns the states
    of every step in the same form, arrays (T, h) or (T, B, h). Being a tuple, it unpacks:
    ``h, c = state``.
    """

    h: np.ndarray
    c: np.ndarray


def _lstm_step(h_prev, c_prev, x, w):
    """The unchecked kernel of :func:`lstm_step` (float arrays of matching shapes): (h, c, cache)."""
    a = {j: h_prev @ w[f"W_{j}"].T + x @ w[f"U_{j}"].T + w[f"b_{j}"] for j in LSTM_BLOCKS}   # pre-activations
    i, f, o = sigmoid(a["i"]), sigmoid(a["f"]), sigmoid(a["o"])
    c_tilde = np.tanh(a["c"])
    c = f * c_prev + i * c_tilde
    tanh_c = np.tanh(c)
    h = o * tanh_c
    cache = {"h_prev": h_prev, "c_prev": c_prev, "x": x, "i": i, "f": f, "c_tilde": c_tilde, "o": o, "c": c,
             "tanh_c": tanh_c}
    return h, c, cache


def _pair(state, name):
    """Split an LSTM state given as an ``LSTMState`` or a pair (h, c)."""
    if not isinstance(state, (tuple, list)) or len(state) != 2:
        raise ValueError(f"{name} must be an LSTMState(h, c) or a pair (h, c), got {type(state).__name__}")
    return state[0], state[1]


def lstm_step(state, x, weights):
    """One LSTM step (chapter 9): gates, then ``c = f*c_prev + i*c_tilde`` and ``h = o*tanh(c)``.

    Args:
        state: the old state, an :class:`LSTMState` ``(h_prev, c_prev)`` (or any pair),
            each (h,) or (B, h) for a batch of B.
        x: the input, (d,) or (B, d).
        weights: dict with the keys :data:`LSTM_KEYS` (see the module docstring).

    Returns:
        (new_state, cache): new_state is an :class:`LSTMState` ``(h, c)`` of the shape of the
        old one (``h`` in (-1, 1), ``c`` unbounded); cache is a dict with everything
        :func:`lstm_step_backward` needs (h_prev, c_prev, x, the gates i, f, o, the candidate
        c_tilde, c and tanh(c)).

    Raises:
        ValueError: if a weight is missing, ``state`` is not a pair or any shape disagrees,
            naming the argument.

    Example (chapter 9, one number, all weights 0, every bias 0 but the candidate's):
        >>> w = {key: [[0.0]] if key[0] in "WU" else [0.0] for key in LSTM_KEYS}
        >>> w["b_c"] = [1.0]
        >>> new, cache = lstm_step(LSTMState([0.0], [1.0]), [1.0], w)
        >>> [round(float(v[0]), 4) for v in new]
        [0.3534, 0.8808]
    """
    w, n_hidden, n_in = _check_lstm_weights(weights)
    h_prev, c_prev = _pair(state, "state")
    x, s = check_step(x, n_in, n_hidden, h_prev=h_prev, c_prev=c_prev)
    h, c, cache = _lstm_step(s["h_prev"], s["c_prev"], x, w)
    return LSTMState(h, c), cache


def _lstm_step_backward(dh, dc, cache, w, grads):
    """The unchecked kernel of :func:`lstm_step_backward`: adds into ``grads``; returns (dh_prev, dc_prev, dx)."""
    i, f, c_tilde, o, tanh_c = cache["i"], cache["f"], cache["c_tilde"], cache["o"], cache["tanh_c"]
    dc = dc + dh * o * (1.0 - tanh_c ** 2)
    da = {"o": dh * tanh_c * o * (1.0 - o),                 # gradients at the pre-activations
          "f": dc * cache["c_prev"] * f * (1.0 - f),
          "i": dc * c_tilde * i * (1.0 - i),
          "c": dc * i * (1.0 - c_tilde ** 2)}
    dh_prev, dx = 0.0, 0.0
    for j in LSTM_BLOCKS:
        dh_j, dx_j = backward_block(grads, da[j], cache["h_prev"], cache["x"], w, j)
        dh_prev, dx = dh_prev + dh_j, dx + dx_j
    return dh_prev, dc * f, dx


def lstm_step_backward(d_state, cache, weights):
    """Backward through one LSTM step: from the gradient on the new state to the previous state and the input (chapters 6, 9).

    Args:
        d_state: the gradient on the step's new state, an :class:`LSTMState` ``(dh, dc)`` (or
            a pair): dL/dh (all paths: this step's loss and later steps) and dL/dc arriving
            along the lane, each of the shape of h; either may be None for zeros.
        cache: the dict returned by :func:`lstm_step`.
        weights: the same weights as the forward step.

    Returns:
        (grads, d_state_prev, dx): grads is a dict with this step's gradient for every key
        of :data:`LSTM_KEYS`; d_state_prev is an :class:`LSTMState` ``(dh_prev, dc_prev)``;
        dx has the shape of x. Note ``dc_prev = (dc + dh*o*(1 - tanh(c)^2)) * f``: along the
        lane the gradient is multiplied by the forget gate only.

    Raises:
        ValueError: if a weight is missing or ``d_state`` is not a pair of the state's shape.
    """
    w, _, _ = _check_lstm_weights(weights)
    check_caches(cache, _CACHE_KEYS, "cache", "lstm_step")
    dh, dc = _pair(d_state, "d_state")
    shape = cache["c"].shape
    dh, dc = check_gradient(dh, "dh", shape), check_gradient(dc, "dc", shape)
    grads = {key: np.zeros_like(value) for key, value in w.items()}
    dh_prev, dc_prev, dx = _lstm_step_backward(dh, dc, cache, w, grads)
    return grads, LSTMState(dh_prev, dc_prev), dx


def lstm_forward(xs, weights, state0=None, *, batch_first: bool = False):
    """Run the LSTM over a sequence (chapter 9), keeping what the backward pass needs.

    Args:
        xs: inputs, (T, d) or (T, B, d) for a batch of B sequences; T >= 1.
        weights: dict with the keys :data:`LSTM_KEYS`.
        state0: the starting state, an :class:`LSTMState` ``(h0, c0)`` (or a pair), each
            (h,) or (B, h) or None for zeros; None for both zero.
        batch_first: True if ``xs`` is (B, T, d); the states then come back as (B, T, h)
            (as :func:`mwm.rnn_forward`).

    Returns:
        (states, caches): states is an :class:`LSTMState` ``(hs, cs)`` of arrays (T, h) or
        (T, B, h), the hidden states h_1..h_T and cell states c_1..c_T (the starting state is not
        included); caches is a list of T step caches for :func:`lstm_backward`.

    Raises:
        ValueError: for an empty sequence, a missing weight or a shape that disagrees.
    """
    w, n_hidden, n_in = _check_lstm_weights(weights)
    h0, c0 = (None, None) if state0 is None else _pair(state0, "state0")
    xs, _, states = check_inputs(time_major(xs, batch_first), n_in, n_hidden, {"h0": h0, "c0": c0})
    h, c = states["h0"], states["c0"]
    hs = np.empty(xs.shape[:-1] + (n_hidden,))
    cs = np.empty_like(hs)
    caches = []
    for t in range(xs.shape[0]):
        h, c, cache = _lstm_step(h, c, xs[t], w)
        hs[t], cs[t] = h, c
        caches.append(cache)
    return LSTMState(batch_major(hs, batch_first), batch_major(cs, batch_first)), caches


def lstm_backward(d_states, caches, weights, *, batch_first: bool = False):
    """Backprop through time for the LSTM (chapters 6, 9): gradients of all weights, the start and the inputs.

    Args:
        d_states: the gradient the loss puts directly on each step's state, an
            :class:`LSTMState` ``(dhs, dcs)`` of arrays (T, h) or (T, B, h) in the order of the
            forward pass (either may be None for zeros; a gradient on c_T from beyond the last
            step, e.g. a decoder that starts from the final cell state, goes in ``dcs[-1]``).
            A pair as a list ``[dhs, dcs]`` is read the same way (as :func:`lstm_step_backward`
            reads ``[dh, dc]``); a plain array is taken as ``dhs`` (no direct gradient on the cell
            states).
        caches: the list returned by :func:`lstm_forward`.
        weights: the same weights as the forward pass.
        batch_first: True if the gradients are (B, T, h), as ``lstm_forward(..., batch_first=True)``
            returns its states; ``dxs`` then comes back as (B, T, d).

    Returns:
        (grads, d_state0, dxs): grads is a dict with the gradient of every key of
        :data:`LSTM_KEYS` (summed over steps and batch); d_state0 is an :class:`LSTMState`
        ``(dL/dh_0, dL/dc_0)``; dxs has the shape of xs.

    Raises:
        ValueError: if ``caches`` is empty or ``d_states`` does not match the forward pass, naming it.
    """
    w, _, _ = _check_lstm_weights(weights)
    caches = check_caches(caches, _CACHE_KEYS, "caches", "lstm_forward")
    state_shape = caches[0]["c"].shape
    dhs, dcs = _pair(d_states, "d_states") if isinstance(d_states, (tuple, list)) else (d_states, None)
    seq_shape = (len(caches),) + state_shape
    dhs = check_gradient(time_major(dhs, batch_first, "dhs"), "dhs", seq_shape)
    dcs = check_gradient(time_major(dcs, batch_first, "dcs"), "dcs", seq_shape)
    grads = {key: np.zeros_like(value) for key, value in w.items()}
    dxs = np.empty((len(caches),) + caches[0]["x"].shape)
    dh_next, dc_next = np.zeros(state_shape), np.zeros(state_shape)
    for t in reversed(range(len(caches))):
        dh_next, dc_next, dxs[t] = _lstm_step_backward(dhs[t] + dh_next, dcs[t] + dc_next, caches[t], w, grads)
    return grads, LSTMState(dh_next, dc_next), batch_major(dxs, batch_first)


def lstm_weights_from_stacked(weight_ih, weight_hh, bias_ih=None, bias_hh=None) -> dict:
    """Named LSTM blocks from PyTorch's stacked layout (gate order i, f, g, o).

    Args:
        weight_ih: (4h, d) = [U_i; U_f; U_c; U_o] (torch ``weight_ih_l0``).
        weight_hh: (4h, h) = [W_i; W_f; W_c; W_o] (torch ``weight_hh_l0``).
        bias_ih, bias_hh: (4h,) each, or None for zeros. Our ``b_j`` is their sum.

    Returns:
        dict with the keys :data:`LSTM_KEYS`.

    Raises:
        ValueError: if the shapes are not (4h, d), (4h, h) and (4h,).
    """
    return from_stacked(weight_ih, weight_hh, bias_ih, bias_hh, LSTM_BLOCKS)


def lstm_weights_to_stacked(weights):
    """PyTorch's stacked layout from named LSTM blocks (inverse of :func:`lstm_weights_from_stacked`).

    Returns:
        (weight_ih (4h, d), weight_hh (4h, h), bias_ih (4h,), bias_hh (4h,)): the whole
        bias ``b_j`` goes into ``bias_ih``; ``bias_hh`` is zeros.
    """
    w, _, _ = _check_lstm_weights(weights)
    return to_stacked(w, LSTM_BLOCKS)


# --------------------------------------------------------------------------------------
# Chapter 9's one-number cell: the tank its "Try" panel draws (mwm.widgets.ch09_lstm)
# --------------------------------------------------------------------------------------
def _unit(value, name):
    value = as_scalar(value, name)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value}")
    return value


def gates_from_preactivations(a_f, a_i, a_c, a_o) -> dict:
    """The three gates and the candidate of a one-unit LSTM whose pre-activations are given (chapter 9's full step).

    Runs :func:`mwm.lstm.lstm_step` with all weights 0 and the biases set to the pre-activations, so
    ``f = sigmoid(a_f)``, ``i = sigmoid(a_i)``, ``c_tilde = tanh(a_c)``, ``o = sigmoid(a_o)``.

    Returns:
        dict with keys "f", "i", "c_tilde", "o" (floats; c_tilde in (-1, 1), the others in (0, 1)).
        Example: pre-activations 2, 0, 1, 1 give f = 0.8808, i = 0.5, c_tilde = 0.7616, o = 0.7311.

    Raises:
        ValueError: if a pre-activation is not a finite number.
    """
    pre = {"f": as_scalar(a_f, "a_f"), "i": as_scalar(a_i, "a_i"),
           "c": as_scalar(a_c, "a_c"), "o": as_scalar(a_o, "a_o")}   # "c": mwm.lstm's block for the candidate
    weights = {}
    for j in LSTM_BLOCKS:
        weights[f"W_{j}"] = np.zeros((1, 1))
        weights[f"U_{j}"] = np.zeros((1, 1))
        weights[f"b_{j}"] = np.array([pre[j]])
    _, cache = lstm_step(LSTMState(np.zeros(1), np.zeros(1)), np.zeros(1), weights)
    return {"f": float(cache["f"][0]), "i": float(cache["i"][0]), "c_tilde": float(cache["c_tilde"][0]),
            "o": float(cache["o"][0])}




def tank_run(c_prev=1.0, f=0.9, i=0.2, c_tilde=0.5, o=1.0, steps=1):
    """Run the one-number cell-state update ``steps`` times with the gates held fixed (chapter 9).

    Args:
        c_prev: the starting level c_0 (any finite number).
        f, i, o: forget, input and output gates, each in [0, 1].
        c_tilde: the candidate c~, in [-1, 1].
        steps: how many steps, >= 1.

    Returns:
        (levels, states): arrays (steps + 1,) with c_0..c_steps and (steps,) with
        h_1..h_steps, where ``c_t = f c_{t-1} + i c_tilde`` and ``h_t = o tanh(c_t)``.

    Raises:
        ValueError: for a gate outside its range or steps < 1, naming it.
    """
    c = as_scalar(c_prev, "c_prev")
    f, i, o = _unit(f, "f"), _unit(i, "i"), _unit(o, "o")
    c_tilde = as_scalar(c_tilde, "c_tilde")
    if not -1.0 <= c_tilde <= 1.0:
        raise ValueError(f"c_tilde must lie in [-1, 1], got {c_tilde}")
    steps = positive_int(steps, "steps")
    levels, states = [c], []
    for _ in range(steps):
        c = f * c + i * c_tilde
        levels.append(c)
        states.append(o * np.tanh(c))
    return np.array(levels), np.array(states)
