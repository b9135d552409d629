"""Chapter 7: powers of w and of W, eigen-directions, tanh."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mwm import words_of
from mwm.bptt import rnn_step_backward
from mwm.dynamics import (eigen_split, first_step_below, matrix_powers, readable_direction, spectral_radius,
                          tanh_fixed_point, turn_angle, scalar_chain)
from mwm.widgets.ch07_fade import PRESETS

KEEP = np.array([[0.9, 0.4], [0.1, 0.6]])
ROTATE = np.array([[0.8, -0.6], [0.6, 0.8]])


def test_whisper_line_powers_at_10_20_50():
    assert round(scalar_chain(0.5, 10)[1][10], 6) == 0.000977
    assert round(scalar_chain(1.5, 10)[1][10], 2) == 57.67
    assert scalar_chain(1.0, 10)[1][10] == 1.0
    assert round(scalar_chain(0.9, 20)[1][20], 4) == 0.1216
    assert round(scalar_chain(1.1, 20)[1][20], 4) == 6.7275
    assert round(scalar_chain(0.9, 50)[1][50], 4) == 0.0052
    assert round(scalar_chain(0.9, 50)[1][50], 3) == 0.005
    assert round(scalar_chain(1.1, 50)[1][50]) == 117
    assert round(scalar_chain(1.1, 50)[1][50], 2) == 117.39


def test_plain_line_state_equals_gradient_equals_power():
    notes, blame = scalar_chain(0.7, 12, h0=2.0)
    np.testing.assert_allclose(notes, 2.0 * 0.7 ** np.arange(13), rtol=1e-14)
    np.testing.assert_allclose(blame, 0.7 ** np.arange(13), rtol=1e-14)


def test_keys_nine_words_back():
    words = words_of("The keys to the old wooden cabinet in the hall are")
    gap = words.index("are") - words.index("keys")
    assert gap == 9
    assert round(0.5 ** gap, 5) == 0.00195


def test_seed_003_keys_sentence_is_four_steps_not_five():
    words = words_of("the keys to the cabinet are on the table")
    assert words.index("are") - words.index("keys") == 4


def test_airline_sentence_five_steps():
    words = words_of("the flights the airline was cancelling were full")
    assert words.index("were") - words.index("flights") == 5


def test_seed_003_factor_0_6():
    blame = scalar_chain(0.6, 20)[1]
    assert round(blame[5], 3) == 0.078 and round(blame[5], 5) == 0.07776
    assert round(blame[10], 3) == 0.006 and round(blame[10], 4) == 0.0060
    assert round(blame[20], 5) == 0.00004 and round(blame[20] * 1e5, 2) == 3.66
    # "four orders of magnitude weaker than one step back": 0.6 / 0.6^20 = 0.6^-19
    assert 4 < math.log10(blame[1] / blame[20]) < 4.5
    assert round(blame[1] / blame[20]) == 16411 and round(math.log10(blame[1] / blame[20]), 1) == 4.2


def test_first_step_below_a_thousandth():
    assert first_step_below(0.5, 1e-3) == 10
    halves, tenths = scalar_chain(0.5, 10)[1], scalar_chain(0.9, 44)[1]
    assert halves[9] >= 1e-3 > halves[10]
    assert first_step_below(0.9, 0.01) == 44 and tenths[43] >= 0.01 > tenths[44]
    with pytest.raises(ValueError, match="factor"):
        first_step_below(1.0, 1e-3)
    with pytest.raises(ValueError, match="threshold"):
        first_step_below(0.5, 0)


def test_tanh_fixed_point_at_1_5():
    h = tanh_fixed_point(1.5)
    assert abs(math.tanh(1.5 * h) - h) < 1e-15
    assert round(h, 4) == 0.8586 and round(h, 2) == 0.86
    assert round(1.5 * (1 - h * h), 4) == 0.3943
    notes, blame = scalar_chain(1.5, 20, squash=True)
    assert round(notes[10], 4) == 0.8586 and abs(notes[20] - h) < 1e-9
    assert blame[10] < 1e-4 and round(blame[10] * 1e5, 2) == 5.14
    assert tanh_fixed_point(1.0) == 0.0 and tanh_fixed_point(0.5) == 0.0


def test_tanh_gradient_grows_while_the_state_is_small():
    # the table's "explodes while the note is small": from h0 = 0.01, w = 1.5
    blame = scalar_chain(1.5, 30, h0=0.01, squash=True)[1]
    assert round(blame[5], 2) == 7.52 and round(blame[10], 2) == 34.35 and blame.argmax() == 10
    assert blame[30] < 1e-5


@settings(max_examples=60, deadline=None)
@given(st.floats(-3, 3), st.integers(1, 30), st.floats(-1, 1))
def test_tanh_bound_on_gradient(w, steps, h0):
    blame_tanh = scalar_chain(w, steps, h0=h0, squash=True)[1]
    assert np.all(np.abs(blame_tanh) <= np.abs(w) ** np.arange(steps + 1) * (1 + 1e-12))


def test_tanh_never_lengthens_the_state():
    for w in np.arange(0.5, 1.51, 0.05):
        squeezed, _ = scalar_chain(w, 20, squash=True)
        plain, _ = scalar_chain(w, 20)
        assert np.all(np.abs(squeezed) <= np.abs(plain) + 1e-15)


def test_worked_matrix_eigen_split():
    values, directions, coefficients = eigen_split(KEEP, [1, 0])
    np.testing.assert_allclose(values, [1.0, 0.5], atol=1e-15)
    np.testing.assert_array_equal(directions, [[4, 1], [1, -1]])
    np.testing.assert_allclose(coefficients, [0.2, 0.2], atol=1e-15)
    # the chapter's check: the eigenvalues add up to the trace 0.9 + 0.6 and multiply to the determinant 0.54 - 0.04
    assert values.sum() == pytest.approx(1.5, abs=1e-15) and values.prod() == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_allclose(matrix_powers(KEEP, [4, 1], 1)[1], [4, 1], atol=1e-15)      # kept as it is
    np.testing.assert_allclose(matrix_powers(KEEP, [1, -1], 1)[1], [0.5, -0.5], atol=1e-15)  # halved


def test_worked_trajectory_to_0_8_0_2():
    path = matrix_powers(KEEP, [1, 0], 60)
    np.testing.assert_allclose(path[1], [0.9, 0.1], atol=1e-15)
    np.testing.assert_allclose(path[2], [0.85, 0.15], atol=1e-15)
    np.testing.assert_allclose(path[10], [0.8, 0.2], atol=2.5e-4)
    np.testing.assert_allclose(path[10], [0.8002, 0.1998], atol=5e-5)
    t = np.arange(61)[:, None]
    np.testing.assert_allclose(path, 0.2 * np.array([4, 1]) + 0.2 * 0.5 ** t * np.array([1, -1]), atol=1e-14)
    assert round(float(np.linalg.norm(path[30])), 4) == 0.8246
    assert np.linalg.norm(path[60]) == pytest.approx(math.sqrt(0.8 ** 2 + 0.2 ** 2), abs=1e-14)


def test_spectral_radius_and_presets():
    assert spectral_radius(KEEP) == pytest.approx(1.0)
    expected = {"keep": (1.0, 0.5), "fade": (0.8, 0.3), "explode": (1.2, 0.7)}
    for name, lams in expected.items():
        values, directions, coefficients = eigen_split(PRESETS[name], [1, 0])
        np.testing.assert_allclose(values, lams, atol=1e-14)
        np.testing.assert_array_equal(directions, [[4, 1], [1, -1]])
        np.testing.assert_allclose(coefficients, [0.2, 0.2], atol=1e-14)
    assert spectral_radius(PRESETS["fade"]) == pytest.approx(0.8)
    assert spectral_radius(PRESETS["explode"]) == pytest.approx(1.2)


def test_rotate_preset():
    values, directions, coefficients = eigen_split(ROTATE, [1, 0])
    np.testing.assert_allclose(values, [0.8 + 0.6j, 0.8 - 0.6j], atol=1e-15)
    np.testing.assert_allclose(np.abs(values), [1, 1], atol=1e-15)
    np.testing.assert_array_equal(directions, [[1, -1j], [1, 1j]])
    assert round(turn_angle(ROTATE), 2) == 36.87
    assert turn_angle(ROTATE) == pytest.approx(math.degrees(math.atan2(0.6, 0.8)))
    lengths = np.linalg.norm(matrix_powers(ROTATE, [1, 0], 60), axis=1)
    np.testing.assert_allclose(lengths, 1.0, atol=1e-13)
    with pytest.raises(ValueError, match="complex"):
        turn_angle(KEEP)


def test_diag_half_and_1_2():
    D = np.diag([0.5, 1.2])
    path = matrix_powers(D, [1, 1], 30)
    np.testing.assert_allclose(path[:, 0], 0.5 ** np.arange(31), rtol=1e-14)
    np.testing.assert_allclose(path[:, 1], 1.2 ** np.arange(31), rtol=1e-14)
    angle = np.degrees(np.arctan2(path[:, 1], path[:, 0]))
    assert angle[0] == pytest.approx(45) and angle[10] > 89.9
    assert round(path[10, 0], 6) == 0.000977 and round(path[10, 1], 4) == 6.1917
    assert round(angle[10], 2) == 89.99


def test_small_entries_do_not_mean_fading():
    assert np.all(np.abs(KEEP) < 1) and spectral_radius(KEEP) == pytest.approx(1.0)
    big = np.array([[0.5, 10.0], [0.0, 0.5]])  # big entry, yet every part fades
    assert spectral_radius(big) == 0.5
    lengths = np.linalg.norm(matrix_powers(big, [0, 1], 60), axis=1)
    # it swells for a moment (a lopsided matrix can), then fades like t 0.5^t
    assert round(lengths[1], 2) == 10.01 and round(lengths[2], 2) == 10.0 and lengths.argmax() == 1
    assert round(lengths[10], 4) == 0.1953 and lengths[60] < 1e-12


def test_readable_direction():
    np.testing.assert_array_equal(readable_direction(np.array([4.0, 1.0]) / math.sqrt(17)), [4, 1])
    np.testing.assert_array_equal(readable_direction(np.array([-1.0, 1.0]) / math.sqrt(2)), [1, -1])
    np.testing.assert_allclose(readable_direction([0.6, 0.8]), [1, 4 / 3])
    with pytest.raises(ValueError, match="vector"):
        readable_direction([0, 0])


def _errors_name_the_argument_cases():
    """One bad input per case: (function, args, kwargs, error, message naming the argument)."""
    cases = []
    cases += [
        pytest.param(matrix_powers, (np.ones((2, 3)), [1, 0], 3), {}, ValueError, 'W must have shape', id='matrix-powers-W-must-have-shape'),
        pytest.param(matrix_powers, (KEEP, [1, 0, 0], 3), {}, ValueError, 'v must have shape', id='matrix-powers-v-must-have-shape'),
        pytest.param(matrix_powers, (KEEP, [1, 0], -1), {}, ValueError, 'steps must', id='matrix-powers-steps'),
        pytest.param(scalar_chain, (0.5, 2.5), {}, ValueError, 'steps must', id='scalar-chain-steps'),
        pytest.param(scalar_chain, ('a', 3), {}, ValueError, 'w must be', id='scalar-chain-w-must-be'),
        pytest.param(eigen_split, ([[1.0, 1.0], [0.0, 1.0]], [1, 0]), {}, ValueError, 'W must be diagonalisable', id='eigen-split-diagonalisable'),
    ]
    return cases


@pytest.mark.parametrize("call, args, kwargs, error, match", _errors_name_the_argument_cases())
def test_errors_name_the_argument(call, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(*args, **kwargs)


def test_transpose_has_the_same_eigenvalues():
    rng = np.random.default_rng(3)
    W = rng.normal(size=(5, 5))
    assert spectral_radius(W.T) == pytest.approx(spectral_radius(W), rel=1e-12)


def test_explode_preset_leaves_the_map_after_four_steps():
    from mwm.widgets.ch07_fade import MAP
    path = matrix_powers(PRESETS["explode"], [1, 0], 30)
    inside = np.all(np.abs(path) <= MAP, axis=1)
    assert inside[:4].all() and not inside[4]
    assert round(float(np.linalg.norm(path[30])), 4) == 195.7455
    assert round(float(np.linalg.norm(matrix_powers(PRESETS["fade"], [1, 0], 30)[30])), 4) == 0.0010


def test_small_state_gradient_close_to_the_plain_power_then_bitten():
    # chapter 7, "Putting tanh back": from h0 = 0.01 the blame follows 1.5^t while the note is small
    notes, blame = scalar_chain(1.5, 30, h0=0.01, squash=True)
    plain = scalar_chain(1.5, 10)[1]
    assert round(notes[5], 3) == 0.076 and round(blame[5], 2) == 7.52 and round(plain[5], 2) == 7.59
    assert round(notes[10], 2) == 0.49 and round(blame[10], 2) == 34.35 and round(plain[10], 2) == 57.67
    assert blame[5] / plain[5] > 0.98 and blame[10] / plain[10] < 0.6


def test_spectral_radius_is_not_the_spectral_norm():
    # chapter 7: the squeeze respects the spectral norm, not the spectral radius
    N = np.array([[1.0, -1.0], [1.0, -1.0]])
    assert spectral_radius(N) < 1e-7 and np.all(matrix_powers(N, [0.3, -2.0], 2)[2] == 0)
    assert spectral_radius(np.diag([1.0, 0.5]) @ N) == pytest.approx(0.5, abs=1e-12)
    big = np.array([[0.5, 10.0], [0.0, 0.5]])
    # one step stretches (0, 1) to length 10.01, twenty times the spectral radius 0.5
    assert round(float(np.linalg.norm(matrix_powers(big, [0, 1], 1)[1])), 2) == 10.01 and spectral_radius(big) == 0.5


def test_a_shear_with_eigenvalues_one_still_grows():
    shear = np.array([[1.0, 1.0], [0.0, 1.0]])
    assert spectral_radius(shear) == 1.0
    path = matrix_powers(shear, [0, 1], 10)
    np.testing.assert_array_equal(path, np.stack([np.arange(11), np.ones(11)], axis=1))


def test_chapter_7_pause_and_predict_answers():
    # 1: w = 0.8 first drops below a thousandth at step 31
    assert first_step_below(0.8, 1e-3) == 31
    powers = scalar_chain(0.8, 31)[1]
    assert round(powers[30], 6) == 0.001238 and round(powers[31], 6) == 0.000990
    # 3: 0.9 x rotate spirals inwards
    R09 = 0.9 * ROTATE
    values = np.linalg.eigvals(R09)
    np.testing.assert_allclose(sorted(values, key=lambda z: z.imag), [0.72 - 0.54j, 0.72 + 0.54j], atol=1e-15)
    np.testing.assert_allclose(np.abs(values), 0.9, atol=1e-15)
    assert round(turn_angle(R09), 2) == 36.87
    lengths = np.linalg.norm(matrix_powers(R09, [1, 0], 30), axis=1)
    np.testing.assert_allclose(lengths, 0.9 ** np.arange(31), rtol=1e-13)
    assert round(lengths[10], 4) == 0.3487 and round(lengths[30], 4) == 0.0424
    # 4: from (0, 1) the split is 0.2 (4, 1) - 0.8 (1, -1), and the note still ends at (0.8, 0.2)
    _, _, coefficients = eigen_split(KEEP, [0, 1])
    np.testing.assert_allclose(coefficients, [0.2, -0.8], atol=1e-15)
    path = matrix_powers(KEEP, [0, 1], 60)
    np.testing.assert_allclose(path[1], [0.4, 0.6], atol=1e-15)
    np.testing.assert_allclose(path[2], [0.6, 0.4], atol=1e-15)
    np.testing.assert_allclose(path[60], [0.8, 0.2], atol=1e-15)


def test_chapter_7_proof_2_vector_form():
    """|W^T D v| <= |W^T| |D v| <= |W| |v| for slopes in [0, 1]: the project's squeezed step back
    (rnn_step_backward, blame v on a tanh cell's new note) never outgrows the spectral norm ||W||_2."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        W, v = rng.normal(size=(4, 4)), rng.normal(size=4)
        h_prev, x, h_new = rng.normal(size=4), rng.normal(size=2), np.tanh(rng.normal(size=4))
        cache = {"h_prev": h_prev, "x": x, "h": h_new}
        dh_prev = rnn_step_backward(v, cache, dict(W=W, U=np.zeros((4, 2)), b=np.zeros(4)))[1]
        np.testing.assert_allclose(dh_prev, W.T @ ((1 - h_new ** 2) * v), rtol=1e-12, atol=1e-15)
        assert np.linalg.norm(dh_prev) <= np.linalg.norm(W, 2) * np.linalg.norm(v) * (1 + 1e-12)
