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

The problems are the course's sixteen practice problems, restated in
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
    4: dict(context="the chai is", words=["hot", "sweet", "ready", "cold"], logits=[3.0, 1.0, 0.0, -1.0],
            truth="sweet", other="hot"),
    5: dict(logits=[2.0, 0.0], temperatures=[1.0, 0.5, 2.0], p_now=[0.8, 0.2], p_wanted=[0.6, 0.4]),
    6: dict(w=0.8, u=1.0, b=0.0, h0=0.0, xs=[1.0, 0.0, 0.0]),
    7: dict(length=2500, tau=50, grad_from=130, pair_across=(30, 70), pair_inside=(60, 90)),
    8: dict(w_fade=0.8, eps=1e-3, w_grow=1.2, big=1000.0),
    9: dict(A=[[0.6, 0.2], [0.2, 0.6]], B=[[1.1, 0.3], [0.3, 1.1]], v=[1.0, 0.0], steps=10),
    10: dict(limit=4.0, lr=0.1, g_long=[6.0, -8.0, 0.0], g_short=[1.0, 2.0, 2.0]),
    11: dict(c_prev=2.0, forget=2.0, input=0.0, output=1.0, candidate=1.0),
    12: dict(runs={"A": [1, 0.42, 0.176, 0.0741, 0.0311, 0.0131],
                   "B": [1, 2.1, 4.41, 9.26, 19.4, 40.8],
                   "C": [1, 0.97, 0.941, 0.913, 0.885, 0.859]},
             ahead=20, limit=5.0, far=100, share=0.5),
    13: dict(h_prev=-0.5, x=2.0, a_z=1.0, a_r=-1.0, w_input=1.0, w_old=2.0),
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
    (``mwm_practice.checks.tolerance``).
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
    signature: str = ""     # for functions: how the key names it, e.g. "n_chunks(T, tau)"
    formula: str = ""       # for functions: the rule in maths (no dollars), e.g. "\\lceil T/\\tau\\rceil"

    def shown(self) -> str:
        """The answer as the key prints it."""
        e = self.expected
        if self.kind == "number":
            return fmt(e, self.decimals, self.sig)
        if self.kind == "vector":
            return fmt_list(e, self.decimals, self.sig)
        if self.kind == "integer":
            return f"{int(e):,}".replace(",", "\\,")
        if self.kind == "choice":
            return f"“{e}”"
        if self.kind == "bool":
            return str(bool(e))
        if self.kind == "function":
            # one worked case; the key prints the formula beside it (``formula``)
            args, want = self.cases[0]
            return f"{self.name}({', '.join(map(_plain, args))}) = {_plain(want)}"
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
        # :g writes 1280 to three figures as 1.28e+03: that, too, goes into the text's notation
        if x != 0 and (not 1e-3 <= abs(x) < 1e4 or "e" in f"{x:.{sig}g}"):
            mant, exp = f"{x:.{sig - 1}e}".split("e")
            return f"{mant}\\times 10^{{{int(exp)}}}"
        return f"{x:.{sig}g}"
    return f"{x:g}"


def fmt_list(xs, decimals=4, sig=None) -> str:
    """A list (or a list of rows) of numbers as the text prints it: ``(0.7616,\\ -0.3720)``, each by :func:`fmt`."""
    arr = np.asarray(xs, dtype=float)
    if arr.ndim == 2:
        return "(" + ", ".join(fmt_list(row, decimals, sig) for row in arr) + ")"
    return "(" + ",\\ ".join(fmt(x, decimals, sig) for x in arr) + ")"


def _plain(x) -> str:
    if isinstance(x, float):
        return f"{x:g}"
    return str(x)


def lit(x) -> str:
    """A Python literal for a number, a list of numbers or a string.

    A float keeps its point (``6.0``, not ``6``), so that an array built from given numbers
    is an array of floats and an update in place does not truncate.
    """
    if isinstance(x, (bool, np.bool_)):
        return repr(bool(x))
    if isinstance(x, (int, np.integer)):
        return repr(int(x))
    if isinstance(x, (float, np.floating)):
        return repr(float(x))
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
    """A given number in maths: 0.8, 1, -0.5 (no trailing zeros, no -0)."""
    x = float(x) + 0.0
    return f"{x:g}"


def tex_vec(v) -> str:
    """A vector of given numbers in maths, flattened: ``(1,\\ 0)``, each by :func:`num`."""
    return "(" + ",\\ ".join(num(x) for x in np.ravel(v)) + ")"


def tex_matrix(M) -> str:
    """A matrix (or a vector, as one row) of given numbers as a LaTeX ``pmatrix``, each entry by :func:`num`."""
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


def sci(x, sig=3) -> str:
    """A number in scientific notation, always: 1.24\\times 10^{-3} (so numbers compared side by side match)."""
    mant, exp = f"{float(x):.{sig - 1}e}".split("e")
    return f"{mant}\\times 10^{{{int(exp)}}}"


def pnum(x) -> str:
    """A given number in maths, in parentheses when negative: ``0.8``, ``(-0.5)`` (for ``a\\cdot b``)."""
    s = num(x)
    return f"({s})" if s.startswith("-") else s


def plus(x, decimals=4) -> str:
    """A term added on in a sum, its sign written once: ``+0.5`` or ``-0.5`` (never ``+-0.5``).

    ``decimals=None`` writes a given number as :func:`num` does (``+2``, ``-0.5``).
    """
    s = num(x) if decimals is None else fmt(x, decimals)
    return s if s.startswith("-") else f"+{s}"


def plus_num(x) -> str:
    """A given number added on in a sum: ``+ 0.5`` or ``- 0.5`` (spaced, as the statements write it)."""
    s = num(x)
    return f"- {s[1:]}" if s.startswith("-") else f"+ {s}"


_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_word(n: int) -> str:
    """A whole number in words, as the text writes counts: 3 -> "three", 25 -> "twenty-five".

    Args:
        n: a whole number, 0 to 99 (larger ones are written in digits, e.g. "120").

    Returns:
        str, lower case; capitalise it for the start of a sentence.

    Raises:
        TypeError: if ``n`` is not a whole number (a bool is not one).
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be a whole number, got {type(n).__name__}")
    n = int(n)
    if 0 <= n < 20:
        return _UNITS[n]
    if 20 <= n < 100:
        tens, units = divmod(n, 10)
        return _TENS[tens] + ("" if units == 0 else "-" + _UNITS[units])
    return str(n)


def and_list(items) -> str:
    """“a”, “a and b”, “a, b and c”."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# --------------------------------------------------------------------------------------
# The problems
# --------------------------------------------------------------------------------------
def problem_1(n) -> Problem:
    """Problem 1, a forward pass by hand (the one-number cell, chapter 2): ``h_t = tanh(w h_{t-1} + u x_t + b)``.

    Args:
        n: ``dict(w, u, b, h0, xs)``: floats, ``xs`` a list of 1 to 10 floats (three on the website).

    Returns:
        Problem with one part per input, answer ``h1``, ``h2``, ... (numbers in (-1, 1), four decimals).

    Raises:
        ValueError: if ``xs`` has no input or more than ten. KeyError: if a number is missing.
    """
    from mwm import scalar_rnn

    w, u, b, h0, xs = n["w"], n["u"], n["b"], n["h0"], n["xs"]
    if not 1 <= len(xs) <= len(ORDINAL_WORDS):
        raise ValueError(f"problem 1 needs 1 to {len(ORDINAL_WORDS)} inputs, got {len(xs)}")
    hs = scalar_rnn(xs, w=w, u=u, b=b, h0=h0)
    prev = [h0, *hs[:-1]]
    sums = [w * p + u * x + b for p, x in zip(prev, xs)]
    ordinal = ORDINAL_WORDS
    parts = [
        Part(letter, f"The hidden state after the {ordinal[t]} input, $h_{t + 1}$. Store it in `h{t + 1}`.",
             [Answer(f"h{t + 1}", "number", float(hs[t]), what="a number")],
             f"# Step {t + 1}: multiply the old state by w, add the new input and the bias, squash.\n"
             f"h{t + 1} = np.tanh(w * {'h0' if t == 0 else f'h{t}'} + u * xs[{t}] + b)\n"
             f"print(f\"h{t + 1} = {{h{t + 1}:.4f}}\")")
        for t, letter in zip(range(len(xs)), "abcdefghij")
    ]
    steps = [
        f"**Input 1.** Before anything is read the hidden state is $h_0={num(h0)}$, so "
        f"$h_1=\\tanh({num(w)}\\cdot {pnum(h0)} {plus_num(u)}\\cdot {pnum(xs[0])} {plus_num(b)})"
        f"=\\tanh({fmt(sums[0])})\\approx {fmt(hs[0])}$.",
    ]
    for t in range(1, len(xs)):
        steps.append(
            f"**Input {t + 1}.** Multiply the old state by $w$: ${num(w)}\\times {par(hs[t - 1])} = {fmt(w * hs[t - 1])}$. "
            f"Add $u\\,x_{t + 1} + b = {fmt(u * xs[t] + b)}$ to get ${fmt(sums[t])}$, "
            f"and squash: $h_{t + 1}=\\tanh({fmt(sums[t])})\\approx {fmt(hs[t])}$.")
    times = {1: "once", 2: "twice"}.get(len(xs), f"{number_word(len(xs))} times over")
    inputs = ", ".join(f"$x_{t + 1}={num(x)}$" for t, x in enumerate(xs))
    return Problem(
        1, "A forward pass by hand", "easy", f"one step of the one-number cell, {times}",
        statement=(
            "A recurrent cell whose hidden state is a single number has recurrent weight "
            f"$w={num(w)}$, input weight $u={num(u)}$ and bias $b={num(b)}$; its hidden state starts at "
            f"$h_0={num(h0)}$. " + (f"It reads the inputs {inputs} in that order, updating its state each time with "
                                   if len(xs) > 1 else f"It reads the input {inputs}, updating its state with ") +
            "$h_t=\\tanh(w\\,h_{t-1}+u\\,x_t+b)$. Give every answer to four decimals."),
        given=f"w, u, b, h0 = {lit(w)}, {lit(u)}, {lit(b)}, {lit(h0)}\nxs = {lit(xs)}",
        parts=parts, steps=steps,
        remember=("Every step does the same three things: it multiplies the old state by $w$, adds the "
                  "new input and the bias, and squashes the sum into $(-1, 1)$. One input of the opposite sign "
                  "is enough to flip the state's sign."),
        numbers=n)


