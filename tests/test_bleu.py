"""Chapter 13: BLEU, its pieces, the chapter's numbers, and a check against sacrebleu."""
import math

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from mwm.bleu import (BleuScore, bleu_details, brevity_penalty, clipped_matches, closest_reference_length,
                      corpus_bleu, corpus_bleu_details, matched_positions, ngrams, sentence_bleu, tokens_of)

REF = "the train is running late"


# --- the chapter's numbers ------------------------------------------------------------------

def test_the_train_is_late():
    d = bleu_details("the train is late", REF, max_n=2)
    assert d.matches == (4, 2) and d.totals == (4, 3)
    assert d.precisions == (1.0, 2 / 3)
    assert (d.candidate_length, d.reference_length) == (4, 5)
    assert d.brevity_penalty == pytest.approx(math.exp(1 - 5 / 4), rel=1e-15)
    assert round(d.brevity_penalty, 4) == 0.7788
    assert round(math.sqrt(d.precisions[0] * d.precisions[1]), 4) == 0.8165   # geometric mean of the precisions
    assert round(d.score, 3) == 0.636
    assert d.score == pytest.approx(math.exp(-0.25) * math.sqrt(2 / 3), rel=1e-15)


def test_word_salad():
    d = bleu_details("late is the train", REF, max_n=2)
    assert d.precisions == (1.0, 1 / 3)
    assert round(d.score, 3) == 0.450


def test_too_short():
    d = bleu_details("the train", REF, max_n=2)
    assert d.precisions == (1.0, 1.0)
    assert d.brevity_penalty == pytest.approx(math.exp(1 - 5 / 2), rel=1e-15)
    assert round(d.score, 4) == 0.2231


def test_the_the_the_the_is_clipped():
    assert clipped_matches("the the the the", REF, 1) == (1, 4)
    d = bleu_details("the the the the", REF, max_n=2)
    assert d.precisions[0] == 1 / 4
    assert d.precisions[1] == 0.0 and d.score == 0.0  # "the the" never occurs in the reference


def test_the_train_is_delayed_exact_value():
    d = bleu_details("the train is delayed", REF, max_n=2)
    assert d.precisions == (3 / 4, 2 / 3)
    assert d.brevity_penalty == pytest.approx(math.exp(-0.25), rel=1e-15)
    # sqrt(3/4 * 2/3) = sqrt(1/2)
    assert d.score == pytest.approx(math.exp(-0.25) / math.sqrt(2), rel=1e-15)
    assert round(d.score, 4) == 0.5507
    assert round(d.score, 2) == 0.55


def test_a_wrong_translation_in_the_references_words_beats_the_right_one():
    """Chapter 13's trap: the opposite meaning scores 0.7071 against 0.5507 for the right meaning."""
    wrong = bleu_details("the train is not running late", REF, max_n=2)
    assert wrong.matches == (5, 3) and wrong.totals == (6, 5)
    assert (wrong.candidate_length, wrong.reference_length) == (6, 5) and wrong.brevity_penalty == 1.0
    assert wrong.score == pytest.approx(math.sqrt(5 / 6 * 3 / 5), rel=1e-15)
    assert wrong.score == pytest.approx(math.sqrt(0.5), rel=1e-15)
    assert (round(wrong.score, 4), round(wrong.score, 3)) == (0.7071, 0.707)
    right = bleu_details("the train is delayed", REF, max_n=2)
    assert round(right.score, 3) == 0.551 and wrong.score > right.score


def test_practice_problem_16():
    ref = "we drink chai every morning"
    a = bleu_details("each morning we drink chai", ref, 2)
    b = bleu_details("we drink chai every evening", ref, 2)
    c = bleu_details("we drink chai", ref, 2)
    assert a.precisions == (4 / 5, 2 / 4) and a.brevity_penalty == 1.0 and round(a.score, 4) == 0.6325
    assert b.precisions == (4 / 5, 3 / 4) and round(b.score, 4) == 0.7746
    assert c.precisions == (1.0, 1.0) and round(c.brevity_penalty, 4) == 0.5134 and round(c.score, 4) == 0.5134


# --- the pieces ---------------------------------------------------------------------------

def test_ngrams_and_tokens():
    assert ngrams("a b a b", 2) == {("a", "b"): 2, ("b", "a"): 1}
    assert ngrams("a", 2) == {}
    assert tokens_of("  the  train ") == ("the", "train")
    assert tokens_of([3, 1, 4]) == (3, 1, 4)


