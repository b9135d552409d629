"""Chapters 12 and 14: the toy corpus, the translator's numpy inference, its training script,
the committed weights and outputs, and every number the two chapters state."""
import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mwm import translation_corpus as tc
from scripts import make_parallel_corpus
from mwm.bleu import corpus_bleu
from mwm.dynamics import matrix_powers, spectral_radius, scalar_chain
from mwm.params import cell_param_count, readout_param_count
from mwm.readout import softmax
from mwm.seq2seq import (READS, WEIGHT_FILES, Vocab, attention_weights, accuracy_by_position, bleu_by_length, first_length_below,
                         first_word_weight, leaky_summary, length_buckets, load_test_outputs, load_translator,
                         numbers_in, save_weights)

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"

#: sha256 of the committed full-run weight files (scripts/sweep_bottleneck.py records the same digests for its seed-2014 runs).
WEIGHT_SHA256 = {
    "plain": "35029415349f5813eeea631df91937dac8327e5b92e1f2613233391ac2ccd38b",
    "attention": "2741457d0dfe390f4adfe30403fcd51371e5d0afd4fe8b2878033a97c05efc3c",
    "control": "cf72dca1d49b556a3489e366eb1d8cd28c67eced94d34b2789ee406c4c5f3c0a",
}
MODELS = ("plain", "attention", "control")


@pytest.fixture(scope="module")
def models():
    return {name: load_translator(name) for name in MODELS}


@pytest.fixture(scope="module")
def outputs():
    return load_test_outputs()


# --- the corpus ---------------------------------------------------------------------------

def test_corpus_script_rebuilds_the_committed_files_exactly(tmp_path):
    train, test = make_parallel_corpus.write_corpus(tmp_path)
    assert train.read_bytes() == tc.TRAIN_FILE.read_bytes()
    assert test.read_bytes() == tc.TEST_FILE.read_bytes()


def test_corpus_statistics():
    train, test = tc.load_pairs("train"), tc.load_pairs("test")
    assert (len(train), len(test)) == (6000, 1000)
    lengths = [len(e) for e, _ in train + test]
    assert (min(lengths), max(lengths)) == (3, 48)
    assert sum(n >= 30 for n in lengths) > 1500  # long sentences are common, not rare
    assert not {" ".join(e) for e, _ in train} & {" ".join(e) for e, _ in test}
    # every word of the test set is known from training
    src = {w for e, _ in train for w in e}
    tgt = {w for _, h in train for w in h}
    assert all(w in src for e, _ in test for w in e) and all(w in tgt for _, h in test for w in h)
    assert (len(src), len(tgt)) == (178, 210)


def test_grammar_reorders_and_agrees():
    pairs = dict((" ".join(e), " ".join(h)) for e, h in tc.load_pairs("train") + tc.load_pairs("test"))
    assert pairs["the chaiwala works"] == "chaiwala kaam karta hai"
    assert pairs["a singer is singing"] == "ek gaayika ga rahi hai"        # feminine subject: rahi
    assert pairs["the tempo is full"] == "tempo bhara hai"
    assert pairs["the bus was early"] == "bus jaldi thi"                    # bus is feminine: thi
    assert pairs["the doctor drinks water behind the garden"] == "doctor bageecha ke peeche paani peeta hai"


def test_generate_pairs_is_seeded_and_checks_its_arguments():
    assert tc.generate_pairs(5, seed=1) == tc.generate_pairs(5, seed=1)
    assert tc.generate_pairs(5, seed=1) != tc.generate_pairs(5, seed=2)
    with pytest.raises(ValueError, match="n_pairs"):
        tc.generate_pairs(0)
    with pytest.raises(ValueError, match="min_words"):
        tc.generate_pairs(3, min_words=10, max_words=5)
    with pytest.raises(ValueError, match="split"):
        tc.load_pairs("dev")


# --- vocabularies and the step interface -------------------------------------------------

def test_vocab_round_trip_and_errors(models):
    v = models["plain"].target_vocab
    words = "delhi ki train late hai".split()
    assert v.words_of(v.ids_of(words)) == words
    assert v.ids_of("delhi ki") == v.ids_of(["delhi", "ki"])
    assert (v.pad_id, v.bos_id, v.eos_id) == (0, 1, 2)
    with pytest.raises(ValueError, match="'paris' is not in the vocabulary"):
        v.ids_of(["paris"])
    with pytest.raises(ValueError, match="ids"):
        v.words_of([len(v)])
    with pytest.raises(ValueError, match="start with"):
        Vocab(["a", "b"])


def test_step_interface(models):
    m = models["plain"]
    state = m.decoder_start("the train to delhi is late".split())
    log_probs, state2 = m.step(state, m.bos_id)
    assert log_probs.shape == (len(m.target_vocab),)
    assert np.exp(log_probs).sum() == pytest.approx(1.0, abs=1e-12)
    assert state2.h.shape == (128,) and state2.memory.shape == (6, 128)
    with pytest.raises(ValueError, match="token_id"):
        m.step(state, len(m.target_vocab))
    with pytest.raises(ValueError, match="source_words"):
        m.decoder_start([])
    with pytest.raises(ValueError, match="max_words"):
        m.translate("the boy sleeps", max_words=0)


