"""What a rerun on another machine can reproduce of a committed measurement.

A committed file was written on one machine. Another processor's vector code (AVX-512 or AVX2,
its BLAS kernels) adds and multiplies in another order, so a float computed again may differ in
its last bit or two: seen, chapter 7's spectral radius 2.063122740527835 against
2.0631227405278394, a sum of 81 log-probabilities in its 16th digit. A rerun must agree to
:data:`REL` (a thousand times that difference, and millions of times finer than any number a
chapter prints); integers, words and every other value must be equal.
"""
import math

#: The relative difference a float may have from its committed value on another machine.
REL = 1e-12


def same(got, committed) -> bool:
    """Whether ``got`` is ``committed`` up to :data:`REL` in each float (dicts, lists and tuples compared item by item)."""
    if isinstance(committed, dict):
        return isinstance(got, dict) and got.keys() == committed.keys() and all(same(got[k], committed[k]) for k in committed)
    if isinstance(committed, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(committed) and all(map(same, got, committed))
    if isinstance(committed, float) and not isinstance(got, bool) and isinstance(got, (int, float)):
        return math.isclose(got, committed, rel_tol=REL, abs_tol=0.0) or got == committed
    return got == committed and type(got) is type(committed)


def same_line(got: str, committed: str) -> bool:
    """Two tab-separated lines: equal cells, except that cells which are floats are compared as :func:`same`."""
    a, b = got.split("\t"), committed.split("\t")

    def number(cell):
        try:
            return float(cell)
        except ValueError:
            return None

    return len(a) == len(b) and all(x == y or (number(x) is not None and number(y) is not None and "." in y
                                              and same(number(x), number(y))) for x, y in zip(a, b))
