"""Chapters 9-10: the LSTM and GRU cells in numpy, their BPTT and the chapters' numbers.

Backward passes are checked against float64 central differences of the forward pass.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mwm.gru import (GRU_KEYS, blend, gru_backward, gru_candidate, gru_forward, gru_step, gru_step_backward,
                     gru_weights_from_torch, gru_weights_to_torch, init_gru, reset_placement_gap)
from mwm.gates import sigmoid
from mwm.lstm import (LSTM_KEYS, LSTMState, init_lstm, lane_keep, lstm_backward, lstm_forward, lstm_step,
                      lstm_step_backward, lstm_weights_from_stacked, lstm_weights_to_stacked)
from mwm.params import cell_param_count
from mwm.bptt import numerical_gradient as bptt_numerical_gradient

EPS = 1e-6


def _random(keys_init, h, d, seed):
    """Weights with random shifts too (the init helpers start most shifts at 0)."""
    w = keys_init(h, d, seed=seed, scale=0.8)
    rng = np.random.default_rng(seed + 100)
    for k in w:
        if k.startswith("b_"):
            w[k] = rng.normal(0, 0.5, w[k].shape)
    return w


def numerical_gradient(loss, array):
    """Central differences with the course's own checker (chapter 6), at this file's nudge."""
    return bptt_numerical_gradient(loss, array, eps=EPS)


def _assert_close(analytic, numeric, name):
    err = np.max(np.abs(analytic - numeric)) / max(1.0, np.max(np.abs(numeric)))
    assert err < 1e-7, f"{name}: relative error {err:.2e}"


# ---------------------------------------------------------------- the LSTM

@pytest.mark.parametrize("batch", [None, 2])
def test_lstm_backward_matches_central_differences(batch):
    h, d, T = 3, 2, 4
    rng = np.random.default_rng(7)
    w = _random(init_lstm, h, d, seed=1)
    lead = (T,) if batch is None else (T, batch)
    xs = rng.normal(size=lead + (d,))
    h0, c0 = rng.normal(0, 0.5, size=lead[1:] + (h,)), rng.normal(0, 0.5, size=lead[1:] + (h,))
    G, Gc = rng.normal(size=lead + (h,)), rng.normal(size=lead[1:] + (h,))

    def loss():
        (hs, cs), _ = lstm_forward(xs, w, LSTMState(h0, c0))
        return np.sum(G * hs) + np.sum(Gc * cs[-1])

    _, caches = lstm_forward(xs, w, LSTMState(h0, c0))
    Gcs = np.zeros(lead + (h,))
    Gcs[-1] = Gc                                   # the loss's blame on c_T only
    grads, d0, dxs = lstm_backward(LSTMState(G, Gcs), caches, w)
    for key in LSTM_KEYS:
        _assert_close(grads[key], numerical_gradient(loss, w[key]), key)
    _assert_close(d0.h, numerical_gradient(loss, h0), "h0")
    _assert_close(d0.c, numerical_gradient(loss, c0), "c0")
    _assert_close(dxs, numerical_gradient(loss, xs), "xs")


def test_lstm_step_backward_equals_one_step_of_lstm_backward():
    rng = np.random.default_rng(3)
    w = _random(init_lstm, 3, 2, seed=4)
    h0, c0, x = rng.normal(size=3), rng.normal(size=3), rng.normal(size=2)
    (h, c), cache = lstm_step(LSTMState(h0, c0), x, w)
    (hs, cs), caches = lstm_forward(x[None], w, LSTMState(h0, c0))
    np.testing.assert_array_equal(hs[0], h)
    np.testing.assert_array_equal(cs[0], c)
    dh, dc = rng.normal(size=3), rng.normal(size=3)
    grads, (dh_prev, dc_prev), dx = lstm_step_backward(LSTMState(dh, dc), cache, w)
    full, d0, dxs = lstm_backward(LSTMState(dh[None], dc[None]), caches, w)
    for key in LSTM_KEYS:
        np.testing.assert_allclose(grads[key], full[key], atol=1e-15)
    np.testing.assert_allclose(dh_prev, d0.h, atol=1e-15)
    np.testing.assert_allclose(dc_prev, d0.c, atol=1e-15)
    np.testing.assert_allclose(dx, dxs[0], atol=1e-15)
    # a plain array of blame is blame on the notes only
    only_h, d0_h, _ = lstm_backward(dh[None], caches, w)
    same, d0_same, _ = lstm_backward(LSTMState(dh[None], None), caches, w)
    for key in LSTM_KEYS:
        np.testing.assert_array_equal(only_h[key], same[key])
    np.testing.assert_array_equal(d0_h.c, d0_same.c)


def test_lstm_batch_equals_one_sequence_at_a_time():
    rng = np.random.default_rng(5)
    w = init_lstm(4, 3, seed=2)
    xs = rng.normal(size=(6, 5, 3))
    (hs, cs), _ = lstm_forward(xs, w)
    assert hs.shape == cs.shape == (6, 5, 4)
    for k in range(5):
        (hk, ck), _ = lstm_forward(xs[:, k], w)
        np.testing.assert_allclose(hs[:, k], hk, atol=1e-15)
        np.testing.assert_allclose(cs[:, k], ck, atol=1e-15)


def test_lstm_seed_section_9_full_step():
    # Scores 2, 0, 1, 1 for f, i, o, g; c_prev = 1: f = 0.8808, i = 0.5, o = 0.7311, g = 0.7616.
    w = {key: np.zeros((1, 1)) if key[0] in "WU" else np.zeros(1) for key in LSTM_KEYS}
    w["b_f"], w["b_i"], w["b_o"], w["b_c"] = np.array([2.0]), np.array([0.0]), np.array([1.0]), np.array([1.0])
    (h, c), cache = lstm_step(LSTMState([0.0], [1.0]), [0.0], w)
    assert cache["f"][0] == pytest.approx(0.8808, abs=5e-5)
    assert cache["o"][0] == pytest.approx(0.7311, abs=5e-5)
    assert cache["c_tilde"][0] == pytest.approx(0.7616, abs=5e-5)
    assert c[0] == pytest.approx(1.2616, abs=5e-5)
    assert h[0] == pytest.approx(0.6225, abs=5e-5)


def test_forget_bias_shift_keeps_the_lane_open():
    assert sigmoid(2.0) == pytest.approx(0.8808, abs=5e-5)
    assert sigmoid(1.0) == pytest.approx(0.7311, abs=5e-5)
    assert lane_keep(2.0, 10) == pytest.approx(0.8808 ** 10, rel=1e-3) == pytest.approx(0.281, abs=5e-4)
    assert lane_keep(0.0, 10) == 0.5 ** 10 == pytest.approx(0.000977, abs=5e-7)
    # ... and the real backward pass agrees: zero weights, blame only on c_T.
    for bias in (0.0, 1.0, 2.0):
        w = init_lstm(3, 2, seed=0, scale=1e-300, forget_bias=bias)
        xs = np.zeros((10, 2))
        _, caches = lstm_forward(xs, w)
        _, d0, _ = lstm_backward(LSTMState(np.zeros((10, 3)), _on_last(np.ones(3), 10)), caches, w)
        np.testing.assert_allclose(d0.c, lane_keep(bias, 10), rtol=1e-12)
    # small random weights (scale 0.01): close to the product, 0.281 shifted against 0.001 unshifted
    for bias, product, tol in ((2.0, 0.281, 0.02), (0.0, 0.000977, 2e-4)):
        w = init_lstm(8, 4, seed=1, scale=0.01, forget_bias=bias)
        _, caches = lstm_forward(np.zeros((10, 4)), w)
        _, d0, _ = lstm_backward(LSTMState(None, _on_last(np.ones(8), 10)), caches, w)
        assert np.all(np.abs(d0.c - product) < tol)
        assert np.all(w["b_f"] == bias) and np.all(w["b_i"] == 0.0)


def _on_last(blame, T):
    """Blame on the last step's state only, zeros before: shape (T,) + blame.shape."""
    out = np.zeros((T,) + np.shape(blame))
    out[-1] = blame
    return out


