"""Chapter 13 on the chapter 12 translator: greedy against beam search (width 4) on all 1,000
test sentences, graded by corpus BLEU-4, with a paired bootstrap interval for the difference.

The outputs come from ``lib/mwm/data/translator_test_beam.tsv``, written by
``scripts/translate_test_set.py``; these tests decode a sample again, rerun a shortened
script, and check every number the chapter states about them. The checks the chapter used to
show in its cells live here: the file says what the decoders say (a sample decoded again),
sacrebleu with the course's settings gives ``corpus_bleu``'s numbers to within 1e-12 (and 0.463
with its defaults on "the train is delayed", where ours gives 0), and the bootstrap's summed
counts give ``corpus_bleu`` to within 1e-12.
"""
import nbformat
import numpy as np
import pytest
import sacrebleu

from mwm import beam_search, bleu_details, corpus_bleu, greedy_decode, sentence_bleu
from mwm.seq2seq import DATA, load_test_outputs, load_translator
from mwm.translation_corpus import load_pairs
from scripts import translate_test_set as script
from tests.across_machines import same_line
from tests.chapter_cells import chapter_function as _chapter_function, chapter_path

CHAPTER = chapter_path(13)
SYSTEMS = ("greedy", "beam4")


@pytest.fixture(scope="module")
def rows():
    return load_test_outputs(DATA / "translator_test_beam.tsv")


@pytest.fixture(scope="module")
def translator():
    return load_translator("plain")


def chapter_function(name):
    """The source of a function defined in one of the chapter's code cells, executed: the chapter's own code."""
    return _chapter_function(CHAPTER, name, {"np": np, "bleu_details": bleu_details})


def test_the_file_is_what_the_script_writes(rows, translator):
    assert script.BEAM_OUTPUTS_FILE == DATA / "translator_test_beam.tsv"
    header = (DATA / "translator_test_beam.tsv").read_text(encoding="utf-8").splitlines()[0]
    assert tuple(header.split("\t")) == script.BEAM_COLUMNS
    pairs = load_pairs("test")
    assert [r["source"] for r in rows] == [e for e, _ in pairs] and [r["reference"] for r in rows] == [h for _, h in pairs]
    lines = (DATA / "translator_test_beam.tsv").read_text(encoding="utf-8").splitlines()
    again = script.beam_lines(pairs[:3])   # a shortened run of the script gives the same lines (scores to 1e-12)
    assert len(again) == 4 and all(same_line(a, b) for a, b in zip(again, lines[:4])), (again, lines[:4])


def test_committed_outputs_are_what_the_decoders_give(rows, translator):
    for r in rows[::50]:   # 20 sentences, short and long
        greedy = greedy_decode(translator.step_model(r["source"]), max_length=81)
        beam = beam_search(translator.step_model(r["source"]), 4, max_length=81).best
        for s, h in (("greedy", greedy), ("beam4", beam)):
            assert translator.target_vocab.words_of(h.tokens[:-1]) == r[s]
            assert float(r[s + "_score"][0]) == pytest.approx(h.log_prob, abs=1e-9)


def test_greedy_column_is_the_plain_translation_of_chapter_14s_file(rows):
    assert [r["greedy"] for r in rows] == [r["plain"] for r in load_test_outputs()]


def test_corpus_bleu_scores_and_sacrebleu(rows):
    refs = [[r["reference"]] for r in rows]
    bleu = {s: corpus_bleu([r[s] for r in rows], refs, 4) for s in SYSTEMS}
    assert (round(bleu["greedy"], 3), round(bleu["beam4"], 3)) == (0.345, 0.356)
    metric = sacrebleu.BLEU(tokenize="none", smooth_method="none", effective_order=False, force=True)
    for s in SYSTEMS:
        theirs = metric.corpus_score([" ".join(r[s]) for r in rows], [[" ".join(r["reference"]) for r in rows]]).score
        assert abs(theirs / 100 - bleu[s]) < 1e-12
    assert sentence_bleu("the train is delayed", "the train is running late") == 0.0
    assert round(sacrebleu.sentence_bleu("the train is delayed", ["the train is running late"]).score / 100, 3) == 0.463


def test_beam_scores_higher_on_most_sentences_but_not_all(rows):
    score = {s: np.array([float(r[s + "_score"][0]) for r in rows]) for s in SYSTEMS}
    assert (int(np.sum(score["beam4"] > score["greedy"] + 1e-9)), int(np.sum(score["beam4"] < score["greedy"] - 1e-9))) == (575, 76)
    differ = [r["greedy"] != r["beam4"] for r in rows]
    assert sum(differ) == 651 == 575 + 76   # where the outputs differ, the scores do too
    sent = {s: np.array([sentence_bleu(r[s], [r["reference"]]) for r in rows]) for s in SYSTEMS}
    assert (int(np.sum(sent["beam4"] > sent["greedy"])), int(np.sum(sent["beam4"] < sent["greedy"]))) == (330, 274)


