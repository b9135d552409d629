"""Coding labs, the teacher's side: each lab's cases for a student, the judge, and the common wrong implementations.

A lab asks the student to write one function of the course's machinery in numpy (issue 29's
list: the RNN step and forward pass, BPTT full and truncated, global-norm clipping; the LSTM
and GRU steps, decoding and corpus BLEU follow the same pattern). Grading is the problems'
(``mwm_grader.judge``), with functions in place of numbers:

1. :func:`view_cases` makes the student's cases here, in the teacher's process, from the
   student's id and the grading's draw key (``mwm_grader.judge.lab_draw``: the course's secret,
   :func:`course_secret`, with a fingerprint of everything the graded kernel can read, so that no
   one can hand in a table of answers or choose their draw): small random inputs of several shapes (a batch of one, hidden size 1, more
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

import copy
import functools
import hashlib
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from mwm.bleu import corpus_bleu as _ref_corpus_bleu
from mwm.bptt import rnn_bptt as _ref_bptt
from mwm.cell import rnn_forward as _ref_forward
from mwm.cell import rnn_step as _ref_step
from mwm.clipping import clip_by_global_norm as _ref_clip
from mwm.decoding import EOS, ProbabilityTree
from mwm.decoding import beam_search as _ref_beam
from mwm.decoding import greedy_decode as _ref_greedy
from mwm.gru import GRU_KEYS
from mwm.gru import gru_step as _ref_gru
from mwm.lstm import LSTM_KEYS
from mwm.lstm import lstm_step as _ref_lstm
from mwm_practice.ids import normalize_student_id
from mwm_practice.labs import (one_line, args_digest, compare_value, decode_value, encode_value, matching_slip,
                               same_value)

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
    right result, computed with ``mwm``. ``framework`` is what the student writes it in ("numpy" or
    "torch").
    """

    slug: str
    title: str
    function: str
    arg_names: tuple
    reference: Callable
    make_cases: Callable
    chapter: int
    framework: str = "numpy"


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


def greedy_reference(model, max_length):
    """(tokens, log_prob): greedy decoding's output, end symbol included (chapter 13; ``mwm.decoding.greedy_decode``)."""
    h = _ref_greedy(model, int(max_length))
    return (list(h.tokens), h.log_prob)


def beam_reference(model, beam_width, max_length):
    """(tokens, log_prob) of beam search's best output (chapter 13; ``mwm.decoding.beam_search``)."""
    h = _ref_beam(model, int(beam_width), int(max_length)).best
    return (list(h.tokens), h.log_prob)


def bleu_reference(candidates, references, max_n):
    """Corpus BLEU-N of token lists, each sentence with its list of references (chapter 13; ``mwm.bleu.corpus_bleu``)."""
    return _ref_corpus_bleu(list(candidates), [list(r) for r in references], int(max_n), streams=False)


def attention_read_reference(dec, states, src_len):
    """(weights (B, L, T), context (B, L, H)) of dot-product attention over padded encoder states
    (chapter 14; the trained translator's own code, ``mwm_torch.translator.attention_read``)."""
    from mwm_torch.translator import attention_read

    return attention_read(dec, states, src_len)


def additive_scores_reference(dec, states, W_q, W_k, b, v):
    """Additive scores v^T tanh(W_q h_t + W_k h^enc_j + b), (B, L, T) (``mwm_torch.translator.additive_scores``)."""
    from mwm_torch.translator import additive_scores

    return additive_scores(dec, states, W_q, W_k, b, v)


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


# Decoding and BLEU: the cases are drawn until every catalogued mistake gives another answer than the
# reference on some case, and no two mistakes give the same answers (so each is caught and named).

#: The words of the decoding labs' trees (the ids are the tree's: 0 the begin symbol, 1 the end symbol).
_TREE_WORDS = ("the", "our", "a", "train", "bus", "tram", "is", "was", "late", "early", "here")


def _probabilities(rng, words, end: bool) -> dict:
    """Probabilities of ``words`` (and the end symbol if ``end``) in hundredths, all different, summing to 1."""
    names = list(words) + ([EOS] if end else [])
    while True:
        cuts = np.sort(rng.choice(np.arange(1, 100), size=len(names) - 1, replace=False))
        hundredths = np.diff(np.concatenate([[0], cuts, [100]]))
        if len(set(hundredths.tolist())) == len(names) and hundredths.min() >= 4:
            return {w: round(int(k) / 100, 2) for w, k in zip(names, hundredths)}


def _random_tree(rng, depth: int, branch: int, end_from: int = 0) -> ProbabilityTree:
    """A tree of next-word probabilities: every node below ``depth`` has ``branch`` words, and the end
    symbol from prefixes of ``end_from`` words on.

    Drawn again until no two prefixes, and no two complete outputs, are equally likely (products of
    hundredths can tie, 0.55 * 0.31 = 0.31 * 0.55): the labs' answers never hang on a tie.
    """
    while True:
        tree, frontier = {}, [()]
        for _ in range(depth):
            grown = []
            for prefix in frontier:
                words = [str(w) for w in rng.choice(_TREE_WORDS, size=branch, replace=False)]
                tree[prefix] = _probabilities(rng, words, end=len(prefix) >= end_from)
                grown += [prefix + (w,) for w in words]
            frontier = grown
        if _no_ties(tree):
            return ProbabilityTree(tree)


def _no_ties(tree: dict) -> bool:
    """True if every prefix and every complete output of ``tree`` has a probability of its own."""
    seen, todo = [], [((), 1.0)]
    while todo:   # a leaf's only output (its end symbol, probability 1) is as likely as the leaf: counted once
        prefix, p = todo.pop()
        for word, q in tree.get(prefix, {}).items():
            seen.append(p * q)
            if word != EOS:
                todo.append((prefix + (word,), p * q))
    seen.sort()
    return all(b - a > 1e-12 for a, b in zip(seen, seen[1:]))


def _pick(rng, options) -> float:
    return round(float(rng.choice(options)), 2)