def test_sigmoid_is_stable_at_plus_and_minus_1000():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # an overflow in exp would raise here
        s = sigmoid(np.array([-1000.0, -40.0, 0.0, 40.0, 1000.0]))
    assert s[0] == 0.0 and s[-1] == 1.0 and s[2] == 0.5
    # the lower tail keeps its relative precision (1 / (1 + e^40) is 4.25e-18, not 0)
    assert s[1] == pytest.approx(1 / (1 + np.exp(40.0)), rel=1e-14, abs=0)
    z = np.linspace(-30, 30, 121)
    assert np.allclose(sigmoid(z) + sigmoid(-z), 1.0, rtol=0, atol=1e-15)
    assert np.allclose(sigmoid(z[z < 0]) / np.exp(z[z < 0]), 1 / (1 + np.exp(z[z < 0])), rtol=1e-14, atol=0)
    assert np.all(np.diff(s) >= 0)
    # one sigmoid in the package: the LSTM, the GRU and the memory lab use the same function
    from mwm import gru, lstm, memory_lab
    assert lstm.sigmoid is gru.sigmoid is memory_lab.sigmoid is sigmoid


def test_init_is_seeded():
    a, b, c = init_lstm(4, 3, seed=9), init_lstm(4, 3, seed=9), init_lstm(4, 3, seed=10)
    assert all(np.array_equal(a[k], b[k]) for k in LSTM_KEYS)
    assert not np.array_equal(a["W_f"], c["W_f"])
    assert np.all(np.abs(a["W_f"]) <= 0.5)  # default scale 1/sqrt(4)
    g = init_gru(4, 3, seed=9, update_bias=-1.0)
    assert np.all(g["b_z"] == -1.0) and np.all(g["b_r"] == 0.0)
    assert sum(a[k].size for k in LSTM_KEYS) == cell_param_count(4, 3, "lstm")
    assert sum(g[k].size for k in GRU_KEYS) == cell_param_count(4, 3, "gru")


