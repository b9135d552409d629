"""The "Try" panels: each shows a figure at once, redraws on change, and reports lib's numbers."""
import base64

import pytest

from mwm import widgets as W

BUILDERS = [W.running_note_try, W.window_try, W.scalar_cell_try, W.six_note_try, W.unroll_try,
            W.shapes_try, W.next_word_try, W.talk_try]
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


def test_talk_panel_readings_and_dice_switch():
    from mwm.charlm import load_char_lm, next_char_probs, talk_greedy
    model = load_char_lm()
    p = next_char_probs(model, "the train to ")
    top = int(p.argmax())
    text = W.draw_talk("the train to ", "greedy", "1", model=model)[1]
    assert f'"{"abcdefghijklmnopqrstuvwxyz ."[top]}" with p = {p[top]:.3f} (T = 1)' in text
    assert talk_greedy(model, "the train to ").generated in text
    hot = W.draw_talk("the train to ", "greedy", "2", model=model)[1]
    assert f"p = {next_char_probs(model, 'the train to ', 2.0)[top]:.3f} (T = 2)" in hot
    panel = W.talk_try()
    assert panel.controls["dice"].disabled
    panel.controls["mode"].value = "sample"
    assert not panel.controls["dice"].disabled
    with pytest.raises(ValueError, match="mode"):
        W.draw_talk(mode="beam")
