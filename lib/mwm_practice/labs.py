"""Coding labs, the student's side: call the student's function on the cases the view gives, record what it did.

A lab asks for a function (an RNN step, a forward pass, BPTT, clipping...). Grading never trusts
the student's kernel with an answer: the kernel only *runs* the student's function on the cases
of its view (inputs made for that student by the teacher's side, ``mwm_grader.labs``) and records,
for each case, what came back, whether an argument was changed in place, or the error raised. The
teacher's process then recomputes every case with ``mwm`` and judges the record
(``mwm_grader.labs.judge``).

Values travel as plain JSON (:func:`encode_value`): arrays keep their shape and dtype, numbers are
written to 12 significant figures (far finer than any tolerance, and the same on every CPU).
"""
from __future__ import annotations

import copy
import hashlib
import json
import math

import numpy as np

#: The MIME type of a lab's record of calls in a hand-in cell's output.
MIME_LAB = "application/vnd.mwm.lab-calls+json"
#: Longest error message kept from a student's exception.
MAX_ERROR = 300
#: Most numbers an encoded value may hold (a result far larger than any case's answer is cut).
MAX_NUMBERS = 20_000


def _number(x: float):
    x = float(x)
    return float(f"{x:.12g}") if math.isfinite(x) else repr(x)


def encode_value(value, _budget=None):
    """A value as tagged JSON data: arrays, numbers, lists/tuples, dicts of them, None; anything else by type name.

    ``{"array": nested lists, "shape": [...], "dtype": "float64"}``, ``{"number": x}``,
    ``{"list": [...], "tuple": bool}``, ``{"dict": {key: ...}}`` (string keys), ``{"none": true}``,
    ``{"bool": b}``, ``{"other": "type name"}``; an array of more than :data:`MAX_NUMBERS`
    numbers is recorded as ``{"other": "array too large"}``.

    Args:
        value: any Python value (a student's result or a case's argument).

    Returns:
        dict, JSON-serialisable; :func:`decode_value` turns it back.
    """
    budget = [MAX_NUMBERS] if _budget is None else _budget
    if value is None:
        return {"none": True}
    if isinstance(value, (bool, np.bool_)):
        return {"bool": bool(value)}
    if isinstance(value, (int, float, np.integer, np.floating)):
        return {"number": _number(value)}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            return {"other": f"array of {value.dtype}"[:40]}
        budget[0] -= value.size
        if budget[0] < 0:
            return {"other": "array too large"}
        flat = [_number(v) for v in value.astype(float).ravel()]
        return {"array": flat, "shape": list(value.shape), "dtype": str(value.dtype)}
    if isinstance(value, (list, tuple)):
        if len(value) > 64:
            return {"other": "list too long"}
        return {"list": [encode_value(v, budget) for v in value], "tuple": isinstance(value, tuple)}
    if isinstance(value, dict):
        if len(value) > 64 or not all(isinstance(k, str) for k in value):
            return {"other": "dict"}
        return {"dict": {k: encode_value(v, budget) for k, v in value.items()}}
    return {"other": type(value).__name__[:40]}


def decode_value(data):
    """The value an :func:`encode_value` record stands for (arrays as float64 numpy arrays).

    Untrusted input (a notebook's output): anything malformed becomes ``Unreadable``.
    """
    if not isinstance(data, dict) or len(data) not in (1, 2, 3):
        return Unreadable("unreadable value")
    try:
        if "none" in data:
            return None
        if "bool" in data:
            return bool(data["bool"])
        if "number" in data:
            return float(data["number"])
        if "array" in data:
            shape = tuple(int(n) for n in data["shape"])
            flat = np.array([float(v) for v in data["array"]], dtype=float)
            if flat.size != int(np.prod(shape)) or flat.size > MAX_NUMBERS:
                return Unreadable("unreadable array")
            out = flat.reshape(shape)
            return out.astype(data["dtype"]) if data.get("dtype") in ("int64", "int32", "bool") else out
        if "list" in data:
            items = [decode_value(v) for v in data["list"]][:64]
            return tuple(items) if data.get("tuple") else items
        if "dict" in data and isinstance(data["dict"], dict):
            return {str(k)[:40]: decode_value(v) for k, v in list(data["dict"].items())[:64]}
        if "other" in data:
            return Unreadable(str(data["other"])[:40])
    except (TypeError, ValueError, KeyError, OverflowError):
        pass
    return Unreadable("unreadable value")


class Unreadable:
    """A recorded value that could not be read back (shown as "a <kind>" in messages)."""

    def __init__(self, kind: str):
        self.kind = str(kind)[:40]

    def __repr__(self):
        return f"a {self.kind}"


def args_digest(encoded_args) -> str:
    """sha256 of a case's encoded arguments: both sides compute it, so a record tried on other inputs is seen."""
    return hashlib.sha256(json.dumps(encoded_args, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and \
            a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=True))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def record_calls(function, cases) -> list[dict]:
    """Call ``function`` on each case's arguments (in the student's kernel); record what happened.

    Args:
        function: the student's function.
        cases: the view's cases, each ``{"label": str, "args": [encoded argument, ...]}``.

    Returns:
        one dict per case: ``label``, ``args`` (the digest of the encoded arguments), and either
        ``error`` ("Type: message") or ``result`` (encoded) and ``mutated`` (indices of the
        arguments the call changed in place).
    """
    calls = []
    for case in cases:
        entry = {"label": str(case.get("label", ""))[:80], "args": args_digest(case.get("args"))}
        if not callable(function):
            entry["error"] = f"not a function: {type(function).__name__}"
            calls.append(entry)
            continue
        args = [decode_value(a) for a in case.get("args", [])]
        before = copy.deepcopy(args)
        try:
            result = function(*args)
        except Exception as exc:  # the student's code: report it
            entry["error"] = f"{type(exc).__name__}: {str(exc)[:MAX_ERROR]}"
        else:
            entry["result"] = encode_value(result)
        entry["mutated"] = [i for i, (a, b) in enumerate(zip(args, before)) if not _same(a, b)]
        calls.append(entry)
    return calls
