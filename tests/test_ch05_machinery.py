"""Chapter 5's machinery and the numbers its prose states about it.

The chapter writes sampled talk as a short loop over the model's arrays and checks
one run against :func:`mwm.talk_sample`; here the same loop is checked on many runs. The
chapter's short training run (on the corpus and on the held-out sentences), its held-out
measurement with its intervals and baselines, the corpus counts behind the bars after
"the train to ", greedy talk's loops and the copying counts of sampled talk are recomputed
and asserted at the precision the prose uses.
"""
import itertools
from collections import Counter

import numpy as np
import pytest

from mwm import (ALPHABET, CharLM, clip_by_global_norm, encode, lm_forward, load_char_lm, load_corpus,
                 next_char_probs, orthogonal, readout, readout_gradient, rnn_bptt, rnn_forward, softmax, talk_greedy,
                 talk_sample, text_surprise)
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


def sentence_surprise(model, sentences):
    """The chapter's batched scoring: every sentence's note stepped side by side."""
    lengths = np.array([len(s) for s in sentences])
    ids = np.array([encode(START + s.ljust(lengths.max(), ".")) for s in sentences])
    h, nats = np.zeros((len(sentences), model.hidden_size)), np.zeros(len(sentences))
    for t in range(lengths.max()):
        h = np.tanh(h @ model.W.T + model.U.T[ids[:, t]] + model.b)
        p = softmax(h @ model.V.T + model.b_V)
        live = t < lengths
        nats[live] -= np.log(p[live, ids[live, t + 1]])
    return nats


def test_the_batched_scoring_is_text_surprise(model, corpus):
    held = load_corpus(HELDOUT_PATH)
    rng = np.random.default_rng(0)
    untrained = CharLM(W=orthogonal(48, 5, 0.9), U=rng.normal(0, 0.1, (48, K)), b=np.zeros(48),
                       V=rng.normal(0, 0.1, (K, 48)), c=np.zeros(K))
    for m in (model, untrained):
        one_by_one = [text_surprise(m, s).sum() for s in corpus + held]
        np.testing.assert_allclose(sentence_surprise(m, corpus + held), one_by_one, rtol=1e-12, atol=1e-12)
    assert sentence_surprise(model, ["the train to pune is late."]).round(3).tolist() == [5.663]


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

def adam(w, grads, m, v, i, rate):
    for (name, a), d in zip(w.items(), grads):
        m[name] = 0.9 * m[name] + 0.1 * d
        v[name] = 0.999 * v[name] + 0.001 * d * d
        a -= rate * m[name] / (1 - 0.9 ** i) / (np.sqrt(v[name] / (1 - 0.999 ** i)) + 1e-8)


def small_model(w):
    return CharLM(W=w["W"], U=w["U"], b=w["b"], V=w["V"], c=w["b_V"])