def test_lstm_stacked_layout_round_trip():
    w = _random(init_lstm, 3, 2, seed=6)
    w_ih, w_hh, b_ih, b_hh = lstm_weights_to_stacked(w)
    assert w_ih.shape == (12, 2) and w_hh.shape == (12, 3) and not b_hh.any()
    np.testing.assert_array_equal(w_ih[3:6], w["U_f"])  # order i, f, g, o
    back = lstm_weights_from_stacked(w_ih, w_hh, b_ih - 0.25, b_hh + 0.25)
    for key in LSTM_KEYS:
        np.testing.assert_allclose(back[key], w[key], atol=1e-15)


def _lstm_bad_input_raises_cases():
    """One bad input per case: (function, args, kwargs, error, message naming the argument)."""
    cases = []
    w = init_lstm(3, 2)
    xs = np.zeros((4, 2))
    cases += [
        pytest.param(lstm_forward, (xs, {k: v for k, v in w.items() if k != 'U_c'}), {}, ValueError, 'weights is missing the LSTM', id='lstm-forward-missing'),
        pytest.param(lstm_forward, (xs, {**w, 'W_o': np.zeros((2, 2))}), {}, ValueError, 'W_o must have shape', id='lstm-forward-W-o-must-have-shape'),
        pytest.param(lstm_forward, (np.zeros((4, 3)), w), {}, ValueError, 'xs must have shape', id='lstm-forward-xs-must-have-shape'),
        pytest.param(lstm_forward, (np.zeros((0, 2)), w), {}, ValueError, 'xs must contain at least one step', id='lstm-forward-xs-must-contain-at-least-one-step'),
        pytest.param(lstm_forward, (xs, w, LSTMState(None, np.zeros(4))), {}, ValueError, 'c0 must have shape', id='lstm-forward-c0-must-have-shape'),
        pytest.param(lstm_forward, (xs, w, np.zeros(3)), {}, ValueError, 'state0 must be an LSTMState', id='lstm-forward-state0-must-be-an-LSTMState'),
        pytest.param(lstm_step, (LSTMState(np.zeros(3), np.zeros(2)), np.zeros(2), w), {}, ValueError, 'c_prev must have shape', id='lstm-step-c-prev-must-have-shape'),
        pytest.param(lstm_step, (np.zeros(3), np.zeros(2), w), {}, ValueError, 'state must be an LSTMState', id='lstm-step-state-must-be-an-LSTMState'),
    ]
    _, caches = lstm_forward(xs, w)
    cases += [
        pytest.param(lstm_backward, (np.zeros((3, 3)), caches, w), {}, ValueError, 'dhs must have shape', id='lstm-backward-dhs-must-have-shape'),
        pytest.param(lstm_backward, (LSTMState(np.zeros((4, 3)), np.zeros((4, 2))), caches, w), {}, ValueError, 'dcs must have shape', id='lstm-backward-dcs-must-have-shape'),
        pytest.param(lstm_step_backward, (LSTMState(np.zeros(3), np.zeros(2)), caches[0], w), {}, ValueError, 'dc must have shape', id='lstm-step-backward-dc-must-have-shape'),
        pytest.param(lstm_forward, (xs, [1, 2]), {}, ValueError, 'weights must be a dict', id='lstm-forward-weights-must-be-a-dict'),
        pytest.param(init_lstm, (3, 2), {'forget_bias': float('inf')}, ValueError, 'forget_bias must', id='init-lstm-forget-bias'),
        pytest.param(lane_keep, (2.0, 0), {}, ValueError, 'steps must', id='lane-keep-steps'),
    ]
    return cases


