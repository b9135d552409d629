"""Problem 7, truncated backprop through time (chapter 6): which links a chunked run can learn."""
from __future__ import annotations

from .base import Answer, Part, Problem
from .texts import Text


def build(n) -> Problem:
    """Problem 7, truncated backprop through time (chapter 6): which links a chunked run can learn; its words are
    ``p07.md.j2``.

    Args:
        n: ``dict(length, tau, grad_from, pair_across, pair_inside)``: whole numbers >= 1, the pairs (i, j)
            with i < j (the builder asks about them as pair 1 and pair 2).

    Returns:
        Problem with answers ``n_chunks`` (a function, checked on cases), ``chunks``, ``reaches_back_to``,
        ``learn_pair_1``, ``learn_pair_2`` (bools), ``full_steps``, ``truncated_steps``.

    Raises:
        ValueError (from mwm): if a number is not a whole number >= 1. KeyError: if a number is missing.
    """
    from mwm.bptt import chunk_count, chunk_of

    T, tau, t = n["length"], n["tau"], n["grad_from"]
    chunks = chunk_count(T, tau)
    m, first, last = chunk_of(t, tau)
    pairs = []
    for i, j in (n["pair_across"], n["pair_inside"]):
        (chunk_i, lo, hi), chunk_j = chunk_of(i, tau), chunk_of(j, tau)[0]
        pairs.append(dict(i=i, j=j, chunk_i=chunk_i, chunk_j=chunk_j, first=lo, last=hi, learn=chunk_i == chunk_j))
    learn = [p["learn"] for p in pairs]
    full, longest = T - 1, tau - 1     # steps from the last character to the first; inside one chunk
    cases = tuple(((TT, tt), chunk_count(TT, tt))
                  for TT, tt in [(10, 3), (T, tau), (T + 1, tau), (7, 7), (1, 5), (999, 10)])
    text = Text(7, T=T, tau=tau, grad_from=t, pair_across=n["pair_across"], pair_inside=n["pair_inside"],
                chunks=chunks, chunk=m, reaches_back_to=first, chunk_last=last, pairs=pairs, full_steps=full,
                truncated_steps=longest)
    return Problem(
        7, text("title"), "medium", text("practises"), statement=text("statement"), given=text("given"),
        parts=[
            Part("a", text("question_a"),
                 [Answer("n_chunks", "function", None, decimals=None, cases=cases, n_args=2, what="a function",
                         signature="n_chunks(T, tau)", formula="\\lceil T/\\tau\\rceil"),
                  Answer("chunks", "integer", chunks, what="a whole number")],
                 text("solution_a"), points=2),
            Part("b", text("question_b"), [Answer("reaches_back_to", "integer", first, what="a whole number")],
                 text("solution_b")),
            Part("c", text("question_c"),
                 [Answer("learn_pair_1", "bool", learn[0], what="True or False"),
                  Answer("learn_pair_2", "bool", learn[1], what="True or False")],
                 text("solution_c")),
            Part("d", text("question_d"),
                 [Answer("full_steps", "integer", full, what="a whole number"),
                  Answer("truncated_steps", "integer", longest, what="a whole number")],
                 text("solution_d")),
        ],
        steps=text.paragraphs("steps"), remember=text("remember"), numbers=n)
