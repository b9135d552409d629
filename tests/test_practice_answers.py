"""The practice problems' answer key is right for any numbers, not just the website's.

For the website's numbers (``problems.NUMBERS``) and for a sample of students' own numbers
(``variants.numbers_for``), every answer of every problem is computed here again, from the
numbers alone, with plain numpy and math written out in this file (no ``mwm``), and compared
with the answer the builder computes with ``mwm``. A function answer (problems 7 and 8) is
checked on each of its cases. Each problem's expected answers must name exactly the answers the
builder asks for, so a new answer without a check here fails.

The website's numbers are also pinned to the values the problems' text prints.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from mwm_grader import problems, variants

IDS = [None] + [f"student{i:04d}" for i in range(80)] + ["ünïcødé", "学生", "O'Brien"]


def _tanh_loop(xs, w, u, b, h0):
    hs, h = [], h0
    for x in xs:
        h = math.tanh(w * h + u * x + b)
        hs.append(h)
    return hs


def _sigmoid(a):
    return 1 / (1 + math.exp(-a))


# ------------------------------------------------------------------------------------------
# Each problem's answers, from its numbers alone: name -> value (functions: name -> callable)
# ------------------------------------------------------------------------------------------
def expect_1(n):
    hs = _tanh_loop(n["xs"], n["w"], n["u"], n["b"], n["h0"])
    return {f"h{t + 1}": h for t, h in enumerate(hs)}


def expect_2(n):
    W, U, b = np.array(n["W"], float), np.array(n["U"], float)[:, 0], np.array(n["b"], float)
    h, out = np.array(n["h0"], float), {}
    for t, x in enumerate(n["xs"]):
        h = np.tanh(W @ h + U * x + b)
        out[f"h{t + 1}"] = h.tolist()
    return out


def expect_3(n):
    H, d, K = n["hidden"], n["inputs"], n["tags"]
    plain = H * H + H * d + H
    return dict(plain=plain, two_way=2 * plain, two_layers=plain + (H * H + H * H + H), lstm=4 * plain,
                gru=3 * plain, tagger=2 * 4 * plain + K * 2 * H + K)


def expect_4(n):
    y = np.array(n["logits"], float)
    p = np.exp(y) / np.exp(y).sum()
    t, o = n["words"].index(n["truth"]), n["words"].index(n["other"])
    grad = p.copy()
    grad[t] -= 1
    return dict(probs=p.tolist(), loss_true=-math.log(p[t]), loss_other=-math.log(p[o]), grad_logits=grad.tolist())


def expect_5(n):
    (y1, y2), (a, b), (c, d) = n["logits"], n["p_now"], n["p_wanted"]
    theta_new = math.log(a / b) / math.log(c / d)
    return dict(p_first=[_sigmoid((y1 - y2) / th) for th in n["temperatures"]], theta_new=theta_new,
                p_cold=[1.0, 0.0] if a > b else [0.0, 1.0])


def expect_6(n):
    w, u = n["w"], n["u"]
    hs = _tanh_loop(n["xs"], w, u, n["b"], n["h0"])
    d32, d21 = w * (1 - hs[2] ** 2), w * (1 - hs[1] ** 2)
    return dict(hs=hs, dh3_dh2=d32, dh2_dh1=d21, dh3_dh1=d32 * d21, dh3_dx1=d32 * d21 * u * (1 - hs[0] ** 2))


def expect_7(n):
    T, tau, t = n["length"], n["tau"], n["grad_from"]
    chunk = lambda i: math.ceil(i / tau)  # noqa: E731
    return dict(n_chunks=lambda TT, tt: math.ceil(TT / tt), chunks=math.ceil(T / tau),
                reaches_back_to=(chunk(t) - 1) * tau + 1,
                learn_pair_1=chunk(n["pair_across"][0]) == chunk(n["pair_across"][1]),
                learn_pair_2=chunk(n["pair_inside"][0]) == chunk(n["pair_inside"][1]),
                full_steps=T - 1, truncated_steps=min(tau, T) - 1)


def _first_power_past(f, bound, below=True):
    """The first whole T >= 1 with f^T < bound (below) or f^T > bound, multiplying step by step."""
    T, power = 1, f
    while (power >= bound) if below else (power <= bound):
        T, power = T + 1, power * f
    return T


def expect_8(n):
    return dict(first_below=lambda w, eps: _first_power_past(w, eps),
                T_fade=_first_power_past(n["w_fade"], n["eps"]),
                T_explode=_first_power_past(n["w_grow"], n["big"], below=False))


def _eigen(M):
    """Eigenvalues of a 2x2 matrix (real here) by the quadratic formula, largest first, and directions (1, y)."""
    tr, det = M[0][0] + M[1][1], M[0][0] * M[1][1] - M[0][1] * M[1][0]
    root = math.sqrt(tr * tr / 4 - det)
    values = sorted([tr / 2 + root, tr / 2 - root], key=abs, reverse=True)
    # (M - l I)(1, y) = 0: first row gives (M00 - l) + M01 y = 0
    dirs = [[1.0, (l - M[0][0]) / M[0][1]] for l in values]
    return values, dirs


def expect_9(n):
    out, v = {}, np.array(n["v"], float)
    for name in "AB":
        M = n[name]
        values, dirs = _eigen(M)
        out[f"eig_{name}"], out[f"dirs_{name}"] = values, dirs
        out[f"memory_{name}"] = "fades" if max(map(abs, values)) < 1 else "explodes"
        x = v.copy()
        for _ in range(n["steps"]):
            x = np.array(M, float) @ x
        out[f"{name}_T_v"] = x.tolist()
    return out


def expect_10(n):
    gamma = n["limit"]

    def clip(g):
        g = np.array(g, float)
        length = math.sqrt(float((g * g).sum()))
        return (g * gamma / length if length > gamma else g).tolist()

    long = clip(n["g_long"])
    return dict(clipped_long=long, change=[-n["lr"] * x for x in long], clipped_short=clip(n["g_short"]))


def expect_11(n):
    f, i, o = _sigmoid(n["forget"]), _sigmoid(n["input"]), _sigmoid(n["output"])
    c_tilde = math.tanh(n["candidate"])
    c = f * n["c_prev"] + i * c_tilde
    return dict(f_t=f, i_t=i, o_t=o, c_tilde=c_tilde, c_t=c, h_t=o * math.tanh(c))


def expect_12(n):
    runs = n["runs"]
    factor = {k: (v[-1] / v[0]) ** (1 / (len(v) - 1)) for k, v in runs.items()}
    lstm = min(factor, key=lambda k: abs(math.log(factor[k])))
    small, big = sorted((k for k in factor if k != lstm), key=factor.get)
    out = {f"factor_{k}": f for k, f in factor.items()}
    out |= {f"far_{k}": f ** n["ahead"] for k, f in factor.items()}
    out |= dict(lstm_run=lstm, small_run=small, big_run=big, fix_small="gates", fix_big="clipping",
                clip_scale=min(1.0, n["limit"] / runs[big][-1]), f_min=n["share"] ** (1 / n["far"]))
    return out


def expect_13(n):
    hp, x, wx, wo = n["h_prev"], n["x"], n["w_input"], n["w_old"]
    z, r = _sigmoid(n["a_z"]), _sigmoid(n["a_r"])
    cand, cand_open = math.tanh(wx * x + wo * r * hp), math.tanh(wx * x + wo * hp)
    return dict(z_t=z, r_t=r, h_tilde=cand, h_t=(1 - z) * hp + z * cand, h_tilde_open=cand_open,
                h_open=(1 - z) * hp + z * cand_open, candidate_was="higher" if cand > cand_open else "lower")


def expect_14(n):
    w, u, b, xs = n["w"], n["u"], n["b"], list(n["xs"])
    fwd = _tanh_loop(xs, w, u, b, 0.0)
    bwd = _tanh_loop(xs[::-1], w, u, b, 0.0)[::-1]
    moved = xs[:-1] + [xs[-1] + 1.0]
    halves = (_tanh_loop(moved, w, u, b, 0.0)[0] != fwd[0], _tanh_loop(moved[::-1], w, u, b, 0.0)[-1] != bwd[0])
    which = {(False, True): "backward", (True, False): "forward", (True, True): "both", (False, False): "neither"}
    return dict(fwd=fwd, bwd=bwd, word2=[fwd[1], bwd[1]], changes=which[halves])


def expect_15(n):
    first, second, k = n["first"], n["second"], n["beam_width"]
    outputs = {f"{a} {b}": first[a] * p for a in first for b, p in second[a].items()}
    g1 = max(first, key=first.get)
    g2 = max(second[g1], key=second[g1].get)
    kept = sorted(first, key=first.get, reverse=True)[:k]                 # the beam after the first word
    grown = {f"{a} {b}": first[a] * p for a in kept for b, p in second[a].items()}
    best = max(sorted(grown, key=grown.get, reverse=True)[:k], key=grown.get)
    return dict(greedy_words=f"{g1} {g2}", greedy_prob=outputs[f"{g1} {g2}"], beam_words=best,
                beam_prob=grown[best], greedy_log=math.log(outputs[f"{g1} {g2}"]), beam_log=math.log(grown[best]))


def _bleu2_parts(candidate, reference):
    c, r = candidate.split(), reference.split()
    precisions = []
    for order in (1, 2):
        pieces = [tuple(c[i:i + order]) for i in range(len(c) - order + 1)]
        ref = [tuple(r[i:i + order]) for i in range(len(r) - order + 1)]
        matched = sum(min(pieces.count(p), ref.count(p)) for p in set(pieces))   # clipped counts
        precisions.append(matched / len(pieces))
    bp = min(1.0, math.exp(1 - len(r) / len(c)))
    return precisions[0], precisions[1], bp, bp * math.sqrt(precisions[0] * precisions[1])


def expect_16(n):
    out, scores = {}, {}
    for k, cand in n["candidates"].items():
        pi1, pi2, bp, score = _bleu2_parts(cand, n["reference"])
        out |= {f"pi1_{k}": pi1, f"pi2_{k}": pi2, f"bp_{k}": bp, f"bleu_{k}": score}
        scores[k] = score
    out |= dict(keeps_meaning=n["keeps_meaning"], scores_highest=max(scores, key=scores.get),
                bleu_judges_meaning=False)
    return out


EXPECT = {i: globals()[f"expect_{i}"] for i in range(1, 17)}


def _same(name, got, want):
    if callable(want):
        raise AssertionError(f"{name}: a function answer compared as a value")
    if isinstance(want, (bool, str)) or isinstance(got, (bool, str)):
        assert got == want and type(got) is type(want), (name, got, want)
    elif isinstance(want, int) and not isinstance(want, bool):
        assert int(got) == got == want, (name, got, want)
    else:
        np.testing.assert_allclose(np.array(got, float), np.array(want, float), rtol=1e-9, atol=1e-12, err_msg=name)


def check_key(number, numbers):
    """Build problem ``number`` and compare every answer (and every case of a function) with EXPECT."""
    problem = problems.build(number, numbers)
    want = EXPECT[number](numbers[number])
    got = {a.name: a for a in problem.answers}
    assert set(got) == set(want), (number, sorted(set(got) ^ set(want)))
    for name, answer in got.items():
        if answer.kind == "function":
            assert callable(want[name]) and answer.cases, name
            for args, value in answer.cases:
                assert value == want[name](*args) and isinstance(value, int), (name, args, value)
        else:
            _same(name, answer.expected, want[name])
    return {name: a.expected for name, a in got.items()}


@pytest.fixture(scope="module")
def numbers_by_id():
    return {sid: variants.numbers_for(sid) for sid in IDS}


@pytest.mark.parametrize("number", range(1, 17))
def test_answer_key_is_right_for_every_students_numbers(number, numbers_by_id):
    for numbers in numbers_by_id.values():
        check_key(number, numbers)


def test_a_key_for_other_numbers_fails_the_check():
    """The comparison is not vacuous: each problem built from other numbers disagrees somewhere."""
    numbers, other = variants.numbers_for("student0001"), variants.numbers_for("student0002")
    for number in range(1, 17):
        want = EXPECT[number](numbers[number])
        wrong = 0
        for a in problems.build(number, other).answers:
            if a.kind != "function":
                try:
                    _same(a.name, a.expected, want[a.name])
                except AssertionError:
                    wrong += 1
        assert wrong, number


# ------------------------------------------------------------------------------------------
# The website's numbers, pinned to the values the problems' text prints
# ------------------------------------------------------------------------------------------
def _default(number):
    return check_key(number, problems.NUMBERS)


def test_default_problems_1_to_5():
    a = _default(1)
    np.testing.assert_allclose([a["h1"], a["h2"], a["h3"]], [0.7616, -0.3720, 0.1997], atol=5e-5)
    a = _default(2)
    np.testing.assert_allclose([a["h1"], a["h2"]], [[0.7616, 0], [0.3634, -0.7616]], atol=5e-5)
    a = _default(3)
    assert (a["plain"], a["two_way"], a["two_layers"], a["lstm"], a["gru"], a["tagger"]) == (
        6208, 12416, 14464, 24832, 18624, 51212)
    a = _default(4)
    np.testing.assert_allclose(a["probs"], [0.8310, 0.1125, 0.0414, 0.0152], atol=5e-5)
    assert (a["loss_true"], a["loss_other"]) == pytest.approx((2.185, 0.185), abs=5e-4)
    np.testing.assert_allclose(a["grad_logits"], [0.8310, -0.8875, 0.0414, 0.0152], atol=5e-5)
    a = _default(5)
    np.testing.assert_allclose(a["p_first"], [0.8808, 0.9820, 0.7311], atol=5e-5)
    assert a["theta_new"] == pytest.approx(3.419, abs=5e-4) and a["p_cold"] == [1.0, 0.0]


def test_default_problems_6_to_10():
    a = _default(6)
    np.testing.assert_allclose([*a["hs"], a["dh3_dh2"], a["dh2_dh1"], a["dh3_dh1"], a["dh3_dx1"]],
                               [0.7616, 0.5436, 0.4094, 0.6659, 0.5636, 0.3753, 0.1576], atol=5e-5)
    a = _default(7)
    assert (a["chunks"], a["reaches_back_to"], a["learn_pair_1"], a["learn_pair_2"], a["full_steps"],
            a["truncated_steps"]) == (50, 101, False, True, 2499, 49)
    a = _default(8)
    assert (a["T_fade"], a["T_explode"]) == (31, 38)
    a = _default(9)
    np.testing.assert_allclose([*a["eig_A"], *a["eig_B"]], [0.8, 0.4, 1.4, 0.8])
    np.testing.assert_allclose([a["dirs_A"], a["dirs_B"]], [[[1, 1], [1, -1]]] * 2)
    assert (a["memory_A"], a["memory_B"]) == ("fades", "explodes")
    np.testing.assert_allclose(a["A_T_v"], [0.05374, 0.05363], atol=5e-6)
    np.testing.assert_allclose(a["B_T_v"], [14.516, 14.409], atol=5e-4)
    a = _default(10)
    np.testing.assert_allclose([*a["clipped_long"], *a["change"], *a["clipped_short"]],
                               [2.4, -3.2, 0, -0.24, 0.32, 0, 1, 2, 2], atol=1e-12)


def test_default_problems_11_to_16():
    a = _default(11)
    np.testing.assert_allclose([a["f_t"], a["i_t"], a["o_t"], a["c_tilde"], a["c_t"], a["h_t"]],
                               [0.8808, 0.5, 0.7311, 0.7616, 2.1424, 0.7112], atol=5e-5)
    a = _default(12)
    assert [round(a[f"factor_{r}"], 2) for r in "ABC"] == [0.42, 2.10, 0.97]
    assert (a["lstm_run"], a["small_run"], a["big_run"]) == ("C", "A", "B")
    assert a["clip_scale"] == pytest.approx(0.1225, abs=5e-5) and a["f_min"] == pytest.approx(0.99309, abs=5e-6)
    a = _default(13)
    np.testing.assert_allclose([a["z_t"], a["r_t"], a["h_tilde"], a["h_t"], a["h_tilde_open"], a["h_open"]],
                               [0.7311, 0.2689, 0.9392, 0.5521, 0.7616, 0.4223], atol=5e-5)
    assert a["candidate_was"] == "higher"
    a = _default(14)
    np.testing.assert_allclose([*a["fwd"], *a["bwd"]], [0.7616, 0.3634, 0.5926, 0.8053, 0.2270, 0.4621], atol=5e-5)
    assert a["changes"] == "backward"
    a = _default(15)
    assert (a["greedy_words"], a["beam_words"]) == ("the cup", "my chai")
    assert (a["greedy_prob"], a["beam_prob"], a["greedy_log"], a["beam_log"]) == pytest.approx(
        (0.24, 0.32, -1.427, -1.139), abs=5e-4)
    a = _default(16)
    np.testing.assert_allclose([a[f"{q}_{k}"] for k in "ABC" for q in ("pi1", "pi2", "bp", "bleu")],
                               [0.8, 0.5, 1, 0.6325, 0.8, 0.75, 1, 0.7746, 1, 1, 0.5134, 0.5134], atol=5e-5)
    assert (a["keeps_meaning"], a["scores_highest"], a["bleu_judges_meaning"]) == ("A", "B", False)


def _central_differences(n):
    """Problem 6's four derivatives, by nudging a hidden state or the first input by 1e-6 either way."""
    w, u, b, h0, xs = n["w"], n["u"], n["b"], n["h0"], list(n["xs"])
    hs = _tanh_loop(xs, w, u, b, h0)
    eps = 1e-6

    def diff(f, x):
        return (f(x + eps) - f(x - eps)) / (2 * eps)

    return dict(dh3_dh2=diff(lambda h: _tanh_loop(xs[2:], w, u, b, h)[-1], hs[1]),
                dh2_dh1=diff(lambda h: _tanh_loop(xs[1:2], w, u, b, h)[-1], hs[0]),
                dh3_dh1=diff(lambda h: _tanh_loop(xs[1:], w, u, b, h)[-1], hs[0]),
                dh3_dx1=diff(lambda x: _tanh_loop([x, *xs[1:]], w, u, b, h0)[-1], xs[0]))


def test_problem_6_derivatives_by_central_differences():
    """An independent route to problem 6's gradient: nudge the hidden state or the input and watch h_3."""
    for sid in IDS[:20]:
        n = variants.numbers_for(sid)[6]
        a = check_key(6, {6: n})
        for name, value in _central_differences(n).items():
            assert a[name] == pytest.approx(value, abs=1e-7), (sid, name)


def test_problem_9_eigen_pairs_and_problem_5_temperature_really_work():
    """The key's eigen-pairs satisfy M d = l d, and its temperature turns p_now into p_wanted."""
    for sid in IDS[:30]:
        numbers = variants.numbers_for(sid)
        a = check_key(9, numbers)
        for name in "AB":
            M = np.array(numbers[9][name])
            for value, d in zip(a[f"eig_{name}"], a[f"dirs_{name}"]):
                np.testing.assert_allclose(M @ np.array(d), value * np.array(d), atol=1e-9)
        n, a = numbers[5], check_key(5, numbers)
        gap = math.log(n["p_now"][0] / n["p_now"][1])
        shares = np.exp(np.array([gap, 0.0]) / a["theta_new"])
        np.testing.assert_allclose(shares / shares.sum(), n["p_wanted"], atol=1e-12)