def _bootstrap(beam_counts, greedy_counts, bleu_of, n, seed=13, resamples=1000):
    rng = np.random.default_rng(seed)
    diffs = []
    for _ in range(resamples):
        pick = rng.integers(0, n, size=n)
        diffs.append(bleu_of(beam_counts[pick].sum(0)) - bleu_of(greedy_counts[pick].sum(0)))
    return np.array(diffs)


def test_paired_bootstrap(rows):
    counts, bleu_of = chapter_function("counts"), chapter_function("bleu_of")
    counts.__globals__["rows"] = rows
    greedy_counts, beam_counts = counts("greedy"), counts("beam4")
    assert greedy_counts.shape == (1000, 10)
    refs = [[r["reference"]] for r in rows]
    for c, s in ((greedy_counts, "greedy"), (beam_counts, "beam4")):
        assert abs(bleu_of(c.sum(0)) - corpus_bleu([r[s] for r in rows], refs, 4)) < 1e-12
        assert abs(bleu_of(c[:100].sum(0)) - corpus_bleu([r[s] for r in rows[:100]], refs[:100], 4)) < 1e-12
    diffs = _bootstrap(beam_counts, greedy_counts, bleu_of, 1000)
    low, high = np.percentile(diffs, [2.5, 97.5])
    gain = bleu_of(beam_counts.sum(0)) - bleu_of(greedy_counts.sum(0))
    assert (round(gain, 3), round(low, 3), round(high, 3)) == (0.010, 0.005, 0.016)
    assert low > 0 and f"{np.mean(diffs > 0):.1%}" == "99.9%"
    few = _bootstrap(beam_counts[:100], greedy_counts[:100], bleu_of, 100)
    low100, high100 = np.percentile(few, [2.5, 97.5])
    gain100 = bleu_of(beam_counts[:100].sum(0)) - bleu_of(greedy_counts[:100].sum(0))
    assert (round(gain100, 3), round(low100, 3), round(high100, 3)) == (0.029, 0.012, 0.048)
    assert (round(high100 - low100, 3), round(high - low, 3)) == (0.036, 0.011)
    assert 2.5 < (high100 - low100) / (high - low) < 3.5   # "about three times as wide"


def test_the_two_examples(rows):
    differ = sorted((i for i, r in enumerate(rows) if r["greedy"] != r["beam4"]), key=lambda i: len(rows[i]["source"]))
    first, second = rows[differ[1]], rows[differ[3]]
    assert " ".join(first["source"]) == "a dabbawala from jaipur is playing on the temple every morning"
    assert "ravivaar ko" in " ".join(first["greedy"]) and first["beam4"] == first["reference"]
    assert sentence_bleu(first["beam4"], [first["reference"]]) == 1.0
    assert " ".join(second["greedy"]).startswith("ek dayalu pita") and " ".join(second["beam4"]).startswith("ek dayalu pita")
    assert float(second["beam4_score"][0]) > float(second["greedy_score"][0])
    assert sentence_bleu(second["beam4"], [second["reference"]]) == 0.0 < sentence_bleu(second["greedy"], [second["reference"]])


# --- the sweep of the beam width and the length normalisation (scripts/sweep_beam.py) ---

@pytest.fixture(scope="module")
def sweep():
    import json

    from scripts import sweep_beam
    data = json.loads(sweep_beam.SWEEP_FILE.read_text(encoding="utf-8"))
    return {(r["B"], r["nu"]): r for r in data["settings"]}, data


def test_the_sweep_holds_every_setting_once(sweep):
    from scripts import sweep_beam
    by_setting, data = sweep
    assert list(by_setting) == sweep_beam.settings() and len(sweep_beam.settings()) == 1 + 4 * 3
    assert (data["widths"], data["nus"], data["max_length"]) == ([1, 2, 4, 8, 16], [0.0, 0.5, 1.0], 81)


def test_the_sweep_agrees_with_the_committed_greedy_and_width_4_outputs(sweep, rows):
    """The script's summary of the two columns of translator_test_beam.tsv is the file's rows for (1, 0) and (4, 0)."""
    from scripts import sweep_beam
    by_setting, _ = sweep
    decoded = {(1, 0.0): [(r["greedy"], float(r["greedy_score"][0])) for r in rows],
               (4, 0.0): [(r["beam4"], float(r["beam4_score"][0])) for r in rows]}
    again = {(r["B"], r["nu"]): r for r in sweep_beam.summarise(decoded, [r["reference"] for r in rows])}
    for setting in decoded:
        for key in ("output_words", "reference_words"):
            assert again[setting][key] == by_setting[setting][key]
        for key in ("bleu", "brevity_penalty", "mean_score", "minus_greedy"):
            assert again[setting][key] == pytest.approx(by_setting[setting][key], abs=1e-12), (setting, key)
        assert again[setting]["minus_greedy_interval"] == pytest.approx(by_setting[setting]["minus_greedy_interval"], abs=1e-12)
        assert again[setting]["precisions"] == pytest.approx(by_setting[setting]["precisions"], abs=1e-12)
    systems = {(1, 0.0): "greedy", (4, 0.0): "beam4"}
    for setting, s in systems.items():
        assert by_setting[setting]["bleu"] == pytest.approx(
            corpus_bleu([r[s] for r in rows], [[r["reference"]] for r in rows], max_n=4), abs=1e-12)
        assert by_setting[setting]["output_words"] == sum(len(r[s]) for r in rows)


