"""Intervals for the small counts the chapters report (chapters 5 and 9).

A chapter that says "49 of 50 samples were copies" gives the share an interval, so a reader sees
how far another 50 samples could move it.
"""
from __future__ import annotations

import math

import numpy as np

from ._validate import positive_int

__all__ = ["wilson_interval"]


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval for a share ``k / n`` (95% with the default ``z``).

    Unlike the textbook ``p ± z·sqrt(p(1-p)/n)`` it stays inside [0, 1] and does not shrink to a
    point at ``k = 0`` or ``k = n`` (Wilson, 1927; Brown, Cai and DasGupta, 2001).

    Args:
        k: successes, a whole number with 0 <= k <= n.
        n: trials, a whole number >= 1.
        z: the normal quantile of the level (1.96 for 95%), > 0.

    Returns:
        (low, high), floats with 0 <= low <= k/n <= high <= 1.

    Raises:
        ValueError: if ``n`` is not a whole number >= 1, ``k`` not a whole number in [0, n],
            or ``z`` not a positive number.
    """
    n = positive_int(n, "n")
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or not 0 <= k <= n:
        raise ValueError(f"k must be a whole number from 0 to n = {n}, got {k!r}")
    if isinstance(z, bool) or not isinstance(z, (int, float)) or not z > 0 or not math.isfinite(z):
        raise ValueError(f"z must be a positive number, got {z!r}")
    k = int(k)
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    low = 0.0 if k == 0 else max(0.0, centre - half)       # exactly 0 and 1 at the ends, not 1e-16 off
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high
