"""Chapter 1: bag of words, window, running note, with the chapter's numbers."""
import itertools

import numpy as np
import pytest

from mwm.order import TOY_VECTORS, bag_of_words, running_state, turn_matrix, window, word_counts, words_of

A, B = "dog bites man", "man bites dog"


def test_toy_vectors_are_the_units():
    assert TOY_VECTORS["dog"].tolist() == [1, 0]
    assert TOY_VECTORS["man"].tolist() == [0, 1]
    assert TOY_VECTORS["bites"].tolist() == [1, 1]


def test_bag_of_words_cannot_see_order():
    assert word_counts(A) == word_counts(B)
    np.testing.assert_array_equal(bag_of_words(A), [2, 2])
    np.testing.assert_array_equal(bag_of_words(B), [2, 2])


def test_quarter_turn_sends_a_b_to_minus_b_a():
    np.testing.assert_array_equal(turn_matrix(90) @ np.array([3.0, 5.0]), [-5, 3])
    np.testing.assert_array_equal(turn_matrix(90), [[0, -1], [1, 0]])


def test_running_note_step_by_step_matches_seed():
    notes = running_state(A, turn_matrix(90))
    np.testing.assert_array_equal(notes, [[1, 0], [1, 2], [-2, 2]])
    notes = running_state(B, turn_matrix(90))
    np.testing.assert_array_equal(notes, [[0, 1], [0, 1], [0, 0]])


def test_no_turn_is_the_plain_sum():
    np.testing.assert_array_equal(running_state(A, turn_matrix(0))[-1], [2, 2])
    np.testing.assert_array_equal(running_state(B, turn_matrix(0))[-1], [2, 2])


def test_half_turn_puts_both_sentences_at_the_origin():
    np.testing.assert_allclose(running_state(A, turn_matrix(180))[-1], [0, 0], atol=1e-12)
    np.testing.assert_allclose(running_state(B, turn_matrix(180))[-1], [0, 0], atol=1e-12)


def test_at_90_degrees_no_other_order_lands_on_sentence_a():
    a = running_state(A, turn_matrix(90))[-1]
    finals = {" ".join(p): running_state(list(p), turn_matrix(90))[-1]
              for p in itertools.permutations(["dog", "bites", "man"])}
    others = {k: v for k, v in finals.items() if k != A}
    assert len(others) == 5
    assert not any(np.allclose(v, a) for v in others.values())
    # ...but two of the other orders collide with each other at (-1, 1).
    assert finals["dog man bites"].tolist() == finals["bites dog man"].tolist() == [-1, 1]
    # the collision is the toy's: W^2 = -I at 90 degrees, and bites = dog + man
    np.testing.assert_allclose(turn_matrix(90) @ turn_matrix(90), -np.eye(2), atol=1e-12)
    np.testing.assert_array_equal(TOY_VECTORS["bites"], TOY_VECTORS["dog"] + TOY_VECTORS["man"])


def test_at_60_degrees_all_six_orders_differ():
    notes = [running_state(list(p), turn_matrix(60))[-1] for p in itertools.permutations(["dog", "bites", "man"])]
    assert len({tuple(n.round(6)) for n in notes}) == 6
    gaps = [np.linalg.norm(a - b) for a, b in itertools.combinations(notes, 2)]
    assert min(gaps) > 0.5  # well apart, not a rounding accident


def test_note_is_sum_of_stamped_words():
    W = 0.7 * turn_matrix(50)
    x = [TOY_VECTORS[w] for w in words_of(A)]
    np.testing.assert_allclose(running_state(A, W)[-1], W @ W @ x[0] + W @ x[1] + x[2])


def test_bites_dog_predict_answer():
    np.testing.assert_array_equal(running_state("bites dog", turn_matrix(90))[-1], [0, 1])


def test_window_forgets_train():
    announcement = "The train to Delhi from platform four is late"
    assert window(announcement, 3) == ["four", "is", "late"]
    assert "train" not in window(announcement, 3)
    assert "train" in window(announcement, 8)
    assert "train" not in window(announcement, 7)


def test_bag_pair_that_differs():
    assert word_counts("dog bites man") != word_counts("dog bites dog")


@pytest.mark.parametrize("bad", [0, -2, 2.5, "3"])
def test_window_rejects_bad_n(bad):
    with pytest.raises(ValueError, match="n must"):
        window("a b c", bad)


def test_running_state_errors_name_the_argument():
    with pytest.raises(ValueError, match="W must have shape"):
        running_state(A, np.eye(3))
    with pytest.raises(ValueError, match="sentence has words with no vector"):
        running_state("dog eats man", np.eye(2))
    with pytest.raises(ValueError, match="sentence must contain at least one word"):
        running_state("", np.eye(2))
