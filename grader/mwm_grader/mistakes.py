"""The mistakes catalogue: for each part, the wrong answers that common slips give, from a student's own numbers.

A wrong answer on its own teaches little ("h2 is not right"). Most wrong answers come from a
few slips: the weights swapped, the bias forgotten, a log in the wrong base, the counts not
clipped. For each part, this module lists those slips as :class:`Mistake` entries. Each one
computes the value the slip gives *with the submission's own numbers*. When a wrong answer
matches one of them (within the answer's tolerance), the feedback names the slip. It never
gives the expected value.

* :func:`catalogue` builds a problem's entries: part letter -> list of :class:`Mistake`.
* :func:`usable` drops, for one student's numbers, an entry that would mislead. That is an
  entry whose value is the right answer itself, or is also another entry's value for the
  same answer.
* :func:`named_mistake` is what the judge (:mod:`mwm_grader.judge`) calls on a wrong answer.
  The student's kernel applies the same rule (:func:`mwm_practice.notebook.named_slip`) to the
  usable entries a view carries (:mod:`mwm_grader.views`), for the parts it checks.

Each entry keeps the answer cell that a student making the slip would write (``code``).
``tests/test_mistakes.py`` runs that cell on many students' numbers and hands its values
in through the judge. The judge must name exactly that slip, never name one for a right
answer, and never show the expected value in a hint. The catalogue as a table (each slip,
how its value is computed, the hint shown) is ``exercises/mistakes.md``, written by
``make exercises``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from mwm_practice.notebook import matches, named_slip

__all__ = ["Mistake", "BUILDERS", "catalogue", "usable", "named_mistake", "matches", "catalogue_markdown"]



@dataclass(frozen=True)
class Mistake:
    """One common slip in one part, and the values it gives with one student's numbers.

    Attributes:
        key: a short name, unique within the part (``"w-u-swapped"``); the class report counts by it.
        hint: what the feedback says when an answer matches: one or two sentences naming the slip,
            never a number of the answer.
        how: how the wrong value is computed, in the problem's notation (for the catalogue page).
        code: the answer cell as a student making the slip would write it (Python, reading the
            given variables and the earlier parts' right answers, setting the part's answers).
        values: answer name -> the value the slip gives (only the answers the slip changes).
    """

    key: str
    hint: str
    how: str
    code: str
    values: dict[str, Any]


#: problem number -> function(problem) -> {part letter: [Mistake, ...]}
BUILDERS: dict[int, Callable[[Any], dict[str, list[Mistake]]]] = {}


def catalogue(problem) -> dict[str, list[Mistake]]:
    """Every catalogue entry of a built problem, unfiltered: part letter -> list of :class:`Mistake`.

    Args:
        problem: a :class:`~mwm_grader.problems.Problem`, built with a student's numbers
            (its ``numbers`` and its answers' expected values are read).

    Returns:
        dict; a part without entries is absent. A problem without a catalogue gives ``{}``.
    """
    builder = BUILDERS.get(problem.number)
    return builder(problem) if builder else {}


def _right_results(answer) -> list:
    return [want for _args, want in answer.cases]


def usable(problem, part) -> dict[str, list[Mistake]]:
    """The entries of ``part`` that can name a slip for this problem's numbers: answer name -> [Mistake].

    An entry is left out for an answer when its value there is the right answer (within the
    tolerance) or is also the value of another entry of the part for that answer: a match
    would not tell which slip was made.

    Args:
        problem: the built :class:`~mwm_grader.problems.Problem`.
        part: one of its :class:`~mwm_grader.problems.Part`.

    Returns:
        dict answer name -> the usable entries (in catalogue order); answers without one are absent.
    """
    entries = catalogue(problem).get(part.letter, [])
    found: dict[str, list[Mistake]] = {}
    for answer in part.answers:
        right = _right_results(answer) if answer.kind == "function" else answer.expected
        candidates = [m for m in entries if answer.name in m.values]
        keep = []
        for m in candidates:
            target = m.values[answer.name]
            if matches(answer, target, right):
                continue
            if any(o is not m and matches(answer, target, o.values[answer.name]) for o in candidates):
                continue
            keep.append(m)
        if keep:
            found[answer.name] = keep
    return found


def named_mistake(problem, part, answer, value) -> Mistake | None:
    """The catalogue entry a wrong answer matches, or None.

    The same rule as the student's kernel applies to a view's slips
    (:func:`mwm_practice.notebook.named_slip`), here with the entries :func:`usable` keeps.

    Args:
        problem, part, answer: the built problem, the part and the answer being checked.
        value: the student's value, decoded (for a function answer: the list of its calls'
            results on the answer's cases).

    Returns:
        the one usable :class:`Mistake` whose value for ``answer`` matches ``value``, or None
        (no match, or the value is right).
    """
    slips = [(m, m.values[answer.name]) for m in usable(problem, part).get(answer.name, [])]
    found = named_slip(answer, value, slips)
    return None if found is None else found[0]


def catalogue_markdown(problems) -> str:
    """The catalogue as Markdown: one table per problem (part, slip, how its value is computed, hint).

    Args:
        problems: built :class:`~mwm_grader.problems.Problem` objects (the website's numbers).

    Returns:
        str, ending with a newline; the count of parts with at least one entry is in its first paragraph.
    """
    n_parts = sum(len(p.parts) for p in problems)
    covered = sum(1 for p in problems for q in p.parts if catalogue(p).get(q.letter))
    out = ["# The mistakes catalogue", "",
           f"For {covered} of the {n_parts} parts, the grader knows common slips. Each slip's value is computed "
           "from the student's own numbers. When a wrong answer matches one, the feedback names the slip "
           "(the hint below), never the expected value. A slip whose value equals the right answer, or another "
           "slip's value, for a student's numbers is not used for that student. Written by `make exercises` "
           "from `grader/mwm_grader/mistakes.py`.", ""]
    for p in problems:
        entries = catalogue(p)
        if not entries:
            continue
        out += [f"## Problem {p.number}. {p.title}", "", "| part | slip | how its value is computed | hint shown |",
                "|---|---|---|---|"]
        for q in p.parts:
            for m in entries.get(q.letter, []):
                cells = [f"({q.letter}) {', '.join(f'`{k}`' for k in m.values)}", f"`{m.key}`", m.how, m.hint]
                out.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
        out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------------------
# The entries, problem by problem. Each builder reads the problem's numbers and its right
# answers, and computes every slip's value with numpy: the slips are ours, not the library's.
# --------------------------------------------------------------------------------------
def _entries(number: int):
    """Register the decorated function as problem ``number``'s catalogue builder."""
    def register(builder):
        BUILDERS[number] = builder
        return builder
    return register


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-np.asarray(a, dtype=float)))


@_entries(1)
def _problem_1(problem) -> dict[str, list[Mistake]]:
    """Problem 1: h_t = tanh(w h_{t-1} + u x_t + b), one number."""
    n = problem.numbers
    w, u, b, h0, xs = n["w"], n["u"], n["b"], n["h0"], n["xs"]
    hs = [a.expected for part in problem.parts for a in part.answers]
    out = {}
    for t, part in enumerate(problem.parts):
        name, prev, prev_name, x = f"h{t + 1}", ([h0, *hs])[t], "h0" if t == 0 else f"h{t}", xs[t]
        entries = [
            Mistake("w-u-swapped", "It looks like w and u were swapped: w multiplies the old hidden state, u the input.",
                    f"$\\tanh(u\\,h_{{{t}}} + w\\,x_{{{t + 1}}} + b)$",
                    f"{name} = np.tanh(u * {prev_name} + w * xs[{t}] + b)",
                    {name: float(np.tanh(u * prev + w * x + b))}),
            Mistake("bias-forgotten", "It looks like the bias b was left out of the sum.",
                    f"$\\tanh(w\\,h_{{{t}}} + u\\,x_{{{t + 1}}})$",
                    f"{name} = np.tanh(w * {prev_name} + u * xs[{t}])",
                    {name: float(np.tanh(w * prev + u * x))}),
            Mistake("no-tanh", "It looks like the sum was not squashed: the cell applies tanh to it.",
                    f"$w\\,h_{{{t}}} + u\\,x_{{{t + 1}}} + b$",
                    f"{name} = w * {prev_name} + u * xs[{t}] + b",
                    {name: float(w * prev + u * x + b)}),
            Mistake("sigmoid-for-tanh", "It looks like the sum went through a sigmoid; this cell squashes with tanh.",
                    f"$\\sigma(w\\,h_{{{t}}} + u\\,x_{{{t + 1}}} + b)$",
                    f"{name} = 1 / (1 + np.exp(-(w * {prev_name} + u * xs[{t}] + b)))",
                    {name: float(_sigmoid(w * prev + u * x + b))}),
        ]
        if t > 0:
            entries.append(Mistake(
                "one-step-too-few", f"It looks like one step too few: this is the hidden state before input {t + 1} was read.",
                f"$h_{{{t}}}$", f"{name} = {prev_name}", {name: float(prev)}))
        if t + 1 < len(xs):
            entries.append(Mistake(
                "wrong-input", f"It looks like the wrong input was read: step {t + 1} reads input {t + 1}.",
                f"$\\tanh(w\\,h_{{{t}}} + u\\,x_{{{t + 2}}} + b)$",
                f"{name} = np.tanh(w * {prev_name} + u * xs[{t + 1}] + b)",
                {name: float(np.tanh(w * prev + u * xs[t + 1] + b))}))
        out[part.letter] = entries
    return out


def _softmax(y) -> np.ndarray:
    """The softmax of a vector of logits (shifted by the largest, which changes nothing)."""
    e = np.exp(np.asarray(y, dtype=float) - np.max(y))
    return e / e.sum()


def _vec(v) -> list[float]:
    return [float(x) for x in np.ravel(v)]


