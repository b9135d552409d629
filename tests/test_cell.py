"""Chapters 2-3: the recurrent cell and its weight count."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mwm.cell import rnn_forward, rnn_step, scalar_rnn
from mwm.params import (cell_param_count, readout_param_count, stack_param_count,
                        unshared_param_count)


def test_first_word_fades_0_7616_0_3634_0_1797():
    hs = scalar_rnn([1, 0, 0], w=0.5, u=1, b=0, h0=0)
    np.testing.assert_allclose(hs, [0.7616, 0.3634, 0.1797], atol=5e-5)
    assert hs[0] == pytest.approx(np.tanh(1.0))
    assert hs[1] == pytest.approx(np.tanh(0.5 * np.tanh(1.0)))


def test_changing_the_first_of_five_words_barely_moves_h5():
    h5 = {name: scalar_rnn(xs, w=0.5, u=1)[-1] for name, xs in
          {"as read": [1.0, -1.0, 0.5, 0.0, 2.0], "reversed": [2.0, 0.0, 0.5, -1.0, 1.0],
           "word 1 changed": [-1.0, -1.0, 0.5, 0.0, 2.0]}.items()}
    assert [round(h5[k], 4) for k in ("as read", "reversed", "word 1 changed")] == [0.9677, 0.6049, 0.9651]
    assert round(abs(h5["as read"] - h5["word 1 changed"]), 4) == 0.0027


def test_w_equal_1_lasts_longer():
    hs = scalar_rnn([1, 0], w=1, u=1)
    np.testing.assert_allclose(hs, [0.7616, 0.6420], atol=5e-5)
    assert hs[1] > scalar_rnn([1, 0], w=0.5, u=1)[1]   # w = 0.5 keeps only 0.3634 of word 1 after one step


def test_tanh_slope_at_h1():
    h1 = scalar_rnn([1], w=0.5, u=1)[0]
    assert h1 ** 2 == pytest.approx(0.5800, abs=5e-5)
    assert 1 - h1 ** 2 == pytest.approx(0.42, abs=5e-3)


def test_elman_two_step_example_of_seed_003():
    # Seed 003 calls the input weight W (0.8) and the recurrent weight U (0.5).
    h1, h2 = scalar_rnn([1.0, -0.5], w=0.5, u=0.8)
    assert round(h1, 3) == 0.664
    assert round(h2, 3) == -0.068
    assert 0.5 * h1 + 0.8 * -0.5 == pytest.approx(-0.068, abs=5e-4)


def test_small_argument_approximation_w_squared():
    w, u, xs = 0.5, 0.01, np.array([1.0, 0.0, 0.0])
    h3 = scalar_rnn(xs, w=w, u=u)[-1]
    assert h3 == pytest.approx(w ** 2 * u * xs[0], rel=1e-3)


def test_vector_cell_equals_scalar_cell_for_one_number():
    xs = np.array([0.3, -1.2, 0.8, 0.1])
    hs = rnn_forward(xs[:, None], dict(W=[[0.7]], U=[[1.3]], b=[0.2]), h0=[-0.4])[0]
    np.testing.assert_allclose(hs[:, 0], scalar_rnn(xs, 0.7, 1.3, 0.2, -0.4), rtol=0, atol=1e-15)


def test_rnn_step_returns_cache_and_matches_forward():
    rng = np.random.default_rng(1)
    W, U, b = rng.normal(size=(4, 4)), rng.normal(size=(4, 3)), rng.normal(size=4)
    xs = rng.normal(size=(5, 3))
    hs = rnn_forward(xs, dict(W=W, U=U, b=b))[0]
    h = np.zeros(4)
    for t in range(5):
        h_new, cache = rnn_step(h, xs[t], dict(W=W, U=U, b=b))
        assert cache["h_prev"] is not None and np.array_equal(cache["h"], h_new)
        np.testing.assert_allclose(h_new, hs[t], atol=1e-14)
        h = h_new


def test_batch_equals_one_sequence_at_a_time():
    rng = np.random.default_rng(2)
    W, U, b = rng.normal(size=(3, 3)), rng.normal(size=(3, 2)), rng.normal(size=3)
    xs = rng.normal(size=(6, 4, 2))
    hs = rnn_forward(xs, dict(W=W, U=U, b=b))[0]
    assert hs.shape == (6, 4, 3)
    for k in range(4):
        np.testing.assert_allclose(hs[:, k], rnn_forward(xs[:, k], dict(W=W, U=U, b=b))[0], atol=1e-14)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-50, 50), min_size=1, max_size=30), st.floats(-3, 3), st.floats(-3, 3), st.floats(-3, 3))
def test_notes_stay_strictly_inside_minus_one_one(xs, w, u, b):
    hs = scalar_rnn(xs, w, u, b)
    assert np.all(np.abs(hs) <= 1.0)
    assert len(hs) == len(xs)


def test_weight_count_32_whatever_the_length():
    assert cell_param_count(4, 3) == 32 == 4 * 4 + 4 * 3 + 4
    assert unshared_param_count(4, 3, 10) == 320
    assert cell_param_count(3, 2) == 18  # the pause-and-predict: h=3, d=2, any length


def test_param_counts_of_the_unit():
    assert stack_param_count(128, 64) == 24_704
    assert stack_param_count(128, 64, bidirectional=True) == 49_408
    assert stack_param_count(128, 64, num_layers=2) == 57_600
    assert cell_param_count(128, 64, "gru") == 74_112
    assert cell_param_count(128, 64, "lstm") == 98_816
    assert readout_param_count(48, 28) == 28 * 48 + 28


def _bad_shapes_raise_value_errors_naming_the_argument_cases():
    """One bad input per case: (function, args, kwargs, error, message naming the argument)."""
    cases = []
    W, U, b = np.eye(4), np.ones((4, 3)), np.zeros(4)
    xs = np.ones((5, 3))
    cases += [
        pytest.param(rnn_forward, (xs, dict(W=np.ones((4, 3)), U=U, b=b)), {}, ValueError, 'W must have shape', id='rnn-forward-W-must-have-shape'),
        pytest.param(rnn_forward, (xs, dict(W=W, U=np.ones((5, 3)), b=b)), {}, ValueError, 'U must have shape', id='rnn-forward-U-must-have-shape'),
        pytest.param(rnn_forward, (xs, dict(W=W, U=U, b=np.zeros(3))), {}, ValueError, 'b must have shape', id='rnn-forward-b-must-have-shape'),
        pytest.param(rnn_forward, (np.ones((5, 2)), dict(W=W, U=U, b=b)), {}, ValueError, 'xs must have shape', id='rnn-forward-xs-must-have-shape'),
        pytest.param(rnn_step, (np.zeros(4), np.ones(2), dict(W=W, U=U, b=b)), {}, ValueError, 'x must have shape', id='rnn-step-x-must-have-shape'),
        pytest.param(rnn_step, (np.zeros(3), np.ones(3), dict(W=W, U=U, b=b)), {}, ValueError, 'h_prev must have shape', id='rnn-step-h-prev-must-have-shape'),
        pytest.param(rnn_forward, (xs, dict(W=W, U=U, b=b)), {'h0': np.zeros(5)}, ValueError, 'h0 must have shape', id='rnn-forward-h0-must-have-shape'),
    ]
    return cases


@pytest.mark.parametrize("call, args, kwargs, error, match", _bad_shapes_raise_value_errors_naming_the_argument_cases())
def test_bad_shapes_raise_value_errors_naming_the_argument(call, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(*args, **kwargs)


def test_empty_sequence_raises():
    with pytest.raises(ValueError, match="xs must contain at least one step"):
        rnn_forward(np.zeros((0, 3)), dict(W=np.eye(4), U=np.ones((4, 3)), b=np.zeros(4)))[0]
    with pytest.raises(ValueError, match="xs must contain at least one step"):
        scalar_rnn([], 0.5, 1)


def test_bad_scalars_raise():
    with pytest.raises(ValueError, match="w must be"):
        scalar_rnn([1, 0], w=[0.5, 0.2], u=1)
    with pytest.raises(ValueError, match="u must be a finite number"):
        scalar_rnn([1, 0], w=0.5, u=float("nan"))


@pytest.mark.parametrize("kwargs,name", [({"hidden_size": 0, "input_size": 3}, "hidden_size"),
                                         ({"hidden_size": 4, "input_size": -1}, "input_size"),
                                         ({"hidden_size": 4, "input_size": 3, "cell": "tcn"}, "cell")])
def test_param_count_rejects_bad_sizes(kwargs, name):
    with pytest.raises(ValueError, match=name):
        cell_param_count(**kwargs)
