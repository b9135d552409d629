"""Chapter 4's checks, moved out of the reader's path (issue 26).

The chapter states the read-out's gradient in two folded proofs and quotes the worked
example's numbers; here both proofs are checked against central differences on the
chapter's own numbers (the logits after "the train to", and the small cell of the chapter
with a made-up true word at each of its five steps), and the numbers the chapter quotes
are recomputed at the precision it writes them.
"""
import numpy as np

from mwm import cross_entropy, one_hot, readout, readout_gradient, rnn_forward, sequence_loss, softmax
from mwm.widgets import ch04_jobs

LOGITS = np.array([2, 1, 0.5, -1])          # Delhi, Mumbai, late, "the" after "the train to"
EPS = 1e-6


def small_cell():
    """The chapter's cell: hidden state of 4, words of 3, a read-out over 6 classes (rng 4)."""
    rng = np.random.default_rng(4)
    W, U, b = rng.normal(0, 0.5, (4, 4)), rng.normal(0, 0.5, (4, 3)), np.zeros(4)
    V, b_V = rng.normal(0, 1.0, (6, 4)), np.zeros(6)
    xs = rng.normal(size=(5, 3))
    return dict(W=W, U=U, b=b), V, b_V, xs


def test_proof_1_prediction_minus_truth_is_the_central_difference():
    def loss(y):
        return cross_entropy(softmax(y), 0)[0]          # truth: Delhi
    nudged = [(loss(LOGITS + EPS * one_hot(i, 4)) - loss(LOGITS - EPS * one_hot(i, 4))) / (2 * EPS) for i in range(4)]
    formula = readout_gradient(softmax(LOGITS), 0)
    np.testing.assert_allclose(nudged, formula, atol=1e-8)
    assert np.round(formula, 5).tolist() == [-0.39054, 0.22421, 0.13599, 0.03034]
    assert np.round(formula, 3).tolist() == [-0.391, 0.224, 0.136, 0.03]   # the proof's worked numbers
    assert abs(formula.sum()) < 1e-12


def test_proof_2_the_gradient_of_V_sums_one_outer_product_per_step():
    cell, V, b_V, xs = small_cell()
    hs = rnn_forward(xs, cell)[0]
    targets = [3, 4, 5, 0, 1]                            # made-up true words at the five steps
    formula = readout_gradient(readout(hs, V, b_V), targets).T @ hs
    numeric = np.zeros_like(V)
    for i, j in np.ndindex(V.shape):
        E = np.zeros_like(V)
        E[i, j] = EPS
        numeric[i, j] = (sequence_loss(readout(hs, V + E, b_V), targets)
                         - sequence_loss(readout(hs, V - E, b_V), targets)) / (2 * EPS)
    assert V.size == 24
    np.testing.assert_allclose(formula, numeric, atol=1e-6)
    # the bias: one (p_t - y*_t) per step
    numeric_b = [(sequence_loss(readout(hs, V, b_V + EPS * one_hot(i, 6)), targets)
                  - sequence_loss(readout(hs, V, b_V - EPS * one_hot(i, 6)), targets)) / (2 * EPS) for i in range(6)]
    np.testing.assert_allclose(readout_gradient(readout(hs, V, b_V), targets).sum(0), numeric_b, atol=1e-6)


def test_the_numbers_the_chapter_quotes():
    p = softmax(LOGITS)
    assert np.round(np.exp(LOGITS), 3).tolist() == [7.389, 2.718, 1.649, 0.368]
    assert round(np.exp(LOGITS).sum(), 3) == 12.124
    assert np.round(p, 3).tolist() == [0.609, 0.224, 0.136, 0.03]
    assert round(cross_entropy(p, 0)[0], 3) == 0.495 and round(cross_entropy(p, 1)[0], 3) == 1.495
    assert abs(cross_entropy(p, 1)[0] - cross_entropy(p, 0)[0] - 1) < 1e-12    # "exactly 1 more"
    # the worked example used to show what rounding p first does: -ln 0.609 and -ln 0.224
    assert (round(-np.log(0.609), 4), round(-np.log(0.224), 4)) == (0.4959, 1.4961)
    steps = softmax(ch04_jobs.LOGITS)                   # the panel's logits, as the chapter imports them
    truth = [ch04_jobs.VOCAB.index(w) for w in ch04_jobs.SENTENCE[1:]]
    assert np.round(cross_entropy(steps, truth), 3).tolist() == [0.285, 0.419, 0.495]
    L = sequence_loss(steps, truth)
    assert round(L, 3) == 1.199 and round(L / 3, 3) == 0.4
    assert np.round(steps[2, 3:], 3).tolist() == [0.609, 0.224, 0.136] and round(steps[2, 0], 3) == 0.03
    p_true = steps[np.arange(3), truth]
    assert np.round(p_true, 3).tolist() == [0.752, 0.658, 0.609] and round(p_true.prod(), 4) == 0.3015
    assert round(np.exp(-L), 4) == 0.3015
    clueless = np.full((3, 6), 1 / 6)
    assert round(sequence_loss(clueless, truth), 3) == 5.375 and round(np.log(6), 3) == 1.792


def test_a_later_word_never_moves_an_earlier_read_out():
    cell, V, b_V, xs = small_cell()

    def answers(words):
        return readout(rnn_forward(words, cell)[0], V, b_V)
    for position in range(1, 6):
        changed = xs.copy()
        changed[position - 1] += 1.0
        moved = np.abs(answers(changed) - answers(xs)).max(axis=1)
        assert np.all(moved[:position - 1] == 0) and np.all(moved[position - 1:] > 0)
