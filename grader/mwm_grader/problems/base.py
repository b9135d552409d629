"""What every practice problem is made of: its parts and answers, and how its numbers are written.

The sixteen builders (``p01.py`` ... ``p16.py``) compute each problem's answers with ``mwm`` and
fill in its text, which lives beside them as a template (``p01.md`` ...); see ``texts.py``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

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


#: ordinal words for problem 1's inputs, "the hidden state after the first input"
ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


ORDINAL = {2: "square", 3: "cube", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth", 9: "ninth"}
