"""Chapter 13's beam search written out by hand (the cell defining ``beam_by_hand``), run from
the notebook's own source and checked against ``mwm.decoding.beam_search``; and the tree's and BLEU's small
identities the chapter's proofs use (ranking by probability or by log-probability; the geometric mean)."""
import math

import numpy as np
import pytest

from mwm import ProbabilityTree, beam_search, bleu_details, exhaustive_search, greedy_decode
from mwm.decoding import EOS, SEED_TREE
from tests.chapter_cells import cell_with
from tests.test_ch13_translator import CHAPTER, chapter_function

TREE = ProbabilityTree(SEED_TREE)
REFERENCE = "the train is running late"


@pytest.fixture(scope="module")
def beam_by_hand():
    return chapter_function("beam_by_hand")


@pytest.mark.parametrize("B", [1, 2, 3])
def test_by_hand_equals_mwm_on_the_tree(beam_by_hand, B):
    tokens, logp, _ = beam_by_hand(TREE, B)
    best = beam_search(TREE, B).best
    assert tokens == best.tokens and logp == best.log_prob


def test_the_by_hand_cell_prints_what_mwm_beam_search_finds():
    """The cell's printed winners for B = 1, 2, 3 are mwm's: 'the train' 0.20, then 'our train' 0.36 twice."""
    printed = "".join("".join(o.get("text", "")) for o in cell_with(CHAPTER, "def beam_by_hand(")["outputs"])
    expected = "".join(f"B = {B}: {TREE.words(beam_search(TREE, B).best.tokens)!r}, "
                       f"probability {beam_search(TREE, B).best.probability:.2f}\n" for B in (1, 2, 3))
    assert printed == expected
    assert expected == "B = 1: 'the train', probability 0.20\nB = 2: 'our train', probability 0.36\nB = 3: 'our train', probability 0.36\n"


def test_by_hand_results_on_the_tree(beam_by_hand):
    assert TREE.words(beam_by_hand(TREE, 1)[0]) == "the train" and beam_by_hand(TREE, 1)[0] == greedy_decode(TREE).tokens
    tokens, logp, _ = beam_by_hand(TREE, 2)
    assert TREE.words(tokens) == "our train" and math.exp(logp) == pytest.approx(0.36)
    best = exhaustive_search(TREE, 3)[0]
    assert beam_by_hand(TREE, 10)[:2] == (best.tokens, best.log_prob)   # nothing pruned: the full search


def test_by_hand_stops_early_and_prefers_the_empty_output_with_the_plain_sum(beam_by_hand):
    short = ProbabilityTree({(): {"chai": 0.6, EOS: 0.4}, ("chai",): {"please": 0.5, EOS: 0.5}})
    tokens, logp, _ = beam_by_hand(short, 2)
    assert tokens == (short.eos_id,) and logp == pytest.approx(np.log(0.4))
    assert tokens == beam_search(short, 2).best.tokens
    assert short.words(beam_search(short, 2, nu=1.0).best.tokens) == "chai please"


def test_by_hand_is_at_most_fifteen_lines():
    from tests.chapter_cells import definition, source_of
    body = definition(source_of(cell_with(CHAPTER, "def beam_by_hand(")), "beam_by_hand")
    assert len(body.splitlines()) <= 15


def test_ranking_by_probability_and_by_log_probability_agree_on_the_tree():
    """Proof 1 on the tree: the seven sentences in the same order either way."""
    everything = exhaustive_search(TREE, max_length=3)
    assert len(everything) == 7
    by_p = [h.tokens for h in sorted(everything, key=lambda h: -h.probability)]
    by_log_p = [h.tokens for h in sorted(everything, key=lambda h: -h.log_prob)]
    assert by_p == by_log_p and TREE.words(by_p[0]) == "our train"


def test_bleus_geometric_mean_is_the_exponential_of_the_mean_log_precision():
    """Proof 2's numbers: sqrt(1 * 2/3) = exp((ln 1 + ln 2/3) / 2) = 0.8165; BLEU-2 0.636; the word salad 0.450."""
    d = bleu_details("the train is late", REFERENCE, max_n=2)
    assert d.precisions == pytest.approx((1.0, 2 / 3)) and round(d.brevity_penalty, 4) == 0.7788
    geometric = math.sqrt(d.precisions[0] * d.precisions[1])
    assert geometric == pytest.approx(math.exp(np.mean(np.log(d.precisions))), abs=1e-15)
    assert f"{geometric:.4f}" == "0.8165" and round(d.score, 3) == 0.636
    salad = bleu_details("late is the train", REFERENCE, max_n=2)
    assert salad.precisions == pytest.approx((1.0, 1 / 3))
    assert salad.score == pytest.approx(math.exp(-0.25) * math.sqrt(1 / 3), abs=1e-15) and round(salad.score, 3) == 0.450
