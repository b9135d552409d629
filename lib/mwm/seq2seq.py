"""Chapters 12 and 14: the encoder-decoder translator, run in numpy.

Two LSTMs joined at one summary (Sutskever, Vinyals & Le 2014):

* the **encoder** reads the English words x_1..x_T (as embedding vectors) and keeps
  every hidden state; its last hidden state and cell state, ``s = (h_T, c_T)``, are the
  **summary** (the context vector);
* the **decoder** is a language model (chapter 5) whose first state is the summary.
  It reads the Hindi word it wrote last (``<start>`` at first) and gives
  probabilities for the next one, ``softmax(V o_t + b_V)``, until it writes ``<end>``.

For the plain model the read-out sees the decoder's hidden state only, ``o_t = h_t``. The
attention model of chapter 14 adds one read-out step (Luong, Pham & Manning 2015,
"dot" scores; the idea is Bahdanau, Cho & Bengio 2015): it scores every encoder state
against the decoder's state with a dot product, ``e_{t,j} = h_t . h^enc_j``, turns the
scores into weights ``alpha_t = softmax(e_t)``, mixes the encoder states into a read
``m_t = sum_j alpha_{t,j} h^enc_j`` and reads out from ``o_t = tanh(W_comb [h_t; m_t] + b_comb)``.
The **control** of chapter 14 has the same combine layer (as many numbers as the
attention model) but reads the fixed last encoder state instead: ``o_t = tanh(W_comb [h_t; h^enc_T] + b_comb)``
at every step. Everything else is identical in the three models.

The weights are trained by ``scripts/train_translator.py`` (PyTorch, teacher forcing)
and stored in ``data/translator_plain.npz``, ``data/translator_attention.npz`` and
``data/translator_control.npz``;
this module loads them and translates with plain numpy.

The step interface shared with :mod:`mwm.decoding` (chapter 13): a model has
``bos_id``, ``eos_id``, ``decoder_start(source_words) -> state`` and
``step(state, token_id) -> (log_probs of shape (V,), new_state)``.

LSTM layout: PyTorch's ``nn.LSTM`` stacks its four blocks in the order input gate,
forget gate, candidate, output gate (i, f, g, o) in ``weight_ih`` (4H x E) and
``weight_hh`` (4H x H); its two bias vectors are stored here already added together.
"""
from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, Sequence

import numpy as np

from ._validate import as_array, as_scalar, positive_int
from .gates import check_weights
from .lstm import LSTM_BLOCKS, _lstm_step, lstm_weights_from_stacked
from .npz import save_npz
from .readout import _log_softmax, _softmax

DATA = Path(__file__).resolve().parent / "data"
#: The committed weight files, by model name.
WEIGHT_FILES = {"plain": DATA / "translator_plain.npz", "attention": DATA / "translator_attention.npz",
                "control": DATA / "translator_control.npz"}
#: The committed greedy translations of the test set by the three models (scripts/translate_test_set.py).
TEST_OUTPUTS_FILE = DATA / "translator_test_outputs.tsv"
#: The same three models' greedy translations of a seeded sample of training pairs (chapter 14).
TRAIN_OUTPUTS_FILE = DATA / "translator_train_outputs.tsv"
#: Chapter 14's teacher-forced test: per long test sentence and model, which guesses were right.
TEACHER_FORCED_FILE = DATA / "translator_teacher_forced.tsv"
#: The key of each model's combine layer in its weight file (the plain model has none).
COMBINE_KEYS = {"plain": None, "attention": "combine", "control": "summary_combine"}
#: Which encoder states the attention decoder may read (chapter 14's panel): every one, as it was
#: trained; only the last (h_T, what the summary models get); only the first or the second half of
#: the sentence; or every state with the same weight 1/T (the scores ignored).
READS = ("all", "last", "first half", "second half", "equal weights")
#: Special words, in the order of their ids in both vocabularies.
PAD, START, END, UNK = "<pad>", "<start>", "<end>", "<unk>"
SPECIALS = (PAD, START, END, UNK)


