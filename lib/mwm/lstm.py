"""Chapter 9 (seed §9): the LSTM cell, forward and backward through time, in numpy.

The course's convention (seed 000 §9), for a note (hidden state) of ``h`` numbers and
words of ``d`` numbers:

    f_t = sigmoid(W_f h_{t-1} + U_f x_t + b_f)     forget gate ("keep gate")
    i_t = sigmoid(W_i h_{t-1} + U_i x_t + b_i)     input gate
    g_t = tanh   (W_g h_{t-1} + U_g x_t + b_g)     candidate
    o_t = sigmoid(W_o h_{t-1} + U_o x_t + b_o)     output gate
    c_t = f_t * c_{t-1} + i_t * g_t                cell state (the express lane)
    h_t = o_t * tanh(c_t)                          hidden state (the note)

with ``*`` the entry-by-entry product. Weights are a plain ``dict`` of named blocks:
``W_k`` (h, h) reads the old note, ``U_k`` (h, d) reads the word and ``b_k`` (h,) is
the shift, for each block ``k`` in :data:`LSTM_BLOCKS` = ("i", "f", "g", "o"). That is
four blocks of ``h(h + d) + h`` numbers (:func:`mwm.params.cell_param_count`).

PyTorch mapping. ``torch.nn.LSTM`` stacks the blocks in the order i, f, g, o:
``weight_ih_l0`` is (4h, d) = [U_i; U_f; U_g; U_o], ``weight_hh_l0`` is (4h, h) =
[W_i; W_f; W_g; W_o], and it keeps two bias vectors whose sum is our ``b_k``:
``b_k = bias_ih[k] + bias_hh[k]``. :func:`lstm_weights_from_stacked` and
:func:`lstm_weights_to_stacked` convert (numpy arrays only; no torch needed). The
values and gradients agree with torch to about 1e-15 in float64
(``tests/test_gates_torch.py``).

Forget-gate bias. At the start of training every gate score is near 0, so
``f = sigmoid(0) = 0.5`` and blame along the lane shrinks as 0.5 per step. Starting
``b_f`` at 1 or 2 (``init_lstm(..., forget_bias=2.0)``) opens the lane:
``sigmoid(2)^10 = 0.8808^10 = 0.281`` of the blame survives ten steps instead of
``0.5^10 = 0.000977`` (:func:`lane_keep`).
"""
from __future__ import annotations

import numpy as np

from ._validate import as_array, as_scalar, as_sequence, positive, positive_int

#: The LSTM's blocks, in PyTorch's stacking order: input, forget, candidate, output.
LSTM_BLOCKS = ("i", "f", "g", "o")
#: Every key of an LSTM weight dict, block by block.
LSTM_KEYS = tuple(f"{m}_{k}" for k in LSTM_BLOCKS for m in ("W", "U", "b"))


def sigmoid(z):
    """The logistic function ``1 / (1 + exp(-z))``, entry by entry, without overflow.

    Computed as ``0.5 + 0.5 tanh(z / 2)``, which is the same function and never
    overflows for large ``|z|``.

    Args:
        z: a number or an array of any shape.

    Returns:
        array (or float) of the same shape, each entry in [0, 1] (strictly inside for
        moderate ``z``). Example: ``sigmoid(2) = 0.8808``.
    """
    return 0.5 + 0.5 * np.tanh(0.5 * np.asarray(z, dtype=float))


def lane_keep(forget_bias: float, steps: int) -> float:
    """Blame left after ``steps`` steps along a fresh LSTM's lane: ``sigmoid(b_f) ** steps`` (seed §9).

    With all weights near zero every forget gate equals ``sigmoid(b_f)``, and
    ``dc_T / dc_0`` is the product of the forget gates.

    Args:
        forget_bias: the forget gate's shift b_f (a finite number).
        steps: how many steps back (>= 1).

    Returns:
        float in (0, 1). Examples: ``lane_keep(0, 10) = 0.000977``, ``lane_keep(2, 10) = 0.281``.
    """
    return float(sigmoid(as_scalar(forget_bias, "forget_bias"))) ** positive_int(steps, "steps")


