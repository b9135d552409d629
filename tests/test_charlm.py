"""Chapter 5: the character language model, its corpus, its weights and its talk."""
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mwm.charlm import (ALPHABET, CORPUS_PATH, WEIGHTS_PATH, CharLM, Talk, char_lm_param_count, decode, encode,
                        find_loop, lm_forward, lm_step, load_char_lm, load_corpus, next_char_probs, talk_greedy,
                        talk_sample, text_cross_entropy)
from mwm.readout import sequence_loss, softmax
from scripts import make_railway_sentences

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "the train to pune is late."
#: sha256 of the committed weights, as the chapter records it (full run of scripts/train_char_lm.py).
WEIGHTS_SHA256 = "13d2017ca3cdf2eaa58c1c675dca13d9732726fc8ee86e97e77ffffb0dc00c71"



@pytest.fixture(scope="module")
def model():
    return load_char_lm()


# ---------------------------------------------------------------- symbols and corpus

def test_28_symbols_round_trip():
    assert len(ALPHABET) == 28 and ALPHABET[26:] == " ."
    ids = encode(SENTENCE)
    assert len(ids) == 26 and ids[0] == 19 and ids[-1] == 27
    assert decode(ids) == SENTENCE
    assert encode("").shape == (0,) and decode([]) == ""


@pytest.mark.parametrize("bad", ["The train", "pune!", "platform 6", "chai\n"])
def test_symbols_outside_the_28_are_refused(bad):
    with pytest.raises(ValueError, match="text may contain only"):
        encode(bad)


def test_decode_refuses_bad_indices():
    with pytest.raises(ValueError, match="ids"):
        decode([0, 28])
    with pytest.raises(ValueError, match="ids"):
        decode([1.5])


def test_corpus_is_the_generators_output_and_uses_only_the_28_symbols():
    lines = load_corpus()
    assert lines == make_railway_sentences.sentences()
    assert CORPUS_PATH.read_text(encoding="ascii") == "\n".join(lines) + "\n"
    assert len(lines) == 302 and len(set(lines)) == 302
    assert set(" ".join(lines)) <= set(ALPHABET) and {" ", "."} <= set(" ".join(lines))
    for quoted in (SENTENCE, "passengers for kochi please go to platform six.", "my mother makes chai at six."):
        assert quoted in lines
    assert all(s.endswith(".") and s.count(".") == 1 for s in lines)


# ---------------------------------------------------------------- the model

def test_5068_numbers():
    assert char_lm_param_count() == 48 * 48 + 48 * 28 + 48 + 28 * 48 + 28 == 5068


def test_committed_weights_load_with_the_documented_hash(model):
    assert model.size == 5068 and model.hidden_size == 48
    assert hashlib.sha256(WEIGHTS_PATH.read_bytes()).hexdigest() == WEIGHTS_SHA256
    assert WEIGHTS_PATH.stat().st_size < 100_000


def test_charlm_checks_shapes():
    rng = np.random.default_rng(0)
    good = dict(W=rng.normal(size=(4, 4)), U=rng.normal(size=(4, 28)), b=np.zeros(4), V=rng.normal(size=(28, 4)),
                b_V=np.zeros(28))
    CharLM(**good)
    with pytest.raises(ValueError, match="U must have shape"):
        CharLM(**{**good, "U": np.zeros((4, 27))})
    with pytest.raises(ValueError, match="V must have shape"):
        CharLM(**{**good, "V": np.zeros((28, 5))})
    with pytest.raises(ValueError, match="model must be a CharLM"):
        next_char_probs(good, "the")


def test_forward_is_step_by_step(model):
    probs, hs = lm_forward(model, "the chai")
    h = np.zeros(48)
    for t, symbol in enumerate(encode(" the chai")):
        h, p, cache = lm_step(model, h, int(symbol))
        np.testing.assert_allclose(h, hs[t], rtol=0, atol=1e-14)
        np.testing.assert_allclose(p, probs[t], rtol=0, atol=1e-14)
    assert cache["h"] is h
    assert probs.shape == (9, 28) and np.allclose(probs.sum(axis=1), 1)


