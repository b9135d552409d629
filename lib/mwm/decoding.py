"""Chapter 13: choosing the words a decoder writes.

A decoder gives a probability to every possible next token; the probability of a
whole output is the product of its tokens' probabilities (the chain rule), so its
log-probability is the sum ``sum_t ln P(y_t | y_<t, source)``. Three ways to
choose an output from those probabilities:

* :func:`greedy_decode` takes the most likely token at every step and never looks back;
* :func:`beam_search` keeps the ``beam_width`` best hypotheses (partial outputs) at every
  step; width 1 is greedy;
* :func:`sample_decode` draws every token at random from the softmax at a temperature.

The model interface
-------------------
Every decoder talks to a model only through four things, bundled in a
:class:`StepModel` (or any object with these attributes):

* ``step(state, prev_token_id) -> (log_probs, new_state)``: given the decoder's state
  and the token just written (``bos_id`` at the start), the log-probabilities of every
  possible next token, a float array of shape (V,) (``-inf`` for impossible tokens;
  they must sum, as probabilities, to 1), and the state after reading ``prev_token_id``;
* ``initial_state``: the state before the first token (for a translator, the
  encoder's summary of the source sentence);
* ``bos_id``: the begin symbol fed in first (never written);
* ``eos_id``: the end symbol; writing it finishes an output.

:class:`ProbabilityTree` turns a hand-made tree of next-word probabilities (chapter 13's
"the / our / a" example) into such a model, so the same code runs on the tree and on a
trained network.

Conventions
-----------
* Every output ends with exactly one end symbol, and ``max_length`` counts it: at
  position ``max_length`` only the end symbol may be written, so every returned
  hypothesis is a complete output of at most ``max_length`` tokens and its
  ``log_prob`` is the exact log-probability of that token sequence.
* ``bos_id`` is never written.
* Ties between equal (normalised) log-probabilities go to the hypothesis found first: the better-ranked parent,
  then the smaller token id (greedy takes the smallest id among equal maxima).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

import numpy as np

from ._validate import as_scalar, non_empty, positive, positive_int
from .readout import softmax

#: The begin and end symbols of :class:`ProbabilityTree`'s vocabulary.
BOS, EOS = "<s>", "</s>"


class StepModel(NamedTuple):
    """A decoder as the decoding functions see it (see the module docstring).

    Attributes:
        step: function (state, prev_token_id: int) -> (log_probs: ndarray (V,), new_state).
        initial_state: the state before the first token (any object the step understands).
        bos_id: the begin symbol's id, fed in first, never written.
        eos_id: the end symbol's id; writing it finishes the output.
        checked: True (the default) to check every step's output (shape (V,), log-probabilities
            that normalise); False for a step known to return them by construction (the
            course's translator, :meth:`mwm.seq2seq.Translator.step_model`), which skips that
            check inside the decoding loop.
    """

    step: Callable[[Any, int], tuple]
    initial_state: Any
    bos_id: int
    eos_id: int
    checked: bool = True


@dataclass(frozen=True)
class Hypothesis:
    """A complete output: its tokens (ending with the end symbol) and its log-probability.

    Attributes:
        tokens: tuple of token ids written, the last one ``eos_id`` (``bos_id`` not included).
        log_prob: sum of the log-probabilities of ``tokens`` (<= 0; natural log).
        normalized_log_prob: the number the search ranked it by, the length-normalised
            log-probability ``log_prob / len(tokens) ** nu`` (equal to ``log_prob`` when nu = 0).
    """

    tokens: tuple
    log_prob: float
    normalized_log_prob: float


    @property
    def probability(self) -> float:
        """exp(log_prob): the product of the tokens' probabilities (underflows to 0 for long outputs)."""
        return math.exp(self.log_prob)


@dataclass(frozen=True)
class BeamCandidate:
    """One hypothesis the beam considered at one step (for tracing and drawing the search).

    Attributes:
        tokens: the token ids so far (no ``bos_id``).
        log_prob: their summed log-probability.
        normalized_log_prob: what the beam ranks by (see :class:`Hypothesis`).
        finished: True if ``tokens`` ends with the end symbol (kept, it is set aside as an output).
        kept: True if it was among the ``beam_width`` best at this step (the others are pruned).
    """

    tokens: tuple
    log_prob: float
    normalized_log_prob: float
    finished: bool
    kept: bool



@dataclass(frozen=True)
class BeamSearchResult:
    """What :func:`beam_search` found.

    Attributes:
        hypotheses: the finished outputs, best first (at most ``beam_width``).
        steps: with ``trace=True``, for every step, all the candidates the beam ranked, in
            rank order, each marked kept or pruned (``steps[0]`` is the choice of the first
            token); empty otherwise.
    """

    hypotheses: tuple
    steps: tuple

    @property
    def best(self) -> Hypothesis:
        """The best complete output (highest normalised log-probability)."""
        return self.hypotheses[0]


def _model_parts(model):
    try:
        step, state, bos, eos = model.step, model.initial_state, model.bos_id, model.eos_id
    except AttributeError:
        raise ValueError("model must have step, initial_state, bos_id and eos_id (see StepModel)") from None
    if not callable(step):
        raise ValueError("model.step must be a function (state, prev_token_id) -> (log_probs, new_state)")
    for v, name in ((bos, "model.bos_id"), (eos, "model.eos_id")):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {v!r}")
    if bos == eos:
        raise ValueError("model.bos_id and model.eos_id must differ")
    return step, state, int(bos), int(eos), bool(getattr(model, "checked", True))


def _call_step(step, state, prev, bos, eos, checked=True):
    out = step(state, prev)
    if not checked:  # a trusted step (StepModel.checked is False): log-probabilities by construction
        log_probs, new_state = out
        lp = np.array(log_probs, dtype=float)
        lp[bos] = -np.inf
        return lp, new_state
    if not isinstance(out, tuple) or len(out) != 2:
        raise ValueError("model.step must return a pair (log_probs, new_state)")
    log_probs, new_state = out
    lp = np.asarray(log_probs, dtype=float)
    if lp.ndim != 1 or lp.shape[0] <= max(bos, eos):
        raise ValueError(f"model.step must return log_probs of shape (V,) with V > {max(bos, eos)}, got {lp.shape}")
    if np.any(np.isnan(lp)) or np.any(lp > 1e-9):
        raise ValueError("model.step must return log-probabilities: no NaN, every entry <= 0")
    finite = np.isfinite(lp)
    if not finite.any() or abs(np.logaddexp.reduce(lp[finite])) > 1e-6:
        raise ValueError("model.step must return normalised log-probabilities (their exponentials sum to 1)")
    lp = lp.copy()
    lp[bos] = -np.inf  # the begin symbol is never written
    return lp, new_state


def _normalized(log_prob: float, length: int, nu: float) -> float:
    return log_prob / length ** nu if nu else log_prob


def greedy_decode(model, max_length: int = 50) -> Hypothesis:
    """Greedy decoding: write the single most likely token at each step until the end symbol (chapter 13).

    Args:
        model: a :class:`StepModel` (or an object with step, initial_state, bos_id, eos_id).
        max_length: L >= 1, the most tokens written, the end symbol included; at
            position L only the end symbol may be written.

    Returns:
        :class:`Hypothesis` (normalized_log_prob = log_prob). On chapter 13's tree: "the train", p = 0.20.

    Raises:
        ValueError: for a bad model, ``max_length`` < 1, or a step that returns
            something other than normalised log-probabilities of shape (V,).
    """
    step, state, bos, eos, checked = _model_parts(model)
    max_length = positive_int(max_length, "max_length")
    tokens, total, prev = [], 0.0, bos
    for t in range(1, max_length + 1):
        lp, state = _call_step(step, state, prev, bos, eos, checked)
        choice = eos if t == max_length else int(np.argmax(lp))
        if not np.isfinite(lp[choice]):
            raise ValueError(f"the model gives the end symbol probability 0 at max_length = {max_length}")
        tokens.append(choice)
        total += float(lp[choice])
        prev = choice
        if choice == eos:
            break
    return Hypothesis(tuple(tokens), total, total)


def beam_search(model, beam_width: int, max_length: int = 50, nu: float = 0.0,
                trace: bool = False) -> BeamSearchResult:
    """Beam search of width B (``beam_width``): keep the B best hypotheses at every step (chapter 13).

    At every step each live (unfinished) hypothesis in the beam is grown by every possible
    next token (log-probability = parent's log-probability + the token's), and the B
    best of all these candidates (by normalised log-probability) are kept, the rest pruned.
    A kept candidate that has written the end symbol is finished: it is set aside, never
    extended, and the beam goes on with the live ones (so it holds fewer than B once some
    have finished). The search stops when no live hypothesis is left, or when none of them
    can still beat the best finished one (a hypothesis's log-probability only falls as it
    grows, so with nu = 0 a live one already below the best finished one cannot win; with
    nu > 0 the bound is ``log_prob / max_length ** nu``), and at step ``max_length``
    only the end symbol is allowed, so it stops by then. The answer is the best finished
    hypothesis; one a later step would push out of the beam is never lost. With B = 1 this
    is exactly greedy decoding; with B at least the number of live hypotheses a step can
    have, nothing is ever pruned and the best output is found.

    Only a parent's B best extensions can be among the B best overall, so unless
    ``trace`` is set, just those are built (the result is the same; a large
    vocabulary then costs little).

    Length normalisation (convention). Summing log-probabilities favours short outputs,
    since every extra token adds a negative number. With ``nu`` (ν) > 0, hypotheses are
    ranked by ``log_prob / n ** nu``, n = number of tokens written (end symbol included):
    nu = 0 is the plain sum, nu = 1 the average log-probability per token. (Wu et al.
    2016, GNMT, divide by ``((5 + n) / 6) ** nu`` instead; the idea is the same.) The
    course keeps alpha for chapter 14's attention weights.

    Args:
        model: a :class:`StepModel` (or an object with step, initial_state, bos_id, eos_id).
        beam_width: B >= 1, the number of hypotheses kept at each step.
        max_length: L >= 1, the most tokens an output may have, end symbol included.
        nu: the length-normalisation exponent ν >= 0 (see above).
        trace: if True, record every candidate of every step, kept or pruned, in
            ``result.steps`` (for drawing a small search); if False, ``steps`` is empty.

    Returns:
        :class:`BeamSearchResult`: ``.best`` (a :class:`Hypothesis`), ``.hypotheses``
        (the finished outputs, best first, at most B) and ``.steps`` (with ``trace``).
        On chapter 13's tree with B = 2: "our train", p = 0.36, log-prob ~ -1.022.

    Raises:
        ValueError: if ``beam_width`` or ``max_length`` is not a whole number >= 1,
            ``nu`` is negative, or the model is bad (see :func:`greedy_decode`).
    """
    step, state0, bos, eos, checked = _model_parts(model)
    width = positive_int(beam_width, "beam_width")
    max_length = positive_int(max_length, "max_length")
    nu = as_scalar(nu, "nu")
    if nu < 0:
        raise ValueError(f"nu must be >= 0, got {nu}")
    live = [((), 0.0, state0)]  # (tokens, log_prob, state), best first
    finished = []               # (normalised, order, tokens, log_prob): set aside, best found first on ties
    steps = []
    for t in range(1, max_length + 1):
        # a pool entry: (normalised, order, tokens, log_prob, state); ties go to the smaller
        # order = (step, rank of the parent, token id)
        pool = []
        for rank, (tokens, log_prob, state) in enumerate(live):
            lp, new_state = _call_step(step, state, tokens[-1] if tokens else bos, bos, eos, checked)
            if t == max_length:
                choices = [eos]
            else:
                choices = np.argsort(-lp, kind="stable")  # best first; equal ones by token id
                if not trace:
                    choices = choices[:width]
            for v in choices:
                v = int(v)
                if np.isfinite(lp[v]):
                    total = log_prob + float(lp[v])
                    pool.append((_normalized(total, t, nu), (t, rank, v), tokens + (v,), total, new_state))
        pool.sort(key=lambda c: (-c[0], c[1]))
        if trace:
            steps.append(tuple(BeamCandidate(c[2], c[3], c[0], c[2][-1] == eos, rank < width)
                               for rank, c in enumerate(pool)))
        kept = pool[:width]
        finished += [(c[0], c[1], c[2], c[3]) for c in kept if c[2][-1] == eos]
        live = [(c[2], c[3], c[4]) for c in kept if c[2][-1] != eos]
        if not live:
            break
        best_finished = max((f[0] for f in finished), default=-math.inf)
        if best_finished >= max(_normalized(lp_, max_length, nu) for _, lp_, _ in live):
            break  # nothing left can still win
    if not finished:
        raise ValueError(f"no hypothesis can end within max_length = {max_length}: "
                         "the model gives the end symbol probability 0")
    finished.sort(key=lambda f: (-f[0], f[1]))
    hyps = tuple(Hypothesis(tokens, log_prob, normed) for normed, _, tokens, log_prob in finished[:width])
    return BeamSearchResult(hyps, tuple(steps))


def sample_decode(model, temperature: float = 1.0, rng=None, max_length: int = 50) -> Hypothesis:
    """Sampling: draw every next token at random from ``softmax(log_probs / θ)`` (chapters 5 and 13).

    Uses :func:`mwm.readout.softmax` with the temperature θ on the model's
    log-probabilities, which gives probabilities proportional to ``p ** (1/θ)``: θ = 1
    samples the model as it is, θ < 1 is bolder towards the likeliest tokens (θ -> 0 is
    greedy), θ > 1 is more adventurous. Impossible tokens (log-probability -inf) are
    never drawn.

    Args:
        model: a :class:`StepModel` (or an object with step, initial_state, bos_id, eos_id).
        temperature: θ > 0.
        rng: a ``numpy.random.Generator`` (used and advanced) or an int seed; None means seed 0,
            so that the same call always gives the same output.
        max_length: L >= 1, as in :func:`greedy_decode`.

    Returns:
        :class:`Hypothesis` whose ``log_prob`` is the model's own (θ = 1) log-probability
        of the drawn tokens.

    Raises:
        ValueError: if ``temperature`` is not > 0, ``rng`` is neither a Generator nor an
            int, ``max_length`` < 1, or the model is bad.
    """
    step, state, bos, eos, checked = _model_parts(model)
    theta = positive(temperature, "temperature")
    max_length = positive_int(max_length, "max_length")
    if rng is None:
        rng = np.random.default_rng(0)
    elif isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        rng = np.random.default_rng(int(rng))
    elif not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator or an int seed, got {type(rng).__name__}")
    tokens, total, prev = [], 0.0, bos
    for t in range(1, max_length + 1):
        lp, state = _call_step(step, state, prev, bos, eos, checked)
        if t == max_length:
            choice = eos
            if not np.isfinite(lp[eos]):
                raise ValueError(f"the model gives the end symbol probability 0 at max_length = {max_length}")
        else:
            possible = np.flatnonzero(np.isfinite(lp))
            probs = softmax(lp[possible], theta)
            choice = int(possible[rng.choice(len(possible), p=probs)])
        tokens.append(choice)
        total += float(lp[choice])
        prev = choice
        if choice == eos:
            break
    return Hypothesis(tuple(tokens), total, total)


def sequence_log_prob(model, tokens) -> float:
    """The log-probability of a given output: ``sum_t ln P(y_t | y_<t)``, feeding the model its own tokens.

    Args:
        model: a :class:`StepModel` (or an object with step, initial_state, bos_id, eos_id).
        tokens: the token ids written, a non-empty sequence (normally ending with ``eos_id``).

    Returns:
        float <= 0 (``-inf`` if some token is impossible).

    Raises:
        ValueError: if ``tokens`` is empty, holds ``bos_id`` or a token after the end symbol,
            or an id outside [0, V).
    """
    step, state, bos, eos, checked = _model_parts(model)
    tokens = [int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else v for v in tokens]
    non_empty(tokens, "tokens")
    total, prev = 0.0, bos
    for i, v in enumerate(tokens):
        if not isinstance(v, int) or v == bos or (prev == eos):
            raise ValueError(f"tokens must be token ids, without the begin symbol and nothing after the end "
                             f"symbol; got {v!r} at position {i}")
        lp, state = _call_step(step, state, prev, bos, eos, checked)
        if not 0 <= v < lp.shape[0]:
            raise ValueError(f"tokens must be ids in [0, {lp.shape[0]}), got {v} at position {i}")
        total += float(lp[v])
        prev = v
    return total


def exhaustive_search(model, max_length: int) -> list:
    """Every possible output of at most ``max_length`` tokens, best first: the brute-force answer.

    Only for tiny models: the number of outputs grows like (V - 2)^max_length.

    Args:
        model: a :class:`StepModel` (or an object with step, initial_state, bos_id, eos_id).
        max_length: L >= 1, as in :func:`beam_search`.

    Returns:
        list of :class:`Hypothesis` with non-zero probability, sorted by log_prob (highest first;
        ties in the order found).

    Raises:
        ValueError: as :func:`greedy_decode`.
    """
    step, state0, bos, eos, checked = _model_parts(model)
    max_length = positive_int(max_length, "max_length")
    out = []
    frontier = [((), 0.0, state0)]
    for t in range(1, max_length + 1):
        nxt = []
        for tokens, log_prob, state in frontier:
            lp, new_state = _call_step(step, state, tokens[-1] if tokens else bos, bos, eos, checked)
            for v in ([eos] if t == max_length else range(lp.shape[0])):
                if np.isfinite(lp[v]):
                    item = (tokens + (v,), log_prob + float(lp[v]), new_state)
                    (out.append(Hypothesis(item[0], item[1], item[1])) if v == eos else nxt.append(item))
        frontier = nxt
    out.sort(key=lambda h: -h.log_prob)
    return out


class ProbabilityTree:
    """A hand-made tree of next-word probabilities, as a model the decoders can search (chapter 13).

    The tree maps each prefix (a tuple of words) to the probabilities of the next word::

        {(): {"the": 0.5, "our": 0.4, "a": 0.1},
         ("the",): {"train": 0.4, "bus": 0.3, "rain": 0.3}, ...}

    A prefix with no entry ends there: its only next token is the end symbol, with
    probability 1 (log-probability 0), so "the train" has probability 0.5 * 0.4 = 0.20.
    A node may also give the end symbol ``EOS`` ("</s>") a probability explicitly.

    The vocabulary is ``(BOS, EOS, words in order of first appearance)``; ``bos_id`` = 0,
    ``eos_id`` = 1; the decoder state is the prefix read so far.

    Args:
        tree: dict prefix (tuple of str) -> dict word -> probability in [0, 1], each
            node's probabilities summing to 1; must have the root ``()``.

    Raises:
        ValueError: if the tree is empty, has no root, a prefix is not a tuple of words,
            or a node's probabilities are not in [0, 1] or do not sum to 1 (naming the node).
    """

    def __init__(self, tree):
        if not isinstance(tree, dict):
            raise ValueError(f"tree must be a dict prefix -> {{word: probability}}, got {type(tree).__name__}")
        non_empty(tree, "tree")
        if () not in tree:
            raise ValueError("tree must have a root: the entry () with the first word's probabilities")
        vocab = [BOS, EOS]
        nodes = {}
        for prefix, node in tree.items():
            if not isinstance(prefix, tuple) or not all(isinstance(w, str) for w in prefix):
                raise ValueError(f"tree keys must be tuples of words, got {prefix!r}")
            if not isinstance(node, dict) or not node:
                raise ValueError(f"tree[{prefix!r}] must be a non-empty dict word -> probability")
            probs = {}
            for word, p in node.items():
                if not isinstance(word, str) or word == BOS:
                    raise ValueError(f"tree[{prefix!r}] has a bad word {word!r}")
                p = as_scalar(p, f"tree[{prefix!r}][{word!r}]")
                if not 0.0 <= p <= 1.0:
                    raise ValueError(f"tree[{prefix!r}][{word!r}] must be a probability in [0, 1], got {p}")
                probs[word] = p
                if word not in vocab:
                    vocab.append(word)
            if abs(sum(probs.values()) - 1.0) > 1e-9:
                raise ValueError(f"tree[{prefix!r}] must sum to 1, got {sum(probs.values())}")
            nodes[prefix] = probs
        self.tree = nodes
        self.vocab = tuple(vocab)
        self.index = {w: i for i, w in enumerate(self.vocab)}
        self.bos_id, self.eos_id = 0, 1
        self.initial_state = ()

    def step(self, state, prev_token_id):
        """The interface step: (prefix so far, token just written) -> (log_probs (V,), new prefix)."""
        if prev_token_id == self.eos_id:
            raise ValueError("prev_token_id is the end symbol: a finished output cannot be extended")
        if not isinstance(prev_token_id, (int, np.integer)) or not 0 <= prev_token_id < len(self.vocab):
            raise ValueError(f"prev_token_id must be an id in [0, {len(self.vocab)}), got {prev_token_id!r}")
        prefix = tuple(state) if prev_token_id == self.bos_id else tuple(state) + (self.vocab[prev_token_id],)
        log_probs = np.full(len(self.vocab), -np.inf)
        node = self.tree.get(prefix, {EOS: 1.0})
        with np.errstate(divide="ignore"):
            for word, p in node.items():
                log_probs[self.index[word]] = np.log(p)
        return log_probs, prefix

    @property
    def model(self) -> StepModel:
        """This tree as a :class:`StepModel`."""
        return StepModel(self.step, self.initial_state, self.bos_id, self.eos_id)

    def ids(self, words) -> tuple:
        """Token ids of a sentence (a string or list of words); the end symbol is appended.

        Raises:
            ValueError: for a word not in the tree's vocabulary.
        """
        words = words.split() if isinstance(words, str) else list(words)
        unknown = [w for w in words if w not in self.index]
        if unknown:
            raise ValueError(f"words must be in the tree's vocabulary, unknown: {unknown}")
        return tuple(self.index[w] for w in words) + (self.eos_id,)

    def words(self, tokens) -> str:
        """The sentence of a hypothesis's token ids, without the end symbol."""
        return " ".join(self.vocab[t] for t in tokens if t not in (self.bos_id, self.eos_id))


#: Chapter 13's tree: the decoder writing the English of "hamari train late hai".
SEED_TREE = {
    (): {"the": 0.5, "our": 0.4, "a": 0.1},
    ("the",): {"train": 0.4, "bus": 0.3, "rain": 0.3},
    ("our",): {"train": 0.9, "bus": 0.1},
    ("a",): {"train": 0.6, "bus": 0.4},
}
