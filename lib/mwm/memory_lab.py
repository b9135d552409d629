"""Chapter 9's memory lab: can a cell carry one word?

Each sentence is a list of numbers ``s_1..s_T``. The first word is chai (``s_1 = +1``)
or coffee (``s_1 = -1``); every later word is a filler drawn uniformly from
``[-A, A]``, where ``A`` is the *filler noise*. A marker ``m_t`` is 1 on the first word
and 0 afterwards. Three one-number cells read the sentence, with hand-set weights:

    plain:  h_t = tanh(w h_{t-1} + s_t)
    LSTM:   i_t = sigma(10 m_t - 5),   c_t = f c_{t-1} + i_t tanh(s_t)
    GRU:    z_t = sigma(10 m_t - 5),   h_t = (1 - z_t) h_{t-1} + z_t tanh(s_t)

all starting from zero (``h_0 = c_0 = 0``). For a fair control, ``input_gate`` changes one
thing: ``"marker"`` gives the plain cell the LSTM's input gate (``h_t = tanh(w h_{t-1} + i_t s_t)``),
``"open"`` holds the LSTM's input gate at 1 (``c_t = f c_{t-1} + tanh(s_t)``); with ``w = f``
the plain cell and the LSTM then differ only in the lane (a memory scaled by ``f`` and topped
up, against one squeezed by tanh at every word). The answer is the sign of the final memory
(the cell state ``c_T`` for the LSTM, the hidden state ``h_T`` for the other two): positive
means chai. A cell is right when that sign equals the sign of ``s_1``; a memory of
exactly 0 counts as wrong.

The LSTM's output gate does not matter here: ``h_T = o tanh(c_T)`` has the sign of
``c_T`` for any ``o > 0``. Because the gates look only at the marker, the gradient's factor along
each lane (the derivative of the final memory with respect to the memory after word 1)
is exactly ``prod w (1 - h_t^2)``, ``prod f`` and ``prod (1 - z_t)`` over words 2..T.

Accuracy is measured by simulation (fixed seed, numpy, vectorised over trials). A
sentence of length T is the first T words of a sentence of length ``max(lengths)``, so
one pass measures every length at once; the LSTM's and GRU's final memories are linear
in ``tanh(s_t)``, so :func:`lab_exact_accuracy` also gives their accuracy to quadrature
precision, a check on the simulation.
"""
from __future__ import annotations

import numpy as np

from ._validate import as_array, as_scalar, positive_int
from .gates import sigmoid

#: The three cells of the lab, in the order the chapter draws them.
LAB_CELLS = ("plain", "LSTM", "GRU")

#: The gate's pre-activation on word t is GATE_SLOPE * m_t + GATE_SHIFT: wide open on the marker, nearly shut after.
GATE_SLOPE, GATE_SHIFT = 10.0, -5.0

#: The panel's defaults: plain w, LSTM forget gate f, sentence length, filler noise A.
LAB_DEFAULTS = {"w": 0.9, "f": 0.99, "length": 20, "noise": 0.5}

#: What ``input_gate`` may be: each cell's own wiring, the marker gate for every cell, or no gate (1 on every word).
INPUT_GATES = ("own", "marker", "open")


def _check_cell(cell):
    if cell not in LAB_CELLS:
        raise ValueError(f"cell must be one of {LAB_CELLS}, got {cell!r}")
    return cell


def _check_noise(noise):
    noise = as_scalar(noise, "noise")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise}")
    return noise


def _input_gates(cell, input_gate, length) -> np.ndarray:
    """The gate that scales what the cell writes on words 1..length, by ``input_gate`` (see the module)."""
    if input_gate not in INPUT_GATES:
        raise ValueError(f"input_gate must be one of {INPUT_GATES}, got {input_gate!r}")
    if cell == "GRU" and input_gate != "own":
        raise ValueError("input_gate must be 'own' for the GRU: its update gate is also what it keeps (1 - z_t)")
    if input_gate == "own":                      # the plain cell has no gate; the LSTM's reads the marker
        input_gate = "open" if cell == "plain" else "marker"
    return lab_gates(length) if input_gate == "marker" else np.ones(length)


def _check_f(f):
    f = as_scalar(f, "f")
    if not 0.0 <= f <= 1.0:
        raise ValueError(f"f must lie in [0, 1], got {f}")
    return f


def lab_gates(length) -> np.ndarray:
    """The input gate (LSTM) = update gate (GRU) of the lab on words 1..length: sigma(10 m_t - 5).

    Args:
        length: T >= 1 words.

    Returns:
        array (T,): sigma(5) ~ 0.9933 on the first word, sigma(-5) ~ 0.0067 on every other word.

    Raises:
        ValueError: if ``length`` is not a whole number >= 1.
    """
    length = positive_int(length, "length")
    marker = np.zeros(length)
    marker[0] = 1.0
    return sigmoid(GATE_SLOPE * marker + GATE_SHIFT)