def _late_winner_tree(rng) -> ProbabilityTree:
    """Width 2: the end symbol is kept at step 1 (0.18-0.22) and a live word wins later (at least 0.63).

    A search that stops at the first output to finish returns the short one.
    """
    first, second, third = (str(w) for w in rng.choice(_TREE_WORDS, size=3, replace=False))
    p_first, p_end = _pick(rng, [0.7, 0.72]), _pick(rng, [0.18, 0.2])
    go_on = _pick(rng, [0.9, 0.92])
    return ProbabilityTree({(): {first: p_first, EOS: p_end, second: round(1 - p_first - p_end, 2)},
                            (first,): {third: go_on, EOS: round(1 - go_on, 2)}})


def _confident_loser_tree(rng) -> ProbabilityTree:
    """Width 2: an unlikely first word followed by a near-certain one, beside a likely word with two children.

    Ranked by the last token's probability alone, the near-certain second word (0.97) keeps its place
    and the best output (0.86 * 0.4 = 0.344, through the less likely child) is pruned.
    """
    a, b, c, d, e, g, h = (str(w) for w in rng.choice(_TREE_WORDS, size=7, replace=False))
    p_a = _pick(rng, [0.84, 0.86])
    return ProbabilityTree({(): {a: p_a, b: 0.1, EOS: round(0.9 - p_a, 2)},
                            (a,): {c: 0.6, d: 0.4}, (b,): {e: 0.97, EOS: 0.03},
                            (a, c): {g: 0.31, h: 0.29, EOS: 0.4}})


def _trap_tree(rng) -> ProbabilityTree:
    """A tree on which an output that finishes first is the best, though two live ones pass it on the next step.

    Width 2: at step 1 the end symbol (0.22 or 0.24) is kept beside a likely word (0.62-0.66);
    at step 2 that word's two extensions (at least 0.62 * 0.44 = 0.27) both pass it; at step 3
    every extension (at most 0.66 * 0.56 * 0.52 = 0.19) falls below it.
    """
    first, second, third = (str(w) for w in rng.choice(_TREE_WORDS, size=3, replace=False))
    p_end = round(float(rng.choice([0.22, 0.24])), 2)
    p_first = round(float(rng.choice([0.62, 0.64, 0.66])), 2)
    split = round(float(rng.choice([0.52, 0.54, 0.56])), 2)
    tree = {(): {first: p_first, EOS: p_end, second: round(1 - p_first - p_end, 2)},
            (first,): {second: split, third: round(1 - split, 2)}}
    for w, stop in ((second, 0.52), (third, 0.53)):
        tree[(first, w)] = {EOS: stop, first: round(1 - stop, 2)}
    return ProbabilityTree(tree)


def _greedy_cases(rng):
    return [Case("a tree of depth 3, max_length 5 (every output ends by itself)", (_random_tree(rng, 3, 3), 5)),
            Case("a tree of depth 4, max_length 2 (the end symbol must be written at position 2)",
                 (_random_tree(rng, 4, 2), 2)),
            Case("a tree of depth 2 with 4 words at each node, max_length 3", (_random_tree(rng, 2, 4), 3))]


def _pruned_best_tree(rng) -> ProbabilityTree:
    """Width 2: the best output (0.2 * 0.99) starts with the third word, which step 1 prunes; the beam's is 0.175."""
    a, b, c, p, q, r, s_, t, x = (str(w) for w in rng.choice(_TREE_WORDS, size=9, replace=False))
    return ProbabilityTree({(): {a: 0.5, b: 0.3, c: 0.2}, (a,): {p: 0.35, q: 0.33, r: 0.32},
                            (b,): {s_: 0.52, t: 0.48}, (c,): {x: 0.99, EOS: 0.01}})


def _kept_by_parent_tree(rng) -> ProbabilityTree:
    """Width 2: a parent's second child (0.175), cut at step 2 by the beam, would beat the beam's answer (0.14).

    A search that keeps each parent's two best children, with no cut across parents, finds it.
    """
    a, b, p, q, s_, t, y, w = (str(v) for v in rng.choice(_TREE_WORDS, size=8, replace=False))
    return ProbabilityTree({(): {a: 0.5, b: 0.3, EOS: 0.2}, (a,): {p: 0.4, q: 0.35, EOS: 0.25},
                            (b,): {s_: 0.6, t: 0.4}, (a, p): {EOS: 0.3, y: 0.7}, (b, s_): {EOS: 0.52, w: 0.48}})


def _beam_cases(rng):
    return [Case("width 2, max_length 4, an output that finishes at step 1 and wins", (_trap_tree(rng), 2, 4)),
            Case("width 2, max_length 4, an output that finishes at step 1 and loses", (_late_winner_tree(rng), 2, 4)),
            Case("width 2, max_length 4, a near-certain word after an unlikely one", (_confident_loser_tree(rng), 2, 4)),
            Case("width 2, max_length 4, the best output starting with a word step 1 prunes",
                 (_pruned_best_tree(rng), 2, 4)),
            Case("width 2, max_length 4, a good output among a parent's second children",
                 (_kept_by_parent_tree(rng), 2, 4)),
            Case("width 2 on a tree of depth 4, max_length 3 (the end symbol forced at 3)",
                 (_random_tree(rng, 4, 2, end_from=2), 2, 3)),
            Case("width 3 on a tree of depth 3, max_length 5", (_random_tree(rng, 3, 3), 3, 5))]


_BLEU_WORDS = ("the", "train", "is", "running", "late", "a", "bus", "on", "time", "our", "very", "today")


def _sentence(rng, length: int) -> list:
    return [str(w) for w in rng.choice(_BLEU_WORDS, size=length)]


def _candidate(rng, reference: list) -> list:
    """A candidate made from ``reference``: two words dropped, one changed, one said twice (one word shorter)."""
    out = list(reference)
    for _ in range(2):
        del out[int(rng.integers(len(out)))]
    out[int(rng.integers(len(out)))] = str(rng.choice(_BLEU_WORDS))
    i = int(rng.integers(len(out)))
    return out[:i + 1] + out[i:]