@_entries(2)
def _problem_2(problem) -> dict[str, list[Mistake]]:
    """Problem 2: the vector cell h_t = tanh(W h_{t-1} + U x_t + b), two steps of a two-number hidden state."""
    n = problem.numbers
    W, U, b, h0, xs = (np.array(n[k], dtype=float) for k in ("W", "U", "b", "h0", "xs"))
    hs = [np.array(part.answers[0].expected, dtype=float) for part in problem.parts]
    out = {}
    for t, part in enumerate(problem.parts):
        name, prev_name, prev = f"h{t + 1}", "h0" if t == 0 else f"h{t}", ([h0, *hs])[t]
        tex_prev = f"\\boldsymbol h_{{{t}}}"
        x = xs[t]
        entries = [
            Mistake("w-transposed", "It looks like W was used transposed, with the old hidden state multiplied from the "
                    "left: the cell multiplies W by the old hidden state.",
                    f"$\\tanh(W^\\top {tex_prev} + U x_{{{t + 1}}} + \\boldsymbol b)$",
                    f"{name} = np.tanh({prev_name} @ W + U @ [xs[{t}]] + b)",
                    {name: _vec(np.tanh(prev @ W + U[:, 0] * x + b))}),
            Mistake("bias-forgotten", "It looks like the bias vector b was left out of the sum.",
                    f"$\\tanh(W {tex_prev} + U x_{{{t + 1}}})$",
                    f"{name} = np.tanh(W @ {prev_name} + U @ [xs[{t}]])",
                    {name: _vec(np.tanh(W @ prev + U[:, 0] * x))}),
            Mistake("no-tanh", "It looks like the sum was not squashed: the cell applies tanh to each entry.",
                    f"$W {tex_prev} + U x_{{{t + 1}}} + \\boldsymbol b$",
                    f"{name} = W @ {prev_name} + U @ [xs[{t}]] + b",
                    {name: _vec(W @ prev + U[:, 0] * x + b)}),
            Mistake("sigmoid-for-tanh", "It looks like the sum went through a sigmoid; this cell squashes with tanh.",
                    f"$\\sigma(W {tex_prev} + U x_{{{t + 1}}} + \\boldsymbol b)$",
                    f"{name} = 1 / (1 + np.exp(-(W @ {prev_name} + U @ [xs[{t}]] + b)))",
                    {name: _vec(_sigmoid(W @ prev + U[:, 0] * x + b))}),
        ]
        if t == 0:
            entries.append(Mistake(
                "h0-as-h1", "It looks like the starting state was handed in: the first hidden state comes after "
                "the cell has read the first input.",
                "$\\boldsymbol h_0$", "h1 = h0.copy()", {name: _vec(h0)}))
        else:
            entries.append(Mistake(
                "one-step-too-few", f"It looks like one step too few: this is the hidden state before input {t + 1} "
                "was read.", f"$\\boldsymbol h_{{{t}}}$", f"{name} = {prev_name}.copy()", {name: _vec(prev)}))
            entries.append(Mistake(
                "state-not-carried", "It looks like the step started again from the starting state; each step "
                "starts from the hidden state the step before left.",
                f"$\\tanh(W \\boldsymbol h_0 + U x_{{{t + 1}}} + \\boldsymbol b)$",
                f"{name} = np.tanh(W @ h0 + U @ [xs[{t}]] + b)",
                {name: _vec(np.tanh(W @ h0 + U[:, 0] * x + b))}))
        other = t + 1 if t + 1 < len(xs) else t - 1
        entries.append(Mistake(
            "wrong-input", f"It looks like the wrong input was read: step {t + 1} reads input {t + 1}.",
            f"$\\tanh(W {tex_prev} + U x_{{{other + 1}}} + \\boldsymbol b)$",
            f"{name} = np.tanh(W @ {prev_name} + U @ [xs[{other}]] + b)",
            {name: _vec(np.tanh(W @ prev + U[:, 0] * xs[other] + b))}))
        out[part.letter] = entries
    return out


@_entries(3)
def _problem_3(problem) -> dict[str, list[Mistake]]:
    """Problem 3: counting weights, the block P = H(H+d)+H with directions, layers, gates and a read-out."""
    n = problem.numbers
    H, d, K = int(n["hidden"]), int(n["inputs"]), int(n["tags"])
    P = H * (H + d) + H
    lstm = 4 * P
    return {
        "a": [
            Mistake("bias-forgotten", "It looks like the bias was not counted: every learned number counts, the "
                    "bias's H entries too.", "$H(H+d)$", "plain = H * H + H * d", {"plain": H * (H + d)}),
            Mistake("w-forgotten", "It looks like the recurrent matrix W, which takes in the old hidden state, "
                    "was left out: it has H times H weights.", "$Hd+H$", "plain = H * d + H", {"plain": H * d + H}),
        ],
        "b": [
            Mistake("one-direction", "It looks like only one direction was counted: a two-way reader has a cell "
                    "of its own for each direction.", "$P$", "two_way = plain", {"two_way": P}),
            Mistake("one-cell-of-2h", "It looks like the two-way reader was counted as one cell with a hidden "
                    "state twice as long; it is two separate cells of the plain shape.", "$2H(2H+d)+2H$",
                    "two_way = 2 * H * (2 * H + d) + 2 * H", {"two_way": 2 * H * (2 * H + d) + 2 * H}),
            Mistake("stacked-for-two-way", "It looks like the backward cell was made to read the forward cell's "
                    "hidden states; in a two-way reader both cells read the words.", "$P + H(H+H)+H$",
                    "two_way = plain + (H * H + H * H + H)", {"two_way": P + H * 2 * H + H}),
        ],
        "c": [
            Mistake("upper-reads-words", "It looks like the upper layer was counted as reading words; it takes in "
                    "the lower layer's hidden states, so its input width is H.", "$2P$",
                    "two_layers = 2 * plain", {"two_layers": 2 * P}),
            Mistake("one-layer-only", "It looks like only the lower layer was counted; the upper layer learns a "
                    "block of its own.", "$P$", "two_layers = plain", {"two_layers": P}),
            Mistake("upper-layer-only", "It looks like only the upper layer was counted; the lower layer, which "
                    "reads the words, learns its own block too.", "$H(H+H)+H$",
                    "two_layers = H * H + H * H + H", {"two_layers": 2 * H * H + H}),
        ],
        "d": [
            Mistake("lstm-gru-swapped", "It looks like the block counts of the two cells were exchanged: the LSTM "
                    "has four gate blocks (forget, input, output and candidate), the GRU three.", "$3P$, $4P$",
                    "lstm = 3 * plain\ngru = 4 * plain", {"lstm": 3 * P, "gru": 4 * P}),
            Mistake("two-biases", "It looks like two bias vectors were counted per block, as PyTorch keeps them; "
                    "the question asks for one per block.", "$4(P+H)$, $3(P+H)$",
                    "lstm = 4 * (plain + H)\ngru = 3 * (plain + H)", {"lstm": 4 * (P + H), "gru": 3 * (P + H)}),
            Mistake("bias-forgotten", "It looks like the biases of the gate blocks were not counted; each block "
                    "has a bias of H entries.", "$4H(H+d)$, $3H(H+d)$",
                    "lstm = 4 * (H * H + H * d)\ngru = 3 * (H * H + H * d)",
                    {"lstm": 4 * H * (H + d), "gru": 3 * H * (H + d)}),
            Mistake("gru-candidate-forgotten", "It looks like only the GRU's two gates were counted; its candidate "
                    "state has a block of its own as well.", "$2P$", "gru = 2 * plain", {"gru": 2 * P}),
        ],
        "e": [
            Mistake("readout-reads-h", "It looks like the read-out was given a one-way hidden state; each word's "
                    "two-way hidden state joins both directions, so it is twice as long.", "$8P + KH + K$",
                    "tagger = 2 * lstm + (tags * H + tags)", {"tagger": 2 * lstm + K * H + K}),
            Mistake("no-readout", "It looks like the read-out V and its bias were not counted.", "$8P$",
                    "tagger = 2 * lstm", {"tagger": 2 * lstm}),
            Mistake("readout-bias-forgotten", "It looks like the read-out's bias was left out; it has one entry "
                    "per tag.", "$8P + 2KH$", "tagger = 2 * lstm + tags * 2 * H", {"tagger": 2 * lstm + K * 2 * H}),
            Mistake("plain-cells", "It looks like the two directions were counted as plain cells; the tagger "
                    "reads with LSTMs, four blocks each.", "$2P + 2KH + K$",
                    "tagger = 2 * plain + (tags * 2 * H + tags)", {"tagger": 2 * P + K * 2 * H + K}),
        ],
    }


@_entries(4)
def _problem_4(problem) -> dict[str, list[Mistake]]:
    """Problem 4: the read-out's softmax p = e^y / sum e^y, the cross-entropy -ln p_t, and the gradient p - onehot."""
    n = problem.numbers
    words, y = n["words"], np.array(n["logits"], dtype=float)
    t, o = words.index(n["truth"]), words.index(n["other"])
    p = np.array(problem.parts[0].answers[0].expected, dtype=float)
    onehot, onehot_o = np.eye(len(words))[t], np.eye(len(words))[o]
    a = [
        Mistake("not-normalised", "It looks like the exponentials were not divided by their total: "
                "probabilities add up to one.", "$e^{y_i}$", "probs = np.exp(logits)",
                {"probs": _vec(np.exp(y))}),
        Mistake("sigmoid-each", "It looks like each logit went through a sigmoid on its own; the softmax divides "
                "each exponential by the total of all of them.", "$\\sigma(y_i)$",
                "probs = 1 / (1 + np.exp(-logits))", {"probs": _vec(_sigmoid(y))}),
    ]
    if abs(y.sum()) >= 0.5:
        a.append(Mistake("no-exp", "It looks like the logits were divided by their total without exponentiating "
                         "them first.", "$y_i/\\sum_j y_j$", "probs = logits / logits.sum()",
                         {"probs": _vec(y / y.sum())}))
    pt, po = p[t], p[o]
    b = [
        Mistake("log2-for-ln", "It looks like the logarithm was taken in base 2; the cross-entropy here uses "
                "the natural log.", "$-\\log_2 p$",
                "loss_true = -np.log2(probs[words.index(true_word)])\n"
                "loss_other = -np.log2(probs[words.index(other_word)])",
                {"loss_true": float(-np.log2(pt)), "loss_other": float(-np.log2(po))}),
        Mistake("log10-for-ln", "It looks like the logarithm was taken in base 10; the cross-entropy here uses "
                "the natural log.", "$-\\log_{10} p$",
                "loss_true = -np.log10(probs[words.index(true_word)])\n"
                "loss_other = -np.log10(probs[words.index(other_word)])",
                {"loss_true": float(-np.log10(pt)), "loss_other": float(-np.log10(po))}),
        Mistake("sign-flipped", "It looks like the minus sign was dropped: the cross-entropy is minus the log of "
                "the true word's probability, never negative.", "$\\ln p$",
                "loss_true = np.log(probs[words.index(true_word)])\n"
                "loss_other = np.log(probs[words.index(other_word)])",
                {"loss_true": float(np.log(pt)), "loss_other": float(np.log(po))}),
        Mistake("true-other-swapped", "It looks like the two words were exchanged: each loss uses the "
                "probability of the word that is taken as the truth.", "$-\\ln p_{\\text{other}}$, "
                "$-\\ln p_{\\text{true}}$",
                "loss_true = -np.log(probs[words.index(other_word)])\n"
                "loss_other = -np.log(probs[words.index(true_word)])",
                {"loss_true": float(-np.log(po)), "loss_other": float(-np.log(pt))}),
    ]
    c = [
        Mistake("no-one-hot", "It looks like the one-hot truth was not subtracted: the gradient is the "
                "prediction minus the truth.", "$\\boldsymbol p$", "grad_logits = probs.copy()",
                {"grad_logits": _vec(p)}),
        Mistake("sign-flipped", "It looks like the sign is flipped: the gradient of the loss is the prediction "
                "minus the truth, not the truth minus the prediction.", "$\\boldsymbol e_t - \\boldsymbol p$",
                "grad_logits = truth - probs", {"grad_logits": _vec(onehot - p)}),
        Mistake("other-word-as-truth", "It looks like the one was taken away at the other word; the one-hot "
                "truth marks the word that really came next.", "$\\boldsymbol p - \\boldsymbol e_o$",
                "grad_logits = probs - np.eye(len(words))[words.index(other_word)]",
                {"grad_logits": _vec(p - onehot_o)}),
        Mistake("logits-for-probs", "It looks like the truth was subtracted from the logits; the prediction is "
                "the softmax probabilities.", "$\\boldsymbol y - \\boldsymbol e_t$",
                "grad_logits = logits - truth", {"grad_logits": _vec(y - onehot)}),
    ]
    return {"a": a, "b": b, "c": c}