def problem_2(n) -> Problem:
    """Problem 2, one step with matrices (the vector cell, chapter 2), two steps of a two-number hidden state.

    Args:
        n: ``dict(W, U, b, h0, xs)``: W 2x2, U 2x1, b and h0 two floats, xs two floats (lists).

    Returns:
        Problem with answers ``h1``, ``h2`` (two numbers each, four decimals).

    Raises:
        KeyError: if a number is missing; ValueError (from mwm): if a shape is wrong.
    """
    from mwm import rnn_forward

    W, U, b, h0, xs = (np.array(n[k], dtype=float) for k in ("W", "U", "b", "h0", "xs"))
    hs = rnn_forward(xs.reshape(-1, 1), dict(W=W, U=U, b=b), h0=h0)[0]
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
            "A cell keeps a hidden state of two numbers and reads inputs of one number. Its weights, bias and "
            "starting state are\n\n"
            f"$$W={tex_matrix(W)},\\quad U={tex_matrix(U)},\\quad \\boldsymbol b={tex_matrix(b.reshape(-1, 1))},"
            f"\\quad \\boldsymbol h_0={tex_matrix(h0.reshape(-1, 1))},$$\n\n"
            "and each step computes $\\boldsymbol h_t=\\tanh(W\\boldsymbol h_{t-1}+U x_t+\\boldsymbol b)$, "
            "with $\\tanh$ taken entry by entry. Give each hidden state as a list of two numbers, to four decimals."),
        given=f"W = np.array({lit(W)})\nU = np.array({lit(U)})\nb = np.array({lit(b)})\n"
              f"h0 = np.array({lit(h0)})\nxs = {lit(xs)}",
        parts=[
            Part("a", f"The hidden state $\\boldsymbol h_1$ after the input $x_1={num(xs[0])}$. Store it in `h1`.",
                 [Answer("h1", "vector", hs[0].tolist(), what="two numbers")],
                 "# Three pieces: the old state through W, the input through U, the bias; add, squash.\n"
                 "h1 = np.tanh(W @ h0 + U @ [xs[0]] + b)\nprint(\"h1 =\", h1.round(4))"),
            Part("b", f"The hidden state $\\boldsymbol h_2$ after the input $x_2={num(xs[1])}$. Store it in `h2`.",
                 [Answer("h2", "vector", hs[1].tolist(), what="two numbers")],
                 "# The same three pieces, now starting from h1.\n"
                 "h2 = np.tanh(W @ h1 + U @ [xs[1]] + b)\nprint(\"h2 =\", h2.round(4))"),
        ],
        steps=steps,
        remember=("The bias $\\boldsymbol b$ is added at every step, whatever the input: with an input "
                  "of zero, the old state and the bias alone decide the new state."),
        numbers=n)


def problem_3(n) -> Problem:
    """Problem 3, counting weights (chapters 3, 9-11): the block ``H(H+d)+H`` with directions, layers, gates.

    Args:
        n: ``dict(hidden, inputs, tags)``: whole numbers >= 1.

    Returns:
        Problem with whole-number answers ``plain``, ``two_way``, ``two_layers``, ``lstm``, ``gru``, ``tagger``.

    Raises:
        KeyError: if a number is missing; ValueError (from mwm): if one is not a whole number >= 1.
    """
    from mwm import cell_param_count, readout_param_count, stack_param_count

    h, d, k = n["hidden"], n["inputs"], n["tags"]
    one = cell_param_count(h, d)
    two_way = stack_param_count(h, d, bidirectional=True)
    layer2 = cell_param_count(h, h)
    two_layers = stack_param_count(h, d, num_layers=2)
    lstm, gru = cell_param_count(h, d, "lstm"), cell_param_count(h, d, "gru")
    lstm2 = stack_param_count(h, d, "lstm", bidirectional=True)
    head = readout_param_count(2 * h, k)
    tagger = lstm2 + head

    def g(x):
        return f"{x:,}".replace(",", "\\,")

    return Problem(
        3, "Counting weights", "medium", "the block $H(H+d)+H$, with directions, layers and gates",
        statement=(
            f"A word tagger reads word vectors of $d={d}$ numbers and keeps hidden states of $H={h}$ numbers. "
            "For each design below, count the numbers it learns: every weight and every bias. "
            "Each answer is a whole number."),
        given=f"H, d, tags = {h}, {d}, {k}",
        parts=[
            Part("a", "One plain recurrent cell. Store the count in `plain`.",
                 [Answer("plain", "integer", one, what="a whole number")],
                 "# W is H x H, U is H x d, b has H entries.\nplain = H * H + H * d + H\nprint(plain)"),
            Part("b", "A two-way reader made of plain cells. Store it in `two_way`.",
                 [Answer("two_way", "integer", two_way, what="a whole number")],
                 "# Two independent cells of the same shape, one per direction.\n"
                 "two_way = 2 * plain\nprint(two_way)"),
            Part("c", "A one-way reader built from two layers of plain cells, where the cell on top takes "
                      "in the hidden states of the cell below it. Store it in `two_layers`.",
                 [Answer("two_layers", "integer", two_layers, what="a whole number")],
                 "# Layer 2 reads hidden states of H numbers instead of words of d numbers.\n"
                 "two_layers = plain + (H * H + H * H + H)\nprint(two_layers)"),
            Part("d", "The same job done by gated cells reading in one direction: an LSTM, and (separately) "
                      "a GRU. Count each gate block as the plain cell was counted, with one weight block and "
                      "one bias (PyTorch keeps two bias vectors per block; count one). Store the two counts "
                      "in `lstm` and `gru`.",
                 [Answer("lstm", "integer", lstm, what="a whole number"),
                  Answer("gru", "integer", gru, what="a whole number")],
                 "# An LSTM has four blocks of the plain cell's shape, a GRU three.\n"
                 "lstm = 4 * plain\ngru = 3 * plain\nprint(lstm, gru)"),
            Part("e", f"The full tagger: a two-way LSTM, and above it a read-out that turns each word's two-way "
                      f"hidden state into logits for $K={k}$ tags. Include the read-out's matrix $V$ and bias "
                      "$\\boldsymbol b_V$. Store the count in `tagger`.",
                 [Answer("tagger", "integer", tagger, what="a whole number")],
                 "# Two LSTMs, then a read-out from the 2H-number two-way state to the tags.\n"
                 "tagger = 2 * lstm + (tags * 2 * H + tags)\nprint(tagger)", points=2),
        ],
        steps=[
            f"**(a) One block.** $P=H(H+d)+H={h}\\cdot {h + d}+{h}={g(h * (h + d))}+{h}={g(one)}$.",
            f"**(b) Two directions.** One cell per direction, each as large as the plain cell: $2P={g(two_way)}$.",
            f"**(c) Two layers.** What the upper layer takes in is a hidden state of {h} numbers instead of a word "
            f"of {d}: ${h}\\cdot({h}+{h})+{h}={g(layer2)}$. With the lower layer, ${g(one)}+{g(layer2)}={g(two_layers)}$.",
            f"**(d) Gates.** An LSTM is four blocks, $4P={g(lstm)}$; a GRU is three, $3P={g(gru)}$.",
            f"**(e) The tagger.** Two LSTMs give $2\\cdot{g(lstm)}={g(lstm2)}$. Each word's hidden state now has "
            f"$2H={2 * h}$ numbers, so $V$ is ${k}\\times{2 * h}$ and $\\boldsymbol b_V$ has {k} entries: "
            f"${g(k * 2 * h)}+{k}={g(head)}$. In all, ${g(lstm2)}+{g(head)}={g(tagger)}$.",
        ],
        remember=("Every design here is assembled from one block, $H(H+d)+H$. Count the blocks, then check "
                  "the width of what each block takes in: a word has $d$ numbers, a one-way hidden state $H$, a "
                  "two-way hidden state $2H$."),
        numbers=n)


