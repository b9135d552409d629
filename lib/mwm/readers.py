"""Chapter 11: two-way (bidirectional) and stacked readers built from any cell.

A *reader* is a list of floors. Each floor is a tuple of one or two weight dicts: one
for a one-way floor (reads left to right), two for a two-way floor (the first reads
left to right, the second right to left). Floor 1 reads the inputs; every higher
floor reads the notes of the floor below, one per word.

* Two-way floor: ``note_t = [h_fwd_t ; h_bwd_t]`` (the forward note, then the backward
  note, side by side: 2h numbers). ``h_bwd_t`` is the backward cell's note after it has
  read the words T, T-1, ..., t, so it knows the words from t to the end.
* Stacked floors: floor 2's input at word t is floor 1's note at word t (h numbers, or
  2h when floor 1 is two-way).

This is exactly PyTorch's ``num_layers`` / ``bidirectional=True`` layout (its
``_reverse`` weights are our second dict; its output is the top floor's notes, forward
half first). Every cell starts from a zero state. The cells are:

* ``"rnn"``: dict ``W`` (h, h), ``U`` (h, d), ``b`` (h,) (:mod:`mwm.cell`),
* ``"gru"``: :data:`mwm.gru.GRU_KEYS`, ``"lstm"``: :data:`mwm.lstm.LSTM_KEYS`.

Costs (chapter 11, :func:`mwm.params.stack_param_count`): with h = 128, d = 64 plain
cells, one-way 24,704; two-way 49,408; two one-way floors 24,704 + 32,896 = 57,600.
PyTorch keeps a second bias vector per block, so its modules hold
``blocks * h`` more numbers per floor and direction.
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


def _notes(states):
    """A run's notes: the states themselves, or the LSTM's h (its lane c stays inside the floor)."""
    return states.h if isinstance(states, LSTMState) else states


def _check_floors(floors, cell):
    if not isinstance(floors, (list, tuple)) or len(floors) == 0:
        raise ValueError("floors must be a non-empty list of floors")
    keys = CELL_KEYS[cell]
    out = []
    for n, floor in enumerate(floors, start=1):
        if isinstance(floor, dict):
            floor = (floor,)
        if not isinstance(floor, (list, tuple)) or len(floor) not in (1, 2):
            raise ValueError(f"floor {n} of floors must hold one (one-way) or two (two-way) weight dicts")
        for w in floor:
            if not isinstance(w, dict) or any(k not in w for k in keys):
                raise ValueError(f"floor {n} of floors needs {cell} weight dicts with keys {list(keys)}")
        out.append(tuple(floor))
    return out


def reader_forward(xs, floors, cell: str = "rnn"):
    """Run a reader of one or more floors, each one-way or two-way, over a sequence (chapter 11).

    Args:
        xs: inputs, (T, d) or (T, B, d) for a batch of B.
        floors: list of floors; each floor is a tuple ``(weights,)`` (one-way) or
            ``(forward_weights, backward_weights)`` (two-way), every weights dict of the
            ``cell`` type. Floor n+1's input size must equal floor n's output size
            (h, or 2h for a two-way floor).
        cell: "rnn", "gru" or "lstm".

    Returns:
        (notes, cache): notes has shape (T, h_out) or (T, B, h_out), the top floor's note
        at every word (h_out = h, or 2h for a two-way top floor: forward half first);
        cache is what :func:`reader_backward` needs.

    Raises:
        ValueError: for an unknown cell, a malformed floor or a shape that disagrees.
    """
    cell = _check_cell(cell)
    floors = _check_floors(floors, cell)
    xs = as_array(xs, "xs", ndim=(2, 3))
    inputs, caches = xs, []
    u_key = CELL_KEYS[cell][1]  # "U", "U_z" or "U_i": (h, size of what the floor reads)
    for n, floor in enumerate(floors, start=1):
        for w in floor:
            reads = np.shape(w[u_key])[-1] if np.ndim(w[u_key]) == 2 else None
            if reads != inputs.shape[-1]:
                what = "the inputs" if n == 1 else f"floor {n - 1}'s notes"
                raise ValueError(f"floor {n} of floors must read {what}, {inputs.shape[-1]} numbers per word, "
                                 f"but its {u_key} has shape {np.shape(w[u_key])}")
        forward = CELLS[cell][0]
        fwd_states, fwd_cache = forward(inputs, floor[0])
        fwd = _notes(fwd_states)
        if len(floor) == 1:
            notes, floor_cache = fwd, (fwd_cache,)
        else:
            bwd_states, bwd_cache = forward(inputs[::-1], floor[1])
            notes = np.concatenate([fwd, _notes(bwd_states)[::-1]], axis=-1)
            floor_cache = (fwd_cache, bwd_cache)
        caches.append((floor_cache, fwd.shape[-1]))
        inputs = notes
    return inputs, {"cell": cell, "floors": floors, "caches": caches, "shape": inputs.shape}


def reader_backward(dnotes, cache):
    """Backward through a reader: gradients of every floor's weights and of the inputs.

    Args:
        dnotes: dL/dnote_t for the top floor's notes, shape of the ``notes`` returned
            by :func:`reader_forward`.
        cache: the cache returned by :func:`reader_forward`.

    Returns:
        (grads, dxs): grads mirrors ``floors`` (a list of tuples of dicts with the
        gradient of every weight key); dxs has the shape of xs.

    Raises:
        ValueError: if ``dnotes`` does not have the shape of the top floor's notes.
    """
    cell, floors, caches = cache["cell"], cache["floors"], cache["caches"]
    d = as_array(dnotes, "dnotes", shape=cache["shape"])
    grads = [None] * len(floors)
    backward = CELLS[cell][1]
    for n in reversed(range(len(floors))):
        floor_cache, h = caches[n]
        g_fwd, _, dinputs = backward(d[..., :h], floor_cache[0], floors[n][0])
        floor_grads = [g_fwd]
        if len(floors[n]) == 2:
            g_bwd, _, dxs_bwd = backward(d[..., h:][::-1], floor_cache[1], floors[n][1])
            dinputs = dinputs + dxs_bwd[::-1]
            floor_grads.append(g_bwd)
        grads[n] = tuple(floor_grads)
        d = dinputs
    return grads, d


def bidirectional_forward(xs, forward_weights, backward_weights, cell: str = "rnn"):
    """One two-way floor (chapter 11): ``note_t = [h_fwd_t ; h_bwd_t]``.

    Args:
        xs: (T, d) or (T, B, d). forward_weights, backward_weights: two weight dicts of
            the ``cell`` type with the same h. cell: "rnn", "gru" or "lstm".

    Returns:
        array (T, 2h) or (T, B, 2h): the forward note then the backward note at each word.

    Raises:
        ValueError: as :func:`reader_forward`.

    Example (chapter 11): one-number plain cells w = 0.5, u = 1, b = 0 on x = (0, 0, 1):
        >>> cell = {"W": [[0.5]], "U": [[1.0]], "b": [0.0]}
        >>> notes = bidirectional_forward([[0.0], [0.0], [1.0]], cell, cell)
        >>> notes[:, 0].round(4).tolist(), notes[:, 1].round(4).tolist()
        ([0.0, 0.0, 0.7616], [0.1797, 0.3634, 0.7616])
    """
    return reader_forward(xs, [(forward_weights, backward_weights)], cell)[0]


def stacked_forward(xs, floor_weights, cell: str = "rnn"):
    """One-way floors stacked (chapter 11): floor n+1 reads floor n's notes.

    Args:
        xs: (T, d) or (T, B, d). floor_weights: list of weight dicts, bottom floor first;
            floor 1 reads d numbers per word, every higher floor h. cell: as above.

    Returns:
        array (T, h) or (T, B, h): the top floor's notes.

    Raises:
        ValueError: as :func:`reader_forward`.
    """
    if not isinstance(floor_weights, (list, tuple)):
        raise ValueError("floor_weights must be a list of weight dicts, bottom floor first")
    return reader_forward(xs, [(w,) for w in floor_weights], cell)[0]


def init_reader(cell: str, hidden_size: int, input_size: int, num_layers: int = 1, bidirectional: bool = False,
                seed: int = 0, scale: float | None = None) -> list:
    """Random weights for a reader of ``num_layers`` floors, one-way or two-way.

    Args:
        cell: "rnn", "gru" or "lstm". hidden_size: h per direction; input_size: d.
        num_layers: floors (>= 1). bidirectional: two-way floors if True.
        seed: every cell gets its own seed derived from this one. scale: as the cell's init
            (the LSTM's forget shift is its default, 1).

    Returns:
        list of floors, as :func:`reader_forward` takes them.

    Raises:
        ValueError: for an unknown cell or a bad size.
    """
    cell = _check_cell(cell)
    layers = positive_int(num_layers, "num_layers")
    init = {"rnn": init_rnn, "gru": init_gru, "lstm": init_lstm}[cell]
    floors, d = [], input_size
    directions = 2 if bidirectional else 1
    for n in range(layers):
        floors.append(tuple(init(hidden_size, d, seed=seed * 1000 + 10 * n + k, scale=scale)
                            for k in range(directions)))
        d = directions * hidden_size
    return floors


def reader_param_count(floors) -> int:
    """How many numbers a reader's weight dicts hold, counted from the arrays themselves.

    Returns:
        int; equals :func:`mwm.params.stack_param_count` for a reader built by
        :func:`init_reader` (tests check it).
    """
    if not isinstance(floors, (list, tuple)) or len(floors) == 0:
        raise ValueError("floors must be a non-empty list of floors")
    total = 0
    for floor in floors:
        for w in ((floor,) if isinstance(floor, dict) else floor):
            total += sum(np.asarray(v).size for v in w.values())
    return total


def floors_from_torch(cell: str, params: Mapping[str, object], num_layers: int = 1, bidirectional: bool = False):
    """A reader's floors from the parameters of ``torch.nn.RNN/GRU/LSTM``, by name.

    Args:
        cell: "rnn", "gru" or "lstm".
        params: name -> array, e.g. ``{k: v.detach().numpy() for k, v in module.named_parameters()}``;
            names ``weight_ih_l{n}``, ``weight_hh_l{n}``, ``bias_ih_l{n}``, ``bias_hh_l{n}``,
            with the suffix ``_reverse`` for the backward direction.
        num_layers, bidirectional: as the torch module was built.

    Returns:
        list of floors for :func:`reader_forward`. The two bias vectors are summed; the
        GRU's update block is negated (torch's z is our 1 - z). The GRU result equals
        torch only where the reset placements agree (see :mod:`mwm.gru`).

    Raises:
        ValueError: for a missing name or wrong shapes (and, for the GRU, a non-zero b_hn).
    """
    cell = _check_cell(cell)
    floors = []
    for n in range(positive_int(num_layers, "num_layers")):
        floor = []
        for suffix in ("", "_reverse")[: 2 if bidirectional else 1]:
            names = [f"{p}_l{n}{suffix}" for p in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            missing = [name for name in names[:2] if name not in params]
            if missing:
                raise ValueError(f"params is missing {missing}")
            w_ih, w_hh = params[names[0]], params[names[1]]
            b_ih, b_hh = params.get(names[2]), params.get(names[3])
            if cell == "lstm":
                floor.append(lstm_weights_from_stacked(w_ih, w_hh, b_ih, b_hh))
            elif cell == "gru":
                floor.append(gru_weights_from_torch(w_ih, w_hh, b_ih, b_hh))
            else:
                W = as_array(w_hh, names[1], ndim=2)
                b = np.zeros(W.shape[0])
                for name, value in ((names[2], b_ih), (names[3], b_hh)):
                    if value is not None:
                        b = b + as_array(value, name, shape=(W.shape[0],))
                floor.append({"W": W.copy(), "U": as_array(w_ih, names[0], ndim=2).copy(), "b": b})
        floors.append(tuple(floor))
    return floors


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
