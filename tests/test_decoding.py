"""Chapter 13: greedy decoding, beam search and sampling, on chapter 13's tree and on an RNN."""
import itertools
import math

import numpy as np
import pytest

from mwm.decoding import (EOS, SEED_TREE, BeamSearchResult, Hypothesis, ProbabilityTree, StepModel, beam_search,
                          exhaustive_search, greedy_decode, sample_decode, sequence_log_prob)
from mwm.readout import softmax

TREE = ProbabilityTree(SEED_TREE)


# --- chapter 13's tree ------------------------------------------------------------------------

def test_tree_vocabulary_and_step():
    assert TREE.vocab == ("<s>", "</s>", "the", "our", "a", "train", "bus", "rain")
    lp, state = TREE.step((), TREE.bos_id)
    assert state == () and np.exp(lp[2:5]).tolist() == pytest.approx([0.5, 0.4, 0.1])
    lp, state = TREE.step(("our",), TREE.index["train"])
    assert state == ("our", "train") and lp[TREE.eos_id] == 0.0 and np.isinf(lp[2:]).all()


def test_greedy_on_the_tree_gives_the_train_020():
    h = greedy_decode(TREE)
    assert TREE.words(h.tokens) == "the train" and h.tokens[-1] == TREE.eos_id
    assert h.probability == pytest.approx(0.20, rel=1e-12)
    assert round(h.log_prob, 3) == -1.609


def test_beam_2_finds_our_train_036():
    result = beam_search(TREE, beam_width=2)
    assert TREE.words(result.best.tokens) == "our train"
    assert result.best.probability == pytest.approx(0.36, rel=1e-12)
    assert round(result.best.log_prob, 3) == -1.022
    # the second survivor is greedy's answer, with greedy's score ln 0.20
    assert TREE.words(result.hypotheses[1].tokens) == "the train"
    assert round(result.hypotheses[1].log_prob, 3) == -1.609


def test_beam_2_steps_keep_and_prune_as_in_the_seed():
    steps = beam_search(TREE, beam_width=2, trace=True).steps
    first = [(TREE.words(c.tokens), round(math.exp(c.log_prob), 10), c.kept) for c in steps[0]]
    assert first == [("the", 0.5, True), ("our", 0.4, True), ("a", 0.1, False)]
    second = [(TREE.words(c.tokens), round(math.exp(c.log_prob), 10), c.kept) for c in steps[1]]
    assert second == [("our train", 0.36, True), ("the train", 0.2, True), ("the bus", 0.15, False),
                      ("the rain", 0.15, False), ("our bus", 0.04, False)]
    third = steps[2]
    assert all(c.finished and c.kept for c in third) and len(steps) == 3


def test_beam_3_finds_the_same_036():
    for k in (3, 4, 100):
        best = beam_search(TREE, beam_width=k).best
        assert TREE.words(best.tokens) == "our train" and best.probability == pytest.approx(0.36)


def test_beam_3_breaks_the_tie_at_015_by_token_id():
    """Chapter 13: "the bus" and "the rain" tie at 0.15 for third place; the smaller token id (bus 6, rain 7) stays."""
    second = beam_search(TREE, beam_width=3, trace=True).steps[1]
    assert [(TREE.words(c.tokens), round(math.exp(c.log_prob), 10), c.kept) for c in second] == [
        ("our train", 0.36, True), ("the train", 0.2, True), ("the bus", 0.15, True), ("the rain", 0.15, False),
        ("a train", 0.06, False), ("our bus", 0.04, False), ("a bus", 0.04, False)]
    assert (TREE.vocab.index("bus"), TREE.vocab.index("rain")) == (6, 7)
    # list "rain" before "bus" (ids follow first appearance), and "the rain" keeps the place instead
    swapped = ProbabilityTree({prefix: ({"train": 0.4, "rain": 0.3, "bus": 0.3} if prefix == ("the",) else node)
                               for prefix, node in SEED_TREE.items()})
    assert (swapped.vocab.index("rain"), swapped.vocab.index("bus")) == (6, 7)
    kept = [swapped.words(c.tokens) for c in beam_search(swapped, 3, trace=True).steps[1] if c.kept]
    assert kept == ["our train", "the train", "the rain"]


