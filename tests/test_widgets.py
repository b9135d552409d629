"""The "Try" panels: each shows a figure at once, redraws on change, and reports lib's numbers."""
import base64

import pytest

from mwm import widgets as W

BUILDERS = [W.running_note_try, W.window_try, W.scalar_cell_try, W.six_note_try, W.unroll_try,
            W.shapes_try, W.next_word_try]
BUILDERS += [W.blend_dial_try, W.ten_steps_try, W.both_ways_try]
BUILDERS += [W.tank_try, W.memory_lab_try]
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


# ---- chapters 10-11 (seed §10-§11)

def test_blend_dial_readings_pass_through_the_units_two_points():
    assert "draft (-0.4000, 0.6000)" in W.draw_blend_dial(0.25, 1.0)[1]
    assert "<b>(0.5000, 0.0000)</b>" in W.draw_blend_dial(0.25, 1.0)[1]
    assert "<b>(0.2000, 0.2000)</b>" in W.draw_blend_dial(0.5, 1.0)[1]
    assert "<b>(0.8000, -0.2000)</b>" in W.draw_blend_dial(0.0, 0.3)[1]      # z = 0 keeps the old note
    assert "draft (-0.8407, 0.7129)" in W.draw_blend_dial(0.25, 0.0)[1]      # r = 0: tanh of the word's push
    assert W.blend_dial_try().controls["z"].step == 0.05


def test_ten_steps_readings():
    assert "<b>0.3487</b>" in W.draw_ten_steps(0.1, 1.0)[1]
    assert "(-0.2011, 0.4370)" in W.draw_ten_steps(0.1, 1.0)[1]
    assert "<b>0.0010</b>" in W.draw_ten_steps(0.5, 1.0)[1]


def test_both_ways_readings_toy_numbers():
    from mwm.widgets.ch11_both_ways import TOY
    assert 'note (0.0000); reached by words [1]' in W.draw_both_ways(TOY, "one-way", 1)[1]
    assert 'note (0.0000, 0.1797); reached by words [1, 2, 3]' in W.draw_both_ways(TOY, "two-way", 1)[1]
    assert 'note (0.7616, 0.7616)' in W.draw_both_ways(TOY, "two-way", 3)[1]
    assert 'note (0.6420)' in W.draw_both_ways(TOY, "two floors", 3)[1]  # floor 2: tanh(0.7616)
    assert 'word 3 ("x3 = 1")' in W.draw_both_ways(TOY, "one-way", 7)[1]  # the slider is clamped


@pytest.mark.parametrize("mode,verdict,reach", [("one-way", "the same note", "[1, 2, 3]"),
                                                ("two floors", "the same note", "[1, 2, 3]"),
                                                ("two-way", "a different note", "[1, 2, 3, 4, 5, 6, 7]")])
def test_both_ways_teddy(mode, verdict, reach):
    from mwm.readers import TEDDY_SENTENCES
    for sentence in TEDDY_SENTENCES:
        text = W.draw_both_ways(sentence, mode, 3)[1]
        assert 'word 3 ("Teddy")' in text and f"<b>{verdict}</b>" in text and f"reached by words {reach}" in text
    with pytest.raises(ValueError, match="sentence"):
        W.draw_both_ways("He said nothing", "one-way", 1)
    with pytest.raises(ValueError, match="mode"):
        W.draw_both_ways(TEDDY_SENTENCES[0], "three-way", 1)