def problem_4(n) -> Problem:
    """Problem 4, read-out and loss (chapter 4): softmax, the cross-entropy ``-ln p`` and prediction minus truth.

    Args:
        n: ``dict(context, words, logits, truth, other)``: a str, a list of distinct words, one float logit
            per word, and two of the words (the true next word and another).

    Returns:
        Problem with answers ``probs`` and ``grad_logits`` (one number per word), ``loss_true``, ``loss_other``;
        the notebook is given ``words``, ``logits``, ``true_word`` and ``other_word``.

    Raises:
        ValueError: if ``truth`` or ``other`` is not among ``words``. KeyError: if a number is missing.
    """
    from mwm import cross_entropy, readout_gradient, softmax

    words, logits = n["words"], np.array(n["logits"], dtype=float)
    t, o = words.index(n["truth"]), words.index(n["other"])
    p = softmax(logits)
    loss_t, loss_o = cross_entropy(p, t)[0], cross_entropy(p, o)[0]
    grad = readout_gradient(p, t)
    e = np.exp(logits)
    logit_list = ", ".join(f"“{w}” ${num(y)}$" for w, y in zip(words, logits))
    quoted = ", ".join(f"“{w}”" for w in words)
    count = number_word(len(words))
    return Problem(
        4, "Read-out and loss", "easy", "softmax, the cross-entropy $-\\ln p$, and prediction minus truth",
        statement=(
            f"A language model has just read “{n['context']}”. Its read-out gives the possible next "
            f"words these logits: {logit_list}. Keep the words in this order ({quoted}) in every list "
            "you give."),
        given=f"words = {lit(words)}\nlogits = np.array({lit(logits)})\n"
              f"true_word, other_word = {n['truth']!r}, {n['other']!r}",
        parts=[
            Part("a", f"The probabilities of the {count} words, to four decimals. Store the list in `probs`.",
                 [Answer("probs", "vector", p.tolist(), what=f"{count} numbers")],
                 "# Softmax: exponentiate each logit, add them up, divide.\n"
                 "probs = np.exp(logits) / np.exp(logits).sum()\nprint(probs.round(4))"),
            Part("b", f"Suppose the word that really came next is “{n['truth']}”. How large is the loss at "
                      f"this step? How large would it be had “{n['other']}” come next instead? Three decimals; "
                      "store them in `loss_true` and `loss_other`.",
                 [Answer("loss_true", "number", float(loss_t), decimals=3, what="a number"),
                  Answer("loss_other", "number", float(loss_o), decimals=3, what="a number")],
                 "# The loss of one step is the cross-entropy -ln p of the true word.\n"
                 "loss_true = -np.log(probs[words.index(true_word)])\n"
                 "loss_other = -np.log(probs[words.index(other_word)])\n"
                 "print(round(loss_true, 3), round(loss_other, 3))"),
            Part("c", f"The gradient of the loss with respect to the {count} logits (prediction minus truth), "
                      "to four decimals. Store the list in `grad_logits`.",
                 [Answer("grad_logits", "vector", grad.tolist(), what=f"{count} numbers")],
                 "# Subtract the one-hot truth from the prediction.\n"
                 "truth = np.zeros(len(words))\ntruth[words.index(true_word)] = 1\n"
                 "grad_logits = probs - truth\nprint(grad_logits.round(4))"),
        ],
        steps=[
            "**Exponentiate.** " + ", ".join(f"$e^{{{num(y)}}}\\approx {fmt(v)}$" for y, v in zip(logits, e))
            + f"; together $\\approx {fmt(e.sum())}$.",
            "**(a) Divide.** " + ", ".join(f"{w} $\\approx {fmt(q)}$" for w, q in zip(words, p)) + ".",
            f"**(b) Cross-entropy.** The loss is $-\\ln {fmt(p[t])}\\approx {fmt(loss_t, 3)}$. Had the truth been "
            f"“{n['other']}”, it would have been $-\\ln {fmt(p[o])}\\approx {fmt(loss_o, 3)}$.",
            f"**(c) Prediction minus truth.** Take 1 away from the entry of “{n['truth']}”: "
            f"${fmt_list(grad)}$.",
        ],
        remember=("Confidence in the wrong word is what costs: the loss is small only when the true word "
                  "got a large share. A step against this gradient lowers every other logit in proportion to "
                  "its probability and raises the true word's by one minus its probability."),
        numbers=n)


def problem_5(n) -> Problem:
    """Problem 5, temperature forwards and backwards (chapter 5): ``p_i ∝ e^{y_i/θ}``.

    Args:
        n: ``dict(logits, temperatures, p_now, p_wanted)``: two float logits, a list of positive temperatures,
            and two pairs of shares (each summing to 1, neither 1:1, both favouring the same word).

    Returns:
        Problem with answers ``p_first`` (one per temperature), ``theta_new`` (> 0, three decimals), ``p_cold``.

    Raises:
        ValueError (from mwm): if ``p_now`` is 1:1 (no temperature changes it). ZeroDivisionError: if
        ``p_wanted`` is 1:1. AssertionError: if the temperature found does not give the wanted shares.
    """
    from mwm import softmax

    logits, thetas = np.array(n["logits"], dtype=float), n["temperatures"]
    firsts = [float(softmax(logits, th)[0]) for th in thetas]
    p_now, p_want = n["p_now"], n["p_wanted"]
    gap = math.log(p_now[0] / p_now[1])                 # logit gap that gives p_now at theta = 1
    theta_new = gap / math.log(p_want[0] / p_want[1])  # the same gap, divided by theta, gives p_wanted
    assert np.allclose(softmax([gap, 0.0], theta_new), p_want), "the temperature must give the wanted shares"
    cold = softmax([gap, 0.0], 1e-9)
    theta_list = ", ".join(f"$\\theta={num(th)}$" for th in thetas)
    return Problem(
        5, "Temperature, forwards and backwards", "medium",
        "$p_i\\propto e^{y_i/\\theta}$, and the ratio rule run backwards",
        statement=(
            f"A model chooses between two next words with logits ${num(logits[0])}$ and ${num(logits[1])}$, "
            "and divides the logits by a temperature $\\theta$ before the softmax."),
        given=f"logits = np.array({lit(logits)})\ntemperatures = {lit(thetas)}\n"
              f"p_now, p_wanted = {lit(p_now)}, {lit(p_want)}",
        parts=[
            Part("a", f"The first word's probability at {theta_list}, in that order, to four decimals. "
                      "Store the list in `p_first`.",
                 [Answer("p_first", "vector", firsts, what=f"{len(thetas)} numbers")],
                 "# Divide the logits by theta, then softmax; keep the first word's share.\n"
                 "p_first = [float(np.exp(logits[0] / theta) / np.exp(logits / theta).sum()) for theta in temperatures]\n"
                 "print(np.round(p_first, 4))"),
            Part("b", f"A second model gives its two words the probabilities ${num(p_now[0])}$ and "
                      f"${num(p_now[1])}$ at $\\theta=1$. At which temperature would it give them "
                      f"${num(p_want[0])}$ and ${num(p_want[1])}$? Three decimals; store it in `theta_new`.",
                 [Answer("theta_new", "number", theta_new, decimals=3, what="a number")],
                 "# At theta = 1 the ratio of the shares is e^gap; at theta it is e^(gap / theta).\n"
                 "gap = np.log(p_now[0] / p_now[1])\n"
                 "theta_new = gap / np.log(p_wanted[0] / p_wanted[1])\nprint(round(theta_new, 3))"),
            Part("c", "What does the second model give its two words as $\\theta\\to 0$? "
                      "Store the two probabilities in `p_cold`.",
                 [Answer("p_cold", "vector", cold.tolist(), what="two numbers")],
                 "# gap / theta grows without bound: the likelier word takes everything.\n"
                 "p_cold = [1.0, 0.0] if p_now[0] > p_now[1] else [0.0, 1.0]\nprint(p_cold)"),
        ],
        steps=[
            "**(a) Two words make a sigmoid.** $p_1=\\dfrac{e^{y_1/\\theta}}{e^{y_1/\\theta}+e^{y_2/\\theta}}"
            "=\\sigma\\big((y_1-y_2)/\\theta\\big)$, so "
            + ", ".join(f"$\\theta={num(th)}$: $\\sigma({num((logits[0] - logits[1]) / th)})\\approx {fmt(q)}$"
                        for th, q in zip(thetas, firsts)) + ".",
            f"**(b) The gap.** At $\\theta=1$ the shares stand in the ratio ${num(p_now[0])}/{num(p_now[1])}="
            f"{num(p_now[0] / p_now[1])}=e^{{\\Delta}}$, so the logit gap is "
            f"$\\Delta=\\ln {num(p_now[0] / p_now[1])}\\approx {fmt(gap)}$.",
            f"**(b) The temperature.** We need $e^{{\\Delta/\\theta}}={num(p_want[0])}/{num(p_want[1])}="
            f"{num(p_want[0] / p_want[1])}$, so $\\Delta/\\theta=\\ln {num(p_want[0] / p_want[1])}\\approx "
            f"{fmt(math.log(p_want[0] / p_want[1]))}$ and $\\theta\\approx {fmt(gap)}/{fmt(math.log(p_want[0] / p_want[1]))}"
            f"\\approx {fmt(theta_new, 3)}$.",
            "**(c) Freezing.** As $\\theta\\to 0$ the scaled gap $\\Delta/\\theta$ grows without limit: the shares "
            f"tend to ${fmt_list(cold, 0)}$, which is greedy choice.",
        ],
        remember=("Temperature only rescales the gaps between logits. Any two shares stand in the ratio "
                  "$e^{\\text{gap}/\\theta}$, so the rule can be used in either direction."),
        numbers=n)