@_entries(5)
def _problem_5(problem) -> dict[str, list[Mistake]]:
    """Problem 5: temperature, p_i ∝ e^{y_i/θ}; two shares stand in the ratio e^{gap/θ}."""
    n = problem.numbers
    y, thetas = np.array(n["logits"], dtype=float), [float(th) for th in n["temperatures"]]
    p_now, p_want = n["p_now"], n["p_wanted"]
    gap = np.log(p_now[0] / p_now[1])
    wanted = np.log(p_want[0] / p_want[1])
    a = [
        Mistake("theta-multiplied", "It looks like the logits were multiplied by the temperature; they are "
                "divided by it before the softmax.", "$\\mathrm{softmax}(\\boldsymbol y\\,\\theta)_1$",
                "p_first = [float(np.exp(logits[0] * theta) / np.exp(logits * theta).sum()) for theta in temperatures]",
                {"p_first": [float(_softmax(y * th)[0]) for th in thetas]}),
        Mistake("theta-ignored", "It looks like the temperature was not used: the logits are divided by it "
                "before the softmax.", "$\\mathrm{softmax}(\\boldsymbol y)_1$",
                "p_first = [float(np.exp(logits[0]) / np.exp(logits).sum()) for theta in temperatures]",
                {"p_first": [float(_softmax(y)[0]) for _th in thetas]}),
        Mistake("second-word", "It looks like these are the second word's probabilities; the question asks for "
                "the first word's.", "$\\mathrm{softmax}(\\boldsymbol y/\\theta)_2$",
                "p_first = [float(np.exp(logits[1] / theta) / np.exp(logits / theta).sum()) for theta in temperatures]",
                {"p_first": [float(_softmax(y / th)[1]) for th in thetas]}),
    ]
    b = [
        Mistake("theta-inverted", "It looks like the temperature came out upside down: the logit gap is divided "
                "by the temperature, so the temperature is the old gap over the new one.",
                "$\\ln(p'_1/p'_2)\\,/\\,\\ln(p_1/p_2)$",
                "theta_new = np.log(p_wanted[0] / p_wanted[1]) / gap", {"theta_new": float(wanted / gap)}),
        Mistake("no-log", "It looks like the ratios of the shares were divided directly; a ratio of shares is "
                "e to the scaled gap, so take logs first.", "$(p_1/p_2)\\,/\\,(p'_1/p'_2)$",
                "theta_new = (p_now[0] / p_now[1]) / (p_wanted[0] / p_wanted[1])",
                {"theta_new": float((p_now[0] / p_now[1]) / (p_want[0] / p_want[1]))}),
        Mistake("log-of-share", "It looks like the log of one share was used; temperature fixes the ratio of "
                "the two shares, so the logs are taken of the ratios.", "$\\ln p_1\\,/\\,\\ln p'_1$",
                "theta_new = np.log(p_now[0]) / np.log(p_wanted[0])",
                {"theta_new": float(np.log(p_now[0]) / np.log(p_want[0]))}),
    ]
    hot = [0.5, 0.5]
    c = [
        Mistake("hot-limit", "It looks like this is the limit of a very high temperature; here the temperature "
                "falls towards zero, and dividing by it scales the logit gap up.", "$(\\tfrac12, \\tfrac12)$",
                "p_cold = [0.5, 0.5]", {"p_cold": hot}),
        Mistake("shares-unchanged", "It looks like the shares were kept as they are at temperature one; "
                "lowering the temperature changes them.", "$(p_1, p_2)$",
                "p_cold = list(p_now)", {"p_cold": [float(v) for v in p_now]}),
        Mistake("wrong-word-wins", "It looks like the less likely word was given the advantage; think about what "
                "dividing by a small temperature does to the gap between the logits.", "$(0, 1)$, the less likely word taking everything",
                "p_cold = [0.0, 1.0] if p_now[0] > p_now[1] else [1.0, 0.0]",
                {"p_cold": [0.0, 1.0] if p_now[0] > p_now[1] else [1.0, 0.0]}),
    ]
    return {"a": a, "b": b, "c": c}


def _rows(v) -> list:
    """A vector (or a list of rows) as plain floats, the form an answer's value is compared in."""
    return np.asarray(v, dtype=float).tolist()


def _expected(problem) -> dict:
    """Answer name -> its right value (for a function answer: its results on the answer's cases)."""
    return {a.name: ([want for _args, want in a.cases] if a.kind == "function" else a.expected)
            for a in problem.answers}


@_entries(6)
def _problem_6(problem) -> dict[str, list[Mistake]]:
    """Problem 6: BPTT by hand, h_t = tanh(w h_{t-1} + u x_t + b); each step back multiplies by w (1 - h_t^2)."""
    n = problem.numbers
    w, u, b, h0, xs = float(n["w"]), float(n["u"]), float(n["b"]), float(n["h0"]), [float(x) for x in n["xs"]]
    right = _expected(problem)
    h1, h2, h3 = (float(h) for h in right["hs"])
    d32, d21, d31 = right["dh3_dh2"], right["dh2_dh1"], right["dh3_dh1"]

    def run(step, start=h0):
        hs, h = [], start
        for x in xs:
            h = step(h, x)
            hs.append(float(h))
        return hs

    def chain(f32, f21):
        return {"dh3_dh2": float(f32), "dh2_dh1": float(f21), "dh3_dh1": float(f32 * f21)}

    a = [
        Mistake("w-u-swapped", "It looks like w and u were swapped: w multiplies the old hidden state, u the input.",
                "$h_t=\\tanh(u\\,h_{t-1} + w\\,x_t + b)$",
                "hs, h = [], h0\nfor x in xs:\n    h = np.tanh(u * h + w * x + b)\n    hs.append(h)",
                {"hs": run(lambda h, x: np.tanh(u * h + w * x + b))}),
        Mistake("bias-forgotten", "It looks like the bias b was left out of the sum.",
                "$h_t=\\tanh(w\\,h_{t-1} + u\\,x_t)$",
                "hs, h = [], h0\nfor x in xs:\n    h = np.tanh(w * h + u * x)\n    hs.append(h)",
                {"hs": run(lambda h, x: np.tanh(w * h + u * x))}),
        Mistake("no-tanh", "It looks like the sum was not squashed: the cell applies tanh to it.",
                "$h_t=w\\,h_{t-1} + u\\,x_t + b$",
                "hs, h = [], h0\nfor x in xs:\n    h = w * h + u * x + b\n    hs.append(h)",
                {"hs": run(lambda h, x: w * h + u * x + b)}),
        Mistake("sigmoid-for-tanh", "It looks like the sum went through a sigmoid; this cell squashes with tanh.",
                "$h_t=\\sigma(w\\,h_{t-1} + u\\,x_t + b)$",
                "hs, h = [], h0\nfor x in xs:\n    h = 1 / (1 + np.exp(-(w * h + u * x + b)))\n    hs.append(h)",
                {"hs": run(lambda h, x: float(_sigmoid(w * h + u * x + b)))}),
        Mistake("h0-as-first-state", "It looks like the starting state was stored as the first hidden state: "
                "each state is stored after the cell has read its input.", "$(h_0, h_1, h_2)$",
                "hs, h = [], h0\nfor x in xs:\n    hs.append(h)\n    h = np.tanh(w * h + u * x + b)",
                {"hs": [h0, h1, h2]}),
        Mistake("state-not-carried", "It looks like every step started again from the starting state; each step "
                "starts from the hidden state the step before left.", "$h_t=\\tanh(w\\,h_0 + u\\,x_t + b)$",
                "hs = [np.tanh(w * h0 + u * x + b) for x in xs]",
                {"hs": [float(np.tanh(w * h0 + u * x + b)) for x in xs]}),
    ]
    b_ = [
        Mistake("w-forgotten", "It looks like the weight w was left out of the factors: each step back multiplies "
                "by w as well as by the slope of tanh.", "$1-h_3^2$, $1-h_2^2$ and their product",
                "dh3_dh2 = 1 - hs[2] ** 2\ndh2_dh1 = 1 - hs[1] ** 2\ndh3_dh1 = dh3_dh2 * dh2_dh1",
                chain(1 - h3 ** 2, 1 - h2 ** 2)),
        Mistake("older-state-in-factor", "It looks like each factor used the older hidden state; the slope of "
                "tanh is taken at the newer state, the one the step produced.",
                "$w\\,(1-h_2^2)$, $w\\,(1-h_1^2)$ and their product",
                "dh3_dh2 = w * (1 - hs[1] ** 2)\ndh2_dh1 = w * (1 - hs[0] ** 2)\ndh3_dh1 = dh3_dh2 * dh2_dh1",
                chain(w * (1 - h2 ** 2), w * (1 - h1 ** 2))),
        Mistake("tanh-applied-again", "It looks like tanh was applied to the hidden state once more in the slope; "
                "the hidden state already is the tanh of the sum, so the slope is one minus its square.",
                "$w\\,(1-\\tanh^2 h_3)$, $w\\,(1-\\tanh^2 h_2)$ and their product",
                "dh3_dh2 = w * (1 - np.tanh(hs[2]) ** 2)\ndh2_dh1 = w * (1 - np.tanh(hs[1]) ** 2)\n"
                "dh3_dh1 = dh3_dh2 * dh2_dh1",
                chain(w * (1 - np.tanh(h3) ** 2), w * (1 - np.tanh(h2) ** 2))),
        Mistake("sum-for-product", "It looks like the two factors were added; the chain rule multiplies the "
                "factors of the steps.", "$\\partial h_3/\\partial h_2 + \\partial h_2/\\partial h_1$",
                "dh3_dh1 = dh3_dh2 + dh2_dh1", {"dh3_dh1": float(d32 + d21)}),
        Mistake("one-factor-too-many", "It looks like one factor too many: from the first hidden state to the "
                "third is two steps, so two factors.", "$\\partial h_3/\\partial h_1\\cdot w\\,(1-h_1^2)$",
                "dh3_dh1 = dh3_dh2 * dh2_dh1 * w * (1 - hs[0] ** 2)",
                {"dh3_dh1": float(d31 * w * (1 - h1 ** 2))}),
    ]
    if u != 1:  # with u = 1 this is the value of "w-forgotten", and neither slip could be named
        b_.insert(1, Mistake(
            "u-for-w", "It looks like u was used in the factors; a step back goes through the old hidden state, "
            "which w multiplies.", "$u\\,(1-h_3^2)$, $u\\,(1-h_2^2)$ and their product",
            "dh3_dh2 = u * (1 - hs[2] ** 2)\ndh2_dh1 = u * (1 - hs[1] ** 2)\ndh3_dh1 = dh3_dh2 * dh2_dh1",
            chain(u * (1 - h3 ** 2), u * (1 - h2 ** 2))))
    c = [
        Mistake("w-for-u", "It looks like w was used for the last link; the first input reaches the first hidden "
                "state through u.", "$\\partial h_3/\\partial h_1\\cdot w\\,(1-h_1^2)$",
                "dh3_dx1 = dh3_dh1 * w * (1 - hs[0] ** 2)", {"dh3_dx1": float(d31 * w * (1 - h1 ** 2))}),
        Mistake("tanh-slope-forgotten", "It looks like the slope of tanh at the first hidden state was left out: "
                "the input goes through the tanh too.", "$\\partial h_3/\\partial h_1\\cdot u$",
                "dh3_dx1 = dh3_dh1 * u", {"dh3_dx1": float(d31 * u)}),
        Mistake("second-input", "It looks like this is the gradient for the second input; the first input sits "
                "one step further back.", "$\\partial h_3/\\partial h_2\\cdot u\\,(1-h_2^2)$",
                "dh3_dx1 = dh3_dh2 * u * (1 - hs[1] ** 2)", {"dh3_dx1": float(d32 * u * (1 - h2 ** 2))}),
    ]
    if u != 1:  # with u = 1 this is the value of "tanh-slope-forgotten", and neither could be named
        c.insert(2, Mistake(
            "stopped-at-h1", "It looks like the chain stopped at the first hidden state; one more link, from the "
            "first hidden state down to the first input, is needed.", "$\\partial h_3/\\partial h_1$",
            "dh3_dx1 = dh3_dh1", {"dh3_dx1": float(d31)}))
    return {"a": a, "b": b_, "c": c}


