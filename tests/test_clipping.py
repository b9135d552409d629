"""Chapter 8: clipping by global norm, the element-wise trap, orthogonal starts, the cliff."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mwm.clipping import (CLIFF, CLIFF_LR, CLIFF_START, CLIFF_STEPS, cliff_gradient, cliff_loss, clip_by_global_norm,
                          clip_by_value, descend, direction_degrees, global_norm, on_map, orthogonal)
from mwm.dynamics import spectral_radius

torch = pytest.importorskip("torch")


def test_30_40_becomes_3_4():
    g, norm = clip_by_global_norm(np.array([30.0, 40.0]), 5)
    assert norm == 50.0
    np.testing.assert_allclose(g, [3.0, 4.0], rtol=1e-15)
    assert 5 / norm == pytest.approx(0.1)
    assert round(direction_degrees(g), 2) == 53.13 == round(direction_degrees([30, 40]), 2)


def test_short_gradient_passes_untouched():
    g = np.array([1.0, 2.0, 2.0])
    out, norm = clip_by_global_norm(g, 5)
    assert norm == 3.0
    np.testing.assert_array_equal(out, g)
    assert out is not g


def test_pause_and_predict_0_minus12_5():
    out, norm = clip_by_global_norm(np.array([0.0, -12.0, 5.0]), 2.6)
    assert norm == 13.0 and 2.6 / norm == pytest.approx(0.2)
    np.testing.assert_allclose(out, [0.0, -2.4, 1.0], atol=1e-15)


def test_clipping_cannot_rescue_fading():
    blame = np.full(4, 1e-9 / 2)  # a blame vector of length 1e-9
    out, norm = clip_by_global_norm(blame, 5)
    assert norm == pytest.approx(1e-9, rel=1e-12)
    np.testing.assert_array_equal(out, blame)


def test_value_clipping_turns_the_direction():
    out = clip_by_value([30.0, 40.0], 5)
    np.testing.assert_array_equal(out, [5.0, 5.0])
    assert direction_degrees(out) == pytest.approx(45.0)
    with pytest.raises(ValueError, match="limit"):
        clip_by_value([1.0], 0)


def test_several_arrays_are_one_vector():
    rng = np.random.default_rng(0)
    grads = [rng.normal(size=(4, 4)) * 10, rng.normal(size=(4, 3)) * 10, rng.normal(size=4) * 10]
    out, norm = clip_by_global_norm(grads, 1.0)
    assert norm == pytest.approx(math.sqrt(sum((g ** 2).sum() for g in grads)), rel=1e-14)
    assert global_norm(out) == pytest.approx(1.0, rel=1e-14)
    for g, o in zip(grads, out):
        assert o.shape == g.shape
        np.testing.assert_allclose(o, g / norm, rtol=1e-14)


@pytest.mark.parametrize("seed,max_norm,scale", [(0, 1.0, 10.0), (1, 5.0, 3.0), (2, 0.25, 1.0), (3, 100.0, 1.0)])
def test_equals_torch_clip_grad_norm(seed, max_norm, scale):
    torch.manual_seed(seed)
    shapes = [(8, 8), (8, 5), (8,), (3, 8)]
    params = [torch.nn.Parameter(torch.zeros(s, dtype=torch.float64)) for s in shapes]
    for p in params:
        p.grad = torch.randn(p.shape, dtype=torch.float64) * scale
    grads = [p.grad.numpy().copy() for p in params]
    total = torch.nn.utils.clip_grad_norm_(params, max_norm)
    ours, norm = clip_by_global_norm(grads, max_norm)
    assert norm == pytest.approx(float(total), rel=1e-14)
    for p, o in zip(params, ours):
        np.testing.assert_allclose(o, p.grad.numpy(), rtol=0, atol=1e-6)
    # torch divides by (||g|| + 1e-6); that is the whole difference
    worst = max(np.abs(o - p.grad.numpy()).max() for p, o in zip(params, ours))
    assert worst <= max_norm * 1e-6 / norm + 1e-15


@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, st.integers(1, 12), elements=st.floats(-1e3, 1e3)), st.floats(0.01, 100))
def test_clipped_length_and_direction(g, c):
    out, norm = clip_by_global_norm(g, c)
    assert math.hypot(*out.ravel()) == pytest.approx(min(norm, c), rel=1e-12, abs=1e-300)  # hypot: no underflow
    assert np.all(out * g >= 0)  # no entry changes sign: same direction


def test_clip_errors_name_the_argument():
    with pytest.raises(ValueError, match="max_norm"):
        clip_by_global_norm([np.ones(2)], -1)
    with pytest.raises(ValueError, match="grads"):
        clip_by_global_norm([], 1)
    with pytest.raises(ValueError, match=r"grads\[1\]"):
        clip_by_global_norm([np.ones(2), np.array([np.nan])], 1)


@pytest.mark.parametrize("n,scale,seed", [(2, 1.0, 0), (8, 1.0, 1), (64, 1.0, 2), (64, 0.9, 3), (96, 0.9, 4)])
def test_orthogonal_every_eigenvalue_has_size_scale(n, scale, seed):
    Q = orthogonal(n, seed=seed, scale=scale)
    np.testing.assert_allclose(Q.T @ Q, scale ** 2 * np.eye(n), atol=1e-12)
    np.testing.assert_allclose(np.abs(np.linalg.eigvals(Q)), scale, rtol=0, atol=1e-12)
    v = np.random.default_rng(seed + 100).normal(size=n)
    assert np.linalg.norm(Q @ v) == pytest.approx(scale * np.linalg.norm(v), rel=1e-13)


def test_orthogonal_sign_fix_makes_draws_uniform():
    # Uniform (Haar) orthogonal matrices have E[Q_11] = 0 and E[trace] = 0; QR without the
    # sign fix gives a positive diagonal bias. Averages over 4000 draws of 3x3.
    fixed = np.array([np.trace(orthogonal(3, seed=s)) for s in range(4000)])
    assert abs(fixed.mean()) < 0.05
    raw = np.array([np.trace(np.linalg.qr(np.random.default_rng(s).standard_normal((3, 3)))[0])
                    for s in range(4000)])
    assert abs(raw.mean()) > 0.3
    with pytest.raises(ValueError, match="scale"):
        orthogonal(3, scale=0)
    with pytest.raises(ValueError, match="n"):
        orthogonal(0)


def test_cliff_gradient_matches_finite_differences():
    for point in [(-3.5, 2.0), (-0.3, 1.0), (0.08, 0.9), (1.5, -0.4)]:
        eps = 1e-6
        num = [(cliff_loss(np.add(point, d)) - cliff_loss(np.subtract(point, d))) / (2 * eps)
               for d in ([eps, 0], [0, eps])]
        np.testing.assert_allclose(cliff_gradient(point), num, rtol=1e-6, atol=1e-8)


def test_cliff_numbers():
    assert CLIFF == {"A": 0.05, "B": 1.0, "XV": 2.0, "H": 10.0, "K": 3.0, "XW": 0.0}
    assert CLIFF_START == (-3.5, 2.0) and CLIFF_LR == 0.5 and CLIFF_STEPS == 60
    # the wall's steepest slope is H K / 2 = 15, at x = 0
    assert abs(cliff_gradient((0.0, 0.0))[0]) == pytest.approx(15.2, abs=1e-12)
    assert round(float(cliff_loss(CLIFF_START)), 4) == 11.7125
    plain = descend()
    assert plain["left_map_at"] == 15
    assert round(plain["grad_norms"][-1], 2) == 14.29
    assert round(CLIFF_LR * plain["grad_norms"][-1], 2) == 7.14
    np.testing.assert_allclose(plain["path"][-2], [0.0835, 0.9753], atol=5e-5)
    np.testing.assert_allclose(plain["path"][-1], [7.23, 0.93], atol=5e-3)
    assert plain["grad_norms"][:13].max() < 0.6
    clipped = descend(max_norm=1.0)
    assert clipped["left_map_at"] is None and len(clipped["path"]) == CLIFF_STEPS + 1
    assert round(clipped["grad_norms"].max(), 2) == 12.63
    assert round(float(clipped["losses"][-1]), 4) == 0.0009
    np.testing.assert_allclose(clipped["path"][-1], [1.927, 0.103], atol=5e-4)
    steps = np.linalg.norm(np.diff(clipped["path"], axis=0), axis=1)
    assert steps.max() <= CLIFF_LR * 1.0 + 1e-12
    too_loose = descend(max_norm=10.0)
    assert too_loose["left_map_at"] == 15
    assert on_map((4.0, -3.0)) and not on_map((4.01, 0.0))


def test_cliff_gradient_lengths_quoted_in_chapter_8():
    assert round(float(np.linalg.norm(cliff_gradient((-3.5, 2.0)))), 2) == 0.59
    assert round(float(np.linalg.norm(cliff_gradient((0.0, 1.0)))), 4) == 15.2003
    assert round(float(cliff_loss((2.0, 0.0))), 4) == 0.0001
    np.testing.assert_allclose(descend(max_norm=0.5)["path"][-1], [1.910, 0.124], atol=5e-4)
    assert round(float(descend(max_norm=0.5)["losses"][-1]), 4) == 0.0013


def test_about_half_the_starts_are_flung():
    starts = [(x0, 2.0) for x0 in np.round(np.arange(-3.9, -1.45, 0.1), 1)]
    assert sum(descend(s)["left_map_at"] is not None for s in starts) == 12
    clipped = [descend(s, max_norm=1.0) for s in starts]
    assert all(r["left_map_at"] is None for r in clipped)
    assert round(max(float(r["losses"][-1]) for r in clipped), 4) == 0.0009


def test_orthogonal_versus_gaussian_start_chapter_8():
    Q9 = orthogonal(64, seed=0, scale=0.9)
    G = np.random.default_rng(0).normal(0, 1 / 8, (64, 64))
    assert round(spectral_radius(G), 4) == 1.0202
    v = np.random.default_rng(1).normal(size=64)
    kept = np.linalg.norm(np.linalg.matrix_power(Q9, 50) @ v) / np.linalg.norm(v)
    assert round(kept, 5) == round(0.9 ** 50, 5) == 0.00515


def test_torch_orthogonal_init_has_every_eigenvalue_at_gain():
    torch.manual_seed(0)
    U = torch.empty(64, 64, dtype=torch.float64)
    torch.nn.init.orthogonal_(U, gain=0.9)
    np.testing.assert_allclose(np.abs(np.linalg.eigvals(U.numpy())), 0.9, atol=1e-12)


def test_pause_and_predict_check_6_76():
    g = global_norm([np.array([2.4]), np.array([1.0])])
    assert g ** 2 == pytest.approx(6.76, rel=1e-15) and g == pytest.approx(2.6, rel=1e-15)


def test_powers_of_w_build_a_wall_chapter_8():
    # h_50 = w^50 from h_0 = 1, and its slope 50 w^49: tiny below 1, enormous above
    from mwm.dynamics import scalar_chain
    notes = {w: scalar_chain(w, 50)[0][50] for w in (0.9, 1.0, 1.1, 1.2)}
    assert round(notes[0.9], 5) == 0.00515 and notes[1.0] == 1.0
    assert round(notes[1.1], 5) == 117.39085 and round(notes[1.2], 5) == 9100.43815
    eps = 1e-7
    for w in (0.9, 1.2):  # the slope formula agrees with a central difference of the loop
        numeric = (scalar_chain(w + eps, 50)[0][50] - scalar_chain(w - eps, 50)[0][50]) / (2 * eps)
        assert numeric == pytest.approx(50 * w ** 49, rel=1e-6)
    slope = {w: 50 * scalar_chain(w, 49)[0][49] for w in (0.9, 1.1, 1.2)}   # 50 w^49
    assert round(slope[0.9], 2) == 0.29 and round(slope[0.9], 4) == 0.2863
    assert round(slope[1.2]) == 379185 and round(slope[1.1], 4) == 5335.9479


def test_wall_crossing_explains_who_is_flung():
    from mwm import wall_crossing
    from mwm.clipping import on_map
    starts = [(x0, 2.0) for x0 in np.round(np.arange(-3.9, -1.45, 0.1), 1)]
    groups = {"survived": [], "hop": [], "at once": []}
    for s in starts:
        run = descend(s)
        cross = wall_crossing(run)
        assert cross["take_off"][0] < 0 < cross["landing"][0]
        np.testing.assert_allclose(cross["landing"] - cross["take_off"], -CLIFF_LR * cliff_gradient(cross["take_off"]))
        fate = "survived" if run["left_map_at"] is None else "hop" if on_map(cross["landing"]) else "at once"
        groups[fate].append((s[0], cross))
    assert [len(g) for g in groups.values()] == [13, 4, 8]

    def span(fate, key, index=None):
        values = [c[key] if index is None else c[key][index] for _, c in groups[fate]]
        return round(min(values), 2), round(max(values), 2)

    assert span("survived", "take_off", 0) == (-0.56, -0.30)
    assert span("survived", "grad_norm") == (2.17, 7.44)
    assert span("survived", "landing", 0) == (0.52, 3.42)
    assert span("hop", "take_off", 0) == (-0.66, -0.61) and span("hop", "grad_norm") == (1.38, 1.72)
    assert span("at once", "take_off", 0) == (-0.26, -0.04) and span("at once", "grad_norm")[0] == 8.70
    nearest = sorted(groups["survived"], key=lambda row: row[1]["landing"][0])[:2]
    assert sorted(x0 for x0, _ in nearest) == [-2.0, -1.8]
    assert all(round(float(c["landing"][0]), 2) == 0.52 for _, c in nearest)
    # the chapter's own ball crosses at step 14 onto the face, and is flung at step 15
    cross = wall_crossing(descend())
    assert cross["step"] == 14 and round(cross["grad_norm"], 4) == 1.4625
    with pytest.raises(ValueError, match="run"):
        wall_crossing({"path": np.array([[1.0, 0.0], [2.0, 0.0]]), "grad_norms": np.array([0.1])})
    with pytest.raises(ValueError, match="run"):
        wall_crossing([1, 2])


def test_clipping_never_lengthens_a_faint_gradient_chapter_8():
    faint = np.array([3.0, 4.0]) * 1e-9
    out, norm = clip_by_global_norm(faint, 5.0)
    assert norm == pytest.approx(5e-9, rel=1e-12) and np.array_equal(out, faint)
    out, norm = clip_by_global_norm(faint, 1e-9)
    np.testing.assert_allclose(out, [0.6e-9, 0.8e-9], rtol=1e-12)
    assert np.linalg.norm(out) == pytest.approx(1e-9, rel=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.lists(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 4)),
                       elements=st.floats(-50, 50).filter(lambda x: x == 0 or abs(x) > 1e-100)),
                min_size=1, max_size=4),
       st.floats(0.05, 20))
def test_by_property_torch_clip_grad_norm_is_ours_with_its_epsilon(grads, max_norm):
    """torch multiplies by min(1, c / (||g|| + 1e-6)): exactly ours rescaled by ||g|| / (||g|| + 1e-6) when it clips.

    (Entries below 1e-100 are left out: torch squares them and its norm underflows to 0, where ours
    does not; test_the_global_norm_neither_underflows_nor_overflows.)"""
    params = [torch.nn.Parameter(torch.zeros(g.shape, dtype=torch.float64)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = torch.tensor(g, dtype=torch.float64)
    total = float(torch.nn.utils.clip_grad_norm_(params, max_norm))
    ours, norm = clip_by_global_norm(grads, max_norm)
    assert norm == pytest.approx(total, rel=1e-13, abs=1e-300)
    factor = min(1.0, max_norm / (norm + 1e-6)) / (min(1.0, max_norm / norm) if norm > 0 else 1.0)
    for p, o in zip(params, ours):
        np.testing.assert_allclose(p.grad.numpy(), o * factor, rtol=1e-12, atol=1e-300)


def test_the_gradient_dict_of_a_backward_pass_is_clipped_as_a_dict():
    from mwm import init_lstm, lstm_backward, lstm_forward

    weights = init_lstm(3, 2, seed=1)
    states, caches = lstm_forward(np.ones((4, 2)), weights)
    grads, _, _ = lstm_backward(np.ones((4, 3)) * 10, caches, weights)
    clipped, norm = clip_by_global_norm(grads, 1.0)
    assert set(clipped) == set(grads) and norm == pytest.approx(global_norm(list(grads.values())))
    assert global_norm(clipped) == pytest.approx(1.0) and global_norm(grads) == norm
    with pytest.raises(ValueError, match=r"grads\['W_i'\]"):
        clip_by_global_norm({**grads, "W_i": "x"}, 1.0)


@pytest.mark.filterwarnings("error")      # and says nothing about it: the scaled path handles both
def test_the_global_norm_neither_underflows_nor_overflows():
    for tiny in (1e-160, 1e-250, 5e-320):
        assert global_norm([np.array([tiny, tiny]), np.array([tiny])]) == pytest.approx(math.sqrt(3) * tiny, rel=1e-12)
    assert global_norm([np.array([1e200, 1e200])]) == pytest.approx(math.sqrt(2) * 1e200, rel=1e-12)
    clipped, norm = clip_by_global_norm([np.array([3e200, 4e200])], 5.0)
    np.testing.assert_allclose(clipped[0], [3.0, 4.0], rtol=1e-12)
    assert global_norm([np.zeros(3)]) == 0.0
