"""Problem 16, BLEU-2 (chapter 13): clipped precisions, the brevity penalty, and score against meaning."""
from __future__ import annotations


from .base import Answer, Part, Problem, and_list, fmt, lit, num


#: The worked solution of problem 16 (a): how BLEU-2's pieces are counted, used again in (b) and (c).
BLEU_HELPERS = """\
# Clipped counts: a word (or pair) of the candidate counts at most as often as the reference has it.
from collections import Counter

def pieces(sentence, n):
    words = sentence.split()
    return Counter(' '.join(words[i:i + n]) for i in range(len(words) - n + 1))

def precision(candidate, n):
    mine, theirs = pieces(candidate, n), pieces(reference, n)
    return sum(min(count, theirs[piece]) for piece, count in mine.items()) / sum(mine.values())

def brevity_penalty(candidate):
    return min(1.0, np.exp(1 - len(reference.split()) / len(candidate.split())))

"""


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
    """Problem 16, BLEU-2 (chapter 13): clipped precisions, the brevity penalty, and score against meaning.

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
    r = len(ref.split())
    ref_words = ref.split()
    ref_pairs = [" ".join(ref_words[i:i + 2]) for i in range(r - 1)]

    def ticks(cand, order):
        words = cand.split()
        pieces = [" ".join(words[i:i + order]) for i in range(len(words) - order + 1)]
        marks = matched_positions(cand, ref, order)
        return ", ".join(f"“{p}” {'✓' if m else '✗'}" for p, m in zip(pieces, marks))

    def frac(m, t):
        return f"{m}/{t}"

    def share(m, t):
        """A precision inside the square root: 0.75 when short, else the fraction 6/7."""
        s = num(m / t)
        return s if len(s.partition(".")[2]) <= 4 else frac(m, t)

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
    first = names[0]

    steps = [f"**List what the reference offers.** Its {r} words, {', '.join(ref_words)} ($\\ell_{{\\text{{ref}}}}={r}$), and its pairs: "
             + ", ".join(f"“{p}”" for p in ref_pairs) + "."]
    parts = []
    for letter, k in zip("abc", names):
        sc = scores[k]
        c = sc.candidate_length
        bp_factor = f"{fmt(sc.brevity_penalty)}\\cdot " if c < r else ""
        lo, lr = "\\ell_{\\text{out}}", "\\ell_{\\text{ref}}"
        bp_text = (f"${lo}={lr}={r}$, so $\\mathrm{{BP}}=1$" if c == r else
                   f"${lo}={c}>{lr}={r}$, so $\\mathrm{{BP}}=1$" if c > r else
                   f"${lo}={c}<{lr}={r}$, so $\\mathrm{{BP}}=e^{{1-{r}/{c}}}\\approx {fmt(sc.brevity_penalty)}$")
        steps.append(
            f"**({letter}) Candidate {k}.** Words: {ticks(cands[k], 1)}: $\\pi_1={frac(sc.matches[0], sc.totals[0])}$. "
            f"Pairs: {ticks(cands[k], 2)}: $\\pi_2={frac(sc.matches[1], sc.totals[1])}$. {bp_text}. "
            f"BLEU-2 $={bp_factor}\\sqrt{{{share(sc.matches[0], sc.totals[0])}\\cdot {share(sc.matches[1], sc.totals[1])}}}"
            f"\\approx {fmt(sc.score)}$.")
        parts.append(Part(
            letter, f"Candidate {k}: “{cands[k]}”. Its $\\pi_1$, $\\pi_2$, brevity penalty and BLEU-2, to four "
                    f"decimals. Store them in `pi1_{k}`, `pi2_{k}`, `bp_{k}`, `bleu_{k}`.",
            [Answer(f"pi1_{k}", "number", sc.precisions[0], what="a number"),
             Answer(f"pi2_{k}", "number", sc.precisions[1], what="a number"),
             Answer(f"bp_{k}", "number", sc.brevity_penalty, what="a number"),
             Answer(f"bleu_{k}", "number", sc.score, what="a number")],
            (BLEU_HELPERS if k == first else f"# As for candidate {first}: clipped precisions, brevity penalty, BLEU-2.\n")
            + f"pi1_{k}, pi2_{k} = precision(candidates[{k!r}], 1), precision(candidates[{k!r}], 2)\n"
            f"bp_{k} = brevity_penalty(candidates[{k!r}])\n"
            f"bleu_{k} = bp_{k} * np.sqrt(pi1_{k} * pi2_{k})\n"
            f"print(round(pi1_{k}, 4), round(pi2_{k}, 4), round(bp_{k}, 4), round(bleu_{k}, 4))"))
    steps.append(
        f"**(d) Meaning against score.** Only {n['keeps_meaning']} says what the reference says, {how_kept}"
        + (f" (reading {and_list([f'“{a}” as “{b}”' for a, b in same.items()])})" if same else "")
        + "; the others change a fact or drop one. "
        f"Yet {top} scores highest (" + ", ".join(f"{k} ${fmt(scores[k].score)}$" for k in names) + "): "
        "BLEU counts the words and pairs a candidate shares with the reference; a wrong word costs one word "
        "and a pair or two, whatever it does to the meaning.")
    parts.append(Part(
        "d", "Which candidate keeps the meaning of the reference, and which scores highest? "
             + (f"Take {and_list([f'“{a}” to mean “{b}”' for a, b in same.items()])}, as `same_meaning` says. "
                if same else "")
             + "Store the letters in "
             "`keeps_meaning` and `scores_highest`. Does a single sentence's BLEU tell you whether its meaning is "
             "right? Store `True` or `False` in `bleu_judges_meaning`.",
        [Answer("keeps_meaning", "choice", n["keeps_meaning"], options=tuple(names), what="a letter"),
         Answer("scores_highest", "choice", top, options=tuple(names), what="a letter"),
         Answer("bleu_judges_meaning", "bool", False, what="True or False")],
        "# A candidate keeps the meaning if, its words read as same_meaning says, it has the reference's\n"
        "# words, in any order; the others change a fact or drop one.\n"
        "def read_as_reference(sentence):\n"
        "    for said, meant in same_meaning.items():\n"
        "        sentence = f' {sentence} '.replace(f' {said} ', f' {meant} ')\n"
        "    return sorted(sentence.split())\n"
        "keeps_meaning = next(k for k, c in candidates.items() if read_as_reference(c) == sorted(reference.split()))\n"
        "bleus = {" + ", ".join(f"{k!r}: bleu_{k}" for k in names) + "}\n"
        "scores_highest = max(bleus, key=bleus.get)\n"
        "bleu_judges_meaning = False   # it counts shared pieces, not meaning\n"
        "print(keeps_meaning, scores_highest, bleu_judges_meaning)", points=2))
    for p in parts[:3]:
        p.points = 2
    return Problem(
        16, "BLEU-2", "hard", "precision with clipped counts, a penalty for short candidates, and a "
                              "geometric mean",
        statement=(
            f"The reference translation is “{ref}”. Score three candidates with BLEU-2: "
            "$\\mathrm{BLEU}\\text{-}2=\\mathrm{BP}\\cdot\\sqrt{\\pi_1\\,\\pi_2}$, where $\\pi_1$ and $\\pi_2$ are the "
            "candidate's clipped precisions of single words and of pairs of neighbouring words, and "
            "$\\mathrm{BP}=\\min(1, e^{1-\\ell_{\\text{ref}}/\\ell_{\\text{out}}})$ for a candidate of "
            "$\\ell_{\\text{out}}$ words and a reference of $\\ell_{\\text{ref}}$."),
        given=f"reference = {ref!r}\ncandidates = {lit(cands)}\nsame_meaning = {lit(same)}",
        parts=parts, steps=steps,
        remember=("BLEU-2 is $\\mathrm{BP}\\cdot\\sqrt{\\pi_1\\pi_2}$: clip the counts, penalise short candidates, "
                  "and read a single sentence's score as a count of shared pieces, never as a verdict on "
                  "its meaning; the score earns trust only when it is averaged over a whole test set."),
        numbers=n)