def test_numpy_equals_torch_nn_rnn(model):
    torch = pytest.importorskip("torch")
    texts = [SENTENCE, "the trian to ", " ".join(load_corpus()[:8])]
    weights = {n: getattr(model, n) for n in ("W", "U", "b", "V", "b_V")}
    from mwm_torch.charlm import CharRNN
    net = CharRNN().double().load(**weights)     # the trained model is float64, as in training
    for text in texts:
        ids = torch.as_tensor(encode(" " + text))[:, None]
        with torch.no_grad():
            theirs = torch.softmax(net(ids), dim=-1)[:, 0].numpy()
        ours = lm_forward(model, text)[0]
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)
        assert np.abs(ours - theirs).max() < 1e-12  # float64 on both sides: far inside 1e-6


# ---------------------------------------------------------------- surprise

def test_surprise_of_the_sentence_is_minus_log_of_its_probability(model):
    s = text_cross_entropy(model, SENTENCE)
    assert s.shape == (26,) and np.all(s >= 0)
    probs = lm_forward(model, SENTENCE)[0]
    p_true = probs[np.arange(26), encode(SENTENCE)]
    assert s.sum() == pytest.approx(-np.log(np.prod(p_true)), rel=1e-12)
    assert s.sum() == pytest.approx(sequence_loss(probs[:-1], encode(SENTENCE)), rel=1e-12)
    with pytest.raises(ValueError, match="at least one character"):
        text_cross_entropy(model, "")


# ---------------------------------------------------------------- what chapter 5 states about the trained model

def test_chapter_5_numbers_bars_and_training_log(model):
    p = next_char_probs(model, "the train to ")
    order = np.argsort(p)[::-1]
    assert [ALPHABET[i] for i in order[:3]] == ["p", "k", "m"]
    np.testing.assert_allclose(p[order[:3]], [0.141, 0.135, 0.104], atol=5e-4)
    np.testing.assert_allclose([next_char_probs(model, "the train to ", T).max() for T in (1, 0.1, 0.01)],
                               [0.1414, 0.5701, 0.9881], atol=5e-5)
    with np.load(WEIGHTS_PATH) as saved:
        curve = saved["loss_curve"]
        assert int(saved["steps"]) == 6000 and int(saved["batch"]) == 32 and int(saved["bptt"]) == 96
        assert float(saved["clip"]) == 5.0 and float(saved["lr"]) == 0.01
    assert curve.shape == (60,)
    assert curve[0] == pytest.approx(1.438, abs=5e-4) and curve[-1] == pytest.approx(0.143, abs=5e-4)
    assert np.log(28) == pytest.approx(3.33, abs=5e-3)  # a model that knows nothing: a fair 28-sided die
    corpus = load_corpus()
    assert sum(map(len, corpus)) == 11910


def test_chapter_5_numbers_surprise_of_the_sentence(model):
    s = text_cross_entropy(model, SENTENCE)
    assert s.sum() == pytest.approx(5.663, abs=5e-4)
    assert s.mean() == pytest.approx(0.218, abs=5e-4)
    assert np.exp(-s.sum()) == pytest.approx(0.0035, abs=5e-5)
    assert round(np.exp(s.sum())) == 288
    np.testing.assert_allclose(s[[0, 13, 14, 18, 21, 25]], [0.551, 1.956, 0.663, 0.315, 0.888, 0.708], atol=5e-4)
    probs = lm_forward(model, SENTENCE)[0]
    guesses = decode(probs[:-1].argmax(axis=1))
    assert [t for t in range(26) if guesses[t] != SENTENCE[t]] == [25] and guesses[25] == " "
    assert guesses[4] == "t" and probs[4].max() == pytest.approx(0.786, abs=5e-4)