def test_beam_1_is_greedy_on_the_tree():
    assert beam_search(TREE, 1).best == greedy_decode(TREE)


def test_exhaustive_search_on_the_tree():
    everything = exhaustive_search(TREE, max_length=3)
    assert len(everything) == 7  # the/our/a, each followed by its words
    assert sum(h.probability for h in everything) == pytest.approx(1.0)
    assert TREE.words(everything[0].tokens) == "our train"
    assert [(TREE.words(h.tokens), round(h.probability, 2)) for h in everything] == [
        ("our train", 0.36), ("the train", 0.2), ("the bus", 0.15), ("the rain", 0.15), ("a train", 0.06),
        ("our bus", 0.04), ("a bus", 0.04)]


def test_the_tree_with_an_explicit_end():
    tree = ProbabilityTree({(): {"chai": 0.7, EOS: 0.3}})
    assert tree.words(greedy_decode(tree).tokens) == "chai"
    assert exhaustive_search(tree, 3)[1].tokens == (tree.eos_id,)


def test_sequence_log_prob_and_ids():
    assert sequence_log_prob(TREE, TREE.ids("our train")) == pytest.approx(math.log(0.36))
    assert sequence_log_prob(TREE, TREE.ids("our rain")) == -np.inf


# --- underflow: why logs ------------------------------------------------------------------------

#: A decoder that gives each of its 100 tokens probability 0.01 at every step (token 1 is the end).
FLAT = StepModel(lambda state, prev: (np.full(100, math.log(0.01)), state), None, 0, 1)


def flat_hypothesis(n_words):
    """n_words words at 0.01 each, scored by the project's sequence_log_prob."""
    tokens = (2,) * n_words
    log_prob = sequence_log_prob(FLAT, tokens)
    return Hypothesis(tokens, log_prob, log_prob)


def test_200_words_underflow():
    h = flat_hypothesis(200)
    assert h.probability == 0.0                      # the product underflows...
    assert round(h.log_prob, 1) == -921.0            # ...the sum of logs does not
    assert h.log_prob == pytest.approx(-921.034, abs=5e-4)


# --- a random-weight RNN decoder ---------------------------------------------------------------

def rnn_decoder(seed, vocab_size=4, hidden=3, scale=1.5):
    """A small numpy RNN decoder with random weights: h = tanh(W h + U e(prev) + b), log softmax(V h + c).

    Token 0 is the begin symbol, token 1 the end symbol. The initial state is random (a "summary").
    """
    rng = np.random.default_rng(seed)
    W = rng.normal(0, scale, (hidden, hidden))
    U = rng.normal(0, scale, (hidden, vocab_size))
    b = rng.normal(0, 0.5, hidden)
    V = rng.normal(0, scale, (vocab_size, hidden))
    c = rng.normal(0, 0.5, vocab_size)
    h0 = rng.normal(0, 1, hidden)

    def step(h, prev):
        h_new = np.tanh(W @ h + U[:, prev] + b)
        o = V @ h_new + c
        o = o - o.max()
        return o - np.log(np.exp(o).sum()), h_new

    return StepModel(step, h0, 0, 1)


def all_outputs(model, vocab_size, max_length):
    """Brute force without the library: every token string of length <= L ending in one end symbol."""
    words = [v for v in range(vocab_size) if v not in (model.bos_id, model.eos_id)]
    outs = []
    for n in range(0, max_length):
        for body in itertools.product(words, repeat=n):
            tokens = body + (model.eos_id,)
            h, prev, total = model.initial_state, model.bos_id, 0.0
            for v in tokens:
                lp, h = model.step(h, prev)
                total += lp[v]
                prev = v
            outs.append((total, tokens))
    return outs


@pytest.mark.parametrize("seed", range(20))
def test_rnn_beam_1_equals_greedy(seed):
    model = rnn_decoder(seed)
    g = greedy_decode(model, max_length=8)
    b = beam_search(model, 1, max_length=8).best
    assert b.tokens == g.tokens and b.log_prob == g.log_prob