class Vocab:
    """A fixed list of words and their ids (id = position in the list).

    Args:
        words: the words, specials first (``<pad>``, ``<start>``, ``<end>``, ``<unk>``).

    Attributes:
        words: tuple of str. ``pad_id``, ``bos_id``, ``eos_id``, ``unk_id``: ints 0-3.

    Raises:
        ValueError: if ``words`` does not start with the four specials or repeats a word.
    """

    def __init__(self, words: Sequence[str]):
        words = tuple(str(w) for w in words)
        if words[:4] != SPECIALS:
            raise ValueError(f"words must start with {SPECIALS}, got {words[:4]}")
        if len(set(words)) != len(words):
            raise ValueError("words must not repeat")
        self.words = words
        self._index = {w: i for i, w in enumerate(words)}
        self.pad_id, self.bos_id, self.eos_id, self.unk_id = range(4)

    @classmethod
    def from_sentences(cls, sentences) -> "Vocab":
        """The specials, then every word of ``sentences`` (lists of words) in sorted order."""
        return cls(SPECIALS + tuple(sorted({w for s in sentences for w in s})))

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word) -> bool:
        return word in self._index

    def ids_of(self, words) -> list[int]:
        """The id of each word.

        Args:
            words: a list of str, or one string of words separated by spaces.

        Returns:
            list of int, one per word.

        Raises:
            ValueError: naming the first word that is not in the vocabulary.
        """
        if isinstance(words, str):
            words = words.split()
        out = []
        for w in words:
            if w not in self._index:
                raise ValueError(f"words: {w!r} is not in the vocabulary of {len(self)} words")
            out.append(self._index[w])
        return out

    def words_of(self, ids) -> list[str]:
        """The word of each id.

        Args:
            ids: a sequence of whole numbers in [0, len(vocab)).

        Returns:
            list of str.

        Raises:
            ValueError: if an id is not a whole number in range.
        """
        out = []
        for i in ids:
            if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) or not 0 <= i < len(self):
                raise ValueError(f"ids must be whole numbers in [0, {len(self)}), got {i!r}")
            out.append(self.words[int(i)])
        return out


class Encoding(NamedTuple):
    """What the encoder hands over. ``states``: (T, H) every encoder hidden state h_1..h_T;
    ``h``, ``c``: (H,) the last hidden state and cell state, together the summary."""
    states: np.ndarray
    h: np.ndarray
    c: np.ndarray



class DecoderState(NamedTuple):
    """The decoder's state between two steps: its hidden state ``h`` and cell state ``c`` (H,),
    the encoder hidden states ``memory`` (T, H) (only the attention model reads them) and the
    attention weights ``weights`` (T,) of the last step (None before the first step
    and for the plain model)."""
    h: np.ndarray
    c: np.ndarray
    memory: np.ndarray
    weights: np.ndarray | None = None


