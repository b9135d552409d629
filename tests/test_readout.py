"""Chapter 4: read-out, softmax, loss, blame."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mwm.readout import one_hot, readout, readout_gradient, sequence_loss, softmax, cross_entropy

SCORES = [2, 1, 0.5, -1]  # Delhi, Mumbai, late, the


def test_softmax_of_the_train_to():
    np.testing.assert_allclose(softmax(SCORES), [0.609, 0.224, 0.136, 0.030], atol=5e-4)
    denominator = np.exp(SCORES[0]) / softmax(SCORES)[0]     # the sum of e^score that softmax divides by
    assert denominator == pytest.approx(12.124, abs=5e-4)
    np.testing.assert_allclose(softmax(SCORES) * denominator, [7.389, 2.718, 1.649, 0.368], atol=5e-4)


def test_loss_for_delhi_and_mumbai():
    p = softmax(SCORES)
    assert cross_entropy(p, 0)[0] == pytest.approx(0.495, abs=5e-4)
    assert cross_entropy(p, 1)[0] == pytest.approx(1.495, abs=5e-4)
    assert cross_entropy(p, 1)[0] == pytest.approx(np.log(np.exp(SCORES).sum()) - 1, abs=1e-12)


def test_gradient_is_prediction_minus_truth():
    g = readout_gradient(softmax(SCORES), 0)
    np.testing.assert_allclose(g, [-0.391, 0.224, 0.136, 0.030], atol=5e-4)
    assert g.sum() == pytest.approx(0, abs=1e-12)


def test_gradient_matches_finite_differences():
    o = np.array([0.3, -1.1, 2.0, 0.4])
    target = 2
    eps = 1e-6
    numeric = np.array([(cross_entropy(softmax(o + eps * e), target)[0] - cross_entropy(softmax(o - eps * e), target)[0]) / (2 * eps)
                        for e in np.eye(4)])
    np.testing.assert_allclose(readout_gradient(softmax(o), target), numeric, atol=1e-8)


def test_sequence_loss_is_sum_of_surprises():
    probs = softmax(np.array([[2, 1, 0.5, -1], [0.1, 0.2, 0.3, 0.4]]))
    assert sequence_loss(probs, [0, 3]) == pytest.approx(cross_entropy(probs[0], 0)[0] + cross_entropy(probs[1], 3)[0])


def test_readout_is_softmax_of_V_h_plus_c():
    V = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    c = np.array([0.0, 0.1, -0.2])
    h = np.array([0.3, -0.7])
    np.testing.assert_allclose(readout(h, V, c), softmax(V @ h + c))


def test_temperature_numbers():
    np.testing.assert_allclose(softmax(SCORES, 0.5), [0.842, 0.114, 0.042, 0.002], atol=5e-4)
    np.testing.assert_allclose(softmax(SCORES, 2), [0.434, 0.263, 0.205, 0.097], atol=5e-4)


def test_tiny_temperature_is_greedy_without_nan():
    p = softmax([1, 2, 3], 1e-3)
    assert p.tolist() == [0.0, 0.0, 1.0]


def test_huge_temperature_is_uniform():
    np.testing.assert_allclose(softmax(SCORES, 1e9), [0.25] * 4, atol=1e-8)


@pytest.mark.parametrize("t", [0, -1, -0.5, float("nan"), float("inf")])
def test_bad_temperature_raises(t):
    with pytest.raises(ValueError, match="temperature"):
        softmax(SCORES, t)


def _readout_shape_errors_cases():
    """One bad input per case: (function, args, kwargs, error, message naming the argument)."""
    cases = []
    cases += [
        pytest.param(readout, (np.zeros(3), np.zeros((4, 2)), np.zeros(4)), {}, ValueError, 'h must have 2 numbers', id='readout-h-must-have-2-numbers'),
        pytest.param(readout, (np.zeros(2), np.zeros((4, 2)), np.zeros(3)), {}, ValueError, 'b_V must have shape', id='readout-b_V-must-have-shape'),
        pytest.param(softmax, ([],), {}, ValueError, 'logits must have at least one entry', id='softmax-logits-must-have-at-least-one-entry'),
        pytest.param(cross_entropy, (softmax(SCORES), 7), {}, ValueError, 'targets must', id='cross_entropy-targets'),
        pytest.param(cross_entropy, ([0.5, 0.6], 0), {}, ValueError, 'probs must be probabilities', id='cross_entropy-probs-must-be-probabilities'),
        pytest.param(one_hot, (4, 4), {}, ValueError, 'index must', id='one-hot-index'),
    ]
    return cases


@pytest.mark.parametrize("call, args, kwargs, error, match", _readout_shape_errors_cases())
def test_readout_shape_errors(call, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(*args, **kwargs)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-300, 300), min_size=1, max_size=12), st.floats(1e-4, 1e4))
def test_softmax_is_a_distribution_and_keeps_order(scores, T):
    p = softmax(scores, T)
    assert np.all(p >= 0) and p.sum() == pytest.approx(1.0)
    s = np.asarray(scores)
    i, j = int(np.argmax(s)), int(np.argmin(s))
    assert p[i] >= p[j]
