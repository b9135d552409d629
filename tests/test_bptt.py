"""Chapter 6: backprop through time, full and truncated, and the gradient check."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mwm.bptt import (chunk_count, chunk_of, gradient_check, last_state_loss, numerical_gradient, relative_error,
                      rnn_backward, rnn_bptt, rnn_step_backward, scalar_bptt, step_factors, taught_positions)
from mwm.cell import rnn_forward, rnn_step, scalar_rnn
from mwm.readout import readout, readout_gradient, sequence_loss

#: The step machine of chapter 6: chapter 2's cell (w = 0.5, u = 1, b = 0, h0 = 0) reads x = (1, 0, 0, 0),
#: and the loss sits on word 4 only: L = 1/2 (h_4 - 1)^2.
STEP_X, STEP_W, STEP_U, STEP_TARGET = [1.0, 0.0, 0.0, 0.0], 0.5, 1.0, 1.0


def step_machine(k=None):
    hs = scalar_rnn(STEP_X, STEP_W, STEP_U)
    loss, dL_dh = last_state_loss(hs, STEP_TARGET)
    return hs, loss, scalar_bptt(STEP_X, hs, dL_dh, STEP_W, STEP_U, tau=k)


# --------------------------------------------------------------------------- chapter 6's numbers

def test_worked_example_factors_0_4838_0_4340_product_0_2100():
    hs = scalar_rnn([1, 0, 0], w=0.5, u=1)
    f = step_factors(hs, 0.5)
    assert round(f[2], 4) == 0.4838   # dh3/dh2 = 0.5 (1 - 0.1797^2)
    assert round(f[1], 4) == 0.4340   # dh2/dh1 = 0.5 (1 - 0.3634^2)
    assert round(f[1] * f[2], 4) == 0.2100
    assert f[1] * f[2] == pytest.approx(0.5 * (1 - hs[2] ** 2) * 0.5 * (1 - hs[1] ** 2))
    # the same number from the blame: a unit of blame on h3 reaches h1 as dh3/dh1
    g = scalar_bptt([1, 0, 0], hs, [0, 0, 1], 0.5, 1)
    assert g.dh[0] == pytest.approx(f[1] * f[2], rel=1e-12)
    assert g.dh[1] == pytest.approx(f[2], rel=1e-12)


def test_step_machine_votes_and_sum():
    hs, loss, g = step_machine()
    np.testing.assert_allclose(hs, [0.7616, 0.3634, 0.1797, 0.0896], atol=5e-5)
    assert loss == pytest.approx(0.5 * (hs[-1] - 1) ** 2)
    assert round(loss, 4) == 0.4144
    assert [round(v, 4) for v in g.dw_steps] == [0.0, -0.1444, -0.1588, -0.1623]
    assert str(round(g.dw_steps[0], 4)) == "0.0"          # word 1 votes 0 because h0 = 0, printed without a sign
    assert round(g.dw, 4) == -0.4655
    assert g.dw == pytest.approx(g.dw_steps.sum(), abs=0)
    assert round(g.dh[-1], 4) == -0.9104               # dL/dh4 = h4 - 1


def test_step_machine_cut_after_two_steps_keeps_two_votes():
    _, _, full = step_machine()
    _, _, cut = step_machine(k=2)
    assert [round(v, 4) for v in cut.dw_steps] == [0.0, 0.0, -0.1588, -0.1623]
    assert round(cut.dw, 4) == -0.3211
    assert cut.dw == pytest.approx(full.dw_steps[2] + full.dw_steps[3], rel=1e-14)
    # k = 3: chunks are words 1-3 and word 4, so only word 4 votes
    _, _, k3 = step_machine(k=3)
    assert np.count_nonzero(k3.dw_steps) == 1 and k3.dw == pytest.approx(full.dw_steps[3], rel=1e-14)
    # k = 4 (one chunk) is full BPTT
    _, _, k4 = step_machine(k=4)
    assert k4.dw == full.dw


def test_step_machine_found_by_search_is_unique_among_natural_setups():
    # The setup above is the one the chapter states; a different target or w breaks the numbers.
    for w, target in ((0.5, 0.9), (0.6, 1.0), (1.0, 1.0)):
        hs = scalar_rnn(STEP_X, w, 1.0)
        _, d = last_state_loss(hs, target)
        assert round(scalar_bptt(STEP_X, hs, d, w, 1.0).dw, 4) != -0.4655


def test_factor_one_half_over_four_steps_is_0_0625():
    hs = np.full(4, 0.0)                     # slopes 1, so each factor is exactly w = 0.5
    g = scalar_bptt(np.zeros(5), np.zeros(5), [0, 0, 0, 0, 1], 0.5, 1)
    assert np.prod(step_factors(hs, 0.5)) == 0.0625 == g.dh[0]


def test_chunks_1000_words_k_20():
    assert chunk_count(1000, 20) == 50
    assert chunk_of(45, 20) == (3, 41, 60)
    assert chunk_of(5, 20) == (1, 1, 20)
    assert chunk_count(1001, 20) == 51 and chunk_count(20, 20) == 1
    assert chunk_of(20, 20) == (1, 1, 20) and chunk_of(21, 20) == (2, 21, 40)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5000), st.integers(1, 200))
def test_chunks_cover_the_text_and_reach_at_most_k_minus_1(n, k):
    m = chunk_count(n, k)
    assert (m - 1) * k < n <= m * k
    for t in {1, n, (n + 1) // 2}:
        c, first, last = chunk_of(t, k)
        assert first <= t <= last and last - first == k - 1 and 0 <= t - first <= k - 1


def test_a_15_word_link_is_taught_at_5_of_20_positions():
    # chapter 6, after the truncation table: fixed chunks teach a g-word link at tau - g of every tau positions
    assert taught_positions(15, 20) == [16, 17, 18, 19, 20]
    assert len(taught_positions(15, 30)) == 15 and len(taught_positions(15, 60)) == 45
    assert [len(taught_positions(15, tau)) / tau for tau in (20, 30, 60)] == [0.25, 0.5, 0.75]
    assert taught_positions(20, 20) == [] and taught_positions(25, 20) == []
    with pytest.raises(ValueError, match="gap"):
        taught_positions(0, 20)
    with pytest.raises(ValueError, match="tau"):
        taught_positions(3, 0)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12))
def test_taught_positions_are_where_truncated_bptt_delivers_gradient(gap, k):
    # w = 1 and zero input keep every note at 0, where the tanh slope is 1: any blame that
    # is not cut arrives whole. Put blame on word t alone and see whether word t - gap gets it.
    T = 3 * k + gap
    xs = np.zeros(T)
    hs = scalar_rnn(xs, 1.0, 1.0)
    taught = []
    for t in range(gap + 1, T + 1):
        dL = np.zeros(T); dL[t - 1] = 1.0
        if scalar_bptt(xs, hs, dL, 1.0, 1.0, tau=k).dh[t - gap - 1] != 0:
            taught.append(t)
    positions = taught_positions(gap, k)
    assert len(positions) == max(k - gap, 0)
    assert sorted({(t - 1) % k + 1 for t in taught}) == positions
    # in any stretch of k consecutive effect positions away from the start, k - gap are taught
    assert sum(1 for t in taught if k + gap < t <= 2 * k + gap) == len(positions)


def test_word_5_cannot_teach_word_45_with_k_20():
    # chapter 6's trap: w = 1, word 5 the only real word, blame placed on word 45
    T, k = 45, 20
    xs = np.zeros(T); xs[4] = 1.0
    hs = scalar_rnn(xs, 1.0, 1.0)
    dL = np.zeros(T); dL[44] = 1.0
    g = scalar_bptt(xs, hs, dL, 1.0, 1.0, tau=k)
    # the blame from word 45 stops at word 41; word 5 gets none of it
    assert np.all(g.dh[:40] == 0) and np.all(g.dh[40:] != 0)
    full = scalar_bptt(xs, hs, dL, 1.0, 1.0)
    assert round(full.dh[4], 4) == 0.0139 and g.dh[4] == 0.0
    # yet the note at word 45 still feels word 5: flip word 5 and h45 flips
    xs2 = xs.copy(); xs2[4] = -1.0
    assert round(hs[44], 4) == 0.1867 and round(scalar_rnn(xs2, 1.0, 1.0)[44], 4) == -0.1867


def test_chapter_6_step_machine_table_and_nudge():
    hs, _, g = step_machine()
    slope = 1 - hs ** 2
    assert [round(v, 4) for v in g.dh[::-1]] == [-0.9104, -0.4515, -0.2185, -0.0948]
    assert [round(v, 4) for v in slope[::-1]] == [0.9920, 0.9677, 0.8679, 0.4200]
    assert [round(v, 4) for v in g.da[::-1]] == [-0.9031, -0.4369, -0.1896, -0.0398]
    np.testing.assert_allclose(g.da, g.dh * slope, rtol=1e-15)
    assert g.dh[2] == pytest.approx(g.da[3] * STEP_W, rel=1e-15)   # the blame passed back, times w
    # a nudge of 0.001 to h1 moves h3 by about 0.21 of it
    hs3 = scalar_rnn([1, 0, 0], 0.5, 1)
    moved = scalar_rnn([0, 0], 0.5, 1, h0=hs3[0] + 0.001)[-1] - hs3[2]
    assert round(moved, 7) == 0.0002099


# --------------------------------------------------------------------------- lib against itself

def test_scalar_and_vector_bptt_agree():
    rng = np.random.default_rng(3)
    xs = rng.normal(size=9)
    hs = scalar_rnn(xs, 0.8, -0.7, 0.1, 0.3)
    dL = rng.normal(size=9)
    for k in (None, 1, 2, 4, 9):
        s = scalar_bptt(xs, hs, dL, 0.8, -0.7, 0.1, 0.3, tau=k)
        v = rnn_bptt(xs[:, None], hs[:, None], dL[:, None], dict(W=[[0.8]], U=[[-0.7]], b=[0.1]), h0=[0.3], tau=k)
        assert v.dW[0, 0] == pytest.approx(s.dw, rel=1e-13)
        assert v.dU[0, 0] == pytest.approx(s.du, rel=1e-13)
        assert v.db[0] == pytest.approx(s.db, rel=1e-13)
        np.testing.assert_allclose(v.dh[:, 0], s.dh, rtol=1e-13)
        np.testing.assert_allclose(v.dW_steps[:, 0, 0], s.dw_steps, rtol=1e-13, atol=1e-300)
        assert v.dh0[0] == pytest.approx(s.dh0, rel=1e-13)


def test_bptt_equals_rnn_step_backward_walked_by_hand():
    rng = np.random.default_rng(4)
    W, U, b = rng.normal(0, 0.5, (5, 5)), rng.normal(size=(5, 3)), rng.normal(size=5)
    xs, h0 = rng.normal(size=(6, 2, 3)), rng.normal(size=(2, 5)) * 0.5
    caches, h = [], h0
    for x in xs:
        h, cache = rnn_step(h, x, dict(W=W, U=U, b=b))
        caches.append(cache)
    hs = np.array([c["h"] for c in caches])
    dL = rng.normal(size=hs.shape)
    grads = rnn_bptt(xs, hs, dL, dict(W=W, U=U, b=b), h0=h0)
    dW, dU, db, carry, dxs = 0, 0, 0, np.zeros((2, 5)), np.zeros_like(xs)
    for t in reversed(range(6)):
        votes, carry, dxs[t] = rnn_step_backward(dL[t] + carry, caches[t], dict(W=W, U=U, b=b))
        assert set(votes) == {"W", "U", "b"}
        np.testing.assert_allclose(votes["W"], grads.dW_steps[t], atol=1e-13)
        dW, dU, db = dW + votes["W"], dU + votes["U"], db + votes["b"]
    np.testing.assert_allclose(grads.dW, dW, atol=1e-12)
    np.testing.assert_allclose(grads.dU, dU, atol=1e-12)
    np.testing.assert_allclose(grads.db, db, atol=1e-12)
    np.testing.assert_allclose(grads.dh0, carry, atol=1e-13)
    np.testing.assert_allclose(grads.da @ U, dxs, atol=1e-13)   # the blame on the inputs: U^T dz_t
    # rnn_backward, the contract the three cells share, walks the same way over rnn_forward's caches
    hs_f, caches_f = rnn_forward(xs, dict(W=W, U=U, b=b), h0=h0)
    np.testing.assert_allclose(hs_f, hs, atol=1e-15)
    g, dh0, dxs_f = rnn_backward(dL, caches_f, dict(W=W, U=U, b=b))
    np.testing.assert_allclose(g["W"], grads.dW, atol=1e-12)
    np.testing.assert_allclose(g["U"], grads.dU, atol=1e-12)
    np.testing.assert_allclose(g["b"], grads.db, atol=1e-12)
    np.testing.assert_allclose(dh0, grads.dh0, atol=1e-13)
    np.testing.assert_allclose(dxs_f, dxs, atol=1e-13)
    np.testing.assert_allclose(grads.dW_steps.sum(0), grads.dW, atol=1e-12)


def test_batch_equals_one_sequence_at_a_time():
    rng = np.random.default_rng(5)
    W, U, b = rng.normal(0, 0.4, (4, 4)), rng.normal(size=(4, 2)), rng.normal(size=4)
    xs, dL = rng.normal(size=(7, 3, 2)), rng.normal(size=(7, 3, 4))
    hs = rnn_forward(xs, dict(W=W, U=U, b=b))[0]
    for k in (None, 3):
        g = rnn_bptt(xs, hs, dL, dict(W=W, U=U, b=b), tau=k)
        parts = [rnn_bptt(xs[:, i], hs[:, i], dL[:, i], dict(W=W, U=U, b=b), tau=k) for i in range(3)]
        np.testing.assert_allclose(g.dW, sum(p.dW for p in parts), atol=1e-12)
        np.testing.assert_allclose(g.dU, sum(p.dU for p in parts), atol=1e-12)
        np.testing.assert_allclose(g.db, sum(p.db for p in parts), atol=1e-12)
        for i, p in enumerate(parts):
            np.testing.assert_allclose(g.dh[:, i], p.dh, atol=1e-13)
            np.testing.assert_allclose(g.dh0[i], p.dh0, atol=1e-13)


def test_jacobian_is_diag_slope_times_W():
    rng = np.random.default_rng(6)
    W, U, b = rng.normal(0, 0.6, (3, 3)), rng.normal(size=(3, 2)), rng.normal(size=3)
    h_prev, x = np.tanh(rng.normal(size=3)), rng.normal(size=2)
    h, _ = rnn_step(h_prev, x, dict(W=W, U=U, b=b))
    J = np.diag(1 - h ** 2) @ W
    eps = 1e-6
    numeric = np.column_stack([(rnn_step(h_prev + eps * e, x, dict(W=W, U=U, b=b))[0] - rnn_step(h_prev - eps * e, x, dict(W=W, U=U, b=b))[0])
                               / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(numeric, J, atol=1e-9)
    # blame moves back with the transpose: W^T diag(1 - h^2) dL/dh
    g = rng.normal(size=3)
    _, back, _ = rnn_step_backward(g, {"h_prev": h_prev, "x": x, "h": h}, dict(W=W, U=U, b=b))
    np.testing.assert_allclose(back, J.T @ g, atol=1e-14)


def _readout_problem(seed, T=8, B=None, h=5, d=3, k_out=4):
    rng = np.random.default_rng(seed)
    P = {"W": rng.normal(0, 0.5, (h, h)), "U": rng.normal(0, 0.7, (h, d)), "b": rng.normal(0, 0.2, h)}
    shape = (T, d) if B is None else (T, B, d)
    xs = rng.normal(size=shape)
    V, c = rng.normal(size=(k_out, h)), rng.normal(size=k_out)
    targets = rng.integers(0, k_out, size=shape[:-1]).reshape(-1)

    def loss():
        hs = rnn_forward(xs, P)[0]
        return sequence_loss(readout(hs, V, c).reshape(-1, k_out), targets)

    hs = rnn_forward(xs, P)[0]
    probs = readout(hs, V, c)
    dL_dh = (readout_gradient(probs.reshape(-1, k_out), targets) @ V).reshape(hs.shape)
    return P, xs, hs, dL_dh, loss


@pytest.mark.parametrize("seed,B", [(0, None), (1, 3), (2, None)])
def test_gradient_check_passes_for_a_readout_loss(seed, B):
    P, xs, hs, dL_dh, loss = _readout_problem(seed, B=B)
    g = rnn_bptt(xs, hs, dL_dh, P)
    errors = gradient_check(loss, P, {"W": g.dW, "U": g.dU, "b": g.db})
    assert set(errors) == {"W", "U", "b"}
    assert max(errors.values()) < 1e-6, errors



def test_gradient_check_catches_a_wrong_gradient():
    P, xs, hs, dL_dh, loss = _readout_problem(0)
    g = rnn_bptt(xs, hs, dL_dh, P)
    # forgetting Rule A's tanh slope, or dropping the votes of all but the last step, is caught
    wrong = rnn_bptt(xs, hs, dL_dh, P, tau=1)
    errors = gradient_check(loss, P, {"W": wrong.dW, "U": wrong.dU, "b": wrong.db})
    assert min(errors.values()) > 1e-2
    errors = gradient_check(loss, {"W": P["W"]}, {"W": g.dW * 1.001})
    assert errors["W"] > 1e-4


def test_numerical_gradient_of_a_known_function():
    x = np.array([[1.0, -2.0], [0.5, 3.0]])
    grad = numerical_gradient(lambda: float(np.sum(x ** 3)), x)
    np.testing.assert_allclose(grad, 3 * x ** 2, rtol=1e-9)
    assert np.array_equal(x, [[1.0, -2.0], [0.5, 3.0]])   # restored after nudging


def test_relative_error():
    assert relative_error([1.0, 2.0], [1.0, 2.0]) == 0.0
    assert relative_error([1.0], [1.1]) == pytest.approx(0.1 / 1.1)
    assert relative_error([0.0], [0.0]) == 0.0


# --------------------------------------------------------------------------- truncation, properties

@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 15), st.integers(0, 10_000))
def test_truncation_properties(T, k, seed):
    rng = np.random.default_rng(seed)
    xs, dL = rng.normal(size=T), rng.normal(size=T)
    w, u = rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5)
    hs = scalar_rnn(xs, w, u)
    full, cut = scalar_bptt(xs, hs, dL, w, u), scalar_bptt(xs, hs, dL, w, u, tau=k)
    if k >= T:
        assert cut.dw == full.dw and np.array_equal(cut.dh, full.dh)
    # a word's total blame only gathers losses from its own chunk, up to its chunk's last word
    for t in range(T):
        _, _, last = chunk_of(t + 1, k)
        within = dL.copy(); within[min(last, T):] = 0.0
        g = scalar_bptt(xs, hs, within, w, u)
        assert cut.dh[t] == pytest.approx(g.dh[t], rel=1e-12, abs=1e-300)
    # the last word of each chunk gets only its own loss's blame
    for t in range(k - 1, T, k):
        assert cut.dh[t] == dL[t]


def test_bptt_of_a_zero_loss_is_zero():
    hs = scalar_rnn([1, 2, 3], 0.5, 1)
    g = scalar_bptt([1, 2, 3], hs, np.zeros(3), 0.5, 1)
    assert g.dw == g.du == g.db == g.dh0 == 0.0


# --------------------------------------------------------------------------- bad input

def _bad_input_raises_value_errors_naming_the_argument_cases():
    """One bad input per case: (function, args, kwargs, error, message naming the argument)."""
    cases = []
    hs = scalar_rnn([1, 0], 0.5, 1)
    cases += [
        pytest.param(scalar_bptt, ([1, 0], hs[:1], [0, 1], 0.5, 1), {}, ValueError, 'hs must have shape', id='scalar-bptt-hs-must-have-shape'),
        pytest.param(scalar_bptt, ([1, 0], hs, [0, 1, 2], 0.5, 1), {}, ValueError, 'dL_dh must have shape', id='scalar-bptt-dL-dh-must-have-shape'),
        pytest.param(scalar_bptt, ([1, 0], [0.5, 1.5], [0, 1], 0.5, 1), {}, ValueError, 'hs must be hidden states', id='scalar-bptt-hs-must-be-hidden-states'),
        pytest.param(scalar_bptt, ([1, 0], hs, [0, 1], 0.5, 1), {'tau': 0}, ValueError, 'tau must be at least 1', id='scalar-bptt-tau-must-be-at-least-1'),
        pytest.param(scalar_bptt, ([1, 0], hs, [0, 1], 0.5, 1), {'tau': 2.0}, ValueError, 'tau must be a whole number', id='scalar-bptt-tau-must-be-a-whole-number'),
        pytest.param(scalar_bptt, ([1, 0], hs, [0, 1], [0.5, 1], 1), {}, ValueError, 'w must be', id='scalar-bptt-w-must-be'),
        pytest.param(scalar_bptt, ([], [], [], 0.5, 1), {}, ValueError, 'xs must contain at least one step', id='scalar-bptt-xs-must-contain-at-least-one-step'),
    ]
    W, U, b = np.eye(3) * 0.5, np.ones((3, 2)), np.zeros(3)
    xs = np.ones((4, 2))
    weights = dict(W=W, U=U, b=b)
    hs, caches = rnn_forward(xs, weights)
    cache0 = {"h_prev": np.zeros(3), "x": np.ones(2), "h": hs[0]}
    cases += [
        pytest.param(rnn_bptt, (xs, hs[:, :2], hs, weights), {}, ValueError, 'hs must have shape', id='rnn-bptt-hs-must-have-shape'),
        pytest.param(rnn_bptt, (xs, hs, hs[:3], weights), {}, ValueError, 'dL_dh must have shape', id='rnn-bptt-dL-dh-must-have-shape'),
        pytest.param(rnn_bptt, (np.ones((4, 5)), hs, hs, weights), {}, ValueError, 'xs must have shape', id='rnn-bptt-xs-must-have-shape'),
        pytest.param(rnn_bptt, (xs, hs, hs, weights), {'h0': np.zeros((2, 3))}, ValueError, 'h0 must have shape', id='rnn-bptt-h0-must-have-shape'),
        pytest.param(rnn_bptt, (xs, hs, hs, dict(W=np.ones((3, 2)), U=U, b=b)), {}, ValueError, 'W must have shape', id='rnn-bptt-W-must-have-shape'),
        pytest.param(rnn_bptt, (xs, hs, hs, weights), {'tau': -3}, ValueError, 'tau must be at least 1', id='rnn-bptt-tau-must-be-at-least-1'),
        pytest.param(rnn_step_backward, (np.ones(2), cache0, weights), {}, ValueError, 'dh must have shape', id='rnn-step-backward-dh-must-have-shape'),
        pytest.param(rnn_step_backward, (np.ones(3), {"h_prev": np.zeros(2), "x": np.ones(2), "h": hs[0]}, weights), {}, ValueError, "h_prev'\\] must have shape", id='rnn-step-backward-h-prev-must-have-shape'),
        pytest.param(rnn_step_backward, (np.ones((2, 3)), {"h_prev": np.zeros((2, 3)), "x": np.ones((3, 2)), "h": np.zeros((2, 3))}, weights), {}, ValueError, "x'\\] must have the batch shape", id='rnn-step-backward-x-must-have-the-batch-shape'),
        pytest.param(rnn_step_backward, (np.ones(3), (np.zeros(3), np.ones(2), hs[0]), weights), {}, ValueError, 'cache must be a cache of rnn_step', id='rnn-step-backward-cache-must-be-a-cache-of-rnn-step'),
        pytest.param(rnn_step_backward, (np.ones(3), cache0, {"W": W}), {}, ValueError, 'weights is missing', id='rnn-step-backward-weights-is-missing'),
        pytest.param(rnn_backward, (hs[:3], caches, weights), {}, ValueError, 'dhs must have shape', id='rnn-backward-dhs-must-have-shape'),
        pytest.param(rnn_backward, (hs, [], weights), {}, ValueError, 'caches must be the non-empty list', id='rnn-backward-caches-must-be-the-non-empty-list'),
        pytest.param(last_state_loss, (hs, [1.0, 2.0]), {}, ValueError, 'target must fit', id='last-state-loss-target-must-fit'),
        pytest.param(chunk_count, (0, 20), {}, ValueError, 'n_words must be at least 1', id='chunk-count-n-words-must-be-at-least-1'),
        pytest.param(chunk_of, (45, 2.5), {}, ValueError, 'tau must be a whole number', id='chunk-of-tau-must-be-a-whole-number'),
        pytest.param(numerical_gradient, (lambda: 0.0, np.zeros(2)), {'eps': 0}, ValueError, 'eps must be positive', id='numerical-gradient-eps-must-be-positive'),
        pytest.param(numerical_gradient, (lambda: 0.0, [0.0, 1.0]), {}, ValueError, 'x must be a float64', id='numerical-gradient-x-must-be-a-float64'),
        pytest.param(gradient_check, (lambda: 0.0, {'U': np.zeros(2)}, {'W': np.zeros(2)}), {}, ValueError, "grads must have an entry for 'U'", id='gradient-check-grads-must-have-an-entry-for-U'),
        pytest.param(relative_error, ([1.0], [1.0, 2.0]), {}, ValueError, 'first and second must have the same shape', id='relative-error-first-and-second-must-have-the-same-shape'),
    ]
    return cases


@pytest.mark.parametrize("call, args, kwargs, error, match", _bad_input_raises_value_errors_naming_the_argument_cases())
def test_bad_input_raises_value_errors_naming_the_argument(call, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(*args, **kwargs)
