"""Chapter 10: the GRU cell, forward and backward through time, in numpy.

The course's convention (chapter 10), for a hidden state of ``h`` numbers and words of ``d``:

    z_t  = sigmoid(W_z h_{t-1} + U_z x_t + b_z)              update gate (the blend dial)
    r_t  = sigmoid(W_r h_{t-1} + U_r x_t + b_r)              reset gate
    h~_t = tanh(W_h (r_t * h_{t-1}) + U_h x_t + b_h)         candidate
    h_t  = (1 - z_t) * h_{t-1} + z_t * h~_t                  blend

``z`` near 0 keeps the previous hidden state, ``z`` near 1 replaces it; the reset gate multiplies
the previous state *before* the recurrent matrix ``W_h``. Weights are a ``dict`` of named
blocks ``W_j`` (h, h), ``U_j`` (h, d), ``b_j`` (h,) for ``j`` in :data:`GRU_BLOCKS` =
("z", "r", "h"), where block "h" is the candidate h~. Three blocks of ``h(h + d) + h``.

PyTorch mapping (``torch.nn.GRU``; blocks stacked in the order r, z, n)::

    r  = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
    z' = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
    n  = tanh(W_in x + b_in + r * (W_hn h + b_hn))
    h' = (1 - z') * n + z' * h

Two differences from the course:

1. The dial turns the other way: torch's ``z'`` multiplies the *old* state, so
   ``z' = 1 - z``. Since ``1 - sigmoid(a) = sigmoid(-a)``, this is matched exactly by
   negating the update block: ``W_z = -W_hz``, ``U_z = -W_iz``, ``b_z = -(b_iz + b_hz)``.
   The reset block maps directly: ``W_r = W_hr``, ``U_r = W_ir``, ``b_r = b_ir + b_hr``.
2. The reset gate sits *after* the recurrent matrix: torch uses ``r * (W_hn h + b_hn)``,
   the course ``W_h (r * h)``. With ``W_h = W_hn``, ``U_h = W_in``, ``b_h = b_in`` the
   two candidates are equal at a step exactly when

       b_hn = 0  and  r * (W_hn h) = W_hn (r * h),

   and the second holds for every old state h exactly when ``W_hn[i, j] = 0`` whenever
   ``r_i != r_j`` (``diag(r)`` commutes with ``W_hn``). So they agree for every input
   when the hidden size is 1, when ``W_hn`` is diagonal, or when ``r`` is the same
   number in every unit at every step (for instance when every unit's reset gate has
   the same weights); they also agree at any step whose old state is 0 (the first step
   from h0 = 0). Otherwise they differ: :func:`reset_placement_gap` measures the
   difference inside the tanh, and ``tests/test_gates_torch.py`` the difference in the
   outputs. A non-zero ``b_hn`` adds ``r * b_hn``, which no fixed bias can copy.

   Gradients follow the functions: with hidden size 1 every gradient agrees; with
   ``W_hn`` diagonal all agree except the off-diagonal entries of ``W_hn`` (slopes
   ``r_j h_j`` here against ``r_i h_j`` in torch); with ``r`` equal across units all agree
   except the reset block's rows taken one by one (their sum over units agrees).

Cho et al. (2014), who introduced the GRU, wrote the update gate on the old state (as
torch does) and the reset gate before the recurrent matrix (as the course does); Keras
offers both placements through its ``reset_after`` switch.
"""
from __future__ import annotations

import numpy as np

from ._validate import as_array, as_scalar, batch_major, positive, positive_int, time_major
from .gates import backward_block, check_caches, check_gradient, check_inputs, check_step, check_weights, from_stacked, sigmoid, to_stacked

#: The GRU's blocks: update gate z, reset gate r, candidate h (the candidate h~).
GRU_BLOCKS = ("z", "r", "h")
#: Every key of a GRU weight dict, block by block.
GRU_KEYS = tuple(f"{m}_{k}" for k in GRU_BLOCKS for m in ("W", "U", "b"))
#: PyTorch's order of the GRU blocks in weight_ih / weight_hh / biases: reset, update, new.
TORCH_GRU_ORDER = ("r", "z", "n")

