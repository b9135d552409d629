"""Chapter 5: a character language model that learns to talk, then talks.

The model is chapter 5's: 28 symbols (the letters a-z, the space and the full
stop), each fed in as a one-hot vector ``x_t``; chapter 2's cell with a hidden state
of 48 numbers,

    h_t = tanh(W h_{t-1} + U x_t + b),

and chapter 4's read-out, logits ``y_t = V h_t + b_V`` and probabilities
``p_t = softmax(y_t / θ)`` (θ, the temperature, is 1 unless talk asks otherwise),
the model's guess for the character after the t-th. That is
48*48 + 48*28 + 48 + 28*48 + 28 = 5,068 numbers. (The weight file stores the read-out
bias ``b_V`` under the key ``c``; :func:`load_char_lm` maps it.)

A start symbol. Every text the model reads begins with one space, :data:`START`,
read from the zero state; so the first character of a sentence is guessed too, and
"the train to pune is late." costs 26 cross-entropy terms, one per character. (In
training the sentences follow each other after a space, so the space is a natural
"a new sentence begins here".)

Weights come from ``scripts/train_char_lm.py`` (teacher forcing, torch); everything
here is numpy: reading a text, the next-character probabilities, greedy talk with
loop detection, sampling with a random seed and a temperature, and the loss
(cross-entropy) of a text. Temperatures are called ``temperature`` in code and θ in the course.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._validate import as_array, positive_int
from .cell import rnn_forward, rnn_step
from .params import cell_param_count, readout_param_count
from .readout import cross_entropy, one_hot, readout

#: The 28 symbols, in the order of the one-hot inputs and of the read-out's rows.
ALPHABET = "abcdefghijklmnopqrstuvwxyz ."
#: The symbol read first, from the zero state, before any text (the start symbol).
START = " "
#: Numbers in the hidden state of the trained model.
HIDDEN_SIZE = 48
DATA = Path(__file__).resolve().parent / "data"
#: The corpus the model was trained on: one sentence per line.
CORPUS_PATH = DATA / "railway_sentences.txt"
#: Grammatical sentences the model never saw: the corpus's grammar, fillings not in the corpus
#: (``scripts/make_railway_sentences.py`` writes both files); for measuring it on unseen text.
HELDOUT_PATH = DATA / "railway_heldout.txt"
#: The trained weights, written by scripts/train_char_lm.py.
WEIGHTS_PATH = DATA / "char_lm.npz"
#: The weight file's key for each :class:`CharLM` field (the files keep their old key ``c`` for b_V).
FILE_KEYS = {"W": "W", "U": "U", "b": "b", "V": "V", "b_V": "c"}

_INDEX = {ch: i for i, ch in enumerate(ALPHABET)}


def encode(text: str) -> np.ndarray:
    """Turn a text into the indices of its symbols in :data:`ALPHABET` (chapter 5).

    Args:
        text: a string of the 28 symbols (lower-case a-z, space, full stop); may be empty.

    Returns:
        int array of shape (len(text),), each in [0, 28).

    Raises:
        ValueError: naming ``text`` and the first symbol outside the 28.
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    for position, ch in enumerate(text):
        if ch not in _INDEX:
            raise ValueError(f"text may contain only a-z, space and full stop; got {ch!r} at position {position}")
    return np.array([_INDEX[ch] for ch in text], dtype=int)


def decode(ids) -> str:
    """Turn symbol indices back into text; the inverse of :func:`encode`.

    Args:
        ids: a sequence of whole numbers in [0, 28).

    Raises:
        ValueError: if an index is not a whole number in [0, 28).
    """
    ids = np.asarray(ids)
    if ids.size and (ids.ndim != 1 or not np.issubdtype(ids.dtype, np.integer) or ids.min() < 0
                     or ids.max() >= len(ALPHABET)):
        raise ValueError(f"ids must be whole numbers in [0, {len(ALPHABET)}), got {ids.tolist()}")
    return "".join(ALPHABET[i] for i in ids.tolist())