def init_lstm(hidden_size: int, input_size: int, seed: int = 0, scale: float | None = None,
              forget_bias: float = 1.0) -> dict:
    """Random LSTM weights: ``W_k``, ``U_k`` uniform in [-scale, scale], shifts 0 except ``b_f``.

    Args:
        hidden_size: h >= 1; input_size: d >= 1.
        seed: seed of ``numpy.random.default_rng``; the same seed gives the same weights.
        scale: half-width of the uniform draw (> 0); default ``1 / sqrt(h)``, as PyTorch.
        forget_bias: the forget gate's starting shift ``b_f`` (every entry); the unit
            recommends 1 or 2 so the lane starts open (seed §9). Other shifts start at 0.

    Returns:
        dict with the keys :data:`LSTM_KEYS`: ``W_k`` (h, h), ``U_k`` (h, d), ``b_k`` (h,).

    Raises:
        ValueError: for a size below 1, a non-positive scale or a non-finite forget_bias.
    """
    h = positive_int(hidden_size, "hidden_size")
    d = positive_int(input_size, "input_size")
    scale = 1.0 / np.sqrt(h) if scale is None else positive(scale, "scale")
    forget_bias = as_scalar(forget_bias, "forget_bias")
    rng = np.random.default_rng(seed)
    weights = {}
    for k in LSTM_BLOCKS:
        weights[f"W_{k}"] = rng.uniform(-scale, scale, (h, h))
        weights[f"U_{k}"] = rng.uniform(-scale, scale, (h, d))
        weights[f"b_{k}"] = np.full(h, forget_bias if k == "f" else 0.0)
    return weights


def check_weights(weights, blocks, kind: str):
    """Validate a dict of named blocks; return (weights as float arrays, h, d).

    Used by the LSTM and the GRU. Every ``W_k`` must be (h, h), every ``U_k`` (h, d),
    every ``b_k`` (h,), with one h and one d for all blocks.

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


def _check_step(x, h_prev, n_in, n_hidden, **others):
    x = as_array(x, "x", ndim=(1, 2))
    batch = None if x.ndim == 1 else x.shape[0]
    x = as_array(x, "x", shape=(n_in,) if batch is None else (batch, n_in))
    shape = (n_hidden,) if batch is None else (batch, n_hidden)
    h_prev = as_array(h_prev, "h_prev", shape=shape)
    return x, h_prev, {name: as_array(v, name, shape=shape) for name, v in others.items()}


def _lstm_step(h_prev, c_prev, x, w):
    scores = {k: h_prev @ w[f"W_{k}"].T + x @ w[f"U_{k}"].T + w[f"b_{k}"] for k in LSTM_BLOCKS}
    i, f, o = sigmoid(scores["i"]), sigmoid(scores["f"]), sigmoid(scores["o"])
    g = np.tanh(scores["g"])
    c = f * c_prev + i * g
    tanh_c = np.tanh(c)
    h = o * tanh_c
    cache = {"h_prev": h_prev, "c_prev": c_prev, "x": x, "i": i, "f": f, "g": g, "o": o, "c": c, "tanh_c": tanh_c}
    return h, c, cache


def lstm_step(h_prev, c_prev, x, weights):
    """One LSTM step (seed §9): gates, then ``c = f*c_prev + i*g`` and ``h = o*tanh(c)``.

    Args:
        h_prev: previous hidden state, (h,) or (B, h) for a batch of B.
        c_prev: previous cell state, same shape as ``h_prev``.
        x: the input, (d,) or (B, d).
        weights: dict with the keys :data:`LSTM_KEYS` (see the module docstring).

    Returns:
        (h, c, cache): the new hidden and cell states (shape of ``h_prev``; ``h`` in
        (-1, 1), ``c`` unbounded) and a dict with everything :func:`lstm_step_backward`
        needs (h_prev, c_prev, x, the gates i, f, g, o, c and tanh(c)).

    Raises:
        ValueError: if a weight is missing or any shape disagrees, naming the argument.
    """
    w, n_hidden, n_in = check_weights(weights, LSTM_BLOCKS, "LSTM")
    x, h_prev, other = _check_step(x, h_prev, n_in, n_hidden, c_prev=c_prev)
    return _lstm_step(h_prev, other["c_prev"], x, w)


def _backward_block(grads, da, h_prev, x, w, k):
    """Add one block's weight gradients; return its contributions to dh_prev and dx."""
    if da.ndim == 1:
        grads[f"W_{k}"] += np.outer(da, h_prev)
        grads[f"U_{k}"] += np.outer(da, x)
        grads[f"b_{k}"] += da
    else:
        grads[f"W_{k}"] += da.T @ h_prev
        grads[f"U_{k}"] += da.T @ x
        grads[f"b_{k}"] += da.sum(axis=0)
    return da @ w[f"W_{k}"], da @ w[f"U_{k}"]


