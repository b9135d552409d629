"""Friendly answer checks for the practice problems (the nbgrader course in ``exercises/``).

Each check takes the answer's name, the student's value and, optionally, the expected
value. A value of the wrong kind or shape, or one outside the tolerance, raises
``AssertionError`` with ONE line saying what was expected, for example

    h2 should be a number, got a list
    h2 should be -0.3720 ± 0.0005, got -0.3907

nbgrader shows that line as the part's feedback. The error is an :class:`AnswerError` (a
kind of ``AssertionError``); when this module is imported inside IPython (a notebook) it
asks IPython to show an ``AnswerError`` as that one line, so a student never sees a
traceback through this module. The error still counts as a failed cell for nbgrader.

Without an expected value a check only tests the format (what a hand-in cell checks in the
student's kernel for a part it may not check the value of); with one it also tests the value
(in self-study, for each problem's first part, and in the teacher's judge, outside the kernel). The tolerance follows the printed
precision: an answer asked for to ``decimals`` places may be off by ``5 * 10**-decimals``
(four decimals -> 5e-4), and one asked for to ``sig`` significant figures by five units of
its last significant figure.
"""
from __future__ import annotations

import math
from numbers import Real

import numpy as np

__all__ = ["AnswerError", "tolerance", "check_number", "check_vector", "check_integer", "check_choice", "check_bool",
           "check_function"]


def _kind(value) -> str:
    """A short description of a value's type, for messages ("a list", "a string '0.37'")."""
    if value is None:
        return "None (no answer yet)"
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return f"{bool(value)} (True/False)"
    if isinstance(value, str):
        shown = value if len(value) <= 20 else value[:17] + "..."
        return f"a string {shown!r}"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} item{'s' if len(value) != 1 else ''}"
    if callable(value):
        return "a function"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


class AnswerError(AssertionError):
    """An answer of the wrong kind, shape or value; its message is one line for the student."""


def _fail(message: str):
    __tracebackhide__ = True
    raise AnswerError(message)


def _one_line(shell, etype, value, tb, tb_offset=None):
    """IPython custom-exception handler: show an AnswerError as one line, without a traceback."""
    line = f"\x1b[0;31m{etype.__name__}\x1b[0m: {value}"
    shell._showtraceback(etype, value, [line])
    return [line]