def test_chapter_5_numbers_talk(model):
    greedy = talk_greedy(model, "the train to ")
    assert greedy.text == "the train to pune is late by half an hour. the train to pune is late. the train to pune is late"
    assert (greedy.loop_start, greedy.loop_period) == (41, 27)
    samples = [talk_sample(model, "the train to ", T, seed=1).generated for T in (0.2, 0.5, 1, 2)]
    assert samples == ["mysore is late by twenty minutes. the train to patna is late by two hours.",
                       "kochi is cancelled today. the train from nagpur is late by ten minutes.",
                       "kochi leaves at five. tickets for mysore are sold at window eight.",
                       "kochi leas. my grandmothhr mavenexpreas oo stond wnisurd nowees on mile."]
    assert talk_sample(model, "the train to ", 0.01, seed=1).text == greedy.text[:len("the train to ") + 56]
    cold = next_char_probs(model, "the train to ", 0.2)     # the city branch at T = 0.2: not only one face left
    order = np.argsort(cold)[::-1]
    assert [ALPHABET[i] for i in order[:3]] == ["p", "k", "m"]
    np.testing.assert_allclose(cold[order[:3]], [0.390, 0.313, 0.085], atol=5e-4)
    assert samples[0][0] == "m"                              # die #1 rolls the third face: mysore
    typo = talk_greedy(model, "the trian to ")
    assert typo.generated.startswith("luncheatfarm sureer ma naieu. ") and typo.looped
    right, wrong = text_cross_entropy(model, "the train to ").sum(), text_cross_entropy(model, "the trian to ").sum()
    assert (round(right, 2), round(wrong, 2), round(wrong - right, 1)) == (1.13, 66.23, 65.1)
    assert talk_greedy(model, "the u").generated.startswith("grai is candoi ot. ")


# ---------------------------------------------------------------- talking

def test_find_loop():
    assert find_loop("the train to platform the train to platform ") == (0, 22)
    assert find_loop("will") is None
    assert find_loop("ab.ab.ab.", min_period=3) == (3, 3)
    assert find_loop("xyz patna is late. patna is late.") == (3, 15)  # " patna is late." twice
    with pytest.raises(ValueError, match="min_period"):
        find_loop("abab", 0)


def test_greedy_talk_is_the_top_character_each_time(model):
    talk = talk_greedy(model, "the train to ")
    text = talk.text
    for t in range(len("the train to "), len(text)):
        assert ALPHABET[int(np.argmax(next_char_probs(model, text[:t])))] == text[t]
    if talk.looped:
        block = text[talk.loop_start:talk.loop_start + talk.loop_period]
        assert text.endswith(block + block) and talk.loop_period >= 8
    assert talk_greedy(model, "the train to ") == talk


def test_sampling_is_fixed_by_the_dice(model):
    a = talk_sample(model, "the train to ", 1.0, seed=1)
    assert a == talk_sample(model, "the train to ", 1.0, seed=1)
    assert a == talk_sample(model, "the train to ", 1.0, seed=np.random.default_rng(1))
    assert a.generated.count(".") == 2 and a.generated.endswith(".") and not a.looped
    others = {talk_sample(model, "the train to ", 1.0, seed=d).generated for d in (2, 3, 4)}
    assert a.generated not in others or len(others) > 1


def test_a_tiny_temperature_samples_the_greedy_line(model):
    greedy = talk_greedy(model, "the train to ", max_chars=120).generated
    cold = talk_sample(model, "the train to ", 1e-3, seed=7, sentences=1).generated
    assert greedy.startswith(cold)
    p = next_char_probs(model, "the train to ", 1e-3)
    assert not np.isnan(p).any() and p.max() == 1.0


def test_a_huge_temperature_is_a_fair_die(model):
    np.testing.assert_allclose(next_char_probs(model, "the train to ", 1e9), np.full(28, 1 / 28), atol=1e-8)


@pytest.mark.parametrize("t", [0, -1, float("nan")])
def test_sampling_refuses_a_bad_temperature(model, t):
    with pytest.raises(ValueError, match="temperature"):
        talk_sample(model, "the train to ", t)
    with pytest.raises(ValueError, match="temperature"):
        next_char_probs(model, "the", t)


def test_softmax_temperature_keeps_the_ratio_rule():
    s = np.array([2, 1, 0.5, -1])
    for T in (0.5, 1, 2):
        p = softmax(s, T)
        assert p[0] / p[1] == pytest.approx(np.exp(1 / T))
        assert list(np.argsort(p)) == list(np.argsort(s))
    p05, p2 = softmax(s, 0.5), softmax(s, 2)
    assert round(p05[0], 3) / round(p05[1], 3) == pytest.approx(7.39, abs=0.005)
    assert round(p2[0], 3) / round(p2[1], 3) == pytest.approx(1.65, abs=0.005)