def lab_sentences(n_trials, length, noise, seed=0) -> np.ndarray:
    """Draw ``n_trials`` lab sentences of ``length`` words (chapter 9's memory lab).

    Args:
        n_trials: how many sentences, >= 1.
        length: T >= 1 words each: the first is +1 (chai) or -1 (coffee) with equal
            probability, the other T - 1 are fillers uniform in [-noise, noise].
        noise: the filler noise A >= 0.
        seed: seed of ``numpy.random.default_rng``; the same seed gives the same sentences.

    Returns:
        array (n_trials, T) of the words s_t; ``s[:, 0]`` is the first word (+-1).

    Raises:
        ValueError: if a count is not a whole number >= 1 or the noise is negative.
    """
    n_trials = positive_int(n_trials, "n_trials")
    length = positive_int(length, "length")
    noise = _check_noise(noise)
    rng = np.random.default_rng(seed)
    first = rng.choice(np.array([-1.0, 1.0]), size=n_trials)
    s = rng.uniform(-noise, noise, size=(n_trials, length))
    s[:, 0] = first
    return s


def lab_run(cell, sentences, *, w=LAB_DEFAULTS["w"], f=LAB_DEFAULTS["f"], input_gate="own"):
    """Run one of the lab's hand-set cells over a batch of sentences (chapter 9).

    Args:
        cell: "plain", "LSTM" or "GRU".
        sentences: array (n, T) of words s_t, as from :func:`lab_sentences` (T >= 1).
        w: the plain cell's recurrent weight (any finite number); ignored by the others.
        f: the LSTM's forget gate, in [0, 1], the same at every word; ignored by the others.
        input_gate: "own" (each cell as wired above), "marker" (the marker gate sigma(10 m_t - 5)
            scales what the plain cell or the LSTM writes) or "open" (nothing scales it); the
            GRU takes "own" only.

    Returns:
        (memory, jacobian): two arrays of shape (n, T). ``memory[:, t-1]`` is the memory after
        word t (c_t for the LSTM, h_t otherwise). ``jacobian[:, t-1]`` is the derivative of
        that memory with respect to the memory after word 1: ``prod_{k=2..t} w (1 - h_k^2)``,
        ``f^(t-1)`` or ``prod_{k=2..t} (1 - z_k)``; ``jacobian[:, 0] = 1``.

    Raises:
        ValueError: for an unknown cell, a sentence array that is not 2-D with T >= 1,
            f outside [0, 1], or an ``input_gate`` not in :data:`INPUT_GATES` (or not "own" for the GRU).
    """
    cell = _check_cell(cell)
    s = as_array(sentences, "sentences", ndim=2)
    if s.shape[1] == 0 or s.shape[0] == 0:
        raise ValueError(f"sentences must hold at least one sentence of one word, got shape {s.shape}")
    w = as_scalar(w, "w")
    f = _check_f(f)
    n, length = s.shape
    gates = lab_gates(length)
    written = _input_gates(cell, input_gate, length)
    memory = np.empty((n, length))
    jacobian = np.empty((n, length))
    state = np.zeros(n)
    lane = np.ones(n)
    for t in range(length):
        if cell == "plain":
            state = np.tanh(w * state + written[t] * s[:, t])
            step_jacobian = w * (1.0 - state ** 2)
        elif cell == "LSTM":
            state = f * state + written[t] * np.tanh(s[:, t])
            step_jacobian = f
        else:  # GRU
            state = (1.0 - gates[t]) * state + gates[t] * np.tanh(s[:, t])
            step_jacobian = 1.0 - gates[t]
        if t > 0:
            lane = lane * step_jacobian
        memory[:, t] = state
        jacobian[:, t] = lane
    return memory, jacobian


