"""The "Try" panels: each shows a figure at once, redraws on change, and reports lib's numbers."""
import base64

import pytest

from mwm import widgets as W

BUILDERS = [W.running_note_try, W.window_try, W.scalar_cell_try, W.six_note_try, W.unroll_try,
            W.shapes_try, W.next_word_try, W.translate_try, W.bottleneck_try, W.beam_try, W.bleu_try,
            W.bottleneck_bleu_try]
PNG = b"\x89PNG"


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_first_render_shows_a_figure_and_controls_redraw(build):
    panel = build()
    first = panel.png
    assert first.startswith(PNG) and len(first) > 2000
    bundle = panel._repr_mimebundle_()
    assert base64.b64decode(bundle["image/png"]) == first
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"].startswith("Try: ")
    # Move every control to another value: the picture must change each time.
    for name, control in panel.controls.items():
        before = panel.png
        options = getattr(control, "options", None)
        if options:
            labels = [o if isinstance(o, str) else o[0] for o in options]
            control.value = next(o for o in labels if o != control.value)
        elif isinstance(control.value, bool):
            control.value = not control.value
        else:
            control.value = control.max if control.value != control.max else control.min
        assert panel.png != before, name


def test_two_panels_share_no_state():
    a, b = W.scalar_cell_try(), W.scalar_cell_try()
    a.controls["w"].value = 1.0
    assert b.controls["w"].value == 0.5
    assert a.png != b.png


def test_running_note_readings():
    assert "(-2, 2)" in W.draw_running_note(90)[1] and "(0, 0)" in W.draw_running_note(90)[1]
    assert "cannot tell them apart" in W.draw_running_note(180)[1]
    assert "cannot tell them apart" in W.draw_running_note(0)[1]
    assert "different notes" in W.draw_running_note(90, sentence_b="bites man dog")[1]


def test_window_readings():
    assert '"train" has dropped out' in W.draw_window(3)[1]
    assert '"train" is still inside' in W.draw_window(8)[1]


def test_cell_readings():
    assert W.draw_scalar_cell(0.5, 1.0, 3)[1] == "notes: 0.7616, 0.3634, 0.1797"
    assert W.draw_scalar_cell(1.0, 1.0, 2)[1] == "notes: 0.7616, 0.6420"


def test_six_note_slides_down_and_fades():
    import numpy as np
    from mwm.cell import rnn_forward
    Wm, U, b = W.six_note_weights("slide down", 0.9)
    hs = rnn_forward(W.ch02_cell.SIX_INPUTS[:, None], Wm, U, b)
    # the first word enters slot 1 and moves one slot per step, fading each time
    diag = [hs[t, t] for t in range(6)]
    assert diag[0] == pytest.approx(np.tanh(1.0))
    assert all(later < earlier for earlier, later in zip(diag, diag[1:]))
    with pytest.raises(ValueError, match="mode"):
        W.six_note_weights("spin")


def test_unroll_readings_keep_32():
    for n in range(2, 9):
        assert f"learns 32 numbers; {n} unshared copies would need {32 * n}" in W.draw_unroll(n)[1]


def test_next_word_readings_match_section_4():
    text = W.draw_next_word(3)[1]
    assert 'p = 0.609' in text and "surprise -ln p = 0.495" in text
    with pytest.raises(ValueError, match="shape"):
        W.draw_shape("many -> some")


def test_bottleneck_readings_match_chapter_12():
    assert W.draw_bottleneck(5)[1] == "5 words: 40 numbers into 8 (a squeeze of 5 to 1); word 1 at 0.9^4 = 0.6561"
    assert W.draw_bottleneck(50)[1] == "50 words: 400 numbers into 8 (a squeeze of 50 to 1); word 1 at 0.9^49 = 0.0057"


def test_translate_readings():
    examples = W.ch12_translate.example_sentences()
    assert [len(e) for e, _ in examples] == list(W.ch12_translate.EXAMPLE_LENGTHS)
    text = W.draw_translate(0, "teacher forcing")[1]
    assert "teacher forcing:" in text and " ".join(examples[0][1]) in text
    with pytest.raises(ValueError, match="mode"):
        W.draw_translate(0, "beam")
    with pytest.raises(ValueError, match="sentence"):
        W.draw_translate(len(examples))


def test_beam_readings_match_section_13():
    assert W.draw_beam(1, 3)[1] == "winner: the train, probability 0.20, log-score -1.609"
    assert W.draw_beam(2, 3)[1] == "winner: our train, probability 0.36, log-score -1.022"
    assert W.draw_beam(3, 3)[1] == "winner: our train, probability 0.36, log-score -1.022"
    assert W.draw_beam(2, 1)[1] == "kept: the 0.50 (ln -0.693); our 0.40 (ln -0.916). Pruned: a 0.10 (ln -2.303)"
    step2 = W.draw_beam(2, 2)[1]
    assert step2.startswith("kept: our train 0.36 (ln -1.022); the train 0.20 (ln -1.609). Pruned: the bus 0.15")
    assert "Nothing pruned" in W.draw_beam(3, 1)[1]
    with pytest.raises(ValueError, match="step"):
        W.draw_beam(2, 4)
    with pytest.raises(ValueError, match="beam_width"):
        W.draw_beam(0, 1)


def test_bleu_readings_match_section_13():
    text = {c: W.draw_bleu(c)[1] for c in ["the train is late", "late is the train", "the train", "the the the the",
                                           "the train is delayed", "", "the train is running late"]}
    assert "p1 = 4/4 = 1.000, p2 = 2/3 = 0.667, BP = e^(1-5/4) = 0.7788, BLEU-2 = 0.6359" in text["the train is late"]
    assert "p2 = 1/3 = 0.333" in text["late is the train"] and "BLEU-2 = 0.4496" in text["late is the train"]
    assert "BP = e^(1-5/2) = 0.2231, BLEU-2 = 0.2231" in text["the train"]
    assert "p1 = 1/4 = 0.250" in text["the the the the"]
    assert "p1 = 3/4 = 0.750, p2 = 2/3 = 0.667" in text["the train is delayed"]
    assert "BLEU-2 = 0.5507" in text["the train is delayed"]
    assert "BP = 0 (empty), BLEU-2 = 0.0000" in text[""]
    assert "BP = 1 (not shorter)" in text["the train is running late"]


def test_bleu_panel_free_text_overrides_until_a_candidate_is_picked():
    panel = W.bleu_try()
    assert "BLEU-2 = 0.6359" in panel.readings.value
    assert panel.own_text in panel.children
    panel.own_text.value = "the train is running late"
    assert "BLEU-2 = 1.0000" in panel.readings.value
    panel.controls["candidate"].value = "the train"
    assert panel.own_text.value == "" and "BLEU-2 = 0.2231" in panel.readings.value
    panel.own_text.value = "   "
    assert "BLEU-2 = 0.2231" in panel.readings.value
    with pytest.raises(ValueError, match="candidate"):
        W.bleu_try("a different sentence")


def test_bottleneck_bleu_readings_match_chapter_14():
    text = W.draw_bleu_by_length(10, 30)[1]
    assert text.startswith("<b>bucket 30-39 words:</b> plain 0.262, attention 0.983")
    assert "<b>bucket 40-48 words:</b> plain 0.228, attention 0.975" in W.draw_bleu_by_length(10, 45)[1]
    assert "<b>bucket 3-9 words:</b> plain 0.977, attention 1.000" in W.draw_bleu_by_length(20, 5)[1]
    with pytest.raises(ValueError, match="example_length"):
        W.draw_bleu_by_length(10, 60)