def _bleu_cases(rng):
    refs1 = [[_sentence(rng, int(n))] for n in rng.integers(7, 11, size=3)]
    refs2 = []
    for n in rng.integers(9, 12, size=2):   # two references, the first three words longer
        near = _sentence(rng, int(n))
        refs2.append([near[:3] + _sentence(rng, 3) + near[3:], near])
    refs3 = [[_sentence(rng, int(n))] for n in rng.integers(5, 8, size=2)]
    # a tie: references one word shorter and one word longer than the candidate (the shorter counts)
    tie_cands, refs4 = [], []
    for n in rng.integers(8, 11, size=2):
        ref = _sentence(rng, int(n))
        cand = _candidate(rng, ref)                               # one word shorter than ref
        refs4.append([ref, cand[:2] + _sentence(rng, 1) + cand[2:-2]] if len(cand) > 4 else [ref])
        tie_cands.append(cand)
    return [Case("3 sentences, one reference each, BLEU-4", ([_candidate(rng, r[0]) for r in refs1], refs1, 4)),
            Case("2 sentences, two references each of different lengths, BLEU-4",
                 ([_candidate(rng, r[1]) for r in refs2], refs2, 4)),
            Case("2 sentences, one reference each, BLEU-2", ([_candidate(rng, r[0]) for r in refs3], refs3, 2)),
            Case("2 sentences, each with references one word longer and one word shorter, BLEU-3",
                 (tie_cands, refs4, 3))]


def _tensor(rng, *shape, scale=0.8):
    import torch

    return torch.from_numpy(_normal(rng, *shape, scale=scale))   # float64, as the labs say


def _attention_cases(rng):
    import torch

    shapes = (("a batch of 2, 3 decoder steps, 5 encoder steps (the second sentence 3 words and padding), "
               "hidden size 4", (2, 3, 5, 4, [5, 3])),
              ("a batch of 1, 1 decoder step, 1 encoder step, hidden size 1", (1, 1, 1, 1, [1])),
              ("a batch of 3, 4 decoder steps, 4 encoder steps (lengths 4, 2 and 1), hidden size 3",
               (3, 4, 4, 3, [4, 2, 1])))
    return [Case(label, (_tensor(rng, B, L, H), _tensor(rng, B, T, H), torch.tensor(lengths)))
            for label, (B, L, T, H, lengths) in shapes]


def _additive_cases(rng):
    shapes = (("a batch of 2, 3 decoder steps, 4 encoder steps, hidden size 3, scoring size 5", (2, 3, 4, 3, 5)),
              ("a batch of 1, 1 decoder step, 1 encoder step, hidden size 1, scoring size 1", (1, 1, 1, 1, 1)),
              ("a batch of 3, 2 decoder steps, 2 encoder steps, hidden size 4, scoring size 2", (3, 2, 2, 4, 2)))
    return [Case(label, (_tensor(rng, B, L, H), _tensor(rng, B, T, H), _tensor(rng, A, H), _tensor(rng, A, H),
                         _tensor(rng, A), _tensor(rng, A)))
            for label, (B, L, T, H, A) in shapes]


def _telling_apart(slug: str, make):
    """``make`` drawn again until each catalogued mistake gives other answers than the reference, and than each other."""
    def cases(rng):
        best, best_apart = None, -1
        for _ in range(DRAWS):
            drawn = make(rng)
            answers = [[encode_value(_lab(slug).reference(*c.args)) for c in drawn]]
            try:
                for wrong in WRONG[slug]:
                    answers.append([encode_value(wrong.function(*c.args)) for c in drawn])
            except (ValueError, ZeroDivisionError, FloatingPointError):
                continue
            apart = sum(not all(compare_value(decode_value(x), decode_value(y)) is None for x, y in zip(a, b))
                        for i, a in enumerate(answers) for b in answers[i + 1:])
            if apart == len(answers) * (len(answers) - 1) // 2:
                return drawn
            if apart > best_apart:
                best, best_apart = drawn, apart
        # never seen in the tests' ids; a student's cases that miss a mistake are still gradable
        return best if best is not None else make(rng)
    return cases


#: Draws :func:`_telling_apart` makes at most before it keeps the draw that tells most mistakes apart.
DRAWS = 500


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
    Lab("greedy", "Greedy decoding", "greedy_decode", ("model", "max_length"), greedy_reference,
        _telling_apart("greedy", _greedy_cases), 13),
    Lab("beam", "Beam search", "beam_search", ("model", "beam_width", "max_length"), beam_reference,
        _telling_apart("beam", _beam_cases), 13),
    Lab("bleu", "Corpus BLEU", "corpus_bleu", ("candidates", "references", "max_n"), bleu_reference,
        _telling_apart("bleu", _bleu_cases), 13),
    Lab("attention-read", "The attention read, in torch", "attention_read", ("dec", "states", "src_len"),
        attention_read_reference, _telling_apart("attention-read", _attention_cases), 14, "torch"),
    Lab("additive-scores", "Additive scores, in torch", "additive_scores", ("dec", "states", "W_q", "W_k", "b", "v"),
        additive_scores_reference, _telling_apart("additive-scores", _additive_cases), 14, "torch"),
)}


def _lab(slug: str) -> Lab:
    if slug not in LABS:
        raise ValueError(f"slug must be one of {sorted(LABS)}, got {slug!r}")
    return LABS[slug]


#: The file in the course folder (nbgrader's ``CourseDirectory.root``) that holds its labs' secret.
SECRET_FILE = ".lab-secret"


