"""The "Try" panels: each shows a figure at once, redraws on change, and reports lib's numbers."""
import base64

import pytest

from mwm import widgets as W

BUILDERS = [W.running_note_try, W.window_try, W.scalar_cell_try, W.six_note_try, W.unroll_try,
            W.shapes_try, W.next_word_try]
BUILDERS += [W.whisper_try, W.eigen_memory_try, W.cliff_try]
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


def test_whisper_readings_chapter_7():
    assert "at t = 10 the note is 0.000976562 and the blame 0.000976562" in W.draw_whisper(0.5)[1]
    assert "at t = 10 the note is 57.665 and the blame 57.665" in W.draw_whisper(1.5)[1]
    text = W.draw_whisper(1.5, tanh=True)[1]
    assert "settles at h* = 0.8586" in text and "= 0.3943" in text and "the blame 5.14379e-05" in text
    # the slider's float steps (0.9500000001...) are read as the value shown
    assert W.draw_whisper(0.9500000000000001)[1].startswith("w = 0.95:")


def test_eigen_memory_readings_chapter_7():
    assert W.draw_eigen_memory("keep", 30)[1].endswith("note is (0.8000, 0.2000), length 0.8246")
    assert "note is (0.9000, 0.1000)" in W.draw_eigen_memory("keep", 1)[1]
    assert "note is (0.8500, 0.1500)" in W.draw_eigen_memory("keep", 2)[1]
    assert "eigenvalues 0.8, 0.3; spectral radius 0.8" in W.draw_eigen_memory("fade")[1]
    assert "eigenvalues 1.2, 0.7; spectral radius 1.2" in W.draw_eigen_memory("explode")[1]
    rotate = W.draw_eigen_memory("rotate", 30)[1]
    assert "0.8+0.6j, 0.8-0.6j; spectral radius 1" in rotate and rotate.endswith("length 1.0000")
    with pytest.raises(ValueError, match="preset"):
        W.draw_eigen_memory("spin")


def test_cliff_readings_chapter_8():
    plain = W.draw_cliff(False)[1]
    assert "at step 15 the ball felt a gradient of length 14.29" in plain and "step of 7.14" in plain
    clipped = W.draw_cliff(True, "1")[1]
    assert "after 60 steps the ball is at (1.927, 0.103), loss 0.0009" in clipped
    assert "longest gradient felt 12.63" in clipped
    assert "at step 15" in W.draw_cliff(True, "10")[1]