@_entries(7)
def _problem_7(problem) -> dict[str, list[Mistake]]:
    """Problem 7: truncated BPTT, ceil(T / tau) chunks; the gradient stops at the first character of its chunk."""
    n = problem.numbers
    T, tau, t = int(n["length"]), int(n["tau"]), int(n["grad_from"])
    (i1, j1) = n["pair_across"]
    part_a = problem.parts[0]
    fn = next(x for x in part_a.answers if x.kind == "function")
    args = [tuple(int(v) for v in case) for case, _want in fn.cases]
    right = _expected(problem)
    first = int(right["reaches_back_to"])
    m = int(np.ceil(t / tau))

    def counts(rule):
        return {"n_chunks": [int(rule(TT, tt)) for TT, tt in args], "chunks": int(rule(T, tau))}

    a = [
        Mistake("floor-for-ceil", "It looks like the leftover piece at the end was dropped: a last, shorter chunk "
                "still counts, so round the quotient up.", "$\\lfloor T/\\tau\\rfloor$",
                "def n_chunks(T, tau):\n    return T // tau\nchunks = n_chunks(T, tau)",
                counts(lambda TT, tt: np.floor(TT / tt))),
        Mistake("floor-plus-one", "It looks like one was added to the whole quotient always; a text that splits "
                "evenly has no leftover chunk.", "$\\lfloor T/\\tau\\rfloor+1$",
                "def n_chunks(T, tau):\n    return T // tau + 1\nchunks = n_chunks(T, tau)",
                counts(lambda TT, tt: np.floor(TT / tt) + 1)),
        Mistake("rounded", "It looks like the quotient was rounded to the nearest whole number; any leftover "
                "piece makes a chunk of its own, so round up.", "$\\mathrm{round}(T/\\tau)$",
                "def n_chunks(T, tau):\n    return round(T / tau)\nchunks = n_chunks(T, tau)",
                counts(lambda TT, tt: np.round(TT / tt))),
        Mistake("cuts-for-chunks", "It looks like the cuts were counted; there is one chunk more than there are "
                "cuts.", "$\\lceil T/\\tau\\rceil-1$",
                "def n_chunks(T, tau):\n    return -(-T // tau) - 1\nchunks = n_chunks(T, tau)",
                counts(lambda TT, tt: np.ceil(TT / tt) - 1)),
    ]
    b = [
        Mistake("cut-ignored", "It looks like the cut was ignored: the gradient does not cross the cut at the "
                "start of its chunk.", "$1$", "reaches_back_to = 1", {"reaches_back_to": 1}),
        Mistake("previous-chunk-end", "It looks like one step too far back: the character before the chunk's "
                "first one sits across the cut.", "$(\\lceil t/\\tau\\rceil-1)\\,\\tau$",
                "chunk = -(-grad_from // tau)\nreaches_back_to = (chunk - 1) * tau",
                {"reaches_back_to": (m - 1) * tau}),
        Mistake("floor-for-ceil", "It looks like the chunk number was rounded down; character t sits in chunk "
                "t over tau rounded up.", "$(\\lfloor t/\\tau\\rfloor-1)\\,\\tau+1$",
                "chunk = grad_from // tau\nreaches_back_to = (chunk - 1) * tau + 1",
                {"reaches_back_to": int((np.floor(t / tau) - 1) * tau + 1)}),
        Mistake("window-not-chunk", "It looks like a window of tau characters ending at this one was taken; the "
                "chunks are fixed, and the gradient stops at the start of its own chunk.", "$t-\\tau+1$",
                "reaches_back_to = grad_from - tau + 1", {"reaches_back_to": t - tau + 1}),
        Mistake("chunk-number", "It looks like the chunk's number was handed in; the question asks for the "
                "number of the character where the gradient stops.", "$\\lceil t/\\tau\\rceil$",
                "reaches_back_to = -(-grad_from // tau)", {"reaches_back_to": m}),
    ]
    c = [
        Mistake("across-the-cut", "It looks like a link across a cut was taken as learnable because the two "
                "characters are close, or because the hidden state crosses the cut; the gradient does not cross "
                "it, so only a link inside one chunk can be learned.", "$j-i<\\tau$",
                "learn_pair_1 = pair_1[1] - pair_1[0] < tau", {"learn_pair_1": bool(j1 - i1 < tau)}),
    ]
    d = [
        Mistake("characters-for-steps", "It looks like characters were counted instead of steps: a walk from one "
                "character back to another takes one step fewer than the characters it covers.", "$T$, $\\tau$",
                "full_steps = T\ntruncated_steps = tau", {"full_steps": T, "truncated_steps": tau}),
        Mistake("walk-of-part-b", "It looks like the walk from part (b) was given; the longest truncated walk "
                "starts at the last character of a chunk.", "$t-(\\lceil t/\\tau\\rceil-1)\\,\\tau-1$",
                "truncated_steps = grad_from - reaches_back_to", {"truncated_steps": t - first}),
    ]
    return {"a": a, "b": b, "c": c, "d": d}


@_entries(8)
def _problem_8(problem) -> dict[str, list[Mistake]]:
    """Problem 8: the first whole T with w^T < eps is floor(ln eps / ln w) + 1; with w > 1, the first with w^T > big."""
    n = problem.numbers
    w, eps, w2, big = float(n["w_fade"]), float(n["eps"]), float(n["w_grow"]), float(n["big"])
    fn = problem.parts[0].answers[0]
    args = [(float(f), float(e)) for (f, e), _want in fn.cases]

    def results(rule):
        return {"first_below": [int(rule(f, e)) for f, e in args]}

    a = [
        Mistake("no-plus-one", "It looks like the last step still at or above the threshold was given: the "
                "bound is rarely whole, and the first whole T past it is its floor plus one.",
                "$\\lfloor \\ln\\varepsilon/\\ln w\\rfloor$",
                "def first_below(w, eps):\n    return int(np.floor(np.log(eps) / np.log(w)))",
                results(lambda f, e: np.floor(np.log(e) / np.log(f)))),
        Mistake("ratio-upside-down", "It looks like the ratio of the logarithms was turned upside down: taking "
                "logs of w^T < eps gives T ln w < ln eps, so T is compared with ln eps over ln w.",
                "$\\lfloor \\ln w/\\ln\\varepsilon\\rfloor+1$",
                "def first_below(w, eps):\n    return int(np.floor(np.log(w) / np.log(eps))) + 1",
                results(lambda f, e: np.floor(np.log(f) / np.log(e)) + 1)),
        Mistake("rounded", "It looks like the bound was rounded to the nearest whole number; T must be the first "
                "whole number past it, so take the floor and add one.",
                "$\\mathrm{round}(\\ln\\varepsilon/\\ln w)$",
                "def first_below(w, eps):\n    return int(np.round(np.log(eps) / np.log(w)))",
                results(lambda f, e: np.round(np.log(e) / np.log(f)))),
        Mistake("mixed-log-bases", "It looks like the two logarithms were taken in different bases (log10 on "
                "top, the natural log below); either base works, but the same one on both.",
                "$\\lfloor \\log_{10}\\varepsilon/\\ln w\\rfloor+1$",
                "def first_below(w, eps):\n    return int(np.floor(np.log10(eps) / np.log(w))) + 1",
                results(lambda f, e: np.floor(np.log10(e) / np.log(f)) + 1)),
    ]
    b = [
        Mistake("no-plus-one", "It looks like one step too few: this is the last step at which the gradient is "
                "still at or above the threshold.", "$\\lfloor \\ln\\varepsilon/\\ln w\\rfloor$",
                "T_fade = int(np.floor(np.log(eps) / np.log(w_fade)))",
                {"T_fade": int(np.floor(np.log(eps) / np.log(w)))}),
        Mistake("ratio-upside-down", "It looks like the ratio of the logarithms was turned upside down: T is "
                "compared with ln eps over ln w.", "$\\lfloor \\ln w/\\ln\\varepsilon\\rfloor+1$",
                "T_fade = int(np.floor(np.log(w_fade) / np.log(eps))) + 1",
                {"T_fade": int(np.floor(np.log(w) / np.log(eps)) + 1)}),
        Mistake("mixed-log-bases", "It looks like the two logarithms were taken in different bases (log10 on "
                "top, the natural log below); use the same base for both.",
                "$\\lfloor \\log_{10}\\varepsilon/\\ln w\\rfloor+1$",
                "T_fade = int(np.floor(np.log10(eps) / np.log(w_fade))) + 1",
                {"T_fade": int(np.floor(np.log10(eps) / np.log(w)) + 1)}),
        Mistake("one-step-too-many", "It looks like one step too many: one was added after rounding the bound "
                "up; the first whole T past the bound is the bound rounded up, or its floor plus one.",
                "$\\lceil \\ln\\varepsilon/\\ln w\\rceil+1$",
                "T_fade = int(np.ceil(np.log(eps) / np.log(w_fade))) + 1",
                {"T_fade": int(np.ceil(np.log(eps) / np.log(w)) + 1)}),
    ]
    c = [
        Mistake("no-plus-one", "It looks like one step too few: this is the last step at which the factor has "
                "not yet passed the bound.", "$\\lfloor \\ln B/\\ln w\\rfloor$",
                "T_explode = int(np.floor(np.log(big) / np.log(w_grow)))",
                {"T_explode": int(np.floor(np.log(big) / np.log(w2)))}),
        Mistake("ratio-upside-down", "It looks like the ratio of the logarithms was turned upside down: T is "
                "compared with the log of the bound over the log of w.", "$\\lfloor \\ln w/\\ln B\\rfloor+1$",
                "T_explode = int(np.floor(np.log(w_grow) / np.log(big))) + 1",
                {"T_explode": int(np.floor(np.log(w2) / np.log(big)) + 1)}),
        Mistake("mixed-log-bases", "It looks like the two logarithms were taken in different bases (log10 on "
                "top, the natural log below); use the same base for both.", "$\\lfloor \\log_{10}B/\\ln w\\rfloor+1$",
                "T_explode = int(np.floor(np.log10(big) / np.log(w_grow))) + 1",
                {"T_explode": int(np.floor(np.log10(big) / np.log(w2)) + 1)}),
        Mistake("one-step-too-many", "It looks like one step too many: one was added after rounding the bound "
                "up; the first whole T past the bound is the bound rounded up, or its floor plus one.",
                "$\\lceil \\ln B/\\ln w\\rceil+1$",
                "T_explode = int(np.ceil(np.log(big) / np.log(w_grow))) + 1",
                {"T_explode": int(np.ceil(np.log(big) / np.log(w2)) + 1)}),
        Mistake("one-side-inverted", "It looks like the fading formula was reused with only the bound inverted; "
                "w^T > B means (1/w)^T < 1/B, so invert both or solve T ln w > ln B directly.",
                "$\\lfloor \\ln(1/B)/\\ln w\\rfloor+1$",
                "T_explode = first_below(w_grow, 1 / big)",
                {"T_explode": int(np.floor(np.log(1 / big) / np.log(w2)) + 1)}),
    ]
    return {"a": a, "b": b, "c": c}