@pytest.mark.parametrize("seed", range(20))
def test_rnn_beam_score_is_the_sum_of_its_log_probs(seed):
    model = rnn_decoder(seed)
    result = beam_search(model, 3, max_length=6)
    for h in result.hypotheses:
        assert h.tokens.count(model.eos_id) == 1 and h.tokens[-1] == model.eos_id
        assert model.bos_id not in h.tokens
        assert h.log_prob == pytest.approx(sequence_log_prob(model, h.tokens), abs=1e-12)
    scores = [h.normalized_log_prob for h in result.hypotheses]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("seed", range(20))
def test_rnn_exhaustive_beam_finds_the_brute_force_best(seed):
    V, L = 4, 4
    model = rnn_decoder(seed, vocab_size=V)
    brute = all_outputs(model, V, L)
    best_lp, best_tokens = max(brute, key=lambda x: x[0])
    result = beam_search(model, V ** L, max_length=L)
    assert result.best.tokens == best_tokens
    assert result.best.log_prob == pytest.approx(best_lp, abs=1e-12)
    # nothing pruned: the search stops as soon as no live hypothesis can beat the best finished one
    assert len(brute) == sum(2 ** n for n in range(L)) and result.hypotheses
    lps = {tokens: lp for lp, tokens in brute}
    assert all(h.log_prob == pytest.approx(lps[h.tokens], abs=1e-12) for h in result.hypotheses)
    assert exhaustive_search(model, L)[0].tokens == best_tokens


@pytest.mark.parametrize("seed", range(10))
def test_rnn_beam_without_trace_builds_less_and_finds_the_same(seed):
    model = rnn_decoder(seed, vocab_size=12, hidden=5)
    for k in (1, 2, 3, 5):
        fast = beam_search(model, k, max_length=7)
        full = beam_search(model, k, max_length=7, trace=True)
        assert fast.hypotheses == full.hypotheses and fast.steps == ()
        assert all(sum(c.kept for c in step) <= k for step in full.steps)
        assert any(len(step) > k for step in full.steps)  # the trace grows every extension


def test_max_length_caps_and_still_ends_with_the_end_symbol():
    # a model that never wants to stop: the end symbol has probability 0.001
    lp = np.log(np.array([1e-300, 0.001, 0.999 - 1e-300]))
    model = StepModel(lambda s, prev: (lp, s), None, 0, 1)
    for h in (greedy_decode(model, max_length=5), beam_search(model, 1, max_length=5).best,
              sample_decode(model, 1.0, rng=3, max_length=5)):
        assert h.tokens == (2, 2, 2, 2, 1)
        assert h.log_prob == pytest.approx(4 * lp[2] + lp[1])
    # width 2 finds the early "end now" (0.001) and sets aside "go, end" (0.999 * 0.001), which the
    # capped "go" x 4 (0.999^4 * 0.001) cannot beat; a beam that kept finished hypotheses among the
    # live ones let later live ones push "go, end" out and answered with the capped one
    beam = beam_search(model, 2, max_length=5, trace=True)
    assert [h.tokens for h in beam.hypotheses] == [(1,), (2, 1)]
    assert len(beam.steps) == 5


def test_length_normalization_prefers_longer_outputs():
    # first token: end now (0.4) or "go" (0.6); after "go", end (0.5) or "go" (0.5) ...
    def step(n, prev):
        p = np.array([0.0, 0.4, 0.6]) if prev == 0 else np.array([0.0, 0.5, 0.5])
        with np.errstate(divide="ignore"):
            return np.log(p), n + 1
    model = StepModel(step, 0, 0, 1)
    plain = beam_search(model, 2, max_length=6).best
    assert plain.tokens == (1,)  # 0.4 beats 0.6 * 0.5 = 0.3
    normal = beam_search(model, 2, max_length=6, nu=1.0).best
    assert len(normal.tokens) > 1 and normal.normalized_log_prob == pytest.approx(normal.log_prob / len(normal.tokens))
    assert normal.normalized_log_prob > math.log(0.4)


# --- sampling -------------------------------------------------------------------------------------