def test_blend_dial_vectors_of_the_panel():
    import numpy as np
    from mwm.gru import blend
    from mwm.widgets.ch10_gru import CANDIDATE, OLD_NOTE
    np.testing.assert_allclose(OLD_NOTE, [0.8, -0.2])
    np.testing.assert_allclose(CANDIDATE, [-0.4, 0.6])
    np.testing.assert_allclose(blend(OLD_NOTE, CANDIDATE, 0.25), [0.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(blend(OLD_NOTE, CANDIDATE, 0.5), [0.2, 0.2], atol=1e-15)
    # the only pair that does it: solve the two blends for (old, candidate)
    A = np.array([[0.75, 0.25], [0.5, 0.5]])
    np.testing.assert_allclose(np.linalg.solve(A, [[0.5, 0.0], [0.2, 0.2]]), [OLD_NOTE, CANDIDATE], atol=1e-15)


def test_ten_steps_with_z_0_1_keep_0_9_to_the_10():
    import numpy as np
    from mwm.widgets.ch10_gru import ten_steps
    notes, share = ten_steps(z=0.1, r=0.0)
    assert share == pytest.approx(0.9 ** 10) == pytest.approx(0.3487, abs=5e-5)
    assert len(notes) == 11
    # with r = 0 the draft is fixed, so the note is the old note plus 1 - 0.9^t of the way to it
    from mwm.widgets.ch10_gru import OLD_NOTE, WORD_PUSH
    target = np.tanh(WORD_PUSH)
    for t, note in enumerate(notes):
        np.testing.assert_allclose(note, target + 0.9 ** t * (OLD_NOTE - target), atol=1e-14)


def test_tank_readings_match_chapter_9():
    assert W.draw_tank()[1] == ("f = 0.9000, i = 0.2000, g = 0.5000, o = 1.0000: c_t = 0.9000 + 0.1000 = 1.0000, "
                                "h_t = 1.0000 * tanh(1.0000) = 1.0000 * 0.7616 = 0.7616")
    scores = W.draw_tank(gates="from scores")[1]
    assert scores.startswith("f = 0.8808, i = 0.5000, g = 0.7616, o = 0.7311: c_t = 0.8808 + 0.3808 = 1.2616")
    assert scores.endswith("0.7311 * tanh(1.2616) = 0.7311 * 0.8515 = 0.6225")
    held = W.draw_tank(f=1.0, i=0.0, steps=10)[1]
    assert held.endswith("after 10 steps c = 1.0000, h = 0.7616")
    assert "= 0.0000 * 0.7616 = 0.0000" in W.draw_tank(o=0.0)[1]
    plural = W.draw_tank(c_prev=1.0, f=0.95, i=0.05, g=-0.8, steps=5)[1]
    assert "c_t = 0.9500 - 0.0400 = 0.9100" in plural and "after 5 steps c = 0.5928" in plural
    assert "c_t = 1.0000 - 0.4000 = 0.6000" in W.draw_tank(c_prev=2.0, f=0.5, i=1.0, g=-0.4)[1]
    with pytest.raises(ValueError, match="gates"):
        W.draw_tank(gates="sideways")
    with pytest.raises(ValueError, match="f must"):
        W.draw_tank(f=1.2)


def test_tank_scores_go_through_lstm_step():
    from mwm.widgets.ch09_lstm import gates_from_scores
    gates = gates_from_scores(2.0, 0.0, 1.0, 1.0)
    assert gates == pytest.approx({"f": 0.8807970779778823, "i": 0.5, "g": 0.7615941559557649, "o": 0.7310585786300049})


def test_memory_lab_readings_match_chapter_9():
    text = W.draw_memory_lab(50, 0.5, 0.9, 0.9)[1]
    assert text.startswith("at 50 words: plain 49.9% ± 0.2, LSTM 84.6% ± 0.2, GRU 100.0% ± 0.0")
    assert "blame to word 1: plain 2.67e-07, LSTM 0.00573, GRU 0.72" in text
    default = W.draw_memory_lab()[1]
    assert default.startswith("at 20 words: plain 50.5% ± 0.2, LSTM 100.0% ± 0.0, GRU 100.0% ± 0.0")
    with pytest.raises(ValueError, match="w must"):
        W.memory_lab_try(w=0.8)
    with pytest.raises(ValueError, match="length"):
        W.draw_memory_lab(length=60)
    with pytest.raises(ValueError, match="values"):
        W.tank_try(forget=0.5)