@_entries(9)
def _problem_9(problem) -> dict[str, list[Mistake]]:
    """Problem 9: eigen-pairs W e = lambda e (largest |lambda| first, e scaled to first entry 1) and W^T v."""
    n = problem.numbers
    mats = {"A": np.array(n["A"], dtype=float), "B": np.array(n["B"], dtype=float)}
    v, T = np.array(n["v"], dtype=float), int(n["steps"])
    right = _expected(problem)
    eig = {k: np.array(right[f"eig_{k}"], dtype=float) for k in mats}
    dirs = {k: np.array(right[f"dirs_{k}"], dtype=float) for k in mats}

    def unit(k):
        """The directions at length one, signed as numpy's eigenvectors come (what np.linalg.eig returns)."""
        values, vectors = np.linalg.eig(mats[k])
        vectors = vectors[:, np.argsort(-np.abs(values))].real.T
        return np.sign(vectors[:, :1]) * dirs[k] / np.linalg.norm(dirs[k], axis=1, keepdims=True)

    a = [
        Mistake("smallest-first", "It looks like the eigenvalues were sorted smallest first; the question asks "
                "for the largest first, with the eigenvectors in the same order.",
                "$\\lambda$ and $\\boldsymbol e$ in increasing $|\\lambda|$",
                "def eigen_up(M):\n    values, vectors = np.linalg.eig(M)\n    order = np.argsort(np.abs(values))\n"
                "    values, vectors = values[order].real, vectors[:, order].real\n"
                "    return values, (vectors / vectors[0]).T\neig_A, dirs_A = eigen_up(W_A)\neig_B, dirs_B = eigen_up(W_B)",
                {"eig_A": _rows(eig["A"][::-1]), "dirs_A": _rows(dirs["A"][::-1]),
                 "eig_B": _rows(eig["B"][::-1]), "dirs_B": _rows(dirs["B"][::-1])}),
        Mistake("unit-length", "It looks like the eigenvectors were left at length one, as numpy returns them; "
                "scale each so that its first entry is one.", "$\\boldsymbol e/\\lVert\\boldsymbol e\\rVert$",
                "def eigen_unit(M):\n    values, vectors = np.linalg.eig(M)\n    order = np.argsort(-np.abs(values))\n"
                "    return values[order].real, vectors[:, order].real.T\n"
                "dirs_A = eigen_unit(W_A)[1]\ndirs_B = eigen_unit(W_B)[1]",
                {"dirs_A": _rows(unit("A")), "dirs_B": _rows(unit("B"))}),
        Mistake("columns-for-rows", "It looks like the eigenvectors were handed in as columns, as numpy returns "
                "them; the question asks for one eigenvector per row.", "$(\\boldsymbol e_1\\ \\boldsymbol e_2)$",
                "def eigen_cols(M):\n    values, vectors = np.linalg.eig(M)\n    order = np.argsort(-np.abs(values))\n"
                "    values, vectors = values[order].real, vectors[:, order].real\n"
                "    return values, vectors / vectors[0]\ndirs_A = eigen_cols(W_A)[1]\ndirs_B = eigen_cols(W_B)[1]",
                {"dirs_A": _rows(dirs["A"].T), "dirs_B": _rows(dirs["B"].T)}),
        Mistake("smallest-decides", "It looks like the memory was judged by the smaller eigenvalue; the largest "
                "size of an eigenvalue decides whether a state fades or explodes.",
                "$|\\lambda|_{\\min}<1$",
                "memory_A = 'fades' if np.abs(eig_A).min() < 1 else 'explodes'\n"
                "memory_B = 'fades' if np.abs(eig_B).min() < 1 else 'explodes'",
                {f"memory_{k}": "fades" if np.abs(eig[k]).min() < 1 else "explodes" for k in mats}),
    ]

    def power(M, k):
        out = v.copy()
        for _ in range(k):
            out = M @ out
        return out

    def per_matrix(f):
        return {"A_T_v": _rows(f(mats["A"], "A")), "B_T_v": _rows(f(mats["B"], "B"))}

    coefs = {k: np.linalg.solve(dirs[k].T, v) for k in mats}
    b = [
        Mistake("one-step-too-few", "It looks like one step too few: the state goes through the matrix once per step.",
                "$W^{T-1}\\boldsymbol v$",
                "A_T_v = np.linalg.matrix_power(W_A, steps - 1) @ v\nB_T_v = np.linalg.matrix_power(W_B, steps - 1) @ v",
                per_matrix(lambda M, k: power(M, T - 1))),
        Mistake("one-step-too-many", "It looks like one step too many: the state goes through the matrix once per step.",
                "$W^{T+1}\\boldsymbol v$",
                "A_T_v = np.linalg.matrix_power(W_A, steps + 1) @ v\nB_T_v = np.linalg.matrix_power(W_B, steps + 1) @ v",
                per_matrix(lambda M, k: power(M, T + 1))),
        Mistake("entrywise-power", "It looks like each entry of the matrix was raised to the power (** in numpy); "
                "the matrix power multiplies the matrix by itself.", "$(w_{ij}^T)\\,\\boldsymbol v$",
                "A_T_v = (W_A ** steps) @ v\nB_T_v = (W_B ** steps) @ v",
                per_matrix(lambda M, k: np.power(M, T) @ v)),
        Mistake("v-on-the-left", "It looks like the state multiplied the matrix from the left, which uses the "
                "transposed matrix; the matrix multiplies the state from the left.",
                "$\\boldsymbol v^\\top W^T$",
                "A_T_v = v @ np.linalg.matrix_power(W_A, steps)\nB_T_v = v @ np.linalg.matrix_power(W_B, steps)",
                per_matrix(lambda M, k: power(M.T, T))),
        Mistake("split-forgotten", "It looks like the eigenvectors were powered without the split of the state: "
                "each part is its coefficient times the eigenvalue to the power times the eigenvector.",
                "$\\sum_i \\lambda_i^T\\boldsymbol e_i$",
                "A_T_v = eig_A ** steps @ dirs_A\nB_T_v = eig_B ** steps @ dirs_B",
                per_matrix(lambda M, k: (eig[k] ** T) @ dirs[k])),
        Mistake("top-part-only", "It looks like only the part along the top eigenvector was kept; the other part "
                "shrinks in comparison but has not vanished after these steps.",
                "$c_1\\lambda_1^T\\boldsymbol e_1$",
                "c_A = np.linalg.solve(dirs_A.T, v)\nc_B = np.linalg.solve(dirs_B.T, v)\n"
                "A_T_v = c_A[0] * eig_A[0] ** steps * dirs_A[0]\nB_T_v = c_B[0] * eig_B[0] ** steps * dirs_B[0]",
                per_matrix(lambda M, k: coefs[k][0] * eig[k][0] ** T * dirs[k][0])),
    ]
    return {"a": a, "b": b}


