"""Intervals for the small counts the chapters report (chapters 5 and 9).

A chapter that says "49 of 50 samples were copies" gives the share an interval, so a reader sees
how far another 50 samples could move it.
"""
from __future__ import annotations

import math

import numpy as np

from ._validate import positive_int

__all__ = ["wilson_interval"]


def wilson_interval(successes: int, trials: int, quantile: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for a share ``successes / trials`` (95% with the default ``quantile``).

    Unlike the textbook ``p ± z·sqrt(p(1-p)/n)`` (z the normal quantile, n the trials) it stays
    inside [0, 1] and does not shrink to a point at 0 or all successes (Wilson, 1927; Brown, Cai
    and DasGupta, 2001).

    Args:
        successes: a whole number from 0 to ``trials``.
        trials: a whole number >= 1.
        quantile: the normal quantile z of the level (1.96 for 95%), > 0.

    Returns:
        (low, high), floats with 0 <= low <= successes/trials <= high <= 1.

    Raises:
        ValueError: if ``trials`` is not a whole number >= 1, ``successes`` not a whole number in
            [0, trials], or ``quantile`` not a positive number.
    """
    n = positive_int(trials, "trials")
    k = successes
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or not 0 <= k <= n:
        raise ValueError(f"successes must be a whole number from 0 to trials = {n}, got {k!r}")
    z = quantile
    if isinstance(z, bool) or not isinstance(z, (int, float)) or not z > 0 or not math.isfinite(z):
        raise ValueError(f"quantile must be a positive number, got {z!r}")
    k = int(k)
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    low = 0.0 if k == 0 else max(0.0, centre - half)       # exactly 0 and 1 at the ends, not 1e-16 off
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high