def test_the_sweep_decodes_as_the_script_says(translator):
    """A sample decoded again: greedy (B = 1) whatever nu, and the same words for the same setting twice."""
    from scripts import sweep_beam
    pairs = load_pairs("test")[::250]
    out = sweep_beam.decode_all(pairs, [(1, 0.0), (16, 1.0)])
    for (src, _), (words, score) in zip(pairs, out[(1, 0.0)]):
        greedy = greedy_decode(translator.step_model(src), max_length=81)
        assert words == translator.target_vocab.words_of(greedy.tokens[:-1])
        assert score == pytest.approx(greedy.log_prob, abs=1e-9)
    assert sweep_beam.decode_all(pairs, [(16, 1.0)], workers=2)[(16, 1.0)] == out[(16, 1.0)]


def test_the_chapter_states_the_sweeps_numbers(sweep):
    """Every number the chapter's text gives about the sweep, from the file."""
    by_setting, _ = sweep
    text = " ".join(c.source for c in nbformat.read(CHAPTER, as_version=4).cells if c.cell_type == "markdown")
    words = {b: f"{by_setting[(b, 0.0)]['output_words']:,}" for b in (4, 8, 16)}
    bp = {b: f"{by_setting[(b, 0.0)]['brevity_penalty']:.3f}" for b in (4, 8, 16)}
    assert (f"22,254 words at $B=4$, {words[8]} at $B=8$ and {words[16]} at $B=16$, against the references' "
            f"{by_setting[(1, 0.0)]['reference_words']:,}") in text and words[4] == "22,254"
    assert f"falls from 1 to {bp[4]}, {bp[8]} and {bp[16]}" in text
    assert f"(gain 0.00{round(by_setting[(16, 0.0)]['minus_greedy'] * 1000)}, an interval reaching below 0;" in text
    assert by_setting[(16, 0.0)]["minus_greedy_interval"][0] < 0   # "an interval reaching below 0"
    gains = [f"{by_setting[(b, 1.0)]['minus_greedy']:.3f}" for b in (4, 8, 16)]
    assert f"{gains[0]} at $B=4$, {gains[1]} at $B=8$, {gains[2]} at $B=16$, each interval above 0" in text
    assert all(by_setting[(b, 1.0)]["minus_greedy_interval"][0] > 0 for b in (4, 8, 16))
    assert round(min(by_setting[(b, 1.0)]["brevity_penalty"] for b in (2, 4, 8, 16)), 3) == 0.998
    assert "(penalty 0.998 to 1)" in text
    best_plain = max((2, 4, 8, 16), key=lambda b: by_setting[(b, 0.0)]["bleu"])
    assert best_plain in (2, 4) and "highest at $B$ = 2 to 4" in text
    assert "(22,254 words to greedy's 22,692; the references have 22,651) and pays a brevity penalty of 0.982" in text and by_setting[(1, 0.0)]["brevity_penalty"] == 1.0


def test_the_sweeps_contrasts_are_paired_bootstraps_and_the_chapter_states_them(sweep, rows):
    """The contrast function on the committed columns gives the file's beam-minus-greedy row; the chapter's two contrasts."""
    from scripts import sweep_beam
    by_setting, data = sweep
    decoded = {(1, 0.0): [(r["greedy"], 0.0) for r in rows], (4, 0.0): [(r["beam4"], 0.0) for r in rows]}
    (again,) = sweep_beam.contrasts(decoded, [r["reference"] for r in rows], pairs=[((4, 0.0), (1, 0.0))])
    assert again["difference"] == pytest.approx(by_setting[(4, 0.0)]["minus_greedy"], abs=1e-12)
    assert again["interval"] == pytest.approx(by_setting[(4, 0.0)]["minus_greedy_interval"], abs=1e-12)
    found = {(tuple(c["a"]), tuple(c["b"])): c for c in data["contrasts"]}
    assert list(found) == list(sweep_beam.CONTRASTS)
    for (a, b), c in found.items():
        assert c["difference"] == pytest.approx(by_setting[a]["bleu"] - by_setting[b]["bleu"], abs=1e-12)
        assert c["interval"][0] > 0   # both contrasts the chapter draws a lesson from are clear of 0
    text = " ".join(c.source for c in nbformat.read(CHAPTER, as_version=4).cells if c.cell_type == "markdown")
    nu, width = found[((16, 1.0), (16, 0.0))], found[((4, 0.0), (16, 0.0))]
    assert (f"{width['difference']:.3f} below $B=4$, interval {width['interval'][0]:.3f} to "
            f"{width['interval'][1]:.3f}") in text
    assert f"at $B=16$ {nu['difference']:.3f} above $\\nu=0$ ({nu['interval'][0]:.3f} to {nu['interval'][1]:.3f})" in text