def test_attention_weights_are_a_distribution(models):
    m = models["attention"]
    words, weights = m.translate("the train to delhi is late".split(), return_weights=True)
    assert weights.shape == (len(words) + 1, 6)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
    assert models["plain"].translate("the boy sleeps", return_weights=True)[1] is None


def test_a_read_restricted_to_some_states_weighs_only_those():
    """attention_weights: the softmax over the states a read allows, 0 elsewhere; 1/T each for equal weights."""
    e = np.array([0.5, 2.0, -1.0, 1.0, 0.0])
    np.testing.assert_allclose(attention_weights(e, "all"), softmax(e))
    np.testing.assert_array_equal(attention_weights(e, "last"), [0, 0, 0, 0, 1])
    first, second = attention_weights(e, "first half"), attention_weights(e, "second half")
    np.testing.assert_allclose(first[:3], softmax(e[:3]))
    np.testing.assert_allclose(second[2:], softmax(e[2:]))
    assert first[3:].sum() == 0 and second[:2].sum() == 0   # the middle word of five is in both halves
    np.testing.assert_allclose(attention_weights(e, "equal weights"), 0.2)
    for read in READS:
        np.testing.assert_allclose(attention_weights([3.0], read), [1.0])   # one word: every read reads it
    with pytest.raises(ValueError, match="read must be one of"):
        attention_weights(e, "middle")
    with pytest.raises(ValueError, match="scores must be"):
        attention_weights([1.0, np.nan], "all")


def test_the_trained_decoder_reads_only_what_it_is_allowed(models):
    m, src = models["attention"], "the old porter from pune carries a heavy bag on the platform every morning".split()
    assert m.translate(src, read="all") == m.translate(src)
    words, weights = m.translate(src, return_weights=True, read="last")
    np.testing.assert_array_equal(weights, np.eye(len(src))[[-1] * len(weights)])
    words, weights = m.translate(src, return_weights=True, read="first half")
    assert weights[:, (len(src) + 1) // 2:].sum() == 0
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="needs the attention model"):
        models["control"].translate(src, read="last")
    with pytest.raises(ValueError, match="read must be one of"):
        m.step_model(src, read="everything")


# --- numpy inference = the torch model that was trained ----------------------------------

@pytest.mark.parametrize("name", MODELS)
def test_numpy_inference_matches_torch(models, name):
    torch = pytest.importorskip("torch")
    with np.load(WEIGHT_FILES[name]) as data:
        w = {k: data[k] for k in data.files}
    from mwm_torch.translator import Seq2Seq
    net = Seq2Seq.from_numpy(w).double()
    m = models[name]
    assert net.kind == m.name == name
    pairs = tc.load_pairs("test")[:3]
    src_ids = [m.source_vocab.ids_of(e) for e, _ in pairs]
    width = max(len(x) for x in src_ids)
    padded = torch.tensor([x + [0] * (width - len(x)) for x in src_ids])   # one padded batch, as in training
    for i, (e, h) in enumerate(pairs):
        tgt_in = torch.tensor([[m.bos_id] + m.target_vocab.ids_of(h)])
        with torch.no_grad():
            ref = torch.log_softmax(net(padded[i:i + 1, :len(e)], torch.tensor([len(e)]), tgt_in), dim=-1)[0].numpy()
            batched = torch.log_softmax(net(padded, torch.tensor([len(x) for x in src_ids]),
                                            tgt_in.expand(len(pairs), -1)), dim=-1)[i].numpy()
        state, ours = m.decoder_start(e), []
        for prev in tgt_in[0].tolist():
            lp, state = m.step(state, prev)
            ours.append(lp)
        assert np.abs(np.array(ours) - ref).max() < 1e-9
        assert np.abs(np.array(ours) - batched).max() < 1e-9


def test_committed_outputs_are_what_numpy_inference_gives(models, outputs):
    assert len(outputs) == 1000
    for row in outputs[::50]:  # a sample of 20 test sentences, short and long
        for name in MODELS:
            assert models[name].translate(row["source"]) == row[name]
    assert [r["source"] for r in outputs] == [e for e, _ in tc.load_pairs("test")]
    assert [r["reference"] for r in outputs] == [h for _, h in tc.load_pairs("test")]


# --- training: reproducible, and the committed weights are the documented ones -----------

@pytest.mark.training
@pytest.mark.parametrize("name", ["attention", "control"])
def test_training_script_is_reproducible(tmp_path, name):
    digests = []
    for k in range(2):
        out = tmp_path / f"quick{k}.npz"
        subprocess.run([sys.executable, str(SCRIPTS / "train_translator.py"), "--model", name, "--quick",
                        "--out", str(out)], check=True, capture_output=True, cwd=ROOT)
        digests.append(hashlib.sha256(out.read_bytes()).hexdigest())
    assert digests[0] == digests[1]
    quick = load_translator(path=tmp_path / "quick0.npz")
    assert quick.name == name and quick.attention == (name == "attention") and quick.hidden_size == 128
    assert quick.parameter_count == 283_478