#: What a step's cache holds; the backward passes check for them.
_CACHE_KEYS = ("h_prev", "x", "z", "r", "reset_h", "candidate")


def blend(h_prev, candidate, z):
    """The GRU's blend ``(1 - z) * h_prev + z * candidate`` (chapter 10), entry by entry.

    Args:
        h_prev: the previous hidden state; candidate: the candidate h~; z: the update gate, each entry in
            [0, 1]. Numbers or arrays that broadcast to one shape.

    Returns:
        array: lies between ``h_prev`` and ``candidate`` entry by entry.

    Raises:
        ValueError: if an entry of ``z`` is outside [0, 1] or a value is not finite.

    Example:
        >>> round(float(blend(0.8, -0.4, 0.25)), 4)
        0.5
    """
    z = as_array(z, "z")
    if np.any((z < 0) | (z > 1)):
        raise ValueError("z must lie in [0, 1]")
    h_prev = as_array(h_prev, "h_prev")
    candidate = as_array(candidate, "candidate")
    return (1.0 - z) * h_prev + z * candidate


def gru_candidate(h_prev, r, W, input_part):
    """The GRU's candidate for given reset-gate values: ``h~ = tanh(W (r * h_prev) + input_part)`` (chapter 10).

    ``input_part`` is the input's part of the pre-activation, ``U_h x + b_h``. With ``r = 0``
    the candidate is ``tanh(input_part)``: it depends on the input alone.

    Args:
        h_prev: the previous hidden state, (h,) or (B, h).
        r: the reset gate, a number or an array of the shape of ``h_prev``, in [0, 1].
        W: the candidate's recurrent matrix, (h, h).
        input_part: ``U_h x + b_h``, shape of ``h_prev``.

    Returns:
        array of the shape of ``h_prev``, entries in (-1, 1).

    Raises:
        ValueError: for mismatched shapes or ``r`` outside [0, 1].
    """
    h_prev = as_array(h_prev, "h_prev", ndim=(1, 2))
    n = h_prev.shape[-1]
    W = as_array(W, "W", shape=(n, n))
    r = as_array(r, "r")
    if r.ndim and r.shape != h_prev.shape:
        raise ValueError(f"r must be a number or have shape {h_prev.shape}, got {r.shape}")
    if np.any((r < 0) | (r > 1)):
        raise ValueError("r must lie in [0, 1]")
    input_part = as_array(input_part, "input_part", shape=h_prev.shape)
    return np.tanh((r * h_prev) @ W.T + input_part)


def init_gru(hidden_size: int, input_size: int, seed: int = 0, scale: float | None = None,
             update_bias: float = 0.0) -> dict:
    """Random GRU weights: ``W_j``, ``U_j`` uniform in [-scale, scale], biases 0 except ``b_z``.

    Args:
        hidden_size: h >= 1; input_size: d >= 1.
        seed: seed of ``numpy.random.default_rng``.
        scale: half-width of the uniform draw (> 0); default ``1 / sqrt(h)``, as PyTorch.
        update_bias: starting bias of the update gate. A negative value starts z near
            0, so the hidden state is mostly kept (the GRU's version of the forget-gate bias).

    Returns:
        dict with the keys :data:`GRU_KEYS`.

    Raises:
        ValueError: for a size below 1, a non-positive scale or a non-finite update_bias.
    """
    h = positive_int(hidden_size, "hidden_size")
    d = positive_int(input_size, "input_size")
    scale = 1.0 / np.sqrt(h) if scale is None else positive(scale, "scale")
    update_bias = as_scalar(update_bias, "update_bias")
    rng = np.random.default_rng(seed)
    weights = {}
    for k in GRU_BLOCKS:
        weights[f"W_{k}"] = rng.uniform(-scale, scale, (h, h))
        weights[f"U_{k}"] = rng.uniform(-scale, scale, (h, d))
        weights[f"b_{k}"] = np.full(h, update_bias if k == "z" else 0.0)
    return weights


