"""Every student's own numbers for the sixteen practice problems, derived from their student id.

``numbers_for(student_id)`` gives all sixteen problems' numbers, in exactly the form of
:data:`mwm_grader.problems.NUMBERS` (the website's numbers, which self-learners and the
empty id get). Problem N's numbers come from ``variant_N(rng_for(student_id, N))``, so the
problems are independent of one another, and the same id gives the same numbers on every
machine and in every process.

Each ``variant_N(rng)`` draws numbers of the same shape and kind as ``NUMBERS[N]`` (same keys;
floats stay floats, ints ints, lists lists, tuples tuples) and redraws until the problem's
constraints hold: the problem is well posed and builds, its numbers have few digits so it can
be worked by hand, and no answer is degenerate (trivially 0 or 1, equal to a given number by
accident, all answers of a part equal, a probability that prints as 0.0000 or 1.0000, a
division by almost 0). Each generator's docstring lists its constraints. After
:data:`MAX_TRIES` draws without success a generator raises :class:`VariantError` (with the
constraints the draws are built to, this does not happen; the bound turns a mistake into an
error instead of an endless loop).

Stability: the seed is the first 8 bytes of ``sha256("mwm-practice:{student_id}:{N}")``, and
the generators use nothing of :class:`random.Random` but ``randrange`` with one whole-number
argument (through :func:`_pick` and :func:`_shuffled`), never iterate over a set, and keep their
lists in a fixed order; so the numbers do not depend on the platform, on ``PYTHONHASHSEED``
or on the Python 3 version.
"""
from __future__ import annotations

import copy
import functools
import hashlib
import math
import random
from typing import Any, Callable

from .problems import NUMBERS, fmt, sci

__all__ = ["MAX_TRIES", "VARIANTS", "VariantError", "numbers_for", "rng_for"] + [f"variant_{i}" for i in range(1, 17)]

#: how many draws a generator makes before it gives up with :class:`VariantError`
MAX_TRIES = 2000


class VariantError(RuntimeError):
    """Raised when a generator finds no numbers meeting its problem's constraints in :data:`MAX_TRIES` draws."""