def course_secret(course) -> str:
    """The course's secret for its students' lab inputs: the 64 hex digits in ``course/.lab-secret``.

    The code that draws a student's inputs is public; with this secret in the draw, nobody can
    run it offline to see which inputs a submission will meet (and, say, change a comment until
    a function that is only sometimes right draws inputs it gets right). The file is made with a
    random secret the first time a lab is graded, readable by its owner only from its first byte
    (never committed: .gitignore). Every machine that grades the course reads the same course
    folder, and so the same secret; no kernel sees it. Keep it for the course's life, so that a
    regrading draws the same inputs.

    Args:
        course: the course folder (a path).

    Returns:
        The secret, 64 lowercase hex digits.

    Raises:
        ValueError: if the file is not a regular file holding such a secret.
        OSError: if the file is missing and cannot be made in ``course``.
    """
    path = Path(course) / SECRET_FILE
    if not os.path.lexists(path):   # made once: graders starting together race to link theirs, the first wins
        made = path.with_name(f"{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            os.write(fd, (secrets.token_hex(32) + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(made, path)
        except FileExistsError:
            pass
        finally:
            made.unlink()
    if path.is_symlink() or not path.is_file():
        raise ValueError(f"{path} must be a regular file holding the course's lab secret (not a link)")
    secret = path.read_text(encoding="ascii", errors="replace").strip()
    if not re.fullmatch(r"[0-9a-f]{64}", secret):
        raise ValueError(f"{path} must hold the course's lab secret, 64 lowercase hex digits; delete it to make a new "
                         "one (the labs' graded inputs then change)")
    return secret


def cases_for(slug: str, student: str | None, draw: str = "") -> list[Case]:
    """The cases of lab ``slug`` for ``student`` (None or "" gives the website's).

    The inputs are drawn from a generator seeded by the student's id (read as nbgrader and the hub
    do: :func:`mwm_practice.ids.normalize_student_id`), the lab and ``draw``, the grading's draw
    key (``mwm_grader.judge.lab_draw``: the course's secret and a fingerprint of everything the
    graded kernel can read; "" for the public draw the tests and the website use). A regrading
    of one submission draws the same inputs; a table of answers handed in changes the
    fingerprint, and so the inputs it meets; and without the secret nobody can compute a draw.

    Raises:
        ValueError: for an unknown lab.
    """
    _lab(slug)
    # the website's seed starts with a character no student id has, so no id gets its (public) cases
    who = f"id:{normalize_student_id(student)}" if student else "\0website"
    if student and draw:
        who += f"|draw:{draw}"
    return copy.deepcopy(_drawn_cases(slug, who))   # the caller's own arrays: a call may change them


@functools.lru_cache(maxsize=256)
def _drawn_cases(slug: str, who: str) -> list[Case]:
    seed = int.from_bytes(hashlib.sha256(f"{who}|lab|{slug}".encode()).digest()[:8], "little")
    return LABS[slug].make_cases(np.random.default_rng(seed))


def view_cases(slug: str, student: str | None, draw: str = "") -> list[dict]:
    """The cases as the student's kernel gets them (inputs only): ``[{"label", "args": [encoded...]}]``."""
    return [{"label": c.label, "args": [encode_value(a) for a in c.args]}
            for c in cases_for(slug, student, draw)]


# --- the worked solutions, as a student writes them (the notebook's solution cells) ---------------

SOLUTIONS = {
    "rnn-step": '''def rnn_step(h_prev, x, W, U, b):
    """One step for a batch: h_prev (B, h), x (B, d), W (h, h), U (h, d),
    b (h,) -> h (B, h)."""
    return np.tanh(h_prev @ W.T + x @ U.T + b)   # one row per sequence
''',
    "rnn-forward": '''def rnn_forward(xs, h0, W, U, b):
    """Every state of a batch: xs (T, B, d), h0 (B, h) -> hs (T, B, h),
    the states h_1..h_T."""
    hs, h = [], h0
    for x in xs:                         # the same W, U, b at every step
        h = np.tanh(h @ W.T + x @ U.T + b)
        hs.append(h)
    return np.stack(hs)
''',
    "rnn-bptt": '''def rnn_bptt(xs, hs, dhs, h0, W, U, b, tau=None):
    """Gradients of the loss: xs (T, B, d), hs and dhs (T, B, h), h0 (B, h)
    -> {"W": dW, "U": dU, "b": db}.

    dhs[k] is the gradient the loss puts directly on hs[k]. With tau, no
    gradient flows from hs[k] back to hs[k-1] when k is a multiple of tau.
    """
    T = len(xs)
    h_prev = [h0] + list(hs[:-1])        # the state each step started from
    dW, dU, db = np.zeros_like(W), np.zeros_like(U), np.zeros_like(b)
    from_later = np.zeros_like(h0)       # what step t + 1 sends back to h_t
    for t in range(T - 1, -1, -1):
        if tau is not None and (t + 1) % tau == 0:
            from_later = np.zeros_like(h0)   # a chunk ends: nothing crosses
        da = (dhs[t] + from_later) * (1 - hs[t] ** 2)   # Rule A: through tanh
        dW += da.T @ h_prev[t]           # Rule B: every step adds its share
        dU += da.T @ xs[t]
        db += da.sum(axis=0)
        from_later = da @ W              # W^T da_t, for each row
    return {"W": dW, "U": dU, "b": db}
''',
    "clip": '''def clip_by_global_norm(grads, max_norm):
    """grads: list of arrays -> a new list, every array scaled by
    min(1, max_norm / ||g||), with ||g|| the norm over all of them."""
    norm = np.sqrt(sum((g ** 2).sum() for g in grads))
    scale = min(1.0, max_norm / norm) if norm > 0 else 1.0
    return [g * scale for g in grads]
''',
    "lstm-step": '''def lstm_step(h_prev, c_prev, x, weights):
    """One LSTM step for a batch: h_prev, c_prev (B, h), x (B, d)
    -> (h, c), each (B, h).

    weights["W_j"] (h, h), weights["U_j"] (h, d), weights["b_j"] (h,)
    for the blocks j = i, f, c, o.
    """
    def sigmoid(a):
        return 1 / (1 + np.exp(-a))

    def pre(j):                          # block j's pre-activation, in rows
        return (h_prev @ weights["W_" + j].T + x @ weights["U_" + j].T
                + weights["b_" + j])

    i, f, o = sigmoid(pre("i")), sigmoid(pre("f")), sigmoid(pre("o"))
    c_tilde = np.tanh(pre("c"))          # the candidate
    c = f * c_prev + i * c_tilde         # keep, then write
    h = o * np.tanh(c)                   # show
    return h, c
''',
    "gru-step": '''def gru_step(h_prev, x, weights):
    """One GRU step for a batch: h_prev (B, h), x (B, d) -> h (B, h).

    weights["W_k"] (h, h), weights["U_k"] (h, d), weights["b_k"] (h,)
    for the blocks k = z, r, h.
    """
    def sigmoid(a):
        return 1 / (1 + np.exp(-a))

    def pre(k, h):                       # block k's pre-activation, in rows
        return (h @ weights["W_" + k].T + x @ weights["U_" + k].T
                + weights["b_" + k])

    z = sigmoid(pre("z", h_prev))        # update gate
    r = sigmoid(pre("r", h_prev))        # reset gate
    h_tilde = np.tanh(pre("h", r * h_prev))   # the reset scales h_prev first
    return (1 - z) * h_prev + z * h_tilde     # the blend
''',
    "greedy": '''def greedy_decode(model, max_length):
    """The most likely token at every step -> (tokens, log_prob).

    model: step, initial_state, bos_id, eos_id (chapter 13). tokens ends
    with model.eos_id, forced at position max_length; log_prob is the sum
    of their log-probabilities.
    """
    tokens, log_prob = [], 0.0
    state, prev = model.initial_state, model.bos_id
    for t in range(1, max_length + 1):
        log_probs, state = model.step(state, prev)
        last = t == max_length
        token = model.eos_id if last else int(np.argmax(log_probs))
        tokens.append(token)
        log_prob += float(log_probs[token])   # logs add up: a product
        if token == model.eos_id:
            break
        prev = token
    return tokens, log_prob
''',
    "beam": '''def beam_search(model, beam_width, max_length):
    """The best output a beam of width B finds -> (tokens, log_prob).

    Finished outputs are set aside; the search stops when no live
    hypothesis can beat the best of them.
    """
    beam = [([], 0.0, model.initial_state)]   # (tokens, log-prob, state)
    finished = []
    for t in range(1, max_length + 1):
        grown = []
        for tokens, log_prob, state in beam:  # every possible next token
            prev = tokens[-1] if tokens else model.bos_id
            log_probs, new_state = model.step(state, prev)
            if t == max_length:
                choices = [model.eos_id]
            else:
                choices = np.flatnonzero(np.isfinite(log_probs))
            for w in choices:
                grown.append((tokens + [int(w)],
                              log_prob + float(log_probs[w]), new_state))
        grown.sort(key=lambda c: -c[1])
        kept = grown[:beam_width]             # the B best of all of them
        finished += [c for c in kept if c[0][-1] == model.eos_id]
        beam = [c for c in kept if c[0][-1] != model.eos_id]
        best_finished = max((c[1] for c in finished), default=-np.inf)
        if not beam or best_finished >= beam[0][1]:
            break                             # nothing live can still win
    tokens, log_prob, _ = max(finished, key=lambda c: c[1])
    return tokens, log_prob
''',
    "bleu": '''def corpus_bleu(candidates, references, max_n=4):
    """Corpus BLEU-N: candidates (S lists of words), references (S lists
    of references, each a list of words) -> a number in [0, 1]."""
    matches, totals = np.zeros(max_n), np.zeros(max_n)
    l_out = l_ref = 0                          # lengths, summed
    for cand, refs in zip(candidates, references):
        l_out += len(cand)
        lengths = [len(ref) for ref in refs]   # the closest; ties: shorter
        l_ref += min(lengths, key=lambda n: (abs(n - len(cand)), n))
        for n in range(1, max_n + 1):
            grams = Counter(tuple(cand[i:i + n])
                            for i in range(len(cand) - n + 1))
            most = Counter()                   # largest count in one ref
            for ref in refs:
                most |= Counter(tuple(ref[i:i + n])
                                for i in range(len(ref) - n + 1))
            matches[n - 1] += sum(min(k, most[g]) for g, k in grams.items())
            totals[n - 1] += sum(grams.values())
    if l_out == 0 or matches.min() == 0:
        return 0.0
    bp = min(1.0, math.exp(1 - l_ref / l_out))   # the brevity penalty
    return float(bp * np.exp(np.mean(np.log(matches / totals))))
''',
    "attention-read": '''def attention_read(dec, states, src_len):
    """Dot-product attention for a batch, in torch: dec (B, L, H),
    states (B, T, H) padded after each sentence, src_len (B,)
    -> (weights (B, L, T), context (B, L, H))."""
    scores = dec @ states.transpose(1, 2)        # (B, L, T): h_t . h^enc_j
    T = states.shape[1]
    padding = torch.arange(T)[None, None, :] >= src_len[:, None, None]
    scores = scores.masked_fill(padding, float("-inf"))   # weight 0 there
    weights = torch.softmax(scores, dim=-1)      # over the T encoder steps
    return weights, weights @ states             # m_t, the weighted sums
''',
    "additive-scores": '''def additive_scores(dec, states, W_q, W_k, b, v):
    """v^T tanh(W_q h_t + W_k h^enc_j + b) for every decoder state h_t and
    encoder state h^enc_j: dec (B, L, H), states (B, T, H), W_q and W_k
    (A, H), b and v (A,) -> scores (B, L, T)."""
    queries = dec @ W_q.T                        # (B, L, A)
    keys = states @ W_k.T + b                    # (B, T, A)
    mixed = torch.tanh(queries[:, :, None, :] + keys[:, None, :, :])
    return mixed @ v                             # (B, L, T, A) @ (A,)
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


def afterword(slug: str) -> str:
    """What a lab's page and notebook show after the function (Markdown; "" for most labs): lab 11's measurement."""
    return scoring_measurement() if _lab(slug).slug == "additive-scores" else ""


def scoring_measurement() -> str:
    """Lab 11's measurement, from ``scripts/sweep_bottleneck.py``'s runs: dot-product against additive scores
    (``bottleneck_sweep.json``'s "attention" arm, ``scoring_sweep.json``'s "additive").

    Both arms are chapter 14's recipe from the same seeds (the additive layer made last, so every other
    starting number is the same) at three learning rates; the difference is paired by (seed, rate),
    with a 95% t interval over those pairs.

    Raises:
        ValueError: if the sweep has no additive run paired with a dot-product run.
    """
    import json
    import math

    from mwm.seq2seq import DATA

    runs = [r for name in ("bottleneck_sweep.json", "scoring_sweep.json")   # chapter 14's runs, lab 11's
            for r in json.loads((DATA / name).read_text(encoding="utf-8"))["runs"]]
    bleu = {(r["arm"], r["learning_rate"], r["seed"]): r["bleu"] for r in runs}
    rates = sorted({r for a, r, _ in bleu if a == "additive"})
    seeds = sorted({s for a, _, s in bleu if a == "additive"})
    pairs = [(bleu["attention", r, s], bleu["additive", r, s]) for r in rates for s in seeds
             if ("attention", r, s) in bleu and ("additive", r, s) in bleu]
    if len(pairs) < 2:
        raise ValueError("bottleneck_sweep.json has no additive runs paired with dot-product ones")
    rows = ["| learning rate | dot product | additive |", "|---|---|---|"]
    for r in rates:
        dot = [bleu["attention", r, s] for s in seeds]
        add = [bleu["additive", r, s] for s in seeds]
        rows.append(f"| {r:g} | {np.mean(dot):.3f} ({min(dot):.3f} to {max(dot):.3f}) | "
                    f"{np.mean(add):.3f} ({min(add):.3f} to {max(add):.3f}) |")
    diff = np.array([a - d for d, a in pairs])
    # the 97.5% point of Student's t with n - 1 degrees of freedom, for the sweep's 9 or 3 pairs
    t = {8: 2.306, 2: 4.303}[len(diff) - 1]
    half = t * diff.std(ddof=1) / math.sqrt(len(diff))
    best = max(rates, key=lambda r: np.mean([bleu["attention", r, s] for s in seeds]))
    ahead = int((diff > 0).sum())
    k = max(ahead, len(diff) - ahead)   # two-sided sign test: k of n pairs one way, were each a coin toss
    sign_p = min(1.0, 2 * sum(math.comb(len(diff), j) for j in range(k, len(diff) + 1)) / 2 ** len(diff))
    low, high = diff.mean() - half, diff.mean() + half
    if low > 0 or high < 0:
        verdict = (f"The interval leaves out 0: here {'additive scores' if low > 0 else 'dot products'} translate "
                   "better, by about that much.")
    elif sign_p < 0.05:
        verdict = ("The mean's interval just reaches 0 and the sign test is below 0.05: a lead the sweep "
                   "suggests, not one it settles. Both are far above every one-summary model of chapter 14: "
                   "that the decoder may look back matters far more than how it scores.")
    else:
        verdict = ("Neither test tells the two apart: on this task the way of scoring makes no difference the "
                   "sweep can measure; that the decoder may look back (chapter 14) is what matters.")
    return (f"**Does the scoring matter here?** The course trained both translators, {len(seeds)} seeds at each of "
            f"{len(rates)} learning rates, every other number alike (`scripts/sweep_bottleneck.py --scoring`). Test-set "
            f"BLEU-4, the mean over the seeds (their range):\n\n" + "\n".join(rows) + "\n\n"
            f"Additive minus dot product, paired by seed and rate: {_signed(diff.mean())} "
            f"(95% interval {_signed(low)} to {_signed(high)}, {len(diff)} pairs); additive ahead in {ahead} of "
            f"{len(diff)} pairs (sign test p = {sign_p:.3f}); at the best rate for dot products ({best:g}), "
            f"{_signed(np.mean([bleu['additive', best, s] - bleu['attention', best, s] for s in seeds]))}. " + verdict)


def _signed(x: float) -> str:
    """A difference with its sign, a true minus sign for a negative one: +0.019, −0.001."""
    return f"{x:+.3f}".replace("-", "\u2212")


def labs_view(student: str | None, *, with_results: bool, draw: str = "") -> dict:
    """The labs as a student's kernel gets them: per lab its function, argument names and cases.

    Args:
        student: whose inputs (None or "": the website's).
        with_results: also give each case's result (the website's view only: the grading view
            holds inputs only).
        draw: the grading's draw key (see :func:`cases_for`).

    Returns:
        ``{"labs": {slug: {"function", "title", "arg_names", "cases": [{"label", "args"[, "expected"]}]}}}``.
    """
    out = {}
    for slug, lab in LABS.items():
        cases = []
        for case in cases_for(slug, student, draw):
            entry = {"label": case.label, "args": [encode_value(a) for a in case.args]}
            if with_results:
                entry["expected"] = encode_value(lab.reference(*case.args))
            cases.append(entry)
        out[slug] = {"function": lab.function, "title": lab.title, "arg_names": list(lab.arg_names), "cases": cases}
        if with_results:   # the website's view: each common mistake's results on these public cases, for its hint
            slips = (slip_results(wrong, cases_for(slug, student, draw)) for wrong in WRONG.get(slug, []))
            out[slug]["slips"] = [slip for slip in slips if slip is not None]
    return {"labs": out}


def slip_results(wrong, cases) -> dict | None:
    """A catalogued mistake's hint with its results and in-place changes on ``cases``, or None if it raises on one.

    The website's view carries these for its public cases (``Labs.check`` names the mistake); the
    judge makes them for a student's cases (:func:`matched_wrong`).
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


def lab_label(slug: str) -> str:
    """How feedback and the class report name a lab: "Lab 4 (clip_by_global_norm)".

    Raises:
        ValueError: for an unknown lab.
    """
    return f"Lab {list(LABS).index(_lab(slug).slug) + 1} ({LABS[slug].function})"


def judge(slug: str, student: str | None, calls, draw: str = "") -> tuple[bool, list[str]]:
    """Decide a lab from the record of calls the student's kernel made (untrusted data).

    Args:
        slug: the lab (a key of :data:`LABS`).
        student: whose cases the calls must have used.
        calls: the record's list, as ``mwm_practice.labs.record_calls`` returns it.
        draw: the grading's draw key the cases were drawn with (see :func:`cases_for`).

    Returns:
        (right, lines): right only if every case gave the reference's result without changing an
        argument; one line per case (and a hint when the results match a catalogued mistake).

    Raises:
        ValueError: for an unknown lab.
    """
    return verdict(slug, student, calls, draw)[:2]


def verdict(slug: str, student: str | None, calls, draw: str = "") -> tuple[bool, list[str], Wrong | None]:
    """:func:`judge`'s (right, lines), and the catalogued mistake (:data:`WRONG`) the record matches, or None.

    Raises:
        ValueError: for an unknown lab.
    """
    lab = _lab(slug)
    cases = cases_for(slug, student, draw)
    if not isinstance(calls, list) or not calls:
        return False, [f"{lab.function}: no calls were recorded (the hand-in cell did not run, or stopped before)"], None
    if len(calls) != len(cases):
        return False, [f"{lab.function}: {len(calls)} calls were recorded for {len(cases)} cases"], None
    lines, right = [], True
    for i, (case, call) in enumerate(zip(cases, calls), 1):
        head = f"{lab.function}, case {i} ({case.label})"
        if not isinstance(call, dict) or call.get("args") != args_digest([encode_value(a) for a in case.args]):
            right = False
            lines.append(f"{head}: the function was run on other inputs than this submission's")
            continue
        if "error" in call:
            right = False
            lines.append(f"{head}: raised {one_line(str(call['error'])[:300])}")   # the kernel's word: one line
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
    wrong = None if right else matched_wrong(slug, student, calls, draw)
    if wrong is not None:
        lines.append(f"Hint: {wrong.hint}")
    return right, lines, wrong


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


def _greedy_with(model, max_length, *, product=False, end_not_forced=False, end_dropped=False, begin_kept=False):
    tokens, score = [], 1.0 if product else 0.0
    state, prev = model.initial_state, model.bos_id
    for t in range(1, int(max_length) + 1):
        log_probs, state = model.step(state, prev)
        token = model.eos_id if t == max_length and not end_not_forced else int(np.argmax(log_probs))
        tokens.append(token)
        score = score * float(np.exp(log_probs[token])) if product else score + float(log_probs[token])
        if token == model.eos_id:
            break
        prev = token
    if end_dropped and tokens[-1] == model.eos_id:
        tokens = tokens[:-1]
    return ([model.bos_id] + tokens if begin_kept else tokens), score


def _beam_with(model, beam_width, max_length, *, finished_compete=False, first_finished=False, last_token=False,
               end_not_forced=False, per_parent=False):
    eos = model.eos_id
    beam, finished = [([], 0.0, model.initial_state, 0.0)], []   # (tokens, log-prob, state, last token's log-prob)
    for t in range(1, int(max_length) + 1):
        grown = []
        for tokens, log_prob, state, last in beam:
            if tokens and tokens[-1] == eos:                   # finished_compete only: it stays as it is
                grown.append((tokens, log_prob, state, last))
                continue
            log_probs, new_state = model.step(state, tokens[-1] if tokens else model.bos_id)
            forced = t == max_length and not end_not_forced
            choices = [eos] if forced else np.flatnonzero(np.isfinite(log_probs))
            children = [(tokens + [int(w)], log_prob + float(log_probs[w]), new_state, float(log_probs[w]))
                        for w in choices]
            if per_parent:                                     # each parent's B best, no cut over all of them
                children = sorted(children, key=lambda c: -c[1])[:int(beam_width)]
            grown += children
        rank = (lambda c: -c[3]) if last_token else (lambda c: -c[1])
        kept = sorted(grown, key=rank) if per_parent else sorted(grown, key=rank)[:int(beam_width)]
        if finished_compete:
            beam = kept
            if all(c[0][-1] == eos for c in beam):
                break
            continue
        newly = [c for c in kept if c[0][-1] == eos]
        if first_finished and newly:
            finished = newly
            break
        finished += newly
        beam = [c for c in kept if c[0][-1] != eos]
        if not beam or max((c[1] for c in finished), default=-np.inf) >= max(c[1] for c in beam):
            break
    best = max(beam if finished_compete else finished + (beam if end_not_forced else []), key=lambda c: c[1])
    return best[0], best[1]


def _per_token_beam(model, beam_width, max_length):
    best = _ref_beam(model, int(beam_width), int(max_length), nu=1.0).best   # chapter 13's nu = 1
    return list(best.tokens), best.log_prob


def _bleu_with(candidates, references, max_n, *, unclipped=False, sentence_mean=False, no_penalty=False,
               first_length=False, arithmetic=False, always_four=False, longer_on_tie=False, summed_refs=False,
               sentence_penalty=False):
    from collections import Counter

    max_n = 4 if always_four else int(max_n)
    flags = dict(unclipped=unclipped, no_penalty=no_penalty, first_length=first_length, arithmetic=arithmetic)
    if sentence_mean:
        return float(np.mean([_bleu_with([c], [r], max_n, **flags) for c, r in zip(candidates, references)]))
    matches, totals, c, r, penalties = np.zeros(max_n), np.zeros(max_n), 0, 0, []
    for cand, refs in zip(candidates, references):
        c += len(cand)
        if first_length:
            near = len(refs[0])
        else:
            near = min((len(x) for x in refs), key=lambda n: (abs(n - len(cand)), -n if longer_on_tie else n))
        r += near
        penalties.append(min(1.0, float(np.exp(1 - near / len(cand)))) if cand else 0.0)
        for n in range(1, max_n + 1):
            grams = Counter(tuple(cand[i:i + n]) for i in range(len(cand) - n + 1))
            most = Counter()
            for ref in refs:
                counts = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
                most = most + counts if summed_refs else most | counts
            matches[n - 1] += sum(k if unclipped and most[g] else min(k, most[g]) for g, k in grams.items())
            totals[n - 1] += sum(grams.values())
    if c == 0 or matches.min() == 0:
        return 0.0
    penalty = 1.0 if no_penalty else min(1.0, float(np.exp(1 - r / c)))
    if sentence_penalty:   # each sentence's penalty, averaged, instead of one from the summed lengths
        penalty = float(np.mean(penalties))
    mean = float(np.mean(matches / totals)) if arithmetic else float(np.exp(np.mean(np.log(matches / totals))))
    return penalty * mean


def _attention_with(dec, states, src_len, *, no_mask=False, wrong_axis=False, mask_after=False, scaled=False,
                    off_by_one=False):
    import torch

    scores = dec @ states.transpose(1, 2)
    if scaled:
        scores = scores / dec.shape[-1] ** 0.5
    positions = torch.arange(states.shape[1])[None, None, :]
    padding = positions > src_len[:, None, None] if off_by_one else positions >= src_len[:, None, None]
    if mask_after:
        weights = torch.softmax(scores, dim=-1).masked_fill(padding, 0.0)
    else:
        weights = torch.softmax(scores if no_mask else scores.masked_fill(padding, float("-inf")),
                                dim=1 if wrong_axis else -1)
    return weights, weights @ states   # over the wrong axis, a column of padding only is nan


def _additive_with(dec, states, W_q, W_k, b, v, *, no_tanh=False, no_bias=False, swapped=False):
    import torch

    if swapped:
        W_q, W_k = W_k, W_q
    keys = states @ W_k.T + (0 if no_bias else b)
    mixed = (dec @ W_q.T)[:, :, None, :] + keys[:, None, :, :]
    return (mixed if no_tanh else torch.tanh(mixed)) @ v


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
    "greedy": [
        Wrong("probability-not-log", "It looks like the probabilities were multiplied: return the summed "
              "log-probability.", lambda *a: _greedy_with(*a, product=True)),
        Wrong("end-not-forced", "It looks like the end symbol was not forced at position max_length: there only the "
              "end symbol may be written.", lambda *a: _greedy_with(*a, end_not_forced=True)),
        Wrong("end-dropped", "It looks like the end symbol was left out of tokens: an output ends with it.",
              lambda *a: _greedy_with(*a, end_dropped=True)),
        Wrong("begin-kept", "It looks like the begin symbol was put in tokens: it is read first, never written.",
              lambda *a: _greedy_with(*a, begin_kept=True)),
    ],
    "beam": [
        Wrong("finished-in-the-beam", "It looks like finished outputs stay in the beam, where live hypotheses can "
              "push them out: set each one aside when it finishes.", lambda *a: _beam_with(*a, finished_compete=True)),
        Wrong("first-finished", "It looks like the search stops at the first output that finishes: a live "
              "hypothesis may still beat it.", lambda *a: _beam_with(*a, first_finished=True)),
        Wrong("last-token-ranking", "It looks like hypotheses are ranked by their last token's log-probability: "
              "rank them by the whole sum.", lambda *a: _beam_with(*a, last_token=True)),
        Wrong("end-not-forced", "It looks like the end symbol was not forced at position max_length: there only the "
              "end symbol may be written.", lambda *a: _beam_with(*a, end_not_forced=True)),
        Wrong("width-ignored", "It looks like every hypothesis is kept: the beam keeps only the beam_width best "
              "of all the candidates at each step.", lambda m, b, n: _beam_with(m, 10**6, n)),
        Wrong("per-parent", "It looks like each hypothesis keeps its beam_width best extensions and nothing is cut "
              "across them: keep the beam_width best of all the candidates.", lambda *a: _beam_with(*a, per_parent=True)),
        Wrong("length-normalised", "It looks like hypotheses are ranked by their log-probability per token "
              "(chapter 13's nu = 1): this lab ranks by the plain sum.", _per_token_beam),
    ],
    "bleu": [
        Wrong("unclipped", "It looks like n-gram matches are not clipped: a candidate's n-gram counts at most as "
              "often as it appears in one reference.", lambda *a: _bleu_with(*a, unclipped=True)),
        Wrong("sentence-average", "It looks like sentence BLEUs were averaged: corpus BLEU adds up the counts and "
              "lengths of all sentences first.", lambda *a: _bleu_with(*a, sentence_mean=True)),
        Wrong("no-brevity-penalty", "It looks like the brevity penalty was left out.",
              lambda *a: _bleu_with(*a, no_penalty=True)),
        Wrong("first-reference-length", "It looks like the reference length is the first reference's: it is the "
              "length closest to the candidate's.", lambda *a: _bleu_with(*a, first_length=True)),
        Wrong("arithmetic-mean", "It looks like the precisions were averaged: BLEU takes their geometric mean, the "
              "exponential of the mean of their logs.", lambda *a: _bleu_with(*a, arithmetic=True)),
        Wrong("always-four", "It looks like max_n was not used: BLEU-N counts n-grams up to n = max_n.",
              lambda *a: _bleu_with(*a, always_four=True)),
        Wrong("longer-on-tie", "It looks like a tie between two reference lengths goes to the longer one: it goes "
              "to the shorter.", lambda *a: _bleu_with(*a, longer_on_tie=True)),
        Wrong("summed-reference-counts", "It looks like an n-gram's counts in the references were added up: it is "
              "clipped to its largest count in any one reference.", lambda *a: _bleu_with(*a, summed_refs=True)),
        Wrong("sentence-penalty", "It looks like each sentence got its own brevity penalty: corpus BLEU takes one, "
              "from the summed lengths.", lambda *a: _bleu_with(*a, sentence_penalty=True)),
    ],
    "attention-read": [
        Wrong("no-mask", "It looks like the padding after a short sentence gets weight: set its scores to -inf "
              "before the softmax.", lambda *a: _attention_with(*a, no_mask=True)),
        Wrong("wrong-axis", "It looks like the softmax runs over the decoder steps: each decoder step's weights "
              "spread over the T encoder steps (dim=-1).", lambda *a: _attention_with(*a, wrong_axis=True)),
        Wrong("mask-after-softmax", "It looks like the padding's weights were set to 0 after the softmax: the "
              "others then no longer add up to 1; mask the scores before it.",
              lambda *a: _attention_with(*a, mask_after=True)),
        Wrong("scaled", "It looks like the scores were divided by sqrt(H), as the Transformer's scaled dot product "
              "does; this model's score is the plain dot product.", lambda *a: _attention_with(*a, scaled=True)),
        Wrong("mask-off-by-one", "It looks like position src_len[b] still gets weight: a sentence of n words has "
              "positions 0 to n - 1, and every position from n on is padding.",
              lambda *a: _attention_with(*a, off_by_one=True)),
    ],
    "additive-scores": [
        Wrong("no-tanh", "It looks like tanh was left out: the score is v^T tanh(W_q h_t + W_k h^enc_j + b).",
              lambda *a: _additive_with(*a, no_tanh=True)),
        Wrong("no-bias", "It looks like the bias b was left out.", lambda *a: _additive_with(*a, no_bias=True)),
        Wrong("query-and-key-swapped", "It looks like W_q and W_k are swapped: W_q reads the decoder's state h_t, "
              "W_k the encoder's state h.", lambda *a: _additive_with(*a, swapped=True)),
    ],
}


def matched_wrong(slug: str, student: str | None, calls, draw: str = "") -> Wrong | None:
    """The catalogued mistake (:data:`WRONG`) whose results and in-place changes the record matches on every case, or None."""
    cases = cases_for(slug, student, draw)
    if _results(calls, cases) is None:
        return None
    slips = [(wrong, slip_results(wrong, cases)) for wrong in WRONG.get(slug, [])]
    slips = [(wrong, slip) for wrong, slip in slips if slip is not None]
    hint = matching_slip([slip for _, slip in slips], calls)
    return next((wrong for wrong, slip in slips if slip["hint"] == hint), None) if hint else None