class Translator:
    """An LSTM encoder-decoder loaded from a weight file (chapter 12; chapter 14 for attention and the control).

    Args:
        weights: mapping name -> array, as stored by ``scripts/train_translator.py``.

    Attributes:
        source_vocab, target_vocab: :class:`Vocab` (English, Hindi).
        bos_id, eos_id: ids of ``<start>`` and ``<end>`` in the target vocabulary.
        hidden_size: H, the length of every hidden state. ``summary_size`` = 2H (hidden + cell state).
        parameter_count: how many numbers were learned (every weight array, not the
            training log ``loss_per_epoch``): 250,582 plain, 283,478 with attention and for the control.
        attention: True for the model with the attention read-out.
        name: "plain", "attention" or "control" (the combine layer fed the fixed last encoder state).

    Raises:
        ValueError: if a weight is missing or has the wrong shape.
    """

    def __init__(self, weights):
        w = {k: np.asarray(v) for k, v in weights.items()}
        need = ["src_words", "tgt_words", "src_embedding", "tgt_embedding", "enc_W_ih", "enc_W_hh", "enc_b",
                "dec_W_ih", "dec_W_hh", "dec_b", "out_W", "out_b"]
        missing = [k for k in need if k not in w]
        if missing:
            raise ValueError(f"weights is missing {missing}")
        self.source_vocab = Vocab(w["src_words"].tolist())
        self.target_vocab = Vocab(w["tgt_words"].tolist())
        kinds = [k for k, key in COMBINE_KEYS.items() if key and f"{key}_W" in w]
        if len(kinds) > 1:
            raise ValueError(f"weights holds the combine layers of both {kinds}")
        self.name = kinds[0] if kinds else "plain"
        self.attention = self.name == "attention"
        self._combine = COMBINE_KEYS[self.name]
        f = {k: v.astype(np.float64) for k, v in w.items() if k not in ("src_words", "tgt_words")}
        H = f["enc_W_hh"].shape[1]
        E = f["src_embedding"].shape[1]
        shapes = {"src_embedding": (len(self.source_vocab), E), "tgt_embedding": (len(self.target_vocab), E),
                  "enc_W_ih": (4 * H, E), "enc_W_hh": (4 * H, H), "enc_b": (4 * H,),
                  "dec_W_ih": (4 * H, E), "dec_W_hh": (4 * H, H), "dec_b": (4 * H,),
                  "out_W": (len(self.target_vocab), H), "out_b": (len(self.target_vocab),)}
        if self._combine:
            shapes.update({f"{self._combine}_W": (H, 2 * H), f"{self._combine}_b": (H,)})
        for k, shape in shapes.items():
            if f[k].shape != shape:
                raise ValueError(f"weights[{k!r}] must have shape {shape}, got {f[k].shape}")
        self.params = f
        # The encoder and decoder cells are chapter 9's LSTM (trained in PyTorch's stacked
        # layout, gate order i, f, g, o, its g our candidate block c; its single bias is our b).
        # Checked here, once: encode and step then run chapter 9's unchecked kernel at every word.
        self.encoder_cell, _, _ = check_weights(lstm_weights_from_stacked(f["enc_W_ih"], f["enc_W_hh"], f["enc_b"]),
                                                LSTM_BLOCKS, "LSTM")
        self.decoder_cell, _, _ = check_weights(lstm_weights_from_stacked(f["dec_W_ih"], f["dec_W_hh"], f["dec_b"]),
                                                LSTM_BLOCKS, "LSTM")
        self.hidden_size = H
        self.summary_size = 2 * H
        #: How many numbers were learned: every weight array except the training log.
        self.parameter_count = int(sum(v.size for k, v in f.items() if k != "loss_per_epoch"))
        self.bos_id = self.target_vocab.bos_id
        self.eos_id = self.target_vocab.eos_id

    # ----------------------------------------------------------------- encoder
    def _source_ids(self, source_words):
        ids = self.source_vocab.ids_of(source_words)
        if not ids:
            raise ValueError("source_words must contain at least one word")
        return ids

    def encode(self, source_words) -> Encoding:
        """Read the English sentence and return every hidden state and the summary (chapter 12).

        Args:
            source_words: list of English words (or one string), all in the source vocabulary.

        Returns:
            :class:`Encoding` with ``states`` (T, H) and the summary ``h``, ``c`` (H,).

        Raises:
            ValueError: for an empty sentence or an unknown word (named).
        """
        p = self.params
        H = self.hidden_size
        h, c = np.zeros(H), np.zeros(H)
        states = []
        for i in self._source_ids(source_words):
            h, c, _ = _lstm_step(h, c, p["src_embedding"][i], self.encoder_cell)
            states.append(h)
        return Encoding(np.array(states), h, c)

    def summary(self, source_words) -> np.ndarray:
        """The summary vector ``s = [h_T; c_T]``, shape (2H,): all the decoder gets from the plain model."""
        enc = self.encode(source_words)
        return np.concatenate([enc.h, enc.c])

    # ----------------------------------------------------------------- decoder
    def decoder_start(self, source_words) -> DecoderState:
        """Encode the source and return the decoder's first state (the summary, and the encoder's states).

        Args and errors as :meth:`encode`.
        """
        enc = self.encode(source_words)
        return DecoderState(enc.h, enc.c, enc.states)

    def _check_read(self, read: str) -> str:
        if read not in READS:
            raise ValueError(f"read must be one of {READS}, got {read!r}")
        if read != "all" and not self.attention:
            raise ValueError(f"read={read!r} needs the attention model; the {self.name} model reads no encoder states")
        return read

    def step(self, state: DecoderState, token_id: int, read: str = "all"):
        """One decoder step: read the previous target word, return log-probabilities of the next.

        Args:
            state: a :class:`DecoderState` from :meth:`decoder_start` or an earlier step.
            token_id: id of the previous target word (``bos_id`` at the first step).
            read: which encoder states the attention model may read, one of :data:`READS`
                ("all", as trained; the others are test-time changes of the trained model, chapter 14).

        Returns:
            (log_probs, new_state): log_probs has shape (V,) for the V target words and
            ``exp(log_probs)`` sums to 1; new_state is a :class:`DecoderState`.

        Raises:
            ValueError: if ``token_id`` is not an id of the target vocabulary, or ``read`` is not one of
                :data:`READS` (or not "all" for a model without attention).
        """
        if isinstance(token_id, (bool, np.bool_)) or not isinstance(token_id, (int, np.integer)) \
                or not 0 <= token_id < len(self.target_vocab):
            raise ValueError(f"token_id must be a whole number in [0, {len(self.target_vocab)}), got {token_id!r}")
        if read != "all":
            self._check_read(read)
        p = self.params
        h, c, _ = _lstm_step(state.h, state.c, p["tgt_embedding"][token_id], self.decoder_cell)
        weights = None
        if self.attention:
            weights = attention_weights(state.memory @ h, read)
            m = weights @ state.memory                      # the read m_t
        elif self._combine:
            m = state.memory[-1]                            # the control: the last encoder state, at every step
        if self._combine:
            o = np.tanh(p[f"{self._combine}_W"] @ np.concatenate([h, m]) + p[f"{self._combine}_b"])
        else:
            o = h
        log_probs = _log_softmax(p["out_W"] @ o + p["out_b"])
        return log_probs, DecoderState(h, c, state.memory, weights)

    # ----------------------------------------------------------------- whole sentences
    def step_model(self, source_words, read: str = "all"):
        """The decoder of one source sentence as chapter 13's :class:`mwm.decoding.StepModel`.

        Greedy decoding, beam search and sampling in :mod:`mwm.decoding` run on it directly.

        Args and errors as :meth:`encode`; ``read`` as in :meth:`step`.
        """
        from .decoding import StepModel

        read = self._check_read(read)
        step = self.step if read == "all" else (lambda state, token_id: self.step(state, token_id, read))
        # checked=False: this step returns normalised log-probabilities by construction, so the
        # decoders skip their per-step check of a step's output.
        return StepModel(step, self.decoder_start(source_words), self.bos_id, self.eos_id, checked=False)

    def translate(self, source_words, max_words: int = 80, return_weights: bool = False, read: str = "all"):
        """Translate greedily, feeding back its own words (free running), until ``<end>``.

        Uses :func:`mwm.decoding.greedy_decode` (chapter 13) on :meth:`step_model`.

        Args:
            source_words: English words (list or string).
            max_words: the most Hindi words written before ``<end>`` is forced (>= 1).
            return_weights: also return the attention weights, shape (words + 1, T), one
                row per decoder step including the one that wrote ``<end>``
                (attention model only; None for the plain model).
            read: which encoder states the attention model may read (:data:`READS`; chapter 14).

        Returns:
            list of Hindi words (without ``<end>``), or (words, weights).

        Raises:
            ValueError: as :meth:`encode`, for ``max_words`` below 1, or for a ``read`` :meth:`step` refuses.
        """
        from .decoding import greedy_decode

        max_words = positive_int(max_words, "max_words")
        best = greedy_decode(self.step_model(source_words, read), max_length=max_words + 1)
        ids = [t for t in best.tokens if t != self.eos_id]
        words = self.target_vocab.words_of(ids)
        if not return_weights:
            return words
        if not self.attention:
            return words, None
        state, weights = self.decoder_start(source_words), []
        for prev in [self.bos_id] + ids:  # replay the decoder on its own words to read its weights
            _, state = self.step(state, prev, read)
            weights.append(state.weights)
        return words, np.array(weights)

    def teacher_forced(self, source_words, target_words):
        """Run the decoder with the true previous word fed in at every step (teacher forcing).

        Args:
            source_words: English words; target_words: the reference Hindi words.

        Returns:
            (guesses, log_probs): guesses is the list of the decoder's best next word at
            each of the len(target) + 1 steps (the last should be ``<end>``); log_probs
            (len(target) + 1,) holds ln p(true next word) at each step.

        Raises:
            ValueError: for unknown words, as :meth:`encode`.
        """
        targets = self.target_vocab.ids_of(target_words) + [self.eos_id]
        state = self.decoder_start(source_words)
        fed = [self.bos_id] + targets[:-1]
        guesses, lps = [], []
        for prev, true in zip(fed, targets):
            log_probs, state = self.step(state, prev)
            guesses.append(int(np.argmax(log_probs)))
            lps.append(log_probs[true])
        return self.target_vocab.words_of(guesses), np.array(lps)