def test_sampling_is_reproducible_and_follows_the_tree():
    a = [sample_decode(TREE, 1.0, rng=np.random.default_rng(5)).tokens for _ in range(3)]
    assert a[0] == a[1] == a[2]
    rng = np.random.default_rng(0)
    draws = [TREE.words(sample_decode(TREE, 1.0, rng=rng).tokens) for _ in range(4000)]
    share = draws.count("our train") / len(draws)
    assert share == pytest.approx(0.36, abs=0.03)  # 3.5 standard errors
    assert set(draws) <= {" ".join(TREE.words(h.tokens).split()) for h in exhaustive_search(TREE, 3)}


def test_sampling_temperature_uses_softmax():
    rng = np.random.default_rng(1)
    cold = [TREE.words(sample_decode(TREE, 0.01, rng=rng).tokens) for _ in range(200)]
    assert set(cold) == {"the train"}  # T -> 0 is greedy
    p_first = softmax(np.log([0.5, 0.4, 0.1]), 2.0)
    rng = np.random.default_rng(2)
    firsts = [TREE.words(sample_decode(TREE, 2.0, rng=rng).tokens).split()[0] for _ in range(4000)]
    assert firsts.count("a") / 4000 == pytest.approx(p_first[2], abs=0.03)


# --- bad input --------------------------------------------------------------------------------------

def _bad_input_names_the_argument_cases():
    """One bad input per case: (function, args, kwargs, error, message naming the argument)."""
    cases = []
    cases += [
        pytest.param(beam_search, (TREE, 0), {}, ValueError, 'beam_width must', id='beam-search-beam-width'),
        pytest.param(beam_search, (TREE, 1.5), {}, ValueError, 'beam_width must', id='beam-search-beam-width-2'),
        pytest.param(sample_decode, (TREE, -1.0), {}, ValueError, 'temperature must', id='sample-decode-temperature'),
        pytest.param(sample_decode, (TREE, 0.0), {}, ValueError, 'temperature must', id='sample-decode-temperature-2'),
        pytest.param(sample_decode, (TREE, 1.0), {'rng': 'seed'}, ValueError, 'rng must', id='sample-decode-rng'),
        pytest.param(ProbabilityTree, ({},), {}, ValueError, 'tree must', id='ProbabilityTree-empty'),
        pytest.param(ProbabilityTree, ({('the',): {'train': 1.0}},), {}, ValueError, 'tree must have a root', id='ProbabilityTree-no-root'),
        pytest.param(ProbabilityTree, ({(): {'the': 0.5, 'our': 0.4}},), {}, ValueError, 'tree\\[\\(\\)\\] must sum to 1', id='ProbabilityTree-tree-must-sum-to-1'),
        pytest.param(greedy_decode, (TREE,), {'max_length': 0}, ValueError, 'max_length must', id='greedy-decode-max-length'),
        pytest.param(beam_search, (TREE, 2), {'nu': -1}, ValueError, 'nu must', id='beam-search-length-normalization'),
        pytest.param(greedy_decode, (object(),), {}, ValueError, 'model must have step', id='greedy-decode-model'),
    ]
    raw_scores = StepModel(lambda s, prev: (np.array([0.0, 1.0, 2.0]), s), None, 0, 1)
    cases += [
        pytest.param(greedy_decode, (raw_scores,), {}, ValueError, 'model.step must return log-probabilities', id='greedy-decode-log-probabilities'),
        pytest.param(sequence_log_prob, (TREE, []), {}, ValueError, 'tokens must', id='sequence-log-prob-tokens'),
        pytest.param(TREE.ids, ('the tram',), {}, ValueError, 'words must be in the tree', id='ids-words'),
    ]
    return cases


@pytest.mark.parametrize("call, args, kwargs, error, match", _bad_input_names_the_argument_cases())
def test_bad_input_names_the_argument(call, args, kwargs, error, match):
    with pytest.raises(error, match=match):
        call(*args, **kwargs)


def test_result_types():
    r = beam_search(TREE, 2)
    assert isinstance(r, BeamSearchResult) and isinstance(r.best, Hypothesis)


# --- the other numbers chapter 13 states ---------------------------------------------------------