def test_clipping_uses_the_most_generous_reference():
    # "the" occurs twice in the second reference, so two of three count
    assert clipped_matches("the the the", ["the cat", "the cat and the dog"], 1) == (2, 3)


def test_matched_positions_mark_the_clipped_matches():
    assert matched_positions("the the the the", REF, 1) == [True, False, False, False]
    assert matched_positions("the train is late", REF, 2) == [True, True, False]
    assert matched_positions("late is the train", REF, 2) == [False, False, True]
    assert matched_positions("the", REF, 2) == []
    rng = np.random.default_rng(0)
    for _ in range(200):
        cand = list(rng.choice(VOCAB[:3], size=int(rng.integers(0, 9))))
        refs = [list(rng.choice(VOCAB[:3], size=int(rng.integers(1, 9)))) for _ in range(2)]
        for n in (1, 2, 3):
            assert sum(matched_positions(cand, refs, n)) == clipped_matches(cand, refs, n)[0]


def test_closest_reference_length_ties_go_to_the_shorter():
    assert closest_reference_length(4, [3, 5]) == 3
    assert closest_reference_length(4, [5, 3]) == 3
    assert closest_reference_length(4, [6, 5, 2]) == 5
    assert closest_reference_length(0, [2, 1]) == 1


def test_brevity_penalty():
    assert brevity_penalty(5, 5) == 1.0 and brevity_penalty(7, 5) == 1.0
    assert brevity_penalty(0, 5) == 0.0 and brevity_penalty(0, 0) == 0.0
    assert brevity_penalty(4, 5) == math.exp(-0.25)


def test_corpus_sums_counts_before_combining():
    cands = ["the train is late", "the train"]
    refs = [REF, REF]
    d = corpus_bleu_details(cands, refs, max_n=2)
    assert d.matches == (6, 3) and d.totals == (6, 4)
    assert (d.candidate_length, d.reference_length) == (6, 10)
    expected = math.exp(1 - 10 / 6) * math.sqrt(1 * 3 / 4)
    assert d.score == pytest.approx(expected, rel=1e-15)
    mean_of_sentences = (sentence_bleu(cands[0], REF, 2) + sentence_bleu(cands[1], REF, 2)) / 2
    assert abs(d.score - mean_of_sentences) > 0.01


def test_token_ids_work_like_words():
    assert corpus_bleu([[1, 2, 3, 5]], [[[1, 2, 3, 4, 5]]], 2) == pytest.approx(sentence_bleu("a b c e", "a b c d e", 2))


def test_a_candidate_shorter_than_n_scores_zero():
    d = bleu_details("the train", REF, max_n=4)
    assert d.totals == (2, 1, 0, 0) and d.score == 0.0


def _bad_input_names_the_argument_cases():
    """One bad input per case: (function, args, kwargs, error, message naming the argument)."""
    cases = []
    cases += [
        pytest.param(sentence_bleu, ('a', 'a'), {'max_n': 0}, ValueError, 'max_n must', id='sentence-bleu-max-n'),
        pytest.param(sentence_bleu, ('a', []), {}, ValueError, 'references must', id='sentence-bleu-references'),
        pytest.param(corpus_bleu, (['a', 'b'], ['a']), {}, ValueError, 'references_list must', id='corpus-bleu-references-list'),
        pytest.param(corpus_bleu, ([], []), {}, ValueError, 'candidates must', id='corpus-bleu-candidates'),
        pytest.param(corpus_bleu, ('a b', ['a b']), {}, ValueError, 'candidates must', id='corpus-bleu-candidates-2'),
        pytest.param(corpus_bleu, (['a', 7], ['a', 'a']), {}, ValueError, 'candidate\\[1\\]', id='corpus-bleu-candidate-1'),
        pytest.param(sentence_bleu, ([['nested']], 'a'), {}, ValueError, 'candidate must', id='sentence-bleu-candidate'),
        pytest.param(brevity_penalty, (-1, 3), {}, ValueError, 'candidate_length must', id='brevity-penalty-candidate-length'),
        pytest.param(corpus_bleu, ([['the', 'train']], [['the', 'train']]), {}, ValueError, 'references\\[0\\] looks like one tokenised reference', id='corpus-bleu-references-0-looks-like-one-tokenise'),
        pytest.param(sentence_bleu, (['the', 'train'], ['the', 'train']), {}, ValueError, 'references looks like one tokenised reference', id='sentence-bleu-references-looks-like-one-tokenise'),
    ]
    cases += [
        pytest.param(closest_reference_length, (3, []), {}, ValueError, 'reference_lengths must', id='closest-reference-length-reference-lengths'),
    ]
    return cases