@_entries(10)
def _problem_10(problem) -> dict[str, list[Mistake]]:
    """Problem 10: global-norm clipping g' = min(1, gamma/||g||) g, and the step -lr g'."""
    n = problem.numbers
    gamma, lr = float(n["limit"]), float(n["lr"])
    g1, g2 = np.array(n["g_long"], dtype=float), np.array(n["g_short"], dtype=float)
    clipped1 = np.array(problem.parts[0].answers[0].expected, dtype=float)

    def scaled(g, length):
        return g * min(1.0, gamma / length)

    def square_sum(g):
        return float(np.sum(g ** 2))

    def l1(g):
        return float(np.sum(np.abs(g)))

    per_value = np.clip(g1, -gamma, gamma)
    no_sqrt, by_l1 = scaled(g1, square_sum(g1)), scaled(g1, l1(g1))
    norm2 = float(np.linalg.norm(g2))
    return {
        "a": [
            Mistake("per-value-clipping", "It looks like each entry was clipped on its own; clipping by the global "
                    "norm scales the whole gradient by one number, so its direction survives.",
                    "$g'_k=\\max(-\\gamma, \\min(\\gamma, g_k))$, then $-\\eta\\,\\boldsymbol g'$",
                    "clipped_long = np.clip(g_long, -gamma, gamma)\nchange = -lr * clipped_long",
                    {"clipped_long": _vec(per_value), "change": _vec(-lr * per_value)}),
            Mistake("not-clipped", "It looks like the gradient was not clipped: its length is above the threshold, "
                    "so it must be scaled down to that length before the step.",
                    "$\\boldsymbol g'=\\boldsymbol g$, then $-\\eta\\,\\boldsymbol g$",
                    "clipped_long = g_long.copy()\nchange = -lr * g_long",
                    {"clipped_long": _vec(g1), "change": _vec(-lr * g1)}),
            Mistake("norm-without-sqrt", "It looks like the sum of squares was used as the length; the norm is "
                    "the square root of the sum of squares.",
                    "$\\min(1, \\gamma/\\sum_k g_k^2)\\,\\boldsymbol g$, then $-\\eta\\,\\boldsymbol g'$",
                    "clipped_long = g_long * min(1.0, gamma / np.sum(g_long ** 2))\nchange = -lr * clipped_long",
                    {"clipped_long": _vec(no_sqrt), "change": _vec(-lr * no_sqrt)}),
            Mistake("l1-norm", "It looks like the length was taken as the sum of the absolute values; clipping uses "
                    "the Euclidean norm, the square root of the sum of squares.",
                    "$\\min(1, \\gamma/\\sum_k |g_k|)\\,\\boldsymbol g$, then $-\\eta\\,\\boldsymbol g'$",
                    "clipped_long = g_long * min(1.0, gamma / np.sum(np.abs(g_long)))\nchange = -lr * clipped_long",
                    {"clipped_long": _vec(by_l1), "change": _vec(-lr * by_l1)}),
            Mistake("step-sign-flipped", "It looks like the step went up the gradient; the weights move against "
                    "the clipped gradient, by minus the learning rate times it.",
                    "$+\\eta\\,\\boldsymbol g'$", "change = lr * clipped_long",
                    {"change": _vec(lr * clipped1)}),
            Mistake("no-learning-rate", "It looks like the learning rate was left out of the step; the change is "
                    "the clipped gradient times minus the learning rate.",
                    "$-\\boldsymbol g'$", "change = -clipped_long",
                    {"change": _vec(-clipped1)}),
        ],
        "b": [
            Mistake("always-scaled", "It looks like the gradient was scaled to the threshold's length although it "
                    "is already shorter; clipping only ever shrinks a gradient, it never stretches one.",
                    "$(\\gamma/\\|\\boldsymbol g\\|)\\,\\boldsymbol g$",
                    "clipped_short = g_short * gamma / np.linalg.norm(g_short)",
                    {"clipped_short": _vec(g2 * gamma / norm2)}),
            Mistake("ratio-upside-down", "It looks like the ratio was turned upside down; the scale is the threshold "
                    "over the gradient's length, capped at one.",
                    "$\\min(1, \\|\\boldsymbol g\\|/\\gamma)\\,\\boldsymbol g$",
                    "clipped_short = g_short * min(1.0, np.linalg.norm(g_short) / gamma)",
                    {"clipped_short": _vec(g2 * min(1.0, norm2 / gamma))}),
            Mistake("norm-without-sqrt", "It looks like the sum of squares was used as the length; the norm is "
                    "the square root of the sum of squares.",
                    "$\\min(1, \\gamma/\\sum_k g_k^2)\\,\\boldsymbol g$",
                    "clipped_short = g_short * min(1.0, gamma / np.sum(g_short ** 2))",
                    {"clipped_short": _vec(scaled(g2, square_sum(g2)))}),
            Mistake("l1-norm", "It looks like the length was taken as the sum of the absolute values; clipping uses "
                    "the Euclidean norm, the square root of the sum of squares.",
                    "$\\min(1, \\gamma/\\sum_k |g_k|)\\,\\boldsymbol g$",
                    "clipped_short = g_short * min(1.0, gamma / np.sum(np.abs(g_short)))",
                    {"clipped_short": _vec(scaled(g2, l1(g2)))}),
        ],
    }


@_entries(11)
def _problem_11(problem) -> dict[str, list[Mistake]]:
    """Problem 11: one LSTM step, gates sigma(a), candidate tanh(a_c), c_t = f c_{t-1} + i c~, h_t = o tanh(c_t)."""
    n = problem.numbers
    c_prev = float(n["c_prev"])
    a = {"f": float(n["forget"]), "i": float(n["input"]), "o": float(n["output"]), "c": float(n["candidate"])}
    f, i, o, g = (float(x.expected) for x in problem.parts[0].answers)
    c = float(problem.parts[1].answers[0].expected)

    def gates(squash):
        return {f"{k}_t": float(squash(a[k])) for k in ("f", "i", "o")}

    c_swapped = i * c_prev + f * g
    c_squashed = float(np.tanh(f * c_prev + i * g))
    c_kept = c_prev + i * g
    return {
        "a": [
            Mistake("tanh-for-sigmoid", "It looks like the gates went through tanh; a gate is a sigmoid of its "
                    "pre-activation, so it lies between 0 and 1.",
                    "$f_t=\\tanh a_f$, $i_t=\\tanh a_i$, $o_t=\\tanh a_o$",
                    "f_t, i_t, o_t = np.tanh(a_f), np.tanh(a_i), np.tanh(a_o)",
                    gates(np.tanh)),
            Mistake("gates-not-squashed", "It looks like the gates are the pre-activations themselves; each gate "
                    "squashes its pre-activation with a sigmoid.",
                    "$f_t=a_f$, $i_t=a_i$, $o_t=a_o$",
                    "f_t, i_t, o_t = a_f, a_i, a_o",
                    gates(lambda v: v)),
            Mistake("sigmoid-sign-flipped", "It looks like the sigmoid lost its minus sign: it is one over one plus "
                    "e to the minus pre-activation.",
                    "$f_t=1/(1+e^{a_f})$, and so on",
                    "f_t, i_t, o_t = 1 / (1 + np.exp(a_f)), 1 / (1 + np.exp(a_i)), 1 / (1 + np.exp(a_o))",
                    gates(lambda v: _sigmoid(-v))),
            Mistake("sigmoid-for-tanh", "It looks like the candidate went through a sigmoid; the candidate is the "
                    "tanh of its pre-activation, so it may be negative.",
                    "$\\tilde c_t=\\sigma(a_c)$", "c_tilde = 1 / (1 + np.exp(-a_c))",
                    {"c_tilde": float(_sigmoid(a["c"]))}),
            Mistake("candidate-not-squashed", "It looks like the candidate is its pre-activation itself; the "
                    "candidate squashes it with tanh.",
                    "$\\tilde c_t=a_c$", "c_tilde = a_c", {"c_tilde": a["c"]}),
        ],
        "b": [
            Mistake("forget-input-swapped", "It looks like the forget and input gates were exchanged: the forget gate "
                    "multiplies the old cell state, the input gate the candidate.",
                    "$c_t=i_t\\,c_{t-1}+f_t\\,\\tilde c_t$, $h_t=o_t\\tanh c_t$",
                    "c_t = i_t * c_prev + f_t * c_tilde\nh_t = o_t * np.tanh(c_t)",
                    {"c_t": c_swapped, "h_t": float(o * np.tanh(c_swapped))}),
            Mistake("no-forget-gate", "It looks like the old cell state was kept whole; the forget gate multiplies "
                    "it before the candidate's share is added.",
                    "$c_t=c_{t-1}+i_t\\,\\tilde c_t$, $h_t=o_t\\tanh c_t$",
                    "c_t = c_prev + i_t * c_tilde\nh_t = o_t * np.tanh(c_t)",
                    {"c_t": c_kept, "h_t": float(o * np.tanh(c_kept))}),
            Mistake("cell-state-squashed", "It looks like the cell state was squashed with tanh; nothing squashes the "
                    "cell state, only the read-out into the hidden state is squashed.",
                    "$c_t=\\tanh(f_t\\,c_{t-1}+i_t\\,\\tilde c_t)$, $h_t=o_t\\tanh c_t$",
                    "c_t = np.tanh(f_t * c_prev + i_t * c_tilde)\nh_t = o_t * np.tanh(c_t)",
                    {"c_t": c_squashed, "h_t": float(o * np.tanh(c_squashed))}),
            Mistake("no-tanh-readout", "It looks like the cell state was read out without tanh; the hidden state is "
                    "the output gate times the tanh of the new cell state.",
                    "$h_t=o_t\\,c_t$", "h_t = o_t * c_t", {"h_t": o * c}),
            Mistake("old-cell-read-out", "It looks like the old cell state was read out; the hidden state reads the "
                    "new cell state, after the update.",
                    "$h_t=o_t\\tanh c_{t-1}$", "h_t = o_t * np.tanh(c_prev)",
                    {"h_t": float(o * np.tanh(c_prev))}),
        ],
    }


@_entries(12)
def _problem_12(problem) -> dict[str, list[Mistake]]:
    """Problem 12: a run's factor per step is (last/first)^(1/steps); ahead steps give factor^ahead; clipping
    scales by min(1, gamma/length); the smallest cell-state factor is share^(1/far)."""
    n = problem.numbers
    runs = {k: np.array(v, dtype=float) for k, v in n["runs"].items()}
    names = list(runs)
    ahead, limit, far, share = int(n["ahead"]), float(n["limit"]), int(n["far"]), float(n["share"])
    factor = {a.name[len("factor_"):]: float(a.expected) for a in problem.parts[0].answers}
    c = {a.name: a.expected for a in problem.parts[2].answers}
    small, big = c["small_run"], c["big_run"]
    last = float(runs[big][-1])

    def each(template):
        return "".join(template.format(k=k) for k in names)

    def ratio(k):
        return float(runs[k][-1] / runs[k][0])

    return {
        "a": [
            Mistake("root-of-entries", "It looks like the root counted the entries, not the steps between them; "
                    "the number of steps is one less than the number of entries.",
                    "$(\\text{last}/\\text{first})^{1/(\\text{entries})}$",
                    each("factor_{k} = (runs[{k!r}][-1] / runs[{k!r}][0]) ** (1 / len(runs[{k!r}]))\n"),
                    {f"factor_{k}": ratio(k) ** (1 / len(runs[k])) for k in names}),
            Mistake("no-root", "It looks like the ratio of the last entry to the first was given; that is the "
                    "change over all the steps, and its root gives the factor per step.",
                    "$\\text{last}/\\text{first}$",
                    each("factor_{k} = runs[{k!r}][-1] / runs[{k!r}][0]\n"),
                    {f"factor_{k}": ratio(k) for k in names}),
            Mistake("ratio-upside-down", "It looks like the ratio was turned upside down; the factor per step is the "
                    "root of the last entry over the first.",
                    "$(\\text{first}/\\text{last})^{1/\\text{steps}}$",
                    each("factor_{k} = (runs[{k!r}][0] / runs[{k!r}][-1]) ** (1 / (len(runs[{k!r}]) - 1))\n"),
                    {f"factor_{k}": (1 / ratio(k)) ** (1 / (len(runs[k]) - 1)) for k in names}),
        ],
        "b": [
            Mistake("power-one-too-few", "It looks like the power is one too small; the gradient is multiplied by "
                    "the factor once for every step back.",
                    "$f^{\\,\\text{ahead}-1}$", each("far_{k} = factor_{k} ** (ahead - 1)\n"),
                    {f"far_{k}": factor[k] ** (ahead - 1) for k in names}),
            Mistake("power-one-too-many", "It looks like the power is one too large; the gradient is multiplied by "
                    "the factor once for every step back.",
                    "$f^{\\,\\text{ahead}+1}$", each("far_{k} = factor_{k} ** (ahead + 1)\n"),
                    {f"far_{k}": factor[k] ** (ahead + 1) for k in names}),
            Mistake("multiplied-not-powered", "It looks like the factor was multiplied by the number of steps; the "
                    "factors of the steps multiply, so raise the factor to that power.",
                    "$f\\cdot\\text{ahead}$", each("far_{k} = factor_{k} * ahead\n"),
                    {f"far_{k}": factor[k] * ahead for k in names}),
        ],
        "c": [
            Mistake("small-big-swapped", "It looks like the two plain cells were exchanged: small recurrent weights "
                    "make the gradient fade, a factor below 1; large ones make it explode.",
                    "small and big runs exchanged", "small_run, big_run = big_run, small_run",
                    {"small_run": big, "big_run": small}),
            Mistake("lstm-largest-factor", "It looks like the run with the largest factor was taken for the LSTM; the "
                    "LSTM's cell state keeps its factor closest to 1, neither fading fast nor exploding.",
                    "the run with the largest factor", "lstm_run = max(factors, key=factors.get)",
                    {"lstm_run": big}),
            Mistake("fixes-swapped", "It looks like the remedies were exchanged: a fading gradient needs gates, a "
                    "path that does not shrink; an exploding one needs clipping first.",
                    "“clipping” for the fading run, “gates” for the exploding one",
                    "fix_small, fix_big = 'clipping', 'gates'",
                    {"fix_small": "clipping", "fix_big": "gates"}),
        ],
        "d": [
            Mistake("ratio-upside-down", "It looks like the ratio was turned upside down; clipping scales by the "
                    "threshold over the gradient's length, which is below 1 when it clips.",
                    "$\\text{length}/\\gamma$", "clip_scale = runs[big_run][-1] / limit",
                    {"clip_scale": last / limit}),
            Mistake("length-not-factor", "It looks like the clipped gradient's length was given; the question asks "
                    "for the factor the gradient is multiplied by.",
                    "$\\min(\\gamma, \\text{length})$", "clip_scale = min(limit, runs[big_run][-1])",
                    {"clip_scale": min(limit, last)}),
            Mistake("share-cut-off", "It looks like the share that clipping cuts off was given; the factor is the "
                    "share of the gradient that is kept.",
                    "$1-\\gamma/\\text{length}$", "clip_scale = 1 - limit / runs[big_run][-1]",
                    {"clip_scale": 1 - limit / last}),
        ],
        "e": [
            Mistake("divided-not-rooted", "It looks like the share was divided by the number of steps; the factors "
                    "of the steps multiply, so take the root of the share.",
                    "$\\text{share}/\\text{far}$", "f_min = share / far", {"f_min": share / far}),
            Mistake("power-not-root", "It looks like the share was raised to the number of steps; the factor "
                    "to that power must reach the share, so take the root of the share instead.",
                    "$\\text{share}^{\\text{far}}$", "f_min = share ** far", {"f_min": share ** far}),
            Mistake("log-bases-mixed", "It looks like a base-10 log was undone with the exponential; the log and "
                    "its inverse must share a base (natural log with exp, or log10 with ten to the power).",
                    "$e^{\\log_{10}\\text{share}/\\text{far}}$", "f_min = np.exp(np.log10(share) / far)",
                    {"f_min": float(np.exp(np.log10(share) / far))}),
            Mistake("linear-loss", "It looks like the loss was spread evenly over the steps; the gradient keeps a "
                    "factor per step, so the shares multiply and the factor is a root of the share.",
                    "$1-(1-\\text{share})/\\text{far}$", "f_min = 1 - (1 - share) / far",
                    {"f_min": 1 - (1 - share) / far}),
        ],
    }