def _gru_step(h_prev, x, w):
    """The unchecked kernel of :func:`gru_step` (float arrays of matching shapes): (h, cache)."""
    z = sigmoid(h_prev @ w["W_z"].T + x @ w["U_z"].T + w["b_z"])
    r = sigmoid(h_prev @ w["W_r"].T + x @ w["U_r"].T + w["b_r"])
    reset_h = r * h_prev
    candidate = np.tanh(reset_h @ w["W_h"].T + x @ w["U_h"].T + w["b_h"])
    h = (1.0 - z) * h_prev + z * candidate
    return h, {"h_prev": h_prev, "x": x, "z": z, "r": r, "reset_h": reset_h, "candidate": candidate}


def gru_step(h_prev, x, weights):
    """One GRU step (chapter 10): gates z and r, the candidate h~, then the blend.

    Args:
        h_prev: previous hidden state, (h,) or (B, h) for a batch of B.
        x: the input, (d,) or (B, d).
        weights: dict with the keys :data:`GRU_KEYS`.

    Returns:
        (h, cache): the new hidden state (shape of ``h_prev``; between h_prev and h~
        entry by entry) and a dict with h_prev, x, z, r, r*h_prev and the candidate,
        everything :func:`gru_step_backward` needs.

    Raises:
        ValueError: if a weight is missing or any shape disagrees, naming the argument.

    Example (chapter 10): h_prev = 0.5, x = 1, update pre-activation 0, reset pre-activation 2, candidate
    weights 1 and 1:

        >>> w = {k: [[0.0]] if k[0] in "WU" else [0.0] for k in GRU_KEYS}
        >>> w.update(b_r=[2.0], W_h=[[1.0]], U_h=[[1.0]])
        >>> h, cache = gru_step([0.5], [1.0], w)
        >>> round(float(cache["r"][0]), 4), round(float(cache["candidate"][0]), 4), round(float(h[0]), 4)
        (0.8808, 0.8938, 0.6969)
    """
    w, n_hidden, n_in = check_weights(weights, GRU_BLOCKS, "GRU")
    x, s = check_step(x, n_in, n_hidden, h_prev=h_prev)
    return _gru_step(s["h_prev"], x, w)


def _gru_step_backward(dh, cache, w, grads):
    """The unchecked kernel of :func:`gru_step_backward`: adds into ``grads``; returns (dh_prev, dx)."""
    z, r, h_prev, candidate = cache["z"], cache["r"], cache["h_prev"], cache["candidate"]
    d_candidate = dh * z
    dz = dh * (candidate - h_prev)
    dh_prev = dh * (1.0 - z)                      # the direct path: times (1 - z)
    da_h = d_candidate * (1.0 - candidate ** 2)
    # the candidate block reads r * h_prev, not h_prev
    d_reset_h, dx = backward_block(grads, da_h, cache["reset_h"], cache["x"], w, "h")
    dh_prev = dh_prev + d_reset_h * r
    da_r = d_reset_h * h_prev * r * (1.0 - r)
    da_z = dz * z * (1.0 - z)
    for k, da in (("z", da_z), ("r", da_r)):
        dh_k, dx_k = backward_block(grads, da, h_prev, cache["x"], w, k)
        dh_prev, dx = dh_prev + dh_k, dx + dx_k
    return dh_prev, dx