def lab_accuracy(cell, lengths, noise, *, w=LAB_DEFAULTS["w"], f=LAB_DEFAULTS["f"], input_gate="own",
                 n_trials=40_000, seed=0):
    """Measure a lab cell's accuracy at several sentence lengths, by simulation (chapter 9).

    One batch of ``n_trials`` sentences of ``max(lengths)`` words is drawn with
    :func:`lab_sentences` (same ``seed``, same sentences, for every cell); the accuracy at
    length T is read from the memory after word T. The error bar is the binomial
    standard error ``sqrt(p (1 - p) / n_trials)``; with 40 000 trials it is at most
    0.0025 (0.25 percentage points), so a 95% interval (+- 1.96 standard errors) is at
    most +- 0.49 points.

    Args:
        cell: "plain", "LSTM" or "GRU".
        lengths: 1-D sequence of sentence lengths, each a whole number >= 1.
        noise: the filler noise A >= 0.
        w, f, input_gate: as in :func:`lab_run`.
        n_trials: sentences per length, >= 1.
        seed: seed of the sentences.

    Returns:
        (accuracy, std_error): two arrays of shape (len(lengths),), fractions in [0, 1].

    Raises:
        ValueError: for an unknown cell, an empty or non-integer list of lengths, a
            length below 1, a negative noise, f outside [0, 1] or a bad ``input_gate``.
    """
    lengths = _check_lengths(lengths)
    s = lab_sentences(n_trials, int(lengths.max()), noise, seed)
    memory, _ = lab_run(cell, s, w=w, f=f, input_gate=input_gate)
    right = np.sign(memory[:, lengths - 1]) == np.sign(s[:, :1])
    accuracy = right.mean(axis=0)
    return accuracy, np.sqrt(accuracy * (1.0 - accuracy) / s.shape[0])


def _check_lengths(lengths):
    arr = np.asarray(lengths)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"lengths must be a non-empty 1-D list of whole numbers, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"lengths must be whole numbers, got dtype {arr.dtype}")
    if arr.min() < 1:
        raise ValueError(f"lengths must all be >= 1, got {arr.min()}")
    return arr.astype(int)


def lab_exact_accuracy(cell, length, noise, *, f=LAB_DEFAULTS["f"], n_nodes=64) -> float:
    """The LSTM's or GRU's lab accuracy without simulation, by Fourier inversion.

    Both cells are linear in the squeezed words: the final memory is
    ``a * s_1 + sum_j b_j tanh(u_j)``, where ``a = gate_1 * tanh(1) * (carry)^(T-1)``
    is the first word's surviving share (the leaky sum of Proof 2), the ``u_j`` are the
    T - 1 fillers and ``b_j`` their shares. The noise term N is symmetric, so the
    accuracy is P(N < a), which the Gil-Pelaez formula gives as
    ``1/2 + (1/pi) int_0^inf sin(a t) phi(t) / t dt`` with ``phi`` the characteristic
    function of N, a product of one factor ``E cos(b_j t tanh u)`` per filler
    (Gauss-Legendre nodes for the expectation, trapezoid rule in t).

    Args:
        cell: "LSTM" or "GRU" (the plain cell is not linear: simulate it).
        length: T >= 1.
        noise: the filler noise A >= 0.
        f: the LSTM's forget gate in [0, 1] (ignored by the GRU).
        n_nodes: quadrature nodes over one filler's range.

    Returns:
        the probability (a float in [0, 1]; 0.5 or more unless f = 0 with no noise) that the
        cell answers correctly.

    Raises:
        ValueError: for the plain cell or an unknown cell, or a bad length, noise or f.
    """
    cell = _check_cell(cell)
    if cell == "plain":
        raise ValueError("cell must be 'LSTM' or 'GRU': the plain cell's memory is not linear in the words")
    length = positive_int(length, "length")
    noise = _check_noise(noise)
    f = _check_f(f)
    gates = lab_gates(length)
    carry = f if cell == "LSTM" else 1.0 - gates[1] if length > 1 else 1.0
    a = gates[0] * np.tanh(1.0) * carry ** (length - 1)
    if a <= 0:  # f = 0: the first word is wiped; a memory of exactly 0 (no noise) counts as wrong
        return 0.0 if noise == 0.0 else 0.5
    if length == 1:
        return 1.0
    # share of the filler j steps before the end: gate * carry^j, j = 0..T-2
    b = gates[1] * carry ** np.arange(length - 1)
    if np.sum(b) * np.tanh(noise) < a:  # even the worst fillers cannot flip the sign
        return 1.0
    nodes, weights = np.polynomial.legendre.leggauss(n_nodes)
    squeezed = np.tanh(noise * (nodes + 1.0) / 2.0)  # tanh(u), u in (0, A); tanh(u) is odd
    spread = np.sqrt(np.sum(b ** 2) * np.sum(weights * squeezed ** 2) / 2.0)
    t_max = 40.0 / spread  # phi(t) < exp(-700) beyond: the noise is a sum of many small terms
    n_t = int(min(20_001, max(4_001, 100 * a * t_max)))  # about 100 points per radian of sin(a t)
    t = np.linspace(0.0, t_max, n_t)[1:]
    phi = np.ones_like(t)
    for bj in b:
        phi *= (weights[None, :] * np.cos(bj * t[:, None] * squeezed[None, :])).sum(axis=1) / 2.0
    integrand = np.concatenate([[a], np.sin(a * t) * phi / t])  # sin(a t)/t -> a at t = 0
    integral = np.sum(integrand[:-1] + integrand[1:]) * (t[1] - t[0]) / 2.0
    return float(0.5 + integral / np.pi)
