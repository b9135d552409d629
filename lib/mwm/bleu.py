"""Chapter 13: grading a translation with BLEU.

BLEU-N compares a candidate with one or more human references, piece by piece:

* the clipped n-gram precision ``p_n``: of the candidate's n-grams (runs of n words),
  how many also occur in a reference, each n-gram counted at most as often as it
  occurs in the reference that holds it most often
  (``sum_g min(count_cand(g), max_ref count_ref(g)) / sum_g count_cand(g)``);
* the brevity penalty ``BP = exp(min(0, 1 - r/c))`` for a candidate of c words and an
  effective reference length r;
* ``BLEU-N = BP * (p_1 p_2 ... p_N)^(1/N)``, the geometric mean of the precisions.

Chapter 13 writes the precision ``p_n`` as pi_n (π_n, since p is kept for probabilities)
and the lengths c and r as l_out and l_ref (ℓ_out, ℓ_ref; c is the LSTM's cell state, r
the GRU's reset gate): ``BP = exp(min(0, 1 - l_ref / l_out))``.

Conventions (the same as ``sacrebleu`` 2.6.0 with ``tokenize='none'``,
``smooth_method='none'``, ``use_effective_order=False``, and as ``nltk``'s corpus BLEU
without smoothing):

* r is the length of the reference closest in length to the candidate; when two are
  equally close, the shorter one is used.
* For a corpus the counts are summed over all sentences first (matches, n-gram
  totals, candidate lengths c, closest reference lengths r), and only then are the
  precisions, the penalty and the mean formed. A corpus score is therefore not the
  average of sentence scores.
* No smoothing: if any p_n is 0 (no matching n-gram, or a candidate with fewer
  than n words, whose p_n = 0/0 is taken as 0), BLEU is 0.
* An empty candidate (c = 0) has BP = 0 and BLEU 0.
* Scores are fractions in [0, 1] (sacrebleu reports 100 times this).

Text is given either as a string, split on whitespace, or as a sequence of tokens
(strings or token ids; any hashable items). No lower-casing or other tokenisation
is done: that is the caller's choice, as it must be the same for every system compared.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Hashable, Sequence

from ._validate import non_empty, positive_int


def tokens_of(text, name: str = "text") -> tuple:
    """A sentence as a tuple of tokens: a string is split on whitespace, a sequence is kept.

    Args:
        text: a string, or a sequence (list, tuple) of hashable tokens.
        name: the argument's name for error messages.

    Returns:
        tuple of tokens (may be empty).

    Raises:
        ValueError: if ``text`` is neither a string nor a sequence of hashable tokens.
    """
    if isinstance(text, str):
        return tuple(text.split())
    if not isinstance(text, (list, tuple)):
        raise ValueError(f"{name} must be a string or a list of tokens, got {type(text).__name__}")
    for tok in text:
        if isinstance(tok, (list, tuple, set, dict)) or not isinstance(tok, Hashable):
            raise ValueError(f"{name} must be a string or a flat list of tokens, got an item {tok!r}")
    return tuple(text)


def ngrams(tokens, n: int) -> Counter:
    """Count the n-grams (runs of ``n`` consecutive tokens) of a sentence.

    Args:
        tokens: a string (split on whitespace) or a sequence of tokens, length L.
        n: the n-gram order, n >= 1.

    Returns:
        Counter mapping each n-gram (a tuple of n tokens) to how often it occurs;
        max(L - n + 1, 0) n-grams in all.

    Raises:
        ValueError: if ``n`` is not a whole number >= 1 or ``tokens`` is not text.
    """
    n = positive_int(n, "n")
    toks = tokens_of(tokens, "tokens")
    return Counter(toks[i:i + n] for i in range(len(toks) - n + 1))


def _references_of(references, name: str) -> list[tuple]:
    if isinstance(references, str):
        references = [references]
    if not isinstance(references, (list, tuple)):
        raise ValueError(f"{name} must be a reference string or a list of references, got {type(references).__name__}")
    non_empty(references, name)
    return [tokens_of(r, f"{name}[{i}]") for i, r in enumerate(references)]


def clipped_matches(candidate, references, n: int) -> tuple[int, int]:
    """The numerator and denominator of the clipped n-gram precision p_n (chapter 13).

    Each candidate n-gram g counts ``min(count_cand(g), max over references of
    count_ref(g))`` matches: "the the the the" against "the train is running late"
    has 1 matching unigram out of 4.

    Args:
        candidate: a string or a list of tokens.
        references: one reference (a string) or a non-empty list of references
            (each a string or a list of tokens).
        n: the n-gram order, n >= 1.

    Returns:
        (matches, total): ints, 0 <= matches <= total = max(len(candidate) - n + 1, 0).

    Raises:
        ValueError: for a bad ``n``, non-text input or an empty list of references.
    """
    n = positive_int(n, "n")
    cand = ngrams(tokens_of(candidate, "candidate"), n)
    best = Counter()
    for ref in _references_of(references, "references"):
        for g, k in ngrams(ref, n).items():
            best[g] = max(best[g], k)
    matches = sum(min(k, best[g]) for g, k in cand.items())
    return matches, sum(cand.values())


def matched_positions(candidate, references, n: int) -> list[bool]:
    """Which of the candidate's n-grams count as matches after clipping, in order.

    The first ``min(count_cand(g), max_ref count_ref(g))`` occurrences of each n-gram g
    are marked True, later ones False (clipped or absent), so the number of True marks
    is the numerator of :func:`clipped_matches`. For drawing which pieces match.

    Args:
        candidate, references, n: as :func:`clipped_matches`.

    Returns:
        list of max(len(candidate) - n + 1, 0) bools, one per candidate n-gram position.

    Raises:
        ValueError: as :func:`clipped_matches`.
    """
    n = positive_int(n, "n")
    cand = tokens_of(candidate, "candidate")
    allowance = Counter()
    for ref in _references_of(references, "references"):
        for g, k in ngrams(ref, n).items():
            allowance[g] = max(allowance[g], k)
    marks = []
    for i in range(len(cand) - n + 1):
        g = cand[i:i + n]
        marks.append(allowance[g] > 0)
        allowance[g] -= 1
    return marks


def closest_reference_length(candidate_length: int, reference_lengths: Sequence[int]) -> int:
    """The effective reference length r for one candidate: the closest, ties to the shorter.

    Args:
        candidate_length: c >= 0, the candidate's number of tokens.
        reference_lengths: the references' lengths, a non-empty sequence of ints >= 0.

    Returns:
        the reference length minimising |r - c|; among equally close ones, the smallest.

    Raises:
        ValueError: if ``reference_lengths`` is empty.
    """
    non_empty(reference_lengths, "reference_lengths")
    return min(reference_lengths, key=lambda r: (abs(r - candidate_length), r))


def brevity_penalty(candidate_length, reference_length) -> float:
    """BP = exp(min(0, 1 - r/c)): 1 for a candidate at least as long as r, less for a shorter one.

    Args:
        candidate_length: c >= 0 (for a corpus, the summed candidate lengths).
        reference_length: r >= 0 (for a corpus, the summed effective reference lengths).

    Returns:
        float in [0, 1]; 0 when c = 0 (an empty candidate earns nothing).
        Example (chapter 13): c = 4, r = 5 -> e^{-0.25} ~ 0.7788; c = 2, r = 5 -> e^{-1.5} ~ 0.2231.

        >>> round(brevity_penalty(4, 5), 4), round(brevity_penalty(2, 5), 4)
        (0.7788, 0.2231)

    Raises:
        ValueError: if a length is negative or not a whole number.
    """
    for v, name in ((candidate_length, "candidate_length"), (reference_length, "reference_length")):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {v!r}")
    if candidate_length == 0:
        return 0.0
    if candidate_length >= reference_length:
        return 1.0
    return math.exp(1.0 - reference_length / candidate_length)


@dataclass(frozen=True)
class BleuScore:
    """Everything BLEU-N is made of, for one sentence or a whole corpus.

    Attributes:
        score: BLEU-N in [0, 1].
        precisions: (p_1, ..., p_N), each matches[n-1] / totals[n-1] in [0, 1] (0 when totals is 0).
        matches: clipped matching n-gram counts, one per order 1..N.
        totals: the candidate's n-gram counts, one per order 1..N.
        brevity_penalty: BP in [0, 1].
        candidate_length: c, candidate tokens (summed over a corpus).
        reference_length: r, effective reference tokens (summed over a corpus).
        max_n: N.
    """

    score: float
    precisions: tuple
    matches: tuple
    totals: tuple
    brevity_penalty: float
    candidate_length: int
    reference_length: int
    max_n: int

    def __float__(self) -> float:
        return self.score


def _sentence_stats(candidate, references, max_n: int, where: str):
    cand = tokens_of(candidate, f"candidate{where}")
    if (len(cand) > 1 and isinstance(references, (list, tuple)) and len(references) > 1
            and all(isinstance(r, str) and len(r.split()) == 1 for r in references)):
        # A candidate of several words with several one-word "references": almost certainly
        # one tokenised reference passed without its wrapping list.
        raise ValueError(f"references{where} looks like one tokenised reference, not a list of references: "
                         f"wrap it as [reference]")
    refs = _references_of(references, f"references{where}")
    r = closest_reference_length(len(cand), [len(x) for x in refs])
    matched, total = [], []
    for n in range(1, max_n + 1):
        m, t = clipped_matches(cand, refs, n)
        matched.append(m)
        total.append(t)
    return len(cand), r, matched, total


def _combine(c, r, matched, total, max_n) -> BleuScore:
    precisions = tuple(m / t if t else 0.0 for m, t in zip(matched, total))
    bp = brevity_penalty(c, r)
    if bp == 0.0 or min(precisions) == 0.0:
        score = 0.0
    else:
        score = bp * math.exp(sum(math.log(p) for p in precisions) / max_n)
    return BleuScore(score, precisions, tuple(matched), tuple(total), bp, c, r, max_n)


def bleu_details(candidate, references, max_n: int = 4) -> BleuScore:
    """BLEU-N of one sentence with all its pieces: precisions, counts, lengths, brevity penalty (chapter 13).

    Args:
        candidate: a string (split on whitespace) or a list of tokens; may be empty.
        references: one reference string, or a non-empty list of references (each a
            string or a list of tokens). A list of strings is a list of references,
            so pass one tokenised reference as ``[tokens]`` (a candidate of several words
            with several one-word strings as its references raises ``ValueError`` rather
            than read them as one-word references).
        max_n: N, the longest n-gram used, N >= 1 (BLEU-2 in the chapter, BLEU-4 usually).

    Returns:
        :class:`BleuScore`. Example: "the train is late" against "the train is running
        late", N = 2: p = (1, 2/3), BP = e^{-0.25}, score ~ 0.636.

        >>> d = bleu_details("the train is late", "the train is running late", max_n=2)
        >>> [round(p, 4) for p in d.precisions], round(d.brevity_penalty, 4), round(d.score, 3)
        ([1.0, 0.6667], 0.7788, 0.636)

    Raises:
        ValueError: if ``max_n`` < 1, the references are empty, or the text is not text.
    """
    max_n = positive_int(max_n, "max_n")
    c, r, matched, total = _sentence_stats(candidate, references, max_n, "")
    return _combine(c, r, matched, total, max_n)


def sentence_bleu(candidate, references, max_n: int = 4) -> float:
    """BLEU-N of one candidate against its reference(s), a float in [0, 1] (chapter 13).

    Same arguments, conventions and errors as :func:`bleu_details`; returns its ``score``.
    With one sentence, this equals :func:`corpus_bleu` of a one-sentence corpus.
    """
    return bleu_details(candidate, references, max_n).score


def corpus_bleu_details(candidates, references_list, max_n: int = 4, *, streams: bool | None = None) -> BleuScore:
    """Corpus BLEU-N with all its pieces: counts summed over the sentences, then combined.

    Args:
        candidates: a non-empty list of S candidates (each a string or a list of tokens).
        references_list: a list of S entries, entry i holding candidate i's references:
            one reference string, or a non-empty list of references (strings or token lists).
            With ``streams=True``, sacrebleu's layout instead: a list of R reference streams,
            stream j holding every sentence's j-th reference (R lists of S).
        max_n: N >= 1.
        streams: True for sacrebleu's layout, False for one entry per sentence; None (the
            default) reads one entry per sentence, and refuses the one case where the two
            layouts look alike (S > 1 sentences with exactly S references each), rather than
            pair references with the wrong sentences.

    Returns:
        :class:`BleuScore` whose counts and lengths are sums over the S sentences.

    Raises:
        ValueError: if the two lists differ in length or are empty, an entry has no
            reference, ``max_n`` < 1, an item is not text, or the layout is ambiguous (see
            ``streams``), naming the argument.
    """
    max_n = positive_int(max_n, "max_n")
    for v, name in ((candidates, "candidates"), (references_list, "references_list")):
        if isinstance(v, str) or not isinstance(v, (list, tuple)):
            raise ValueError(f"{name} must be a list with one entry per sentence, got {type(v).__name__}")
    non_empty(candidates, "candidates")
    if streams not in (None, True, False):
        raise ValueError(f"streams must be True, False or None, got {streams!r}")
    if streams:
        non_empty(references_list, "references_list")
        for j, stream in enumerate(references_list):
            if isinstance(stream, str) or not isinstance(stream, (list, tuple)) or len(stream) != len(candidates):
                raise ValueError(f"references_list[{j}] must be a stream of {len(candidates)} references (one per "
                                 f"candidate), got {len(stream) if isinstance(stream, (list, tuple)) else stream!r}")
        references_list = [list(refs) for refs in zip(*references_list)]
    elif streams is None and len(candidates) > 1 and all(
            isinstance(refs, (list, tuple)) and len(refs) == len(candidates) for refs in references_list):
        raise ValueError(f"references_list holds {len(candidates)} references for each of {len(candidates)} "
                         "candidates: it reads the same as sacrebleu's layout (one stream per reference). Say which "
                         "it is: streams=False for one entry per candidate, streams=True for sacrebleu's streams")
    if len(candidates) != len(references_list):
        raise ValueError(f"references_list must have one entry per candidate ({len(candidates)}), "
                         f"got {len(references_list)}")
    c = r = 0
    matched, total = [0] * max_n, [0] * max_n
    for i, (cand, refs) in enumerate(zip(candidates, references_list)):
        ci, ri, mi, ti = _sentence_stats(cand, refs, max_n, f"[{i}]")
        c, r = c + ci, r + ri
        matched = [a + b for a, b in zip(matched, mi)]
        total = [a + b for a, b in zip(total, ti)]
    return _combine(c, r, matched, total, max_n)


def corpus_bleu(candidates, references_list, max_n: int = 4, *, streams: bool | None = None) -> float:
    """Corpus BLEU-N in [0, 1]: clipped matches, n-gram totals and lengths summed over all sentences first.

    Matches ``sacrebleu.BLEU(tokenize='none', smooth_method='none', force=True,
    effective_order=False, max_ngram_order=max_n).corpus_score(...).score / 100`` on
    whitespace-tokenised text (tested on random pairs).

    Same arguments and errors as :func:`corpus_bleu_details`; returns its ``score``.
    """
    return corpus_bleu_details(candidates, references_list, max_n, streams=streams).score