def load_corpus(path=None) -> list[str]:
    """The course's railway corpus, one sentence per list item (chapter 5).

    Args:
        path: a text file with one sentence per line; default :data:`CORPUS_PATH`.

    Returns:
        list of sentences, each made of the 28 symbols and ending in a full stop.

    Raises:
        ValueError: if a line contains a symbol outside the 28.
    """
    lines = Path(path or CORPUS_PATH).read_text(encoding="ascii").splitlines()
    for line in lines:
        encode(line)
    return [line for line in lines if line]


def char_lm_param_count(hidden_size: int = HIDDEN_SIZE, symbols: int = len(ALPHABET)) -> int:
    """Numbers learned by the character model: the cell's ``H(H+K)+H`` plus the read-out's ``KH+K`` (chapter 5).

    Args:
        hidden_size: H, numbers in the hidden state (>= 1). symbols: K, the number of symbols (>= 1).

    Returns:
        int; 5,068 for H = 48 and K = 28 symbols.
    """
    return cell_param_count(hidden_size, symbols) + readout_param_count(hidden_size, symbols)


@dataclass(frozen=True)
class CharLM:
    """The weights of a character language model (chapter 5).

    Attributes:
        W: recurrent matrix, (H, H). U: input matrix, (H, 28). b: bias, (H,).
        V: read-out matrix, (28, H). b_V: read-out bias, (28,).
        Each is the model's own read-only float copy of the array given.

    Raises:
        ValueError: on construction, if a shape disagrees (naming the argument).
    """
    W: np.ndarray
    U: np.ndarray
    b: np.ndarray
    V: np.ndarray
    b_V: np.ndarray

    def __post_init__(self):
        n_sym = len(ALPHABET)
        W = as_array(self.W, "W", ndim=2)
        h = W.shape[0]
        checked = {"W": as_array(W, "W", shape=(h, h)), "U": as_array(self.U, "U", shape=(h, n_sym)),
                   "b": as_array(self.b, "b", shape=(h,)), "V": as_array(self.V, "V", shape=(n_sym, h)),
                   "b_V": as_array(self.b_V, "b_V", shape=(n_sym,))}
        for name, value in checked.items():
            value = value.copy()           # the model's own, read-only copy: the caller's arrays stay writable
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def hidden_size(self) -> int:
        """H, the number of numbers in the hidden state."""
        return self.W.shape[0]


    @property
    def cell(self) -> dict:
        """The recurrent cell's weights ``{"W", "U", "b"}``, as :func:`mwm.rnn_step` takes them."""
        return {"W": self.W, "U": self.U, "b": self.b}

    @property
    def size(self) -> int:
        """How many numbers the model has learned (5,068 for the trained model)."""
        return sum(getattr(self, n).size for n in FILE_KEYS)




def load_char_lm(path=None) -> CharLM:
    """Load the trained weights written by ``scripts/train_char_lm.py`` (chapter 5).

    Args:
        path: an ``.npz`` file with arrays W, U, b, V and c (the file's key for b_V,
            :data:`FILE_KEYS`); default :data:`WEIGHTS_PATH`.

    Returns:
        :class:`CharLM` in float64.

    Raises:
        ValueError: if an array is missing or has the wrong shape. FileNotFoundError if there is no file.
    """
    with np.load(path or WEIGHTS_PATH, allow_pickle=False) as data:
        missing = [key for key in FILE_KEYS.values() if key not in data.files]
        if missing:
            raise ValueError(f"path must hold arrays W, U, b, V and c; missing {missing}")
        return CharLM(**{field: data[key].astype(float) for field, key in FILE_KEYS.items()})


def _check_model(model) -> CharLM:
    if not isinstance(model, CharLM):
        raise ValueError(f"model must be a CharLM (see load_char_lm), got {type(model).__name__}")
    return model