@pytest.mark.parametrize("call, args, kwargs, error, match", _lstm_bad_input_raises_cases())
def test_lstm_bad_input_raises(call, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(*args, **kwargs)


# ---------------------------------------------------------------- the GRU

@pytest.mark.parametrize("batch", [None, 3])
def test_gru_backward_matches_central_differences(batch):
    h, d, T = 3, 2, 5
    rng = np.random.default_rng(8)
    w = _random(init_gru, h, d, seed=2)
    lead = (T,) if batch is None else (T, batch)
    xs = rng.normal(size=lead + (d,))
    h0 = rng.normal(0, 0.5, size=lead[1:] + (h,))
    G = rng.normal(size=lead + (h,))

    def loss():
        return np.sum(G * gru_forward(xs, w, h0)[0])

    _, caches = gru_forward(xs, w, h0)
    grads, dh0, dxs = gru_backward(G, caches, w)
    for key in GRU_KEYS:
        _assert_close(grads[key], numerical_gradient(loss, w[key]), key)
    _assert_close(dh0, numerical_gradient(loss, h0), "h0")
    _assert_close(dxs, numerical_gradient(loss, xs), "xs")


def test_gru_step_backward_equals_one_step_of_gru_backward():
    rng = np.random.default_rng(4)
    w = _random(init_gru, 3, 2, seed=5)
    h0, x = rng.normal(size=3), rng.normal(size=2)
    h, cache = gru_step(h0, x, w)
    hs, caches = gru_forward(x[None], w, h0)
    np.testing.assert_array_equal(hs[0], h)
    dh = rng.normal(size=3)
    grads, dh_prev, dx = gru_step_backward(dh, cache, w)
    full, dh0, dxs = gru_backward(dh[None], caches, w)
    for key in GRU_KEYS:
        np.testing.assert_allclose(grads[key], full[key], atol=1e-15)
    np.testing.assert_allclose(dh_prev, dh0, atol=1e-15)
    np.testing.assert_allclose(dx, dxs[0], atol=1e-15)


def test_gru_batch_equals_one_sequence_at_a_time():
    rng = np.random.default_rng(6)
    w = init_gru(4, 3, seed=2)
    xs = rng.normal(size=(6, 5, 3))
    hs, _ = gru_forward(xs, w)
    for k in range(5):
        np.testing.assert_allclose(hs[:, k], gru_forward(xs[:, k], w)[0], atol=1e-15)


def _one_number_gru(update_score, reset_score, w_draft=1.0, u_draft=1.0):
    w = {key: np.zeros((1, 1)) if key[0] in "WU" else np.zeros(1) for key in GRU_KEYS}
    w["b_z"], w["b_r"] = np.array([update_score]), np.array([reset_score])
    w["W_h"], w["U_h"] = np.array([[w_draft]]), np.array([[u_draft]])
    return w


def test_gru_seed_section_10_full_step_0_8808_0_8938_0_6969():
    h, cache = gru_step([0.5], [1.0], _one_number_gru(0.0, 2.0))
    assert cache["z"][0] == 0.5
    assert cache["r"][0] == pytest.approx(0.8808, abs=5e-5)
    assert 1 + cache["r"][0] * 0.5 == pytest.approx(1.4404, abs=5e-5)
    assert cache["candidate"][0] == pytest.approx(0.8938, abs=5e-5)
    assert h[0] == pytest.approx(0.6969, abs=5e-5)
    assert h[0] == pytest.approx(0.5 * 0.5 + 0.5 * np.tanh(1 + sigmoid(2.0) * 0.5), abs=1e-15)


def test_gru_blend_example_0_5_and_pause_and_predict_0_4():
    assert blend(0.8, -0.4, 0.25) == pytest.approx(0.5, abs=1e-15)
    # the two parts: 0.75 of the old note (0.6) and 0.25 of the draft (-0.1)
    assert blend(0.8, 0.0, 0.25) == pytest.approx(0.6, abs=1e-15)
    assert blend(0.0, -0.4, 0.25) == pytest.approx(-0.1, abs=1e-15)
    assert blend(0.2, 0.6, 0.5) == pytest.approx(0.4, abs=1e-15)


def test_reset_shut_means_the_draft_reads_only_the_word():
    rng = np.random.default_rng(0)
    W, push = rng.normal(size=(3, 3)), rng.normal(size=3)
    drafts = [gru_candidate(rng.uniform(-1, 1, 3), 0.0, W, push) for _ in range(5)]
    for d in drafts:
        np.testing.assert_array_equal(d, np.tanh(push))
    assert not np.allclose(gru_candidate(np.ones(3), 1.0, W, push), np.tanh(push))
    # through the real cell: a very negative reset score makes r = 0, and h_prev no longer reaches h~
    w = _one_number_gru(0.0, -800.0, w_draft=3.0)
    assert gru_step([0.9], [0.4], w)[1]["candidate"] == gru_step([-0.7], [0.4], w)[1]["candidate"] == np.tanh(0.4)


def test_update_gate_shut_for_50_words_keeps_the_state_exactly():
    rng = np.random.default_rng(1)
    h = np.array([0.3, -0.8])
    note = h.copy()
    for _ in range(50):
        note = blend(note, rng.uniform(-1, 1, 2), 0.0)
    np.testing.assert_array_equal(note, h)
    w = init_gru(2, 3, seed=0)
    w["W_z"][:], w["U_z"][:], w["b_z"][:] = 0.0, 0.0, -800.0  # z = sigmoid(-800) = 0 exactly
    hs, _ = gru_forward(rng.normal(size=(50, 3)), w, h0=h)
    np.testing.assert_array_equal(hs[-1], h)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 1), st.floats(-1, 1), st.floats(-1, 1))
