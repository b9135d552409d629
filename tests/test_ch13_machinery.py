"""Chapter 13's beam search written out by hand (the cell defining ``beam_by_hand``), run from
the notebook's own source and checked against ``mwm.decoding.beam_search``."""
import math

import numpy as np
import pytest

from mwm import ProbabilityTree, beam_search, exhaustive_search, greedy_decode
from mwm.decoding import EOS, SEED_TREE
from tests.test_ch13_translator import chapter_function

TREE = ProbabilityTree(SEED_TREE)


@pytest.fixture(scope="module")
def beam_by_hand():
    return chapter_function("beam_by_hand")


@pytest.mark.parametrize("B", [1, 2, 3])
def test_by_hand_equals_mwm_on_the_tree(beam_by_hand, B):
    tokens, score, _ = beam_by_hand(TREE, B)
    best = beam_search(TREE, B).best
    assert tokens == best.tokens and score == best.log_prob


def test_by_hand_results_on_the_tree(beam_by_hand):
    assert TREE.words(beam_by_hand(TREE, 1)[0]) == "the train" and beam_by_hand(TREE, 1)[0] == greedy_decode(TREE).tokens
    tokens, score, _ = beam_by_hand(TREE, 2)
    assert TREE.words(tokens) == "our train" and math.exp(score) == pytest.approx(0.36)
    best = exhaustive_search(TREE, 3)[0]
    assert beam_by_hand(TREE, 10)[:2] == (best.tokens, best.log_prob)   # nothing pruned: the full search


def test_by_hand_stops_early_and_prefers_the_empty_output_with_the_plain_sum(beam_by_hand):
    short = ProbabilityTree({(): {"chai": 0.6, EOS: 0.4}, ("chai",): {"please": 0.5, EOS: 0.5}})
    tokens, score, _ = beam_by_hand(short, 2)
    assert tokens == (short.eos_id,) and score == pytest.approx(np.log(0.4))
    assert tokens == beam_search(short, 2).best.tokens


def test_by_hand_is_at_most_fifteen_lines():
    from tests.chapter_cells import cell_with, definition, source_of
    from tests.test_ch13_translator import CHAPTER
    body = definition(source_of(cell_with(CHAPTER, "def beam_by_hand(")), "beam_by_hand")
    assert len(body.splitlines()) <= 15