def _lstm_step_backward(dh, dc, cache, w, grads):
    i, f, g, o, tanh_c = cache["i"], cache["f"], cache["g"], cache["o"], cache["tanh_c"]
    dc = dc + dh * o * (1.0 - tanh_c ** 2)
    da = {"o": dh * tanh_c * o * (1.0 - o),
          "f": dc * cache["c_prev"] * f * (1.0 - f),
          "i": dc * g * i * (1.0 - i),
          "g": dc * i * (1.0 - g ** 2)}
    dh_prev, dx = 0.0, 0.0
    for k in LSTM_BLOCKS:
        dh_k, dx_k = _backward_block(grads, da[k], cache["h_prev"], cache["x"], w, k)
        dh_prev, dx = dh_prev + dh_k, dx + dx_k
    return dh_prev, dc * f, dx


def lstm_step_backward(dh, dc, cache, weights):
    """Backward through one LSTM step: from dL/dh and dL/dc to the step's inputs (seed §6, §9).

    Args:
        dh: dL/dh for this step's output h (all paths: this step's loss and later steps),
            shape of h.
        dc: dL/dc arriving from the next step along the lane, shape of c.
        cache: the dict returned by :func:`lstm_step`.
        weights: the same weights as the forward step.

    Returns:
        (grads, dh_prev, dc_prev, dx): grads is a dict with this step's gradient for
        every key of :data:`LSTM_KEYS`; the other three have the shapes of h_prev,
        c_prev and x. Note ``dc_prev = (dc + dh*o*(1 - tanh(c)^2)) * f``: along the lane
        the blame is multiplied by the forget gate only.

    Raises:
        ValueError: if a weight is missing or ``dh``/``dc`` have the wrong shape.
    """
    w, _, _ = check_weights(weights, LSTM_BLOCKS, "LSTM")
    shape = cache["c"].shape
    dh = as_array(dh, "dh", shape=shape)
    dc = as_array(dc, "dc", shape=shape)
    grads = {key: np.zeros_like(value) for key, value in w.items()}
    dh_prev, dc_prev, dx = _lstm_step_backward(dh, dc, cache, w, grads)
    return grads, dh_prev, dc_prev, dx


def lstm_forward(xs, weights, h0=None, c0=None):
    """Run the LSTM over a sequence (seed §9), keeping what the backward pass needs.

    Args:
        xs: inputs, (T, d) or (T, B, d) for a batch of B sequences; T >= 1.
        weights: dict with the keys :data:`LSTM_KEYS`.
        h0, c0: starting hidden and cell states, (h,) or (B, h); zeros if None.

    Returns:
        (hs, cs, caches): hs and cs have shape (T, h) or (T, B, h) (h_1..h_T and
        c_1..c_T; the starting states are not included), caches is a list of T step
        caches for :func:`lstm_backward`.

    Raises:
        ValueError: for an empty sequence, a missing weight or a shape that disagrees.
    """
    w, n_hidden, n_in = check_weights(weights, LSTM_BLOCKS, "LSTM")
    xs, _, states = check_inputs(xs, n_in, n_hidden, {"h0": h0, "c0": c0})
    h, c = states["h0"], states["c0"]
    hs = np.empty(xs.shape[:-1] + (n_hidden,))
    cs = np.empty_like(hs)
    caches = []
    for t in range(xs.shape[0]):
        h, c, cache = _lstm_step(h, c, xs[t], w)
        hs[t], cs[t] = h, c
        caches.append(cache)
    return hs, cs, caches