@_entries(13)
def _problem_13(problem) -> dict[str, list[Mistake]]:
    """Problem 13: one GRU step, z = sigma(a_z), r = sigma(a_r), h~ = tanh(w_in x + w_old r h_{t-1}),
    h_t = (1 - z) h_{t-1} + z h~."""
    n = problem.numbers
    hp, x, az, ar, wx, wo = (float(n[k]) for k in ("h_prev", "x", "a_z", "a_r", "w_input", "w_old"))
    z, r, cand, h = (float(a.expected) for a in problem.parts[0].answers)
    cand_open, h_open = (float(a.expected) for a in problem.parts[1].answers[:2])
    direction = problem.parts[1].answers[2].expected

    def blend(zz, candidate):
        return (1 - zz) * hp + zz * candidate

    blend_code = "h_t = (1 - z_t) * h_prev + z_t * h_tilde"
    zs, rs = float(_sigmoid(ar)), float(_sigmoid(az))          # the gates, their pre-activations exchanged
    cand_swapped = float(np.tanh(wx * x + wo * rs * hp))
    cand_weights = float(np.tanh(wo * x + wx * r * hp))
    cand_raw = wx * x + wo * r * hp
    cand_closed = float(np.tanh(wx * x))
    return {
        "a": [
            Mistake("z-wrong-side", "It looks like the update gate z sits on the wrong side of the blend: z weighs "
                    "the candidate, and one minus z the old hidden state.",
                    "$h_t=z\\,h_{t-1}+(1-z)\\,\\tilde h_t$", "h_t = z_t * h_prev + (1 - z_t) * h_tilde",
                    {"h_t": z * hp + (1 - z) * cand}),
            Mistake("reset-not-applied", "It looks like the reset gate was left out of the candidate; it scales the "
                    "old hidden state before the candidate is made.",
                    "$\\tilde h_t=\\tanh(w_x\\,x+w_h\\,h_{t-1})$, then the blend",
                    "h_tilde = np.tanh(w_input * x + w_old * h_prev)\n" + blend_code,
                    {"h_tilde": cand_open, "h_t": h_open}),
            Mistake("gates-swapped", "It looks like the update and reset gates were exchanged: z comes from the "
                    "update gate's pre-activation, r from the reset gate's.",
                    "$z=\\sigma(a_r)$, $r=\\sigma(a_z)$, then the candidate and the blend",
                    "z_t, r_t = 1 / (1 + np.exp(-a_r)), 1 / (1 + np.exp(-a_z))\n"
                    "h_tilde = np.tanh(w_input * x + w_old * r_t * h_prev)\n" + blend_code,
                    {"z_t": zs, "r_t": rs, "h_tilde": cand_swapped, "h_t": blend(zs, cand_swapped)}),
            Mistake("weights-swapped", "It looks like the two weights of the candidate were exchanged: one weighs "
                    "the input, the other the old hidden state scaled by the reset gate.",
                    "$\\tilde h_t=\\tanh(w_h\\,x+w_x\\,r\\,h_{t-1})$, then the blend",
                    "h_tilde = np.tanh(w_old * x + w_input * r_t * h_prev)\n" + blend_code,
                    {"h_tilde": cand_weights, "h_t": blend(z, cand_weights)}),
            Mistake("candidate-not-squashed", "It looks like the candidate's sum was not squashed: the candidate is "
                    "the tanh of it.",
                    "$\\tilde h_t=w_x\\,x+w_h\\,r\\,h_{t-1}$, then the blend",
                    "h_tilde = w_input * x + w_old * r_t * h_prev\n" + blend_code,
                    {"h_tilde": cand_raw, "h_t": blend(z, cand_raw)}),
            Mistake("no-blend", "It looks like the candidate was taken as the new hidden state; the update gate "
                    "blends the candidate with the old hidden state.",
                    "$h_t=\\tilde h_t$", "h_t = h_tilde", {"h_t": cand}),
        ],
        "b": [
            Mistake("reset-closed", "It looks like the reset gate was shut instead of opened wide: wide open it "
                    "lets the whole old hidden state into the candidate.",
                    "$\\tilde h_t=\\tanh(w_x\\,x)$, then the blend",
                    "h_tilde_open = np.tanh(w_input * x)\nh_open = (1 - z_t) * h_prev + z_t * h_tilde_open",
                    {"h_tilde_open": cand_closed, "h_open": blend(z, cand_closed)}),
            Mistake("reset-not-opened", "It looks like the candidate of part (a) was kept; with the reset gate wide "
                    "open the candidate sees the whole old hidden state and must be worked again.",
                    "$\\tilde h_t$ and $h_t$ of part (a)", "h_tilde_open = h_tilde\nh_open = h_t",
                    {"h_tilde_open": cand, "h_open": h}),
            Mistake("z-wrong-side", "It looks like the update gate z sits on the wrong side of the blend: z weighs "
                    "the candidate, and one minus z the old hidden state.",
                    "$h_t=z\\,h_{t-1}+(1-z)\\,\\tilde h_t$", "h_open = z_t * h_prev + (1 - z_t) * h_tilde_open",
                    {"h_open": z * hp + (1 - z) * cand_open}),
            Mistake("compared-backwards", "It looks like the comparison was read the wrong way round: the question "
                    "asks how the candidate of part (a) stands against the one with the reset gate wide open.",
                    "the other word",
                    "candidate_was = 'higher' if h_tilde < h_tilde_open else 'lower'",
                    {"candidate_was": "lower" if direction == "higher" else "higher"}),
        ],
    }


def _run(xs, w, u, b, h=0.0, squash=np.tanh) -> list[float]:
    """The hidden states of a one-number cell h = squash(w h + u x + b) reading ``xs`` in the order given."""
    out = []
    for x in xs:
        h = float(squash(w * h + u * x + b))
        out.append(h)
    return out