# --------------------------------------------------------------------------- the bottleneck in numbers
def attention_weights(scores, read: str = "all") -> np.ndarray:
    """The attention weights over the encoder states from their scores, when the decoder may read only some.

    "all" is the trained model's softmax of every score (chapter 14); "last", "first half" and
    "second half" take the softmax over those states only and give the others weight 0 (the
    middle word of a sentence of odd length is in both halves); "equal weights"
    gives every state 1/T whatever its score.

    Args:
        scores: the scores e_tj = h_t . h^enc_j, shape (T,), T >= 1, finite.
        read: one of :data:`READS`.

    Returns:
        weights, shape (T,): non-negative, summing to 1.

    Raises:
        ValueError: if ``scores`` is not a non-empty 1-D array of finite numbers, or ``read`` is not in :data:`READS`.
    """
    if read not in READS:
        raise ValueError(f"read must be one of {READS}, got {read!r}")
    e = np.asarray(scores, dtype=float)
    if e.ndim != 1 or e.size == 0 or not np.all(np.isfinite(e)):
        raise ValueError(f"scores must be a non-empty 1-D array of finite numbers, got shape {e.shape}")
    if read == "all":
        return _softmax(e)
    T = e.size
    if read == "equal weights":
        return np.full(T, 1.0 / T)
    keep = {"last": slice(T - 1, T), "first half": slice(0, (T + 1) // 2), "second half": slice(T // 2, T)}[read]
    weights = np.zeros(T)
    weights[keep] = _softmax(e[keep])
    return weights


def numbers_in(n_words: int, word_size: int) -> int:
    """How many numbers a sentence pours into the encoder: ``n_words * word_size`` (chapter 12).

    Example:
        >>> numbers_in(5, 8), numbers_in(50, 8), numbers_in(40, 100)
        (40, 400, 4000)

    Raises:
        ValueError: if either argument is not a whole number >= 1.
    """
    return positive_int(n_words, "n_words") * positive_int(word_size, "word_size")


def _fraction(value, name="beta"):
    value = as_scalar(value, name)
    if not 0 < value < 1:
        raise ValueError(f"{name} must be strictly between 0 and 1, got {value}")
    return value


def leaky_summary(word_vectors, beta=0.9) -> np.ndarray:
    """The toy linear encoder of the leaky-summary proof: ``h_t = β h_{t-1} + x_t``, ``h_0 = 0`` (chapter 12).

    Args:
        word_vectors: x_1..x_n, shape (n, d) with n >= 1.
        beta: β, the fraction of the previous state kept at each step, 0 < β < 1.

    Returns:
        array (n, d): h_1..h_n; the last is the summary s. In closed form ``h_n = sum_k β^(n-k) x_k``.

    Raises:
        ValueError: for an empty or non-2-D input, or ``beta`` outside (0, 1).
    """
    e = as_array(word_vectors, "word_vectors", ndim=2)
    if e.shape[0] == 0:
        raise ValueError("word_vectors must hold at least one word")
    beta = _fraction(beta)
    h = np.zeros(e.shape[1])
    out = np.empty_like(e)
    for t, x in enumerate(e):
        h = beta * h + x
        out[t] = h
    return out


def first_word_weight(n_words: int, beta=0.9) -> float:
    """How strongly word 1 still speaks in the leaky summary of ``n_words`` words: ``β^(n-1)`` (chapter 12).

    Example (β = 0.9):
        >>> [round(first_word_weight(n), 4) for n in (5, 6, 20, 40, 50)]
        [0.6561, 0.5905, 0.1351, 0.0164, 0.0057]

    Raises:
        ValueError: for ``n_words`` below 1 or ``beta`` outside (0, 1).
    """
    return _fraction(beta) ** (positive_int(n_words, "n_words") - 1)


def first_length_below(threshold=0.01, beta=0.9) -> int:
    """The shortest sentence whose word 1 speaks below ``threshold``: the least n with β^(n-1) < threshold.

    Since β^(n-1) < threshold exactly when n - 1 > ln(threshold) / ln(β) (ln β < 0), this
    is ``floor(ln threshold / ln β) + 2`` (chapter 12). Example: ln 0.01 / ln 0.9 = 43.7;
    0.9^43 = 0.0108, 0.9^44 = 0.0097:

        >>> first_length_below(0.01, 0.9)
        45

    Raises:
        ValueError: if ``threshold`` or ``beta`` is not strictly between 0 and 1.
    """
    threshold, a = _fraction(threshold, "threshold"), _fraction(beta)
    n = int(np.floor(np.log(threshold) / np.log(a))) + 2
    while n > 1 and a ** (n - 2) < threshold:  # guard against rounding in the logarithms
        n -= 1
    while a ** (n - 1) >= threshold:
        n += 1
    return n


def load_translator(name: str = "plain", path=None) -> Translator:
    """Load a committed translator: "plain" (one summary), "attention" or "control" (chapter 14).

    Args:
        name: "plain", "attention" or "control".
        path: another weight file to load instead (optional).

    Returns:
        :class:`Translator`.

    Raises:
        ValueError: for an unknown name.
    """
    if path is None:
        if name not in WEIGHT_FILES:
            raise ValueError(f"name must be one of {sorted(WEIGHT_FILES)}, got {name!r}")
        path = WEIGHT_FILES[name]
    with np.load(path, allow_pickle=False) as data:
        return Translator({k: data[k] for k in data.files})


def save_weights(path, arrays) -> None:
    """Write a translator's arrays to an ``.npz`` file byte for byte reproducibly (chapter 12).

    The translator's format of :func:`mwm.npz.save_npz`: members sorted by name, deflated,
    file mode 0644 (the committed ``data/translator_*.npz`` were written so).

    Args:
        path: the file to write.
        arrays: mapping name -> array (numeric or str).

    Raises:
        ValueError: as :func:`mwm.npz.save_npz`.
    """
    save_npz(path, arrays, compress=True, sort=True, file_mode=0o644)


def load_test_outputs(path=None):
    """Read the committed test-set translations (``data/translator_test_outputs.tsv``).

    Returns:
        list of dicts with keys "source", "reference", "plain", "attention", "control", each a list of words.
    """
    path = TEST_OUTPUTS_FILE if path is None else Path(path)
    rows = []
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    for line in lines[1:]:
        rows.append({k: v.split() for k, v in zip(header, line.split("\t"), strict=True)})  # a row with a missing or extra field: stop, do not misfile
    return rows


def _read_tsv(path):
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:]]