def problem_6(n) -> Problem:
    """Problem 6, the gradient through time (chapter 6): the backward product ``prod w (1 - h_t^2)`` over three steps.

    Args:
        n: ``dict(w, u, b, h0, xs)``: floats, ``xs`` a list of three floats.

    Returns:
        Problem with answers ``hs`` (three numbers), ``dh3_dh2``, ``dh2_dh1``, ``dh3_dh1``, ``dh3_dx1``.

    Raises:
        KeyError: if a number is missing; IndexError: if ``xs`` has fewer than three inputs.
    """
    from mwm import scalar_rnn
    from mwm.bptt import scalar_bptt, step_factors

    w, u, b, h0, xs = n["w"], n["u"], n["b"], n["h0"], n["xs"]
    hs = scalar_rnn(xs, w=w, u=u, b=b, h0=h0)
    factors = step_factors(hs, w)                  # dh_t / dh_{t-1}, t = 1..3
    d32, d21 = float(factors[2]), float(factors[1])
    # the gradient of L = h_3 sent back by BPTT: dh[0] is dh_3/dh_1, da[0] * u is dh_3/dx_1
    grads = scalar_bptt(xs, hs, [0.0, 0.0, 1.0], w, u, b, h0)
    d31, d3x1 = float(grads.dh[0]), float(grads.da[0] * u)
    assert np.isclose(d31, d32 * d21)
    prev = [h0, *hs[:-1]]
    sums = [w * p + u * x + b for p, x in zip(prev, xs)]
    return Problem(
        6, "The gradient through time", "medium", "the backward product $\\prod w\\,(1-h_t^2)$",
        statement=(
            f"A one-number cell with $w={num(w)}$, $u={num(u)}$, $b={num(b)}$ and $h_0={num(h0)}$ reads "
            f"$x={tex_vec(xs)}$, using $h_t=\\tanh(w\\,h_{{t-1}}+u\\,x_t+b)$. Give every answer to four decimals."),
        given=f"w, u, b, h0 = {lit(w)}, {lit(u)}, {lit(b)}, {lit(h0)}\nxs = {lit(xs)}",
        parts=[
            Part("a", "The three hidden states $h_1, h_2, h_3$. Store them as a list in `hs`.",
                 [Answer("hs", "vector", hs.tolist(), what="three numbers")],
                 "# Forward first, keeping every state: the way back needs them.\n"
                 "hs, h = [], h0\nfor x in xs:\n    h = np.tanh(w * h + u * x + b)\n    hs.append(h)\n"
                 "print(np.round(hs, 4))"),
            Part("b", "The one-step Jacobians $\\partial h_3/\\partial h_2$ and $\\partial h_2/\\partial h_1$ "
                      "(here single numbers), and their product $\\partial h_3/\\partial h_1$. Store them in `dh3_dh2`, `dh2_dh1`, `dh3_dh1`.",
                 [Answer("dh3_dh2", "number", d32, what="a number"),
                  Answer("dh2_dh1", "number", d21, what="a number"),
                  Answer("dh3_dh1", "number", d31, what="a number")],
                 "# One factor per step back: dh_t/dh_(t-1) = w (1 - h_t^2); the chain multiplies them.\n"
                 "dh3_dh2 = w * (1 - hs[2] ** 2)\ndh2_dh1 = w * (1 - hs[1] ** 2)\n"
                 "dh3_dh1 = dh3_dh2 * dh2_dh1\nprint(round(dh3_dh2, 4), round(dh2_dh1, 4), round(dh3_dh1, 4))",
                 points=2),
            Part("c", "How much does $h_3$ move per unit of the first input: $\\partial h_3/\\partial x_1$? "
                      "Store it in `dh3_dx1`.",
                 [Answer("dh3_dx1", "number", d3x1, what="a number")],
                 "# h1 = tanh(w h0 + u x1 + b), so dh1/dx1 = u (1 - h1^2); then on to h3.\n"
                 "dh3_dx1 = dh3_dh1 * u * (1 - hs[0] ** 2)\nprint(round(dh3_dx1, 4))"),
        ],
        steps=[
            "**(a) Forward.** " + "; ".join(
                f"$h_{t + 1}=\\tanh({fmt(sums[t])})\\approx {fmt(hs[t])}$" for t in range(3)) + ".",
            f"**(b) One factor per step.** $\\partial h_3/\\partial h_2={num(w)}\\,(1-{par(hs[2])}^2)\\approx "
            f"{fmt(d32)}$ and $\\partial h_2/\\partial h_1={num(w)}\\,(1-{par(hs[1])}^2)\\approx {fmt(d21)}$.",
            f"**(b) Multiply.** $\\partial h_3/\\partial h_1\\approx {fmt(d32)}\\times {par(d21)}\\approx {fmt(d31)}$.",
            f"**(c) Down to the input.** Since $h_1=\\tanh(w\\,h_0+u\\,x_1+b)$, "
            f"$\\partial h_1/\\partial x_1=u\\,(1-h_1^2)\\approx {fmt(u * (1 - hs[0] ** 2))}$, and "
            f"$\\partial h_3/\\partial x_1\\approx {fmt(d31)}\\times {par(u * (1 - hs[0] ** 2))}\\approx {fmt(d3x1)}$.",
        ],
        remember=("The gradient flowing back through time is a product with one factor $w\\,(1-h_t^2)$ per step: "
                  "the weight and how saturated each state is decide together how much survives."),
        numbers=n)


def problem_7(n) -> Problem:
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


def problem_11(n) -> Problem:
    """Problem 11, one LSTM step (chapter 9): sigmoid gates, a tanh candidate, the cell state and the hidden state.

    Args:
        n: ``dict(c_prev, forget, input, output, candidate)``: floats (the four pre-activations).

    Returns:
        Problem with answers ``f_t``, ``i_t``, ``o_t``, ``c_tilde``, ``c_t``, ``h_t``.

    Raises:
        KeyError: if a number is missing.
    """
    from mwm.lstm import LSTMState, lstm_step

    c_prev = n["c_prev"]
    pre = {"f": n["forget"], "i": n["input"], "o": n["output"], "c": n["candidate"]}
    # a one-number LSTM whose pre-activations are exactly the given numbers: zero weights, the numbers as
    # biases (mwm.lstm's block for the candidate is "c", its value in the cache "c_tilde")
    weights = {}
    for key, a in pre.items():
        weights.update({f"W_{key}": [[0.0]], f"U_{key}": [[0.0]], f"b_{key}": [a]})
    (h, c), cache = lstm_step(LSTMState([0.0], [c_prev]), [0.0], weights)
    f, i, o, g = (float(cache[key][0]) for key in ("f", "i", "o", "c_tilde"))
    c, h = float(c[0]), float(h[0])
    return Problem(
        11, "One LSTM step", "medium", "sigmoid gates, a tanh candidate, the cell state and the hidden state",
        statement=(
            f"A one-number LSTM carries the cell state $c_{{t-1}}={num(c_prev)}$. Its pre-activations are: "
            f"forget gate $a_f={num(pre['f'])}$, input gate $a_i={num(pre['i'])}$, output gate "
            f"$a_o={num(pre['o'])}$, candidate $a_c={num(pre['c'])}$. The gates are the sigmoids of theirs, "
            "$f_t=\\sigma(a_f)$ and so on, the candidate is $\\tilde c_t=\\tanh a_c$, and "
            "$c_t=f_t\\,c_{t-1}+i_t\\,\\tilde c_t$, $h_t=o_t\\tanh c_t$. Four decimals throughout."),
        given=f"c_prev = {lit(c_prev)}\na_f, a_i, a_o, a_c = "
              f"{lit(pre['f'])}, {lit(pre['i'])}, {lit(pre['o'])}, {lit(pre['c'])}",
        parts=[
            Part("a", "The forget, input and output gates and the candidate. Store them in `f_t`, `i_t`, `o_t`, "
                      "`c_tilde`.",
                 [Answer("f_t", "number", f, what="a number"), Answer("i_t", "number", i, what="a number"),
                  Answer("o_t", "number", o, what="a number"), Answer("c_tilde", "number", g, what="a number")],
                 "# Gates: sigmoids of their pre-activations. Candidate: tanh of its pre-activation.\n"
                 "sigmoid = lambda a: 1 / (1 + np.exp(-a))\n"
                 "f_t, i_t, o_t = sigmoid(a_f), sigmoid(a_i), sigmoid(a_o)\n"
                 "c_tilde = np.tanh(a_c)\n"
                 "print(round(f_t, 4), round(i_t, 4), round(o_t, 4), round(c_tilde, 4))",
                 points=2),
            Part("b", "The new cell state $c_t$ and the new hidden state $h_t$. Store them in `c_t` and `h_t`.",
                 [Answer("c_t", "number", c, what="a number"), Answer("h_t", "number", h, what="a number")],
                 "# Keep part of the old cell state, add part of the candidate; then read it out.\n"
                 "c_t = f_t * c_prev + i_t * c_tilde\nh_t = o_t * np.tanh(c_t)\nprint(round(c_t, 4), round(h_t, 4))"),
        ],
        steps=[
            f"**(a) The gates.** $f_t=\\sigma({num(pre['f'])})\\approx {fmt(f)}$, $i_t=\\sigma({num(pre['i'])})"
            f"\\approx {fmt(i)}$, $o_t=\\sigma({num(pre['o'])})\\approx {fmt(o)}$.",
            f"**(a) The candidate.** $\\tilde c_t=\\tanh({num(pre['c'])})\\approx {fmt(g)}$.",
            f"**(b) The cell state.** $c_t={fmt(f)}\\cdot {pnum(c_prev)}+{fmt(i)}\\cdot {par(g)}\\approx "
            f"{fmt(f * c_prev)}{plus(i * g)}={fmt(c)}$.",
            f"**(b) The hidden state.** $\\tanh({fmt(c)})\\approx {fmt(np.tanh(c))}$, so $h_t\\approx {fmt(o)}\\cdot "
            f"{par(np.tanh(c))}\\approx {fmt(h)}$.",
        ],
        remember=("Nothing squashes the cell state, so it may grow past 1. Only the hidden state $h_t$ is "
                  "squashed, when the output gate reads the cell state out."),
        numbers=n)


