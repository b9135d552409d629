"""Problem 7, truncated backprop through time (chapter 6): which links a chunked run can learn."""
from __future__ import annotations

from .base import Answer, Part, Problem, lit


def build(n) -> Problem:
    """Problem 7, truncated backprop through time (chapter 6): which links a chunked run can learn.

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
    (a1, a2), (b1, b2) = n["pair_across"], n["pair_inside"]
    chunks = chunk_count(T, tau)
    m, first, last = chunk_of(t, tau)
    learn = [chunk_of(a1, tau)[0] == chunk_of(a2, tau)[0], chunk_of(b1, tau)[0] == chunk_of(b2, tau)[0]]
    full, longest = T - 1, tau - 1     # steps from the last character to the first; inside one chunk
    cases = tuple(((TT, tt), chunk_count(TT, tt))
                  for TT, tt in [(10, 3), (T, tau), (T + 1, tau), (7, 7), (1, 5), (999, 10)])

    def say(pair, ok):
        i, j = pair
        mi, mj = chunk_of(i, tau)[0], chunk_of(j, tau)[0]
        if ok:
            lo, hi = chunk_of(i, tau)[1:]
            return f"Characters {i} and {j} share chunk {mi} (characters {lo} to {hi}), so that dependence is learnable."
        return (f"Character {i} sits in chunk {mi}, character {j} in chunk {mj}; the cut after character "
                f"{chunk_of(i, tau)[2]} separates them, and that dependence cannot be learned.")

    yes_no = lambda ok: "yes" if ok else "no"  # noqa: E731
    return Problem(
        7, "Truncated backprop through time", "medium", "which links a truncated run can learn, and which it cannot",
        statement=(
            f"For truncated BPTT, a text of $T={T}$ characters is cut into chunks of $\\tau={tau}$ characters: "
            f"characters 1 to {tau}, then {tau + 1} to {2 * tau}, and so on. The hidden state flows on across the "
            "cuts; the gradient does not."),
        given=f"T, tau = {T}, {tau}\ngrad_from = {t}\n"
              f"pair_1, pair_2 = {lit(list(n['pair_across']))}, {lit(list(n['pair_inside']))}",
        parts=[
            Part("a", "Write a Python function `n_chunks(T, tau)` that counts the chunks a text of $T$ characters "
                      "is cut into, and store its value for this text in `chunks`.",
                 [Answer("n_chunks", "function", None, decimals=None, cases=cases, n_args=2, what="a function",
                         signature="n_chunks(T, tau)", formula="\\lceil T/\\tau\\rceil"),
                  Answer("chunks", "integer", chunks, what="a whole number")],
                 "# ceil(T / tau): whole chunks, and one more for a leftover piece.\n"
                 "def n_chunks(T, tau):\n    return -(-T // tau)\n"
                 "chunks = n_chunks(T, tau)\nprint(chunks)", points=2),
            Part("b", f"The gradient of the loss at character {t} travels back towards the start of the text. "
                      "Which is the earliest character it reaches? Store that character's number in "
                      "`reaches_back_to`.",
                 [Answer("reaches_back_to", "integer", first, what="a whole number")],
                 "# Find the chunk of the character; its gradient stops at the chunk's first character.\n"
                 "chunk = -(-grad_from // tau)\nreaches_back_to = (chunk - 1) * tau + 1\n"
                 "print(chunk, reaches_back_to)"),
            Part("c", f"Could this run learn that character {a2} depends on character {a1}? That character "
                      f"{b2} depends on character {b1}? Store `True` or `False` in `learn_pair_1` and "
                      "`learn_pair_2`.",
                 [Answer("learn_pair_1", "bool", learn[0], what="True or False"),
                  Answer("learn_pair_2", "bool", learn[1], what="True or False")],
                 "# A link can be learned only if both characters sit in the same chunk.\n"
                 "same_chunk = lambda i, j: -(-i // tau) == -(-j // tau)\n"
                 "learn_pair_1 = same_chunk(*pair_1)\nlearn_pair_2 = same_chunk(*pair_2)\n"
                 "print(learn_pair_1, learn_pair_2)"),
            Part("d", "Without truncation, the gradient from the final character's loss would travel all the way "
                      "to character 1. "
                      "How many steps is that trip, and how many steps is the longest trip in the truncated run? "
                      "Store them in `full_steps` and `truncated_steps`.",
                 [Answer("full_steps", "integer", full, what="a whole number"),
                  Answer("truncated_steps", "integer", longest, what="a whole number")],
                 "# From character T back to 1 is T - 1 steps; inside a chunk at most tau - 1.\n"
                 "full_steps = T - 1\ntruncated_steps = tau - 1\nprint(full_steps, truncated_steps)"),
        ],
        steps=[
            f"**(a) Count the chunks.** $\\lceil T/\\tau\\rceil$ chunks; here $\\lceil {T}/{tau}\\rceil={chunks}$.",
            f"**(b) Find the chunk.** Character {t} is in chunk $\\lceil {t}/{tau}\\rceil={m}$, which holds "
            f"characters {first} to {last}. Its gradient gets as far as character {first}, {t - first} steps "
            "back, and the cut stops it there.",
            f"**(c) Same chunk or not.** {say((a1, a2), learn[0])} {say((b1, b2), learn[1])} "
            f"So: {yes_no(learn[0])}, then {yes_no(learn[1])}.",
            f"**(d) Walk lengths.** Full BPTT goes from character {T} back to character 1: {full} steps. "
            f"Truncated, the longest walk stays inside one chunk: at most $\\tau-1={longest}$ steps.",
        ],
        remember=("Cutting the walk into chunks keeps each update cheap, at a price: only dependences that fit "
                  "inside one chunk can be learned. The hidden state, though, still carries everything before it "
                  "forward."),
        numbers=n)
