"""Coding labs, the teacher's side: each lab's cases for a student, the judge, and the common wrong implementations.

A lab asks the student to write one function of the course's machinery in numpy (issue 29's
list: the RNN step and forward pass, BPTT full and truncated, global-norm clipping; the LSTM
and GRU steps, decoding and corpus BLEU follow the same pattern). Grading is the problems'
(``mwm_grader.judge``), with functions in place of numbers:

1. :func:`view_cases` makes the student's cases here, in the teacher's process, from the
   student's id: small random inputs of several shapes (a batch of one, hidden size 1, more
   inputs than hidden units so a transposed matrix cannot pass, a truncation length that does
   not divide the sequence). The student's kernel gets only these inputs.
2. In the kernel, ``mwm_practice.labs.record_calls`` runs the student's function on them and
   records each result, each argument changed in place, or the error.
3. :func:`judge` recomputes every case with ``mwm`` (the reference the chapters teach) and
   decides; its lines name the case and what was wrong (the error, an argument changed in
   place, the kind or shape of the result, the positions of wrong values), never an expected
   number. A wrong result that matches one of the :data:`WRONG` implementations on every case
   gets that mistake's hint.

Each lab's reference is the library (``mwm.cell``, ``mwm.bptt``, ``mwm.clipping``); the
catalogue's entries are written out here as a student would write them, one slip each.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from mwm.bptt import rnn_bptt as _ref_bptt
from mwm.cell import rnn_forward as _ref_forward
from mwm.cell import rnn_step as _ref_step
from mwm.clipping import clip_by_global_norm as _ref_clip
from mwm.gru import GRU_KEYS
from mwm.gru import gru_step as _ref_gru
from mwm.lstm import LSTM_KEYS
from mwm.lstm import lstm_step as _ref_lstm
from mwm_practice.ids import normalize_student_id
from mwm_practice.labs import args_digest, compare_value, decode_value, encode_value, matching_slip, same_value

@dataclass
class Case:
    """One call the judge makes: a label the feedback names it by, and the arguments."""

    label: str
    args: tuple


@dataclass
class Lab:
    """A coding lab: the function asked for, its reference, and how a student's cases are made.

    ``arg_names`` name the arguments in feedback ("changed its argument h_prev in place");
    ``make_cases(rng)`` returns the cases, drawn from ``rng``; ``reference(*args)`` is the
    right result, computed with ``mwm``.
    """

    slug: str
    title: str
    function: str
    arg_names: tuple
    reference: Callable
    make_cases: Callable
    chapter: int


def _normal(rng, *shape, scale=0.8):
    return rng.normal(0.0, scale, shape)


# --- the labs' references, in the lab's signatures ----------------------------------------------

def rnn_step_reference(h_prev, x, W, U, b):
    """h_t = tanh(h_{t-1} W^T + x_t U^T + b) for a batch: (B, h) (chapter 2; ``mwm.cell.rnn_step``)."""
    return _ref_step(h_prev, x, {"W": W, "U": U, "b": b})[0]


def rnn_forward_reference(xs, h0, W, U, b):
    """Every hidden state h_1..h_T of a batch, time first: (T, B, h) (chapters 2-3; ``mwm.cell.rnn_forward``)."""
    return _ref_forward(xs, {"W": W, "U": U, "b": b}, h0)[0]


def rnn_bptt_reference(xs, hs, dhs, h0, W, U, b, tau):
    """{"W": dW, "U": dU, "b": db}, BPTT full (tau None) or truncated (chapter 6; ``mwm.bptt.rnn_bptt``)."""
    g = _ref_bptt(xs, hs, dhs, {"W": W, "U": U, "b": b}, h0, None if tau is None else int(tau))
    return {"W": g.dW, "U": g.dU, "b": g.db}


def clip_reference(grads, max_norm):
    """The clipped list of arrays (chapter 8; ``mwm.clipping.clip_by_global_norm``)."""
    return _ref_clip(list(grads), max_norm)[0]


def lstm_step_reference(h_prev, c_prev, x, weights):
    """(h, c) after one LSTM step for a batch, each (B, h) (chapter 9; ``mwm.lstm.lstm_step``)."""
    h, c = _ref_lstm((h_prev, c_prev), x, weights)[0]
    return (h, c)


def gru_step_reference(h_prev, x, weights):
    """h after one GRU step for a batch, (B, h) (chapter 10; ``mwm.gru.gru_step``)."""
    return _ref_gru(h_prev, x, weights)[0]


# --- each lab's cases ------------------------------------------------------------------------------

def _step_cases(rng):
    out = []
    for label, (B, h, d) in (("a batch of 3, hidden size 4, input size 2", (3, 4, 2)),
                             ("a batch of 1, hidden size 1, input size 1", (1, 1, 1)),
                             ("a batch of 2, hidden size 3, input size 5", (2, 3, 5))):
        out.append(Case(label, (_normal(rng, B, h), _normal(rng, B, d), _normal(rng, h, h), _normal(rng, h, d),
                                _normal(rng, h))))
    return out


def _forward_cases(rng):
    out = []
    for label, (T, B, h, d) in (("5 steps, a batch of 2, hidden size 3, input size 2", (5, 2, 3, 2)),
                                ("1 step, a batch of 1, hidden size 1, input size 1", (1, 1, 1, 1)),
                                ("4 steps, a batch of 3, hidden size 2, input size 4", (4, 3, 2, 4))):
        out.append(Case(label, (_normal(rng, T, B, d), _normal(rng, B, h), _normal(rng, h, h), _normal(rng, h, d),
                                _normal(rng, h))))
    return out


def _bptt_cases(rng):
    out = []
    cut = int(rng.choice([2, 3]))
    steps = int(rng.choice([t for t in (5, 7, 8) if t % cut]))   # tau does not divide T: the first chunk is short
    for label, (T, B, h, d, tau) in (("full BPTT, 5 steps, a batch of 2, hidden size 3, input size 2", (5, 2, 3, 2, None)),
                                     (f"truncated at tau = {cut}, {steps} steps, a batch of 2, hidden size 3, input size 2",
                                      (steps, 2, 3, 2, cut)),
                                     ("full BPTT, 3 steps, a batch of 1, hidden size 1, input size 1", (3, 1, 1, 1, None))):
        xs, h0 = _normal(rng, T, B, d), _normal(rng, B, h)
        W, U, b = _normal(rng, h, h), _normal(rng, h, d), _normal(rng, h)
        hs = rnn_forward_reference(xs, h0, W, U, b)
        out.append(Case(label, (xs, hs, _normal(rng, T, B, h), h0, W, U, b, tau)))
    return out


def _clip_cases(rng):
    big = [_normal(rng, 3, 2, scale=4.0), _normal(rng, 2, scale=4.0), _normal(rng, 4, 3, scale=4.0)]
    small = [_normal(rng, 2, 2, scale=0.1), _normal(rng, 3, scale=0.1)]
    one = [_normal(rng, 5, 4, scale=2.0)]
    norm = float(np.sqrt(sum((g ** 2).sum() for g in big)))
    # between the threshold and its square (either way round), a sum of squares compared with the
    # threshold, or a norm compared with its square, decides wrongly
    mid = [_normal(rng, 2, 3), _normal(rng, 4)]
    mid_norm = float(np.sqrt(sum((g ** 2).sum() for g in mid)))
    tiny = [g * (0.5 / mid_norm) for g in mid]      # norm 0.5: between 0.4 and sqrt(0.4)
    return [Case("three arrays, longer than the threshold", (big, round(norm / 3, 3))),
            Case("two arrays, shorter than the threshold", (small, 5.0)),
            Case("one array, longer than the threshold", (one, 1.0)),
            Case("two arrays, shorter than a threshold above 1, longer than its square root",
                 (mid, round(mid_norm * 1.2 + 1.0, 3))),
            Case("two arrays, longer than a threshold below 1, shorter than its square root", (tiny, 0.4))]


def _gate_weights(rng, keys, h, d):
    return {k: _normal(rng, h, h) if k[0] == "W" else _normal(rng, h, d) if k[0] == "U" else _normal(rng, h)
            for k in keys}


_STEP_SHAPES = (("a batch of 3, hidden size 4, input size 2", (3, 4, 2)),
                ("a batch of 1, hidden size 1, input size 1", (1, 1, 1)),
                ("a batch of 2, hidden size 3, input size 5", (2, 3, 5)))


def _lstm_cases(rng):
    return [Case(label, (_normal(rng, B, h), _normal(rng, B, h, scale=1.5), _normal(rng, B, d),
                         _gate_weights(rng, LSTM_KEYS, h, d))) for label, (B, h, d) in _STEP_SHAPES]


def _gru_cases(rng):
    return [Case(label, (_normal(rng, B, h), _normal(rng, B, d), _gate_weights(rng, GRU_KEYS, h, d)))
            for label, (B, h, d) in _STEP_SHAPES]


LABS = {lab.slug: lab for lab in (
    Lab("rnn-step", "One step of the RNN", "rnn_step", ("h_prev", "x", "W", "U", "b"), rnn_step_reference,
        _step_cases, 2),
    Lab("rnn-forward", "The forward pass over a sequence", "rnn_forward", ("xs", "h0", "W", "U", "b"),
        rnn_forward_reference, _forward_cases, 3),
    Lab("rnn-bptt", "Backprop through time, full and truncated", "rnn_bptt",
        ("xs", "hs", "dhs", "h0", "W", "U", "b", "tau"), rnn_bptt_reference, _bptt_cases, 6),
    Lab("clip", "Clipping by the global norm", "clip_by_global_norm", ("grads", "max_norm"), clip_reference,
        _clip_cases, 8),
    Lab("lstm-step", "One step of the LSTM", "lstm_step", ("h_prev", "c_prev", "x", "weights"), lstm_step_reference,
        _lstm_cases, 9),
    Lab("gru-step", "One step of the GRU", "gru_step", ("h_prev", "x", "weights"), gru_step_reference,
        _gru_cases, 10),
)}


def _lab(slug: str) -> Lab:
    if slug not in LABS:
        raise ValueError(f"slug must be one of {sorted(LABS)}, got {slug!r}")
    return LABS[slug]


def cases_for(slug: str, student: str | None) -> list[Case]:
    """The cases of lab ``slug`` for ``student`` (None or "" gives the website's).

    The inputs are drawn from a generator seeded by the student's id (read as nbgrader and the hub
    do: :func:`mwm_practice.ids.normalize_student_id`) and the lab, so they are the same in every run.

    Raises:
        ValueError: for an unknown lab.
    """
    lab = _lab(slug)
    # the website's seed starts with a character no student id has, so no id gets its (public) cases
    who = f"id:{normalize_student_id(student)}" if student else "\0website"
    seed = int.from_bytes(hashlib.sha256(f"{who}|lab|{slug}".encode()).digest()[:8], "little")
    return lab.make_cases(np.random.default_rng(seed))


def view_cases(slug: str, student: str | None) -> list[dict]:
    """The cases as the student's kernel gets them (inputs only): ``[{"label", "args": [encoded...]}]``."""
    return [{"label": c.label, "args": [encode_value(a) for a in c.args]} for c in cases_for(slug, student)]


