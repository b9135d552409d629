"""Every student's own numbers (mwm_grader.variants): stable, shaped like the website's, well posed, varied, worded.

* stable: the same id gives the same numbers in this process and in another one (another
  PYTHONHASHSEED), and the seed is what ``rng_for`` documents;
* the empty id gives the website's numbers; bad input is named;
* for a fixed list of ids (ordinary and odd unicode ones), every problem builds and every
  constraint the generators promise holds, checked here on the built problem;
* at least 1,000 distinct variants of every problem;
* the wording follows the numbers (no "Twenty steps" when ahead is not 20, no "+-", ...), and
  the website's numbers keep their text.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mwm_grader import problems, variants
from mwm_grader.problems import NUMBERS, number_word

ODD_IDS = ["ünïcødé", "学生-07", "O'Brien", "a b\tc", "🙂🚂☕", "x" * 300, "-1", "None", "0", "\u200b", "Ωmega\n"]
IDS = [f"student{i:04d}" for i in range(200)] + ODD_IDS


def _json(numbers) -> str:
    return json.dumps(numbers, sort_keys=True, default=list, ensure_ascii=True)


@pytest.fixture(scope="module")
def built():
    """id -> (numbers, {problem number: Problem}) for every id in IDS."""
    out = {}
    for sid in IDS:
        numbers = variants.numbers_for(sid)
        out[sid] = numbers, {n: problems.build(n, numbers) for n in range(1, 17)}
    return out


# ------------------------------------------------------------------------------------------
# Stability and the API
# ------------------------------------------------------------------------------------------
def test_rng_for_is_the_documented_seed():
    for sid in ["student0001", "ünïcødé", "🙂"]:
        for number in (1, 9, 16):
            digest = hashlib.sha256(f"mwm-practice:{sid}:{number}".encode()).digest()
            mine = random.Random(int.from_bytes(digest[:8], "big"))
            rng = variants.rng_for(sid, number)
            assert [rng.randrange(10**9) for _ in range(20)] == [mine.randrange(10**9) for _ in range(20)]


def test_same_id_same_numbers_and_problems_independent():
    for sid in IDS[:20] + ODD_IDS:
        a, b = variants.numbers_for(sid), variants.numbers_for(sid)
        assert _json(a) == _json(b) and a is not b
        for number in range(1, 17):
            # ids are read without regard to case or surrounding spaces (mwm_practice.ids)
            assert _json(a[number]) == _json(variants.VARIANTS[number](variants.rng_for(sid.strip().lower(), number)))
    a = variants.numbers_for("student0003")
    a[1]["xs"].append(9.0)                                   # the caller may change its copy
    assert len(variants.numbers_for("student0003")[1]["xs"]) == 3


def test_same_numbers_in_another_process():
    """Recomputed in fresh interpreters with other hash seeds: nothing depends on the process."""
    ids = IDS[:15] + ODD_IDS
    here = [_json(variants.numbers_for(sid)) for sid in ids]
    lib = str(Path(variants.__file__).resolve().parents[2])
    code = ("import json, sys\nfrom mwm_grader.variants import numbers_for\n"
            "ids = json.loads(sys.stdin.read())\n"
            "print(json.dumps([json.dumps(numbers_for(i), sort_keys=True, default=list, ensure_ascii=True) for i in ids]))")
    for seed in ("12345",):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=lib + os.pathsep + os.environ.get("PYTHONPATH", ""))
        done = subprocess.run([sys.executable, "-c", code], input=json.dumps(ids), capture_output=True, text=True,
                              env=env, timeout=120, check=True)
        assert json.loads(done.stdout) == here


def test_no_id_gives_the_website_numbers():
    for empty in (None, ""):
        numbers = variants.numbers_for(empty)
        assert numbers == NUMBERS and numbers is not NUMBERS
        numbers[1]["xs"][0] = 99.0
        assert NUMBERS[1]["xs"][0] == 1.0
    assert all(_json(variants.numbers_for(sid)) != _json(NUMBERS) for sid in IDS[:20])


@pytest.mark.parametrize("bad, error, word", [
    (lambda: variants.numbers_for(123), TypeError, "student_id"),
    (lambda: variants.numbers_for(b"student"), TypeError, "student_id"),
    (lambda: variants.numbers_for(["a"]), TypeError, "student_id"),
    (lambda: variants.rng_for(7, 1), TypeError, "student_id"),
    (lambda: variants.rng_for("a", 0), ValueError, "number"),
    (lambda: variants.rng_for("a", 17), ValueError, "number"),
    (lambda: variants.rng_for("a", True), TypeError, "number"),
    (lambda: variants.rng_for("a", 1.0), TypeError, "number"),
    (lambda: variants.variant_1(42), TypeError, "rng"),
    (lambda: variants.variant_16(None), TypeError, "rng"),
    (lambda: problems.build("1", NUMBERS), TypeError, "number"),
    (lambda: problems.build(1, [NUMBERS[1]]), TypeError, "numbers"),
    (lambda: problems.build(2, {1: NUMBERS[1]}), ValueError, "numbers has no .* problem 2"),
    (lambda: problems.build(1, {1: {"w": 0.5}}), ValueError, r"numbers\[1\] .*missing \['b', 'h0', 'u', 'xs'\]"),
    (lambda: problems.build(12, {12: {**NUMBERS[12], "runs": {**NUMBERS[12]["runs"], "A": [1, 0.42]}}}), ValueError,
     r"runs\['A'\] needs 3 to 10 entries, got 2"),
])
def test_bad_input_names_the_argument(bad, error, word):
    with pytest.raises(error, match=word):
        bad()


def test_a_generator_that_cannot_succeed_stops_with_a_clear_error(monkeypatch):
    monkeypatch.setattr(variants, "MAX_TRIES", 25)
    calls = []

    def make(rng):
        calls.append(1)
        return {}

    with pytest.raises(variants.VariantError, match=r"problem 4: .*25 draws.*always wrong"):
        variants._draw(4, random.Random(1), make, lambda n: "always wrong")
    assert len(calls) == 25


# ------------------------------------------------------------------------------------------
# Shape: exactly the form of NUMBERS[N]
# ------------------------------------------------------------------------------------------
def _shape(x, loose=False):
    """Types all the way down; ``loose`` dicts (keys are words) compare by key type and value shapes."""
    if isinstance(x, dict):
        if loose:
            return ("dict", frozenset(type(k).__name__ for k in x), frozenset(_shape(v, True) for v in x.values()))
        return ("dict", tuple((k, _shape(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_shape(v) for v in x))
    return type(x).__name__


WORD_KEYED = {(15, "first"), (15, "second"), (4, "words")}


def _shape_of(number, numbers):
    return {k: _shape(v, (number, k) in WORD_KEYED) for k, v in numbers.items()}


def test_every_variant_has_the_form_of_the_website_numbers(built):
    for sid, (numbers, _) in built.items():
        assert sorted(numbers) == list(range(1, 17))
        for number in range(1, 17):
            assert list(numbers[number]) == list(NUMBERS[number]), (sid, number)     # same keys, same order
            assert _shape_of(number, numbers[number]) == _shape_of(number, NUMBERS[number]), (sid, number)


# ------------------------------------------------------------------------------------------
# Well posed: every problem builds and its answers are not degenerate
# ------------------------------------------------------------------------------------------
def _decimals(x) -> int:
    """How many decimals a float needs (up to floating-point noise)."""
    for d in range(0, 8):
        if abs(x * 10**d - round(x * 10**d)) < 1e-6:
            return d
    return 99


def _floats(x):
    if isinstance(x, bool):
        return
    if isinstance(x, float):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _floats(v)
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _floats(v)


def _answers(problem):
    return {a.name: a.expected for a in problem.answers}


def _printed(a):
    """Every number of an answer as the key prints it."""
    if a.kind == "number":
        return [problems.fmt(a.expected, a.decimals, a.sig)]
    if a.kind == "vector":
        return [problems.fmt(x, a.decimals, a.sig) for x in np.ravel(a.expected)]
    return []


def check_generic(number, numbers, problem):
    # few digits: two decimals at most (problem 8's eps may be 0.005 or 0.0001; problem 12 logs 3 figures)
    for x in _floats({k: v for k, v in numbers.items() if k not in ("runs", "eps")}):
        assert _decimals(x) <= 2, (number, x)
    for a in problem.answers:
        if a.kind in ("number", "vector"):
            assert np.all(np.isfinite(np.array(a.expected, float))), (number, a.name)
    for part in problem.parts:          # the answers of a part are not all equal
        shown = [tuple(_printed(a)) for a in part.answers if a.kind in ("number", "vector")]
        if len(shown) > 1:
            assert len(set(shown)) > 1, (number, part.letter, shown)


def check_1(n, a, p):
    hs = [a[f"h{t + 1}"] for t in range(len(n["xs"]))]
    assert all(0.05 <= abs(h) <= 0.97 for h in hs) and len({round(h, 4) for h in hs}) == 3
    assert not {round(h, 4) for h in hs} & {round(v, 4) for v in (n["w"], n["u"], n["b"], n["h0"], *n["xs"])}


def check_2(n, a, p):
    states = np.array([a["h1"], a["h2"]])
    assert np.all((np.abs(states) >= 0.02) & (np.abs(states) <= 0.97)) and not np.allclose(states[0], states[1])
    assert n["xs"][0] != 0 and any(n["h0"])


def check_3(n, a, p):
    assert n["hidden"] != n["inputs"] and all(isinstance(v, int) for v in a.values())


def check_4(n, a, p):
    assert 0.002 <= min(a["probs"]) and max(a["probs"]) <= 0.99 and a["loss_true"] != a["loss_other"]
    assert len(set(n["words"])) == 4 and n["truth"] != n["other"] and {n["truth"], n["other"]} <= set(n["words"])


def check_5(n, a, p):
    assert 0.2 <= a["theta_new"] <= 8 and abs(a["theta_new"] - 1) >= 0.1         # positive and printable
    assert all(0.005 <= q <= 0.995 for q in a["p_first"]) and len({round(q, 4) for q in a["p_first"]}) == 3
    assert a["p_cold"] == [1.0, 0.0] and n["p_now"] != n["p_wanted"]


def check_6(n, a, p):
    assert all(0.05 <= abs(h) <= 0.97 for h in a["hs"])
    assert min(abs(a["dh3_dh2"]), abs(a["dh2_dh1"])) >= 0.05 and abs(a["dh3_dh1"]) >= 0.01 and abs(a["dh3_dx1"]) >= 0.005


def check_7(n, a, p):
    tau, (i, j), (b1, b2) = n["tau"], n["pair_across"], n["pair_inside"]
    assert (a["learn_pair_1"], a["learn_pair_2"]) == (False, True)
    assert 0 < j - i < tau and math.ceil(j / tau) == math.ceil(i / tau) + 1     # close, yet across one cut
    assert b2 - b1 >= 2 and a["reaches_back_to"] < n["grad_from"] <= n["length"] and a["chunks"] >= 10


def check_8(n, a, p):
    for T in (a["T_fade"], a["T_explode"]):
        assert isinstance(T, int) and 5 <= T <= 60
    w, eps, w2, big = n["w_fade"], n["eps"], n["w_grow"], n["big"]
    assert w ** a["T_fade"] < eps <= w ** (a["T_fade"] - 1) and w2 ** a["T_explode"] > big >= w2 ** (a["T_explode"] - 1)
    for bound in (math.log(eps) / math.log(w), math.log(big) / math.log(w2)):
        assert 0.05 <= bound % 1 <= 0.95                                         # a whole step, not a near tie


def check_9(n, a, p):
    assert (a["memory_A"], a["memory_B"]) == ("fades", "explodes")
    assert abs(a["eig_A"][0]) > abs(a["eig_A"][1]) and abs(a["eig_B"][0]) > abs(a["eig_B"][1])
    assert all(0.005 <= abs(x) for x in a["A_T_v"]) and all(0.5 <= abs(x) <= 1e4 for x in a["B_T_v"])


def check_10(n, a, p):
    assert np.linalg.norm(n["g_long"]) >= n["limit"] + 1 and np.linalg.norm(n["g_short"]) <= n["limit"] - 0.5
    assert a["clipped_short"] == n["g_short"] and all(_decimals(x) <= 4 for x in a["change"])
    assert all(x != 0 for x in n["g_short"]) and all(x != 0 for x in n["g_long"][:2])


def check_11(n, a, p):
    assert len({round(a[k], 4) for k in ("f_t", "i_t", "o_t")}) == 3
    assert abs(a["c_t"]) >= 0.05 and abs(a["h_t"]) >= 0.02


def check_12(n, a, p):
    runs = n["runs"]
    for values in runs.values():                   # printed to three significant figures, from 1
        assert values[0] == 1 and isinstance(values[0], int) and len(values) == 6
        assert all(float(f"{v:.3g}") == v for v in values[1:])
    # the diagnosis from the printed numbers: one fades, one explodes, one is the LSTM's cell state
    ratios = {k: np.array(v[1:]) / np.array(v[:-1]) for k, v in runs.items()}
    for r in ratios.values():                      # a near-constant factor
        assert r.max() / r.min() < 1.02
    mean = {k: float(np.exp(np.log(r).mean())) for k, r in ratios.items()}
    lane = min(mean, key=lambda k: abs(math.log(mean[k])))
    fade, grow = sorted((k for k in mean if k != lane), key=mean.get)
    assert mean[fade] < 0.85 and mean[grow] > 1.15 and 0.94 < mean[lane] < 0.99
    assert (a["lstm_run"], a["small_run"], a["big_run"]) == (lane, fade, grow)
    assert 0.001 <= a["clip_scale"] <= 0.8 and a["f_min"] < 1 and problems.fmt(a["f_min"], 5) != "1.00000"
    assert mean[lane] ** n["far"] < n["share"] / 2


def check_13(n, a, p):
    assert abs(a["h_tilde"] - a["h_tilde_open"]) >= 0.01 and round(a["h_t"], 4) != round(a["h_open"], 4)
    assert a["candidate_was"] == ("higher" if n["h_prev"] * n["w_old"] < 0 else "lower")


def check_14(n, a, p):
    assert a["changes"] == "backward" and n["xs"] != n["xs"][::-1]
    assert all(0.02 <= abs(h) <= 0.97 for h in a["fwd"] + a["bwd"]) and round(a["fwd"][1], 4) != round(a["bwd"][1], 4)


def check_15(n, a, p):
    assert a["greedy_words"] != a["beam_words"] and a["beam_prob"] > a["greedy_prob"]
    assert n["beam_width"] == 2 and all(_decimals(q) == 1 and q > 0 for q in _floats(n))


SENTENCES = {ref: (keep, other) for ref, keep, other in variants._P16_SENTENCES}


def check_16(n, a, p):
    keep, other = SENTENCES[n["reference"]]
    cands = n["candidates"]
    assert list(cands) == ["A", "B", "C"] and len(set(cands.values())) == 3
    assert cands[n["keeps_meaning"]] in keep
    assert all(c in other for k, c in cands.items() if k != n["keeps_meaning"])
    assert a["scores_highest"] != a["keeps_meaning"] == n["keeps_meaning"]
    bleus = sorted((a[f"bleu_{k}"] for k in cands), reverse=True)
    assert bleus[0] > bleus[1] and bleus[-1] > 0


CHECKS = {i: globals()[f"check_{i}"] for i in range(1, 17)}


@pytest.mark.parametrize("number", range(1, 17))
def test_every_variant_builds_and_is_well_posed(number, built):
    for numbers, by_number in built.values():
        problem = by_number[number]
        check_generic(number, numbers[number], problem)
        CHECKS[number](numbers[number], _answers(problem), problem)


def test_problem_16_sentences_read_as_english():
    """The sentences problem 16 draws from: lower-case words, every keep-meaning one a reordering or a synonym swap."""
    for ref, keep, other in variants._P16_SENTENCES:
        for sentence in (ref, *keep, *other):
            assert re.fullmatch(r"[a-z]+( [a-z]+)+", sentence), sentence
        for k in keep:
            words, ref_words = k.split(), ref.split()
            # most of the reference's words survive, and at most two are new
            assert len(set(ref_words) - set(words)) <= 2 and len(set(words) - set(ref_words)) <= 2, k


# ------------------------------------------------------------------------------------------
# Variety
# ------------------------------------------------------------------------------------------
def test_at_least_a_thousand_distinct_variants_of_every_problem():
    """Counted over 1,300 ids (problem 16, with the fewest, over 5,000): every problem has >= 1,000."""
    seen = {n: set() for n in range(1, 17)}
    for i in range(1300):
        numbers = variants.numbers_for(f"count{i}")
        for n, v in numbers.items():
            seen[n].add(repr(v))             # the generators fill their dicts in a fixed order
    for i in range(1300, 5000):
        seen[16].add(repr(variants.variant_16(variants.rng_for(f"count{i}", 16))))
    counts = {n: len(s) for n, s in seen.items()}
    print("distinct variants:", counts)
    assert all(c >= 1000 for c in counts.values()), counts


# ------------------------------------------------------------------------------------------
# Wording
# ------------------------------------------------------------------------------------------
def _texts(problem):
    return [problem.statement, problem.practises, problem.remember, *problem.steps,
            *(q.question for q in problem.parts), *(q.solution for q in problem.parts),
            *(a.what for a in problem.answers)]


SIGN_TROUBLE = re.compile(r"\+\s*-|-\s*-(?!-\|)|\\cdot\s*-|\\times\s*-|\d\.?\d*e[+-]\d")


def test_wording_follows_the_numbers(built):
    for sid, (numbers, by_number) in built.items():
        for number, problem in by_number.items():
            for text in _texts(problem):
                text = re.sub(r"\|(---\|)+", "", text)                    # the Markdown table's rule
                assert not SIGN_TROUBLE.search(text), (sid, number, SIGN_TROUBLE.search(text), text)
        n12, p12 = numbers[12], by_number[12]
        heading = f"**(b) {number_word(n12['ahead']).capitalize()} steps.**"
        assert heading in p12.steps[1]
        if not 20 <= n12["ahead"] < 30:
            assert "Twenty" not in " ".join(_texts(p12))
        p1 = by_number[1]
        assert len(p1.parts) == len(numbers[1]["xs"]) == 3 and "three times over" in p1.practises
        assert "of the four words" in by_number[4].parts[0].question
        kept, ref = numbers[16]["candidates"][numbers[16]["keeps_meaning"]].split(), numbers[16]["reference"].split()
        shared = [w for w in kept if w in ref]
        same_order = shared == [w for w in ref if w in shared]
        said = "in other words" if same_order else "in another order"
        assert f"says what the reference says, {said}" in by_number[16].steps[-1]
        assert same_order <= bool(set(kept) - set(ref))          # in the same order, a word was swapped


def test_generalised_wording_with_other_counts():
    """Numbers a teacher might set, beyond what the generators draw: the text counts with them."""
    n = variants.numbers_for(None)
    n[1]["xs"] = [1.0, -1.0, 0.5, 2.0]
    p = problems.build(1, n)
    assert [q.letter for q in p.parts] == list("abcd") and "fourth input" in p.parts[3].question
    assert "four times over" in p.practises and "$x_4=2$ in that order" in p.statement
    n[4] = dict(context="the chai is", words=["hot", "sweet", "cold"], logits=[1.0, 0.0, -1.0], truth="hot", other="cold")
    p = problems.build(4, n)
    assert "of the three words" in p.parts[0].question and p.answers[0].what == "three numbers"
    n[10]["g_long"], n[10]["g_short"] = [6.0, -8.0], [1.0, 2.0]
    assert problems.build(10, n).answers[0].what == "two numbers"
    n[12]["ahead"] = 25
    p = problems.build(12, n)
    assert p.steps[1].startswith("**(b) Twenty-five steps.**")
    n[5]["p_now"], n[5]["p_wanted"] = [0.2, 0.8], [0.4, 0.6]
    p = problems.build(5, n)
    assert p.parts[2].answers[0].expected == [0.0, 1.0] == _solved(p)["p_cold"]
    n[15] = dict(first={"the": 0.5, "my": 0.3, "our": 0.2},
                 second={"the": {"tea": 0.4, "cup": 0.3, "chai": 0.3}, "my": {"chai": 0.9, "tea": 0.1},
                         "our": {"train": 0.6, "tea": 0.4}}, beam_width=2)
    p = problems.build(15, n)
    assert "The 2 first words kept are “the” and “my”" in p.steps[1] and p.steps[1].count("$") == 10  # five outputs
    assert (_solved(p)["beam_words"], p.answers[2].expected) == ("my chai", "my chai")
    n[16] = dict(reference="we drink chai every morning",
                 candidates={"A": "we drink chai every evening", "B": "we have chai every morning", "C": "we drink chai"},
                 keeps_meaning="B")
    p = problems.build(16, n)
    assert "Only B says what the reference says, in other words (reading “have” as “drink”)" in p.steps[-1]
    assert "Take “have” to mean “drink”, as `same_meaning` says." in p.parts[3].question
    assert _solved(p)["keeps_meaning"] == "B"


def _solved(problem) -> dict:
    """The variables a problem's given cell and worked solutions set, run here one after another."""
    import contextlib
    import io

    namespace = {"np": np}
    exec(problem.given, namespace)
    with contextlib.redirect_stdout(io.StringIO()):
        for part in problem.parts:
            exec(part.solution, namespace)
    return namespace


def test_the_website_numbers_keep_their_wording():
    by_number = {p.number: p for p in problems.build_all()[0]}
    assert by_number[12].steps[1].startswith("**(b) Twenty steps.**")
    assert by_number[1].practises == "one step of the one-number cell, three times over"
    assert "It reads the inputs $x_1=1$, $x_2=-1$, $x_3=0.5$ in that order" in by_number[1].statement
    assert "The probabilities of the four words" in by_number[4].parts[0].question
    assert "Only A says what the reference says, in another order (reading “each” as “every”)" in by_number[16].steps[-1]
    assert "same_meaning = {'each': 'every'}" in by_number[16].given
    assert "with the factors rounded to two decimals the answers hardly move" in by_number[12].steps[1]
    assert r"\sqrt{0.8\cdot 0.5}" in by_number[16].steps[1]