@pytest.mark.parametrize("kwargs,match", [({"seed": -1}, "seed"), ({"seed": 1.5}, "seed"),
                                          ({"sentences": 0}, "sentences"), ({"max_chars": 0}, "max_chars")])
def test_sampling_checks_its_arguments(model, kwargs, match):
    with pytest.raises(ValueError, match=match):
        talk_sample(model, "the", **kwargs)


def test_talk_checks_the_seed(model):
    with pytest.raises(ValueError, match="text may contain only"):
        talk_greedy(model, "The train")
    assert isinstance(talk_greedy(model, "", max_chars=5), Talk)


# ---------------------------------------------------------------- the training script

@pytest.mark.training
def test_a_short_training_run_is_reproducible(tmp_path):
    outs = [tmp_path / "a.npz", tmp_path / "b.npz"]
    for out in outs:
        subprocess.run([sys.executable, str(ROOT / "scripts" / "train_char_lm.py"), "--quick", "--out", str(out)],
                       check=True, capture_output=True, cwd=ROOT)
    a, b = (out.read_bytes() for out in outs)
    assert a == b
    quick = load_char_lm(outs[0])
    assert quick.size == 5068
    with np.load(outs[0]) as data:
        assert data["steps"].shape == () and int(data["steps"]) == 30 and data["loss_curve"].shape == (1,)
    assert hashlib.sha256(a).hexdigest() != WEIGHTS_SHA256
    curves = [json.loads(out.with_name(out.stem + "_curve.json").read_text(encoding="utf-8")) for out in outs]
    assert curves[0] == curves[1] and [point["step"] for point in curves[0]["curve"]] == [0, 30]


def test_the_held_out_curve_is_chapter_5s_measure_on_the_committed_model(model):
    """The script's cross-entropy (torch) on the committed weights is the chapter's numpy measure; its last point is that
    model, and the curve has the shape chapter 5 describes (lowest after 500 steps, then climbing to 0.515)."""
    import torch

    from mwm.charlm import HELDOUT_PATH
    from mwm_torch.charlm import CharRNN
    from scripts import train_char_lm
    heldout, corpus = load_corpus(HELDOUT_PATH), load_corpus()
    numpy_nats = sum(text_cross_entropy(model, s).sum() for s in heldout) / sum(map(len, heldout))   # as chapter 5 sums it
    torch.set_num_threads(1)
    net = CharRNN().double().load(W=model.W, U=model.U, b=model.b, V=model.V, b_V=model.b_V)
    assert train_char_lm.cross_entropy_per_char(net, heldout) == pytest.approx(numpy_nats, rel=1e-9)
    curve = json.loads(train_char_lm.CURVE_PATH.read_text(encoding="utf-8"))["curve"]
    assert [p["step"] for p in curve] == list(range(0, 6001, 100))
    assert curve[-1]["heldout"] == round(train_char_lm.cross_entropy_per_char(net, heldout), 6)
    assert curve[-1]["corpus"] == round(train_char_lm.cross_entropy_per_char(net, corpus), 6)
    best = min(curve, key=lambda p: p["heldout"])
    assert (best["step"], round(best["heldout"], 3), round(curve[-1]["heldout"], 3)) == (500, 0.337, 0.515)
    assert all(later["corpus"] < best["corpus"] for later in curve[10:])           # the corpus's keeps falling
    with pytest.raises(ValueError, match="sentences"):
        train_char_lm.cross_entropy_per_char(net, [])
    others = [load_char_lm(WEIGHTS_PATH.with_name(f"char_lm_seed{k}.npz")) for k in (6, 7)]
    ends = [(round(train_char_lm.cross_entropy_per_char(CharRNN().double().load(W=m.W, U=m.U, b=m.b, V=m.V, b_V=m.b_V), heldout), 3),
             round(train_char_lm.cross_entropy_per_char(CharRNN().double().load(W=m.W, U=m.U, b=m.b, V=m.V, b_V=m.b_V), corpus), 3))
            for m in others]
    assert ends == [(0.518, 0.147), (0.479, 0.147)]