def load_train_outputs(path=None):
    """Read the committed translations of a sample of training pairs (``data/translator_train_outputs.tsv``).

    ``scripts/translate_test_set.py`` draws the sample with :func:`sample_by_bucket` and
    translates it greedily with the three models, as it does the test set (chapter 14).

    Returns:
        list of dicts: "row" (int, the pair's index in ``load_pairs("train")``), "source",
        "reference" (from the training corpus) and "plain", "attention", "control", each a list of words.
    """
    from .translation_corpus import load_pairs

    pairs = load_pairs("train")
    rows = []
    for r in _read_tsv(TRAIN_OUTPUTS_FILE if path is None else path):
        i = int(r.pop("row"))
        rows.append({"row": i, "source": list(pairs[i][0]), "reference": list(pairs[i][1]),
                     **{k: v.split() for k, v in r.items()}})
    return rows


def sample_by_bucket(lengths, buckets, per_bucket: int, seed: int) -> list[int]:
    """A seeded sample of indices: ``per_bucket`` of them (or all, if fewer) from each length bucket.

    Args:
        lengths: the source length of every pair; buckets: (low, high) ranges, inclusive;
        per_bucket: how many to draw from each (>= 1); seed: for ``np.random.default_rng``.

    Returns:
        the sorted list of drawn indices (each drawn once).
    """
    per_bucket = positive_int(per_bucket, "per_bucket")
    rng = np.random.default_rng(seed)
    lengths = np.asarray(lengths)
    chosen = []
    for low, high in buckets:
        members = np.flatnonzero((lengths >= low) & (lengths <= high))
        chosen += rng.choice(members, min(per_bucket, len(members)), replace=False).tolist()
    return sorted(chosen)


