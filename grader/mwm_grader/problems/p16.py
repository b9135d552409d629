"""Problem 16, BLEU-2 (chapter 13): clipped precisions, the brevity penalty, and score against meaning."""
from __future__ import annotations

from .base import Answer, Part, Problem
from .texts import Text


def same_meaning(kept: str, reference: str) -> dict[str, str]:
    """Problem 16's words of the same meaning: what the candidate ``kept`` says -> what the reference says.

    The words of ``kept`` that the reference lacks are paired, in order, with the reference's words that
    ``kept`` lacks (one with one when they are as many, else as two phrases: "once more" -> "again",
    "stationmaster" -> "station master"); a word added alone is read with the word before it ("opens up"
    -> "opens"). A plain reordering gives ``{}``.

    Args:
        kept: the candidate that keeps the reference's meaning. reference: the reference (words split on spaces).

    Returns:
        dict str -> str, for :func:`read_as_reference`.

    Raises:
        ValueError: if ``kept`` only drops words of the reference (nothing then says what they mean).
    """
    from collections import Counter

    words, ref = kept.split(), reference.split()
    extra = list((Counter(words) - Counter(ref)).elements())
    missing = list((Counter(ref) - Counter(words)).elements())
    if not extra and not missing:
        return {}
    if extra and not missing:
        i = words.index(extra[0])
        if i > 0:      # with the word before: "opens up" -> "opens"
            return {" ".join(words[i - 1:i + len(extra)]): words[i - 1]}
        return {" ".join(words[:len(extra) + 1]): words[len(extra)]}
    if not extra:
        raise ValueError(f"problem 16: {kept!r} only drops words of {reference!r}; it cannot keep the meaning")
    if len(extra) == len(missing):
        return dict(zip(extra, missing))
    return {" ".join(extra): " ".join(missing)}


def read_as_reference(sentence: str, same: dict[str, str]) -> list[str]:
    """The words of ``sentence``, sorted, each phrase of ``same`` read as the reference's (problem 16 (d)).

    The worked solution of 16 (d) does the same, in the student's notebook.
    """
    for said, meant in same.items():
        sentence = f" {sentence} ".replace(f" {said} ", f" {meant} ")
    return sorted(sentence.split())


def build(n) -> Problem:
    """Problem 16, BLEU-2 (chapter 13): clipped precisions, the brevity penalty, and score against meaning; its
    words are ``p16.md.j2``.

    Args:
        n: ``dict(reference, candidates, keeps_meaning)``: a sentence, three candidates keyed "A", "B", "C"
            (parts (a)-(c)), and the key of the one that keeps the reference's meaning.

    Returns:
        Problem with answers ``pi1_*``, ``pi2_*``, ``bp_*``, ``bleu_*`` per candidate, ``keeps_meaning``,
        ``scores_highest`` and ``bleu_judges_meaning``; the notebook is given ``reference``, ``candidates`` and
        ``same_meaning`` (:func:`same_meaning`: the words the meaning-keeping candidate says differently).

    Raises:
        KeyError: if a number is missing. ValueError: if, with ``same_meaning`` read in, not exactly the
        candidate ``keeps_meaning`` has the reference's words.
    """
    from mwm.bleu import bleu_details, matched_positions

    ref, cands = n["reference"], n["candidates"]
    names = list(cands)
    scores = {k: bleu_details(c, ref, max_n=2) for k, c in cands.items()}
    top = max(names, key=lambda k: scores[k].score)
    ref_words = ref.split()
    ref_pairs = [" ".join(ref_words[i:i + 2]) for i in range(len(ref_words) - 1)]

    def ticked(cand, order):
        """The candidate's pieces of ``order`` words, each with whether it counts after clipping."""
        words = cand.split()
        pieces = [" ".join(words[i:i + order]) for i in range(len(words) - order + 1)]
        return list(zip(pieces, matched_positions(cand, ref, order)))

    # the candidate that keeps the meaning: its words shared with the reference in another order, or
    # in the same order with a word swapped for one that means the same
    kept_words = cands[n["keeps_meaning"]].split()
    shared = [w for w in kept_words if w in ref_words]
    how_kept = "in other words" if shared == [w for w in ref_words if w in shared] else "in another order"
    same = same_meaning(cands[n["keeps_meaning"]], ref)
    keeping = [k for k in names if read_as_reference(cands[k], same) == sorted(ref_words)]
    if keeping != [n["keeps_meaning"]]:
        raise ValueError(f"problem 16: read with the words of the same meaning {same}, the candidates with the "
                         f"reference's words are {keeping}, not just keeps_meaning {n['keeps_meaning']!r}")

    text = Text(16, reference=ref, ref_words=ref_words, ref_pairs=ref_pairs, candidates=cands, names=names,
                first=names[0], scores=scores, ticked={k: {1: ticked(c, 1), 2: ticked(c, 2)} for k, c in cands.items()},
                keeps_meaning=n["keeps_meaning"], scores_highest=top, how_kept=how_kept, same_meaning=same)
    parts = [Part(letter, text("question", k=k),
                  [Answer(f"pi1_{k}", "number", scores[k].precisions[0], what="a number"),
                   Answer(f"pi2_{k}", "number", scores[k].precisions[1], what="a number"),
                   Answer(f"bp_{k}", "number", scores[k].brevity_penalty, what="a number"),
                   Answer(f"bleu_{k}", "number", scores[k].score, what="a number")],
                  text("solution", k=k), points=2)
             for letter, k in zip("abc", names)]
    parts.append(Part(
        "d", text("question_d"),
        [Answer("keeps_meaning", "choice", n["keeps_meaning"], options=tuple(names), what="a letter"),
         Answer("scores_highest", "choice", top, options=tuple(names), what="a letter"),
         Answer("bleu_judges_meaning", "bool", False, what="True or False")],
        text("solution_d"), points=2))
    return Problem(16, text("title"), "hard", text("practises"), statement=text("statement"), given=text("given"),
                   parts=parts, steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
