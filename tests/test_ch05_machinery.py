"""Chapter 5's machinery and the numbers its prose states about it.

The chapter writes sampled talk as a fourteen-line loop over the model's arrays and checks
one run against :func:`mwm.talk_sample`; here the same loop is checked on many runs. The
chapter's short training run, its held-out measurement and the corpus counts behind the
bars after "the train to " are recomputed and asserted at the precision the prose uses.
"""
import itertools
from collections import Counter

import numpy as np
import pytest

from mwm import (ALPHABET, CharLM, clip_by_global_norm, encode, lm_forward, load_char_lm, load_corpus,
                 next_char_probs, orthogonal, readout, readout_gradient, rnn_bptt, rnn_forward, softmax, talk_sample,
                 text_surprise)
from mwm.charlm import HELDOUT_PATH, START
from scripts import make_railway_sentences

K = len(ALPHABET)
SEED = "the train to "


@pytest.fixture(scope="module")
def model():
    return load_char_lm()


@pytest.fixture(scope="module")
def corpus():
    return load_corpus()


# ---------------------------------------------------------------- the chapter's loop, as written there

def step(model, h, ch, theta):
    x = np.eye(K)[ALPHABET.index(ch)]
    h = np.tanh(model.W @ h + model.U @ x + model.b)
    y = model.V @ h + model.b_V
    return h, softmax(y / theta)


def sample(model, seed, theta, rng, sentences=2):
    h = np.zeros(model.hidden_size)
    for ch in START + seed:
        h, p = step(model, h, ch, theta)
    out, probs = "", []
    while out.count(".") < sentences and len(out) < 200:
        out += ALPHABET[rng.choice(K, p=p)]
        probs.append(p)
        h, p = step(model, h, out[-1], theta)
    return out, np.array(probs)


def surprise_per_char(model, sentences):
    return sum(text_surprise(model, s).sum() for s in sentences) / sum(map(len, sentences))


def test_the_loop_writes_what_talk_sample_writes(model):
    """200 talks: the same characters as talk_sample with the same Generator, the same probabilities as lm_forward."""
    for theta in (0.2, 0.5, 1, 2):
        for dice in range(1, 51):
            out, probs = sample(model, SEED, theta, np.random.default_rng(dice))
            assert out == talk_sample(model, SEED, theta, dice=dice).generated, (theta, dice)
            assert probs.shape == (len(out), K)
            np.testing.assert_allclose(probs, lm_forward(model, SEED + out, theta)[0][len(SEED):-1], rtol=0, atol=1e-9)


def test_the_chapters_check_line(model):
    out, probs = sample(model, SEED, 1, np.random.default_rng(1))
    assert SEED + out == "the train to kochi leaves at five. tickets for mysore are sold at window eight."
    assert out == talk_sample(model, SEED, 1, dice=1).generated
    assert np.abs(probs - lm_forward(model, SEED + out)[0][len(SEED):-1]).max() < 1e-12


def test_charlm_keeps_its_own_copy_and_names_the_shift_b_V(model):
    rng = np.random.default_rng(0)
    arrays = dict(W=rng.normal(size=(4, 4)), U=rng.normal(size=(4, K)), b=np.zeros(4), V=rng.normal(size=(K, 4)),
                  c=np.zeros(K))
    small = CharLM(**arrays)
    arrays["W"] += 1.0                      # the caller's arrays stay writable, and the model does not move
    assert not np.allclose(small.W, arrays["W"]) and not small.W.flags.writeable
    assert small.b_V is small.c and model.b_V.shape == (K,)


# ---------------------------------------------------------------- the training run in the chapter