def load_teacher_forced(path=None):
    """Read chapter 14's committed teacher-forced results (``data/translator_teacher_forced.tsv``).

    One row per test sentence of 30 or more English words: "row" (its index in the test
    set), "other" (the index of the sentence whose English the "plain_other_source" run
    was given instead) and, per run, a string of 0s and 1s: whether the decoder's best
    guess at each of the first 40 Hindi positions was the reference word.

    Returns:
        list of dicts with "row" and "other" as ints and each run as an int array.
    """
    rows = []
    for r in _read_tsv(TEACHER_FORCED_FILE if path is None else path):
        rows.append({k: int(v) if k in ("row", "other") else np.array([int(c) for c in v]) for k, v in r.items()})
    return rows


def hits_by_position(model: "Translator", source_words, target_words, n_positions: int = 40) -> str:
    """One sentence's teacher-forced hits: "1" where the best guess is the reference word, else "0".

    Covers the first ``n_positions`` positions of ``target_words`` (fewer for a shorter
    reference); summed over sentences this is :func:`accuracy_by_position`.
    """
    guesses, _ = model.teacher_forced(source_words, target_words)
    return "".join("1" if g == r else "0" for g, r in zip(guesses[:n_positions], target_words))


# --------------------------------------------------------------------------- BLEU by sentence length
def length_buckets(width: int = 10, shortest: int = 3, longest: int = 48) -> list[tuple[int, int]]:
    """Ranges of source length for chapter 14's plot: ``shortest``-9, then blocks of ``width`` words.

    Example:
        >>> length_buckets(10)
        [(3, 9), (10, 19), (20, 29), (30, 39), (40, 48)]

    Args:
        width: words per bucket after the first (>= 1); shortest, longest: the corpus's range.

    Returns:
        list of (low, high) pairs, inclusive, covering shortest..longest without gaps.

    Raises:
        ValueError: for a width below 1 or ``shortest`` above 9 or above ``longest``.
    """
    width = positive_int(width, "width")
    shortest, longest = positive_int(shortest, "shortest"), positive_int(longest, "longest")
    if shortest > min(9, longest):
        raise ValueError(f"shortest must be at most 9 and at most longest ({longest}), got {shortest}")
    buckets, low = [(shortest, min(9, longest))], 10
    while low <= longest:
        buckets.append((low, min(low + width - 1, longest)))
        low += width
    return buckets