def test_blend_lies_between_old_and_candidate(z, old, cand):
    h = float(blend(old, cand, z))
    assert min(old, cand) - 1e-15 <= h <= max(old, cand) + 1e-15
    assert abs(h) <= 1.0
    assert h == pytest.approx(old + z * (cand - old), abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 31 - 1), st.floats(0.1, 5.0), st.integers(1, 4))
def test_gru_states_never_leave_minus_one_one(seed, scale, batch):
    rng = np.random.default_rng(seed)
    w = init_gru(3, 2, seed=seed % 1000, scale=scale)
    xs = rng.normal(0, 10, size=(12, batch, 2))
    hs, caches = gru_forward(xs, w, h0=rng.uniform(-1, 1, size=(batch, 3)))
    assert np.all(np.abs(hs) <= 1.0)
    for c in caches:  # each new note lies between the old note and the draft
        new = (1 - c["z"]) * c["h_prev"] + c["z"] * c["candidate"]
        assert np.all(new <= np.maximum(c["h_prev"], c["candidate"]) + 1e-15)
        assert np.all(new >= np.minimum(c["h_prev"], c["candidate"]) - 1e-15)


def test_gru_direct_path_is_one_minus_z():
    # with every block blind to h_prev, dh_t/dh_{t-1} is exactly 1 - z
    w = _one_number_gru(-2.0, 0.0, w_draft=0.0)
    _, cache = gru_step([0.3], [1.0], w)
    _, dh_prev, _ = gru_step_backward([1.0], cache, w)
    assert dh_prev[0] == pytest.approx(1 - sigmoid(-2.0), abs=1e-15)


def test_gru_torch_layout_negates_the_update_block():
    w = _random(init_gru, 3, 2, seed=3)
    w_ih, w_hh, b_ih, b_hh = gru_weights_to_torch(w)
    np.testing.assert_array_equal(w_hh[:3], w["W_r"])      # order r, z, n
    np.testing.assert_array_equal(w_hh[3:6], -w["W_z"])
    np.testing.assert_array_equal(w_ih[6:], w["U_h"])
    assert not b_hh.any()
    back = gru_weights_from_torch(w_ih, w_hh, b_ih, b_hh)
    for key in GRU_KEYS:
        np.testing.assert_array_equal(back[key], w[key])
    b_hh[7] = 0.1
    with pytest.raises(ValueError, match="b_hn"):
        gru_weights_from_torch(w_ih, w_hh, b_ih, b_hh)


def test_reset_placement_gap_is_zero_exactly_when_diag_r_commutes_with_W():
    rng = np.random.default_rng(2)
    W, h = rng.normal(size=(4, 4)), rng.normal(size=4)
    r_mixed = np.array([0.9, 0.2, 0.5, 0.7])
    assert np.max(np.abs(reset_placement_gap(W, r_mixed, h))) > 0.1
    assert np.max(np.abs(reset_placement_gap(W, np.full(4, 0.3), h))) < 1e-15            # r uniform
    assert np.max(np.abs(reset_placement_gap(np.diag(np.diag(W)), r_mixed, h))) < 1e-15  # W diagonal
    assert np.max(np.abs(reset_placement_gap(W[:1, :1], r_mixed[:1], h[:1]))) == 0.0    # hidden size 1
    block = W * np.kron(np.eye(2), np.ones((2, 2)))                                       # W block-diagonal,
    r_blocks = np.array([0.9, 0.9, 0.2, 0.2])                                             # r equal within blocks
    assert np.max(np.abs(reset_placement_gap(block, r_blocks, h))) < 1e-15
    assert np.max(np.abs(reset_placement_gap(block, r_mixed, h))) > 0.01
    assert np.max(np.abs(reset_placement_gap(W, r_mixed, np.zeros(4)))) == 0.0           # old note 0
    with pytest.raises(ValueError, match="r must lie"):
        reset_placement_gap(W, np.full(4, 1.5), h)