def test_the_control_starts_where_the_attention_model_starts():
    """Same seed, same layers built in the same order: the two differ only in what the combine layer reads."""
    torch = pytest.importorskip("torch")
    from mwm_torch.translator import Seq2Seq
    nets = {}
    for kind in ("attention", "control"):
        torch.manual_seed(2014)
        nets[kind] = Seq2Seq(182, 214, 64, 128, kind)
    for (name, a), (_, b) in zip(nets["attention"].named_parameters(), nets["control"].named_parameters()):
        assert torch.equal(a, b), name
    with pytest.raises(ValueError, match="kind"):
        Seq2Seq(182, 214, 64, 128, "bigger")


def test_translator_rejects_two_combine_layers(models):
    w = dict(models["attention"].params)
    w.update(src_words=np.array(models["attention"].source_vocab.words),
             tgt_words=np.array(models["attention"].target_vocab.words),
             summary_combine_W=w["combine_W"], summary_combine_b=w["combine_b"])
    from mwm.seq2seq import Translator
    with pytest.raises(ValueError, match="both"):
        Translator(w)


@pytest.mark.parametrize("name", MODELS)
def test_committed_weights(name):
    data = WEIGHT_FILES[name].read_bytes()
    assert hashlib.sha256(data).hexdigest() == WEIGHT_SHA256[name]
    assert len(data) < 2_000_000


def test_save_weights_is_byte_reproducible(tmp_path):
    arrays = {"b": np.arange(3, dtype=np.float32), "a": np.array(["x", "y"])}
    save_weights(tmp_path / "1.npz", arrays)
    save_weights(tmp_path / "2.npz", arrays)
    assert (tmp_path / "1.npz").read_bytes() == (tmp_path / "2.npz").read_bytes()
    with np.load(tmp_path / "1.npz") as d:
        assert d["a"].tolist() == ["x", "y"] and d["b"].tolist() == [0, 1, 2]


# --- the bottleneck in numbers (chapter 12) -------------------------------------------