@_entries(14)
def _problem_14(problem) -> dict[str, list[Mistake]]:
    """Problem 14: one plain cell h_t = tanh(w h_{t-1} + u x_t + b), run forwards and backwards from a state of 0."""
    n = problem.numbers
    w, u, b, xs = n["w"], n["u"], n["b"], [float(x) for x in n["xs"]]
    back = xs[::-1]
    fwd = [float(v) for v in problem.parts[0].answers[0].expected]
    bwd = [float(v) for v in problem.parts[1].answers[0].expected]
    loop = "for x in {src}:\n    h = {rule}\n    {name}.append(h)\n"

    def cell(name, src, rule, start="0.0", tail=""):
        return f"{name}, h = [], {start}\n" + loop.format(src=src, rule=rule, name=name) + tail

    right = "np.tanh(w * h + u * x + b)"
    fh, bh = "\\overrightarrow h", "\\overleftarrow h"
    return {
        "a": [
            Mistake("w-u-swapped", "It looks like w and u were swapped: w multiplies the old hidden state, u the input.",
                    f"${fh}_t=\\tanh(u\\,{fh}_{{t-1}} + w\\,x_t + b)$",
                    cell("fwd", "xs", "np.tanh(u * h + w * x + b)"),
                    {"fwd": _run(xs, u, w, b)}),
            Mistake("no-tanh", "It looks like the sums were not squashed: the cell applies tanh at every step.",
                    f"${fh}_t=w\\,{fh}_{{t-1}} + u\\,x_t + b$",
                    cell("fwd", "xs", "w * h + u * x + b"),
                    {"fwd": _run(xs, w, u, b, squash=lambda a: a)}),
            Mistake("state-not-carried", "It looks like every step started again from a state of 0; each step "
                    "starts from the hidden state the step before left.",
                    "$\\tanh(u\\,x_t + b)$",
                    "fwd = [np.tanh(w * 0.0 + u * x + b) for x in xs]",
                    {"fwd": [float(np.tanh(u * x + b)) for x in xs]}),
            Mistake("read-right-to-left", "It looks like these are the backward cell's states: the forward cell reads "
                    "the inputs from left to right, starting at word 1.",
                    f"$({bh}_1, {bh}_2, {bh}_3)$",
                    cell("fwd", "reversed(xs)", right, tail="fwd = fwd[::-1]\n"),
                    {"fwd": bwd}),
        ],
        "b": [
            Mistake("not-word-order", "It looks like the backward states were left in the order the cell made them; "
                    "list them in word order, the state at word 1 first.",
                    f"$({bh}_3, {bh}_2, {bh}_1)$",
                    cell("bwd", "reversed(xs)", right),
                    {"bwd": bwd[::-1]}),
            Mistake("read-left-to-right", "It looks like the backward cell read the inputs from left to right; it "
                    "starts at the last word and moves towards the first.",
                    f"$({fh}_1, {fh}_2, {fh}_3)$",
                    cell("bwd", "xs", right),
                    {"bwd": fwd}),
            Mistake("inputs-not-reversed", "It looks like the list of states was reversed but the inputs were not: the "
                    "backward cell must read the last input first.",
                    f"$({fh}_3, {fh}_2, {fh}_1)$",
                    cell("bwd", "xs", right, tail="bwd = bwd[::-1]\n"),
                    {"bwd": fwd[::-1]}),
            Mistake("state-not-reset", "It looks like the backward cell started from the forward cell's last hidden "
                    "state; it starts from a state of 0 of its own.",
                    f"the backward pass from ${fh}_3$",
                    cell("bwd", "reversed(xs)", right, start="fwd[-1]", tail="bwd = bwd[::-1]\n"),
                    {"bwd": _run(back, w, u, b, h=fwd[-1])[::-1]}),
            Mistake("w-u-swapped", "It looks like w and u were swapped: w multiplies the old hidden state, u the input.",
                    f"${bh}_t=\\tanh(u\\,{bh}_{{t+1}} + w\\,x_t + b)$",
                    cell("bwd", "reversed(xs)", "np.tanh(u * h + w * x + b)", tail="bwd = bwd[::-1]\n"),
                    {"bwd": _run(back, u, w, b)[::-1]}),
        ],
        "c": [
            Mistake("halves-swapped", "It looks like the two halves are in the wrong order: the forward half comes "
                    "first, then the backward half.",
                    f"$({bh}_2, {fh}_2)$", "word2 = [bwd[1], fwd[1]]", {"word2": [bwd[1], fwd[1]]}),
            Mistake("off-by-one-index", "It looks like the states of word 3 were taken: Python counts from 0, so "
                    "word 2 is at index 1.",
                    f"$({fh}_3, {bh}_3)$", "word2 = [fwd[2], bwd[2]]", {"word2": [fwd[2], bwd[2]]}),
        ],
        "d": [
            Mistake("both-halves", "It looks like both halves were taken to change; the forward half of word 1 has "
                    "read word 1 alone, so a later input cannot reach it.",
                    "“both”", "changes = 'both'", {"changes": "both"}),
            Mistake("directions-swapped", "It looks like the two directions were exchanged: the forward half of word 1 "
                    "has read only what came before it and word 1 itself.",
                    "“forward”", "changes = 'forward'", {"changes": "forward"}),
        ],
    }


@_entries(15)
def _problem_15(problem) -> dict[str, list[Mistake]]:
    """Problem 15: an output's probability is P(w1) P(w2 | w1); greedy takes the likeliest word each step, beam keeps B."""
    n = problem.numbers
    first, second = n["first"], n["second"]
    a_words, a_prob = (x.expected for x in problem.parts[0].answers)
    b_words, b_prob = (x.expected for x in problem.parts[1].answers)
    g1, g2 = a_words.split()
    c1, c2 = b_words.split()
    outputs = [(first[x] * p, f"{x} {y}") for x in first for y, p in second[x].items()]
    best_prob, best_words = max(outputs)
    g_log, b_log = np.log(a_prob), np.log(b_prob)
    return {
        "a": [
            Mistake("not-multiplied", "It looks like only the second word's probability was given; an output's "
                    "probability multiplies the probabilities of both its words.",
                    "$P(w_2\\mid w_1)$",
                    "w1, w2 = greedy_words.split()\ngreedy_prob = second[w1][w2]",
                    {"greedy_prob": float(second[g1][g2])}),
            Mistake("added", "It looks like the two words' probabilities were added; an output's probability is "
                    "their product.",
                    "$P(w_1) + P(w_2\\mid w_1)$",
                    "w1, w2 = greedy_words.split()\ngreedy_prob = first[w1] + second[w1][w2]",
                    {"greedy_prob": float(first[g1] + second[g1][g2])}),
            Mistake("best-whole-output", "It looks like the likeliest whole output was found; greedy decoding commits "
                    "to the likeliest first word and then takes the likeliest word after it.",
                    "$\\max_{w_1,w_2} P(w_1)\\,P(w_2\\mid w_1)$",
                    "greedy_prob, greedy_words = max((first[a] * p, f'{a} {b}') for a in first "
                    "for b, p in second[a].items())",
                    {"greedy_words": best_words, "greedy_prob": float(best_prob)}),
        ],
        "b": [
            Mistake("greedy-for-beam", "It looks like greedy decoding was done where beam search was asked: keep the "
                    "beam width's likeliest first words, grow each, and keep the likeliest outputs.",
                    "greedy's output and probability",
                    "beam_words, beam_prob = greedy_words, greedy_prob",
                    {"beam_words": a_words, "beam_prob": float(a_prob)}),
            Mistake("not-multiplied", "It looks like only the second word's probability was given; an output's "
                    "probability multiplies the probabilities of both its words.",
                    "$P(w_2\\mid w_1)$",
                    "w1, w2 = beam_words.split()\nbeam_prob = second[w1][w2]",
                    {"beam_prob": float(second[c1][c2])}),
            Mistake("added", "It looks like the two words' probabilities were added; an output's probability is "
                    "their product.",
                    "$P(w_1) + P(w_2\\mid w_1)$",
                    "w1, w2 = beam_words.split()\nbeam_prob = first[w1] + second[w1][w2]",
                    {"beam_prob": float(first[c1] + second[c1][c2])}),
        ],
        "c": [
            Mistake("log10-for-ln", "It looks like the logarithm was taken to base 10; log-probabilities use the "
                    "natural logarithm.",
                    "$\\log_{10} P$", "greedy_log, beam_log = np.log10(greedy_prob), np.log10(beam_prob)",
                    {"greedy_log": float(np.log10(a_prob)), "beam_log": float(np.log10(b_prob))}),
            Mistake("log2-for-ln", "It looks like the logarithm was taken to base 2; log-probabilities use the "
                    "natural logarithm.",
                    "$\\log_2 P$", "greedy_log, beam_log = np.log2(greedy_prob), np.log2(beam_prob)",
                    {"greedy_log": float(np.log2(a_prob)), "beam_log": float(np.log2(b_prob))}),
            Mistake("sign-flipped", "It looks like the negative log-probability was handed in; the question asks "
                    "for the log-probability itself, the natural logarithm of the probability.",
                    "$-\\ln P$", "greedy_log, beam_log = -np.log(greedy_prob), -np.log(beam_prob)",
                    {"greedy_log": float(-g_log), "beam_log": float(-b_log)}),
            Mistake("outputs-swapped", "It looks like the two log-probabilities were exchanged: greedy_log belongs "
                    "to greedy's output, beam_log to the beam's.",
                    "$\\ln P_{\\text{beam}}$, $\\ln P_{\\text{greedy}}$",
                    "greedy_log, beam_log = np.log(beam_prob), np.log(greedy_prob)",
                    {"greedy_log": float(b_log), "beam_log": float(g_log)}),
        ],
    }


def _counts(words: list[str], order: int) -> dict[str, int]:
    """How often each piece of ``order`` neighbouring words occurs in ``words``."""
    out: dict[str, int] = {}
    for i in range(len(words) - order + 1):
        piece = " ".join(words[i:i + order])
        out[piece] = out.get(piece, 0) + 1
    return out


@_entries(16)
def _problem_16(problem) -> dict[str, list[Mistake]]:
    """Problem 16: BLEU-2 = BP sqrt(pi1 pi2), clipped precisions, BP = min(1, exp(1 - l_ref / l_out))."""
    n = problem.numbers
    ref, cands = n["reference"], n["candidates"]
    r_words = ref.split()
    out = {}
    for part, k in zip(problem.parts[:3], cands):
        pi1, pi2, bp, bleu = (float(a.expected) for a in part.answers)
        words = cands[k].split()
        c = len(words)
        mine = [_counts(words, o) for o in (1, 2)]
        theirs = [_counts(r_words, o) for o in (1, 2)]
        matched = [sum(min(m, t.get(p, 0)) for p, m in mi.items()) for mi, t in zip(mine, theirs)]
        pi2_words = matched[1] / c
        bp_chars = min(1.0, float(np.exp(1 - len(ref) / c)))
        P1, P2, BP, BL = f"pi1_{k}", f"pi2_{k}", f"bp_{k}", f"bleu_{k}"
        cand = f"candidates[{k!r}]"
        again = f"{BL} = {BP} * np.sqrt({P1} * {P2})"
        out[part.letter] = [
            Mistake("pairs-over-words", "It looks like the matching pairs were divided by the candidate's count of "
                    "words; the pair precision divides by its count of pairs, one fewer.",
                    "$\\pi_2=$ matched pairs $/\\,\\ell_{\\text{out}}$",
                    f"mine, theirs = pieces({cand}, 2), pieces(reference, 2)\n"
                    f"{P2} = sum(min(m, theirs[p]) for p, m in mine.items()) / len({cand}.split())\n{again}",
                    {P2: pi2_words, BL: bp * float(np.sqrt(pi1 * pi2_words))}),
            Mistake("ref-length-in-characters", "It looks like the reference length was counted in characters; the "
                    "brevity penalty compares the counts of words.",
                    "$\\mathrm{BP}$ with $\\ell_{\\text{ref}}$ the reference's characters",
                    f"{BP} = min(1.0, np.exp(1 - len(reference) / len({cand}.split())))\n{again}",
                    {BP: bp_chars, BL: bp_chars * float(np.sqrt(pi1 * pi2))}),
            Mistake("no-square-root", "It looks like the square root was left out: BLEU-2 takes the geometric mean "
                    "of the two precisions.",
                    "$\\mathrm{BP}\\cdot\\pi_1\\pi_2$", f"{BL} = {BP} * {P1} * {P2}",
                    {BL: bp * pi1 * pi2}),
        ]
    keeps, top, _judges = (a.expected for a in problem.parts[3].answers)
    out[problem.parts[3].letter] = [
        Mistake("top-score-keeps-meaning", "It looks like the candidate with the highest BLEU was taken to keep the "
                "meaning; read each candidate against the reference, word by word.",
                "the highest BLEU-2", "keeps_meaning = scores_highest", {"keeps_meaning": top}),
        Mistake("meaning-keeper-scores-highest", "It looks like the candidate that keeps the meaning was taken to score "
                "highest; compare the BLEU-2 scores computed above.",
                "the candidate that keeps the meaning", "scores_highest = keeps_meaning", {"scores_highest": keeps}),
        Mistake("bleu-as-verdict", "It looks like a single sentence's BLEU was read as a verdict on its meaning; "
                "it counts the words and pairs shared with the reference.",
                "True", "bleu_judges_meaning = True", {"bleu_judges_meaning": True}),
    ]
    return out