def bleu_by_length(candidates, references, source_lengths, buckets, max_n: int = 4):
    """Corpus BLEU-``max_n`` of the sentences in each source-length bucket (chapter 14).

    Args:
        candidates: list of N translations (lists of words).
        references: list of N reference translations (one per sentence, lists of words).
        source_lengths: list of N source lengths in words.
        buckets: list of (low, high) inclusive ranges, e.g. from :func:`length_buckets`.
        max_n: the longest n-gram (BLEU-4 by default).

    Returns:
        list of (low, high, count, bleu) with bleu in [0, 1] (``nan`` for an empty bucket).

    Raises:
        ValueError: if the three lists differ in length or are empty.
    """
    from .bleu import corpus_bleu

    n = len(candidates)
    if n == 0 or len(references) != n or len(source_lengths) != n:
        raise ValueError(f"candidates, references and source_lengths must be non-empty and equally long, "
                         f"got {n}, {len(references)}, {len(source_lengths)}")
    out = []
    for low, high in buckets:
        idx = [i for i, L in enumerate(source_lengths) if low <= L <= high]
        score = corpus_bleu([candidates[i] for i in idx], [[references[i]] for i in idx], max_n=max_n) \
            if idx else float("nan")
        out.append((low, high, len(idx), score))
    return out


def accuracy_by_position(model: Translator, pairs, n_positions: int = 40) -> np.ndarray:
    """How often the teacher-forced decoder's best guess is the reference word, at each Hindi position.

    Under teacher forcing every step reads the true history, so a wrong guess at position
    k cannot come from an earlier slip: it mostly says that the needed fact did not reach
    the decoder (imperfect training is the other cause; comparing the plain and the
    attention model on the same pairs separates the two, chapters 12 and 14).

    Args:
        model: a :class:`Translator`.
        pairs: list of (english_words, hindi_words).
        n_positions: how many positions to report (>= 1).

    Returns:
        array (n_positions, 2): column 0 the number of right guesses at position k+1,
        column 1 the number of sentences long enough to have that position.

    Raises:
        ValueError: for an empty ``pairs`` or ``n_positions`` below 1.
    """
    n_positions = positive_int(n_positions, "n_positions")
    if len(pairs) == 0:
        raise ValueError("pairs must not be empty")
    out = np.zeros((n_positions, 2), dtype=int)
    for src, ref in pairs:
        guesses, _ = model.teacher_forced(src, ref)
        for k, (g, r) in enumerate(zip(guesses[:n_positions], ref)):
            out[k] += (g == r, 1)
    return out