def problem_13(n) -> Problem:
    """Problem 13, one GRU step (chapter 10): the reset gate shapes the candidate, the update gate blends.

    Args:
        n: ``dict(h_prev, x, a_z, a_r, w_input, w_old)``: floats (``a_z``, ``a_r`` the gates' pre-activations).

    Returns:
        Problem with answers ``z_t``, ``r_t``, ``h_tilde``, ``h_t``, ``h_tilde_open``, ``h_open`` and
        ``candidate_was`` ("higher"/"lower").

    Raises:
        KeyError: if a number is missing.
    """
    from mwm.gru import blend, gru_candidate, gru_step

    hp, x, az, ar, wx, wo = (n[k] for k in ("h_prev", "x", "a_z", "a_r", "w_input", "w_old"))
    # a one-number GRU whose gate pre-activations are the given numbers (zero weights, the numbers as biases)
    weights = {"W_z": [[0.0]], "U_z": [[0.0]], "b_z": [az], "W_r": [[0.0]], "U_r": [[0.0]], "b_r": [ar],
               "W_h": [[wo]], "U_h": [[wx]], "b_h": [0.0]}
    h, cache = gru_step([hp], [x], weights)
    z, r, cand, h = float(cache["z"][0]), float(cache["r"][0]), float(cache["candidate"][0]), float(h[0])
    cand_open = float(gru_candidate([hp], 1.0, [[wo]], [wx * x])[0])
    h_open = float(blend(hp, cand_open, z))
    direction = "higher" if cand > cand_open else "lower"
    hp_ = f"({num(hp)})" if hp < 0 else num(hp)        # the old state, in parentheses when negative
    return Problem(
        13, "One GRU step", "medium", "where each GRU gate acts: the reset gate shapes the candidate, the update "
                                      "gate mixes the candidate with the old state",
        statement=(
            f"A one-number GRU holds the hidden state $h_{{t-1}}={num(hp)}$ and reads the input $x={num(x)}$. The "
            f"pre-activations of its update and reset gates are $a_z={num(az)}$ and $a_r={num(ar)}$, so "
            "$z=\\sigma(a_z)$ and $r=\\sigma(a_r)$. The candidate weighs the input by "
            f"${num(wx)}$ and the old state, scaled by the reset gate, by ${num(wo)}$: "
            f"$\\tilde h_t=\\tanh({num(wx)}\\,x{plus(wo, None)}\\,r\\,h_{{t-1}})$, and the new hidden state is the "
            "blend $h_t=(1-z)\\,h_{t-1}+z\\,\\tilde h_t$. Four decimals throughout."),
        given=f"h_prev, x = {lit(hp)}, {lit(x)}\na_z, a_r = {lit(az)}, {lit(ar)}\n"
              f"w_input, w_old = {lit(wx)}, {lit(wo)}",
        parts=[
            Part("a", "The gates $z$ and $r$, the candidate $\\tilde h_t$ and the new hidden state $h_t$. Store "
                      "them in `z_t`, `r_t`, `h_tilde` and `h_t`.",
                 [Answer("z_t", "number", z, what="a number"), Answer("r_t", "number", r, what="a number"),
                  Answer("h_tilde", "number", cand, what="a number"), Answer("h_t", "number", h, what="a number")],
                 "# Squash the pre-activations; the reset gate scales the old state inside the candidate; blend.\n"
                 "sigmoid = lambda a: 1 / (1 + np.exp(-a))\n"
                 "z_t, r_t = sigmoid(a_z), sigmoid(a_r)\n"
                 "h_tilde = np.tanh(w_input * x + w_old * r_t * h_prev)\n"
                 "h_t = (1 - z_t) * h_prev + z_t * h_tilde\n"
                 "print(round(z_t, 4), round(r_t, 4), round(h_tilde, 4), round(h_t, 4))", points=2),
            Part("b", "Work the candidate and the hidden state again with the reset gate wide open, $r=1$ (store "
                      "them in `h_tilde_open` and `h_open`). Did the reset gate of part (a) make the candidate "
                      "“higher” or “lower” than it would be with $r=1$? Store the word in `candidate_was`.",
                 [Answer("h_tilde_open", "number", cand_open, what="a number"),
                  Answer("h_open", "number", h_open, what="a number"),
                  Answer("candidate_was", "choice", direction, options=("higher", "lower"),
                         what="“higher” or “lower”")],
                 "# The same step with r = 1: the candidate now sees the whole old state.\n"
                 "h_tilde_open = np.tanh(w_input * x + w_old * 1.0 * h_prev)\n"
                 "h_open = (1 - z_t) * h_prev + z_t * h_tilde_open\n"
                 "candidate_was = 'higher' if h_tilde > h_tilde_open else 'lower'\n"
                 "print(round(h_tilde_open, 4), round(h_open, 4), candidate_was)", points=2),
        ],
        steps=[
            f"**(a) The gates.** $z=\\sigma({num(az)})\\approx {fmt(z)}$ and $r=\\sigma({num(ar)})\\approx {fmt(r)}$.",
            f"**(a) The candidate.** $r\\,h_{{t-1}}\\approx {fmt(r)}\\cdot {hp_}={fmt(r * hp)}$; times ${num(wo)}$: "
            f"${fmt(wo * r * hp)}$; with the input's ${fmt(wx * x)}$ the sum is ${fmt(wx * x + wo * r * hp)}$, and "
            f"$\\tilde h_t=\\tanh({fmt(wx * x + wo * r * hp)})\\approx {fmt(cand)}$.",
            f"**(a) The blend.** $h_t\\approx (1-{fmt(z)})\\cdot {hp_}+{fmt(z)}\\cdot {par(cand)}\\approx "
            f"{fmt((1 - z) * hp)}{plus(z * cand)}={fmt(h)}$.",
            f"**(b) Reset wide open.** $\\tilde h_t=\\tanh({fmt(wx * x)}{plus(wo, None)}\\cdot {hp_})"
            f"=\\tanh({fmt(wx * x + wo * hp)})\\approx {fmt(cand_open)}$ and $h_t\\approx (1-{fmt(z)})\\cdot {hp_}"
            f"+{fmt(z)}\\cdot {par(cand_open)}\\approx {fmt((1 - z) * hp)}{plus(z * cand_open)}={fmt(h_open)}$.",
            f"**(b) What the gate did.** In (a) only a share $r\\approx {fmt(r)}$ of the old state ${num(hp)}$ "
            f"went into the candidate; with $r=1$ all of it goes in, and the candidate moves from ${fmt(cand)}$ to "
            f"${fmt(cand_open)}$. So the reset gate of (a) made the candidate {direction} than it would be "
            "with $r=1$.",
        ],
        remember=("Each gate has its own place: the reset gate filters the old state before the candidate is "
                  "made, and the update gate weighs the candidate against the old state in the blend. Whatever "
                  "the gates do, a share $1-z$ of the old state goes straight into the new one."),
        numbers=n)


def problem_14(n) -> Problem:
    """Problem 14, reading both ways (chapter 11): one plain cell run forwards and backwards over three inputs.

    Args:
        n: ``dict(w, u, b, xs)``: floats, ``xs`` a list of three floats.

    Returns:
        Problem with answers ``fwd``, ``bwd`` (one number per input), ``word2`` and ``changes``.

    Raises:
        KeyError: if a number is missing; IndexError: if ``xs`` has fewer than two inputs.
    """
    from mwm.readers import bidirectional_forward

    w, u, b, xs = n["w"], n["u"], n["b"], n["xs"]
    cell = {"W": [[w]], "U": [[u]], "b": [b]}
    states = bidirectional_forward(np.reshape(xs, (-1, 1)), cell, cell, cell="rnn")
    fwd, bwd = states[:, 0], states[:, 1]
    changed = np.array(xs, dtype=float)
    changed[-1] += 1.0
    moved = np.abs(bidirectional_forward(changed.reshape(-1, 1), cell, cell, cell="rnn")[0] - states[0]) > 1e-12
    which = {(False, True): "backward", (True, False): "forward", (True, True): "both", (False, False): "neither"}[
        tuple(bool(m) for m in moved)]
    T = len(xs)
    f_sums = [w * p + u * x + b for p, x in zip([0.0, *fwd[:-1]], xs)]
    b_sums = [w * p + u * x + b for p, x in zip([*bwd[1:], 0.0], xs)]
    return Problem(
        14, "Reading both ways", "medium", "one cell run in two directions, and which half knows what",
        statement=(
            f"Two one-number plain cells, each with $w={num(w)}$, $u={num(u)}$, $b={num(b)}$ and a starting state of 0, "
            f"read the inputs $x={tex_vec(xs)}$: the forward cell from left to right, the backward cell from right "
            "to left. Four decimals throughout."),
        given=f"w, u, b = {lit(w)}, {lit(u)}, {lit(b)}\nxs = {lit(xs)}",
        parts=[
            Part("a", "The forward hidden states $\\overrightarrow h_1, \\overrightarrow h_2, \\overrightarrow h_3$. "
                      "Store them as a list in `fwd`.",
                 [Answer("fwd", "vector", fwd.tolist(), what=f"{T} numbers")],
                 "# Left to right, from a state of 0.\nfwd, h = [], 0.0\nfor x in xs:\n"
                 "    h = np.tanh(w * h + u * x + b)\n    fwd.append(h)\nprint(np.round(fwd, 4))"),
            Part("b", "The backward hidden states, listed in word order: $\\overleftarrow h_1, \\overleftarrow h_2, "
                      "\\overleftarrow h_3$. Store them in `bwd`.",
                 [Answer("bwd", "vector", bwd.tolist(), what=f"{T} numbers")],
                 "# Right to left, from a state of 0; then put the states back in word order.\nbwd, h = [], 0.0\n"
                 "for x in reversed(xs):\n    h = np.tanh(w * h + u * x + b)\n    bwd.append(h)\n"
                 "bwd = bwd[::-1]\nprint(np.round(bwd, 4))"),
            Part("c", "Word 2's two-way hidden state, forward half first. Store it in `word2`.",
                 [Answer("word2", "vector", states[1].tolist(), what="two numbers")],
                 "# Put the two halves side by side.\nword2 = [fwd[1], bwd[1]]\nprint(np.round(word2, 4))"),
            Part("d", "If $x_3$ changed, which half of word 1's two-way hidden state would change: “forward”, “backward”, "
                      "“both” or “neither”? Store the word in `changes`.",
                 [Answer("changes", "choice", which, options=("forward", "backward", "both", "neither"),
                         what="one of the four words")],
                 "# The forward half of word 1 has read x1 only; the backward half has read x3, x2, x1\n"
                 "# (x3 reaches it through u, then through w twice: unless one of them is 0).\n"
                 "changes = 'backward' if w * u != 0 else 'neither'\nprint(changes)"),
        ],
        steps=[
            "**(a) Forward, from word 1.** " + "; ".join(
                f"$\\overrightarrow h_{t + 1}=\\tanh({fmt(f_sums[t])})\\approx {fmt(fwd[t])}$" for t in range(T)) + ".",
            "**(b) Backward, from the last word.** " + "; ".join(
                f"$\\overleftarrow h_{t + 1}=\\tanh({fmt(b_sums[t])})\\approx {fmt(bwd[t])}$"
                for t in reversed(range(T))) + ".",
            f"**(c) Word 2.** $(\\overrightarrow h_2,\\overleftarrow h_2)\\approx {fmt_list(states[1])}$.",
            "**(d) Who has read $x_3$.** $\\overrightarrow h_1$ depends on $x_1$ alone, so it cannot move; "
            f"$\\overleftarrow h_1$ has read $x_3$, $x_2$ and $x_1$. Only the {which} half changes.",
        ],
        remember=("The same cell, run the other way: the forward half of a word's state knows what came before it, "
                  "the backward half knows what comes after."),
        numbers=n)