def lstm_backward(dhs, caches, weights, dc_last=None):
    """Backprop through time for the LSTM (seed §6, §9): gradients of all weights and the start.

    Args:
        dhs: dL/dh_t coming directly from each step's loss, (T, h) or (T, B, h), in the
            order of the forward pass (zeros for steps without a loss).
        caches: the list returned by :func:`lstm_forward`.
        weights: the same weights as the forward pass.
        dc_last: optional dL/dc_T arriving from beyond the last step (for example a
            decoder that starts from the final cell state), shape of c; zeros if None.

    Returns:
        dict: the gradient of every key of :data:`LSTM_KEYS` (summed over steps and
        batch), plus ``"h0"`` and ``"c0"`` (dL/dh_0, dL/dc_0) and ``"xs"`` (dL/dx_t,
        shape of xs).

    Raises:
        ValueError: if ``dhs`` does not match the forward pass, naming it.
    """
    w, _, _ = check_weights(weights, LSTM_BLOCKS, "LSTM")
    if not caches:
        raise ValueError("caches must not be empty")
    state_shape = caches[0]["c"].shape
    dhs = as_array(dhs, "dhs", shape=(len(caches),) + state_shape)
    dc = np.zeros(state_shape) if dc_last is None else as_array(dc_last, "dc_last", shape=state_shape)
    grads = {key: np.zeros_like(value) for key, value in w.items()}
    dxs = np.empty((len(caches),) + caches[0]["x"].shape)
    dh_next = np.zeros(state_shape)
    for t in reversed(range(len(caches))):
        dh_next, dc, dxs[t] = _lstm_step_backward(dhs[t] + dh_next, dc, caches[t], w, grads)
    grads.update(h0=dh_next, c0=dc, xs=dxs)
    return grads


def lstm_weights_from_stacked(weight_ih, weight_hh, bias_ih=None, bias_hh=None) -> dict:
    """Named LSTM blocks from PyTorch's stacked layout (gate order i, f, g, o).

    Args:
        weight_ih: (4h, d) = [U_i; U_f; U_g; U_o] (torch ``weight_ih_l0``).
        weight_hh: (4h, h) = [W_i; W_f; W_g; W_o] (torch ``weight_hh_l0``).
        bias_ih, bias_hh: (4h,) each, or None for zeros. Our ``b_k`` is their sum.

    Returns:
        dict with the keys :data:`LSTM_KEYS`.

    Raises:
        ValueError: if the shapes are not (4h, d), (4h, h) and (4h,).
    """
    return _from_stacked(weight_ih, weight_hh, bias_ih, bias_hh, LSTM_BLOCKS)


def lstm_weights_to_stacked(weights):
    """PyTorch's stacked layout from named LSTM blocks (inverse of :func:`lstm_weights_from_stacked`).

    Returns:
        (weight_ih (4h, d), weight_hh (4h, h), bias_ih (4h,), bias_hh (4h,)): the whole
        shift ``b_k`` goes into ``bias_ih``; ``bias_hh`` is zeros.
    """
    w, _, _ = check_weights(weights, LSTM_BLOCKS, "LSTM")
    return _to_stacked(w, LSTM_BLOCKS)


def _from_stacked(weight_ih, weight_hh, bias_ih, bias_hh, blocks):
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


def _to_stacked(w, blocks):
    weight_ih = np.concatenate([w[f"U_{k}"] for k in blocks])
    weight_hh = np.concatenate([w[f"W_{k}"] for k in blocks])
    bias_ih = np.concatenate([w[f"b_{k}"] for k in blocks])
    return weight_ih, weight_hh, bias_ih, np.zeros_like(bias_ih)