@pytest.mark.parametrize("call, args, kwargs, error, match", _bad_input_names_the_argument_cases())
def test_bad_input_names_the_argument(call, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(*args, **kwargs)


def test_a_tokenised_candidate_with_reference_strings_is_fine():
    assert corpus_bleu([["the", "train"]], [["the train is late"]], 2) == sentence_bleu("the train", "the train is late", 2)


# --- against sacrebleu on random pairs ------------------------------------------------------

VOCAB = ["the", "train", "is", "late", "our", "bus", "chai"]
#: The random pairs draw from three words, so that even 4-gram matches are frequent.
PAIR_VOCAB = VOCAB[:3]


def _random_sentence(rng, lo, hi):
    return " ".join(rng.choice(PAIR_VOCAB, size=int(rng.integers(lo, hi + 1))))


def _random_corpus(rng, n_sentences, n_refs):
    cands = [_random_sentence(rng, 0, 16) for _ in range(n_sentences)]
    refs = [[_random_sentence(rng, 1, 16) for _ in range(n_refs)] for _ in range(n_sentences)]
    return cands, refs


def _tokenised(refs):
    """Every reference as a list of tokens: several one-word reference strings beside a longer candidate are
    refused as a probable tokenised reference, so random data passes its references tokenised."""
    return [[r.split() for r in entry] for entry in refs]


def _sacrebleu(cands, refs, max_n):
    streams = [list(r) for r in zip(*refs)]  # sacrebleu wants one stream per reference slot
    metric = sacrebleu.BLEU(tokenize="none", smooth_method="none", force=True, effective_order=False,
                            max_ngram_order=max_n)
    return metric.corpus_score(cands, streams).score / 100


def sacrebleu_differences(n_pairs=1000, n_corpora=50, seed=13):
    """Compare with sacrebleu on random data (fixed seed).

    n_pairs random candidates, each with 1-3 random references, scored as one-sentence
    corpora with BLEU-2 and BLEU-4; then n_corpora random corpora of 20 sentences.

    Returns:
        (largest |ours - sacrebleu| over all of them, {max_n: how many pair scores were > 0}).
    """
    rng = np.random.default_rng(seed)
    worst, nonzero = 0.0, {2: 0, 4: 0}
    for k in range(n_pairs):
        cands, refs = _random_corpus(rng, 1, 1 + k % 3)
        tokenised = _tokenised(refs)
        for max_n in (2, 4):
            ours = corpus_bleu(cands, tokenised, max_n, streams=False)
            assert ours == sentence_bleu(cands[0], tokenised[0], max_n)
            worst = max(worst, abs(ours - _sacrebleu(cands, refs, max_n)))
            nonzero[max_n] += ours > 0
    for k in range(n_corpora):
        cands, refs = _random_corpus(rng, 20, 1 + k % 3)
        for max_n in (2, 4):
            worst = max(worst, abs(corpus_bleu(cands, _tokenised(refs), max_n) - _sacrebleu(cands, refs, max_n)))
    return worst, nonzero


def test_agrees_with_sacrebleu_on_1000_random_pairs():
    worst, nonzero = sacrebleu_differences()
    # the small vocabulary makes matches frequent: most scores are not the trivial 0
    assert nonzero[2] > 750 and nonzero[4] > 250
    assert worst < 1e-12


def test_sacrebleu_settings_reproduce_the_seed_number():
    assert _sacrebleu(["the train is late"], [[REF]], 2) == pytest.approx(0.636, abs=5e-4)
    # a tie in closest reference length goes to the shorter reference in both
    ours = corpus_bleu(["a b c d"], [["a b c", "a b c d x"]], 2)
    assert ours == pytest.approx(_sacrebleu(["a b c d"], [["a b c", "a b c d x"]], 2), abs=1e-15)
    assert corpus_bleu_details(["a b c d"], [["a b c", "a b c d x"]], 2).reference_length == 3


# --- properties -------------------------------------------------------------------------------

words = st.lists(st.sampled_from(VOCAB[:4]), max_size=10)


@settings(max_examples=200, deadline=None)
@given(cand=words, refs=st.lists(words, min_size=1, max_size=3), max_n=st.integers(1, 4))
def test_bleu_is_in_zero_one(cand, refs, max_n):
    d = bleu_details(cand, refs, max_n)
    assert 0.0 <= d.score <= 1.0
    assert all(0.0 <= p <= 1.0 for p in d.precisions)
    assert 0.0 <= d.brevity_penalty <= 1.0


@settings(max_examples=100, deadline=None)
@given(sentence=st.lists(st.sampled_from(VOCAB), min_size=4, max_size=12))
def test_identical_candidate_scores_one(sentence):
    assert sentence_bleu(sentence, [sentence], 4) == 1.0
    assert corpus_bleu([sentence], [[sentence]], 4) == 1.0


@settings(max_examples=50, deadline=None)
@given(refs=st.lists(words, min_size=1, max_size=3), max_n=st.integers(1, 4))
def test_empty_candidate_scores_zero(refs, max_n):
    assert sentence_bleu([], refs, max_n) == 0.0
    assert sentence_bleu("", refs, max_n) == 0.0


def test_bleu_score_is_a_float():
    d = bleu_details("the train", REF, 2)
    assert isinstance(d, BleuScore) and float(d) == d.score


def test_sacrebleu_defaults_differ_from_the_course_settings():
    """Chapter 13: the two signatures, and one sentence where smoothing changes the score (0 against 0.463)."""
    ours = sacrebleu.BLEU(tokenize="none", smooth_method="none", effective_order=False, force=True)
    ours.corpus_score(["the train is late"], [[REF], [REF]])
    defaults = sacrebleu.BLEU()
    defaults.corpus_score(["the train is late"], [[REF], [REF]])
    assert ours.get_signature().format() == "nrefs:2|case:mixed|eff:no|tok:none|smooth:none|version:2.6.0"
    assert defaults.get_signature().format() == "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"
    assert sentence_bleu("the train is delayed", [REF]) == 0.0           # no 4-word run matches: p4 = 0
    assert round(sacrebleu.sentence_bleu("the train is delayed", [REF]).score / 100, 3) == 0.463


# --- by property, against sacrebleu, on random token streams -------------------------------------

token_streams = st.lists(st.sampled_from(PAIR_VOCAB), min_size=0, max_size=14).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n_sentences=st.integers(1, 5), n_refs=st.integers(1, 3), max_n=st.integers(1, 4))
def test_corpus_bleu_is_sacrebleus_on_random_token_streams(data, n_sentences, n_refs, max_n):
    cands = [data.draw(token_streams) for _ in range(n_sentences)]
    refs = [[data.draw(token_streams.filter(bool)) for _ in range(n_refs)] for _ in range(n_sentences)]
    ours = corpus_bleu(cands, _tokenised(refs), max_n, streams=False)
    assert abs(ours - _sacrebleu(cands, refs, max_n)) < 1e-12
    streams = [list(r) for r in zip(*_tokenised(refs))]  # sacrebleu's own layout gives the same
    assert corpus_bleu(cands, streams, max_n, streams=True) == ours