def lm_step(model: CharLM, h_prev, symbol: int, temperature=1.0):
    """Read one symbol and guess the next: chapter 2's step, then chapter 4's read-out (chapter 5).

    Args:
        model: a :class:`CharLM`.
        h_prev: the hidden state before this symbol, shape (H,).
        symbol: index of the symbol read, in [0, 28).
        temperature: θ > 0 for ``softmax((V h + b_V) / θ)``.

    Returns:
        (h, probs, cache): the new hidden state, shape (H,); the next symbol's probabilities,
        shape (28,); and the cell's cache (the dict h_prev, x, h of :func:`mwm.rnn_step`)
        for a backward step.

    Raises:
        ValueError: for a wrong shape, a symbol outside [0, 28) or θ <= 0.
    """
    model = _check_model(model)
    x = one_hot(symbol, len(ALPHABET))
    h, cache = rnn_step(h_prev, x, model.cell)
    return h, readout(h, model.V, model.b_V, temperature), cache


def lm_forward(model: CharLM, text: str, temperature=1.0):
    """Read :data:`START` and then ``text`` with teacher forcing; every step's guess (chapter 5).

    Args:
        model: a :class:`CharLM`.
        text: a string of the 28 symbols (may be empty).
        temperature: θ > 0.

    Returns:
        (probs, hs): ``probs`` has shape (len(text) + 1, 28); row t is the guess for
        ``text[t]`` made after reading START + text[:t], and the last row is the guess
        for the character after the whole text. ``hs`` (same length, H numbers each)
        are the hidden states the guesses were read from.

    Raises:
        ValueError: for a symbol outside the 28 or θ <= 0.
    """
    model = _check_model(model)
    ids = np.concatenate([encode(START), encode(text)])
    hs, _ = rnn_forward(np.eye(len(ALPHABET))[ids], model.cell)
    return readout(hs, model.V, model.b_V, temperature), hs


def next_char_probs(model: CharLM, text: str, temperature=1.0) -> np.ndarray:
    """The model's probabilities for the character after ``text`` (the bars of chapter 5).

    Returns:
        array of shape (28,), in the order of :data:`ALPHABET`, summing to 1.

    Raises:
        ValueError: as :func:`lm_forward`.
    """
    return lm_forward(model, text, temperature)[0][-1]


def text_cross_entropy(model: CharLM, text: str) -> np.ndarray:
    """Each character's cross-entropy ``-ln p(true next)`` under teacher forcing, in nats (chapter 5).

    Their sum is the text's loss, and also ``-ln P(text)`` by the chain rule of probability.

    Args:
        model: a :class:`CharLM`. text: at least one of the 28 symbols.

    Returns:
        array of shape (len(text),), each >= 0.

    Raises:
        ValueError: for an empty text or a symbol outside the 28.
    """
    ids = encode(text)
    if ids.size == 0:
        raise ValueError("text must contain at least one character to be scored")
    probs, _ = lm_forward(model, text)
    return cross_entropy(probs[:-1], ids)




@dataclass(frozen=True)
class Talk:
    """What the model wrote (chapter 5).

    Attributes:
        prompt: the text it was given. generated: what it wrote after it.
        loop_start: for greedy talk that fell into a loop, the index in :attr:`text`
            where the repeated block first begins; None otherwise.
        loop_period: the length of that block, in characters; None if no loop.
    """
    prompt: str
    generated: str
    loop_start: int | None = None
    loop_period: int | None = None


    @property
    def text(self) -> str:
        """The prompt followed by what the model wrote."""
        return self.prompt + self.generated

    @property
    def looped(self) -> bool:
        """True if the talk stopped because it was repeating itself."""
        return self.loop_period is not None