def _install_in_ipython() -> bool:
    """Register :func:`_one_line` for AnswerError in the running IPython shell, if any."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    shell.set_custom_exc((AnswerError,), _one_line)
    return True


def _is_number(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (Real, np.integer, np.floating)):
        return True
    return isinstance(value, np.ndarray) and value.shape == () and np.issubdtype(value.dtype, np.number)


def tolerance(decimals=None, sig=None, expected=0.0) -> float:
    """The grading tolerance of an answer printed to ``decimals`` places or ``sig`` significant figures.

    Args:
        decimals: places after the point the problem asks for (>= 0), or None.
        sig: significant figures asked for (>= 1), or None; used when ``decimals`` is None.
        expected: the exact answer (sets the scale of the last significant figure).

    Returns:
        float: ``5 * 10**-decimals``, or five units of the ``sig``-th significant figure of
        ``expected``; 0 for whole-number answers (both None).
    """
    if decimals is not None:
        return 5 * 10.0 ** -decimals
    if sig is not None:
        if expected == 0:
            return 5 * 10.0 ** -sig
        return 5 * 10.0 ** (math.floor(math.log10(abs(expected))) - sig + 1)
    return 0.0


def _show(x: float, decimals=None, sig=None) -> str:
    if decimals is not None:
        return f"{x:.{decimals}f}"
    if sig is not None:
        return f"{x:.{sig - 1}e}" if x != 0 and not 1e-3 <= abs(x) < 1e5 else f"{x:.{sig}g}"
    return f"{x:g}"


def check_number(name: str, value, expected=None, *, decimals=4, sig=None, reveal=True):
    """Check that ``value`` is one finite number and, if ``expected`` is given, that it is close enough.

    Args:
        name: the answer's variable name, used in the message.
        value: the student's answer (an int, a float, a numpy scalar or a 0-d array).
        expected: the exact answer, or None to check the format only.
        decimals: places the problem asks for (tolerance ``5 * 10**-decimals``); pass
            ``decimals=None, sig=k`` for an answer asked to k significant figures.
        reveal: whether a wrong value's message shows the expected value (False when grading:
            the message then gives the student's value only).

    Returns:
        None (so that a passing check prints nothing).

    Raises:
        AnswerError: one line saying what was expected.
    """
    __tracebackhide__ = True
    if isinstance(value, (list, tuple, np.ndarray)) and np.size(value) == 1 and not _is_number(value):
        _fail(f"{name} should be a number, got {_kind(value)}: take its single entry, e.g. {name}[0]")
    if not _is_number(value):
        _fail(f"{name} should be a number, got {_kind(value)}")
    x = float(value)
    if not math.isfinite(x):
        _fail(f"{name} should be a finite number, got {x}")
    if expected is not None:
        tol = tolerance(decimals, sig, expected)
        if not abs(x - expected) <= tol * (1 + 1e-9):
            if not reveal:
                _fail(f"{name} is not right: got {_show(x, decimals, sig)}")
            _fail(f"{name} should be {_show(expected, decimals, sig)} ± {_show(tol, decimals, sig)}, "
                  f"got {_show(x, decimals, sig)}")


def _shape_words(shape) -> str:
    if len(shape) == 1:
        return f"{shape[0]} number{'s' if shape[0] != 1 else ''}"
    return f"{shape[0]} rows of {shape[1]} numbers"


def check_vector(name: str, value, expected=None, *, shape=None, decimals=4, sig=None, reveal=True):
    """Check that ``value`` is a list, tuple or array of numbers of the right shape and values.

    Args:
        name: the answer's variable name.
        value: the student's answer: a flat list of numbers, or a list of rows for a matrix.
        expected: the exact answer (numbers, nested for a matrix), or None to check the format only.
        shape: the shape wanted, an int (a flat list of that length) or a tuple; taken from
            ``expected`` when None.
        decimals, sig: the precision asked for, as in :func:`check_number` (per entry).
        reveal: whether a wrong entry's message shows the expected value.

    Returns:
        None.

    Raises:
        AnswerError: one line saying what was expected (kind, shape, or the first entry
        that is off).
    """
    __tracebackhide__ = True
    if expected is not None:
        expected = np.asarray(expected, dtype=float)
        shape = expected.shape if shape is None else shape
    if isinstance(shape, int):
        shape = (shape,)
    want = _shape_words(shape) if shape else "a list of numbers"
    if not isinstance(value, (list, tuple, np.ndarray)):
        _fail(f"{name} should be {want} (a list or an array), got {_kind(value)}")
    try:
        arr = np.array(value, dtype=object)
    except ValueError:  # ragged nesting
        _fail(f"{name} should be {want}, got rows of different lengths")
    for index, item in np.ndenumerate(arr):
        if not _is_number(item):
            where = "][".join(str(i) for i in index)
            _fail(f"{name}[{where}] should be a number, got {_kind(item)}")
    if shape is not None and arr.shape != tuple(shape):
        got = _shape_words(arr.shape) if arr.ndim in (1, 2) else f"shape {arr.shape}"
        _fail(f"{name} should be {want}, got {got}")
    x = arr.astype(float)
    if not np.all(np.isfinite(x)):
        _fail(f"{name} should contain finite numbers, got {x.tolist()}")
    if expected is not None:
        for index in np.ndindex(x.shape):
            xi, ei = x[index], expected[index]
            tol = tolerance(decimals, sig, ei)
            if not abs(xi - ei) <= tol * (1 + 1e-9):
                where = "][".join(str(i) for i in index)
                if not reveal:
                    _fail(f"{name}[{where}] is not right: got {_show(xi, decimals, sig)}")
                _fail(f"{name}[{where}] should be {_show(ei, decimals, sig)} ± {_show(tol, decimals, sig)}, "
                      f"got {_show(xi, decimals, sig)}")


def check_integer(name: str, value, expected=None, *, reveal=True):
    """Check that ``value`` is a whole number (an int, or a float with nothing after the point) and equals ``expected``.

    ``reveal=False`` keeps the expected value out of the message (grading).

    Raises:
        AnswerError: one line saying what was expected.
    """
    __tracebackhide__ = True
    if not _is_number(value):
        _fail(f"{name} should be a whole number, got {_kind(value)}")
    x = float(value)
    if not math.isfinite(x) or x != round(x):
        _fail(f"{name} should be a whole number, got {x}")
    n = int(round(x))
    if expected is not None and n != int(expected):
        if not reveal:
            _fail(f"{name} is not right: got {n}")
        _fail(f"{name} should be {int(expected)}, got {n}")


def _norm(text: str) -> str:
    return " ".join(text.strip().lower().split())


def check_choice(name: str, value, options, expected=None, *, reveal=True):
    """Check that ``value`` is one of the strings ``options`` (case and spaces ignored) and equals ``expected``.

    Args:
        name: the answer's variable name.
        value: the student's answer, a string.
        options: the allowed answers (non-empty).
        expected: the right option, or None to check the format only.
        reveal: whether a wrong choice's message names the right one.

    Raises:
        AnswerError: one line listing the options, or saying which one was expected.
    """
    __tracebackhide__ = True
    listed = ", ".join(repr(o) for o in options)
    if not isinstance(value, str):
        _fail(f"{name} should be one of {listed}, got {_kind(value)}")
    if _norm(value) not in {_norm(o) for o in options}:
        _fail(f"{name} should be one of {listed}, got {value!r}")
    if expected is not None and _norm(value) != _norm(expected):
        if not reveal:
            _fail(f"{name} is not right: got {value!r}")
        _fail(f"{name} should be {expected!r}, got {value!r}")


def check_bool(name: str, value, expected=None, *, reveal=True):
    """Check that ``value`` is True or False and equals ``expected``.

    ``reveal=False`` keeps the expected value out of the message (grading).

    Raises:
        AnswerError: one line saying what was expected.
    """
    __tracebackhide__ = True
    if not isinstance(value, (bool, np.bool_)):
        _fail(f"{name} should be True or False, got {_kind(value)}")
    if expected is not None and bool(value) != bool(expected):
        if not reveal:
            _fail(f"{name} is not right: got {bool(value)}")
        _fail(f"{name} should be {bool(expected)}, got {bool(value)}")


def check_function(name: str, value, cases=(), *, decimals=None, sig=None, n_args=None, reveal=True):
    """Check that ``value`` is a function and that it gives the expected result on each case.

    Args:
        name: the function's name.
        value: the student's function.
        cases: pairs ``(args, expected)``; ``args`` is a tuple of arguments. Whole-number
            results are compared exactly when ``decimals`` and ``sig`` are both None.
        decimals, sig: the precision of real-valued results, as in :func:`check_number`.
        n_args: how many arguments the function should take (for the format check).
        reveal: whether a wrong result's message shows the expected result.

    Raises:
        AnswerError: one line: not a function, the call that raised, or the call whose
        result is off.
    """
    __tracebackhide__ = True
    if not callable(value):
        _fail(f"{name} should be a function, got {_kind(value)}")
    if n_args is not None:
        import inspect

        try:
            params = inspect.signature(value).parameters
        except (TypeError, ValueError):
            params = None
        if params is not None and len(params) != n_args and not any(
                p.kind == p.VAR_POSITIONAL for p in params.values()):
            _fail(f"{name} should take {n_args} argument{'s' if n_args != 1 else ''}, takes {len(params)}")
    for args, want in cases:
        call = f"{name}({', '.join(repr(a) for a in args)})"
        try:
            got = value(*args)
        except Exception as exc:  # the student's code: report it in one line
            _fail(f"{call} raised {type(exc).__name__}: {exc}")
        if decimals is None and sig is None:
            check_integer(call, got, want, reveal=reveal)
        else:
            check_number(call, got, want, decimals=decimals, sig=sig, reveal=reveal)


_install_in_ipython()