def gru_step_backward(dh, cache, weights):
    """Backward through one GRU step: from dL/dh to the weights, h_prev and x (chapters 6 and 10).

    Args:
        dh: dL/dh for this step's output (all paths), shape of h.
        cache: the dict returned by :func:`gru_step`.
        weights: the same weights as the forward step.

    Returns:
        (grads, dh_prev, dx): grads has this step's gradient for every key of
        :data:`GRU_KEYS`. ``dh_prev`` includes the direct path ``dh * (1 - z)``.

    Raises:
        ValueError: if a weight is missing or ``dh`` has the wrong shape.
    """
    w, _, _ = check_weights(weights, GRU_BLOCKS, "GRU")
    check_caches(cache, _CACHE_KEYS, "cache", "gru_step")
    dh = check_gradient(dh, "dh", cache["h_prev"].shape)
    grads = {key: np.zeros_like(value) for key, value in w.items()}
    dh_prev, dx = _gru_step_backward(dh, cache, w, grads)
    return grads, dh_prev, dx


def gru_forward(xs, weights, h0=None, *, batch_first: bool = False):
    """Run the GRU over a sequence (chapter 10), keeping what the backward pass needs.

    Args:
        xs: inputs, (T, d) or (T, B, d); T >= 1.
        weights: dict with the keys :data:`GRU_KEYS`.
        h0: starting hidden state, (h,) or (B, h); zeros if None.
        batch_first: True if ``xs`` is (B, T, d); ``hs`` then comes back as (B, T, h) (as
            :func:`mwm.rnn_forward`).

    Returns:
        (hs, caches): hs has shape (T, h) or (T, B, h) (h_1..h_T), caches is a list of
        T step caches for :func:`gru_backward`.

    Raises:
        ValueError: for an empty sequence, a missing weight or a shape that disagrees.
    """
    w, n_hidden, n_in = check_weights(weights, GRU_BLOCKS, "GRU")
    xs, _, states = check_inputs(time_major(xs, batch_first), n_in, n_hidden, {"h0": h0})
    h = states["h0"]
    hs = np.empty(xs.shape[:-1] + (n_hidden,))
    caches = []
    for t in range(xs.shape[0]):
        h, cache = _gru_step(h, xs[t], w)
        hs[t] = h
        caches.append(cache)
    return batch_major(hs, batch_first), caches


def gru_backward(dhs, caches, weights, *, batch_first: bool = False):
    """Backprop through time for the GRU (chapters 6, 10): gradients of all weights, of h0 and of the inputs.

    Args:
        dhs: the gradient the loss puts directly on each step's state h_t, (T, h) or (T, B, h),
            in the order of the forward pass (zeros for steps without a loss).
        caches: the list returned by :func:`gru_forward`.
        weights: the same weights as the forward pass.
        batch_first: True if ``dhs`` is (B, T, h), as ``gru_forward(..., batch_first=True)``
            returns its states; ``dxs`` then comes back as (B, T, d).

    Returns:
        (grads, dh0, dxs): grads is a dict with the gradient of every key of
        :data:`GRU_KEYS` (summed over steps and batch); dh0 = dL/dh_0 has the shape of h0;
        dxs has the shape of xs.

    Raises:
        ValueError: if ``caches`` is empty or ``dhs`` does not match the forward pass, naming it.
    """
    w, _, _ = check_weights(weights, GRU_BLOCKS, "GRU")
    caches = check_caches(caches, _CACHE_KEYS, "caches", "gru_forward")
    state_shape = caches[0]["h_prev"].shape
    dhs = check_gradient(time_major(dhs, batch_first, "dhs"), "dhs", (len(caches),) + state_shape)
    grads = {key: np.zeros_like(value) for key, value in w.items()}
    dxs = np.empty((len(caches),) + caches[0]["x"].shape)
    dh_next = np.zeros(state_shape)
    for t in reversed(range(len(caches))):
        dh_next, dxs[t] = _gru_step_backward(dhs[t] + dh_next, caches[t], w, grads)
    return grads, dh_next, batch_major(dxs, batch_first)


