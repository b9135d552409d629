"""Input checks shared by the course's functions.

Every public function of ``mwm`` turns its inputs into float arrays through these
helpers, so that a wrong shape or a bad value stops with a ``ValueError`` that names
the argument ("W must have shape (4, 4), got (3, 4)") instead of a numpy
broadcasting error deep inside a formula.
"""
from __future__ import annotations

import math
from numbers import Real

import numpy as np


def as_array(value, name: str, *, ndim=None, shape=None, dtype=float) -> np.ndarray:
    """Return ``value`` as a finite float array, checking its rank and shape.

    Args:
        value: anything ``numpy.asarray`` accepts.
        name: the argument's name, used in the error message.
        ndim: an int or a tuple of allowed ranks, or None for any rank.
        shape: the required shape; ``None`` inside it matches any length.

    Raises:
        ValueError: if the value is not numeric, not finite, or has the wrong rank or shape.
    """
    try:
        arr = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric, got {type(value).__name__}: {exc}") from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            words = " or ".join(str(n) for n in allowed)
            raise ValueError(f"{name} must have {words} dimension(s), got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + (",)" if len(shape) == 1 else ")")
            raise ValueError(f"{name} must have shape {want}, got {arr.shape}")
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers")
    return arr


def as_sequence(xs, n_in: int, name: str = "xs") -> tuple[np.ndarray, int | None]:
    """Check a sequence of input vectors, one sequence ``(T, d)`` or a batch ``(T, B, d)``.

    Returns:
        (xs as a float array, the batch size B or None for one sequence).

    Raises:
        ValueError: if the rank is not 2 or 3, the sequence has no step, the last axis
            is not ``n_in`` long, or a value is not finite, naming ``name``.
    """
    xs = as_array(xs, name, ndim=(2, 3))
    if xs.shape[0] == 0:
        raise ValueError(f"{name} must contain at least one step")
    batch = None if xs.ndim == 2 else xs.shape[1]
    xs = as_array(xs, name, shape=(None, n_in) if batch is None else (None, batch, n_in))
    return xs, batch


def time_major(xs, batch_first: bool, name: str = "xs"):
    """``xs`` with time first: a batch-first ``(B, T, ...)`` array is swapped to ``(T, B, ...)``.

    Raises:
        ValueError: ``batch_first`` is not a bool, or (with it) ``xs`` is not 3-dimensional, naming ``name``.
    """
    if not isinstance(batch_first, (bool, np.bool_)):
        raise ValueError(f"batch_first must be True or False, got {batch_first!r}")
    if not batch_first or xs is None:
        return xs
    return as_array(xs, name, ndim=(3,)).swapaxes(0, 1)


def batch_major(arr, batch_first: bool):
    """The inverse of :func:`time_major` for a result: ``(T, B, ...)`` back to ``(B, T, ...)`` when ``batch_first``."""
    return np.ascontiguousarray(np.swapaxes(arr, 0, 1)) if batch_first else arr


def as_scalar(value, name: str) -> float:
    """Return ``value`` as a finite Python float; raise ``ValueError`` naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        arr = np.asarray(value)
        if arr.shape != () or not np.issubdtype(arr.dtype, np.number):
            raise ValueError(f"{name} must be a single number, got {type(value).__name__}")
        value = arr.item()
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}")
    return value


def positive(value, name: str) -> float:
    """Return ``value`` as a float after checking that it is finite and strictly positive."""
    value = as_scalar(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return value


def positive_int(value, name: str) -> int:
    """Return ``value`` as an int after checking that it is a whole number of at least 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a whole number, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return int(value)


def non_empty(seq, name: str):
    """Raise ``ValueError`` if ``seq`` has no items; return it unchanged otherwise."""
    if len(seq) == 0:
        raise ValueError(f"{name} must not be empty")
    return seq
