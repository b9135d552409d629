"""Chapter 1: three ways to turn a sentence into numbers.

* a bag of words, which adds up (or counts) the words and so forgets their order;
* a window of the last ``m`` words, which keeps local order but forgets the past;
* a running state (the hidden state), which turns the previous state with a matrix ``W``
  before adding each new word, so that every position leaves its own mark:
  ``h_t = W @ h_{t-1} + x_t``.

The toy word vectors of chapter 1 are :data:`TOY_VECTORS`: dog (1, 0), man (0, 1),
bites (1, 1).
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Mapping, Sequence

import numpy as np

from ._validate import as_array, as_scalar, positive_int

#: The course's hand-made two-number word vectors (chapter 1). Not trained.
TOY_VECTORS: dict[str, np.ndarray] = {
    "dog": np.array([1.0, 0.0]),
    "man": np.array([0.0, 1.0]),
    "bites": np.array([1.0, 1.0]),
}

_WORD = re.compile(r"[a-z0-9']+")


def words_of(sentence) -> list[str]:
    """Split a sentence into lower-case words, dropping punctuation.

    Args:
        sentence: a string such as ``"Dog bites man."``, or a list of words (returned
            lower-cased).

    Returns:
        list of str, in reading order.

    Raises:
        ValueError: if ``sentence`` is neither a string nor a sequence of strings.
    """
    if isinstance(sentence, str):
        return _WORD.findall(sentence.lower())
    if isinstance(sentence, Sequence) and all(isinstance(w, str) for w in sentence):
        return [w.lower() for w in sentence]
    raise ValueError(f"sentence must be a string or a list of words, got {type(sentence).__name__}")


def word_counts(sentence) -> Counter:
    """The bag of words as counts: how often each word occurs, order ignored (chapter 1, idea 1).

    Args:
        sentence: a string or a list of words.

    Returns:
        collections.Counter mapping word -> count.
    """
    return Counter(words_of(sentence))


def _vectors_for(words: list[str], vectors: Mapping[str, object], name: str) -> np.ndarray:
    if len(words) == 0:
        raise ValueError(f"{name} must contain at least one word")
    missing = [w for w in words if w not in vectors]
    if missing:
        raise ValueError(f"{name} has words with no vector: {missing}; known words: {sorted(vectors)}")
    rows = [as_array(vectors[w], f"vectors[{w!r}]", ndim=1) for w in words]
    d = rows[0].shape[0]
    for w, r in zip(words, rows):
        if r.shape != (d,):
            raise ValueError(f"vectors[{w!r}] must have shape ({d},) like the others, got {r.shape}")
    return np.stack(rows)


def bag_of_words(sentence, vectors: Mapping[str, object] = TOY_VECTORS) -> np.ndarray:
    """Add up the word vectors of a sentence: the bag of words as a sum (chapter 1, idea 1).

    Args:
        sentence: a string or a list of words, every one a key of ``vectors``.
        vectors: word -> vector of length d (default: :data:`TOY_VECTORS`, d = 2).

    Returns:
        array of shape (d,). Any reordering of the words gives the same sum.

    Raises:
        ValueError: if the sentence is empty or has a word without a vector.
    """
    return _vectors_for(words_of(sentence), vectors, "sentence").sum(axis=0)


def window(sentence, n: int) -> list[str]:
    """The last ``n`` words of a sentence: what a fixed-window reader sees (chapter 1, idea 2).

    A window of n words is what an n-gram model conditions on (chapter 1; n as in chapter 13's n-grams).

    Args:
        sentence: a string or a list of words.
        n: the window's length in words, a whole number >= 1.

    Returns:
        list of at most ``n`` words, the newest last.

    Raises:
        ValueError: if ``n`` is not a whole number of at least 1.
    """
    n = positive_int(n, "n")
    return words_of(sentence)[-n:]


def turn_matrix(degrees) -> np.ndarray:
    """The 2 x 2 matrix that turns a state by ``degrees`` anticlockwise (chapter 1).

    A quarter turn (90) sends (a, b) to (-b, a); a half turn (180) to (-a, -b);
    0 leaves the state alone, which makes the running state a plain sum.

    Args:
        degrees: angle in degrees, any finite real number.

    Returns:
        array of shape (2, 2).
    """
    phi = np.deg2rad(as_scalar(degrees, "degrees"))
    c, s = np.cos(phi), np.sin(phi)
    # Snap the tiny round-off of cos(90 degrees) and friends to exact zeros and ones.
    c, s = (float(np.round(v, 15)) for v in (c, s))
    return np.array([[c, -s], [s, c]])


def running_state(sentence, W, vectors: Mapping[str, object] = TOY_VECTORS, start=None) -> np.ndarray:
    """Read a sentence word by word: turn the previous state with ``W``, then add the word (chapter 1, idea 3).

    ``h_t = W @ h_{t-1} + x_t`` with ``x_t`` the vector of word t, starting from
    ``start`` (zeros by default). Unrolled over three words the final state is
    ``W^2 x_1 + W x_2 + x_3``: each position wears its own stamp.

    Args:
        sentence: a string or a list of words, every one a key of ``vectors``.
        W: array of shape (d, d), the turn applied to the previous state before each word.
        vectors: word -> vector of length d (default: :data:`TOY_VECTORS`).
        start: the state before the first word, h_0, shape (d,); zeros if None.

    Returns:
        array of shape (T, d): the hidden state after each of the T words (the last row
        is the final state).

    Raises:
        ValueError: if the sentence is empty, has an unknown word, or ``W`` / ``start``
            do not match the vectors' length d.
    """
    xs = _vectors_for(words_of(sentence), vectors, "sentence")
    d = xs.shape[1]
    W = as_array(W, "W", shape=(d, d))
    h = np.zeros(d) if start is None else as_array(start, "start", shape=(d,))
    states = []
    for x in xs:
        h = W @ h + x
        states.append(h)
    return np.array(states)