def problem_8(n) -> Problem:
    """Problem 8, fade or explode (chapter 7): the first whole ``T`` with ``w^T < eps`` (or ``w^T > big``).

    Args:
        n: ``dict(w_fade, eps, w_grow, big)``: 0 < w_fade < 1, eps > 0, w_grow > 1, big > 1 (floats).

    Returns:
        Problem with answers ``first_below`` (a function, checked on cases), ``T_fade``, ``T_explode``
        (whole numbers).

    Raises:
        AssertionError: if a bound ln(eps)/ln(w) falls within 1e-6 of a whole number (rounding would decide).
        ValueError (from mwm): if w_fade is not below 1.
    """
    from mwm.dynamics import first_step_below

    w, eps, w2, big = n["w_fade"], n["eps"], n["w_grow"], n["big"]
    T_fade = first_step_below(w, eps)
    T_grow = first_step_below(1 / w2, 1 / big)     # w2^T > big  <=>  (1/w2)^T < 1/big
    assert w ** T_fade < eps <= w ** (T_fade - 1) and w2 ** T_grow > big >= w2 ** (T_grow - 1)
    cases = tuple(((f, e), first_step_below(f, e))
                  for f, e in [(0.5, 0.01), (0.9, 0.5), (0.99, 0.1), (0.3, 1e-6), (w, eps)])
    for (f, e), T in cases:  # no case sits on a boundary, where rounding could decide
        bound = math.log(e) / math.log(f)
        assert abs(bound - round(bound)) > 1e-6 and T == math.floor(bound) + 1
    return Problem(
        8, "Fade or explode", "medium", "solving $w^T<\\varepsilon$ for the number of steps $T$ with logarithms",
        statement=(
            "In the scalar chain $h_t=w\\,h_{t-1}$ the gradient that travels back $T$ steps is multiplied by $w^T$."),
        given=f"w_fade, eps = {lit(w)}, {lit(eps)}\nw_grow, big = {lit(w2)}, {lit(big)}",
        parts=[
            Part("a", "For $0<w<1$, find a formula for the smallest whole $T$ with $w^T<\\varepsilon$, and "
                      "write it as a Python function `first_below(w, eps)` that returns that whole number.",
                 [Answer("first_below", "function", None, decimals=None, cases=cases, n_args=2, what="a function",
                         signature="first_below(w, eps)",
                         formula="\\lfloor \\ln\\varepsilon/\\ln w\\rfloor+1")],
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
            f"**(b) Fading.** $\\ln {num(eps)}/\\ln {num(w)}\\approx {fmt(math.log(eps))}/{par(math.log(w))}"
            f"\\approx {fmt(math.log(eps) / math.log(w), 2)}$, so $T={T_fade}$. Check against "
            f"$\\varepsilon={sci(eps)}$: ${num(w)}^{{{T_fade - 1}}}\\approx {sci(w ** (T_fade - 1))}$ is not yet "
            f"below it, ${num(w)}^{{{T_fade}}}\\approx {sci(w ** T_fade)}$ is.",
            f"**(c) Exploding.** ${num(w2)}^T>{num(big)} \\iff T>\\ln {num(big)}/\\ln {num(w2)}\\approx "
            f"{fmt(math.log(big))}/{par(math.log(w2))}\\approx {fmt(math.log(big) / math.log(w2), 2)}$, so "
            f"$T={T_grow}$. Check: ${num(w2)}^{{{T_grow - 1}}}\\approx {fmt(w2 ** (T_grow - 1), 1)}$, "
            f"${num(w2)}^{{{T_grow}}}\\approx {fmt(w2 ** T_grow, 1)}$.",
        ],
        remember=(f"A factor that looks harmless compounds fast. Repeated {T_fade} times, ${num(w)}$ leaves "
                  f"less than ${num(eps)}$ of the gradient; repeated {T_grow} times, ${num(w2)}$ multiplies it by "
                  f"more than ${num(big)}$. The logarithm turns each of these counts into one division."),
        numbers=n)


def problem_9(n) -> Problem:
    """Problem 9, eigenvalues decide (chapter 7): split a hidden state along eigenvectors, power each part.

    Args:
        n: ``dict(A, B, v, steps)``: two 2x2 matrices (lists) with real eigenvalues and eigenvectors whose
            first entry is not 0, a hidden state of two floats, a whole number of steps.

    Returns:
        Problem with answers ``eig_*``, ``dirs_*`` (first entries 1), ``memory_*`` ("fades"/"explodes") and
        ``A_T_v``, ``B_T_v``.

    Raises:
        AssertionError: if an eigenvector has a first entry of 0. ValueError (from mwm): bad shapes.
    """
    from mwm.dynamics import eigen_split, matrix_powers, spectral_radius

    v, T = np.array(n["v"], dtype=float), n["steps"]
    out = {}
    for name in ("A", "B"):
        M = np.array(n[name], dtype=float)
        values, directions, coefs = eigen_split(M, v)
        assert np.all(directions[:, 0] != 0), "each eigenvector needs a non-zero first entry"
        directions = directions / directions[:, :1]           # first entry 1, as the problem asks
        coefs = np.linalg.solve(directions.T, v)              # v = coefs @ directions
        radius = spectral_radius(M)
        out[name] = dict(M=M, values=values, directions=directions, coefs=coefs, radius=radius,
                         memory="fades" if radius < 1 else "explodes",
                         power=matrix_powers(M, v, T)[-1])
    A, B = out["A"], out["B"]
    step_lines = []
    for name, d in out.items():
        parts = [f"$W_{name}\\,{tex_vec(e)}={tex_vec(d['M'] @ e)}={num(l)}\\,{tex_vec(e)}$"
                 for l, e in zip(d["values"], d["directions"])]
        word = "below" if d["memory"] == "fades" else "above"
        step_lines.append(
            f"**(a) $W_{name}$.** " + " and ".join(parts) + f": eigenvalues ${num(d['values'][0])}$ and "
            f"${num(d['values'][1])}$, so $|\\lambda|_{{\\max}}={num(d['radius'])}$ is {word} 1 and the memory "
            f"{d['memory']}.")
    def split(d):
        return f"{tex_vec(v)}=" + " + ".join(f"{num(c)}\\,{tex_vec(e)}" for c, e in zip(d["coefs"], d["directions"]))

    if np.allclose(A["directions"], B["directions"]):
        step_lines.append(f"**(b) Split $\\boldsymbol v$.** ${split(A)}$. This one split serves $W_A$ and $W_B$ alike, "
                          "because both matrices have these eigenvectors.")
    else:
        step_lines.append(f"**(b) Split $\\boldsymbol v$.** Along the eigenvectors of $W_A$: ${split(A)}$; "
                          f"along those of $W_B$: ${split(B)}$.")
    for name, d, dec in (("A", A, 4), ("B", B, 2)):
        terms = [c * l ** T for c, l in zip(d["coefs"], d["values"])]
        expansion = " + ".join(f"{num(c)}\\cdot {num(l)}^{{{T}}}\\,{tex_vec(e)}"
                               for c, l, e in zip(d["coefs"], d["values"], d["directions"]))
        sizes = "$ and $".join(f"{num(c)}\\cdot {num(l)}^{{{T}}}\\approx {fmt(t, 6 if abs(t) < 1 else 4)}"
                               for c, l, t in zip(d["coefs"], d["values"], terms))
        step_lines.append(f"**(b) $W_{name}^{{{T}}}\\boldsymbol v$.** $W_{name}^{{{T}}}\\boldsymbol v={expansion}$, "
                          f"with ${sizes}$: $W_{name}^{{{T}}}\\boldsymbol v\\approx {fmt_list(d['power'], dec)}$.")
    choice = ("fades", "explodes")
    return Problem(
        9, "Eigenvalues decide", "medium", "splitting a hidden state along eigenvectors and powering each part",
        statement=(
            f"Two recurrent weight matrices: $W_A={tex_matrix(A['M'])}$ and $W_B={tex_matrix(B['M'])}$. A hidden "
            "state is fed "
            "through each of them again and again (no input, no squashing)."),
        given=f"W_A = np.array({lit(A['M'])})\nW_B = np.array({lit(B['M'])})\nv = np.array({lit(v)})\nsteps = {T}",
        parts=[
            Part("a", "For each matrix: its eigenvalues, largest first; its eigenvectors, one per row in the "
                      "same order, each scaled so that its first entry is 1; and whether a state fed through it "
                      "again and again “fades” or “explodes”. Store them in `eig_A`, `dirs_A`, `memory_A` and "
                      "`eig_B`, `dirs_B`, `memory_B` (four decimals).",
                 [Answer("eig_A", "vector", A["values"].tolist(), what="two numbers"),
                  Answer("dirs_A", "vector", A["directions"].tolist(), what="two rows of two numbers"),
                  Answer("memory_A", "choice", A["memory"], options=choice, what="“fades” or “explodes”"),
                  Answer("eig_B", "vector", B["values"].tolist(), what="two numbers"),
                  Answer("dirs_B", "vector", B["directions"].tolist(), what="two rows of two numbers"),
                  Answer("memory_B", "choice", B["memory"], options=choice, what="“fades” or “explodes”")],
                 "# Eigen-pairs with numpy; sort by size, largest first; scale each direction to start with 1.\n"
                 "def eigen(M):\n    values, vectors = np.linalg.eig(M)\n"
                 "    order = np.argsort(-np.abs(values))\n"
                 "    values, vectors = values[order].real, vectors[:, order].real\n"
                 "    return values, (vectors / vectors[0]).T\n"
                 "eig_A, dirs_A = eigen(W_A)\neig_B, dirs_B = eigen(W_B)\n"
                 "memory_A = 'fades' if np.abs(eig_A).max() < 1 else 'explodes'\n"
                 "memory_B = 'fades' if np.abs(eig_B).max() < 1 else 'explodes'\n"
                 "print(eig_A, dirs_A.tolist(), memory_A)\nprint(eig_B, dirs_B.tolist(), memory_B)", points=3),
            Part("b", f"The hidden state after {T} steps from $\\boldsymbol v={tex_vec(v)}$: $W_A^{{{T}}}\\boldsymbol v$ to four "
                      f"decimals and $W_B^{{{T}}}\\boldsymbol v$ to two. Store them in `A_T_v` and `B_T_v`.",
                 [Answer("A_T_v", "vector", A["power"].tolist(), what="two numbers"),
                  Answer("B_T_v", "vector", B["power"].tolist(), decimals=2, what="two numbers")],
                 "# Either multiply the matrix in again and again, or power each eigen-part: both agree.\n"
                 "A_T_v = np.linalg.matrix_power(W_A, steps) @ v\nB_T_v = np.linalg.matrix_power(W_B, steps) @ v\n"
                 "print(A_T_v.round(4), B_T_v.round(2))", points=2),
        ],
        steps=step_lines,
        remember=("Fed through one matrix step after step, a hidden state keeps mostly its part along the "
                  "eigenvector of largest $|\\lambda|$, since every other part shrinks in comparison. Its "
                  "length then scales like $|\\lambda|_{\\max}^t$, dying out when that is under 1 and "
                  "blowing up when it is over 1."),
        numbers=n)


def problem_10(n) -> Problem:
    """Problem 10, clipping (chapter 8): ``g' = min(1, gamma/|g|) g`` and the step ``-lr g'``.

    Args:
        n: ``dict(limit, lr, g_long, g_short)``: floats, two gradients (lists of floats, any length).

    Returns:
        Problem with answers ``clipped_long``, ``change``, ``clipped_short`` (one number per entry).

    Raises:
        KeyError: if a number is missing; ValueError (from mwm): if ``limit`` is not positive.
    """
    from mwm.clipping import clip_by_global_norm

    gamma, lr = n["limit"], n["lr"]
    g1, g2 = np.array(n["g_long"], dtype=float), np.array(n["g_short"], dtype=float)
    clipped1, norm1 = clip_by_global_norm(g1, gamma)
    clipped2, norm2 = clip_by_global_norm(g2, gamma)
    change = -lr * clipped1
    n_long, n_short = f"{number_word(len(g1))} numbers", f"{number_word(len(g2))} numbers"

    def length(g, norm):
        squares = "+".join(num(x * x) for x in g)
        return f"\\|\\boldsymbol g\\|=\\sqrt{{{squares}}}={num(norm)}"

    def verdict(norm, clipped):
        if norm > gamma:
            return (f"${num(norm)}>{num(gamma)}$, so multiply by ${num(gamma)}/{num(norm)}={num(gamma / norm)}$: "
                    f"$\\boldsymbol g'={tex_vec(clipped)}$, of length ${num(gamma)}$.")
        return f"${num(norm)}\\le {num(gamma)}$, so nothing changes: $\\boldsymbol g'={tex_vec(clipped)}$."

    return Problem(
        10, "Clipping", "easy", "$\\boldsymbol g'=\\min(1, \\gamma/\\|\\boldsymbol g\\|)\\,\\boldsymbol g$",
        statement=(
            f"Gradients are clipped at the threshold $\\gamma={num(gamma)}$, and the weights then move by "
            f"$-\\eta\\,\\boldsymbol g'$ with learning rate $\\eta={num(lr)}$. Four decimals throughout."),
        given=f"gamma, lr = {lit(gamma)}, {lit(lr)}\ng_long = np.array({lit(g1)})\ng_short = np.array({lit(g2)})",
        parts=[
            Part("a", f"Clip $\\boldsymbol g={tex_vec(g1)}$ and give the change of the weights, $-\\eta\\,\\boldsymbol g'$. "
                      "Store them in `clipped_long` and `change`.",
                 [Answer("clipped_long", "vector", clipped1.tolist(), what=n_long),
                  Answer("change", "vector", change.tolist(), what=n_long)],
                 "# The length first; shrink the whole vector only if it is longer than gamma.\n"
                 "def clip(g, gamma):\n    return g * min(1.0, gamma / np.linalg.norm(g))\n"
                 "clipped_long = clip(g_long, gamma)\nchange = -lr * clipped_long\n"
                 "print(clipped_long, change)", points=2),
            Part("b", f"Clip $\\boldsymbol g={tex_vec(g2)}$. Store it in `clipped_short`.",
                 [Answer("clipped_short", "vector", clipped2.tolist(), what=n_short)],
                 "clipped_short = clip(g_short, gamma)\nprint(clipped_short)"),
        ],
        steps=[
            f"**(a) The length.** ${length(g1, norm1)}$.",
            f"**(a) Scale.** {verdict(norm1, clipped1)}",
            f"**(a) The step.** $-{num(lr)}\\,\\boldsymbol g'={tex_vec(change)}$.",
            f"**(b)** ${length(g2, norm2)}$: {verdict(norm2, clipped2)}",
        ],
        remember=("Clipping multiplies the whole gradient by one number, so its direction survives: "
                  f"${num(clipped1[0])}:{num(clipped1[1])}$ is still ${num(g1[0])}:{num(g1[1])}$."),
        numbers=n)


def problem_15(n) -> Problem:
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


def problem_16(n) -> Problem:
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


#: ordinal words for problem 1's inputs, "the hidden state after the first input"
ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")

ORDINAL = {2: "square", 3: "cube", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth", 9: "ninth"}


def problem_12(n) -> Problem:
    """Problem 12, diagnose the runs (chapters 7-9): a constant ratio per step names the run behind it.

    Args:
        n: ``dict(runs, ahead, limit, far, share)``: ``runs`` maps three letters to logged gradient sizes (a list
            from 1, 2 to 9 entries long, each shrinking or growing by a near-constant factor; one fades, one
            explodes, one is near 1); ``ahead`` and ``far`` whole numbers, ``limit`` and ``share`` floats.

    Returns:
        Problem with answers ``factor_*``, ``far_*``, ``lstm_run``, ``small_run``, ``big_run``, ``fix_small``,
        ``fix_big``, ``clip_scale``, ``f_min``.

    Raises:
        AssertionError: if no run fades or none explodes.
    """
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
    from mwm.clipping import clip_by_global_norm

    longest = runs[big_run][-1]
    clipped, length = clip_by_global_norm(np.array([longest]), limit)   # a gradient of that length
    scale = float(clipped[0] / longest)
    f_min = share ** (1 / far)
    lane_far = factor[lstm_run] ** far
    # do the estimates survive factors rounded to two decimals? (they do when within 3 per cent)
    hardly = all(abs(round(factor[k], 2) ** ahead / predicted[k] - 1) <= 0.03 for k in names)
    table = "| run / steps back | " + " | ".join(f"{i}" for i in range(len(runs[names[0]]))) + " |\n"
    table += "|---|" + "---|" * len(runs[names[0]]) + "\n"
    for k in names:
        table += f"| {k} | " + " | ".join(f"${x:g}$" for x in runs[k]) + " |\n"
    opts_run = tuple(names)
    fixes = ("gates", "clipping")
    return Problem(
        12, "Diagnose the runs", "hard", "spotting a constant ratio, and naming the training run behind it",
        statement=(
            "Someone trained three recurrent models on one task and, for each, logged the size of the gradient "
            f"reaching the hidden state 0 to {len(runs[names[0]]) - 1} steps before the end:\n\n" + table),
        given="runs = {\n" + "".join(f"    {k!r}: {lit(runs[k])},\n" for k in names) + "}\n"
              f"ahead, limit, far, share = {ahead}, {lit(limit)}, {far}, {lit(share)}",
        parts=[
            Part("a", "Each run's factor per step, to three decimals: the ratio of neighbouring entries is "
                      f"nearly constant, so take the {ORDINAL[steps_recorded[names[0]]]} root of the last "
                      "entry over the first. Store them in " + ", ".join(f"`factor_{k}`" for k in names) + ".",
                 [Answer(f"factor_{k}", "number", factor[k], decimals=3, what="a number") for k in names],
                 "# Neighbouring entries keep the same ratio: take the root of last / first.\n"
                 + "".join(f"factor_{k} = (runs[{k!r}][-1] / runs[{k!r}][0]) ** (1 / (len(runs[{k!r}]) - 1))\n"
                           for k in names)
                 + "print(" + ", ".join(f"round(factor_{k}, 3)" for k in names) + ")"),
            Part("b", f"Using its factor, estimate how large each run's gradient would be {ahead} steps before the "
                      f"end: three significant figures for "
                      f"{' and '.join(plain)}, three decimals for {lstm_run}. Store them in "
                      + ", ".join(f"`far_{k}`" for k in names) + ".",
                 [Answer(f"far_{k}", "number", predicted[k], decimals=None if k != lstm_run else 3,
                         sig=3 if k != lstm_run else None, what="a number") for k in names],
                 "# Raise each factor to the power of the number of steps.\n"
                 + "".join(f"far_{k} = factor_{k} ** ahead\n" for k in names)
                 + "print(" + ", ".join(f"f'{{far_{k}:.3g}}'" for k in names) + ")"),
            Part("c", "Behind the three runs are an LSTM, a plain cell whose recurrent weights are small, and a "
                      "plain cell whose recurrent weights are large. Match them: store the run letters in "
                      "`lstm_run`, `small_run` and `big_run`. Which remedy does each plain cell need most, “gates” or “clipping”? "
                      "Store the answers in `fix_small` and `fix_big`.",
                 [Answer("lstm_run", "choice", lstm_run, options=opts_run, what="a run letter"),
                  Answer("small_run", "choice", small_run, options=opts_run, what="a run letter"),
                  Answer("big_run", "choice", big_run, options=opts_run, what="a run letter"),
                  Answer("fix_small", "choice", "gates", options=fixes, what="“gates” or “clipping”"),
                  Answer("fix_big", "choice", "clipping", options=fixes, what="“gates” or “clipping”")],
                 "# Near 1: the LSTM's cell state. Below 1: fading, small weights. Above 1: exploding, big weights.\n"
                 "factors = {" + ", ".join(f"{k!r}: factor_{k}" for k in names) + "}\n"
                 "lstm_run = min(factors, key=lambda k: abs(np.log(factors[k])))   # the closest to 1\n"
                 "small_run = min(factors, key=factors.get)   # below 1: fading\n"
                 "big_run = max(factors, key=factors.get)     # above 1: exploding\n"
                 "fix_small = 'gates'      # fading needs a path that does not shrink\n"
                 "fix_big = 'clipping'     # exploding needs its steps capped first\n"
                 "print(lstm_run, small_run, big_run, fix_small, fix_big)", points=2),
            Part("d", f"If run {big_run}'s last value, ${runs[big_run][-1]:g}$, were the length of the whole "
                      f"gradient, by what factor would clipping at $\\gamma={num(limit)}$ scale it? Four decimals; "
                      "store it in `clip_scale`.",
                 [Answer("clip_scale", "number", scale, what="a number")],
                 "# Clipping multiplies the gradient by min(1, gamma / length); here the length is the exploding\n"
                 "# run's last value.\n"
                 "clip_scale = min(1.0, limit / runs[big_run][-1])\nprint(round(clip_scale, 4))"),
            Part("e", f"Along run {lstm_run}'s cell state the gradient keeps a factor $f$ per step. What is the "
                      f"smallest $f$ that still delivers at least {share:g} of the gradient from {far} steps back? "
                      "Five decimals; store it in `f_min`.",
                 [Answer("f_min", "number", f_min, decimals=5, what="a number")],
                 "# f ** far >= share  <=>  f >= share ** (1 / far).\n"
                 "f_min = share ** (1 / far)\nprint(round(f_min, 5))"),
        ],
        steps=[
            "**(a) One ratio per run.** Neighbouring entries keep an almost constant ratio, and the root "
            "averages it: " + ", ".join(
                f"{k}: $({runs[k][-1]:g}" + ("" if runs[k][0] == 1 else f"/{runs[k][0]:g}")
                + f")^{{1/{steps_recorded[k]}}}\\approx {fmt(factor[k], 3)}$" for k in names) + ".",
            f"**(b) {number_word(ahead).capitalize()} steps.** " + ", ".join(
                f"{k}: ${fmt(factor[k], 4)}^{{{ahead}}}\\approx "
                f"{fmt(predicted[k], None if k != lstm_run else 3, 3 if k != lstm_run else None)}$" for k in names)
            + (" (with the factors rounded to two decimals the answers hardly move, " if hardly else
               " (with the factors rounded to two decimals the answers move a lot, so keep the third decimal: ")
            + ", ".join(f"${fmt(factor[k], 2)}^{{{ahead}}}\\approx "
                        f"{fmt(round(factor[k], 2) ** ahead, None if k != lstm_run else 3, 3 if k != lstm_run else None)}$"
                        for k in names) + ").",
            f"**(c) Which is which.** Run {lstm_run}'s factor, ${fmt(factor[lstm_run], 2)}$, is the one closest "
            "to 1: its gradient wears away only slowly, as along an LSTM's cell state whose forget gate stays "
            f"near 1. Run {small_run}'s factor, ${fmt(factor[small_run], 2)}$, lies below 1, so its gradient "
            "vanishes: that "
            "is the plain cell with small weights, and the remedy is gates (an LSTM or a GRU). "
            f"Run {big_run}'s factor, ${fmt(factor[big_run], 2)}$, lies above 1, so its gradient explodes: that is "
            "the plain cell with large weights, which must be clipped before anything else, though gates "
            "would help it as well.",
            f"**(d) Clipping.** ${runs[big_run][-1]:g}>{num(limit)}$, so the gradient is scaled by "
            f"${num(limit)}/{runs[big_run][-1]:g}\\approx {fmt(scale)}$.",
            f"**(e) The cell state.** We need $f^{{{far}}}\\ge {share:g}$, that is $f\\ge {share:g}^{{1/{far}}}"
            f"=e^{{\\ln {share:g}/{far}}}\\approx {fmt(f_min, 5)}$. Run {lstm_run}'s ${fmt(factor[lstm_run], 2)}$ "
            f"is far short of that: ${fmt(factor[lstm_run], 2)}^{{{far}}}\\approx {fmt(lane_far, 3)}$.",
        ],
        remember=("When the logged gradient changes by the same ratio at every step, that single ratio is the "
                  "diagnosis. Under 1 the gradient vanishes and over 1 it explodes; a ratio near 1 is what lets "
                  "it reach far back."),
        numbers=n)


#: problem number -> builder. Builders whose library is not merged yet raise ImportError.
BUILDERS: dict[int, Callable[[dict], Problem]] = {
    1: problem_1, 2: problem_2, 3: problem_3, 4: problem_4, 5: problem_5, 6: problem_6, 7: problem_7,
    8: problem_8, 9: problem_9, 10: problem_10, 11: problem_11, 12: problem_12, 13: problem_13, 14: problem_14,
    15: problem_15, 16: problem_16,
}


def build(number: int, numbers: dict | None = None) -> Problem:
    """Build problem ``number`` from ``numbers`` (default: :data:`NUMBERS`), computing its answers with mwm.

    Args:
        number: the problem's number, a whole number (1-16 have builders).
        numbers: problem number -> that problem's numbers, in the form of :data:`NUMBERS` (for example
            ``mwm_grader.variants.numbers_for(student_id)``); only entry ``number`` is read.

    Returns:
        Problem, every expected value computed afresh.

    Raises:
        TypeError: if ``number`` is not a whole number or ``numbers`` not a dict.
        ValueError: if ``numbers`` has no entry ``number``, or that entry's keys differ from ``NUMBERS[number]``'s.
        LibraryMissing: if the problem has no builder, or its part of mwm is missing.
    """
    numbers = NUMBERS if numbers is None else numbers
    if isinstance(number, bool) or not isinstance(number, (int, np.integer)):
        raise TypeError(f"number must be a whole number, got {type(number).__name__}")
    if number not in BUILDERS:
        raise LibraryMissing(f"problem {number} has no builder yet")
    if not isinstance(numbers, dict):
        raise TypeError(f"numbers must be a dict problem number -> numbers, got {type(numbers).__name__}")
    if not isinstance(numbers.get(number), dict):
        raise ValueError(f"numbers has no dict of numbers for problem {number}")
    if number in NUMBERS and set(numbers[number]) != set(NUMBERS[number]):
        missing, extra = sorted(set(NUMBERS[number]) - set(numbers[number])), sorted(set(numbers[number]) - set(NUMBERS[number]))
        raise ValueError(f"numbers[{number}] must have the keys of NUMBERS[{number}]: missing {missing}, unknown {extra}")
    try:
        return BUILDERS[number](numbers[number])
    except ImportError as exc:
        raise LibraryMissing(f"problem {number} waits on {exc}") from exc


def build_all(numbers: dict | None = None, *, skip_missing: bool = True) -> tuple[list[Problem], dict[int, str]]:
    """Build every problem 1-16 from ``numbers`` (default: :data:`NUMBERS`).

    Returns:
        (problems, missing): the problems built, in order, and {number: why it is missing}.

    Raises:
        LibraryMissing: for a missing problem, if ``skip_missing`` is False; as :func:`build` otherwise.
    """
    problems, missing = [], {}
    for number in range(1, 17):
        try:
            problems.append(build(number, numbers))
        except LibraryMissing as exc:
            if not skip_missing:
                raise
            missing[number] = str(exc)
    return problems, missing