def _gru_bad_input_raises_cases():
    """One bad input per case: (function, args, kwargs, error, message naming the argument)."""
    cases = []
    w = init_gru(3, 2)
    cases += [
        pytest.param(gru_forward, (np.zeros((4, 2)), {k: v for k, v in w.items() if k != 'b_r'}), {}, ValueError, 'weights is missing the GRU', id='gru-forward-missing'),
        pytest.param(gru_forward, (np.zeros((4, 2)), {**w, 'U_h': np.zeros((3, 5))}), {}, ValueError, 'U_h must have shape', id='gru-forward-U-h-must-have-shape'),
        pytest.param(gru_forward, (np.zeros((4, 2)), w), {'h0': np.zeros(2)}, ValueError, 'h0 must have shape', id='gru-forward-h0-must-have-shape'),
        pytest.param(gru_step, (np.zeros(3), np.zeros(5), w), {}, ValueError, 'x must have shape', id='gru-step-x-must-have-shape'),
        pytest.param(blend, (0.1, 0.2, 1.5), {}, ValueError, 'z must lie', id='blend-z-must-lie'),
        pytest.param(gru_candidate, (np.zeros(3), np.zeros(2), np.eye(3), np.zeros(3)), {}, ValueError, 'r must', id='gru-candidate-r-must'),
        pytest.param(init_gru, (3, 2), {'scale': 0}, ValueError, 'scale must', id='init-gru-scale'),
    ]
    _, caches = gru_forward(np.zeros((4, 2)), w)
    cases += [
        pytest.param(gru_step_backward, (np.zeros(2), caches[0], w), {}, ValueError, 'dh must have shape', id='gru-step-backward-dh-must-have-shape'),
    ]
    return cases