def find_loop(text: str, min_period: int = 8):
    """Does ``text`` end with one block written twice in a row? (greedy talk's loop, chapter 5)

    Args:
        text: any string.
        min_period: shortest block that counts (>= 1), so that "ll" in "will" is no loop.

    Returns:
        (start, period) of the first copy for the shortest such block, or None.

    Raises:
        ValueError: if ``min_period`` is not a whole number >= 1.
    """
    min_period = positive_int(min_period, "min_period")
    for period in range(min_period, len(text) // 2 + 1):
        if text[-period:] == text[-2 * period:-period]:
            return len(text) - 2 * period, period
    return None


def _rng(seed):
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0 or a numpy Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def _talk(model, prompt, max_chars, pick, stop, temperature=1.0):
    """Write up to ``max_chars`` symbols: pick one from the guess, feed it back in, ask ``stop``."""
    model = _check_model(model)
    max_chars = positive_int(max_chars, "max_chars")
    probs, hs = lm_forward(model, prompt, temperature)
    h, p = hs[-1], probs[-1]
    out = []
    for _ in range(max_chars):
        symbol = pick(p)
        out.append(ALPHABET[symbol])
        result = stop(prompt + "".join(out))
        if result is not None:
            return "".join(out), result
        h, p, _ = lm_step(model, h, symbol, temperature)
    return "".join(out), None


def talk_greedy(model: CharLM, prompt: str, max_chars: int = 300, min_period: int = 8) -> Talk:
    """Talk greedily: always write the top character, feed it back in, until the text loops (chapter 5).

    Greedy talk is deterministic: once the last ``min_period`` or more characters
    repeat the block before them, the talk stops and reports the loop.

    Args:
        model: a :class:`CharLM`. prompt: the text to start from (28 symbols; may be empty).
        max_chars: most characters to write (>= 1).
        min_period: shortest repeated block counted as a loop (see :func:`find_loop`).

    Returns:
        :class:`Talk`, with ``loop_start`` and ``loop_period`` set if it looped.

    Raises:
        ValueError: for a bad prompt, max_chars or min_period.
    """
    positive_int(min_period, "min_period")
    generated, loop = _talk(model, prompt, max_chars, lambda p: int(np.argmax(p)),
                            lambda text: find_loop(text, min_period))
    return Talk(prompt, generated, *(loop or (None, None)))


def talk_sample(model: CharLM, prompt: str, temperature=1.0, seed=1, sentences: int = 2,
                max_chars: int = 200) -> Talk:
    """Talk by sampling: draw every character from the model's probabilities, feed it back in (chapter 5).

    Each character is drawn from ``softmax((V h + b_V) / θ)``: θ < 1 favours the top
    characters (θ -> 0 is greedy), θ > 1 gives long shots a chance (θ -> infinity is a
    uniform draw from the 28 symbols). The same random ``seed`` always draws the same way.
    Each draw takes one ``rng.random()`` number u and writes the first symbol whose
    cumulative probability exceeds u: the rule ``rng.choice(28, p=p)`` follows, so a loop
    that calls it with the same Generator writes the same characters (unless u falls
    within rounding of a boundary; tests/test_ch05_machinery.py checks 200 talks).

    Args:
        model: a :class:`CharLM`. prompt: the text to start from.
        temperature: θ > 0.
        seed: the random seed (a whole number >= 0) ``numpy.random.default_rng`` starts
            from, or a Generator.
        sentences: stop after this many full stops have been written (>= 1).
        max_chars: stop after this many characters in any case (>= 1).

    Returns:
        :class:`Talk` (never a loop: sampling is not checked for loops).

    Raises:
        ValueError: for θ <= 0 (naming ``temperature``), a bad seed, prompt or count.
    """
    sentences = positive_int(sentences, "sentences")
    rng = _rng(seed)

    def draw(p):
        cumulative = np.cumsum(p)
        side = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
        return min(side, len(p) - 1)

    def enough(text):
        return True if text[len(prompt):].count(".") >= sentences else None

    generated, _ = _talk(model, prompt, max_chars, draw, enough, temperature)
    return Talk(prompt, generated)