def gru_weights_from_torch(weight_ih, weight_hh, bias_ih=None, bias_hh=None) -> dict:
    """The course's GRU blocks from PyTorch's stacked layout (order r, z, n).

    Negates the update block (torch's z' is our 1 - z) and sums the two bias vectors of
    the reset and update blocks. The result reproduces ``torch.nn.GRU`` exactly only
    when the two reset placements agree (see the module docstring: hidden size 1, a
    diagonal ``W_hn``, or a reset gate equal across units); otherwise it is the
    course's GRU with the same numbers, a different function.

    Args:
        weight_ih: (3h, d) = [W_ir; W_iz; W_in]; weight_hh: (3h, h) = [W_hr; W_hz; W_hn].
        bias_ih, bias_hh: (3h,) each, or None for zeros.

    Returns:
        dict with the keys :data:`GRU_KEYS`.

    Raises:
        ValueError: for wrong shapes, or if ``b_hn`` (the last h entries of bias_hh) is
            not zero: torch multiplies it by r, which no course weight can copy.
    """
    t = from_stacked(weight_ih, weight_hh, bias_ih, None, TORCH_GRU_ORDER)
    h = t["W_r"].shape[0]
    if bias_hh is not None:
        bias_hh = as_array(bias_hh, "bias_hh", shape=(3 * h,))
        if np.any(bias_hh[2 * h:] != 0):
            raise ValueError("bias_hh's candidate block b_hn must be zero: torch multiplies it by r, "
                             "which the course's GRU cannot copy")
        t["b_r"] = t["b_r"] + bias_hh[:h]
        t["b_z"] = t["b_z"] + bias_hh[h:2 * h]
    return {"W_z": -t["W_z"], "U_z": -t["U_z"], "b_z": -t["b_z"],
            "W_r": t["W_r"], "U_r": t["U_r"], "b_r": t["b_r"],
            "W_h": t["W_n"], "U_h": t["U_n"], "b_h": t["b_n"]}


def gru_weights_to_torch(weights):
    """PyTorch's stacked GRU layout (r, z, n) from the course's blocks; inverse of :func:`gru_weights_from_torch`.

    Returns:
        (weight_ih (3h, d), weight_hh (3h, h), bias_ih (3h,), bias_hh (3h,)): the update
        block is negated, biases go into bias_ih and bias_hh is zeros (so b_hn = 0).
        ``torch.nn.GRU`` with these arrays equals :func:`gru_forward` exactly when the
        reset placements agree (module docstring).
    """
    w, _, _ = check_weights(weights, GRU_BLOCKS, "GRU")
    t = {"W_r": w["W_r"], "U_r": w["U_r"], "b_r": w["b_r"],
         "W_z": -w["W_z"], "U_z": -w["U_z"], "b_z": -w["b_z"],
         "W_n": w["W_h"], "U_n": w["U_h"], "b_n": w["b_h"]}
    return to_stacked(t, TORCH_GRU_ORDER)


def reset_placement_gap(W, r, h_prev):
    """How far apart the two reset placements are inside the tanh: ``r*(W h) - W (r*h)``.

    The course (and Cho et al. 2014) computes the candidate with ``W (r * h_prev)``; PyTorch with
    ``r * (W h_prev)``. The gap is zero for every ``h_prev`` exactly when
    ``W[i, j] = 0`` whenever ``r[i] != r[j]``.

    Args:
        W: the candidate's recurrent matrix, (h, h).
        r: the reset gate, (h,) or (B, h), entries in [0, 1].
        h_prev: the previous hidden state, same shape as ``r``.

    Returns:
        array of the shape of ``h_prev``.

    Raises:
        ValueError: for mismatched shapes or an ``r`` outside [0, 1].
    """
    W = as_array(W, "W", ndim=2)
    n = W.shape[0]
    W = as_array(W, "W", shape=(n, n))
    r = as_array(r, "r", ndim=(1, 2))
    r = as_array(r, "r", shape=r.shape[:-1] + (n,))
    if np.any((r < 0) | (r > 1)):
        raise ValueError("r must lie in [0, 1]")
    h_prev = as_array(h_prev, "h_prev", shape=r.shape)
    return r * (h_prev @ W.T) - (r * h_prev) @ W.T


