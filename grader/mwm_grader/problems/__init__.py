"""The sixteen practice problems of "Machines with Memory": their numbers, statements and solutions.

THE NUMBERS LIVE HERE, IN ``NUMBERS`` BELOW, AND NOWHERE ELSE. To change a problem,
edit its entry and run ``make exercises``: the instructor notebook (with its expected
values), the student version, the solution notebook, the answer key and the website's
practice pages are all rebuilt from it, and every expected value is computed afresh
by the course library ``mwm``.

Each problem is built by ``pNN.build(numbers)`` (``p01.py`` ... ``p16.py``), which computes the
answers with ``mwm`` and returns a :class:`Problem`: the statement, the code cell that gives the
numbers to the student, one :class:`Part` per graded part (its question, the variables the student
sets, the points, the solution code) and the worked solution's steps. The words are not in the
builder: they are in the template beside it, ``pNN.md.j2`` (Markdown with ``$...$`` maths, and
Python), filled in with the builder's numbers (:mod:`.texts`). Solution code is ordinary Python that
reads the given variables, so it stays right when the numbers change.

The problems are the course's sixteen practice problems, restated in
the course's own words with every part kept.
"""
from __future__ import annotations

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


from . import (  # noqa: E402  (the numbers come first: they are what a teacher edits)
    p01, p02, p03, p04, p05, p06, p07, p08,
    p09, p10, p11, p12, p13, p14, p15, p16,
)
from .base import (  # noqa: E402,F401  (what other modules use, under the name they have always used)
    ORDINAL, ORDINAL_WORDS, Answer, LibraryMissing, Part, Problem, and_list, fmt, fmt_list, lit, num, number_word, par,
    plus, plus_num, pnum, sci, signed, tex_matrix, tex_vec,
)

#: problem number -> builder (``pNN.build``, beside its text ``pNN.md``).
BUILDERS: dict[int, Callable[[dict], Problem]] = {
    1: p01.build, 2: p02.build, 3: p03.build, 4: p04.build, 5: p05.build, 6: p06.build, 7: p07.build, 8: p08.build,
    9: p09.build, 10: p10.build, 11: p11.build, 12: p12.build, 13: p13.build, 14: p14.build, 15: p15.build,
    16: p16.build,
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