def rng_for(student_id: str, number: int) -> random.Random:
    """A random generator seeded by ``student_id`` and the problem's number (same on every machine).

    Args:
        student_id: the student's id, any str (unicode allowed).
        number: the problem's number, a whole number from 1 to 16.

    Returns:
        random.Random seeded with the first 8 bytes (big-endian) of
        ``sha256(f"mwm-practice:{student_id}:{number}".encode())``.

    Raises:
        TypeError: if ``student_id`` is not a str or ``number`` is not a whole number (a bool is not one).
        ValueError: if ``number`` is not between 1 and 16.
    """
    if not isinstance(student_id, str):
        raise TypeError(f"student_id must be a str, got {type(student_id).__name__}")
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError(f"number must be a whole number from 1 to 16, got {type(number).__name__}")
    if not 1 <= number <= 16:
        raise ValueError(f"number must be a problem's number, 1 to 16, got {number}")
    digest = hashlib.sha256(f"mwm-practice:{student_id}:{number}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def numbers_for(student_id: str | None) -> dict[int, dict]:
    """The numbers of all sixteen problems for ``student_id``.

    Args:
        student_id: the student's id (nbgrader / hub user name), any non-empty str, read without
            regard to case or surrounding spaces ("Mary.Jones" is "mary.jones", whom JupyterHub
            logs in); None or "" gives the website's numbers (a deep copy of ``problems.NUMBERS``).

    Returns:
        dict: problem number (1-16) -> that problem's numbers, in the form ``NUMBERS`` uses;
        a new dict on every call (the caller may change it). Feed it to ``problems.build(N, numbers)``.

    Raises:
        TypeError: if ``student_id`` is neither a str nor None.
        VariantError: if a generator finds no numbers meeting its constraints (see :data:`MAX_TRIES`).
    """
    if student_id is None or student_id == "":
        return copy.deepcopy(NUMBERS)
    if not isinstance(student_id, str):
        raise TypeError(f"student_id must be a str or None, got {type(student_id).__name__}")
    key = student_id.strip().lower()  # ids are read without regard to case (mwm_practice.ids)
    return {number: VARIANTS[number](rng_for(key, number)) for number in range(1, 17)}


# --------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------
def _pick(rng: random.Random, seq):
    """One element of the sequence ``seq``, uniformly (``randrange`` only: stable across versions)."""
    return seq[rng.randrange(len(seq))]


def _shuffled(rng: random.Random, seq) -> list:
    """A new list with the elements of ``seq`` in random order (Fisher-Yates on ``randrange``)."""
    out = list(seq)
    for i in range(len(out) - 1, 0, -1):
        j = rng.randrange(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def _sample(rng: random.Random, seq, k: int) -> list:
    """``k`` distinct elements of ``seq`` in random order."""
    return _shuffled(rng, seq)[:k]


def _grid(lo: float, hi: float, step: float) -> tuple[float, ...]:
    """The floats lo, lo + step, ..., hi, rounded to 10 decimals, with no -0.0."""
    count = round((hi - lo) / step)
    return tuple(round(lo + i * step, 10) + 0.0 for i in range(count + 1))


def _check_rng(rng) -> None:
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random (see rng_for), got {type(rng).__name__}")


def _draw(number: int, rng: random.Random, make: Callable[[random.Random], Any],
          flaw: Callable[[Any], str | None]) -> Any:
    """Draw ``make(rng)`` until ``flaw(drawn)`` finds nothing wrong (returns None); return that draw.

    A draw is usually the numbers themselves; a generator may draw (numbers, what it was built from).

    Raises:
        VariantError: after :data:`MAX_TRIES` draws, naming the problem and the last flaw found.
    """
    _check_rng(rng)
    why = None
    for _ in range(MAX_TRIES):
        drawn = make(rng)
        why = flaw(drawn)
        if why is None:
            return drawn
    raise VariantError(f"problem {number}: no numbers met the constraints in {MAX_TRIES} draws (last: {why})")


def _r4(x: float) -> str:
    """``x`` as the key prints it, four decimals."""
    return fmt(x, 4)


def _sigmoid(a: float) -> float:
    return 1.0 / (1.0 + math.exp(-a))


def _exact(x: float, decimals: int) -> bool:
    """Whether ``x`` has at most ``decimals`` decimals (up to floating-point noise)."""
    scaled = x * 10 ** decimals
    return abs(scaled - round(scaled)) < 1e-6


def _scalar_states(xs, w, u, b, h0) -> list[float]:
    hs, h = [], h0
    for x in xs:
        h = math.tanh(w * h + u * x + b)
        hs.append(h)
    return hs


def _plain_states(hs, lo=0.05, hi=0.97) -> str | None:
    """A flaw if a hidden state is near 0 or saturated (prints as +-1.0000 or barely moves)."""
    for h in hs:
        if not lo <= abs(h) <= hi:
            return f"a state {h:.4f} is near 0 or saturated"
    return None


# --------------------------------------------------------------------------------------
# The sixteen generators
# --------------------------------------------------------------------------------------
_P1_W = _grid(0.3, 1.5, 0.1)
_P1_U = (0.5, 1.0, 1.5, 2.0, -0.5, -1.0)
_P1_B = _grid(-0.5, 0.5, 0.1)
_P1_H0 = _grid(-0.5, 0.5, 0.1)
_P1_X = tuple(x for x in _grid(-2.0, 2.0, 0.5) if x != 0)


def variant_1(rng: random.Random) -> dict:
    """Problem 1 (a forward pass by hand): ``dict(w, u, b, h0, xs)``, floats, ``xs`` three floats.

    Ranges: w 0.3..1.5 and b, h0 -0.5..0.5 (one decimal), u in {+-0.5, +-1, 1.5, 2} (no -1.5, -2),
    inputs -2..2 in halves, none 0. The count of inputs stays three.
    Constraints: every hidden state has size 0.05..0.97 (not ~0, not saturated); the three states
    differ at four decimals; no state equals a given number at four decimals.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[1]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        return dict(w=_pick(r, _P1_W), u=_pick(r, _P1_U), b=_pick(r, _P1_B), h0=_pick(r, _P1_H0),
                    xs=[_pick(r, _P1_X) for _ in range(3)])

    def flaw(n):
        hs = _scalar_states(n["xs"], n["w"], n["u"], n["b"], n["h0"])
        shown = [_r4(h) for h in hs]
        given = {_r4(v) for v in (n["w"], n["u"], n["b"], n["h0"], *n["xs"])}
        if len(set(shown)) < len(shown):
            return "two states are equal"
        if given & set(shown):
            return "a state equals a given number"
        return _plain_states(hs)

    return _draw(1, rng, make, flaw)


_P2_W = (-1.0, -0.5, 0.0, 0.5, 1.0)
_P2_U = tuple(x for x in _grid(-2.0, 2.0, 0.5) if x != 0)
_P2_HALF = _grid(-1.0, 1.0, 0.5)


def variant_2(rng: random.Random) -> dict:
    """Problem 2 (one step with matrices): ``dict(W 2x2, U 2x1, b 2, h0 2, xs 2)``, lists of floats.

    Ranges: entries of W, b, h0 and the inputs from -1..1 in halves, of U from -2..2 in halves
    (not 0). The shapes stay those of the default (a hidden state of two numbers, two inputs).
    Constraints: W has at least two non-zero entries, h0 is not all 0 and the first input is not
    0 (the second may be, as in the default); every entry of h1 and h2
    has size 0.02..0.97; h1 and h2 differ; the two entries of each state differ.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[2]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        return dict(W=[[_pick(r, _P2_W), _pick(r, _P2_W)], [_pick(r, _P2_W), _pick(r, _P2_W)]],
                    U=[[_pick(r, _P2_U)], [_pick(r, _P2_U)]], b=[_pick(r, _P2_HALF), _pick(r, _P2_HALF)],
                    h0=[_pick(r, _P2_HALF), _pick(r, _P2_HALF)], xs=[_pick(r, _P2_HALF), _pick(r, _P2_HALF)])

    def flaw(n):
        W, U, b = n["W"], n["U"], n["b"]
        if sum(v != 0 for row in W for v in row) < 2:
            return "W is almost empty"
        if not any(n["h0"]) or n["xs"][0] == 0:
            return "h0 is all 0, or the first input is 0"
        h, states = n["h0"], []
        for x in n["xs"]:
            h = [math.tanh(W[i][0] * h[0] + W[i][1] * h[1] + U[i][0] * x + b[i]) for i in range(2)]
            states.append(h)
        why = _plain_states([v for h in states for v in h], 0.02, 0.97)
        if why:
            return why
        shown = [[_r4(v) for v in h] for h in states]
        if shown[0] == shown[1] or any(h[0] == h[1] for h in shown):
            return "two states or two entries are equal"
        return None

    return _draw(2, rng, make, flaw)


_P3_HIDDEN = tuple(range(16, 129, 8))
_P3_INPUTS = tuple(range(8, 129, 4))
_P3_TAGS = tuple(range(5, 25))


def variant_3(rng: random.Random) -> dict:
    """Problem 3 (counting weights): ``dict(hidden, inputs, tags)``, whole numbers.

    Ranges: hidden 16..128 in eights, inputs 8..128 in fours, tags 5..24.
    Constraint: hidden != inputs (else the upper layer's block equals the lower one's and part (c)
    says nothing new).

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[3]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        return dict(hidden=_pick(r, _P3_HIDDEN), inputs=_pick(r, _P3_INPUTS), tags=_pick(r, _P3_TAGS))

    return _draw(3, rng, make, lambda n: "hidden == inputs" if n["hidden"] == n["inputs"] else None)


#: problem 4's contexts and words that may follow them (every word makes an everyday sentence)
_P4_CONTEXTS = (
    ("the chai is", ("hot", "sweet", "ready", "cold", "strong", "spicy", "milky", "weak")),
    ("the train is", ("late", "early", "full", "here", "slow", "crowded", "empty", "delayed")),
    ("we drink chai every", ("morning", "evening", "day", "night", "afternoon", "week")),
    ("the kettle is", ("hot", "empty", "full", "boiling", "new", "cold", "old")),
    ("the platform is", ("crowded", "empty", "wet", "busy", "quiet", "long", "clean")),
    ("my ticket is", ("valid", "lost", "here", "expired", "ready", "cheap", "torn")),
)
_P4_LOGITS = _grid(-2.0, 4.0, 0.5)


def variant_4(rng: random.Random) -> dict:
    """Problem 4 (read-out and loss): ``dict(context, words, logits, truth, other)``.

    ``context`` a str, ``words`` four distinct words (from a list of plausible next words for
    the context), ``logits`` four distinct floats from -2..4 in halves, ``truth`` and ``other``
    two different words of ``words``. The count of words stays four.
    Constraints: the logits span at most 5, so every probability prints between 0.0020 and
    0.9900 (not 0.0000); the two losses differ.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[4]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        context, pool = _pick(r, _P4_CONTEXTS)
        words = _sample(r, pool, 4)
        truth, other = _sample(r, words, 2)
        return dict(context=context, words=words, logits=_sample(r, _P4_LOGITS, 4), truth=truth, other=other)

    def flaw(n):
        s = n["logits"]
        if max(s) - min(s) > 5:
            return "the logits spread too far"
        z = sum(math.exp(v) for v in s)
        p = [math.exp(v) / z for v in s]
        if min(p) < 0.002 or max(p) > 0.99:
            return "a probability is near 0 or 1"
        return None

    return _draw(4, rng, make, flaw)


def _nice_ratio_shares() -> tuple[float, ...]:
    """Shares p (two decimals, 0.51..0.99) whose ratio p / (1 - p) has at most two decimals."""
    return tuple(p for p in _grid(0.51, 0.99, 0.01) if _exact(p / round(1 - p, 2), 2))


_P5_SHARES = _nice_ratio_shares()
_P5_LOGITS = _grid(-2.0, 4.0, 0.5)
_P5_TEMPERATURES = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0)


def variant_5(rng: random.Random) -> dict:
    """Problem 5 (temperature): ``dict(logits, temperatures, p_now, p_wanted)``, lists of floats.

    Ranges: two distinct logits from -2..4 in halves; three distinct temperatures from
    {0.25, 0.5, 1, 1.5, 2, 3, 4}; ``p_now`` and ``p_wanted`` pairs (p, 1 - p) with p > 0.5 of
    two decimals whose ratio p / (1 - p) has at most two decimals (0.6, 0.75, 0.8, 0.9, ...).
    Constraints: each scaled gap (y1 - y2) / theta has at most three decimals; the first word's
    probabilities differ and lie in 0.005..0.995 (none prints as 0.0000 or 1.0000); p_now != p_wanted; the answer
    theta_new lies in 0.2..8, at least 0.1 away from 1, so it is positive and prints well. The
    first word is the likelier at theta = 1, so p_cold is (1, 0) as in the default.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[5]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        p, q = _pick(r, _P5_SHARES), _pick(r, _P5_SHARES)
        logits = _sample(r, _P5_LOGITS, 2)
        fitting = [th for th in _P5_TEMPERATURES if _exact((logits[0] - logits[1]) / th, 3)]
        return dict(logits=logits, temperatures=_sample(r, fitting, 3),
                    p_now=[p, round(1 - p, 2)], p_wanted=[q, round(1 - q, 2)])

    def flaw(n):
        (y1, y2), thetas = n["logits"], n["temperatures"]
        if len(thetas) < 3 or not all(_exact((y1 - y2) / th, 3) for th in thetas):
            return "fewer than three temperatures give a short scaled gap"
        firsts = [_sigmoid((y1 - y2) / th) for th in thetas]
        if len({fmt(q) for q in firsts}) < len(firsts) or not all(0.005 <= q <= 0.995 for q in firsts):
            return "a probability is within 0.005 of 0 or 1, or two are equal"
        if n["p_now"] == n["p_wanted"]:
            return "p_now == p_wanted"
        theta_new = math.log(n["p_now"][0] / n["p_now"][1]) / math.log(n["p_wanted"][0] / n["p_wanted"][1])
        if not 0.2 <= theta_new <= 8 or abs(theta_new - 1) < 0.1:
            return f"theta_new {theta_new:.3f} out of range"
        return None

    return _draw(5, rng, make, flaw)


_P6_W = _grid(0.5, 1.5, 0.1)
_P6_U = (0.5, 1.0, 1.5, 2.0, -1.0)
_P6_B = _grid(-0.3, 0.3, 0.1)
_P6_H0 = (-0.5, 0.0, 0.5)
_P6_X = _grid(-1.5, 1.5, 0.5)


def variant_6(rng: random.Random) -> dict:
    """Problem 6 (the gradient through time): ``dict(w, u, b, h0, xs)``, floats, ``xs`` three floats.

    Ranges: w 0.5..1.5, b -0.3..0.3 (one decimal), u in {0.5, 1, 1.5, 2, -1}, h0 in {-0.5, 0, 0.5},
    inputs -1.5..1.5 in halves (0 allowed, as in the default). Three inputs, as the parts ask.
    Constraints: every hidden state has size 0.05..0.97; the states differ; both factors have size
    >= 0.05 and differ at four decimals; dh3/dh1 has size >= 0.01 and dh3/dx1 >= 0.005.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[6]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        return dict(w=_pick(r, _P6_W), u=_pick(r, _P6_U), b=_pick(r, _P6_B), h0=_pick(r, _P6_H0),
                    xs=[_pick(r, _P6_X) for _ in range(3)])

    def flaw(n):
        w, u = n["w"], n["u"]
        hs = _scalar_states(n["xs"], w, u, n["b"], n["h0"])
        why = _plain_states(hs)
        if why:
            return why
        if len({_r4(h) for h in hs}) < 3:
            return "two states are equal"
        d32, d21 = w * (1 - hs[2] ** 2), w * (1 - hs[1] ** 2)
        d31, d3x1 = d32 * d21, d32 * d21 * u * (1 - hs[0] ** 2)
        if min(abs(d32), abs(d21)) < 0.05 or abs(d31) < 0.01 or abs(d3x1) < 0.005 or _r4(d32) == _r4(d21):
            return "a factor is too small, or the two factors are equal"
        return None

    return _draw(6, rng, make, flaw)


_P7_TAU = (10, 16, 20, 25, 30, 32, 40, 50, 60, 64, 80, 100)


def variant_7(rng: random.Random) -> dict:
    """Problem 7 (truncated BPTT): ``dict(length, tau, grad_from, pair_across, pair_inside)``, whole numbers.

    ``length`` 1000..5000 in fifties, ``tau`` from {10, 16, 20, 25, 30, 32, 40, 50, 60, 64, 80, 100}
    (so the count of chunks is sometimes a whole quotient, sometimes rounded up); the pairs are
    tuples (i, j), i < j, as in the default.
    Constraints (by construction): the text has at least ten chunks; ``grad_from`` lies in
    chunk 2, 3 or 4 and is not its chunk's first character (its gradient goes back at least one
    step); ``pair_across`` straddles one of the first four cuts with j - i < tau (close, yet cut
    apart); ``pair_inside`` sits in one of the first four chunks with j - i >= 2. So the answers
    to part (c) are False then True, as the builder's names ask.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[7]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        tau = _pick(r, _P7_TAU)
        length = 1000 + 50 * r.randrange(81)
        m = 2 + r.randrange(3)
        grad_from = (m - 1) * tau + 2 + r.randrange(tau - 1)       # offsets 2..tau inside chunk m
        cut = tau * (1 + r.randrange(4))
        i = cut - r.randrange(tau // 2)                              # cut - (tau//2 - 1) .. cut
        j = cut + 1 + r.randrange(tau // 2)                          # cut + 1 .. cut + tau//2
        start = tau * r.randrange(4) + 1
        a = start + r.randrange(tau - 2)
        c = a + 2 + r.randrange(start + tau - 1 - (a + 2) + 1)       # a + 2 .. last of the chunk
        return dict(length=length, tau=tau, grad_from=grad_from, pair_across=(i, j), pair_inside=(a, c))

    def flaw(n):
        if n["length"] < 10 * n["tau"]:
            return "fewer than ten chunks"
        return None

    return _draw(7, rng, make, flaw)


_P8_FADE = _grid(0.5, 0.95, 0.01)
_P8_GROW = _grid(1.05, 1.6, 0.01)
_P8_EPS = (0.01, 0.001, 0.005, 0.05, 0.0001)
_P8_BIG = (100.0, 500.0, 1000.0, 5000.0, 10000.0)


def variant_8(rng: random.Random) -> dict:
    """Problem 8 (fade or explode): ``dict(w_fade, eps, w_grow, big)``, floats.

    Ranges: w_fade 0.50..0.95 and w_grow 1.05..1.60 (two decimals), eps in {0.05, 0.01, 0.005,
    0.001, 0.0001}, big in {100, 500, 1000, 5000, 10000}.
    Constraints: both step counts (whole numbers by construction, as ``first_step_below`` counts
    them) lie in 5..60; the bounds ln(eps)/ln(w) and ln(big)/ln(w_grow) are at least 0.05 from
    a whole number (no rounding can decide, and the two-decimal bound in the steps shows its
    floor); the checks the steps print (w^(T-1), w^T at three significant figures, w_grow^(T-1),
    w_grow^T at one decimal) differ visibly from eps and big.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[8]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        return dict(w_fade=_pick(r, _P8_FADE), eps=_pick(r, _P8_EPS), w_grow=_pick(r, _P8_GROW), big=_pick(r, _P8_BIG))

    def flaw(n):
        w, eps, w2, big = n["w_fade"], n["eps"], n["w_grow"], n["big"]
        for bound in (math.log(eps) / math.log(w), math.log(big) / math.log(w2)):
            frac = bound - math.floor(bound)
            if not 0.05 <= frac <= 0.95 or not 4 <= bound < 60:
                return f"a bound {bound:.3f} is too near a whole number or out of range"
        T, T2 = math.floor(math.log(eps) / math.log(w)) + 1, math.floor(math.log(big) / math.log(w2)) + 1
        if sci(eps) in (sci(w ** (T - 1)), sci(w ** T)) or fmt(big, 1) in (fmt(w2 ** (T2 - 1), 1), fmt(w2 ** T2, 1)):
            return "a printed check equals the threshold"
        return None

    return _draw(8, rng, make, flaw)


_P9_SLOPES_UP = (1.0, 2.0, 0.5, 3.0)
_P9_SLOPES_DOWN = (-1.0, -2.0, -0.5, -3.0)
_P9_FADE = _grid(0.5, 0.95, 0.05)
_P9_GROW = _grid(1.1, 1.5, 0.05)
_P9_SMALL = _grid(0.1, 1.3, 0.1)
_P9_V = ((1.0, 0.0), (2.0, 0.0), (1.0, 1.0), (1.0, -1.0), (2.0, 1.0), (1.0, 2.0), (3.0, 1.0))
_P9_STEPS = (6, 7, 8, 9, 10, 11, 12)


def _matrix_with(l1, l2, p, q) -> list[list[float]]:
    """The 2x2 matrix with eigen-pairs (l1, (1, p)) and (l2, (1, q)), rounded to 10 decimals."""
    d = q - p
    M = [[(l1 * q - l2 * p) / d, (l2 - l1) / d], [p * q * (l1 - l2) / d, (l2 * q - l1 * p) / d]]
    return [[round(x, 10) + 0.0 for x in row] for row in M]


def _split(v, p, q) -> tuple[float, float]:
    """(a, c) with v = a (1, p) + c (1, q)."""
    a = (v[0] * q - v[1]) / (q - p)
    return a, v[0] - a


@functools.lru_cache(maxsize=None)
def _p9_pool(largest: tuple[float, ...]) -> tuple:
    """Every (l1, l2, p, q) with l1 from ``largest``, l2 at least 0.1 below it, whose matrix has two decimals."""
    pool = []
    for l1 in largest:
        for l2 in _P9_SMALL:
            if l2 > l1 - 0.1 + 1e-9:
                continue
            for p in _P9_SLOPES_UP:
                for q in _P9_SLOPES_DOWN:
                    if all(_exact(x, 2) for row in _matrix_with(l1, l2, p, q) for x in row):
                        pool.append((l1, l2, p, q))
    return tuple(pool)


def variant_9(rng: random.Random) -> dict:
    """Problem 9 (eigenvalues decide): ``dict(A 2x2, B 2x2, v 2, steps)``, lists of floats and a whole number.

    Built backwards from the answers: each matrix gets eigen-directions (1, p) and (1, q) with
    p in {0.5, 1, 2, 3} and q in {-0.5, -1, -2, -3}, and positive eigenvalues, A's largest in
    0.5..0.95 (A fades), B's in 1.1..1.5 (B explodes), each second eigenvalue from 0.1..1.3 at
    least 0.1 below its first; v from a short list of small vectors, steps 6..12. The shapes stay
    2x2, and A fades while B explodes, as the parts ask (A^T v to four decimals, B^T v to two).
    Constraints: every matrix entry has at most two decimals; v splits along each matrix's
    directions into two positive parts of at most two decimals (so the split and the sums in the
    steps read well); after ``steps`` steps each part of the split prints as a non-zero number
    (>= 1e-5), each entry of A^T v has size 0.005..1 (four decimals) and of B^T v 0.5..10000.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[9]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    pools = {"A": _p9_pool(_P9_FADE), "B": _p9_pool(_P9_GROW)}

    def make(r):
        eig = {name: _pick(r, pool) for name, pool in pools.items()}
        return dict(A=_matrix_with(*eig["A"]), B=_matrix_with(*eig["B"]), v=list(_pick(r, _P9_V)),
                    steps=_pick(r, _P9_STEPS)), eig

    def flaw(drawn):
        n, eig = drawn
        v, T = n["v"], n["steps"]
        for name, (l1, l2, p, q) in eig.items():
            a, c = _split(v, p, q)
            if min(a, c) <= 0 or not (_exact(a, 2) and _exact(c, 2)):
                return "the split of v is not two positive short numbers"
            if min(a * l1 ** T, c * l2 ** T) < 1e-5:
                return "a part of the split vanishes"
            power = [a * l1 ** T + c * l2 ** T, a * p * l1 ** T + c * q * l2 ** T]
            lo, hi = (0.005, 1.0) if name == "A" else (0.5, 1e4)
            if not all(lo <= abs(x) <= hi for x in power):
                return f"{name}^T v has an entry too small or too large"
        return None

    return _draw(9, rng, make, flaw)[0]


@functools.lru_cache(maxsize=1)
def _p10_triples() -> tuple[tuple[tuple[int, int, int], int], ...]:
    """Whole-number triples 0 <= a <= b <= c <= 12 (at most one 0) whose length is whole, with that length."""
    found = []
    for a in range(0, 13):
        for b in range(max(a, 1), 13):
            for c in range(b, 13):
                length = math.isqrt(a * a + b * b + c * c)
                if length * length == a * a + b * b + c * c:
                    found.append(((a, b, c), length))
    return tuple(found)


_P10_LIMITS = _grid(2.0, 8.0, 0.5)
_P10_LR = (0.1, 0.05, 0.2, 0.5, 0.01, 0.02)


@functools.lru_cache(maxsize=1)
def _p10_pool() -> tuple:
    """Every (long triple, its length, limit, lr, short triples that fit) meeting problem 10's digit rules."""
    triples = _p10_triples()
    pool = []
    for t1, n1 in triples:
        for c in _P10_LIMITS:
            if n1 < c + 1:
                continue
            scale = c / n1
            clipped = [x * scale for x in t1]
            for lr in _P10_LR:
                if _exact(scale, 3) and all(_exact(x, 2) and _exact(lr * x, 4) for x in clipped):
                    short = tuple(t for t, n2 in triples if n2 <= c - 0.5 and 0 not in t)
                    if short:
                        pool.append((t1, c, lr, short))
    return tuple(pool)


def variant_10(rng: random.Random) -> dict:
    """Problem 10 (clipping): ``dict(limit, lr, g_long, g_short)``, floats and lists of three floats.

    The gradients are whole-number vectors of whole length (like (6, -8, 0), length 10, from the
    triples with entries up to 12), their entries shuffled and given random signs; limit 2..8 in
    halves; lr from {0.01, 0.02, 0.05, 0.1, 0.2, 0.5}. Three entries each, as the default.
    Constraints: g_long is at least 1 longer than the limit and g_short at least 0.5 shorter
    (so (a) clips and (b) does not); g_short has no 0 entry, g_long's first two entries are not
    0 (the remark on the ratio reads them); the scale limit / length has at most three decimals,
    the clipped entries at most two and the change at most four (the key is exact at four
    decimals).

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[10]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    pool = _p10_pool()

    def vector(r, triple):
        return [float(x * (1 if r.randrange(2) else -1)) + 0.0 for x in _shuffled(r, triple)]

    def make(r):
        t1, c, lr, short = _pick(r, pool)
        return dict(limit=c, lr=lr, g_long=vector(r, t1), g_short=vector(r, _pick(r, short)))

    def flaw(n):
        return "a zero entry where the text reads it" if 0 in n["g_long"][:2] else None

    return _draw(10, rng, make, flaw)


_P11_CPREV = tuple(x for x in _grid(-3.0, 3.0, 0.5) if x != 0)
_P11_FORGET = _grid(-1.0, 3.0, 0.5)
_P11_INPUT = _grid(-2.0, 2.0, 0.5)
_P11_OUTPUT = _grid(-1.0, 2.5, 0.5)
_P11_CANDIDATE = tuple(x for x in _grid(-2.0, 2.0, 0.5) if x != 0)


def variant_11(rng: random.Random) -> dict:
    """Problem 11 (one LSTM step): ``dict(c_prev, forget, input, output, candidate)``, floats.

    Ranges (halves): c_prev -3..3 (not 0), forget -1..3, input -2..2, output -1..2.5, candidate
    -2..2 (not 0).
    Constraints: the three gates differ at four decimals; the new cell state has size >= 0.05
    and the new hidden state >= 0.02; neither equals a given number at four decimals.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[11]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        return dict(c_prev=_pick(r, _P11_CPREV), forget=_pick(r, _P11_FORGET), input=_pick(r, _P11_INPUT),
                    output=_pick(r, _P11_OUTPUT), candidate=_pick(r, _P11_CANDIDATE))

    def flaw(n):
        f, i, o = (_sigmoid(n[k]) for k in ("forget", "input", "output"))
        c_tilde = math.tanh(n["candidate"])
        c = f * n["c_prev"] + i * c_tilde
        h = o * math.tanh(c)
        if len({_r4(f), _r4(i), _r4(o)}) < 3:
            return "two gates are equal"
        if abs(c) < 0.05 or abs(h) < 0.02:
            return "the cell state or the hidden state is near 0"
        if {_r4(c), _r4(h)} & {_r4(v) for v in n.values()}:
            return "an answer equals a given number"
        return None

    return _draw(11, rng, make, flaw)


def _sig3(x: float) -> float:
    """``x`` rounded to three significant figures, as the logged runs are printed."""
    return float(f"{x:.3g}")


_P12_SMALL = _grid(0.3, 0.8, 0.01)
_P12_BIG = _grid(1.2, 2.5, 0.01)
_P12_LSTM = (0.95, 0.96, 0.97, 0.98)
_P12_AHEAD = (10, 12, 15, 20, 25, 30)
_P12_LIMIT = (1.0, 2.0, 2.5, 4.0, 5.0, 10.0)
_P12_FAR = (50, 100, 150, 200)
_P12_SHARE = (0.5, 0.25, 0.1, 0.8, 0.9)


def variant_12(rng: random.Random) -> dict:
    """Problem 12 (diagnose the runs): ``dict(runs, ahead, limit, far, share)``.

    ``runs`` maps "A", "B", "C" to six logged sizes, the whole number 1 and then f^1..f^5 printed
    to three significant figures; one run fades (f 0.30..0.80), one explodes (f 1.20..2.50), one
    is an LSTM's cell state (f 0.95..0.98), in a random order of the letters. ahead from
    {10, 12, 15, 20, 25, 30}, limit {1, 2, 2.5, 4, 5, 10}, far {50, 100, 150, 200}, share
    {0.1, 0.25, 0.5, 0.8, 0.9}. Three runs of six entries, as the default.
    Constraints (on the factors the key computes from the rounded sizes): the diagnosis holds
    (the LSTM run's factor is nearest 1, one plain factor below 1, one above); the LSTM run's factor
    prints below 1.00 at two decimals; with factors rounded to two decimals the estimates move
    by at most 3 per cent (as step (b) says); the estimates lie in 1e-12..1e9; the exploding
    run's last size exceeds the limit and the clipping scale is 0.001..0.8; the LSTM run falls short
    of f_min: its factor^far is below share / 2 yet prints as at least 0.002.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[12]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        kinds = _shuffled(r, ("small", "big", "lstm"))
        base = {"small": _pick(r, _P12_SMALL), "big": _pick(r, _P12_BIG), "lstm": _pick(r, _P12_LSTM)}
        runs = {letter: [1] + [_sig3(base[kind] ** k) for k in range(1, 6)] for letter, kind in zip("ABC", kinds)}
        return dict(runs=runs, ahead=_pick(r, _P12_AHEAD), limit=_pick(r, _P12_LIMIT), far=_pick(r, _P12_FAR),
                    share=_pick(r, _P12_SHARE))

    def flaw(n):
        runs, ahead = n["runs"], n["ahead"]
        factor = {k: (v[-1] / v[0]) ** (1 / (len(v) - 1)) for k, v in runs.items()}
        order = sorted(factor, key=lambda k: abs(math.log(factor[k])))
        lstm = order[0]
        plain = sorted(order[1:], key=factor.get)
        if not (factor[plain[0]] < 1 < factor[plain[1]] and factor[lstm] < 1 and fmt(factor[lstm], 2) != "1.00"):
            return "the diagnosis is not clear"
        for f in factor.values():
            if abs(round(f, 2) ** ahead / f ** ahead - 1) > 0.03:
                return "two-decimal factors move the estimates"
            if not 1e-12 <= f ** ahead <= 1e9:
                return "an estimate is too small or too large"
        last = runs[plain[1]][-1]
        if not 0.001 <= n["limit"] / last <= 0.8:
            return "the clipping scale is out of range"
        kept = factor[lstm] ** n["far"]
        if not (0.002 <= kept < n["share"] / 2):
            return "the LSTM run is not clearly short of f_min"
        return None

    return _draw(12, rng, make, flaw)


_P13_HPREV = tuple(x for x in _grid(-0.9, 0.9, 0.1) if abs(x) >= 0.2)
_P13_X = tuple(x for x in _grid(-2.0, 2.0, 0.5) if x != 0)
_P13_PRE = _grid(-2.0, 2.0, 0.5)
_P13_W_INPUT = (0.5, 1.0, 1.5, -0.5, -1.0)
_P13_W_OLD = _grid(0.5, 2.5, 0.5)


def variant_13(rng: random.Random) -> dict:
    """Problem 13 (one GRU step): ``dict(h_prev, x, a_z, a_r, w_input, w_old)``, floats.

    Ranges: h_prev +-0.2..0.9 (one decimal), x -2..2 in halves (not 0), the gates' pre-activations
    a_z, a_r -2..2 in halves,
    w_input in {+-0.5, +-1, 1.5}, w_old 0.5..2.5 in halves (positive: then the reset gate's effect
    has the sign of h_prev, "higher" for a negative old state, "lower" for a positive one).
    Constraints: both candidates have size 0.02..0.97 and differ by at least 0.01 (part (b)'s
    "higher or lower" is visible at four decimals); both new states have size >= 0.02 and differ;
    z and r differ.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[13]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        return dict(h_prev=_pick(r, _P13_HPREV), x=_pick(r, _P13_X), a_z=_pick(r, _P13_PRE),
                    a_r=_pick(r, _P13_PRE), w_input=_pick(r, _P13_W_INPUT), w_old=_pick(r, _P13_W_OLD))

    def flaw(n):
        hp, x, wx, wo = n["h_prev"], n["x"], n["w_input"], n["w_old"]
        z, rr = _sigmoid(n["a_z"]), _sigmoid(n["a_r"])
        cand, cand_open = math.tanh(wx * x + wo * rr * hp), math.tanh(wx * x + wo * hp)
        h, h_open = (1 - z) * hp + z * cand, (1 - z) * hp + z * cand_open
        why = _plain_states([cand, cand_open], 0.02, 0.97)
        if why:
            return why
        if abs(cand - cand_open) < 0.01 or min(abs(h), abs(h_open)) < 0.02 or _r4(h) == _r4(h_open):
            return "the reset gate changes too little, or a state is near 0"
        if _r4(z) == _r4(rr):
            return "z == r"
        return None

    return _draw(13, rng, make, flaw)


_P14_W = _grid(0.3, 1.2, 0.1)
_P14_U = (0.5, 1.0, 1.5, -1.0)
_P14_B = _grid(-0.3, 0.3, 0.1)
_P14_X = _grid(-1.5, 1.5, 0.5)


def variant_14(rng: random.Random) -> dict:
    """Problem 14 (reading both ways): ``dict(w, u, b, xs)``, floats, ``xs`` three floats.

    Ranges: w 0.3..1.2, b -0.3..0.3 (one decimal), u in {0.5, 1, 1.5, -1}, inputs -1.5..1.5 in
    halves (0 allowed). Three inputs, as the parts ask ("x_3", "word 2").
    Constraints: the inputs are not a palindrome (else both directions agree); every forward
    and backward hidden state has size 0.02..0.97; word 2's two halves differ; w and u are not 0, so a
    change of x_3 reaches the backward half of word 1 (answer "backward").

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[14]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        return dict(w=_pick(r, _P14_W), u=_pick(r, _P14_U), b=_pick(r, _P14_B), xs=[_pick(r, _P14_X) for _ in range(3)])

    def flaw(n):
        xs = n["xs"]
        if xs == xs[::-1]:
            return "the inputs read the same both ways"
        fwd = _scalar_states(xs, n["w"], n["u"], n["b"], 0.0)
        bwd = _scalar_states(xs[::-1], n["w"], n["u"], n["b"], 0.0)[::-1]
        why = _plain_states(fwd + bwd, 0.02, 0.97)
        if why:
            return why
        if _r4(fwd[1]) == _r4(bwd[1]):
            return "word 2's halves are equal"
        return None

    return _draw(14, rng, make, flaw)


_P15_FIRST = ("the", "my", "our", "your", "this")
_P15_NOUNS = ("tea", "chai", "cup", "train", "ticket", "kettle", "biscuit", "platform")


def _partitions(parts: int) -> list[tuple[int, ...]]:
    """The ways to write 10 as ``parts`` whole numbers >= 1, largest first."""
    if parts == 2:
        return [(a, 10 - a) for a in range(5, 10)]
    return [(a, b, 10 - a - b) for a in range(4, 9) for b in range(1, a + 1) if 1 <= 10 - a - b <= b]


@functools.lru_cache(maxsize=1)
def _p15_plans() -> tuple:
    """Every (first word's tenths, greedy's next-word tenths, runner-up's node size, its top tenth)
    under which the beam (width 2) beats greedy: the runner-up's best output outweighs greedy's."""
    plans = []
    for n_first in (2, 3):
        for first in _partitions(n_first):
            if first[0] == first[1] or (n_first == 3 and first[1] == first[2]):
                continue
            for g_parts in (2, 3):
                for nxt in _partitions(g_parts):
                    if nxt[0] == nxt[1]:
                        continue
                    for r_parts in (2, 3):
                        for top in range(1, 11 - r_parts + 1):
                            if first[1] * top > first[0] * nxt[0]:
                                plans.append((first, nxt, r_parts, top))
    return tuple(plans)


def _tenths(r: random.Random, parts: int, top: int | None = None) -> list[float]:
    """``parts`` probabilities in tenths, each at least 0.1, summing to 1, in random order.

    With ``top`` (a whole number of tenths) one of them is ``top / 10`` and the others share the rest.
    """
    if top is None:
        cuts = sorted(_sample(r, range(1, 10), parts - 1))
        edges = [0, *cuts, 10]
        return [(edges[i + 1] - edges[i]) / 10 for i in range(parts)]
    rest = 10 - top
    if parts == 2:
        pieces = [top, rest]
    else:
        first = 1 + r.randrange(rest - 1)
        pieces = [top, first, rest - first]
    return [x / 10 for x in _shuffled(r, pieces)]


def variant_15(rng: random.Random) -> dict:
    """Problem 15 (greedy against beam): ``dict(first, second, beam_width)``.

    ``first`` maps 2 or 3 first words ("the", "my", "our", "your", "this") to probabilities;
    ``second`` maps each first word to 2 or 3 nouns (tea, chai, cup, train, ...) with
    probabilities; all probabilities are tenths, at least 0.1, each node summing to 1 (so every
    product has two decimals, as the steps print it). beam_width stays 2, and every output has
    two words (the statement's "two-word output").
    Constraints: the likeliest first word, and the likeliest word after it, are unique (greedy
    is well defined); the beam's cut after the first word and after the second falls between
    different probabilities; the beam's output is unique and differs from greedy's (it is more
    probable). By construction: the probabilities follow one of the plans (:func:`_p15_plans`)
    in which the runner-up first word's likeliest output beats greedy's; words and orders are
    drawn at random, and the ties are redrawn.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[15]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    plans = _p15_plans()

    def make(r):
        first_p, greedy_p, r_parts, top = _pick(r, plans)
        words = _sample(r, _P15_FIRST, len(first_p))            # words[0] greedy's, words[1] the runner-up
        nodes = {words[0]: [x / 10 for x in _shuffled(r, greedy_p)], words[1]: _tenths(r, r_parts, top)}
        if len(words) == 3:
            nodes[words[2]] = _tenths(r, 2 + r.randrange(2))
        order = _shuffled(r, range(len(words)))
        first = {words[i]: first_p[i] / 10 for i in order}
        second = {words[i]: dict(zip(_sample(r, _P15_NOUNS, len(nodes[words[i]])), nodes[words[i]])) for i in order}
        return dict(first=first, second=second, beam_width=2)

    def flaw(n):
        first, second, k = n["first"], n["second"], n["beam_width"]
        ranked = sorted(first.values(), reverse=True)
        if ranked[0] == ranked[1] or (len(ranked) > k and ranked[k - 1] == ranked[k]):
            return "a tie among the first words"
        g1 = max(first, key=first.get)
        nxt = sorted(second[g1].values(), reverse=True)
        if nxt[0] == nxt[1]:
            return "a tie after greedy's first word"
        kept = sorted(first, key=first.get, reverse=True)[:k]
        grown = sorted((round(first[a] * p, 2), f"{a} {b}") for a in kept for b, p in second[a].items())[::-1]
        probs = [p for p, _ in grown]
        if probs[0] == probs[1] or (len(probs) > k and probs[k - 1] == probs[k]):
            return "a tie where the beam cuts"
        if grown[0][1] == f"{g1} {max(second[g1], key=second[g1].get)}":
            return "beam and greedy agree"
        return None

    return _draw(15, rng, make, flaw)


#: problem 16's sentences: (reference, candidates that keep its meaning, candidates that change a
#: fact or drop one). A candidate keeps the meaning by swapping a word (or two) for words that mean
#: the same, often with the words reordered too; a plain reordering is left out, since it would
#: nearly always score highest.
_P16_SENTENCES = (
    ("we drink chai every morning",
     ("each morning we drink chai", "we have chai every morning", "every morning we have chai",
      "we drink chai each morning"),
     ("we drink chai every evening", "we drink chai every night", "they drink chai every morning",
      "we drink coffee every morning", "we make chai every morning", "we drink chai", "we drink chai every week")),
    ("the last train leaves at midnight",
     ("the final train leaves at midnight", "the last train departs at midnight", "at midnight the final train leaves",
      "at midnight the last train departs"),
     ("the last train leaves at noon", "the last train leaves at nine", "the first train leaves at midnight",
      "the last train arrives at midnight", "the last train leaves", "the last bus leaves at midnight")),
    ("my grandmother makes sweet milky tea",
     ("my grandma makes sweet milky tea", "my grandmother makes milky sweet tea", "my grandmother prepares sweet milky tea"),
     ("my grandmother makes sweet milky coffee", "your grandmother makes sweet milky tea",
      "my grandfather makes sweet milky tea", "my grandmother drinks sweet milky tea",
      "my grandmother makes sweet black tea", "my grandmother makes tea")),
    ("the platform was crowded this evening",
     ("the platform was packed this evening", "this evening the platform was packed"),
     ("the platform was crowded this morning", "the platform was crowded this afternoon",
      "the platform was empty this evening", "the station was crowded this evening", "the platform was crowded",
      "that platform was crowded this evening")),
    ("our train was late again today",
     ("our train was delayed again today", "today our train was delayed again", "our train was late once more today"),
     ("our train was late again yesterday", "their train was late again today", "our train was early again today",
      "our bus was late again today", "our train was late", "our train was late today")),
    ("she pours the tea into small cups",
     ("she pours the tea into little cups", "into little cups she pours the tea"),
     ("he pours the tea into small cups", "she pours the tea into small glasses", "she pours the milk into small cups",
      "she pours the tea into large cups", "she pours the tea",
      "she pours the tea into small bowls")),
    ("the kettle boils in two minutes",
     ("the kettle boils within two minutes", "within two minutes the kettle boils"),
     ("the kettle boils in two hours", "our kettle boils in two minutes", "the kettle boils in ten minutes",
      "the kettle cools in two minutes", "the kettle boils", "the kettle boils in three minutes")),
    ("he buys a ticket at the counter",
     ("he purchases a ticket at the counter", "at the counter he purchases a ticket"),
     ("he buys a ticket at the machine", "she buys a ticket at the counter", "he sells a ticket at the counter",
      "he buys a newspaper at the counter", "he buys a ticket", "he buys a ticket at the window")),
    ("the tea stall opens at six",
     ("the tea stall opens up at six", "at six the tea stall opens up"),
     ("the tea stall opens at seven", "the tea stall closes at six", "the book stall opens at six",
      "the fruit stall opens at six", "the tea stall opens", "the tea stall opens at eight")),
    ("every evening they walk to the station",
     ("every evening they stroll to the station", "they walk to the station each evening",
      "they stroll to the station every evening"),
     ("every evening they walk to the market", "every morning they walk to the station",
      "every evening they drive to the station", "every evening we walk to the station", "every evening they walk")),
    ("the station master rings the bell",
     ("the stationmaster rings the bell",),
     ("the station master rings the alarm", "the station master rang the bell", "the station master rings",
      "the station master opens the gate", "the station master rings the bell twice")),
    ("my sister drinks green tea after lunch",
     ("my sister has green tea after lunch", "after lunch my sister has green tea"),
     ("my sister drinks green tea after dinner", "my brother drinks green tea after lunch",
      "my sister drinks black tea after lunch", "my sister drinks green tea before lunch", "my sister drinks green tea",
      "my sister drinks green tea after breakfast")),
)


def _bleu2(candidate: str, reference: str) -> float:
    """BLEU-2 of one candidate against one reference, clipped counts (for the generator's check)."""
    c, r = candidate.split(), reference.split()
    score = 1.0
    for order in (1, 2):
        pieces = [tuple(c[i:i + order]) for i in range(len(c) - order + 1)]
        ref_pieces = [tuple(r[i:i + order]) for i in range(len(r) - order + 1)]
        matched = sum(min(pieces.count(p), ref_pieces.count(p)) for p in dict.fromkeys(pieces))
        score *= matched / len(pieces)
    return min(1.0, math.exp(1 - len(r) / len(c))) * math.sqrt(score)


def variant_16(rng: random.Random) -> dict:
    """Problem 16 (BLEU-2): ``dict(reference, candidates, keeps_meaning)``, strs.

    ``reference`` one of twelve everyday sentences written for the course; ``candidates`` maps "A",
    "B", "C" to three different sentences: one keeps the reference's meaning (a word swapped for
    one meaning the same, often with the words reordered too), two change a fact or drop one; the
    letters are shuffled, and ``keeps_meaning`` names the one that keeps the meaning. Three
    candidates, as the parts (a)-(c) ask.
    Constraints: every BLEU-2 is above 0; one candidate scores strictly highest and it is not
    the one that keeps the meaning.

    Args:
        rng: a random.Random (from :func:`rng_for`).

    Returns:
        dict in the form of ``NUMBERS[16]``.

    Raises:
        TypeError: if ``rng`` is not a random.Random. VariantError: see :data:`MAX_TRIES`.
    """
    def make(r):
        reference, keep, other = _pick(r, _P16_SENTENCES)
        kept = _pick(r, keep)
        sentences = _shuffled(r, [kept, *_sample(r, other, 2)])
        letter = "ABC"[sentences.index(kept)]
        return dict(reference=reference, candidates=dict(zip("ABC", sentences)), keeps_meaning=letter)

    def flaw(n):
        scores = {k: _bleu2(c, n["reference"]) for k, c in n["candidates"].items()}
        ranked = sorted(scores.values(), reverse=True)
        if ranked[-1] <= 0:
            return "a candidate scores 0"
        if ranked[0] - ranked[1] < 1e-9:
            return "two candidates share the top score"
        if max(scores, key=scores.get) == n["keeps_meaning"]:
            return "the candidate that keeps the meaning scores highest"
        return None

    return _draw(16, rng, make, flaw)


#: problem number -> its generator
VARIANTS: dict[int, Callable[[random.Random], dict[str, Any]]] = {
    i: globals()[f"variant_{i}"] for i in range(1, 17)}