def test_chapter_13_underflow_starts_at_word_162():
    zero_from = next(n for n in range(1, 201) if flat_hypothesis(n).probability == 0.0)
    assert zero_from == 162
    assert flat_hypothesis(161).probability > 0


def test_chapter_13_length_normalisation_example():
    short = ProbabilityTree({(): {"chai": 0.6, EOS: 0.4}, ("chai",): {"please": 0.5, EOS: 0.5}})
    plain = beam_search(short, 2).best
    assert plain.tokens == (short.eos_id,) and plain.probability == pytest.approx(0.4)
    assert sequence_log_prob(short, short.ids("chai")) == pytest.approx(math.log(0.30))
    normal = beam_search(short, 2, nu=1.0).best
    assert short.words(normal.tokens) == "chai please"
    assert round(normal.log_prob, 3) == -1.204 and round(normal.normalized_log_prob, 3) == -0.401


def test_chapter_13_sampling_shares():
    # the chapter's cell: T = 0.5, then T = 1 and T = 2, from one generator seeded 0
    rng = np.random.default_rng(0)
    shares = {}
    for T in (0.5, 1.0, 2.0):
        draws = [TREE.words(sample_decode(TREE, temperature=T, rng=rng).tokens) for _ in range(1000)]
        shares[T] = {s: draws.count(s) / 1000 for s in set(draws)}
    assert 0.34 < shares[1.0]["our train"] < 0.40  # "a little over a third"
    assert 0.17 < shares[1.0]["the train"] < 0.23  # "about a fifth"
    rare = ("a train", "a bus", "our bus")
    assert sum(shares[0.5].get(s, 0) for s in rare) < sum(shares[2.0][s] for s in rare) / 4
    assert max(shares[0.5], key=shares[0.5].get) == "our train"


def _chance_at(sentence, T):
    """Chapter 13's chance_at: the product of each step's softmax(log p / T) along the sentence."""
    state, prev, p = TREE.initial_state, TREE.bos_id, 1.0
    for token in TREE.ids(sentence):
        lp, state = TREE.step(state, prev)
        possible = np.flatnonzero(np.isfinite(lp))
        p *= softmax(lp[possible], T)[list(possible).index(token)]
        prev = token
    return p


def test_chapter_13_temperature_sharpens_each_step_not_the_sentence():
    sentences = [TREE.words(h.tokens) for h in exhaustive_search(TREE, 3)]
    for T in (1.0, 0.5, 0.25, 0.01):
        assert sum(_chance_at(s, T) for s in sentences) == pytest.approx(1.0)
    stated = {1.0: {"our train": 0.360, "the train": 0.200, "the rain": 0.150},
              0.5: {"our train": 0.376, "the train": 0.280, "the rain": 0.158},
              0.25: {"our train": 0.290, "the train": 0.434}}
    for T, row in stated.items():
        for s, p in row.items():
            assert round(_chance_at(s, T), 3) == p, (T, s)
    assert round(_chance_at("the train", 0.01), 3) == 1.0  # T -> 0 is greedy: "the train", not the best sentence
    # our train at T = 0.5 exactly: first step 0.4^2 / (0.5^2 + 0.4^2 + 0.1^2), then 0.9^2 / (0.9^2 + 0.1^2)
    assert _chance_at("our train", 0.5) == pytest.approx(0.16 / 0.42 * 0.81 / 0.82)
    # sharpening the whole sentences instead would give p^2 / sum p^2
    everything = exhaustive_search(TREE, 3)
    whole = softmax(np.array([h.log_prob for h in everything]), 0.5)
    assert TREE.words(everything[0].tokens) == "our train" and round(float(whole[0]), 3) == 0.585
    # the sampled counts the chapter quotes: 378 draws at T = 1, 360 at T = 0.5, from one generator seeded 0
    rng = np.random.default_rng(0)
    counts = {}
    for T in (0.5, 1.0, 2.0):
        draws = [TREE.words(sample_decode(TREE, temperature=T, rng=rng).tokens) for _ in range(1000)]
        counts[T] = draws.count("our train")
    assert counts[1.0] == 378 and counts[0.5] == 360