def test_numbers_in_and_the_squeeze():
    assert (numbers_in(5, 8), numbers_in(50, 8)) == (40, 400)
    assert (numbers_in(5, 8) // 8, numbers_in(50, 8) // 8) == (5, 50)
    assert numbers_in(40, 100) == 4000
    assert numbers_in(48, 64) == 3072
    assert (numbers_in(10, 128), numbers_in(40, 128)) == (1280, 5120)
    with pytest.raises(ValueError, match="word_size"):
        numbers_in(5, 0)


def test_word_one_fades():
    assert first_word_weight(5) == pytest.approx(0.6561, abs=1e-15)
    assert round(first_word_weight(6), 2) == 0.59
    assert round(first_word_weight(50), 4) == 0.0057
    assert round(first_word_weight(20), 3) == 0.135
    assert round(first_word_weight(40), 4) == 0.0164
    assert round(first_word_weight(44), 4) == 0.0108 and round(first_word_weight(45), 4) == 0.0097
    assert first_length_below(0.01, 0.9) == 45
    assert first_word_weight(44) > 0.01 > first_word_weight(45)
    with pytest.raises(ValueError, match="beta must be strictly between"):
        first_word_weight(5, beta=1.0)
    with pytest.raises(ValueError, match="threshold"):
        first_length_below(0)


@pytest.mark.parametrize("threshold,a", [(0.5, 0.5), (0.01, 0.9), (0.25, 0.5), (1e-3, 0.99)])
def test_first_length_below_is_the_least_such_length(threshold, a):
    n = first_length_below(threshold, a)
    assert a ** (n - 1) < threshold and (n == 1 or a ** (n - 2) >= threshold)


def test_leaky_summary_closed_form():
    rng = np.random.default_rng(12)
    e = rng.normal(size=(7, 3))
    closed = sum(0.9 ** (7 - k) * e[k - 1] for k in range(1, 8))
    np.testing.assert_allclose(leaky_summary(e, 0.9)[-1], closed, rtol=0, atol=1e-12)
    s = leaky_summary(np.eye(50), 0.9)[-1]
    assert round(s[0], 4) == 0.0057 and s[-1] == 1.0
    with pytest.raises(ValueError, match="word_vectors"):
        leaky_summary(np.zeros((0, 3)))


def test_length_buckets():
    assert length_buckets(10) == [(3, 9), (10, 19), (20, 29), (30, 39), (40, 48)]
    assert length_buckets(20) == [(3, 9), (10, 29), (30, 48)]
    assert length_buckets(5)[:3] == [(3, 9), (10, 14), (15, 19)] and length_buckets(5)[-1] == (45, 48)
    with pytest.raises(ValueError, match="width"):
        length_buckets(0)


def test_translate_is_chapter_13s_greedy_decode_and_beam_width_1(models):
    from mwm.decoding import beam_search, greedy_decode
    m = models["plain"]
    src = "the train to delhi is late".split()
    best = greedy_decode(m.step_model(src), max_length=81)
    assert m.target_vocab.words_of(best.tokens[:-1]) == m.translate(src) == "delhi ki train late hai".split()
    assert beam_search(m.step_model(src), 1, max_length=81).best.tokens == best.tokens
    assert m.translate(src, max_words=2) == ["delhi", "ki"]


# --- the trained plain model's numbers quoted in chapter 12 ------------------------------

def test_chapter_12_model_sizes(models):
    m = models["plain"]
    E, H = m.params["src_embedding"].shape[1], m.hidden_size
    assert (E, H, m.summary_size) == (64, 128, 256)
    assert (len(m.source_vocab), len(m.target_vocab)) == (182, 214)
    enc = cell_param_count(H, E, "lstm")
    emb = (len(m.source_vocab) + len(m.target_vocab)) * E
    read = readout_param_count(H, len(m.target_vocab))
    assert (enc, emb, read, 2 * enc + emb + read) == (98_816, 25_344, 27_606, 250_582)
    assert m.summary("the boy sleeps").shape == m.summary(" ".join(["the boy sleeps and"] * 11) + " the boy sleeps").shape
    losses = m.params["loss_per_epoch"]
    assert len(losses) == 30 and losses[0] > losses[9] > losses[-1]
    assert (round(float(losses[0]), 3), round(float(losses[9]), 3), round(float(losses[-1]), 3)) == (3.316, 1.21, 0.629)


def test_chapter_12_translations(models):
    m = models["plain"]
    test = tc.load_pairs("test")
    assert m.translate("the train to delhi is late") == "delhi ki train late hai".split()
    assert "the train to delhi is late".split() not in [e for e, _ in tc.load_pairs("train")]  # new to the model
    assert [len(test[k][0]) for k in (61, 16, 22)] == [6, 16, 32]
    assert m.translate(test[61][0]) == test[61][1]          # the short one is right
    assert m.translate(test[22][0]) != test[22][1]          # the long one is not
    e, h = test[22]
    guesses, _ = m.teacher_forced(e, h)
    free = m.translate(e)
    assert sum(g == r for g, r in zip(guesses, h)) > sum(g == r for g, r in zip(free, h))


def test_chapter_12_the_subject_survives_but_later_clauses_are_lost(models):
    """The boy/girl swap: relative change of the summary 0.47, 0.37, 0.31; gender kept at 36 words; "coffee" at 16."""
    m = models["plain"]
    a = "the boy drinks chai on the platform".split()
    b = "the girl drinks chai on the platform".split()
    more = ("and the train to mumbai was late because the porter was carrying a heavy suitcase "
            "and the old chaiwala from pune is selling samosa near the station every morning").split()
    rows = []
    for extra in (0, 9, len(more)):
        s_boy, s_girl = m.summary(a + more[:extra]), m.summary(b + more[:extra])
        move, size = np.linalg.norm(s_girl - s_boy), np.linalg.norm(s_boy)
        rows.append((len(a) + extra, round(move, 1), round(size, 1), round(move / size, 2)))
    assert rows == [(7, 11.8, 25.3, 0.47), (16, 13.6, 36.7, 0.37), (36, 17.9, 58.5, 0.31)]
    assert m.translate(a + more)[:5] == "ladka platform par chai peeta".split()
    assert m.translate(b + more)[:5] == "ladki platform par chai peeti".split()
    assert m.translate(b + more[:9])[:5] == "ladki platform par coffee peeti".split()   # the slip the chapter mentions
    assert m.translate(a + more[:9])[:5] == "ladka platform par chai peeta".split()


def test_teacher_forced_accuracy_by_blocks_of_ten_words(models):
    """Chapter 12's table (the plain model) and chapter 14's (plain against attention), by blocks of ten Hindi words."""
    long_pairs = [p for p in tc.load_pairs("test") if len(p[0]) >= 30]
    assert len(long_pairs) == 377
    blocks = {}
    for name in ("plain", "attention"):
        acc = accuracy_by_position(models[name], long_pairs, 40)
        blocks[name] = [round(acc[lo:lo + 10, 0].sum() / acc[lo:lo + 10, 1].sum(), 3) for lo in range(0, 40, 10)]
        if name == "attention":
            assert round((acc[:, 0] / acc[:, 1]).min(), 3) == 0.971
    assert blocks["plain"] == [0.806, 0.564, 0.559, 0.572]
    assert blocks["attention"] == [0.999, 0.998, 0.991, 0.989]
    assert round(blocks["plain"][0], 2) == 0.81


def test_chapter_12_pause_and_predict_3(models):
    """At position 10 both runs write "school" for "nadi"; afterwards 10 of 17 right forced, 2 of 17 free."""
    m = models["plain"]
    e, h = tc.load_pairs("test")[22]
    free, forced = m.translate(e), m.teacher_forced(e, h)[0]
    first = next(i for i, (x, y) in enumerate(zip(free + ["<none>"] * len(h), h)) if x != y)
    assert first + 1 == 10 and (h[first], forced[first], free[first]) == ("nadi", "school", "school")
    later = range(first + 1, len(h))
    assert len(later) == 17
    assert sum(forced[i] == h[i] for i in later) == 10
    assert sum(i < len(free) and free[i] == h[i] for i in later) == 2


def test_chapter_12_note_is_bounded_cell_state_is_not(models):
    """h_T = o * tanh(c_T) stays in (-1, 1); c_T reaches 4.8 on the 6-word sentence and 38.7 on the first 48-word one."""
    m = models["plain"]
    H = m.hidden_size
    test = tc.load_pairs("test")
    longest = next(e for e, _ in test if len(e) == 48)
    out = []
    for words in ("the train to delhi is late".split(), longest):
        s = m.summary(words)
        out.append((round(np.abs(s[:H]).max(), 5), round(np.abs(s[H:]).max(), 1)))
    assert out == [(0.98221, 4.8), (0.99997, 38.7)]
    for e, _ in test[::40]:   # a sample of 25 test sentences: the note never reaches 1 in size
        assert np.abs(m.summary(e)[:H]).max() < 1


def test_chapter_12_to_and_from_delhi_get_the_same_hindi():
    """The grammar's simplification the chapter owns up to: both become "delhi ki train"."""
    train = tc.load_pairs("train")
    shortest = {d: min((p for p in train if p[0][:4] == ["the", "train", d, "delhi"]), key=lambda p: len(p[0]))
                for d in ("to", "from")}
    assert " ".join(shortest["from"][0]) == "the train from delhi is slow"
    assert " ".join(shortest["from"][1]) == "delhi ki train dheemi hai"
    assert shortest["to"][1][:3] == shortest["from"][1][:3] == ["delhi", "ki", "train"]


def test_chapters_12_and_13_quote_sutskever_2014_alike():
    """The paper's published scores are inputs, not results: chapter 12 quotes them (chapter 13 no longer does)."""
    import json
    code = {}
    for stem in ("12-encoder-decoder",):
        cells = json.loads((ROOT / "chapters" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]
        code[stem] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for value in ("34.8", "33.3"):
        assert all(value in text for text in code.values())
    assert "36.5" in code["12-encoder-decoder"]


def test_parameter_counts(models):
    """Chapter 14's trap: 250,582 against 283,478 numbers, the difference the read-out's 32,896 (13%)."""
    plain, att = models["plain"].parameter_count, models["attention"].parameter_count
    assert (plain, att, att - plain) == (250_582, 283_478, 32_896)
    assert models["control"].parameter_count == att                       # the control: same size as attention
    assert models["control"].params["summary_combine_W"].shape == (128, 256)
    assert f"{(att - plain) / plain:.0%}" == "13%"


def test_training_logs(models):
    """Chapter 14: the plain model ends training at 0.629 nats per word, the attention model at 0.0007."""
    logs = {n: models[n].params["loss_per_epoch"] for n in ("plain", "attention")}
    assert (round(float(logs["plain"][-1]), 4), round(float(logs["attention"][-1]), 4)) == (0.6292, 0.0007)
    assert (round(float(logs["plain"][0]), 3), round(float(logs["attention"][0]), 3)) == (3.316, 3.166)
    assert len(logs["attention"]) == 30
    control = models["control"].params["loss_per_epoch"]                 # same recipe, same 30 epochs
    assert len(control) == 30 and (round(float(control[0]), 3), round(float(control[-1]), 4)) == (3.189, 0.3154)
    assert 0.49 < control[-1] / logs["plain"][-1] < 0.52                  # "nearly halves"


# --- chapter 14: BLEU by length from the committed outputs -------------------------------

def test_chapter_14_bleu(outputs):
    refs = [r["reference"] for r in outputs]
    lengths = [len(r["source"]) for r in outputs]
    overall = {m: corpus_bleu([r[m] for r in outputs], [[x] for x in refs]) for m in ("plain", "attention")}
    assert (round(overall["plain"], 3), round(overall["attention"], 3)) == (0.345, 0.986)
    by = {m: bleu_by_length([r[m] for r in outputs], refs, lengths, length_buckets(10)) for m in ("plain", "attention")}
    assert [n for _, _, n, _ in by["plain"]] == [156, 233, 234, 241, 136]
    assert [round(s, 3) for *_, s in by["plain"]] == [0.977, 0.591, 0.348, 0.262, 0.228]
    assert [round(s, 3) for *_, s in by["attention"]] == [1.0, 0.998, 0.995, 0.983, 0.975]
    control = bleu_by_length([r["control"] for r in outputs], refs, lengths, length_buckets(10))
    assert round(corpus_bleu([r["control"] for r in outputs], [[x] for x in refs]), 3) == 0.377
    assert [round(s, 3) for *_, s in control] == [0.931, 0.729, 0.375, 0.269, 0.231]
    assert abs(control[-1][3] - by["plain"][-1][3]) < 0.005              # about the same on the longest sentences
    # the bottleneck: the plain model falls with length, attention stays level
    plain = [s for *_, s in by["plain"]]
    assert all(a > b for a, b in zip(plain, plain[1:]))
    assert min(s for *_, s in by["attention"]) > 0.97
    drops = [round(x - y, 2) for x, y in zip(plain, plain[1:])]
    assert drops == [0.39, 0.24, 0.09, 0.03]        # steeply at first, then more gently
    assert all(x > y for x, y in zip(drops, drops[1:]))
    with pytest.raises(ValueError, match="equally long"):
        bleu_by_length([["a"]], [], [1], length_buckets(10))


def test_chapter_14_bootstrap_on_the_longest_bucket(outputs):
    """The trap: 2,000 draws of the 136 sentences of 40-48 words; summed counts give corpus BLEU exactly."""
    from mwm.bleu import bleu_details
    longest = [r for r in outputs if len(r["source"]) >= 40]
    assert len(longest) == 136
    fields = ("matches", "totals", "candidate_length", "reference_length")
    st = {}
    for name in MODELS:
        d = [bleu_details(r[name], [r["reference"]]) for r in longest]
        st[name] = [np.array([getattr(x, f) for x in d]) for f in fields]

    def bleu_of(name, idx):
        m, tot, c, r = (a[idx].sum(axis=0) for a in st[name])
        return min(1.0, np.exp(1 - r / c)) * np.exp(np.log(m / tot).mean())

    draws = np.random.default_rng(14).integers(0, len(longest), (2000, len(longest)))
    for idx in draws[:3]:   # the chapter's shortcut is corpus BLEU of the drawn sentences
        for name in MODELS:
            assert bleu_of(name, idx) == pytest.approx(
                corpus_bleu([longest[i][name] for i in idx], [[longest[i]["reference"]] for i in idx]), abs=1e-12)
    boot = {name: np.array([bleu_of(name, idx) for idx in draws]) for name in MODELS}
    boot["control - plain"] = boot["control"] - boot["plain"]
    got = {name: np.percentile(b, [2.5, 97.5]).round(3).tolist() for name, b in boot.items()}
    assert got == {"plain": [0.215, 0.24], "attention": [0.957, 0.982], "control": [0.215, 0.247],
                   "control - plain": [-0.016, 0.023]}
    assert got["control - plain"][0] < 0 < got["control - plain"][1]     # no measurable gain from the size
    assert got["attention"][0] > got["control"][1] + 0.7                  # the look-back: far apart


def test_chapter_14_bucket_sizes(outputs):
    """The Try it panel: the first group is 3-9 at every width; the smallest group holds 39 sentences (width 5)."""
    lengths = [len(r["source"]) for r in outputs]
    smallest = {}
    for width in (5, 10, 20):
        groups = length_buckets(width, min(lengths), max(lengths))
        counts = [sum(lo <= n <= hi for n in lengths) for lo, hi in groups]
        assert groups[0] == (3, 9) and sum(counts) == 1000
        smallest[width] = (min(counts), groups[counts.index(min(counts))])
    assert smallest == {5: (39, (45, 48)), 10: (136, (40, 48)), 20: (156, (3, 9))}


def test_chapter_14_attention_sizes_and_worked_example(models):
    m = models["attention"]
    assert m.params["combine_W"].shape == (128, 256)
    assert m.params["combine_W"].size + m.params["combine_b"].size == 32_896
    enc = np.array([[0.5, 0.5], [2.0, -1.0], [-1.0, 1.0]])
    alpha = softmax(enc @ np.array([1.0, 0.0]))
    assert [round(a, 4) for a in alpha] == [0.1753, 0.7856, 0.0391]
    assert [round(c, 4) for c in alpha @ enc] == [1.6197, -0.6588]
    zero = softmax(enc @ np.zeros(2))   # pause-and-predict 2: a blank note
    assert [round(a, 4) for a in zero] == [0.3333] * 3
    assert round(scalar_chain(0.5, 10)[1][10], 3) == 0.001 and round(scalar_chain(1.5, 10)[1][10]) == 58
    src = "the old porter from pune carries a heavy bag on the platform every morning".split()
    assert m.translate(src) == "pune ka boodha kuli har subah platform par ek bhaari bag uthata hai".split()


def test_chapter_14_proof_check():
    """The proof's check: a nudge to h_0 of a linear cell moves h_6 by W^6 times it; this W's largest
    |eigenvalue| is 0.9975, just below 1."""
    rng = np.random.default_rng(14)
    W = rng.normal(0, 0.4, (3, 3))
    h0 = rng.normal(size=3)
    nudge = np.array([1e-6, 0, 0])
    a, b = matrix_powers(W, h0, 6)[6], matrix_powers(W, h0 + nudge, 6)[6]
    np.testing.assert_allclose((b - a) / 1e-6, np.linalg.matrix_power(W, 6)[:, 0], atol=1e-8)
    rho = spectral_radius(W)
    assert round(rho, 4) == 0.9975 and rho < 1


# --- chapter 14: training sample vs test set, teacher forcing with a baseline ------------

def _translate_test_set_script():
    from scripts import translate_test_set
    return translate_test_set


def test_sample_by_bucket_is_seeded_and_balanced():
    from mwm.seq2seq import sample_by_bucket
    lengths = [3, 4, 5, 12, 13, 14, 15, 20]
    a = sample_by_bucket(lengths, [(3, 9), (10, 19), (20, 29)], 2, seed=14)
    assert a == sample_by_bucket(lengths, [(3, 9), (10, 19), (20, 29)], 2, seed=14) == sorted(a)
    assert sum(i < 3 for i in a) == 2 and sum(3 <= i < 7 for i in a) == 2 and 7 in a   # 2, 2 and all of the 1
    with pytest.raises(ValueError):
        sample_by_bucket(lengths, [(3, 9)], 0, seed=14)


def test_committed_training_sample_is_what_numpy_inference_gives(models):
    from mwm.seq2seq import load_train_outputs
    script = _translate_test_set_script()
    rows = load_train_outputs()
    assert [r["row"] for r in rows] == script.train_sample()            # the seeded sample, 200 per bucket
    pairs = tc.load_pairs("train")
    lengths = [len(r["source"]) for r in rows]
    assert [sum(lo <= n <= hi for n in lengths) for lo, hi in length_buckets(10)] == [200] * 5
    assert all(r["source"] == list(pairs[r["row"]][0]) and r["reference"] == list(pairs[r["row"]][1]) for r in rows)
    for r in rows[::50]:   # 20 training pairs, short and long, decoded again
        for name in MODELS:
            assert models[name].translate(r["source"]) == r[name]
    assert script.train_lines([rows[7]["row"]])[1] == "\t".join(
        [str(rows[7]["row"])] + [" ".join(rows[7][n]) for n in MODELS])


def test_chapter_14_train_vs_test_bleu(outputs):
    """Neither summary model fits long training sentences; the control's better fit barely carries to new ones."""
    from mwm.seq2seq import load_train_outputs
    train = load_train_outputs()
    got = {}
    for split, rows in (("train", train), ("test", outputs)):
        refs, lengths = [r["reference"] for r in rows], [len(r["source"]) for r in rows]
        for name in MODELS:
            got[split, name] = [round(s, 3) for *_, s in bleu_by_length([r[name] for r in rows], refs, lengths,
                                                                         length_buckets(10))]
    assert got["train", "plain"] == [1.0, 0.887, 0.504, 0.328, 0.277]
    assert got["train", "control"] == [1.0, 0.999, 0.886, 0.565, 0.435]
    assert got["train", "attention"] == [1.0] * 5
    assert got["test", "control"][2] == 0.375 and got["test", "plain"][2] == 0.348
    for name in ("plain", "control"):      # the summary models do not fit the long training sentences either
        assert got["train", name][-1] < 0.5
    # the control's training-set lead over the plain model is far larger than its test-set lead (20-29 words)
    assert got["train", "control"][2] - got["train", "plain"][2] > 10 * (got["test", "control"][2] - got["test", "plain"][2])


def test_hits_by_position_sum_to_accuracy_by_position(models, outputs):
    from mwm.seq2seq import hits_by_position
    pairs = [(r["source"], r["reference"]) for r in outputs[:12]]
    for name in ("plain", "attention"):
        hits = [hits_by_position(models[name], s, h, 40) for s, h in pairs]
        acc = accuracy_by_position(models[name], pairs, 40)
        assert [sum(int(x[k]) for x in hits if len(x) > k) for k in range(40)] == acc[:, 0].tolist()
        assert [sum(len(x) > k for x in hits) for k in range(40)] == acc[:, 1].tolist()


def test_committed_teacher_forced_file(models, outputs):
    """Chapter 14's teacher-forced blocks, with the control and the wrong-source baseline, and the bootstrap."""
    from mwm.seq2seq import hits_by_position, load_teacher_forced
    script = _translate_test_set_script()
    tf = load_teacher_forced()
    assert [(t["row"], t["other"]) for t in tf] == script.teacher_forced_rows()
    assert len(tf) == 377 and all(t["row"] != t["other"] for t in tf)
    for t in tf[::40]:   # decode 10 sentences again
        src, ref = outputs[t["row"]]["source"], outputs[t["row"]]["reference"]
        for name in MODELS:
            assert hits_by_position(models[name], src, ref) == "".join(map(str, t[name]))
        assert hits_by_position(models["plain"], outputs[t["other"]]["source"], ref) == "".join(
            map(str, t["plain_other_source"]))
    runs = MODELS + ("plain_other_source",)
    right = {n: np.zeros((len(tf), 40)) for n in runs}
    seen = np.zeros((len(tf), 40))
    for i, t in enumerate(tf):
        seen[i, :len(t["plain"])] = 1
        for n in runs:
            right[n][i, :len(t[n])] = t[n]
    blocks = {n: [round(right[n][:, lo:lo + 10].sum() / seen[:, lo:lo + 10].sum(), 3) for lo in range(0, 40, 10)]
              for n in runs}
    assert blocks == {"plain": [0.806, 0.564, 0.559, 0.572], "attention": [0.999, 0.998, 0.991, 0.989],
                      "control": [0.706, 0.585, 0.594, 0.644], "plain_other_source": [0.246, 0.31, 0.305, 0.323]}
    assert seen.sum(0)[[0, 20, 29, 30, 39]].tolist() == [377, 377, 321, 299, 78]
    assert round((right["attention"].sum(0) / seen.sum(0)).min(), 3) == 0.971
    # the file covers exactly the test sentences of 30 or more English words
    assert [t["row"] for t in tf] == [i for i, r in enumerate(outputs) if len(r["source"]) >= 30]
    draws = np.random.default_rng(14).integers(0, len(tf), (2000, len(tf)))
    got = {}
    for n in runs:
        r, s = right[n][:, 10:].sum(1), seen[:, 10:].sum(1)
        low, high = np.percentile(r[draws].sum(1) / s[draws].sum(1), [2.5, 97.5])
        got[n] = [round(r.sum() / s.sum(), 3), round(low, 3), round(high, 3)]
    assert got["plain"] == [0.563, 0.553, 0.573] and got["control"] == [0.6, 0.59, 0.609]
    assert got["control"][1] > got["plain"][2]                           # the control's edge survives resampling
    assert got["plain_other_source"][2] < got["plain"][1]                 # both far above the no-information baseline


def test_chapter_14_control_gain_on_shorter_sentences(outputs):
    """The control - plain bootstrap on 10-19 words and the whole test set (seed 14, 2,000 draws)."""
    from mwm.bleu import bleu_details
    fields = ("matches", "totals", "candidate_length", "reference_length")
    st = {}
    for name in ("plain", "control"):
        d = [bleu_details(r[name], [r["reference"]]) for r in outputs]
        st[name] = [np.array([getattr(x, f) for x in d]) for f in fields]

    def bleu_of(name, idx):
        m, tot, c, r = (a[idx].sum(axis=0) for a in st[name])
        return min(1.0, np.exp(1 - r / c)) * np.exp(np.log(m / tot).mean())

    lengths = np.array([len(r["source"]) for r in outputs])
    got = {}
    for label, group in (("10-19", np.flatnonzero((lengths >= 10) & (lengths <= 19))), ("all", np.arange(len(outputs)))):
        draws = group[np.random.default_rng(14).integers(0, len(group), (2000, len(group)))]
        gain = np.array([bleu_of("control", i) - bleu_of("plain", i) for i in draws])
        got[label] = np.percentile(gain, [2.5, 97.5]).round(3).tolist()
    assert got == {"10-19": [0.1, 0.177], "all": [0.021, 0.043]}
    assert got["10-19"][0] > 0 and got["all"][0] > 0


def test_chapter_14_information_bound(models):
    """A 48-word sentence over the 178 English words carries at most 48 log2 178 = 359 bits."""
    n_english = len(models["plain"].source_vocab) - 4
    assert n_english == len({w for e, _ in tc.load_pairs("train") for w in e}) == 178
    assert round(48 * np.log2(n_english)) == 359 and numbers_in(48, 64) == 3072
    assert models["plain"].summary_size == 256


def test_attention_read_full_jacobian():
    """Proof 2: with the weights' own dependence, d s_t / d h^enc_k = alpha_k (I + (h^enc_k - s_t) h_t^T);
    in the worked example the extra terms strengthen one direction and partly cancel another for word 1."""
    enc = np.array([[0.5, 0.5], [2.0, -1.0], [-1.0, 1.0]])
    h_t = np.array([1.0, 0.0])

    def read(notes):
        a = softmax(notes @ h_t)
        return a @ notes

    alpha, s = softmax(enc @ h_t), read(enc)
    for k in range(3):
        numeric = np.zeros((2, 2))
        for j in range(2):
            up, down = enc.copy(), enc.copy()
            up[k, j] += 1e-6
            down[k, j] -= 1e-6
            numeric[:, j] = (read(up) - read(down)) / 2e-6
        closed = alpha[k] * (np.eye(2) + np.outer(enc[k] - s, h_t))
        np.testing.assert_allclose(numeric, closed, atol=1e-8)
    sv = np.linalg.svd(alpha[0] * (np.eye(2) + np.outer(enc[0] - s, h_t)), compute_uv=False)
    assert round(alpha[0], 4) == 0.1753 and sv.round(3).tolist() == [0.269, 0.014]   # one up, one down from 0.1753
