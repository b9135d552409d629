"""Chapter 11's machinery: the chapter's two-way reader, a visible numpy loop, checked against mwm.readers.

The loop is taken from the chapter's own code cell (``def two_way``), so the test checks what the learner reads.
"""
import numpy as np
import pytest

from mwm.readers import TEDDY_SENTENCES, bidirectional_forward, init_reader, toy_word_vectors
from tests.chapter_cells import chapter_function, chapter_path


def two_way(xs, fwd, bwd):
    """The chapter's loop: one pass each way over plain cells, the two hidden states joined at every word."""
    return chapter_function(chapter_path(11), "two_way", {"np": np})(xs, fwd, bwd)


def test_loop_matches_the_library_on_the_chapters_teddy_reader():
    vectors = toy_word_vectors(TEDDY_SENTENCES, size=4, seed=11)
    fwd, bwd = init_reader("rnn", 3, 4, bidirectional=True, seed=5)[0]
    for sentence in TEDDY_SENTENCES:
        xs = np.array([vectors[w.lower()] for w in sentence.split()])
        ours = two_way(xs, fwd, bwd)
        assert ours.shape == (7, 6)
        np.testing.assert_allclose(ours, bidirectional_forward(xs, fwd, bwd), rtol=0, atol=1e-12)
    # the chapter's numbers at "Teddy" (word 3) in the first sentence
    xs = np.array([vectors[w.lower()] for w in TEDDY_SENTENCES[0].split()])
    assert two_way(xs, fwd, bwd)[2].round(4).tolist() == [0.7148, 0.7624, 0.1315, 0.1072, -0.0917, -0.86]


def test_loop_on_the_toy_gives_word_1_0_and_0_1797():
    toy = {"W": np.array([[0.5]]), "U": np.array([[1.0]]), "b": np.array([0.0])}
    states = two_way(np.array([[0.0], [0.0], [1.0]]), toy, toy)
    assert states[0, 0] == 0.0 and round(states[0, 1], 4) == 0.1797


@pytest.mark.parametrize("H, d, T, seed", [(1, 1, 1, 0), (3, 4, 7, 1), (8, 5, 12, 2), (16, 2, 30, 3)])
def test_loop_matches_the_library_on_random_readers(H, d, T, seed):
    fwd, bwd = init_reader("rnn", H, d, bidirectional=True, seed=seed, scale=1.0)[0]
    xs = np.random.default_rng(seed).normal(size=(T, d))
    ours = two_way(xs, fwd, bwd)
    np.testing.assert_allclose(ours, bidirectional_forward(xs, fwd, bwd), rtol=0, atol=1e-12)
    # the backward half of word t depends only on words t..T: change word 1 and only the forward halves move
    changed = xs.copy()
    changed[0] += 1.0
    np.testing.assert_array_equal(two_way(changed, fwd, bwd)[1:, H:], ours[1:, H:])


def test_chain_rule_gives_the_two_layer_reach_on_the_toy():
    # the chapter's fold "Why word 3 reaches its own two-layer state least": word 3's nudge meets two bent slopes
    from mwm.widgets.ch11_both_ways import TOY, states_and_reach
    reach = states_and_reach(TOY, "two layers", 3)[2]
    h1, h2 = np.tanh(1.0), np.tanh(np.tanh(1.0))      # layer 1's and layer 2's states at word 3
    assert round(h1, 4) == 0.7616 and round(h2, 4) == 0.642
    expected = [(1 - h2 ** 2) * (0.5 + 0.25 * (1 - h1 ** 2)),    # word 1
                (1 - h2 ** 2) * (0.5 + 0.5 * (1 - h1 ** 2)),     # word 2
                (1 - h2 ** 2) * (1 - h1 ** 2)]                   # word 3
    np.testing.assert_allclose(reach, expected, rtol=1e-9)
    assert [round(r, 4) for r in reach] == [0.3556, 0.4173, 0.2469]