def test_the_chapters_training_run(corpus):
    """The chapter's 2,000 strings: on the corpus 3.328 -> 0.733 (400) -> 0.259, held out 0.753 -> 0.334.

    The quick run ends better on the held-out sentences (0.334) than the full model (0.515):
    the chapter's overfitting paragraph rests on this.
    """
    heldout = load_corpus(HELDOUT_PATH)
    rng, steps = np.random.default_rng(5), 2000
    H = 48
    w = {"W": orthogonal(H, 5, 0.9), "U": rng.normal(0, 0.1, (H, K)), "b": np.zeros(H),
         "V": rng.normal(0, 0.1, (K, H)), "b_V": np.zeros(K)}
    m, v = ({name: np.zeros_like(a) for name, a in w.items()} for _ in "mv")
    seen = {0: surprise_per_char(small_model(w), corpus)}
    for i in range(1, steps + 1):
        ids = encode(START + " ".join(rng.choice(corpus, 8)))[:101]
        xs = np.eye(K)[ids[:-1]]
        hs, _ = rnn_forward(xs, w)
        dy = readout_gradient(readout(hs, w["V"], w["b_V"]), ids[1:]) / 100
        g = rnn_bptt(xs, hs, dy @ w["V"], w)
        grads, _ = clip_by_global_norm([g.dW, g.dU, g.db, dy.T @ hs, dy.sum(0)], 5.0)
        adam(w, grads, m, v, i, rate=0.01 * (1 - i / steps))
        if i in (400, 1600, steps):
            small = small_model(w)
            seen[i] = surprise_per_char(small, corpus)
            seen[f"held-out {i}"] = surprise_per_char(small, heldout)
            seen[f"text {i}"] = sample(small, SEED, 1, np.random.default_rng(1), sentences=1)[0]
    assert round(seen[0], 3) == 3.328 and round(np.log(28), 2) == 3.33
    assert round(seen[400], 3) == 0.733 and round(seen[steps], 3) == 0.259
    assert seen["text 1600"] == "jaipur is on time."
    assert seen[f"text {steps}"] == "kochi please go to platform four."
    assert round(seen["held-out 400"], 3) == 0.753 and round(seen[f"held-out {steps}"], 3) == 0.334
    assert seen[f"held-out {steps}"] < surprise_per_char(load_char_lm(), heldout)   # quick run beats the full model
    assert 6000 * 32 == 192_000   # the full run's strings, as the chapter counts them
    # "0.2 million characters" in the quick run, "about 62 million" in the full one (strings of eight sentences)
    assert 2000 * 100 == 200_000
    length = 8 * np.mean([len(s) for s in corpus]) + 8
    assert round(length) == 323 and round(192_000 * length / 1e6) == 62
    from scripts import train_char_lm
    assert train_char_lm.SENTENCES_PER_STRING == 8 and (train_char_lm.STEPS, train_char_lm.BATCH) == (6000, 32)


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
    # the chapter finds the grammar's 14 cities in the corpus, and shows all 11 first letters
    found = {s.split()[3] for s in corpus if s.startswith(SEED)}
    assert found == set(cities) and len(after) == 11
    even = {ch: sum(c[0] == ch for c in cities) / len(cities) for ch in after}
    gap_corpus = max(abs(after[ch] / n - p[ALPHABET.index(ch)]) for ch in after)
    gap_grammar = max(abs(even[ch] - p[ALPHABET.index(ch)]) for ch in after)
    assert (round(gap_corpus, 3), round(gap_grammar, 3)) == (0.003, 0.039)
    assert (round(even["c"], 3), after["c"], round(after["c"] / n, 3), round(p[ALPHABET.index("c")], 3)) == \
        (0.071, 10, 0.102, 0.103)
    assert ["chennai"] == [c for c in cities if c[0] == "c"]


# ---------------------------------------------------------------- greedy loops, sampled copies, the typo

def test_greedy_comes_back_to_the_same_note(model, corpus):
    run_on = talk_greedy(model, SEED, max_chars=150, min_period=150).text
    _, notes = lm_forward(model, run_on)
    starts = [0] + [t + 2 for t, ch in enumerate(run_on) if ch == "." and t + 2 < len(run_on)]
    assert all(run_on[t:t + 10] == "the train " for t in starts)
    gaps = [round(float(np.linalg.norm(notes[b] - notes[a])), 3) for a, b in zip(starts, starts[1:])]
    assert gaps[:3] == [4.513, 0.085, 0.0] and set(gaps[2:]) == {0.0}
    openings = sorted({" ".join(s.split()[:2]) + " " for s in corpus})
    assert len(openings) == 40 and all(talk_greedy(model, o).looped for o in openings)


def test_sampled_talk_copies_the_corpus_at_low_temperature(model, corpus):
    corpus_set = set(corpus)
    counts = {}
    for theta in (0.5, 1, 2):
        talks = [talk_sample(model, SEED, theta, dice=d).text for d in range(1, 26)]
        written = [s.strip() + "." for text in talks for s in text.split(".")[:-1]]
        counts[theta] = (sum(s in corpus_set for s in written), len(written))
    assert counts == {0.5: (50, 50), 1: (49, 50), 2: (15, 50)}


