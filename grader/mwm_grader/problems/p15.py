"""Problem 15, greedy against beam (chapter 13): an output's probability as a product, the B best kept."""
from __future__ import annotations

import math

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 15, greedy against beam (chapter 13): an output's probability as a product, the B best kept.

    Its words are in ``p15.md.j2``.

    Args:
        n: ``dict(first, second, beam_width)``: ``first`` maps first words to probabilities, ``second`` maps
            each first word to its next words' probabilities (every node summing to 1), a whole beam width.

    Returns:
        Problem with answers ``greedy_words``, ``greedy_prob``, ``beam_words``, ``beam_prob``, ``greedy_log``,
        ``beam_log``.

    Raises:
        ValueError (from mwm): if a node's probabilities do not sum to 1 or lie outside [0, 1].
    """
    from mwm.decoding import ProbabilityTree, beam_search, exhaustive_search, greedy_decode

    first, second, k = n["first"], n["second"], n["beam_width"]
    tree = ProbabilityTree({(): first, **{(w,): nxt for w, nxt in second.items()}})
    greedy = greedy_decode(tree.model)
    beam = beam_search(tree.model, k, trace=True)
    outputs = exhaustive_search(tree.model, max_length=3)
    options = tuple(sorted(tree.words(h.tokens) for h in outputs))   # alphabetical: the order gives nothing away
    g_words, g_prob = tree.words(greedy.tokens), greedy.probability
    b_words, b_prob = tree.words(beam.best.tokens), beam.best.probability
    kept_first = [tree.words(c.tokens) for c in beam.steps[0] if c.kept]
    grown = [(tree.words(c.tokens), math.exp(c.log_prob)) for c in beam.steps[1]]
    kept = [(w, dict(grown)[w]) for (w, _), c in zip(grown, beam.steps[1]) if c.kept]
    text = Text(15, first=first, second=second, beam_width=k, greedy_words=g_words, greedy_prob=g_prob,
                greedy_log=greedy.log_prob, beam_words=b_words, beam_prob=b_prob, beam_log=beam.best.log_prob,
                kept_first=kept_first, grown=grown, kept=kept)
    return Problem(
        15, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
        parts=[
            Part("a", text("question_a"),
                 [Answer("greedy_words", "choice", g_words, options=options, what="a string of two words"),
                  Answer("greedy_prob", "number", g_prob, what="a number")],
                 text("solution_a")),
            Part("b", text("question_b"),
                 [Answer("beam_words", "choice", b_words, options=options, what="a string of two words"),
                  Answer("beam_prob", "number", b_prob, what="a number")],
                 text("solution_b")),
            Part("c", text("question_c"),
                 [Answer("greedy_log", "number", greedy.log_prob, decimals=3, what="a number"),
                  Answer("beam_log", "number", beam.best.log_prob, decimals=3, what="a number")],
                 text("solution_c")),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
