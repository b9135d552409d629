"""The sixteen practice problems of "Machines with Memory": their numbers, statements and solutions.

THE NUMBERS LIVE HERE, IN ``NUMBERS`` BELOW, AND NOWHERE ELSE. To change a problem,
edit its entry and run ``make exercises``: the instructor notebook (with its expected
values), the student version, the solution notebook, the answer key and the website's
practice pages are all rebuilt from it, and every expected value is computed afresh
by the course library ``mwm``.

Each problem is built by a function ``problem_N(numbers)`` that computes the answers
with ``mwm`` and returns a :class:`Problem`: the statement, the code cell that gives the
numbers to the student, one :class:`Part` per graded part (its question, the variables
the student sets, the points, the solution code) and the worked solution's steps.
Statements and steps are Markdown with ``$...$`` maths; solution code is ordinary Python
that reads the given variables, so it stays right when the numbers change.

The problems follow the unit's practice arena (problems 1-16, seed 000), restated in
the course's own words with every part kept.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

# --------------------------------------------------------------------------------------
# The numbers. Change them here, then run `make exercises`.
# --------------------------------------------------------------------------------------
NUMBERS: dict[int, dict[str, Any]] = {
    1: dict(w=0.8, u=1.0, b=0.0, h0=0.0, xs=[1.0, -1.0, 0.5]),
    2: dict(W=[[0.5, -0.5], [0.0, 1.0]], U=[[1.0], [2.0]], b=[0.0, -1.0], h0=[1.0, 0.0], xs=[0.5, 0.0]),
    3: dict(hidden=64, inputs=32, tags=12),
    4: dict(context="the chai is", words=["hot", "sweet", "ready", "cold"], scores=[3.0, 1.0, 0.0, -1.0],
            truth="sweet", other="hot"),
    5: dict(scores=[2.0, 0.0], temperatures=[1.0, 0.5, 2.0], p_now=[0.8, 0.2], p_wanted=[0.6, 0.4]),
    6: dict(w=0.8, u=1.0, b=0.0, h0=0.0, xs=[1.0, 0.0, 0.0]),
    7: dict(length=2500, k=50, blame_from=130, pair_across=(30, 70), pair_inside=(60, 90)),
    8: dict(w_fade=0.8, eps=1e-3, w_grow=1.2, big=1000.0),
    9: dict(A=[[0.6, 0.2], [0.2, 0.6]], B=[[1.1, 0.3], [0.3, 1.1]], v=[1.0, 0.0], steps=10),
    10: dict(limit=4.0, lr=0.1, g_long=[6.0, -8.0, 0.0], g_short=[1.0, 2.0, 2.0]),
    11: dict(c_prev=2.0, forget=2.0, input=0.0, output=1.0, candidate=1.0),
    12: dict(runs={"A": [1, 0.42, 0.176, 0.0741, 0.0311, 0.0131],
                   "B": [1, 2.1, 4.41, 9.26, 19.4, 40.8],
                   "C": [1, 0.97, 0.941, 0.913, 0.885, 0.859]},
             ahead=20, limit=5.0, far=100, share=0.5),
    13: dict(h_prev=-0.5, x=2.0, update_score=1.0, reset_score=-1.0, w_input=1.0, w_old=2.0),
    14: dict(w=0.5, u=1.0, b=0.0, xs=[1.0, 0.0, 0.5]),
    15: dict(first={"the": 0.6, "my": 0.4},
             second={"the": {"tea": 0.3, "chai": 0.3, "cup": 0.4}, "my": {"chai": 0.8, "tea": 0.2}},
             beam_width=2),
    16: dict(reference="we drink chai every morning",
             candidates={"A": "each morning we drink chai", "B": "we drink chai every evening",
                         "C": "we drink chai"},
             keeps_meaning="A"),
}

#: How the problems are grouped into nbgrader assignments and notebooks (see README, "For teachers").
ASSIGNMENT = "practice"
NOTEBOOK = "practice"


# --------------------------------------------------------------------------------------
# The shape of a problem
# --------------------------------------------------------------------------------------
@dataclass
class Answer:
    """One value the student sets, how it is checked and how the key prints it.

    kind: "number", "vector" (a list of numbers, any shape given by ``expected``),
    "integer", "choice" (one of ``options``), "bool" or "function" (checked on ``cases``).
    ``decimals`` / ``sig`` give the printed precision, which sets the tolerance
    (``mwm.grading.tolerance``).
    """

    name: str
    kind: str
    expected: Any
    decimals: int | None = 4
    sig: int | None = None
    options: tuple = ()
    cases: tuple = ()       # for functions: ((args, expected), ...)
    n_args: int | None = None
    what: str = ""          # the format the student is asked for, e.g. "a number"

    def shown(self) -> str:
        """The answer as the key prints it."""
        e = self.expected
        if self.kind == "number":
            return fmt(e, self.decimals, self.sig)
        if self.kind == "vector":
            return fmt_list(e, self.decimals, self.sig)
        if self.kind == "integer":
            return f"{int(e):,}".replace(",", "\u2009")
        if self.kind == "choice":
            return f"“{e}”"
        if self.kind == "bool":
            return str(bool(e))
        if self.kind == "function":
            return "; ".join(f"{self.name}({', '.join(map(_plain, args))}) = {_plain(want)}"
                             for args, want in self.cases)
        raise ValueError(f"unknown answer kind {self.kind!r}")


@dataclass
class Part:
    """A graded part: its question, the answers it asks for, its points and the solution code."""

    letter: str
    question: str                 # Markdown, one or two sentences
    answers: list[Answer]
    solution: str                 # Python for the answer cell's solution region
    points: int = 1


@dataclass
class Problem:
    number: int
    title: str
    level: str                    # easy, medium, hard
    practises: str                # what the problem trains, one line
    statement: str                # Markdown: the set-up, before the parts
    given: str                    # Python: the numbers, as the student's notebook defines them
    parts: list[Part]
    steps: list[str]              # Markdown: the worked solution, one paragraph per step
    remember: str                 # Markdown: the one thing to keep
    numbers: dict = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return f"p{self.number:02d}"

    @property
    def answers(self) -> list[Answer]:
        return [a for p in self.parts for a in p.answers]

    @property
    def points(self) -> int:
        return sum(p.points for p in self.parts)


class LibraryMissing(ImportError):
    """Raised by a problem whose expected values need a part of ``mwm`` that is not there yet."""


# --------------------------------------------------------------------------------------
# Formatting helpers (Markdown maths and Python literals)
# --------------------------------------------------------------------------------------
def fmt(x, decimals=4, sig=None) -> str:
    """A number as the text prints it: fixed decimals, or significant figures (1.2 \\times 10^{-8})."""
    x = float(x)
    if decimals is not None:
        s = f"{x:.{decimals}f}"
        return s.lstrip("-") if float(s) == 0 else s
    if sig is not None:
        if x != 0 and not 1e-3 <= abs(x) < 1e4:
            mant, exp = f"{x:.{sig - 1}e}".split("e")
            return f"{mant}\\times 10^{{{int(exp)}}}"
        return f"{x:.{sig}g}"
    return f"{x:g}"


def fmt_list(xs, decimals=4, sig=None) -> str:
    arr = np.asarray(xs, dtype=float)
    if arr.ndim == 2:
        return "(" + ", ".join(fmt_list(row, decimals, sig) for row in arr) + ")"
    return "(" + ",\\ ".join(fmt(x, decimals, sig) for x in arr) + ")"


def _plain(x) -> str:
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


def lit(x) -> str:
    """A Python literal for a number, a list of numbers or a string, as short as exact."""
    if isinstance(x, (bool, np.bool_)):
        return repr(bool(x))
    if isinstance(x, (int, np.integer)):
        return repr(int(x))
    if isinstance(x, (float, np.floating)):
        r = repr(float(x))
        return r[:-2] if r.endswith(".0") and abs(x) < 1e15 else r
    if isinstance(x, str):
        return repr(x)
    if isinstance(x, np.ndarray):
        return lit(x.tolist())
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(lit(v) for v in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in x.items()) + "}"
    raise TypeError(f"no literal for {type(x).__name__}")


def num(x) -> str:
    """A given number in maths: 0.8, 1, -0.5 (no trailing zeros)."""
    x = float(x)
    return f"{x:g}"


def tex_vec(v) -> str:
    return "(" + ",\\ ".join(num(x) for x in np.ravel(v)) + ")"


def tex_matrix(M) -> str:
    rows = " \\\\ ".join(" & ".join(num(x) for x in row) for row in np.atleast_2d(M))
    return f"\\begin{{pmatrix}} {rows} \\end{{pmatrix}}"


def signed(x, decimals=4) -> str:
    """``+ 0.5`` or ``- 0.5``, for writing a sum term by term."""
    s = fmt(abs(x), decimals)
    return f"- {s}" if x < 0 else f"+ {s}"


def par(x, decimals=4) -> str:
    """A number in parentheses when negative: 0.8 \\times (-0.3720)."""
    s = fmt(x, decimals)
    return f"({s})" if float(x) < 0 else s


# --------------------------------------------------------------------------------------
# The problems
# --------------------------------------------------------------------------------------
def problem_1(n) -> Problem:
    from mwm import scalar_rnn

    w, u, b, h0, xs = n["w"], n["u"], n["b"], n["h0"], n["xs"]
    hs = scalar_rnn(xs, w=w, u=u, b=b, h0=h0)
    prev = [h0, *hs[:-1]]
    sums = [w * p + u * x + b for p, x in zip(prev, xs)]
    ordinal = ["first", "second", "third"]
    parts = [
        Part(letter, f"The note after the {ordinal[t]} input, $h_{t + 1}$. Store it in `h{t + 1}`.",
             [Answer(f"h{t + 1}", "number", float(hs[t]), what="a number")],
             f"# Step {t + 1}: shrink the old note by w, add the new input, squash.\n"
             f"h{t + 1} = np.tanh(w * {'h0' if t == 0 else f'h{t}'} + u * xs[{t}] + b)\n"
             f"print(f\"h{t + 1} = {{h{t + 1}:.4f}}\")")
        for t, letter in enumerate("abc")
    ]
    steps = [
        f"**Input 1.** Before anything is read the note is $h_0={num(h0)}$, so "
        f"$h_1=\\tanh({num(w)}\\cdot {num(h0)} + {num(u)}\\cdot {num(xs[0])} + {num(b)})"
        f"=\\tanh({fmt(sums[0])})\\approx {fmt(hs[0])}$.",
    ]
    for t in (1, 2):
        steps.append(
            f"**Input {t + 1}.** Shrink the note: ${num(w)}\\times {par(hs[t - 1])} = {fmt(w * hs[t - 1])}$. "
            f"Add $u\\,x_{t + 1} + b = {fmt(u * xs[t] + b)}$ to get ${fmt(sums[t])}$, "
            f"and squash: $h_{t + 1}=\\tanh({fmt(sums[t])})\\approx {fmt(hs[t])}$.")
    return Problem(
        1, "A forward pass by hand", "easy", "one step of the one-number cell, three times over",
        statement=(
            "A recurrent cell whose note is a single number has recurrent weight "
            f"$w={num(w)}$, input weight $u={num(u)}$ and shift $b={num(b)}$; its note starts at "
            f"$h_0={num(h0)}$. It reads the inputs $x_1={num(xs[0])}$, $x_2={num(xs[1])}$, "
            f"$x_3={num(xs[2])}$ in that order, updating its note each time with "
            "$h_t=\\tanh(w\\,h_{t-1}+u\\,x_t+b)$. Give every answer to four decimals."),
        given=f"w, u, b, h0 = {lit(w)}, {lit(u)}, {lit(b)}, {lit(h0)}\nxs = {lit(xs)}",
        parts=parts, steps=steps,
        remember=("Every step does the same three things: it shrinks the old note by $w$, adds the "
                  "new input, and squashes the sum into $(-1, 1)$. One input of the opposite sign "
                  "is enough to flip the note's sign."),
        numbers=n)


def problem_2(n) -> Problem:
    from mwm import rnn_forward

    W, U, b, h0, xs = (np.array(n[k], dtype=float) for k in ("W", "U", "b", "h0", "xs"))
    hs = rnn_forward(xs.reshape(-1, 1), W, U, b, h0=h0)
    pieces = []
    prev = h0
    for t in range(2):
        Wh, Ux = W @ prev, U @ xs[t:t + 1]
        pieces.append((Wh, Ux, Wh + Ux + b))
        prev = hs[t]
    steps = []
    for t, (Wh, Ux, total) in enumerate(pieces):
        hp = "\\boldsymbol h_0" if t == 0 else "\\boldsymbol h_1"
        steps.append(
            f"**({'ab'[t]}) The three pieces.** $W{hp}={fmt_list(Wh)}$, $U x_{t + 1}={fmt_list(Ux)}$ and "
            f"$\\boldsymbol b={tex_vec(b)}$. Added up: ${fmt_list(total)}$.")
        steps.append(
            f"**({'ab'[t]}) Squash each entry.** $\\boldsymbol h_{t + 1}=\\tanh{fmt_list(total)}"
            f"\\approx {fmt_list(hs[t])}$.")
    return Problem(
        2, "One step with matrices", "easy", "the vector cell, entry by entry",
        statement=(
            "A cell keeps a note of two numbers and reads inputs of one number. Its weights and "
            "starting note are\n\n"
            f"$$W={tex_matrix(W)},\\quad U={tex_matrix(U)},\\quad \\boldsymbol b={tex_matrix(b.reshape(-1, 1))},"
            f"\\quad \\boldsymbol h_0={tex_matrix(h0.reshape(-1, 1))},$$\n\n"
            "and each step computes $\\boldsymbol h_t=\\tanh(W\\boldsymbol h_{t-1}+U x_t+\\boldsymbol b)$, "
            "with $\\tanh$ taken entry by entry. Give each note as a list of two numbers, to four decimals."),
        given=f"W = np.array({lit(W)})\nU = np.array({lit(U)})\nb = np.array({lit(b)})\n"
              f"h0 = np.array({lit(h0)})\nxs = {lit(xs)}",
        parts=[
            Part("a", f"The note $\\boldsymbol h_1$ after the input $x_1={num(xs[0])}$. Store it in `h1`.",
                 [Answer("h1", "vector", hs[0].tolist(), what="two numbers")],
                 "# Three pieces: the old note through W, the input through U, the shift; add, squash.\n"
                 "h1 = np.tanh(W @ h0 + U @ [xs[0]] + b)\nprint(\"h1 =\", h1.round(4))"),
            Part("b", f"The note $\\boldsymbol h_2$ after the input $x_2={num(xs[1])}$. Store it in `h2`.",
                 [Answer("h2", "vector", hs[1].tolist(), what="two numbers")],
                 "# The same three pieces, now starting from h1.\n"
                 "h2 = np.tanh(W @ h1 + U @ [xs[1]] + b)\nprint(\"h2 =\", h2.round(4))"),
        ],
        steps=steps,
        remember=("The shift $\\boldsymbol b$ is added at every step, whatever the input: with an input "
                  "of zero, the old note and the shift alone decide the new note."),
        numbers=n)


def problem_3(n) -> Problem:
    from mwm import cell_param_count, readout_param_count, stack_param_count

    h, d, k = n["hidden"], n["inputs"], n["tags"]
    one = cell_param_count(h, d)
    two_way = stack_param_count(h, d, bidirectional=True)
    floor2 = cell_param_count(h, h)
    two_floors = stack_param_count(h, d, num_layers=2)
    lstm, gru = cell_param_count(h, d, "lstm"), cell_param_count(h, d, "gru")
    lstm2 = stack_param_count(h, d, "lstm", bidirectional=True)
    head = readout_param_count(2 * h, k)
    tagger = lstm2 + head

    def g(x):
        return f"{x:,}".replace(",", "\\,")

    return Problem(
        3, "Counting weights", "medium", "the block $h(h+d)+h$, with directions, floors and gates",
        statement=(
            f"A word tagger reads word vectors of $d={d}$ numbers and keeps notes of $h={h}$ numbers. "
            "For each design below, count the numbers it learns: every weight and every shift. "
            "Each answer is a whole number."),
        given=f"h, d, tags = {h}, {d}, {k}",
        parts=[
            Part("a", "One plain recurrent cell. Store the count in `plain`.",
                 [Answer("plain", "integer", one, what="a whole number")],
                 "# W is h x h, U is h x d, b has h entries.\nplain = h * h + h * d + h\nprint(plain)"),
            Part("b", "A two-way reader made of plain cells. Store it in `two_way`.",
                 [Answer("two_way", "integer", two_way, what="a whole number")],
                 "# Two independent cells of the same shape, one per direction.\n"
                 "two_way = 2 * plain\nprint(two_way)"),
            Part("c", "Two floors of one-way plain cells, the upper floor reading the lower floor's notes. "
                      "Store it in `two_floors`.",
                 [Answer("two_floors", "integer", two_floors, what="a whole number")],
                 "# Floor 2 reads notes of h numbers instead of words of d numbers.\n"
                 "two_floors = plain + (h * h + h * h + h)\nprint(two_floors)"),
            Part("d", "A one-way LSTM, and a one-way GRU. Store them in `lstm` and `gru`.",
                 [Answer("lstm", "integer", lstm, what="a whole number"),
                  Answer("gru", "integer", gru, what="a whole number")],
                 "# An LSTM has four blocks of the plain cell's shape, a GRU three.\n"
                 "lstm = 4 * plain\ngru = 3 * plain\nprint(lstm, gru)"),
            Part("e", f"A two-way LSTM with a read-out on top that scores {k} tags from each word's two-way "
                      "note; count the read-out's matrix $V$ and shift $\\boldsymbol c$ as well. "
                      "Store it in `tagger`.",
                 [Answer("tagger", "integer", tagger, what="a whole number")],
                 "# Two LSTMs, then a read-out from the 2h-number two-way note to the tags.\n"
                 "tagger = 2 * lstm + (tags * 2 * h + tags)\nprint(tagger)", points=2),
        ],
        steps=[
            f"**(a) One block.** $P=h(h+d)+h={h}\\cdot {h + d}+{h}={g(h * (h + d))}+{h}={g(one)}$.",
            f"**(b) Two directions.** Two separate cells of the same shape: $2P={g(two_way)}$.",
            f"**(c) Two floors.** The upper floor reads {h}-number notes, not {d}-number words: "
            f"${h}\\cdot({h}+{h})+{h}={g(floor2)}$. With the lower floor, ${g(one)}+{g(floor2)}={g(two_floors)}$.",
            f"**(d) Gates.** An LSTM is four blocks, $4P={g(lstm)}$; a GRU is three, $3P={g(gru)}$.",
            f"**(e) The tagger.** Two LSTMs give $2\\cdot{g(lstm)}={g(lstm2)}$. Each word's note now has "
            f"$2h={2 * h}$ numbers, so $V$ is ${k}\\times{2 * h}$ and $\\boldsymbol c$ has {k} entries: "
            f"${g(k * 2 * h)}+{k}={g(head)}$. In all, ${g(lstm2)}+{g(head)}={g(tagger)}$.",
        ],
        remember=("Every design here is assembled from one block, $h(h+d)+h$. Count the blocks, and "
                  "ask what each block reads: words ($d$ numbers), notes ($h$) or two-way notes ($2h$)."),
        numbers=n)


def problem_4(n) -> Problem:
    from mwm import readout_gradient, softmax, surprise

    words, scores = n["words"], np.array(n["scores"], dtype=float)
    t, o = words.index(n["truth"]), words.index(n["other"])
    p = softmax(scores)
    loss_t, loss_o = surprise(p, t)[0], surprise(p, o)[0]
    blame = readout_gradient(p, t)
    e = np.exp(scores)
    score_list = ", ".join(f"“{w}” {num(s)}" for w, s in zip(words, scores))
    quoted = ", ".join(f"“{w}”" for w in words)
    return Problem(
        4, "Read-out and loss", "easy", "softmax, the surprise $-\\ln p$, and prediction minus truth",
        statement=(
            f"A language model has just read “{n['context']}”. Its read-out scores the possible next "
            f"words as follows: {score_list}. Keep the words in this order ({quoted}) in every list "
            "you give."),
        given=f"words = {lit(words)}\nscores = np.array({lit(scores)})",
        parts=[
            Part("a", "The probabilities of the four words, to four decimals. Store the list in `probs`.",
                 [Answer("probs", "vector", p.tolist(), what="four numbers")],
                 "# Exponentiate each score, add them up, divide.\n"
                 "probs = np.exp(scores) / np.exp(scores).sum()\nprint(probs.round(4))"),
            Part("b", f"The true next word is “{n['truth']}”: what is this step's loss? And what would it "
                      f"have been had the true word been “{n['other']}”? Three decimals; store them in "
                      "`loss_true` and `loss_other`.",
                 [Answer("loss_true", "number", float(loss_t), decimals=3, what="a number"),
                  Answer("loss_other", "number", float(loss_o), decimals=3, what="a number")],
                 "# The loss of one step is the surprise -ln p of the true word.\n"
                 f"loss_true = -np.log(probs[words.index({n['truth']!r})])\n"
                 f"loss_other = -np.log(probs[words.index({n['other']!r})])\n"
                 "print(round(loss_true, 3), round(loss_other, 3))"),
            Part("c", "The blame the read-out sends back to its four scores (prediction minus truth), "
                      "to four decimals. Store the list in `blame`.",
                 [Answer("blame", "vector", blame.tolist(), what="four numbers")],
                 "# Subtract the one-hot truth from the prediction.\n"
                 f"truth = np.zeros(len(words)); truth[words.index({n['truth']!r})] = 1\n"
                 "blame = probs - truth\nprint(blame.round(4))"),
        ],
        steps=[
            "**Exponentiate.** " + ", ".join(f"$e^{{{num(s)}}}\\approx {fmt(v)}$" for s, v in zip(scores, e))
            + f"; together $\\approx {fmt(e.sum())}$.",
            "**(a) Divide.** " + ", ".join(f"{w} $\\approx {fmt(q)}$" for w, q in zip(words, p)) + ".",
            f"**(b) Surprise.** The loss is $-\\ln {fmt(p[t])}\\approx {fmt(loss_t, 3)}$. Had the truth been "
            f"“{n['other']}”, it would have been $-\\ln {fmt(p[o])}\\approx {fmt(loss_o, 3)}$.",
            f"**(c) Prediction minus truth.** Take 1 away from the entry of “{n['truth']}”: "
            f"${fmt_list(blame)}$.",
        ],
        remember=("Confidence in the wrong word is what costs: the loss is small only when the true word "
                  "got a large share. The blame lowers every score in proportion to its probability and "
                  "raises the true word's by one minus its probability."),
        numbers=n)


def problem_5(n) -> Problem:
    from mwm import softmax

    scores, Ts = np.array(n["scores"], dtype=float), n["temperatures"]
    firsts = [float(softmax(scores, T)[0]) for T in Ts]
    p_now, p_want = n["p_now"], n["p_wanted"]
    gap = math.log(p_now[0] / p_now[1])           # score gap that gives p_now at T = 1
    T_new = gap / math.log(p_want[0] / p_want[1])  # the same gap, divided by T, gives p_wanted
    assert np.allclose(softmax([gap, 0.0], T_new), p_want), "the temperature must give the wanted shares"
    cold = softmax([gap, 0.0], 1e-9)
    Tlist = ", ".join(f"$T={num(T)}$" for T in Ts)
    return Problem(
        5, "Temperature, forwards and backwards", "medium", "$p_i\\propto e^{s_i/T}$, and the ratio rule run backwards",
        statement=(
            f"A model chooses between two next words with scores ${num(scores[0])}$ and ${num(scores[1])}$, "
            "and divides the scores by a temperature $T$ before the softmax."),
        given=f"scores = np.array({lit(scores)})\ntemperatures = {lit(Ts)}\n"
              f"p_now, p_wanted = {lit(p_now)}, {lit(p_want)}",
        parts=[
            Part("a", f"The first word's probability at {Tlist}, in that order, to four decimals. "
                      "Store the list in `p_first`.",
                 [Answer("p_first", "vector", firsts, what=f"{len(Ts)} numbers")],
                 "# Divide the scores by T, then softmax; keep the first word's share.\n"
                 "p_first = [float(np.exp(scores[0] / T) / np.exp(scores / T).sum()) for T in temperatures]\n"
                 "print(np.round(p_first, 4))"),
            Part("b", f"A second model gives its two words the probabilities ${num(p_now[0])}$ and "
                      f"${num(p_now[1])}$ at $T=1$. At which temperature would it give them "
                      f"${num(p_want[0])}$ and ${num(p_want[1])}$? Three decimals; store it in `T_new`.",
                 [Answer("T_new", "number", T_new, decimals=3, what="a number")],
                 "# At T = 1 the ratio of the shares is e^gap; at T it is e^(gap / T).\n"
                 "gap = np.log(p_now[0] / p_now[1])\n"
                 "T_new = gap / np.log(p_wanted[0] / p_wanted[1])\nprint(round(T_new, 3))"),
            Part("c", "What does the second model give its two words as $T\\to 0$? "
                      "Store the two probabilities in `p_cold`.",
                 [Answer("p_cold", "vector", cold.tolist(), what="two numbers")],
                 "# gap / T grows without bound: the larger score takes everything.\n"
                 "p_cold = [1.0, 0.0]\nprint(p_cold)"),
        ],
        steps=[
            "**(a) Two words make a sigmoid.** $p_1=\\dfrac{e^{s_1/T}}{e^{s_1/T}+e^{s_2/T}}"
            f"=\\sigma\\big((s_1-s_2)/T\\big)$, so "
            + ", ".join(f"$T={num(T)}$: $\\sigma({num((scores[0] - scores[1]) / T)})\\approx {fmt(q)}$"
                        for T, q in zip(Ts, firsts)) + ".",
            f"**(b) The gap.** At $T=1$ the shares stand in the ratio ${num(p_now[0])}/{num(p_now[1])}="
            f"{num(p_now[0] / p_now[1])}=e^{{\\Delta}}$, so the score gap is "
            f"$\\Delta=\\ln {num(p_now[0] / p_now[1])}\\approx {fmt(gap)}$.",
            f"**(b) The temperature.** We need $e^{{\\Delta/T}}={num(p_want[0])}/{num(p_want[1])}="
            f"{num(p_want[0] / p_want[1])}$, so $\\Delta/T=\\ln {num(p_want[0] / p_want[1])}\\approx "
            f"{fmt(math.log(p_want[0] / p_want[1]))}$ and $T\\approx {fmt(gap)}/{fmt(math.log(p_want[0] / p_want[1]))}"
            f"\\approx {fmt(T_new, 3)}$.",
            "**(c) Freezing.** As $T\\to 0$ the scaled gap $\\Delta/T$ grows without limit: the shares "
            f"tend to ${fmt_list(cold, 0)}$, which is greedy choice.",
        ],
        remember=("Temperature only rescales the gaps between scores. Any two shares stand in the ratio "
                  "$e^{\\text{gap}/T}$, so the rule can be used in either direction."),
        numbers=n)


def problem_8(n) -> Problem:
    w, eps, w2, big = n["w_fade"], n["eps"], n["w_grow"], n["big"]

    def first_below(factor, threshold):
        # w^T < threshold  <=>  T > ln(threshold) / ln(w)   (ln w < 0 flips the inequality)
        return math.floor(math.log(threshold) / math.log(factor)) + 1

    T_fade = first_below(w, eps)
    T_grow = math.floor(math.log(big) / math.log(w2)) + 1
    assert w ** T_fade < eps <= w ** (T_fade - 1) and w2 ** T_grow > big >= w2 ** (T_grow - 1)
    cases = tuple(((f, e), first_below(f, e)) for f, e in [(w, eps), (0.5, 0.01), (0.9, 0.5), (0.99, 0.1), (0.3, 1e-6)])
    for (f, e), T in cases:
        assert f ** T < e <= f ** (T - 1)
    return Problem(
        8, "Fade or explode", "medium", "turning “how many steps?” into a division with logarithms",
        statement=(
            "In the loop $h_t=w\\,h_{t-1}$ the blame that travels back $T$ steps is multiplied by $w^T$."),
        given=f"w_fade, eps = {lit(w)}, {lit(eps)}\nw_grow, big = {lit(w2)}, {lit(big)}",
        parts=[
            Part("a", "For $0<w<1$, write a formula for the first $T$ at which $w^T$ falls below "
                      "$\\varepsilon$. Write it as a Python function `first_below(w, eps)` that returns that "
                      "whole number.",
                 [Answer("first_below", "function", None, cases=cases, n_args=2, what="a function")],
                 "# w^T < eps  <=>  T ln w < ln eps  <=>  T > ln eps / ln w  (ln w < 0 flips the sign).\n"
                 "def first_below(w, eps):\n"
                 "    return int(np.floor(np.log(eps) / np.log(w))) + 1\n"
                 "print(first_below(w_fade, eps))", points=2),
            Part("b", f"Use it for $w={num(w)}$ and $\\varepsilon={num(eps)}$. Store the step in `T_fade`.",
                 [Answer("T_fade", "integer", T_fade, what="a whole number")],
                 "T_fade = first_below(w_fade, eps)\nprint(T_fade)"),
            Part("c", f"For $w={num(w2)}$, the first $T$ at which $w^T$ exceeds ${num(big)}$. "
                      "Store it in `T_explode`.",
                 [Answer("T_explode", "integer", T_grow, what="a whole number")],
                 "# w^T > big  <=>  T > ln big / ln w  (ln w > 0: no flip).\n"
                 "T_explode = int(np.floor(np.log(big) / np.log(w_grow))) + 1\nprint(T_explode)"),
        ],
        steps=[
            "**(a) Take logarithms.** $w^T<\\varepsilon \\iff T\\ln w<\\ln\\varepsilon \\iff "
            "T>\\dfrac{\\ln\\varepsilon}{\\ln w}$; the inequality turns round because $\\ln w<0$. The first "
            "whole number past that bound is $T=\\lfloor \\ln\\varepsilon/\\ln w\\rfloor+1$.",
            f"**(b) Fading.** $\\ln {num(eps)}/\\ln {num(w)}\\approx {fmt(math.log(eps))}/{fmt(math.log(w))}"
            f"\\approx {fmt(math.log(eps) / math.log(w), 2)}$, so $T={T_fade}$. Check: "
            f"${num(w)}^{{{T_fade - 1}}}\\approx {fmt(w ** (T_fade - 1), None, 3)}$ is not yet below, "
            f"${num(w)}^{{{T_fade}}}\\approx {fmt(w ** T_fade, None, 3)}$ is.",
            f"**(c) Exploding.** ${num(w2)}^T>{num(big)} \\iff T>\\ln {num(big)}/\\ln {num(w2)}\\approx "
            f"{fmt(math.log(big))}/{fmt(math.log(w2))}\\approx {fmt(math.log(big) / math.log(w2), 2)}$, so "
            f"$T={T_grow}$. Check: ${num(w2)}^{{{T_grow - 1}}}\\approx {fmt(w2 ** (T_grow - 1), 1)}$, "
            f"${num(w2)}^{{{T_grow}}}\\approx {fmt(w2 ** T_grow, 1)}$.",
        ],
        remember=(f"Mild factors are merciless over a few dozen steps: ${num(w)}$ loses a factor of "
                  f"${num(1 / eps)}$ in {T_fade} steps, and ${num(w2)}$ gains a factor of ${num(big)}$ "
                  f"in {T_grow}."),
        numbers=n)


ORDINAL = {2: "square", 3: "cube", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth", 9: "ninth"}


def problem_12(n) -> Problem:
    runs = {k: np.array(v, dtype=float) for k, v in n["runs"].items()}
    names = list(runs)
    ahead, limit, far, share = n["ahead"], n["limit"], n["far"], n["share"]
    steps_recorded = {k: len(v) - 1 for k, v in runs.items()}
    # the factor per step of a geometric sequence: the k-th root of last / first
    factor = {k: float((v[-1] / v[0]) ** (1 / (len(v) - 1))) for k, v in runs.items()}
    predicted = {k: factor[k] ** ahead for k in names}
    lstm_run = min(names, key=lambda k: abs(math.log(factor[k])))
    plain = [k for k in names if k != lstm_run]
    small_run = min(plain, key=lambda k: factor[k])
    big_run = max(plain, key=lambda k: factor[k])
    assert factor[small_run] < 1 < factor[big_run], "one plain run should fade and one explode"
    longest = runs[big_run][-1]
    scale = min(1.0, limit / longest)
    f_min = share ** (1 / far)
    lane_far = factor[lstm_run] ** far
    table = "| run | " + " | ".join(f"$k={i}$" for i in range(len(runs[names[0]]))) + " |\n"
    table += "|---|" + "---|" * len(runs[names[0]]) + "\n"
    for k in names:
        table += f"| {k} | " + " | ".join(f"{x:g}" for x in runs[k]) + " |\n"
    opts_run = tuple(names)
    fixes = ("gates", "clipping")
    return Problem(
        12, "Diagnose the runs", "hard", "reading a geometric sequence, and matching it to fade, explode or lane",
        statement=(
            "Three recurrent models were trained on the same task. For each, someone recorded the size of "
            "the blame that reached the note $k$ steps before the end:\n\n" + table),
        given="runs = {\n" + "".join(f"    {k!r}: {lit(runs[k])},\n" for k in names) + "}\n"
              f"ahead, limit, far, share = {ahead}, {lit(limit)}, {far}, {lit(share)}",
        parts=[
            Part("a", "Each run's factor per step, to two decimals: the ratio of neighbouring entries is "
                      f"nearly constant, so take the {ORDINAL[steps_recorded[names[0]]]} root of the last "
                      "entry over the first. Store them in " + ", ".join(f"`factor_{k}`" for k in names) + ".",
                 [Answer(f"factor_{k}", "number", factor[k], decimals=2, what="a number") for k in names],
                 "# Neighbouring entries keep the same ratio: take the root of last / first.\n"
                 + "".join(f"factor_{k} = (runs[{k!r}][-1] / runs[{k!r}][0]) ** (1 / (len(runs[{k!r}]) - 1))\n"
                           for k in names)
                 + "print(" + ", ".join(f"round(factor_{k}, 2)" for k in names) + ")"),
            Part("b", f"Predict the blame {ahead} steps back for each run: two significant figures for "
                      f"{' and '.join(plain)}, three decimals for {lstm_run}. Store them in "
                      + ", ".join(f"`far_{k}`" for k in names) + ".",
                 [Answer(f"far_{k}", "number", predicted[k], decimals=None if k != lstm_run else 3,
                         sig=2 if k != lstm_run else None, what="a number") for k in names],
                 "# Raise each factor to the power of the number of steps.\n"
                 + "".join(f"far_{k} = factor_{k} ** ahead\n" for k in names)
                 + "print(" + ", ".join(f"f'{{far_{k}:.3g}}'" for k in names) + ")"),
            Part("c", "One run is an LSTM, one a plain cell with small recurrent weights and one a plain cell "
                      "with large ones. Which is which? Store the run letters in `lstm_run`, `small_run` and "
                      "`big_run`. Which first aid does each plain cell need most, “gates” or “clipping”? "
                      "Store the answers in `fix_small` and `fix_big`.",
                 [Answer("lstm_run", "choice", lstm_run, options=opts_run, what="a run letter"),
                  Answer("small_run", "choice", small_run, options=opts_run, what="a run letter"),
                  Answer("big_run", "choice", big_run, options=opts_run, what="a run letter"),
                  Answer("fix_small", "choice", "gates", options=fixes, what="“gates” or “clipping”"),
                  Answer("fix_big", "choice", "clipping", options=fixes, what="“gates” or “clipping”")],
                 f"# Near 1: the LSTM's lane. Below 1: fading, small weights. Above 1: exploding, big weights.\n"
                 f"lstm_run, small_run, big_run = {lstm_run!r}, {small_run!r}, {big_run!r}\n"
                 "fix_small = 'gates'      # fading needs a path that does not shrink\n"
                 "fix_big = 'clipping'     # exploding needs its steps capped first\n"
                 "print(lstm_run, small_run, big_run, fix_small, fix_big)", points=2),
            Part("d", f"If run {big_run}'s last value, ${runs[big_run][-1]:g}$, were the length of the whole "
                      f"gradient, by what factor would clipping at $c={num(limit)}$ scale it? Four decimals; "
                      "store it in `clip_scale`.",
                 [Answer("clip_scale", "number", scale, what="a number")],
                 f"# Clipping multiplies the gradient by min(1, c / length).\n"
                 f"clip_scale = min(1.0, limit / runs[{big_run!r}][-1])\nprint(round(clip_scale, 4))"),
            Part("e", f"Run {lstm_run}'s lane keeps a factor $f$ per step. What is the smallest $f$ that still "
                      f"delivers at least {share:g} of the blame from {far} steps back? Five decimals; store it "
                      "in `f_min`.",
                 [Answer("f_min", "number", f_min, decimals=5, what="a number")],
                 f"# f ** far >= share  <=>  f >= share ** (1 / far).\n"
                 "f_min = share ** (1 / far)\nprint(round(f_min, 5))"),
        ],
        steps=[
            "**(a) One ratio per run.** Neighbouring entries keep an almost constant ratio, and the root "
            "averages it: " + ", ".join(
                f"{k}: $({runs[k][-1]:g}" + ("" if runs[k][0] == 1 else f"/{runs[k][0]:g}")
                + f")^{{1/{steps_recorded[k]}}}\\approx {fmt(factor[k], 2)}$" for k in names) + ".",
            f"**(b) Twenty steps.** " + ", ".join(
                f"{k}: ${fmt(factor[k], 2)}^{{{ahead}}}\\approx "
                f"{fmt(predicted[k], None if k != lstm_run else 3, 2 if k != lstm_run else None)}$" for k in names) + ".",
            f"**(c) Which is which.** {lstm_run} keeps its blame nearly steady, about ${fmt(factor[lstm_run], 2)}$ "
            f"per step: the LSTM's lane with a forget gate near 1. {small_run} fades ($|\\lambda|<1$): the plain "
            f"cell with small weights, which needs gates (an LSTM or a GRU). {big_run} explodes ($|\\lambda|>1$): "
            "the plain cell with large weights, which needs clipping first (and would gain from gates too).",
            f"**(d) Clipping.** ${runs[big_run][-1]:g}>{num(limit)}$, so the gradient is scaled by "
            f"${num(limit)}/{runs[big_run][-1]:g}\\approx {fmt(scale)}$.",
            f"**(e) The lane.** We need $f^{{{far}}}\\ge {share:g}$, that is $f\\ge {share:g}^{{1/{far}}}"
            f"=e^{{\\ln {share:g}/{far}}}\\approx {fmt(f_min, 5)}$. Run {lstm_run}'s ${fmt(factor[lstm_run], 2)}$ "
            f"is far short of that: ${fmt(factor[lstm_run], 2)}^{{{far}}}\\approx {fmt(lane_far, 3)}$.",
        ],
        remember=("Blame through time is a geometric sequence, and one ratio tells its story: below 1 it "
                  "fades, above 1 it explodes, close to 1 it travels far."),
        numbers=n)


#: problem number -> builder. Builders whose library is not merged yet raise ImportError.
BUILDERS: dict[int, Callable[[dict], Problem]] = {
    1: problem_1, 2: problem_2, 3: problem_3, 4: problem_4, 5: problem_5, 8: problem_8, 12: problem_12,
}


def build(number: int, numbers: dict | None = None) -> Problem:
    """Build problem ``number`` from ``numbers`` (default: :data:`NUMBERS`), computing its answers with mwm."""
    numbers = NUMBERS if numbers is None else numbers
    if number not in BUILDERS:
        raise LibraryMissing(f"problem {number} has no builder yet")
    try:
        return BUILDERS[number](numbers[number])
    except ImportError as exc:
        raise LibraryMissing(f"problem {number} waits on {exc}") from exc


def build_all(numbers: dict | None = None, *, skip_missing: bool = True) -> tuple[list[Problem], dict[int, str]]:
    """Build every problem; return (problems, {number: why it is missing})."""
    problems, missing = [], {}
    for number in range(1, 17):
        try:
            problems.append(build(number, numbers))
        except LibraryMissing as exc:
            if not skip_missing:
                raise
            missing[number] = str(exc)
    return problems, missing
