"""Chapter 13 on the chapter 12 translator: greedy against beam search, graded by corpus BLEU-4.

The numbers chapter 13 states for the first 200 sentences of the test set, with the
committed "plain" weights (one summary, no attention).
"""
import pytest

from mwm import beam_search, corpus_bleu, greedy_decode, sentence_bleu
from mwm.seq2seq import load_translator
from mwm.translation_corpus import load_pairs


@pytest.fixture(scope="module")
def decoded():
    translator = load_translator("plain")
    pairs = load_pairs("test")[:200]
    out = {k: [beam_search(translator.step_model(en), k, max_length=81).best for en, _ in pairs] for k in (1, 2, 4)}
    return translator, pairs, out


def test_width_1_is_the_translators_greedy_decoding(decoded):
    translator, pairs, out = decoded
    for (en, _), h in list(zip(pairs, out[1]))[:50]:
        assert h == greedy_decode(translator.step_model(en), max_length=81)


def test_corpus_bleu_rises_with_the_beam_width(decoded):
    translator, pairs, out = decoded
    refs = [[hi] for _, hi in pairs]
    bleu = {k: corpus_bleu([translator.target_vocab.words_of(h.tokens[:-1]) for h in hs], refs, 4)
            for k, hs in out.items()}
    assert [round(bleu[k], 3) for k in (1, 2, 4)] == [0.341, 0.356, 0.365]
    totals = {k: round(sum(h.log_prob for h in hs), 1) for k, hs in out.items()}
    assert totals == {1: -2247.5, 2: -2100.0, 4: -1991.4}


def test_beam_scores_higher_on_most_sentences_but_not_all(decoded):
    _, _, out = decoded
    higher = sum(b.log_prob > g.log_prob + 1e-9 for g, b in zip(out[1], out[4]))
    lower = sum(b.log_prob < g.log_prob - 1e-9 for g, b in zip(out[1], out[4]))
    assert (higher, lower) == (123, 10)


def test_the_two_examples(decoded):
    translator, pairs, out = decoded
    differ = sorted((i for i in range(len(pairs)) if out[1][i].tokens != out[4][i].tokens),
                    key=lambda i: len(pairs[i][0]))
    first, second = differ[1], differ[3]
    words = {(i, k): translator.target_vocab.words_of(out[k][i].tokens[:-1]) for i in (first, second) for k in (1, 4)}
    assert " ".join(pairs[first][0]) == "a dabbawala from jaipur is playing on the temple every morning"
    assert "ravivaar ko" in " ".join(words[first, 1]) and words[first, 4] == pairs[first][1]
    assert sentence_bleu(words[first, 4], [pairs[first][1]]) == 1.0
    assert " ".join(words[second, 1]).startswith("ek dayalu pita") and " ".join(words[second, 4]).startswith("ek dayalu pita")
    assert out[4][second].log_prob > out[1][second].log_prob
    assert sentence_bleu(words[second, 4], [pairs[second][1]]) == 0.0
    assert sentence_bleu(words[second, 1], [pairs[second][1]]) > 0