# --------------------------------------------------------------------------------------
# Chapter 10's two-number GRU: the blend dial and ten steps its "Try" panels draw
# (mwm.widgets.ch10_gru). The previous state and the candidate are chosen so that the blend
# passes through the chapter's two points, (0.5, 0) at z = 0.25 and (0.2, 0.2) at z = 0.5; the
# candidate is a real GRU candidate tanh(W (r * h_prev) + p) with W the identity and the
# input's part p fixed so that at r = 1 it is exactly CANDIDATE.
# --------------------------------------------------------------------------------------
#: The previous hidden state h_{t-1} of the blend-dial panel.
OLD_STATE = np.array([0.8, -0.2])
#: The candidate h~ at r = 1.
CANDIDATE = np.array([-0.4, 0.6])
#: The candidate's recurrent matrix (reads r * h_prev).
CANDIDATE_W = np.eye(2)
#: The input's part U x + b of the candidate's pre-activation, chosen so that
#: gru_candidate(OLD_STATE, 1, CANDIDATE_W, WORD_PUSH) == CANDIDATE.
WORD_PUSH = np.arctanh(CANDIDATE) - OLD_STATE


def dial_step(z: float = 0.25, r: float = 1.0, h_prev=OLD_STATE):
    """One step of the panel's GRU with the gates held at ``z`` and ``r``.

    Returns:
        (candidate, new state): arrays (2,). At r = 1 the candidate is :data:`CANDIDATE`.

    Raises:
        ValueError: if z or r is outside [0, 1].
    """
    candidate = gru_candidate(h_prev, r, CANDIDATE_W, WORD_PUSH)
    return candidate, blend(h_prev, candidate, z)


def ten_steps(z: float = 0.1, r: float = 1.0, steps: int = 10):
    """Run the panel's GRU for ``steps`` steps from :data:`OLD_STATE`, gates held at z and r.

    The same word is read at every step, so the candidate changes only through the state.

    Returns:
        (states, share): states is an array (steps + 1, 2) from the previous state on; share is
        ``(1 - z) ** steps``, how much of the starting state rides straight through
        (0.9^10 = 0.3487 for z = 0.1).
    """
    states = [OLD_STATE.copy()]
    for _ in range(steps):
        states.append(dial_step(z, r, states[-1])[1])
    return np.array(states), (1.0 - z) ** steps


def ten_steps_jacobian(z: float = 0.1, r: float = 1.0, steps: int = 10):
    """The whole derivative ``dh_t / dh_0`` of the ten-steps GRU, for t = 0 .. ``steps``.

    One step maps ``h`` to ``(1 - z) h + z tanh(W (r h) + p)``, so its Jacobian is
    ``(1 - z) I + z r diag(1 - candidate^2) W``: the direct lane ``1 - z`` plus a route
    through the candidate. The product of these along the path of :func:`ten_steps` is
    ``dh_t/dh_0`` (chain rule, chapter 6). With ``W`` the identity it is diagonal.

    Returns:
        array (steps + 1, 2, 2): entry t is ``dh_t / dh_0`` (entry 0 the identity). For
        z = 0.1, r = 1 the last is about diag(0.5941, 0.5519); for r = 0 it is
        0.9^10 = 0.3487 times the identity, the lane alone.

    Raises:
        ValueError: if z or r is outside [0, 1].
    """
    states, _ = ten_steps(z, r, steps)
    jacobians = [np.eye(2)]
    for h in states[:-1]:
        candidate = dial_step(z, r, h)[0]
        step = (1.0 - z) * np.eye(2) + z * r * np.diag(1.0 - candidate ** 2) @ CANDIDATE_W
        jacobians.append(step @ jacobians[-1])
    return np.array(jacobians)