def test_the_chapters_training_run(corpus):
    """The chapter's 2,000 strings: 3.328 -> 0.733 (400) -> 0.259 nats per character on the corpus."""
    rng, steps = np.random.default_rng(5), 2000
    H = 48
    w = {"W": orthogonal(H, 5, 0.9), "U": rng.normal(0, 0.1, (H, K)), "b": np.zeros(H),
         "V": rng.normal(0, 0.1, (K, H)), "b_V": np.zeros(K)}
    m, v = ({name: np.zeros_like(a) for name, a in w.items()} for _ in "mv")
    seen = {0: surprise_per_char(CharLM(*w.values()), corpus)}
    for i in range(1, steps + 1):
        ids = encode(START + " ".join(rng.choice(corpus, 8)))[:101]
        xs = np.eye(K)[ids[:-1]]
        hs, _ = rnn_forward(xs, w)
        dy = readout_gradient(readout(hs, w["V"], w["b_V"]), ids[1:]) / 100
        g = rnn_bptt(xs, hs, dy @ w["V"], w)
        grads, _ = clip_by_global_norm([g.dW, g.dU, g.db, dy.T @ hs, dy.sum(0)], 5.0)
        for (name, a), d in zip(w.items(), grads):
            m[name] = 0.9 * m[name] + 0.1 * d
            v[name] = 0.999 * v[name] + 0.001 * d * d
            a -= 0.01 * (1 - i / steps) * m[name] / (1 - 0.9 ** i) / (np.sqrt(v[name] / (1 - 0.999 ** i)) + 1e-8)
        if i in (400, 1600, steps):
            small = CharLM(*w.values())
            seen[i] = surprise_per_char(small, corpus)
            seen[f"text {i}"] = sample(small, SEED, 1, np.random.default_rng(1), sentences=1)[0]
    assert round(seen[0], 3) == 3.328 and round(np.log(28), 2) == 3.33
    assert round(seen[400], 3) == 0.733 and round(seen[steps], 3) == 0.259
    assert seen["text 1600"] == "jaipur is on time."
    assert seen[f"text {steps}"] == "kochi please go to platform four."
    assert 6000 * 32 == 192_000   # the full run's strings, as the chapter counts them


# ---------------------------------------------------------------- the bars after "the train to " and the corpus's counts

def test_the_bars_are_the_corpus_shares(model, corpus):
    p = next_char_probs(model, SEED)
    after = Counter(s[len(SEED)] for s in corpus if s.startswith(SEED))
    n = sum(after.values())
    assert n == 98
    top = after.most_common(6)
    assert [ch for ch, _ in top] == ["p", "k", "c", "m", "b", "d"]
    assert (after["p"], after["k"]) == (14, 13)
    assert (round(14 / 98, 3), round(13 / 98, 3)) == (0.143, 0.133)
    for ch, count in top:                   # "within a few thousandths"
        assert abs(p[ALPHABET.index(ch)] - count / n) < 0.004, ch
    cities = make_railway_sentences.CITIES
    assert sorted(c for c in cities if c[0] == "p") == ["patna", "pune"]
    assert sorted(c for c in cities if c[0] == "k") == ["kochi", "kolkata"]


# ---------------------------------------------------------------- held-out sentences

def test_heldout_file_is_the_grammars_unseen_draw(corpus):
    held = load_corpus(HELDOUT_PATH)
    assert held == make_railway_sentences.unseen_sentences()
    assert HELDOUT_PATH.read_text(encoding="ascii") == "\n".join(held) + "\n"
    assert HELDOUT_PATH == make_railway_sentences.HELDOUT_OUT.resolve()
    assert len(held) == 210 == len(set(held)) and not set(held) & set(corpus)
    def vocabulary(sentences):
        return set(" ".join(sentences).replace(".", "").split())
    assert vocabulary(held) <= vocabulary(corpus)
    # 14 from each template with fillings left over; every held-out sentence fits one template
    per_template = Counter()
    for s in held:
        fits = [t for t, slots in make_railway_sentences.TEMPLATES
                if any(t.format(*fill) == s for fill in itertools.product(*slots))]
        assert len(fits) == 1, s
        per_template[fits[0]] += 1
    assert len(per_template) == 15 and set(per_template.values()) == {14}


def test_heldout_numbers_the_chapter_states(model, corpus):
    held = load_corpus(HELDOUT_PATH)
    train, new = surprise_per_char(model, corpus), surprise_per_char(model, held)
    assert (round(train, 3), round(new, 3)) == (0.147, 0.515)
    assert (round(np.exp(train), 3), round(np.exp(new), 3)) == (1.158, 1.673)
    assert 3.4 < new / train < 3.6                     # "three and a half times as much"
    per_char = {s: text_surprise(model, s).mean() for s in held}
    easy, hard = min(per_char, key=per_char.get), max(per_char, key=per_char.get)
    assert easy == "the train from lucknow will arrive on platform six." and round(per_char[easy], 3) == 0.186
    assert hard == "my aunt is going to lucknow tomorrow." and round(per_char[hard], 3) == 2.303
    dear = [(ch, round(float(x), 1)) for ch, x in zip(easy, text_surprise(model, easy)) if x > 1]
    assert dear == [("f", 1.5), ("l", 2.3), ("w", 1.1), ("s", 3.7)]
    assert round(float(text_surprise(model, hard)[hard.index("lucknow")]), 1) == 16.3
    assert [s for s in corpus if s.startswith("my aunt is going to")] == ["my aunt is going to pune tomorrow.",
                                                                        "my aunt is going to surat today."]