# --- the worked solutions, as a student writes them (the notebook's solution cells) ---------------

SOLUTIONS = {
    "rnn-step": '''def rnn_step(h_prev, x, W, U, b):
    """One step for a batch: h_prev (B, h), x (B, d), W (h, h), U (h, d), b (h,) -> h (B, h)."""
    return np.tanh(h_prev @ W.T + x @ U.T + b)   # each row is one sequence's state
''',
    "rnn-forward": '''def rnn_forward(xs, h0, W, U, b):
    """Every state of a batch: xs (T, B, d), h0 (B, h) -> hs (T, B, h), h_1..h_T."""
    hs, h = [], h0
    for x in xs:                                 # the same W, U, b at every step
        h = np.tanh(h @ W.T + x @ U.T + b)
        hs.append(h)
    return np.stack(hs)
''',
    "rnn-bptt": '''def rnn_bptt(xs, hs, dhs, h0, W, U, b, tau=None):
    """Gradients of the loss: xs (T, B, d), hs and dhs (T, B, h), h0 (B, h) -> {"W", "U", "b"}.

    dhs[k] is the gradient the loss puts directly on hs[k]. With tau, no gradient
    flows from hs[k] back to hs[k-1] when k is a multiple of tau.
    """
    T = len(xs)
    h_prev = [h0] + list(hs[:-1])               # the state each step started from
    dW, dU, db = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    from_later = np.zeros_like(h0)              # the gradient step t + 1 sends back to h_t
    for t in range(T - 1, -1, -1):
        if tau is not None and (t + 1) % tau == 0:
            from_later = np.zeros_like(h0)      # word t + 1 ends a chunk: nothing crosses back
        da = (dhs[t] + from_later) * (1 - hs[t] ** 2)   # Rule A: through tanh
        dW += da.T @ h_prev[t]                  # Rule B: every step adds its share
        dU += da.T @ xs[t]
        db += da.sum(axis=0)
        from_later = da @ W                     # W^T da_t, for each row
    return {"W": dW, "U": dU, "b": db}
''',
    "clip": '''def clip_by_global_norm(grads, max_norm):
    """grads: list of arrays -> new list, all scaled by min(1, max_norm / ||g||), ||g|| over every array."""
    norm = np.sqrt(sum((g ** 2).sum() for g in grads))
    scale = min(1.0, max_norm / norm) if norm > 0 else 1.0
    return [g * scale for g in grads]
''',
    "lstm-step": '''def lstm_step(h_prev, c_prev, x, weights):
    """One LSTM step for a batch: h_prev, c_prev (B, h), x (B, d) -> (h, c), each (B, h).

    weights["W_j"] (h, h), weights["U_j"] (h, d), weights["b_j"] (h,) for the blocks j = i, f, c, o.
    """
    def sigmoid(a):
        return 1 / (1 + np.exp(-a))

    def pre(j):                                  # block j's pre-activation, one row per sequence
        return h_prev @ weights["W_" + j].T + x @ weights["U_" + j].T + weights["b_" + j]

    i, f, o = sigmoid(pre("i")), sigmoid(pre("f")), sigmoid(pre("o"))
    c_tilde = np.tanh(pre("c"))                 # the candidate
    c = f * c_prev + i * c_tilde                # keep, then write
    h = o * np.tanh(c)                          # show
    return h, c
''',
    "gru-step": '''def gru_step(h_prev, x, weights):
    """One GRU step for a batch: h_prev (B, h), x (B, d) -> h (B, h).

    weights["W_k"] (h, h), weights["U_k"] (h, d), weights["b_k"] (h,) for the blocks k = z, r, h.
    """
    def sigmoid(a):
        return 1 / (1 + np.exp(-a))

    z = sigmoid(h_prev @ weights["W_z"].T + x @ weights["U_z"].T + weights["b_z"])   # update gate
    r = sigmoid(h_prev @ weights["W_r"].T + x @ weights["U_r"].T + weights["b_r"])   # reset gate
    h_tilde = np.tanh((r * h_prev) @ weights["W_h"].T + x @ weights["U_h"].T + weights["b_h"])
    return (1 - z) * h_prev + z * h_tilde       # the blend
''',
}