def test_misread_references_are_refused_by_name():
    # a tokenised reference passed without its list is not three one-word references
    with pytest.raises(ValueError, match="references looks like one tokenised reference"):
        sentence_bleu("the cat sat", ["the", "cat", "sat"])
    assert sentence_bleu("the cat sat", [["the", "cat", "sat"]], max_n=2) == 1.0
    assert sentence_bleu("the cat sat", "the cat sat", max_n=2) == 1.0
    # as many references per sentence as sentences: sacrebleu's layout or ours? say which
    cands = ["the train is late", "our bus is late"]
    per_sentence = [["the train is late", "the train is delayed"], ["our bus is late", "the bus is late"]]
    with pytest.raises(ValueError, match="references_list holds 2 references for each of 2 candidates"):
        corpus_bleu(cands, per_sentence)
    assert corpus_bleu(cands, per_sentence, streams=False) == 1.0
    assert corpus_bleu(cands, [list(s) for s in zip(*per_sentence)], streams=True) == 1.0
    with pytest.raises(ValueError, match=r"references_list\[0\] must be a stream of 2"):
        corpus_bleu(cands, [["the train is late"]], streams=True)
    assert corpus_bleu(cands, [["the train is late"], ["our bus is late"]]) == 1.0  # one each: not ambiguous
