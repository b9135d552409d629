"""Problem 15, greedy against beam (chapter 13): an output's probability as a product, the B best kept."""
from __future__ import annotations

import math


from .base import Answer, Part, Problem, and_list, fmt, lit, num


def build(n) -> Problem:
    """Problem 15, greedy against beam (chapter 13): an output's probability as a product, the B best kept.

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
    kept = [w for (w, _), c in zip(grown, beam.steps[1]) if c.kept]

    def after(w):
        return ", ".join(f"“{x}” ${num(p)}$" for x, p in second[w].items())

    g1 = g_words.split()[0]
    by_hand = ("# By hand: keep the beam_width likeliest first words, grow each by every next word, and keep the\n"
               "# beam_width likeliest outputs. The course's beam search does the same on the tree of probabilities:\n")
    return Problem(
        15, "Greedy against beam", "medium", "an output's probability as a product, and keeping the $B$ best",
        statement=(
            "A decoder writes a two-word output. For the first word it offers "
            + ", ".join(f"“{w}” ${num(p)}$" for w, p in first.items()) + ". "
            + " ".join(f"After “{w}” it offers {after(w)}." for w in second)
            + " The output ends after its second word."),
        given=f"first = {lit(first)}\nsecond = {lit(second)}\nbeam_width = {k}",
        parts=[
            Part("a", "What does greedy decoding write, and with what probability (four decimals)? Store the two "
                      "words as one string in `greedy_words` and the probability in `greedy_prob`.",
                 [Answer("greedy_words", "choice", g_words, options=options, what="a string of two words"),
                  Answer("greedy_prob", "number", g_prob, what="a number")],
                 "# Greedy: the likeliest first word, then the likeliest word after it.\n"
                 "w1 = max(first, key=first.get)\nw2 = max(second[w1], key=second[w1].get)\n"
                 "greedy_words, greedy_prob = f'{w1} {w2}', first[w1] * second[w1][w2]\n"
                 "print(greedy_words, round(greedy_prob, 4))"),
            Part("b", f"What does beam search of width $B={k}$ write, and with what probability (four decimals)? "
                      "Store them in `beam_words` and `beam_prob`.",
                 [Answer("beam_words", "choice", b_words, options=options, what="a string of two words"),
                  Answer("beam_prob", "number", b_prob, what="a number")],
                 by_hand
                 + "from mwm.decoding import ProbabilityTree, beam_search\n"
                 "tree = ProbabilityTree({(): first, **{(w,): nxt for w, nxt in second.items()}})\n"
                 "best = beam_search(tree.model, beam_width).best\n"
                 "beam_words, beam_prob = tree.words(best.tokens), best.probability\n"
                 "print(beam_words, round(beam_prob, 4))"),
            Part("c", "The log-probabilities (natural logarithms of the two outputs' probabilities), three decimals. "
                      "Store them in `greedy_log` and `beam_log`.",
                 [Answer("greedy_log", "number", greedy.log_prob, decimals=3, what="a number"),
                  Answer("beam_log", "number", beam.best.log_prob, decimals=3, what="a number")],
                 "greedy_log, beam_log = np.log(greedy_prob), np.log(beam_prob)\n"
                 "print(round(greedy_log, 3), round(beam_log, 3))"),
        ],
        steps=[
            f"**(a) Greedy.** It takes “{g1}” (${num(first[g1])}$), then the likeliest word after it, "
            f"“{g_words.split()[1]}” (${num(second[g1][g_words.split()[1]])}$): "
            f"${num(first[g1])}\\times {num(second[g1][g_words.split()[1]])}={fmt(g_prob, 2)}$.",
            f"**(b) Grow the beam.** The {k} first words kept are " + and_list([f"“{w}”" for w in kept_first])
            + ". Growing each by every next word gives: " + ", ".join(f"“{w}” ${fmt(p, 2)}$" for w, p in grown) + ".",
            f"**(b) Prune to {k}.** The most probable are " + " and ".join(f"“{w}” (${fmt(dict(grown)[w], 2)}$)" for w in kept)
            + f". The winner is “{b_words}”.",
            f"**(c) Log-probabilities.** $\\ln {fmt(g_prob, 2)}\\approx {fmt(greedy.log_prob, 3)}$ and "
            f"$\\ln {fmt(b_prob, 2)}\\approx {fmt(beam.best.log_prob, 3)}$.",
        ],
        remember=("Greedy decoding commits to the likeliest first word and never reconsiders, even when a "
                  "runner-up would be followed by a far more certain second word. Keeping several candidates "
                  "alive, as the beam does, is how that better whole output gets found."),
        numbers=n)
