"""Chapter 11: two-way (bidirectional) and stacked readers built from any cell.

A *reader* is a list of layers. Each layer is a tuple of one or two weight dicts: one
for a one-way layer (reads left to right), two for a two-way layer (the first reads
left to right, the second right to left). Layer 1 reads the inputs; every higher
layer reads the states of the layer below, one per word.

* Two-way layer: ``h_t = [h_fwd_t ; h_bwd_t]`` (the forward state, then the backward
  state, side by side: 2h numbers). ``h_bwd_t`` is the backward cell's state after it has
  read the words T, T-1, ..., t, so it knows the words from t to the end.
* Stacked layers: layer 2's input at word t is layer 1's state at word t (h numbers, or
  2h when layer 1 is two-way).

This is exactly PyTorch's ``num_layers`` / ``bidirectional=True`` layout (its
``_reverse`` weights are our second dict; its output is the top layer's states, forward
half first). Every cell starts from a zero state. The cells are:

* ``"rnn"``: dict ``W`` (h, h), ``U`` (h, d), ``b`` (h,) (:mod:`mwm.cell`),
* ``"gru"``: :data:`mwm.gru.GRU_KEYS`, ``"lstm"``: :data:`mwm.lstm.LSTM_KEYS`.

Costs (chapter 11, :func:`mwm.params.stack_param_count`): with h = 128, d = 64 plain
cells, one-way 24,704; two-way 49,408; two one-way layers 24,704 + 32,896 = 57,600.
PyTorch keeps a second bias vector per block, so its modules hold
``blocks * h`` more numbers per layer and direction.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ._validate import as_array, positive, positive_int
from .bptt import rnn_backward
from .cell import RNN_KEYS, rnn_forward
from .gru import GRU_KEYS, gru_backward, gru_forward, gru_weights_from_torch, init_gru
from .lstm import LSTM_KEYS, LSTMState, init_lstm, lstm_backward, lstm_forward, lstm_weights_from_stacked

#: Chapter 11's two sentences: the words before "Teddy" agree, the words after it decide.
TEDDY_SENTENCES = ("He said Teddy bears are on sale", "He said Teddy Roosevelt was a president")

#: Weight keys of each cell type.
CELL_KEYS = {"rnn": RNN_KEYS, "gru": GRU_KEYS, "lstm": LSTM_KEYS}
#: Each cell's sequence functions, all of one contract: ``forward(xs, weights) -> (states, caches)``
#: and ``backward(d_states, caches, weights) -> (grads, d_state0, dxs)``.
CELLS = {"rnn": (rnn_forward, rnn_backward), "gru": (gru_forward, gru_backward), "lstm": (lstm_forward, lstm_backward)}


def _check_cell(cell: str) -> str:
    if cell not in CELL_KEYS:
        raise ValueError(f"cell must be one of {sorted(CELL_KEYS)}, got {cell!r}")
    return cell


def init_rnn(hidden_size: int, input_size: int, seed: int = 0, scale: float | None = None) -> dict:
    """Random plain-cell weights ``W`` (h, h), ``U`` (h, d) uniform in [-scale, scale], ``b`` = 0.

    Args:
        hidden_size: h >= 1; input_size: d >= 1; seed: numpy seed;
        scale: half-width (> 0), default ``1 / sqrt(h)``.

    Returns:
        dict with keys "W", "U", "b".

    Raises:
        ValueError: for a size below 1 or a non-positive scale.
    """
    h = positive_int(hidden_size, "hidden_size")
    d = positive_int(input_size, "input_size")
    scale = 1.0 / np.sqrt(h) if scale is None else positive(scale, "scale")
    rng = np.random.default_rng(seed)
    return {"W": rng.uniform(-scale, scale, (h, h)), "U": rng.uniform(-scale, scale, (h, d)), "b": np.zeros(h)}


def _hidden(states):
    """A run's hidden states: the states themselves, or the LSTM's h (its cell state c stays inside the layer)."""
    return states.h if isinstance(states, LSTMState) else states


def _check_layers(layers, cell):
    if not isinstance(layers, (list, tuple)) or len(layers) == 0:
        raise ValueError("layers must be a non-empty list of layers")
    keys = CELL_KEYS[cell]
    out = []
    for n, layer in enumerate(layers, start=1):
        if isinstance(layer, dict):
            layer = (layer,)
        if not isinstance(layer, (list, tuple)) or len(layer) not in (1, 2):
            raise ValueError(f"layer {n} of layers must hold one (one-way) or two (two-way) weight dicts")
        for w in layer:
            if not isinstance(w, dict) or any(k not in w for k in keys):
                raise ValueError(f"layer {n} of layers needs {cell} weight dicts with keys {list(keys)}")
        out.append(tuple(layer))
    return out


def reader_forward(xs, layers, cell: str = "rnn"):
    """Run a reader of one or more layers, each one-way or two-way, over a sequence (chapter 11).

    Args:
        xs: inputs, (T, d) or (T, B, d) for a batch of B.
        layers: list of layers; each layer is a tuple ``(weights,)`` (one-way) or
            ``(forward_weights, backward_weights)`` (two-way), every weights dict of the
            ``cell`` type. Layer n+1's input size must equal layer n's output size
            (h, or 2h for a two-way layer).
        cell: "rnn", "gru" or "lstm".

    Returns:
        (states, cache): states has shape (T, h_out) or (T, B, h_out), the top layer's state
        at every word (h_out = h, or 2h for a two-way top layer: forward half first);
        cache is what :func:`reader_backward` needs.

    Raises:
        ValueError: for an unknown cell, a malformed layer or a shape that disagrees.
    """
    cell = _check_cell(cell)
    layers = _check_layers(layers, cell)
    xs = as_array(xs, "xs", ndim=(2, 3))
    inputs, caches = xs, []
    u_key = CELL_KEYS[cell][1]  # "U", "U_z" or "U_i": (h, size of what the layer reads)
    for n, layer in enumerate(layers, start=1):
        for w in layer:
            reads = np.shape(w[u_key])[-1] if np.ndim(w[u_key]) == 2 else None
            if reads != inputs.shape[-1]:
                what = "the inputs" if n == 1 else f"layer {n - 1}'s states"
                raise ValueError(f"layer {n} of layers must read {what}, {inputs.shape[-1]} numbers per word, "
                                 f"but its {u_key} has shape {np.shape(w[u_key])}")
        forward = CELLS[cell][0]
        fwd_states, fwd_cache = forward(inputs, layer[0])
        fwd = _hidden(fwd_states)
        if len(layer) == 1:
            states, layer_cache = fwd, (fwd_cache,)
        else:
            bwd_states, bwd_cache = forward(inputs[::-1], layer[1])
            states = np.concatenate([fwd, _hidden(bwd_states)[::-1]], axis=-1)
            layer_cache = (fwd_cache, bwd_cache)
        caches.append((layer_cache, fwd.shape[-1]))
        inputs = states
    return inputs, {"cell": cell, "layers": layers, "caches": caches, "shape": inputs.shape}


def reader_backward(dstates, cache):
    """Backward through a reader: gradients of every layer's weights and of the inputs.

    Args:
        dstates: dL/dh_t for the top layer's states, shape of the ``states`` returned
            by :func:`reader_forward`.
        cache: the cache returned by :func:`reader_forward`.

    Returns:
        (grads, dxs): grads mirrors ``layers`` (a list of tuples of dicts with the
        gradient of every weight key); dxs has the shape of xs.

    Raises:
        ValueError: if ``dstates`` does not have the shape of the top layer's states.
    """
    cell, layers, caches = cache["cell"], cache["layers"], cache["caches"]
    d = as_array(dstates, "dstates", shape=cache["shape"])
    grads = [None] * len(layers)
    backward = CELLS[cell][1]
    for n in reversed(range(len(layers))):
        layer_cache, h = caches[n]
        g_fwd, _, dinputs = backward(d[..., :h], layer_cache[0], layers[n][0])
        layer_grads = [g_fwd]
        if len(layers[n]) == 2:
            g_bwd, _, dxs_bwd = backward(d[..., h:][::-1], layer_cache[1], layers[n][1])
            dinputs = dinputs + dxs_bwd[::-1]
            layer_grads.append(g_bwd)
        grads[n] = tuple(layer_grads)
        d = dinputs
    return grads, d


def bidirectional_forward(xs, forward_weights, backward_weights, cell: str = "rnn"):
    """One two-way layer (chapter 11): ``h_t = [h_fwd_t ; h_bwd_t]``.

    Args:
        xs: (T, d) or (T, B, d). forward_weights, backward_weights: two weight dicts of
            the ``cell`` type with the same h. cell: "rnn", "gru" or "lstm".

    Returns:
        array (T, 2h) or (T, B, 2h): the forward state then the backward state at each word.

    Raises:
        ValueError: as :func:`reader_forward`.

    Example (chapter 11): one-number plain cells w = 0.5, u = 1, b = 0 on x = (0, 0, 1):
        >>> cell = {"W": [[0.5]], "U": [[1.0]], "b": [0.0]}
        >>> states = bidirectional_forward([[0.0], [0.0], [1.0]], cell, cell)
        >>> states[:, 0].round(4).tolist(), states[:, 1].round(4).tolist()
        ([0.0, 0.0, 0.7616], [0.1797, 0.3634, 0.7616])
    """
    return reader_forward(xs, [(forward_weights, backward_weights)], cell)[0]


def stacked_forward(xs, layer_weights, cell: str = "rnn"):
    """One-way layers stacked (chapter 11): layer n+1 reads layer n's states.

    Args:
        xs: (T, d) or (T, B, d). layer_weights: list of weight dicts, bottom layer first;
            layer 1 reads d numbers per word, every higher layer h. cell: as above.

    Returns:
        array (T, h) or (T, B, h): the top layer's states.

    Raises:
        ValueError: as :func:`reader_forward`.
    """
    if not isinstance(layer_weights, (list, tuple)):
        raise ValueError("layer_weights must be a list of weight dicts, bottom layer first")
    return reader_forward(xs, [(w,) for w in layer_weights], cell)[0]


def init_reader(cell: str, hidden_size: int, input_size: int, num_layers: int = 1, bidirectional: bool = False,
                seed: int = 0, scale: float | None = None) -> list:
    """Random weights for a reader of ``num_layers`` layers, one-way or two-way.

    Args:
        cell: "rnn", "gru" or "lstm". hidden_size: h per direction; input_size: d.
        num_layers: layers (>= 1). bidirectional: two-way layers if True.
        seed: every cell gets its own seed derived from this one. scale: as the cell's init
            (the LSTM's forget shift is its default, 1).

    Returns:
        list of layers, as :func:`reader_forward` takes them.

    Raises:
        ValueError: for an unknown cell or a bad size.
    """
    cell = _check_cell(cell)
    n_layers = positive_int(num_layers, "num_layers")
    init = {"rnn": init_rnn, "gru": init_gru, "lstm": init_lstm}[cell]
    layers, d = [], input_size
    directions = 2 if bidirectional else 1
    for n in range(n_layers):
        layers.append(tuple(init(hidden_size, d, seed=seed * 1000 + 10 * n + k, scale=scale)
                            for k in range(directions)))
        d = directions * hidden_size
    return layers


def reader_param_count(layers) -> int:
    """How many numbers a reader's weight dicts hold, counted from the arrays themselves.

    Returns:
        int; equals :func:`mwm.params.stack_param_count` for a reader built by
        :func:`init_reader` (tests check it).
    """
    if not isinstance(layers, (list, tuple)) or len(layers) == 0:
        raise ValueError("layers must be a non-empty list of layers")
    total = 0
    for layer in layers:
        for w in ((layer,) if isinstance(layer, dict) else layer):
            total += sum(np.asarray(v).size for v in w.values())
    return total


def layers_from_torch(cell: str, params: Mapping[str, object], num_layers: int = 1, bidirectional: bool = False):
    """A reader's layers from the parameters of ``torch.nn.RNN/GRU/LSTM``, by name.

    Args:
        cell: "rnn", "gru" or "lstm".
        params: name -> array, e.g. ``{k: v.detach().numpy() for k, v in module.named_parameters()}``;
            names ``weight_ih_l{n}``, ``weight_hh_l{n}``, ``bias_ih_l{n}``, ``bias_hh_l{n}``,
            with the suffix ``_reverse`` for the backward direction.
        num_layers, bidirectional: as the torch module was built.

    Returns:
        list of layers for :func:`reader_forward`. The two bias vectors are summed; the
        GRU's update block is negated (torch's z is our 1 - z). The GRU result equals
        torch only where the reset placements agree (see :mod:`mwm.gru`).

    Raises:
        ValueError: for a missing name or wrong shapes (and, for the GRU, a non-zero b_hn).
    """
    cell = _check_cell(cell)
    layers = []
    for n in range(positive_int(num_layers, "num_layers")):
        layer = []
        for suffix in ("", "_reverse")[: 2 if bidirectional else 1]:
            names = [f"{p}_l{n}{suffix}" for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            missing = [name for name in names[:2] if name not in params]
            if missing:
                raise ValueError(f"params is missing {missing}")
            w_ih, w_hh = params[names[0]], params[names[1]]
            b_ih, b_hh = params.get(names[2]), params.get(names[3])
            if cell == "lstm":
                layer.append(lstm_weights_from_stacked(w_ih, w_hh, b_ih, b_hh))
            elif cell == "gru":
                layer.append(gru_weights_from_torch(w_ih, w_hh, b_ih, b_hh))
            else:
                W = as_array(w_hh, names[1], ndim=2)
                b = np.zeros(W.shape[0])
                for name, value in ((names[2], b_ih), (names[3], b_hh)):
                    if value is not None:
                        b = b + as_array(value, name, shape=(W.shape[0],))
                layer.append({"W": W.copy(), "U": as_array(w_ih, names[0], ndim=2).copy(), "b": b})
        layers.append(tuple(layer))
    return layers


def toy_word_vectors(sentences=TEDDY_SENTENCES, size: int = 4, seed: int = 11) -> dict:
    """Made-up word vectors for a few sentences: one standard-normal vector per distinct word.

    The vocabulary is every distinct lower-cased word of ``sentences``, sorted; row k of
    ``numpy.random.default_rng(seed).standard_normal((len(vocab), size))`` belongs to
    word k. They carry no meaning; they only make different words different.

    Args:
        sentences: non-empty sequence of strings. size: d >= 1. seed: numpy seed.

    Returns:
        dict word -> array (size,).

    Raises:
        ValueError: if ``sentences`` is empty or holds no words.
    """
    if isinstance(sentences, str) or len(sentences) == 0:
        raise ValueError("sentences must be a non-empty list of strings")
    vocab = sorted({w.lower() for s in sentences for w in str(s).split()})
    if not vocab:
        raise ValueError("sentences must contain at least one word")
    rows = np.random.default_rng(seed).standard_normal((len(vocab), positive_int(size, "size")))
    return dict(zip(vocab, rows))