def test_the_typo_is_one_the_model_would_hardly_make(model):
    p = next_char_probs(model, "the tr")[ALPHABET.index("i")]
    assert round(p * 1e9) == 2


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
    assert 3.4 < new / train < 3.6                     # "roughly three and a half times as much"
    per_char = {s: text_surprise(model, s).mean() for s in held}
    easy, hard = min(per_char, key=per_char.get), max(per_char, key=per_char.get)
    assert easy == "the train from lucknow will arrive on platform six." and round(per_char[easy], 3) == 0.186
    assert hard == "my aunt is going to lucknow tomorrow." and round(per_char[hard], 3) == 2.303
    dear = [(ch, round(float(x), 1)) for ch, x in zip(easy, text_surprise(model, easy)) if x > 1]
    assert dear == [("f", 1.5), ("l", 2.3), ("w", 1.1), ("s", 3.7)]
    assert round(float(text_surprise(model, hard)[hard.index("lucknow")]), 1) == 16.3
    assert [s for s in corpus if s.startswith("my aunt is going to")] == ["my aunt is going to pune tomorrow.",
                                                                        "my aunt is going to surat today."]


def same_templates(corpus, heldout):
    """The chapter's hidden matching: corpus sentences whose template the held-out set uses."""
    groups = [heldout[i:i + 14] for i in range(0, len(heldout), 14)]
    kept = [set.intersection(*(set(s[:-1].split()) for s in g)) for g in groups]
    filled = {w for g, k in zip(groups, kept) for s in g for w in s[:-1].split() if w not in k}
    frame = lambda s: tuple(w for w in s[:-1].split() if w in set().union(*kept) - filled)  # noqa: E731
    return [s for s in corpus if frame(s) in {frame(g[0]) for g in groups}]


def template_of(sentence):
    fits = [i for i, (t, slots) in enumerate(make_railway_sentences.TEMPLATES)
            if any(t.format(*fill) == sentence for fill in itertools.product(*slots))]
    assert len(fits) == 1, sentence
    return fits[0]


def test_heldout_intervals_and_baselines(model, corpus):
    """Bootstrap over templates 0.419-0.635 (corpus over sentences 0.144-0.150); matched corpus 0.139;
    letter frequencies alone 2.894 on the held-out sentences."""
    held = load_corpus(HELDOUT_PATH)
    total = {s: text_surprise(model, s).sum() for s in corpus + held}
    # the held-out file lists 14 sentences of each of 15 templates, in order: the chapter's groups
    templates = np.arange(len(held)) // 14
    assert [template_of(s) for s in held[::14]] == sorted(set(template_of(s) for s in held))
    assert all(len({template_of(s) for s in held[i:i + 14]}) == 1 for i in range(0, 210, 14))

    def interval(sentences, groups, n=10_000):
        nats = np.bincount(groups, [total[s] for s in sentences])
        chars = np.bincount(groups, [len(s) for s in sentences])
        pick = np.random.default_rng(0).integers(len(nats), size=(n, len(nats)))
        return np.percentile(nats[pick].sum(1) / chars[pick].sum(1), [2.5, 97.5]).round(3).tolist()

    assert interval(held, templates) == [0.419, 0.635]
    assert interval(corpus, np.arange(len(corpus))) == [0.144, 0.15]
    # the matched corpus: the chapter's word-frame matching picks exactly the corpus sentences of the
    # templates that the held-out set uses (checked against the grammar's own templates)
    used = {template_of(s) for s in held}
    same = same_templates(corpus, held)
    assert same == [s for s in corpus if template_of(s) in used] and len(used) == 15
    assert round(sum(total[s] for s in same) / sum(map(len, same)), 3) == 0.139
    freq = Counter("".join(corpus))
    unigram = -sum(np.log(freq[ch] / freq.total()) for s in held for ch in s) / sum(map(len, held))
    assert round(unigram, 3) == 2.894