@pytest.mark.parametrize("call, args, kwargs, error, match", _gru_bad_input_raises_cases())
def test_gru_bad_input_raises(call, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(*args, **kwargs)


# ---------------------------------------------------------------- chapter 10's other numbers

def test_pause_and_predict_counts_640_480_160_and_the_cost_table():
    assert cell_param_count(10, 5, "lstm") == 4 * (10 * 15 + 10) == 640
    assert cell_param_count(10, 5, "gru") == 480 and cell_param_count(10, 5, "rnn") == 160
    assert 128 * 192 == 24_576 and cell_param_count(128, 64) == 24_704
    assert cell_param_count(128, 64, "gru") / cell_param_count(128, 64, "lstm") == 0.75


def test_gru_lane_gradient_with_z_0_1_is_0_9_to_the_10():
    # chapter 10, "Why it works": z held at 0.1, a draft blind to the old note
    lane = {key: np.zeros((1, 1)) for key in ("W_z", "U_z", "W_r", "U_r", "W_h")}
    lane.update(b_z=np.array([np.log(0.1 / 0.9)]), b_r=np.array([0.0]), U_h=np.array([[1.0]]), b_h=np.array([0.0]))
    xs = np.random.default_rng(0).normal(size=(10, 1))
    _, caches = gru_forward(xs, lane, h0=np.array([0.3]))
    assert caches[0]["z"][0] == pytest.approx(0.1, abs=1e-15)
    blame = np.zeros((10, 1))
    blame[-1] = 1.0
    kept = gru_backward(blame, caches, lane)[1][0]
    assert kept == pytest.approx(0.9 ** 10, rel=1e-12) and kept == pytest.approx(0.3487, abs=5e-5)
    # the same lane with z at 0.5 (b_z = 0) keeps 0.5^10
    half = dict(lane, b_z=np.array([0.0]))
    _, caches = gru_forward(xs, half, h0=np.array([0.3]))
    assert gru_backward(blame, caches, half)[1][0] == pytest.approx(0.000977, abs=5e-7)


def test_blend_dial_word_push_and_shut_reset_draft():
    from mwm.gru import CANDIDATE, OLD_STATE, WORD_PUSH, dial_step
    np.testing.assert_allclose(WORD_PUSH, [-1.2236, 0.8931], atol=5e-5)
    np.testing.assert_allclose(dial_step(0.25, 1.0)[0], CANDIDATE, atol=1e-15)
    np.testing.assert_allclose(dial_step(0.25, 0.0)[0], [-0.8407, 0.7129], atol=5e-5)
    np.testing.assert_allclose(dial_step(0.25, 0.0)[0], np.tanh(WORD_PUSH), atol=1e-15)
    assert np.allclose(dial_step(0.0, 0.4)[1], OLD_STATE)
    assert 1 - sigmoid(0.7) == pytest.approx(sigmoid(-0.7), abs=1e-15)


def _ten_steps_as_a_gru(z, r):
    """The ten-steps panel's GRU as ordinary weights: gates held by their shifts, W_h = I, push b_h."""
    from mwm.gru import CANDIDATE_W, WORD_PUSH
    w = {key: np.zeros((2, 2)) for key in ("W_z", "W_r")}
    w.update(U_z=np.zeros((2, 1)), U_r=np.zeros((2, 1)), U_h=np.zeros((2, 1)), W_h=CANDIDATE_W.copy(), b_h=WORD_PUSH.copy(),
             b_z=np.full(2, np.log(z / (1 - z))), b_r=np.full(2, 800.0 if r == 1 else np.log(r / (1 - r))))
    return w


@pytest.mark.parametrize("z,r", [(0.1, 1.0), (0.1, 0.5), (0.5, 1.0), (0.3, 0.25)])
def test_ten_steps_jacobian_equals_gru_backward_and_central_differences(z, r):
    from mwm.gru import OLD_STATE, ten_steps, ten_steps_jacobian
    J = ten_steps_jacobian(z, r)
    assert J.shape == (11, 2, 2)
    np.testing.assert_array_equal(J[0], np.eye(2))
    # the library's BPTT on the same GRU, written as weights, gives the same derivative
    w = _ten_steps_as_a_gru(z, r)
    hs, caches = gru_forward(np.zeros((10, 1)), w, h0=OLD_STATE)
    np.testing.assert_allclose(hs, ten_steps(z, r)[0][1:], atol=1e-14)
    rows = []
    for i in range(2):
        blame = np.zeros((10, 2))
        blame[-1, i] = 1.0
        rows.append(gru_backward(blame, caches, w)[1])
    np.testing.assert_allclose(np.array(rows), J[-1], atol=1e-13)
    # and so does nudging the starting note
    def run(h0):
        return gru_forward(np.zeros((10, 1)), w, h0=h0)[0][-1]
    nudged = np.column_stack([(run(OLD_STATE + EPS * e) - run(OLD_STATE - EPS * e)) / (2 * EPS) for e in np.eye(2)])
    np.testing.assert_allclose(nudged, J[-1], atol=1e-8)


def test_ten_steps_numbers_of_chapter_10():
    from mwm.gru import OLD_STATE, WORD_PUSH, ten_steps, ten_steps_jacobian
    # the whole dh10/dh0 at z = 0.1, r = 1 is more than the lane's 0.3487: the draft reads the note
    J = ten_steps_jacobian(0.1, 1.0)[-1]
    np.testing.assert_allclose(np.diag(J), [0.5941, 0.5519], atol=5e-5)
    assert J[0, 1] == 0.0 and J[1, 0] == 0.0
    # at r = 0 the draft ignores the note: the lane is the only route
    np.testing.assert_allclose(ten_steps_jacobian(0.1, 0.0)[-1], 0.9 ** 10 * np.eye(2), rtol=1e-12)
    # a bigger dial moves the note further, not less far
    moved = {z: np.linalg.norm(ten_steps(z, 1.0)[0][-1] - OLD_STATE) for z in (0.1, 0.5, 0.8)}
    assert round(moved[0.1], 4) == 1.1866 and round(moved[0.5], 4) == 2.1104 and round(moved[0.8], 4) == 2.1162
    np.testing.assert_allclose(ten_steps(0.5, 1.0)[0][-1], [-0.9714, 0.9472], atol=5e-5)
    # where the note stops: the point that equals its own draft
    fixed = ten_steps(1.0, 1.0, steps=200)[0][-1]
    np.testing.assert_allclose(fixed, [-0.9757, 0.9512], atol=5e-5)
    np.testing.assert_allclose(np.tanh(fixed + WORD_PUSH), fixed, atol=1e-12)
    with pytest.raises(ValueError, match="z must lie"):
        ten_steps_jacobian(1.2, 1.0)


def test_torch_gru_count_74496_is_three_shifts_more():
    import torch
    torch_count = sum(p.numel() for p in torch.nn.GRU(64, 128).parameters())
    assert torch_count == 74_496 == cell_param_count(128, 64, "gru") + 3 * 128


def _bad_cache_cases():
    lstm_w, gru_w = init_lstm(3, 2, seed=0), init_gru(3, 2, seed=0)
    blame = np.ones(3)
    return [
        pytest.param(lambda: lstm_step_backward(LSTMState(blame, blame), {}, lstm_w), "cache must be the cache of lstm_step",
                     id="lstm-step-empty-dict"),
        pytest.param(lambda: lstm_step_backward(LSTMState(blame, blame), "abc", lstm_w), "cache must be the cache of lstm_step",
                     id="lstm-step-not-a-dict"),
        pytest.param(lambda: lstm_backward(np.ones((1, 3)), [{}], lstm_w), "caches must be the list of caches of lstm_forward",
                     id="lstm-sequence-empty-dict"),
        pytest.param(lambda: lstm_backward(np.ones((1, 3)), [], lstm_w), "caches must be the non-empty list",
                     id="lstm-sequence-empty-list"),
        pytest.param(lambda: gru_step_backward(blame, {"h_prev": blame}, gru_w), "cache must be the cache of gru_step",
                     id="gru-step-missing-keys"),
        pytest.param(lambda: gru_backward(np.ones((1, 3)), [{}], gru_w), "caches must be the list of caches of gru_forward",
                     id="gru-sequence-empty-dict"),
        pytest.param(lambda: gru_backward(np.ones((1, 3)), [], gru_w), "caches must be the non-empty list",
                     id="gru-sequence-empty-list"),
    ]


@pytest.mark.parametrize("call, match", _bad_cache_cases())
def test_a_backward_pass_names_a_bad_cache(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- one contract for the three cells: pairs as lists, batch-first sequences ---------------------------

def test_lstm_backward_takes_the_gradient_pair_as_a_list_as_its_step_does():
    from mwm import init_lstm, lstm_backward, lstm_forward, lstm_step, lstm_step_backward

    rng = np.random.default_rng(3)
    weights = init_lstm(4, 3, seed=2)
    xs, dhs, dcs = rng.normal(size=(5, 2, 3)), rng.normal(size=(5, 2, 4)), rng.normal(size=(5, 2, 4))
    _, caches = lstm_forward(xs, weights)
    as_tuple = lstm_backward((dhs, dcs), caches, weights)
    as_list = lstm_backward([dhs, dcs], caches, weights)
    assert all(np.array_equal(as_tuple[0][k], as_list[0][k]) for k in as_tuple[0])
    assert np.array_equal(as_tuple[2], as_list[2])
    state, cache = lstm_step((np.zeros((2, 4)), np.zeros((2, 4))), xs[0], weights)
    lstm_step_backward([dhs[0], dcs[0]], cache, weights)  # the step takes the same list
    with pytest.raises(ValueError, match="dhs must have shape"):  # a list of per-step blames is not a pair
        lstm_backward([dhs[0], dhs[1]], caches, weights)


@pytest.mark.parametrize("cell", ["rnn", "gru", "lstm"])
def test_batch_first_sequences_are_read_as_batch_first(cell):
    import mwm

    rng = np.random.default_rng(7)
    T, B, d, h = 5, 3, 2, 4
    xs = rng.normal(size=(T, B, d))
    dhs = rng.normal(size=(T, B, h))
    if cell == "rnn":
        weights = {"W": rng.normal(size=(h, h)) * 0.4, "U": rng.normal(size=(h, d)), "b": rng.normal(size=h)}
        forward, backward = mwm.rnn_forward, mwm.rnn_backward
    elif cell == "gru":
        weights = mwm.init_gru(h, d, seed=1)
        forward, backward = mwm.gru_forward, mwm.gru_backward
    else:
        weights = mwm.init_lstm(h, d, seed=1)
        forward, backward = mwm.lstm_forward, mwm.lstm_backward
    time_first, caches = forward(xs, weights)
    batch_first, caches_b = forward(xs.swapaxes(0, 1), weights, batch_first=True)
    first = time_first[0] if cell == "lstm" else time_first
    second = batch_first[0] if cell == "lstm" else batch_first
    np.testing.assert_array_equal(second, first.swapaxes(0, 1))
    g1 = backward(dhs, caches, weights)
    g2 = backward(dhs.swapaxes(0, 1), caches_b, weights, batch_first=True)
    assert all(np.array_equal(g1[0][k], g2[0][k]) for k in g1[0])
    np.testing.assert_array_equal(g2[2], g1[2].swapaxes(0, 1))
    with pytest.raises(ValueError, match="batch_first must be True or False"):
        forward(xs, weights, batch_first="yes")
    with pytest.raises(ValueError, match="xs"):
        forward(xs[:, 0], weights, batch_first=True)  # one sequence has no batch axis to swap