def solution_parts(slug: str) -> tuple[str, str]:
    """A lab's worked solution split into its first line and docstring (what the student gets) and its body."""
    source = SOLUTIONS[_lab(slug).slug]
    end = source.index('"""', source.index('"""') + 3) + 3
    end = source.index("\n", end) + 1
    return source[:end], source[end:]


def statement(slug: str) -> str:
    """A lab's words (Markdown), from ``labs.md`` beside this module; ``"header"`` gives the notebook's introduction.

    Raises:
        ValueError: if ``labs.md`` has no section for ``slug``.
    """
    from importlib.resources import files

    text = (files("mwm_grader") / "labs.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## (\S+)\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S))
    if slug not in sections:
        raise ValueError(f"labs.md has no section {slug!r}")
    return sections[slug].strip()


def labs_view(student: str | None, *, with_results: bool) -> dict:
    """The labs as a student's kernel gets them: per lab its function, argument names and cases.

    Args:
        student: whose inputs (None or "": the website's).
        with_results: also give each case's result (the website's view only: the grading view
            holds inputs only).

    Returns:
        ``{"labs": {slug: {"function", "title", "arg_names", "cases": [{"label", "args"[, "expected"]}]}}}``.
    """
    out = {}
    for slug, lab in LABS.items():
        cases = []
        for case in cases_for(slug, student):
            entry = {"label": case.label, "args": [encode_value(a) for a in case.args]}
            if with_results:
                entry["expected"] = encode_value(lab.reference(*case.args))
            cases.append(entry)
        out[slug] = {"function": lab.function, "title": lab.title, "arg_names": list(lab.arg_names), "cases": cases}
        if with_results:   # the website's view: each common mistake's results on these public cases, for its hint
            slips = (slip_results(wrong, cases_for(slug, student)) for wrong in WRONG.get(slug, []))
            out[slug]["slips"] = [slip for slip in slips if slip is not None]
    return {"labs": out}


def slip_results(wrong, cases) -> dict | None:
    """A catalogued mistake's hint with its results and in-place changes on ``cases``, or None if it raises on one.

    The website's view carries these for its public cases (``Labs.check`` names the mistake); the
    judge makes them for a student's cases (:func:`named_wrong`).
    """
    from copy import deepcopy

    results, mutated = [], []
    for case in cases:
        args = deepcopy(list(case.args))
        try:
            results.append(encode_value(wrong.function(*args)))
        except Exception:  # noqa: BLE001 - a slip that fails on a case cannot be the one a result shows
            return None
        mutated.append([j for j, (a, b) in enumerate(zip(args, case.args)) if not same_value(a, b)])
    return {"hint": wrong.hint, "results": results, "mutated": mutated}


# --- the judge -------------------------------------------------------------------------------------

def _results(calls, cases) -> list | None:
    """The decoded results of a record's calls on ``cases``, or None if any call has none."""
    if not isinstance(calls, list) or len(calls) != len(cases):
        return None
    out = []
    for call in calls:
        if not isinstance(call, dict) or "result" not in call:
            return None
        out.append(decode_value(call["result"]))
    return out


def judge(slug: str, student: str | None, calls) -> tuple[bool, list[str]]:
    """Decide a lab from the record of calls the student's kernel made (untrusted data).

    Args:
        slug: the lab (a key of :data:`LABS`).
        student: whose cases the calls must have used.
        calls: the record's list, as ``mwm_practice.labs.record_calls`` returns it.

    Returns:
        (right, lines): right only if every case gave the reference's result without changing an
        argument; one line per case (and a hint when the results match a catalogued mistake).

    Raises:
        ValueError: for an unknown lab.
    """
    lab = _lab(slug)
    cases = cases_for(slug, student)
    if not isinstance(calls, list) or not calls:
        return False, [f"{lab.function}: no calls were recorded (the hand-in cell did not run, or stopped before)"]
    if len(calls) != len(cases):
        return False, [f"{lab.function}: {len(calls)} calls were recorded for {len(cases)} cases"]
    lines, right = [], True
    for i, (case, call) in enumerate(zip(cases, calls), 1):
        head = f"{lab.function}, case {i} ({case.label})"
        if not isinstance(call, dict) or call.get("args") != args_digest([encode_value(a) for a in case.args]):
            right = False
            lines.append(f"{head}: the function was run on other inputs than this submission's")
            continue
        if "error" in call:
            right = False
            lines.append(f"{head}: raised {str(call['error'])[:300]}")
            continue
        mutated = call.get("mutated")
        if not isinstance(mutated, list):
            right = False
            lines.append(f"{head}: unreadable record")
            continue
        why = compare_value(decode_value(call.get("result")), lab.reference(*case.args))
        aliased = call.get("aliased")
        if isinstance(aliased, list) and aliased and not why:
            names = ", ".join(lab.arg_names[j] for j in aliased if isinstance(j, int) and 0 <= j < len(lab.arg_names))
            why = f"returned its argument {names} itself, or arrays that share its memory (return new arrays)"
        if mutated:
            names = ", ".join(lab.arg_names[j] for j in mutated if isinstance(j, int) and 0 <= j < len(lab.arg_names))
            why = (f"changed its argument {names} in place (the caller's array is now different; work on new "
                   f"arrays)" + (f", and {why}" if why else ""))
        if why:
            right = False
            lines.append(f"{head}: {why}")
        else:
            lines.append(f"{head}: right")
    if not right:
        hint = named_wrong(slug, student, calls)
        if hint:
            lines.append(hint)
    return right, lines


# --- the common wrong implementations ------------------------------------------------------------

@dataclass
class Wrong:
    """A wrong implementation a student may write: its key, the hint the feedback gives, the code."""

    key: str
    hint: str
    function: Callable


def _tanh_step(h_prev, x, W, U, b):
    return np.tanh(h_prev @ W.T + x @ U.T + b)


def _w_transposed_step(h_prev, x, W, U, b):
    return np.tanh(h_prev @ W + x @ U.T + b)


def _no_bias_step(h_prev, x, W, U, b):
    return np.tanh(h_prev @ W.T + x @ U.T)


def _in_place_step(h_prev, x, W, U, b):
    h = h_prev                                   # the same array, not a copy
    h[...] = np.tanh(h_prev @ W.T + x @ U.T + b)
    return h


def _not_carried_forward(xs, h0, W, U, b):
    return np.stack([_tanh_step(h0, x, W, U, b) for x in xs])


def _h0_included_forward(xs, h0, W, U, b):
    hs, h = [], h0
    for x in xs:
        hs.append(h)
        h = _tanh_step(h, x, W, U, b)
    return np.stack(hs)


def _bptt(xs, hs, dhs, h0, W, U, b, tau, *, accumulate=True, slope=True, cut=True, carried=True):
    T = len(xs)
    h_prev = [h0, *hs[:-1]]
    if not carried and tau is not None:          # each chunk restarted from zeros, as if the state were not carried
        h_prev = [np.zeros_like(h0) if t % int(tau) == 0 else h_prev[t] for t in range(T)]
    dW, dU, db = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    from_later = np.zeros_like(h0)
    for t in range(T - 1, -1, -1):
        if cut and tau is not None and (t + 1) % int(tau) == 0:
            from_later = np.zeros_like(h0)
        da = (dhs[t] + from_later) * ((1 - hs[t] ** 2) if slope else 1.0)
        if accumulate or t == T - 1:
            dW, dU, db = dW + da.T @ h_prev[t], dU + da.T @ xs[t], db + da.sum(0)
        from_later = da @ W
    return {"W": dW, "U": dU, "b": db}


def _sig(a):
    return 1 / (1 + np.exp(-a))


def _lstm_with(h_prev, c_prev, x, w, *, swap=False, no_tanh_c=False, sigmoid_candidate=False):
    def pre(j):
        return h_prev @ w["W_" + j].T + x @ w["U_" + j].T + w["b_" + j]
    i, f, o = _sig(pre("i")), _sig(pre("f")), _sig(pre("o"))
    c_tilde = _sig(pre("c")) if sigmoid_candidate else np.tanh(pre("c"))
    c = i * c_prev + f * c_tilde if swap else f * c_prev + i * c_tilde
    return (o * c if no_tanh_c else o * np.tanh(c)), c


def _gru_with(h_prev, x, w, *, z_swapped=False, no_reset=False, reset_after=False):
    z = _sig(h_prev @ w["W_z"].T + x @ w["U_z"].T + w["b_z"])
    r = _sig(h_prev @ w["W_r"].T + x @ w["U_r"].T + w["b_r"])
    if no_reset:
        read = h_prev @ w["W_h"].T
    elif reset_after:
        read = r * (h_prev @ w["W_h"].T)
    else:
        read = (r * h_prev) @ w["W_h"].T
    h_tilde = np.tanh(read + x @ w["U_h"].T + w["b_h"])
    return z * h_prev + (1 - z) * h_tilde if z_swapped else (1 - z) * h_prev + z * h_tilde


def _clip_with(grads, max_norm, *, per_array=False, sqrt=True, always=False, in_place=False):
    grads = list(grads)
    if per_array:
        out = []
        for g in grads:
            n = np.sqrt((g ** 2).sum())
            out.append(g * min(1.0, max_norm / n) if n > 0 else g.copy())
        return out
    total = sum((g ** 2).sum() for g in grads)
    norm = np.sqrt(total) if sqrt else total
    scale = max_norm / norm if always else min(1.0, max_norm / norm)
    if in_place:
        for g in grads:
            g *= scale
        return grads
    return [g * scale for g in grads]


#: The catalogue: for each lab, the wrong implementations the judge must catch, each with its hint.
WRONG = {
    "rnn-step": [
        Wrong("w-transposed", "It looks like W is used transposed: the state is a row, so it is h_prev @ W.T.",
              _w_transposed_step),
        Wrong("no-bias", "It looks like the bias b was left out.", _no_bias_step),
        Wrong("no-tanh", "It looks like tanh was left out.", lambda h, x, W, U, b: h @ W.T + x @ U.T + b),
        Wrong("in-place", "The result is right but h_prev was overwritten: make a new array.", _in_place_step),
    ],
    "rnn-forward": [
        Wrong("state-not-carried", "It looks like every step starts from h0: carry each new state into the next step.",
              _not_carried_forward),
        Wrong("h0-included", "It looks like h0 is returned as the first state: hs holds h_1..h_T.",
              _h0_included_forward),
    ],
    "rnn-bptt": [
        Wrong("not-accumulated", "It looks like only the last step's gradient was kept: add every step's contribution.",
              lambda *a: _bptt(*a, accumulate=False)),
        Wrong("no-tanh-slope", "It looks like the tanh slope 1 - h_t^2 was left out of da_t.",
              lambda *a: _bptt(*a, slope=False)),
        Wrong("truncation-ignored", "It looks like the truncation was ignored: no gradient crosses from word "
              "m*tau + 1 back to word m*tau.", lambda *a: _bptt(*a, cut=False)),
        Wrong("state-not-carried", "It looks like each chunk starts from a zero state: truncation cuts the gradient, "
              "the state still flows forward.", lambda *a: _bptt(*a, carried=False)),
    ],
    "clip": [
        Wrong("per-array", "It looks like each array was clipped on its own: clip all of them by one global norm.",
              lambda g, m: _clip_with(g, m, per_array=True)),
        Wrong("no-sqrt", "It looks like the norm is the sum of squares without its square root.",
              lambda g, m: _clip_with(g, m, sqrt=False)),
        Wrong("always-scaled", "It looks like the gradient is always scaled to the threshold, also when shorter.",
              lambda g, m: _clip_with(g, m, always=True)),
        Wrong("in-place", "The result is right but the arrays handed in were scaled in place: return new arrays.",
              lambda g, m: _clip_with(g, m, in_place=True)),
    ],
    "lstm-step": [
        Wrong("gates-swapped", "It looks like the forget and input gates are swapped: f keeps c_prev, i writes the "
              "candidate.", lambda *a: _lstm_with(*a, swap=True)),
        Wrong("no-tanh-of-c", "It looks like h = o * c: the window shows tanh(c).", lambda *a: _lstm_with(*a, no_tanh_c=True)),
        Wrong("sigmoid-candidate", "It looks like the candidate went through a sigmoid: it is tanh, so it can be "
              "negative.", lambda *a: _lstm_with(*a, sigmoid_candidate=True)),
    ],
    "gru-step": [
        Wrong("z-on-the-wrong-side", "It looks like z and 1 - z are swapped: z is the share of the candidate.",
              lambda *a: _gru_with(*a, z_swapped=True)),
        Wrong("reset-not-applied", "It looks like the reset gate was not applied: the candidate reads r * h_prev.",
              lambda *a: _gru_with(*a, no_reset=True)),
        Wrong("reset-after-the-matrix", "It looks like r multiplies W_h h_prev (PyTorch's variant); the course's "
              "GRU resets first: (r * h_prev) @ W_h.T.", lambda *a: _gru_with(*a, reset_after=True)),
    ],
}


def named_wrong(slug: str, student: str | None, calls) -> str | None:
    """The hint of the catalogued mistake whose results (and in-place changes) the record matches on every case, or None."""
    cases = cases_for(slug, student)
    if _results(calls, cases) is None:
        return None
    slips = (slip_results(wrong, cases) for wrong in WRONG.get(slug, []))
    hint = matching_slip([slip for slip in slips if slip is not None], calls)
    return None if hint is None else f"Hint: {hint}"
