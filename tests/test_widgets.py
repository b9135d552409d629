"""The "Try" panels: each shows a figure at once, redraws on change, and reports lib's numbers."""
import base64

import numpy as np

import pytest

from mwm import widgets as W

BUILDERS = [W.running_state_try, W.window_try, W.scalar_cell_try, W.six_state_try, W.unroll_try,
            W.shapes_try, W.next_word_try]
BUILDERS += [W.step_machine_try]
BUILDERS += [W.chain_try, W.eigen_memory_try, W.cliff_try]
BUILDERS += [W.blend_dial_try, W.ten_steps_try, W.both_ways_try]
BUILDERS += [W.tank_try, W.memory_lab_try]
BUILDERS += [W.talk_try, W.tiny_try]
BUILDERS += [W.translate_try, W.bottleneck_try, W.beam_try, W.bleu_try, W.bottleneck_bleu_try, W.attention_read_try]
PNG = b"\x89PNG"


def test_every_panel_of_the_course_is_tried_here():
    assert {b.__name__ for b in BUILDERS} == {n for n in W.__all__ if n.endswith("_try")}


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_first_render_shows_a_figure_and_controls_redraw(build):
    """Each panel's first picture and its redraws; and the sentence its alt text starts with (describe(values)),
    one a screen reader says well: no TeX, underscores or carets, no e-notation, no ASCII minus before a digit."""
    panel = build()
    assert panel.describe is not None, f"{build.__name__} has no describe: its alt text would not say what it shows"
    said = panel.describe(panel.values())
    assert said.endswith(".") and len(said.split()) >= 12, said
    assert not re.search(r"[$\\_^]|\de[+-]\d|(?<![\w])-\d", said), said
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


def test_running_state_readings():
    assert "(-2, 2)" in W.draw_running_state(90)[1] and "(0, 0)" in W.draw_running_state(90)[1]
    assert "cannot tell them apart" in W.draw_running_state(180)[1]
    assert "cannot tell them apart" in W.draw_running_state(0)[1]
    assert "different states" in W.draw_running_state(90, sentence_b="bites man dog")[1]


def test_window_readings():
    assert '"train" has dropped out' in W.draw_window(3)[1]
    assert '"train" is still inside' in W.draw_window(8)[1]


def test_cell_readings():
    assert W.draw_scalar_cell(0.5, 1.0, 3)[1] == "states: 0.7616, 0.3634, 0.1797"
    assert W.draw_scalar_cell(1.0, 1.0, 2)[1] == "states: 0.7616, 0.6420"


def test_six_state_slides_down_and_fades():
    import numpy as np
    from mwm.cell import rnn_forward
    Wm, U, b = W.six_state_weights("slide down", 0.9)
    hs = rnn_forward(W.ch02_cell.SIX_INPUTS[:, None], dict(W=Wm, U=U, b=b))[0]
    # the first word enters slot 1 and moves one slot per step, fading each time
    diag = [hs[t, t] for t in range(6)]
    assert diag[0] == pytest.approx(np.tanh(1.0))
    assert all(later < earlier for earlier, later in zip(diag, diag[1:]))
    with pytest.raises(ValueError, match="mode"):
        W.six_state_weights("spin")


def test_unroll_readings_keep_32():
    for n in range(2, 9):
        assert f"learns 32 numbers; {n} unshared copies would need {32 * n}" in W.draw_unroll(n)[1]


def test_next_word_readings_match_section_4():
    text = W.draw_next_word(3)[1]
    assert 'p = 0.609' in text and "loss -ln p = 0.495" in text
    with pytest.raises(ValueError, match="shape"):
        W.draw_shape("many -> some")


# --- the website's kernel-free twin of each panel (mwm.widgets.static) -------------------------

import ipywidgets  # noqa: E402

from mwm.widgets.static import MAX_STATES, control_options, static_html, static_states  # noqa: E402


def test_control_options_list_every_value():
    assert control_options(ipywidgets.IntSlider(3, min=1, max=9)) == ("range", list(range(1, 10)), [str(i) for i in range(1, 10)])
    kind, values, labels = control_options(ipywidgets.FloatSlider(0.5, min=-1.5, max=1.5, step=0.1))
    assert kind == "range" and len(values) == 31 and values[0] == -1.5 and values[-1] == 1.5 and 0.5 in values
    assert control_options(ipywidgets.ToggleButtons(options=["a", "b"]))[:2] == ("toggle", ["a", "b"])
    assert control_options(ipywidgets.Dropdown(options=[("x", 1), ("y", 2)])) == ("select", [1, 2], ["x", "y"])
    assert control_options(ipywidgets.Checkbox())[:2] == ("checkbox", [False, True])
    assert control_options(ipywidgets.Text("hello")) is None


@pytest.mark.parametrize("build", [W.window_try, W.next_word_try, W.shapes_try], ids=lambda b: b.__name__)
def test_small_panels_are_drawn_in_every_combination(build):
    panel = build()
    data = static_states(panel)
    sizes = [len(c["options"]) for c in data["controls"]]
    assert data["mode"] == "grid" and len(data["states"]) == int(np.prod(sizes)) <= MAX_STATES
    assert all(0 <= i < len(data["images"]) and 0 <= r < len(data["readings"]) for i, r, *_ in data["states"].values())


def test_big_panels_move_one_control_at_a_time():
    panel = W.six_state_try()
    data = static_states(panel)
    sizes = {c["name"]: len(c["options"]) for c in data["controls"]}
    assert data["mode"] == "single"
    assert len(data["states"]) == sum(sizes.values()) - len(sizes) + 1  # the start state is shared
    start = ",".join(str(c["start"]) for c in data["controls"])
    assert start in data["states"]
    readings = data["readings"][data["states"][start][1]]
    assert readings == panel.readings.value  # the page opens on the panel's own first state


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_shared_renderer_draws_what_a_fresh_one_draws(monkeypatch, workers):
    """static._small_picture re-uses one renderer per picture size, in this process and in forked ones:
    every setting's picture is byte for byte what a renderer of its own draws."""
    from mwm.widgets import static
    from mwm.widgets.drawing import same_layout

    monkeypatch.setenv("MWM_PANEL_WORKERS", workers)
    panel = W.beam_try()
    data = static_states(panel)
    shared = {key: data["images"][i] for key, (i, *_) in data["states"].items()}
    assert len(set(shared.values())) > 4
    fresh = {}
    with same_layout():   # as static_states draws: the first setting's layout for every setting
        for key in shared:
            combo = [int(k) for k in key.split(",")]
            listed = [c for c in data["controls"] if c["kind"] != "fixed"]
            values = panel.values()
            for control, k in zip(listed, combo):
                values[control["name"]] = static.control_options(panel.controls[control["name"]])[1][k]
            fig, _ = panel._draw(values)
            static._RENDERERS.clear()   # a renderer made for this figure alone
            fresh[key] = f"data:{static.PICTURE_MIME};base64," + base64.b64encode(static._small_picture(fig)).decode()
    assert fresh == shared


def test_a_kept_figure_draws_what_a_new_figure_draws():
    """The tank panel keeps one figure while its static twin draws (drawing.kept_figure) and only sets
    its artists: each picture is byte for byte what a figure built for that setting alone draws."""
    from mwm.widgets import drawing, static
    from mwm.widgets.ch09_lstm import draw_tank

    settings = [{}, {"c_prev": -2.0, "f": 0.0, "i": 1.0, "c_tilde": -1.0, "steps": 10},
                {"gates": "from pre-activations", "a_f": -4.0, "a_c": -4.0, "a_o": 4.0, "o": 0.0, "steps": 3}, {}]
    figures, kept = [], []
    with drawing.same_layout():
        for s in settings:
            figures.append(draw_tank(**s)[0])
            kept.append(static._small_picture(figures[-1]))
    assert all(f is figures[0] for f in figures)
    fresh = []
    with drawing.same_layout():   # the first setting's layout for every setting, as static_states draws
        for s in settings:
            fresh.append(static._small_picture(draw_tank(**s)[0]))
            drawing._LAYOUTS.get()["kept"].clear()   # the next setting gets a figure of its own
    assert kept == fresh
    assert len(set(kept)) == len(settings) - 1 and kept[0] == kept[-1]
    live = [draw_tank()[0], draw_tank()[0]]   # outside same_layout (a live panel): a new figure each time
    assert live[0] is not live[1]


def test_static_twin_is_self_contained_html():
    html = static_html(W.window_try())
    assert html.count('src="data:image/webp;base64,') == 1  # the first picture; the others live in the JSON
    assert "http://" not in html and "https://" not in html
    assert '"mode":"grid"' in html and "mwm-try-data" in html


def test_static_twin_names_what_only_jupyter_can_do(cheap_pictures):   # the twin's text; its pictures do not matter
    assert "Run the chapter in Jupyter" not in static_html(_only_the_start_drawn(W.window_try()))
    bleu = static_html(_only_the_start_drawn(W.bleu_try()))
    assert "Run the chapter in Jupyter to type a candidate of your own" in bleu
    assert "Run the chapter in Jupyter to press play" in static_html(_only_the_start_drawn(W.step_machine_try()))


def test_display_carries_the_twin_only_when_building_the_site(monkeypatch):
    panel = W.next_word_try()
    monkeypatch.delenv("MWM_STATIC_PANELS", raising=False)
    assert "text/html" not in panel._repr_mimebundle_()
    monkeypatch.setenv("MWM_STATIC_PANELS", "1")
    assert panel._repr_mimebundle_()["text/html"].startswith("\n<style>")
def test_step_machine_readings_match_section_6():
    full = W.draw_step_machine(10, "no cut")[1]
    assert "contributions to the gradient of w: word 1: 0.0000, word 2: -0.1444, word 3: -0.1588, word 4: -0.1623" in full
    assert full.endswith("dL/dw = -0.4655")
    assert "states: 0.7616, 0.3634, 0.1797, 0.0896" in full and "L = 0.4144" in full
    cut = W.draw_step_machine(10, "τ = 2")[1]
    assert "contributions to the gradient of w: word 3: -0.1588, word 4: -0.1623;" in cut and cut.endswith("dL/dw = -0.3211")
    assert "no gradient crosses the cut before word 3" in cut
    assert W.draw_step_machine(10, "τ = 3")[1].endswith("dL/dw = -0.1623")
    # walking: the hidden states appear one per step, then the contributions from word 4 back
    assert W.draw_step_machine(1)[1].startswith("the words x = 1, 0, 0, 0")
    assert W.draw_step_machine(3)[1] == "states: 0.7616, 0.3634"
    assert W.draw_step_machine(6)[1].endswith("contributions to the gradient of w: word 4: -0.1623")
    assert "dL/dw" not in W.draw_step_machine(9)[1]
    with pytest.raises(ValueError, match="cut"):
        W.draw_step_machine(10, "τ = 5")
    with pytest.raises(ValueError, match="step"):
        W.draw_step_machine(11)


def test_scalar_chain_readings_chapter_7():
    assert "at t = 10 the state is 0.000976562 and the Jacobian 0.000976562" in W.draw_chain(0.5)[1]
    assert "at t = 10 the state is 57.665 and the Jacobian 57.665" in W.draw_chain(1.5)[1]
    text = W.draw_chain(1.5, tanh=True)[1]
    assert "settles at h* = 0.8586" in text and "= 0.3943" in text and "the Jacobian 5.14379e-05" in text
    # the slider's float steps (0.9500000001...) are read as the value shown
    assert W.draw_chain(0.9500000000000001)[1].startswith("w = 0.95:")


def test_eigen_memory_readings_chapter_7():
    assert W.draw_eigen_memory("keep", 30)[1].endswith("state is (0.8000, 0.2000), length 0.8246")
    assert "state is (0.9000, 0.1000)" in W.draw_eigen_memory("keep", 1)[1]
    assert "state is (0.8500, 0.1500)" in W.draw_eigen_memory("keep", 2)[1]
    assert "eigenvalues 0.8, 0.3; spectral radius 0.8" in W.draw_eigen_memory("fade")[1]
    assert "eigenvalues 1.2, 0.7; spectral radius 1.2" in W.draw_eigen_memory("explode")[1]
    rotate = W.draw_eigen_memory("rotate", 30)[1]
    assert "0.8+0.6j, 0.8-0.6j; spectral radius 1" in rotate and rotate.endswith("length 1.0000")
    with pytest.raises(ValueError, match="preset"):
        W.draw_eigen_memory("spin")


def test_cliff_readings_chapter_8():
    plain = W.draw_cliff("off")[1]
    assert "at step 15 the ball felt a gradient of length 14.29" in plain and "step of 7.14" in plain
    clipped = W.draw_cliff("γ = 1")[1]
    assert "after 60 steps the ball is at (1.927, 0.103), loss 0.0009" in clipped
    assert "longest gradient felt 12.63" in clipped
    assert "at step 15" in W.draw_cliff("γ = 10")[1] and "step of 5.00" in W.draw_cliff("γ = 10")[1]
    assert W.draw_cliff("off", 10)[1].startswith("no clipping: after 10 steps")
    assert "γ = 5: after 60 steps the ball is at (2.060, 0.095), loss 0.0007" in W.draw_cliff("γ = 5")[1]
    with pytest.raises(ValueError, match="clipping"):
        W.draw_cliff("γ = 3")


@pytest.mark.parametrize("build,states", [(W.chain_try, 42), (W.eigen_memory_try, 48), (W.cliff_try, 60)],
                         ids=lambda b: getattr(b, "__name__", str(b)))
def test_chapter_7_8_panels_are_drawn_in_every_combination(build, states):
    # counted from the controls (drawing all the states is the website build's job)
    sizes = [len(control_options(c)[1]) for c in build().controls.values()]
    assert int(np.prod(sizes)) == states <= MAX_STATES


# ---- chapters 10-11 (chapters 10-11)

def test_blend_dial_readings_pass_through_the_units_two_points():
    assert "candidate (-0.4000, 0.6000)" in W.draw_blend_dial(0.25, 1.0)[1]
    assert "<b>(0.5000, 0.0000)</b>" in W.draw_blend_dial(0.25, 1.0)[1]
    assert "<b>(0.2000, 0.2000)</b>" in W.draw_blend_dial(0.5, 1.0)[1]
    assert "<b>(0.8000, -0.2000)</b>" in W.draw_blend_dial(0.0, 0.3)[1]      # z = 0 keeps the previous state
    assert "candidate (-0.8407, 0.7129)" in W.draw_blend_dial(0.25, 0.0)[1]  # r = 0: tanh of the input's part
    assert W.blend_dial_try().controls["z"].step == 0.05


def test_ten_steps_readings():
    assert "<b>0.3487</b>" in W.draw_ten_steps(0.1, 1.0)[1]
    assert "(-0.2011, 0.4370)" in W.draw_ten_steps(0.1, 1.0)[1]
    assert "<b>0.0010</b>" in W.draw_ten_steps(0.5, 1.0)[1]
    # a bigger dial moves the state further: 1.1866 at z = 0.1, 2.1104 at z = 0.5
    assert "(moved 1.1866 from the start)" in W.draw_ten_steps(0.1, 1.0)[1]
    assert "(-0.9714, 0.9472) (moved 2.1104 from the start)" in W.draw_ten_steps(0.5, 1.0)[1]
    # the bars are the lane only; the whole derivative adds the route through the candidate
    assert "whole dh10/dh0 = diag(0.5941, 0.5519)" in W.draw_ten_steps(0.1, 1.0)[1]
    assert "whole dh10/dh0 = diag(0.3487, 0.3487)" in W.draw_ten_steps(0.1, 0.0)[1]


def test_both_ways_readings_toy_numbers():
    from mwm.widgets.ch11_both_ways import TOY
    assert 'state (0.0000); reached by words [1]' in W.draw_both_ways(TOY, "one-way", 1)[1]
    assert 'state (0.0000, 0.1797); reached by words [1, 2, 3]' in W.draw_both_ways(TOY, "two-way", 1)[1]
    assert 'state (0.7616, 0.7616)' in W.draw_both_ways(TOY, "two-way", 3)[1]
    assert 'state (0.6420)' in W.draw_both_ways(TOY, "two layers", 3)[1]  # layer 2: tanh(0.7616)
    assert 'word 3 ("x3 = 1")' in W.draw_both_ways(TOY, "one-way", 7)[1]  # the slider is clamped
    assert "(this sentence has 3 words, so word 7 shows word 3)" in W.draw_both_ways(TOY, "one-way", 7)[1]
    assert "shows word" not in W.draw_both_ways(TOY, "one-way", 3)[1]
    # the gold is a local slope: word 3, the only non-zero word, is the palest at word 3 with two layers
    assert "reach per word 0.3556, 0.4173, 0.2469" in W.draw_both_ways(TOY, "two layers", 3)[1]


@pytest.mark.parametrize("mode,verdict,reach", [("one-way", "the same state", "[1, 2, 3]"),
                                                ("two layers", "the same state", "[1, 2, 3]"),
                                                ("two-way", "a different state", "[1, 2, 3, 4, 5, 6, 7]")])
def test_both_ways_teddy(mode, verdict, reach):
    from mwm.readers import TEDDY_SENTENCES
    for sentence in TEDDY_SENTENCES:
        text = W.draw_both_ways(sentence, mode, 3)[1]
        assert 'word 3 ("Teddy")' in text and f"<b>{verdict}</b>" in text and f"reached by words {reach}" in text
    with pytest.raises(ValueError, match="sentence"):
        W.draw_both_ways("He said nothing", "one-way", 1)
    with pytest.raises(ValueError, match="mode"):
        W.draw_both_ways(TEDDY_SENTENCES[0], "three-way", 1)


def test_step_machine_has_a_play_button_outside_the_static_controls():
    from mwm.widgets.static import static_states
    panel = W.step_machine_try()
    play, step = panel.play, panel.controls["step"]
    assert isinstance(play, ipywidgets.Play) and play not in panel.controls.values()
    assert panel.children[1].children[:2] == (play, step)           # shown first in the row of controls
    assert (play.min, play.max, play.value) == (step.min, step.max, step.value) == (1, 10, 10)
    link = panel.play_link
    assert link.source == (play, "value") and link.target == (step, "value")
    # the website's twin lists the two value controls only, every step with every cut
    from matplotlib.figure import Figure
    panel._draw = lambda values: (Figure(figsize=(1, 1)), "")      # cheap pictures: only the listing matters
    data = static_states(panel)
    assert [c["name"] for c in data["controls"]] == ["step", "cut"] and len(data["states"]) == 40


def test_blend_dial_names_its_arrows_in_a_legend():
    for z, r, extra in [(0.25, 1.0, []), (1.0, 0.0, ["candidate at $r$ = 1"])]:
        fig = W.draw_blend_dial(z, r)[0]
        legend = fig.axes[0].get_legend()
        assert [t.get_text() for t in legend.get_texts()] == ["previous state", r"candidate $\tilde{h}$", "new state"] + extra
        assert all(not t.get_text() for t in fig.axes[0].texts)  # no labels at the tips to collide


def test_both_ways_heat_maps_have_a_colour_key():
    from mwm.widgets.ch11_both_ways import TOY
    fig = W.draw_both_ways(TOY, "two layers", 3)[0]
    key = fig.axes[-1]
    assert "red > 0, blue < 0" in key.get_ylabel()
    assert list(key.get_yticks()) == [-1, 0, 1]


def test_blend_dial_vectors_of_the_panel():
    import numpy as np
    from mwm.gru import blend
    from mwm.gru import CANDIDATE, OLD_STATE
    np.testing.assert_allclose(OLD_STATE, [0.8, -0.2])
    np.testing.assert_allclose(CANDIDATE, [-0.4, 0.6])
    np.testing.assert_allclose(blend(OLD_STATE, CANDIDATE, 0.25), [0.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(blend(OLD_STATE, CANDIDATE, 0.5), [0.2, 0.2], atol=1e-15)
    # the only pair that does it: solve the two blends for (old, candidate)
    A = np.array([[0.75, 0.25], [0.5, 0.5]])
    np.testing.assert_allclose(np.linalg.solve(A, [[0.5, 0.0], [0.2, 0.2]]), [OLD_STATE, CANDIDATE], atol=1e-15)


def test_ten_steps_with_z_0_1_keep_0_9_to_the_10():
    import numpy as np
    from mwm.gru import ten_steps
    notes, share = ten_steps(z=0.1, r=0.0)
    assert share == pytest.approx(0.9 ** 10) == pytest.approx(0.3487, abs=5e-5)
    assert len(notes) == 11
    # with r = 0 the candidate is fixed, so the state is the previous state plus 1 - 0.9^t of the way to it
    from mwm.gru import OLD_STATE, WORD_PUSH
    target = np.tanh(WORD_PUSH)
    for t, note in enumerate(notes):
        np.testing.assert_allclose(note, target + 0.9 ** t * (OLD_STATE - target), atol=1e-14)


def test_tank_readings_match_chapter_9():
    assert W.draw_tank()[1] == ("f = 0.9000, i = 0.2000, c\u0303 = 0.5000, o = 1.0000: c_t = 0.9000 + 0.1000 = 1.0000, "
                                "h_t = 1.0000 * tanh(1.0000) = 1.0000 * 0.7616 = 0.7616")
    pre = W.draw_tank(gates="from pre-activations")[1]
    assert pre.startswith("f = 0.8808, i = 0.5000, c\u0303 = 0.7616, o = 0.7311: c_t = 0.8808 + 0.3808 = 1.2616")
    assert pre.endswith("0.7311 * tanh(1.2616) = 0.7311 * 0.8515 = 0.6225")
    held = W.draw_tank(f=1.0, i=0.0, steps=10)[1]
    assert held.endswith("after 10 steps c = 1.0000, h = 0.7616")
    assert "= 0.0000 * 0.7616 = 0.0000" in W.draw_tank(o=0.0)[1]
    plural = W.draw_tank(c_prev=1.0, f=0.95, i=0.05, c_tilde=-0.8, steps=5)[1]
    assert "c_t = 0.9500 - 0.0400 = 0.9100" in plural and "after 5 steps c = 0.5928" in plural
    assert "c_t = 1.0000 - 0.4000 = 0.6000" in W.draw_tank(c_prev=2.0, f=0.5, i=1.0, c_tilde=-0.4)[1]
    with pytest.raises(ValueError, match="gates"):
        W.draw_tank(gates="sideways")
    with pytest.raises(ValueError, match="f must"):
        W.draw_tank(f=1.2)


def test_tank_names_the_candidate_c_tilde():
    """Notation (intro's table): the tank panel calls the candidate c~, never g."""
    panel = W.tank_try()
    assert "c_tilde" in panel.controls and "a_c" in panel.controls and "g" not in panel.controls
    labels = [c.description for c in panel.controls.values()]
    assert "candidate c\u0303" in labels and "pre-act. a_c\u0303" in labels
    assert not any(label.endswith(" g") or label.endswith("z_g") for label in labels)
    fig, text = W.draw_tank()
    assert "c\u0303 = 0.5000" in text and " g = " not in text
    tick_labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert "write\n$i\\,\\tilde{c}$" in tick_labels and not any("i·g" in t for t in tick_labels)
    assert r"\tilde{c}_t" in fig.axes[0].get_title()


def test_tank_preactivations_go_through_lstm_step():
    from mwm.lstm import gates_from_preactivations
    gates = gates_from_preactivations(2.0, 0.0, 1.0, 1.0)
    assert gates == pytest.approx({"f": 0.8807970779778823, "i": 0.5, "c_tilde": 0.7615941559557649, "o": 0.7310585786300049})


def test_memory_lab_readings_match_chapter_9():
    text = W.draw_memory_lab(50, 0.5, 0.9, 0.9)[1]
    assert text.startswith("at 50 words: plain 49.9% ± 0.2, LSTM 84.6% ± 0.2, GRU 100.0% ± 0.0")
    assert "Jacobian to word 1: plain 2.67e-07, LSTM 0.00573, GRU 0.72" in text
    default = W.draw_memory_lab()[1]
    assert default.startswith("at 20 words: plain 50.5% ± 0.2, LSTM 100.0% ± 0.0, GRU 100.0% ± 0.0")
    with pytest.raises(ValueError, match="w must"):
        W.memory_lab_try(w=0.8)
    with pytest.raises(ValueError, match="length"):
        W.draw_memory_lab(length=60)
    with pytest.raises(ValueError, match="values"):
        W.tank_try(forget=0.5)
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
    assert W.draw_beam(1, 3)[1] == "winner: the train, probability 0.20, log-probability -1.609"
    assert W.draw_beam(2, 3)[1] == "winner: our train, probability 0.36, log-probability -1.022"
    assert W.draw_beam(3, 3)[1] == "winner: our train, probability 0.36, log-probability -1.022"
    assert W.draw_beam(2, 1)[1] == "kept: the 0.50 (ln -0.693); our 0.40 (ln -0.916). Pruned: a 0.10 (ln -2.303)"
    step2 = W.draw_beam(2, 2)[1]
    assert step2.startswith("kept: our train 0.36 (ln -1.022); the train 0.20 (ln -1.609). Pruned: the bus 0.15")
    assert "Nothing pruned" in W.draw_beam(3, 1)[1]
    assert W.beam_try().controls["width"].description == "beam width B"
    with pytest.raises(ValueError, match="step"):
        W.draw_beam(2, 4)
    with pytest.raises(ValueError, match="beam_width"):
        W.draw_beam(0, 1)


def test_bleu_readings_match_section_13():
    text = {c: W.draw_bleu(c)[1] for c in ["the train is late", "late is the train", "the train", "the the the the",
                                           "the train is delayed", "", "the train is running late"]}
    assert "π₁ = 4/4 = 1.000, π₂ = 2/3 = 0.667, BP = e^(1-ℓref/ℓout) = e^(1-5/4) = 0.7788, BLEU-2 = 0.6359" in text["the train is late"]
    assert "π₂ = 1/3 = 0.333" in text["late is the train"] and "BLEU-2 = 0.4496" in text["late is the train"]
    assert "BP = e^(1-ℓref/ℓout) = e^(1-5/2) = 0.2231, BLEU-2 = 0.2231" in text["the train"]
    assert "π₁ = 1/4 = 0.250" in text["the the the the"]
    assert "π₁ = 3/4 = 0.750, π₂ = 2/3 = 0.667" in text["the train is delayed"]
    assert "BLEU-2 = 0.5507" in text["the train is delayed"]
    assert "BP = 0 (empty), BLEU-2 = 0.0000" in text[""]
    assert "BP = 1 (not shorter)" in text["the train is running late"]


def test_bleu_panel_free_text_overrides_until_a_candidate_is_picked():
    panel = W.bleu_try()
    assert "BLEU-2 = 0.6359" in panel.readings.value
    assert any(panel.own_text in getattr(c, "children", ()) for c in panel.children)
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
def test_tank_panel_disables_the_sliders_its_mode_does_not_read():
    from mwm.widgets.ch09_lstm import BY_HAND_CONTROLS, PRE_CONTROLS

    def disabled(panel):
        return {name for name, control in panel.controls.items() if control.disabled}

    panel = W.tank_try()
    assert disabled(panel) == set(PRE_CONTROLS) == {"a_f", "a_i", "a_c", "a_o"}
    before = panel.readings.value
    panel.controls["a_f"].value = -4.0   # a disabled slider changes nothing the panel shows
    assert panel.readings.value == before
    panel.controls["gates"].value = "from pre-activations"
    assert disabled(panel) == set(BY_HAND_CONTROLS) == {"f", "i", "c_tilde", "o"}
    assert disabled(W.tank_try(gates="from pre-activations")) == set(BY_HAND_CONTROLS)
    panel.controls["gates"].value = "by hand"
    assert disabled(panel) == set(PRE_CONTROLS)


def test_talk_panel_readings_and_seed_switch():
    from mwm.charlm import load_char_lm, next_char_probs, talk_greedy
    model = load_char_lm()
    p = next_char_probs(model, "the train to ")
    top = int(p.argmax())
    text = W.draw_talk("the train to ", "greedy", "1", model=model)[1]
    assert f'"{"abcdefghijklmnopqrstuvwxyz ."[top]}" with p = {p[top]:.3f} (θ = 1)' in text
    assert talk_greedy(model, "the train to ").generated in text
    hot = W.draw_talk("the train to ", "greedy", "2", model=model)[1]
    assert f"p = {next_char_probs(model, 'the train to ', 2.0)[top]:.3f} (θ = 2)" in hot
    panel = W.talk_try()
    assert panel.controls["seed"].disabled
    panel.controls["mode"].value = "sample"
    assert not panel.controls["seed"].disabled
    with pytest.raises(ValueError, match="mode"):
        W.draw_talk(mode="beam")


def test_bleu_panel_opposite_meaning_candidate():
    """Chapter 13's trap, in the panel: the reversed meaning scores 0.7071."""
    text = W.draw_bleu("the train is not running late")[1]
    assert text.startswith("the opposite meaning in the reference's words: ")
    assert "π₁ = 5/6 = 0.833, π₂ = 3/5 = 0.600, BP = 1 (not shorter), BLEU-2 = 0.7071" in text


def test_bleu_panel_clear_button_brings_back_the_current_candidate():
    """Re-picking the candidate already shown fires no change, so the clear button empties the box."""
    panel = W.bleu_try("the train")
    assert panel.clear_button not in panel.controls.values()   # the listed controls stay the dropdown only
    panel.own_text.value = "the train is running late"
    assert "BLEU-2 = 1.0000" in panel.readings.value
    panel.controls["candidate"].value = "the train"          # the same value: nothing happens
    assert "BLEU-2 = 1.0000" in panel.readings.value
    panel.clear_button.click()
    assert panel.own_text.value == "" and "BLEU-2 = 0.2231" in panel.readings.value


def test_bottleneck_panel_writes_word_one_above_its_bar():
    """Chapter 12: at 50 words word 1's bar (0.0057) is too short to see, so its value is written on the plot."""
    for n, label in ((5, "word 1: 0.6561"), (50, "word 1: 0.0057"), (1, "word 1: 1.0000")):
        fig, _ = W.draw_bottleneck(n)
        assert label in [t.get_text() for t in fig.axes[1].texts]


def test_translate_panel_spans_the_corpus_range():
    """Chapter 12 says "3 words or 48": the panel's shortest and longest sentences are the corpus's."""
    from mwm.translation_corpus import load_pairs
    lengths = [len(e) for e, _ in load_pairs("train") + load_pairs("test")]
    examples = W.ch12_translate.example_sentences()
    assert (len(examples[0][0]), len(examples[-1][0])) == (min(lengths), max(lengths)) == (3, 48)
    assert all(e.size == 256 for e in (W.ch12_translate.load_translator("plain").summary(x) for x, _ in examples))


def test_chapter_7_panels_after_review():
    # one step is "1 step"; the explode preset is off the map at step 4; the quoted bar stands out
    assert "After 1 step the state is (0.9000, 0.1000)" in W.draw_eigen_memory("keep", 1)[1]
    assert "After 2 steps the state" in W.draw_eigen_memory("keep", 2)[1]
    fig, _ = W.draw_eigen_memory("explode", 30)
    assert [t.get_text() for t in fig.axes[0].texts] == ["ran off the map at step 4"]
    fig, _ = W.draw_chain(0.5)
    from matplotlib.colors import to_rgba
    colours = [to_rgba(p.get_facecolor()) for p in fig.axes[0].patches]
    highlight = colours[W.ch07_fade.CHAIN_READ - 1]
    assert highlight[:3] == to_rgba(W.ch07_fade.HIGHLIGHT)[:3]
    assert all(c[:3] == to_rgba(W.ch07_fade.GOLD)[:3] for i, c in enumerate(colours[:20])
               if i != W.ch07_fade.CHAIN_READ - 1)


def test_cliff_panel_arrow_reaches_the_map_edge_chapter_8():
    from mwm.widgets.ch08_clip import map_exit
    edge = map_exit([0.0835, 0.9753], [7.2281, 0.9266])
    assert edge[0] == pytest.approx(4.0) and 0.92 < edge[1] < 0.98
    fig, text = W.draw_cliff("off")
    assert "left the map at (7.23, 0.93)" in text
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert "→ (7.23, 0.93)" in labels and "flung off the map at step 15" in labels
    arrow = [a for a in fig.axes[0].texts if hasattr(a, "xy") and a.get_text() == ""][0]
    assert arrow.xy[0] == pytest.approx(4.0)
    assert "→ (5.08, 0.94)" in [t.get_text() for t in W.draw_cliff("γ = 10")[0].axes[0].texts]
    with pytest.raises(ValueError, match="inside"):
        map_exit([5.0, 0.0], [6.0, 0.0])


def test_memory_lab_plain_w_readings_chapter_9():
    text = W.draw_memory_lab(50, 0.5, 3.0, 0.99)[1]
    assert text.startswith("at 50 words: plain 100.0% ± 0.0") and "Jacobian to word 1: plain 3.03e-74" in text
    text = W.draw_memory_lab(50, 0.5, 1.5, 0.99)[1]
    assert text.startswith("at 50 words: plain 96.7% ± 0.1") and "plain 1.19e-18" in text
    assert "LSTM 100.0% ± 0.0" in W.draw_memory_lab(50, 0.5, 0.9, 0.95)[1]
    # the chapter's noise table uses values the slider offers
    from mwm.widgets.static import control_options
    noise_values = control_options(W.memory_lab_try().controls["noise"])[1]
    assert all(A in noise_values for A in (0.0, 0.2, 0.5, 0.8, 1.0))


# --- drawing the static twin: layout once, equal settings once, the same pictures whatever the worker count ---

def test_layout_reuses_the_first_figures_margins_only_inside_same_layout():
    from matplotlib.figure import Figure

    from mwm.widgets.drawing import layout, same_layout

    def figure(label, size=(6.0, 3.0)):
        fig = Figure(figsize=size)
        ax = fig.subplots()
        ax.set_ylabel(label)
        return fig

    alone_short, alone_long = figure("y"), figure("a much longer label\non two lines")
    layout(alone_short)
    layout(alone_long)
    assert alone_short.subplotpars.left != alone_long.subplotpars.left, "tight_layout fits each label"
    with same_layout():
        first, second, other = figure("y"), figure("a much longer label\non two lines"), figure("y", size=(4.0, 3.0))
        for fig in (first, second, other):
            layout(fig)
    assert first.subplotpars.left == alone_short.subplotpars.left
    assert second.subplotpars.left == first.subplotpars.left, "same geometry: the first layout is re-used"
    alone_other = figure("y", size=(4.0, 3.0))
    layout(alone_other)
    assert other.subplotpars.left == alone_other.subplotpars.left, "another geometry gets its own layout"


def test_equal_settings_are_drawn_once(monkeypatch):
    from mwm.widgets import static

    monkeypatch.setenv(static.WORKERS_ENV, "1")
    calls = []

    class Fake:
        def _draw(self, values):
            calls.append(values["k"])
            return W.draw_window(values["k"])

    drawn = static._draw_all(Fake(), [{"k": 3}, {"k": 5}, {"k": 3}])
    assert calls == [3, 5]
    assert drawn[0] == drawn[2] != drawn[1]


def _counting_panel(readings_of=None):
    """A panel of a slider k = 0..5 whose picture shows only k // 3, and a list of the k it drew."""
    from matplotlib.figure import Figure

    from mwm.widgets.panel import TryPanel

    drawn = []

    def draw(v):
        drawn.append(v["k"])
        fig = Figure(figsize=(2, 1))
        fig.text(0.5, 0.5, f"half {v['k'] // 3}")
        return fig, f"k = {v['k']}"

    panel = TryPanel("counting", {"k": ipywidgets.IntSlider(0, min=0, max=5)}, draw)
    drawn.clear()   # the live panel's first picture
    panel.picture_key = lambda v: v["k"] // 3
    panel.readings_of = readings_of
    return panel, drawn


def test_a_picture_key_draws_one_setting_per_picture_and_reads_the_rest(monkeypatch):
    from mwm.widgets import static

    monkeypatch.setenv(static.WORKERS_ENV, "1")
    panel, drawn = _counting_panel(readings_of=lambda v: f"k = {v['k']}")
    data = static_states(panel)
    assert sorted(drawn) == [0, 3]   # one setting per key
    assert len(data["images"]) == 2 and len(data["readings"]) == 6
    assert [data["readings"][data["states"][str(k)][1]] for k in range(6)] == [f"k = {k}" for k in range(6)]
    assert [data["states"][str(k)][0] for k in range(6)] == [0, 0, 0, 1, 1, 1]
    # without readings_of, the settings of one key share the drawn setting's readings
    panel, drawn = _counting_panel()
    data = static_states(panel)
    assert [data["readings"][data["states"][str(k)][1]] for k in range(6)] == ["k = 0"] * 3 + ["k = 3"] * 3


def test_readings_of_must_agree_with_the_drawn_readings(monkeypatch):
    from mwm.widgets import static

    monkeypatch.setenv(static.WORKERS_ENV, "1")
    panel, _ = _counting_panel(readings_of=lambda v: f"k is {v['k']}")
    with pytest.raises(ValueError, match="counting: readings_of.*differs from the readings drawn with it"):
        static_states(panel)


def test_the_panels_with_a_picture_key_draw_what_every_setting_drawn_shows(monkeypatch):
    """Chapter 14's example, chapter 5's greedy seed, chapter 8's steps after the ball left the map, chapter 11's
    words past the toy sentence's end: the settings not drawn show exactly what drawing them gives."""
    from mwm.widgets import static

    monkeypatch.setenv(static.WORKERS_ENV, "1")
    for build, settings in ((W.bottleneck_bleu_try, [{"width": "10", "example_length": n} for n in (21, 25, 28)]),
                            (W.talk_try, [{"mode": "greedy", "seed": s} for s in (1, 2, 3)]),
                            (W.cliff_try, [{"clipping": "off", "steps": n} for n in (15, 40, 60)]),
                            (W.both_ways_try, [{"word": n} for n in (3, 5, 7)]),
                            (W.tank_try, [{"gates": "from pre-activations", "f": f, "c_tilde": c} for f, c in
                                          ((0.9, 0.5), (0.1, -1.0), (1.0, 1.0))])):
        panel = build()
        base = panel.values()
        all_values = [dict(base, **s) for s in settings]
        keyed = static._draw_all(panel, all_values)
        assert len({picture for picture, *_ in keyed}) == 1   # one picture for the three
        panel.picture_key = None
        assert static._draw_all(panel, all_values) == keyed   # drawn one by one: the same pictures and readings


def test_the_pictures_do_not_depend_on_the_number_of_workers(monkeypatch):
    from mwm.widgets import static

    panel = W.window_try()
    monkeypatch.setenv(static.WORKERS_ENV, "1")
    one = static.static_states(panel)
    monkeypatch.setenv(static.WORKERS_ENV, "2")
    assert static.panel_workers(8) == 2
    two = static.static_states(panel)
    assert one == two


@pytest.mark.parametrize("raw", ["0", "-1", "two", "1.5"])
def test_panel_workers_rejects_a_bad_setting(monkeypatch, raw):
    from mwm.widgets import static

    monkeypatch.setenv(static.WORKERS_ENV, raw)
    with pytest.raises(ValueError, match="MWM_PANEL_WORKERS"):
        static.panel_workers(100)


def test_panel_workers_never_exceeds_one_per_four_settings(monkeypatch):
    from mwm.widgets import static

    monkeypatch.setenv(static.WORKERS_ENV, "8")
    assert [static.panel_workers(n) for n in (0, 3, 4, 8, 100)] == [1, 1, 1, 2, 8]


def test_lab_curves_are_remembered_but_handed_out_as_copies():
    from mwm.widgets.ch09_lstm import lab_curves

    first = lab_curves(n_trials=200, lengths=[5, 10])
    first["plain"]["accuracy"][:] = -1
    again = lab_curves(n_trials=200, lengths=[5, 10])
    assert np.all(again["plain"]["accuracy"] >= 0), "a caller's change does not reach the cache"
    with pytest.raises(ValueError, match="n_trials"):
        lab_curves(n_trials=2.5)


# --- each panel's tour (the chapter's instructions): drawn, reachable on the page, read as the text says ---

import functools  # noqa: E402
import hashlib  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402


def _fake_picture(fig):
    """A stand-in for rendering: a figure's "picture" is a hash of its texts (the readings stay real)."""
    texts = [t.get_text() for ax in fig.axes for t in ax.texts + [ax.title]]
    return b"RIFF" + hashlib.sha256(repr(texts).encode()).digest()


@pytest.fixture
def cheap_pictures(monkeypatch):
    """static_states without rendering the pictures, in this process."""
    from mwm.widgets import static
    monkeypatch.setattr(static, "_small_picture", _fake_picture)
    monkeypatch.setenv(static.WORKERS_ENV, "1")


def _drawn_only_at(panel, settings):
    """``panel`` with only ``settings`` (a list of value dicts) really drawn; every other setting an empty stand-in."""
    from matplotlib.figure import Figure

    real = panel._draw
    panel._draw = lambda v: real(v) if v in settings else (Figure(), "(not drawn here)")
    panel.picture_key = panel.readings_of = None   # every setting is its own drawing: the stand-ins share no key
    return panel


def _only_the_start_drawn(panel):
    """``panel`` with only its start setting really drawn (the first picture and readings)."""
    return _drawn_only_at(panel, [panel.values()])


def _tour_values(panel) -> list[dict]:
    """The panel's values after each step of its tour (as static_states lists the controls' options)."""
    from mwm.widgets.static import _closest, _tour, control_options
    listed, start = {}, {}
    for name, control in panel.controls.items():
        opts = control_options(control)
        if opts is not None:
            listed[name] = opts[1]
            start[name] = _closest(opts[1], control.value)
    return [dict(panel.values(), **{n: listed[n][i] for n, i in step["combo"].items()}) for step in _tour(panel, listed, start)]


@functools.lru_cache(maxsize=None)
def _tour_state(name: str):
    """(panel, static_states(panel)) of the panel builder ``name``, made once per test process.

    Only the settings the panel's tour stops at are really drawn and described (their readings
    and alt texts are what the tests read); every other setting the website would draw is listed
    with an empty stand-in. Per builder, so each pytest-xdist worker makes only the panels its
    tests need.
    """
    from mwm.widgets import static
    panel = _unrendered(name)
    stops = _tour_values(panel)
    described = panel.describe
    _drawn_only_at(panel, stops).describe = lambda v: described(v) if v in stops else "A stand-in."
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(static, "_small_picture", _fake_picture)
        mp.setenv(static.WORKERS_ENV, "1")
        return panel, static.static_states(panel)


def _unrendered(name: str):
    """A new panel of the builder ``name`` whose first picture is not rendered (the tests that use it draw their own)."""
    from mwm.widgets.panel import TryPanel
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(TryPanel, "redraw", lambda self: None)
        return getattr(W, name)()


@functools.lru_cache(maxsize=None)
def _panel(name: str):
    """A panel of the builder ``name``, built once per test process (for its tour and controls, not drawn)."""
    return _unrendered(name)


def _listed(data):
    return [c for c in data["controls"] if c["kind"] != "fixed"]


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_each_tour_step_is_drawn_and_read_as_the_chapter_says(build):
    from mwm.widgets.static import _plain, alt_text
    panel, data = _tour_state(build.__name__)
    assert len(data["tour"]) == len(panel.tour) >= 1   # every panel's chapter tells the reader what to do with it
    listed = _listed(data)
    for n, step in enumerate(data["tour"]):
        where = f"step {n + 1} ({step['says']})"
        assert step["key"] in data["states"] and step["from"] in data["states"], where
        assert step["from"] == (data["tour"][n - 1]["key"] if n else ",".join(str(c["start"]) for c in listed)), where
        readings = data["readings"][data["states"][step["key"]][1]]
        alt = alt_text(data, step["key"])
        index = [int(x) for x in step["key"].split(",")]
        # what the picture shows (the panel's describe at that setting), then the settings; the readings stay below it
        hit = data["states"][step["key"]]
        assert alt.startswith(data["alts"][hit[2]] + " Settings: "), where
        assert _plain(readings) not in alt, where
        for c, i in zip(listed, index):
            assert f'{c["label"]} {c["options"][i]}' in alt
        assert step["expect"] or not step["order"], f"{where}: a move with nothing said to read"
        for expected in step["expect"]:
            assert expected in _plain(readings), (where, expected, _plain(readings))


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_each_tour_step_is_reached_control_by_control_in_any_order(build):
    """From where the step before left the panel, a reader making the step's moves one notch at a time
    (sliders) or by one click, first to last or last to first, never sees another control jump back, and
    ends on the step's setting; in the order the chapter makes them, no notch skips a value."""
    from mwm.widgets.static import move
    data = _tour_state(build.__name__)[1]
    listed = _listed(data)
    for step in data["tour"]:
        source = [int(x) for x in step["from"].split(",")]
        target = [int(x) for x in step["key"].split(",")]
        changed = [k for k in range(len(listed)) if target[k] != source[k]]
        way = [k for k in step["order"] if k in changed]   # the chapter's order: every notch drawn, none skipped
        assert sorted(way) == changed, step["says"]
        for order in (changed, changed[::-1], way):
            index = list(source)
            for k in order:
                while index[k] != target[k]:
                    if listed[k]["kind"] == "range":
                        notch = 1 if target[k] > index[k] else -1
                        was = index[k]
                        index, moved = move(data, index, k, index[k] + notch, step=True)
                        assert order is not way or index[k] == was + notch, (step["says"], listed[k]["name"], "skipped")
                    else:
                        index, moved = move(data, index, k, target[k])
                    assert moved == [], (step["says"], listed[k]["name"])
                    assert ",".join(map(str, index)) in data["states"]
            assert index == target, step["says"]


def test_a_control_moved_out_of_the_drawn_settings_moves_the_others_back_and_says_which(cheap_pictures):
    from mwm.widgets.static import move, state_key, static_states
    data = static_states(_only_the_start_drawn(W.scalar_cell_try()))   # which settings are drawn, not what they show
    names = [c["name"] for c in _listed(data)]
    w, u, steps = (names.index(n) for n in ("w", "u", "steps"))
    index = [int(x) for x in next(t["key"] for t in data["tour"] if "*keep old w* up to 1" in t["says"]).split(",")]
    kept, moved = move(data, index, steps, index[steps] - 1, step=True)   # w with steps: every combination drawn
    assert moved == [] and kept[w] == index[w] and kept[steps] == index[steps] - 1
    for w_i in range(len(_listed(data)[w]["options"])):                   # (panel.combined: "w" x "steps")
        assert all(state_key({"w": w_i, "u": _listed(data)[u]["start"], "steps": s}, names) in data["states"]
                   for s in range(len(_listed(data)[steps]["options"])))
    start_u = _listed(data)[u]["start"]
    after, moved = move(data, index, u, start_u + 3)                      # u moved away from the drawn corners
    assert after[u] == start_u + 3 and ",".join(map(str, after)) in data["states"]
    assert moved and set(moved) <= {w, steps}
    with pytest.raises(ValueError, match="option index"):
        move(data, index, u, 99)


def test_a_slider_notch_into_a_setting_not_drawn_goes_on_to_the_next_drawn_option():
    from mwm.widgets.static import move
    controls = [{"name": "a", "label": "a", "kind": "range", "options": ["0", "1", "2", "3"], "start": 0},
                {"name": "b", "label": "b", "kind": "range", "options": ["0", "1"], "start": 0}]
    data = {"controls": controls, "states": {k: [0, 0] for k in ("0,0", "1,0", "2,0", "3,0", "0,1", "3,1")}}
    assert move(data, [0, 1], 0, 1, step=True) == ([3, 1], [])   # a = 1 and 2 were not drawn with b = 1
    assert move(data, [0, 1], 0, 1) == ([1, 0], [1])             # not a notch: b goes back, and is named


def test_a_bad_tour_step_is_refused(cheap_pictures):
    from mwm.widgets.static import static_states
    panel = W.window_try()
    for tour, words in (([{"says": "nine", "moves": {"nope": 1}}], "nope"), ([{"says": "too wide", "moves": {"n": 99}}], "n=99"),
                        ([{"moves": {"n": 3}}], "says"), ([{"says": "  ", "moves": {"n": 3}}], "says"),
                        ([{"says": "three", "moves": [("n", 3)]}], "moves must be a dict"),
                        ([{"says": "three", "moves": {"n": 3}, "expect": "window"}], "expect must be a list")):
        panel.tour = tour
        with pytest.raises(ValueError, match=words):
            static_states(panel)


def test_static_twin_controls_are_named_and_expose_their_state(cheap_pictures):
    html = static_html(_only_the_start_drawn(W.talk_try()))   # a menu, two toggle groups, a slider
    assert "<label" not in html.split("mwm-try-data")[0].replace('<label for="', "")  # no label wraps a control
    groups = re.findall(r'<div class="mwm-try-control" data-k="\d+" role="group" aria-labelledby="([^"]+)">'
                        r'<span class="mwm-try-label" id="([^"]+)">([^<]+)</span>', html)
    assert [g[2] for g in groups] == ["talk", "θ"] and all(a == b for a, b, _ in groups)
    pressed = re.findall(r'<button type="button" class="(mwm-on|)" aria-pressed="(true|false)">'
                         r'<span class="mwm-mark" aria-hidden="true">✓ </span>([^<]+)</button>', html)
    assert len(pressed) == 6 and {(o, p, t) for o, p, t in pressed if p == "true"} == {("mwm-on", "true", "greedy"),
                                                                                           ("mwm-on", "true", "1")}
    slider = re.search(r'<span class="mwm-try-label" id="([^"]+)">seed</span><input type="range" min="0" max="2" '
                       r'step="1" value="0" aria-labelledby="([^"]+)" aria-valuetext="1">', html)
    assert slider and slider.group(1) == slider.group(2)
    assert re.search(r'<span class="mwm-try-label" id="([^"]+)">prompt</span><select aria-labelledby="\1">', html)
    # the readings are shown; a screen reader hears a short line of what a move changed (filled by the script)
    assert '<div class="mwm-try-readings">' in html and '<div class="mwm-try-spoken" aria-live="polite"></div>' in html
    # without JavaScript the controls are inert and a note says why; the script makes them work
    assert '<div class="mwm-try-controls" inert>' in html and "<noscript>" in html
    assert 'querySelector(".mwm-try-controls").removeAttribute("inert")' in html
    alt = re.search(r'<img class="mwm-try-figure" alt="([^"]+)"', html).group(1)
    # what the picture shows, then the settings (the title and readings stand above and below it on the page)
    assert alt.startswith("Above, what the model wrote after") and "Settings: " in alt and "talk greedy" in alt
    assert "loop found" not in alt and "red line naming the 27-character block" in alt
    assert "setAttribute(\"aria-valuetext\"" in html and "aria-pressed" in html.split("<script>")[-1]
    assert "@media print" in html and 'html[data-theme="dark"] .mwm-try' in html


def test_site_build_moves_panel_pictures_into_files(tmp_path):
    spec = importlib.util.spec_from_file_location("course_pages", Path(__file__).resolve().parents[1] / "_ext" / "course_pages.py")
    pages = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pages)
    twin = static_html(W.window_try())
    n_pictures = len(json.loads(re.search(r'class="mwm-try-data">(.*?)</script>', twin, re.S).group(1))["images"])
    page = tmp_path / "chapters" / "01.html"
    page.parent.mkdir()
    page.write_text(f"<html><body>{twin}<img src=\"data:image/png;base64,AAAA\"></body></html>", encoding="utf-8")
    assert pages.move_panel_pictures_in_page(page, tmp_path, {}) == n_pictures
    text = page.read_text(encoding="utf-8")
    assert text.count("data:image/png;base64,") == 1 and "data:image/webp" not in text   # only the picture that is not a panel's
    data = json.loads(re.search(r'class="mwm-try-data">(.*?)</script>', text, re.S).group(1))
    first = re.search(r'<img class="mwm-try-figure"[^>]* src="([^"]+)"', text).group(1)
    assert first in data["images"] and len(set(data["images"])) == n_pictures
    for url in data["images"]:
        assert re.fullmatch(r"\.\./_static/panels/[0-9a-f]{20}\.webp", url)
        body = (page.parent / url).read_bytes()
        assert body[:4] == b"RIFF" and body[8:12] == b"WEBP"
        assert url.split("/")[-1].startswith(hashlib.sha256(body).hexdigest()[:20])
    again = page.read_text(encoding="utf-8")
    assert pages.move_panel_pictures_in_page(page, tmp_path, {}) == 0 and page.read_text(encoding="utf-8") == again


def test_a_panel_whose_combined_groups_cover_every_combination_says_every_setting_was_drawn():
    """Chapter 5's panel: prompt x talk x θ x seed, 144 settings, more than MAX_STATES, all drawn as one group."""
    from mwm.widgets.static import MAX_STATES
    data = _tour_state("talk_try")[1]
    sizes = [len(c["options"]) for c in _listed(data)]
    assert int(np.prod(sizes)) == len(data["states"]) == 144 > MAX_STATES
    assert data["mode"] == "grid"   # so its note says every setting was drawn, and no control ever goes back


def test_chapter_1s_word_labels_stay_clear_of_the_titles_at_every_turn():
    """At every turn the panel offers (both sentences' word labels), no "1. +dog" label runs into its plot's title,
    the figure's title line (at 60 degrees "3. +man" once sat on the title), another label or the plain sum's star."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Annotation

    panel = W.running_state_try()
    for angle in range(0, 361, 15):
        for sentence_b in ("dog bites man", "man bites dog", "man dog bites"):
            fig, _ = panel._draw(dict(panel.values(), angle=angle, sentence_b=sentence_b))
            renderer = FigureCanvasAgg(fig).get_renderer()
            titles = [fig._suptitle.get_window_extent(renderer)] + [ax.title.get_window_extent(renderer) for ax in fig.axes]
            for ax in fig.axes:
                boxes = [line.get_window_extent(renderer) for line in ax.lines if line.get_marker() == "*"]  # the star
                for label in (c for c in ax.get_children() if isinstance(c, Annotation) and c.get_text()):
                    box = label.get_window_extent(renderer)
                    assert not any(box.overlaps(t) for t in titles), (angle, sentence_b, label.get_text())
                    assert not any(box.overlaps(b) for b in boxes), (angle, sentence_b, label.get_text(), "on a label")
                    boxes.append(box)


def test_the_beam_panels_alt_text_says_what_its_picture_shows():
    """Chapter 13's tree, read without the picture: the alt text says which branches the beam keeps and cuts,
    and that at B = 1 the most probable sentence lay on the branch cut at word 1 (the picture's lesson)."""
    from mwm.widgets.static import alt_text, state_key

    data = static_states(W.beam_try())
    listed = [c for c in data["controls"] if c["kind"] != "fixed"]
    # nine settings, eight sentences: at B = 2 and B = 3 the finished search reads the same
    assert len(data["alts"]) == 8 and all(len(hit) == 3 for hit in data["states"].values())

    def alt(width, step):
        key = state_key({"width": listed[0]["options"].index(width), "step": listed[1]["options"].index(step)},
                        {"width": None, "step": None})
        return alt_text(data, key)

    greedy = alt("1", "done")
    assert greedy.startswith('The finished search, its path in gold: the beam ends at "the train" (0.20)')
    assert 'the most probable sentence, "our train" (0.36), lay on the branch it cut at word 1' in greedy
    assert "winner: the train" not in greedy          # the readings stand under the picture, said once
    assert 'keeps "the" and crosses out "our", "a". The cut branch is the one that leads to' in alt("1", "word 1")
    assert "the most probable sentence of the tree" in alt("2", "done")


def test_chapter_1s_alt_text_says_whether_the_two_paths_meet(cheap_pictures):
    """Chapter 1's picture in words: the two sentences' paths, what the cell does, and whether they end apart."""
    from mwm.widgets.ch01_order import describe_running_state

    assert "they end at different points, (minus 2, 2) and (0, 0), so the order is kept" in describe_running_state(90)
    assert "plain sum, the grey star; this cell cannot tell the two orders apart" in describe_running_state(0)
    assert "both end at the same point" in describe_running_state(180)
    assert "the same sentence twice" in describe_running_state(60, 1.0, "dog bites man")
    panel = W.running_state_try()
    data = static_states(_only_the_start_drawn(panel))   # the sentences are the panel's; the pictures are not read
    start = ",".join(str(c["start"]) for c in data["controls"] if c["kind"] != "fixed")
    from mwm.widgets.static import alt_text
    assert alt_text(data, start).startswith(describe_running_state() + " Settings: ")


def test_chapter_14s_alt_text_gives_the_bars_and_the_shaded_bucket():
    """The BLEU-by-length picture in words: its buckets, each model's first and last bar, and the shaded bucket's scores."""
    from mwm.seq2seq import load_test_outputs
    from mwm.widgets.ch14_bottleneck import bleu_table, describe_bleu_by_length

    rows = load_test_outputs()
    table = bleu_table(rows, 10)
    said = describe_bleu_by_length(10, 30, rows, table)
    (shaded,) = [b for b in table["plain"] if b[0] <= 30 <= b[1]]
    k = table["plain"].index(shaded)
    assert f"the example's bucket, {shaded[0]}-{shaded[1]} words, is shaded" in said
    assert (f"(plain {table['plain'][k][3]:.2f}, attention {table['attention'][k][3]:.2f}, "
            f"control {table['control'][k][3]:.2f})") in said
    assert f"one summary (red) from {table['plain'][0][3]:.2f} to {table['plain'][-1][3]:.2f}" in said
    assert f"in {len(table['plain'])} buckets of English length" in said
    # the sentence follows the picture: the same within a bucket, another one in the next bucket
    assert describe_bleu_by_length(10, shaded[0], rows, table) == said
    assert describe_bleu_by_length(10, shaded[1] + 1, rows, table) != said
    panel = W.bottleneck_bleu_try()
    assert panel.describe(panel.values()) == describe_bleu_by_length()


def test_chapter_7s_alt_text_says_where_the_state_and_the_jacobian_end():
    """The scalar chain in words: the state and the Jacobian after 20 steps, from the chain itself, said as numbers a reader hears."""
    from mwm.dynamics import scalar_chain, tanh_fixed_point
    from mwm.widgets.ch07_fade import describe_chain

    states, jacobians = scalar_chain(0.5, 20, h0=1.0)
    assert f"shrinks to {jacobians[20]:.3g}".replace("e-07", " times 10 to the power minus 7") in describe_chain(0.5)
    assert "the hidden state (left) stays at 1" in describe_chain(1.0)
    assert f"grows to {scalar_chain(1.5, 20, h0=1.0)[0][20]:.0f} by step 20" in describe_chain(1.5)
    hot = describe_chain(1.5, tanh=True)
    assert f"settles at {tanh_fixed_point(1.5):.3f}" in hot and "which grow to" in hot
    tanh_jacobian = scalar_chain(1.5, 20, h0=1.0, squash=True)[1][20]
    assert f"(right), shrinks to {tanh_jacobian:.3g}".replace("e-09", " times 10 to the power minus 9") in hot
    assert "_" not in hot and "e-0" not in hot
    panel = W.chain_try()
    assert panel.describe(panel.values()) == describe_chain()


def test_chapter_2s_alt_text_gives_the_bars_and_what_becomes_of_the_first_word():
    """The one-number cell in words: the bars' values (from the cell itself) and whether the word fades, flips or holds."""
    from mwm.cell import scalar_rnn
    from mwm.widgets.ch02_cell import SCALAR_INPUTS, describe_scalar_cell

    hs = scalar_rnn(np.array(SCALAR_INPUTS[:3]), w=0.5, u=1.0)
    said = describe_scalar_cell(0.5, 1.0, 3)
    assert ", ".join(f"{h:.2f}" for h in hs) in said and f"fades from {hs[0]:.2f} to {hs[2]:.2f}" in said
    flipped = describe_scalar_cell(-0.5, 1.0, 3)
    assert "flips sign at every step" in flipped and "minus 0.36" in flipped and "-" not in flipped
    assert "flips" not in said
    assert "never written in" in describe_scalar_cell(0.5, 0.0, 3)
    assert "settles at" in describe_scalar_cell(1.5, 1.0, 8)
    panel = W.scalar_cell_try()
    assert panel.describe(panel.values()) == describe_scalar_cell(0.5, 1.0, 1)


def test_chapter_10s_alt_text_places_the_new_state_between_the_two():
    """The blend dial in words: the three points (from the GRU step itself) and the share of the way the new state went."""
    from mwm.gru import OLD_STATE, dial_step
    from mwm.widgets.ch10_gru import _point, describe_blend_dial

    candidate, new = dial_step(0.25, 1.0)
    said = describe_blend_dial(0.25, 1.0)
    assert f"the candidate {_point(candidate)} in orange and the new state {_point(new)}, 25% of the way" in said
    assert _point(OLD_STATE) == "(0.80, minus 0.20)" and "-" not in said
    assert "the candidate is ignored" in describe_blend_dial(0.0) and "forgotten" in describe_blend_dial(1.0)
    reset = describe_blend_dial(0.5, 0.3)
    assert f"the candidate moved from {_point(dial_step(0.5, 1.0)[0])}" in reset
    assert "keep previous 0.50, take candidate 0.50" in reset
    panel = W.blend_dial_try()
    assert panel.describe(panel.values()) == describe_blend_dial()


def test_chapter_5s_alt_text_says_what_the_model_wrote_and_its_tallest_bars():
    """The talking panel in words: the text greedy talk wrote and its loop, and the three tallest bars (the model's own numbers)."""
    from mwm.charlm import ALPHABET, load_char_lm, next_char_probs, talk_greedy
    from mwm.widgets.ch05_talk import describe_talk

    model = load_char_lm()
    talk = talk_greedy(model, "the train to ")
    said = describe_talk(model=model)
    assert f'greedy: "{talk.generated.strip()}", with a red line naming the {talk.loop_period}-character block' in said
    probs = next_char_probs(model, "the train to ", 1.0)
    first = int(np.argmax(probs))
    assert f'at θ = 1, the same scale at every θ: the tallest "{ALPHABET[first]}" {probs[first]:.2f}, ' in said
    hot = describe_talk(mode="sample", temperature="2", seed=2, model=model)
    assert "sampled at θ = 2 with seed 2" in hot and "kochi express will arrive on platform six." in hot
    assert "red line" not in hot
    panel = W.talk_try()
    assert panel.describe(panel.values()) == said


def test_chapter_9s_alt_text_gives_the_tanks_five_bars_and_the_steps():
    """The tank in words: the five bars of one step and the level over the steps, from the LSTM step itself."""
    from mwm.widgets.ch09_lstm import describe_tank, gates_from_preactivations, tank_run

    said = describe_tank()
    levels, states = tank_run(1.0, 0.9, 0.2, 0.5, 1.0, 1)
    assert (f"keeps {0.9 * levels[0]:.2f}, the input gate at 0.20 writes {0.2 * 0.5:.2f} of the candidate 0.50, "
            f"the new level is {levels[1]:.2f}, and the output gate at 1.00 shows the hidden state {states[0]:.2f}") in said
    shut = describe_tank(f=1.0, i=0.0, o=0.0, steps=10)
    assert "10 steps with the same gates: the level stays at 1.00, the hidden state ends at 0.00" in shut
    assert "greyed: by hand" in shut
    pre = gates_from_preactivations(2.0, 0.0, 1.0, 1.0)
    read = describe_tank(f=1.0, i=0.0, o=0.0, gates="from pre-activations")
    assert f"the forget gate at {pre['f']:.2f}" in read and "from the pre-activations 2.0, 0.0, 1.0 and 1.0" in read
    assert "minus 1.00" in describe_tank(c_prev=-1.0) and not re.search(r"-\d", describe_tank(c_prev=-1.0))
    panel = W.tank_try()
    assert panel.describe(panel.values()) == said


def test_a_control_is_idle_where_none_of_its_drawn_values_changes_anything(monkeypatch):
    """idle_controls (the page's "(no effect in this setting)"): a seed that only sampling reads is idle while greedy."""
    from matplotlib.figure import Figure

    from mwm.widgets import static
    from mwm.widgets.panel import TryPanel

    monkeypatch.setenv(static.WORKERS_ENV, "1")

    def draw(v):
        fig = Figure(figsize=(2, 1))
        said = f"{v['mode']}" + (f", seed {v['seed']}" if v["mode"] == "sample" else "")
        fig.text(0.5, 0.5, said)
        return fig, said

    panel = TryPanel("idle", {"mode": ipywidgets.ToggleButtons(options=["greedy", "sample"]),
                              "seed": ipywidgets.IntSlider(1, min=1, max=3)}, draw)
    data = static_states(panel)
    assert static.idle_controls(data, [0, 0]) == static.idle_controls(data, [0, 2]) == [1]   # greedy: the seed does nothing
    assert static.idle_controls(data, [1, 0]) == []                                        # sampling reads it
    with pytest.raises(KeyError):
        static.idle_controls(data, [5, 5])


def test_chapter_7s_eigen_alt_text_follows_the_matrix():
    """The eigen-memory picture in words: W's eigenvalues, where the state runs off the map, its length at the end."""
    from mwm.dynamics import matrix_powers, spectral_radius
    from mwm.widgets.ch07_fade import MAP, PRESETS, START, describe_eigen_memory

    weights = PRESETS["explode"]
    path = matrix_powers(weights, START, 30)
    off = int(np.argmin(np.all(np.abs(path) <= MAP, axis=1)))
    said = describe_eigen_memory("explode", 30)
    assert f"runs off the map at step {off}" in said and f"from 1 to {np.linalg.norm(path[-1]):.0f} at step 30" in said
    assert f"the spectral radius being {spectral_radius(weights):.3g}" in said
    assert "no real direction and turns the state" in describe_eigen_memory("rotate", 30)
    assert "1 at every step" in describe_eigen_memory("rotate", 30) and "off the map" not in describe_eigen_memory("fade")
    panel = W.eigen_memory_try()
    assert panel.describe(panel.values()) == describe_eigen_memory("keep", 30)


def test_chapter_8s_alt_text_says_whether_the_ball_is_flung_off():
    """The cliff in words: unclipped, one gradient on the wall flings the ball off the map; clipped, it reaches the valley."""
    from mwm.clipping import CLIFF_LR, CLIFF_START, descend
    from mwm.widgets.ch08_clip import describe_cliff

    run = descend(CLIFF_START, CLIFF_LR, 60)
    said = describe_cliff("off")
    assert f"at step {run['left_map_at']} one gradient of length {run['grad_norms'][-1]:.1f} on the wall flings it off" in said
    assert "nothing clipped" in said and "(minus 3.5, 2)" in said
    clipped = descend(CLIFF_START, CLIFF_LR, 60, max_norm=1.0)
    kept = describe_cliff("γ = 1")
    assert f"it is at ({clipped['path'][-1, 0]:.2f}, {clipped['path'][-1, 1]:.2f})" in kept and "at most 1, the dashed line" in kept
    panel = W.cliff_try()
    assert panel.describe(panel.values()) == said


def test_chapter_10s_ten_steps_alt_text_gives_the_path_and_the_starts_share():
    """Ten steps of the GRU in words: where the state ends and how far it moved, and (1 - z)^10 beside the whole derivative."""
    from mwm.gru import ten_steps, ten_steps_jacobian
    from mwm.widgets.ch10_gru import _point, describe_ten_steps

    states, share = ten_steps(0.1, 1.0)
    said = describe_ten_steps(0.1, 1.0)
    assert f"it ends at {_point(states[-1])}, {np.linalg.norm(states[-1] - states[0]):.2f} from the start" in said
    assert f"from 1 down to {share:.2g} at step 10" in said
    whole = np.diag(ten_steps_jacobian(0.1, 1.0)[-1])
    assert f"{whole[0]:.2g} and {whole[1]:.2g} at step 10" in said
    assert "1 at every step" in describe_ten_steps(0.0) and "times 10 to the power minus 14" in describe_ten_steps(0.95)
    panel = W.ten_steps_try()
    assert panel.describe(panel.values()) == said


def test_chapter_1s_window_alt_text_says_what_the_window_holds():
    from mwm.widgets.ch01_order import ANNOUNCEMENT, describe_window, window, words_of

    words = words_of(ANNOUNCEMENT)
    said = describe_window(3)
    assert f'what a window of 3 holds: "{" ".join(window(words, 3))}"; the first {len(words) - 3} lie outside' in said
    assert said.endswith('"train", in red, has dropped out.') and describe_window(len(words)).endswith('"train" is inside.')
    panel = W.window_try()
    assert panel.describe(panel.values()) == describe_window(panel.values()["n"])


def test_chapter_11s_alt_text_names_the_words_that_reach_the_state():
    from mwm.widgets.ch11_both_ways import TEDDY_SENTENCES, describe_both_ways, states_and_reach

    sentence = TEDDY_SENTENCES[0]
    words, states, reach, t = states_and_reach(sentence, "two-way", 2)
    said = describe_both_ways(sentence, "two-way", 2)
    assert f'word 2, "{words[1]}", framed in red; read two-way, {len(words)} of them, in gold' in said
    assert f'the strongest "{words[int(np.argmax(reach))]}" ({reach.max():.2f})' in said
    one_way = describe_both_ways(sentence, "one-way", 2)
    assert f'2 of them, in gold, reach its state: "{words[0]}", "{words[1]}",' in one_way
    assert "2 heat maps, one per layer, of every word's state" in describe_both_ways(sentence, "two layers", 2)
    panel = W.both_ways_try()
    assert panel.describe(panel.values()) == describe_both_ways()


def test_chapter_2s_six_numbers_alt_text_says_which_slots_hold_a_word():
    from mwm.cell import rnn_forward
    from mwm.widgets.ch02_cell import SIX_INPUTS, describe_six_state, six_state_weights

    W_, U, b = six_state_weights("slide down", 0.9)
    hs, _ = rnn_forward(SIX_INPUTS[:, None], {"W": W_, "U": U, "b": b})
    said = describe_six_state("slide down", 0.9, 3)
    assert f"After word 3, only slot 3 holds something, {hs[2, 2]:.1f}." in said and "moves each number one slot down" in said
    mixed = describe_six_state("mix", 0.9, 10)
    assert "mixes every slot" in mixed and "slots 1, 2" in mixed
    panel = W.six_state_try()
    assert panel.describe(panel.values()) == describe_six_state()


def test_chapter_9s_memory_lab_alt_text_gives_each_cells_answers_and_gradient():
    from mwm.widgets.ch09_lstm import LAB_LENGTHS, describe_memory_lab, lab_curves

    curves = lab_curves(0.5, 3.0, 0.9)
    said = describe_memory_lab(50, 0.5, 3.0, 0.9)
    k = int(np.searchsorted(LAB_LENGTHS, 50))
    assert f"at the marked 50 words, plain {100 * curves['plain']['accuracy'][k]:.0f}%, LSTM {100 * curves['LSTM']['accuracy'][k]:.0f}%" in said
    assert "the LSTM with f = 0.9 (blue, dashed)" in said and "times 10 to the power minus 74" in said
    panel = W.memory_lab_try()
    assert panel.describe(panel.values()) == describe_memory_lab()


def test_chapter_12s_bottleneck_alt_text_gives_the_squeeze_and_word_1s_voice():
    from mwm.widgets.ch12_translate import describe_bottleneck

    said = describe_bottleneck(50)
    assert "400 numbers in, 50 words of 8, against a summary of 8, a squeeze of 50 to 1" in said
    assert f"word 1, in red, at {0.9 ** 49:.3g}." in said and "1 word of 8" in describe_bottleneck(1)
    panel = W.bottleneck_try()
    assert panel.describe(panel.values()) == describe_bottleneck(panel.values()["n_words"])


def test_chapter_14s_attention_alt_text_says_what_the_decoder_may_read():
    from mwm.seq2seq import READS, load_test_outputs, load_translator
    from mwm.widgets.ch14_bottleneck import describe_attention_read, read_example, read_translations

    model, rows = load_translator("attention"), load_test_outputs()
    done = read_translations(model, read_example(rows, 20))
    last = describe_attention_read("last", 20, model, rows, done)
    assert f"one row for each of the {len(done['last'][0])} Hindi words written and the end symbol" in last
    assert "may read 1 of them, the others tinted red; every row puts all its weight on that one state" in last
    assert ", ".join(f"{r} {done[r][2]:.2f}" for r in READS) in last
    assert "1/20 on each word" in describe_attention_read("equal weights", 20, model, rows, done)
    panel = W.attention_read_try()
    assert panel.describe(panel.values()) == describe_attention_read()


def test_chapter_13s_bleu_alt_text_names_the_matching_pieces():
    from mwm.bleu import bleu_details
    from mwm.widgets.ch13_decode import REFERENCE, describe_bleu

    said = describe_bleu("late is the train")
    d = bleu_details("late is the train".split(), REFERENCE, max_n=2)
    assert ('its words, 4 of 4 match ("late", "is", "the", "train"); its word pairs, 1 of 3 match ("the train"), '
            'in red "late is", "is the"') in said
    assert f"the precisions {d.precisions[0]:.2f} and {d.precisions[1]:.2f}, the brevity penalty {d.brevity_penalty:.2f}" in said
    panel = W.bleu_try()
    assert panel.describe(panel.values()) == describe_bleu()


def test_chapter_3s_unroll_alt_text_counts_the_shared_and_unshared_weights():
    from mwm.widgets.ch03_unroll import HIDDEN, INPUT, cell_param_count, describe_unroll, unshared_param_count

    said = describe_unroll(6, "unrolled", True)
    assert "a chain of 6 copies from h0 to h6" in said and "every W arrow lit red: the same W" in said
    assert f"{cell_param_count(HIDDEN, INPUT)} shared by every copy, against {unshared_param_count(HIDDEN, INPUT, 6)}" in said
    assert "the cell folded: one box" in describe_unroll(6, "folded")
    panel = W.unroll_try()
    assert panel.describe(panel.values()) == describe_unroll(**panel.values())


def test_chapter_4s_alt_texts_give_the_jobs_arrows_and_the_next_word_bars():
    import math

    from mwm.widgets.ch04_jobs import describe_next_word, describe_shape

    assert "inputs (blue arrows) come in at every step, answers (cyan arrows) come out at step 5 only" in describe_shape()
    assert "a reading cell for 3 steps, then a writer for 3" in describe_shape("many -> many (different length)")
    said = describe_next_word(1)   # chapter 4: the first loss is -ln p = 0.285
    assert f'"train", in red at {math.exp(-0.285):.2f}, the tallest.' in said
    for build, describe in ((W.shapes_try, describe_shape), (W.next_word_try, describe_next_word)):
        panel = build()
        assert panel.describe(panel.values()) == describe(**panel.values())


def test_chapter_6s_step_machine_alt_text_follows_the_walk():
    from mwm.widgets.ch06_bptt import describe_step_machine, step_machine

    _, _, g = step_machine(None)
    done = describe_step_machine(10)
    assert f"dL/dw, minus {abs(g.dw):.4f}." in done and "word 1 minus" in done   # chapter 6: -0.4655
    cut = describe_step_machine(10, "τ = 2")
    assert "cut into chunks of 2 by dashed lines" in cut and "none before word 3, behind the cut" in cut
    assert "minus 0.3211" in cut and "no hidden state computed yet" in describe_step_machine(1)
    panel = W.step_machine_try()
    assert panel.describe(panel.values()) == describe_step_machine(**panel.values())


def test_chapter_12s_translate_alt_text_counts_the_matching_words():
    from mwm.seq2seq import load_translator
    from mwm.widgets.ch12_translate import describe_translate, example_sentences

    model, examples = load_translator("plain"), example_sentences()
    src, ref = examples[8]
    words = model.translate(src)
    right = sum(a == b for a, b in zip(words, ref))
    said = describe_translate(8, model=model, examples=examples)
    assert f"the {len(src)}-word English sentence as {2 * model.hidden_size} bars" in said
    assert f"writes {len(words)} Hindi words: {right} of the {max(len(words), len(ref))} positions match" in said
    assert "reading the reference's previous word" in describe_translate(8, "teacher forcing", model, examples)
    panel = W.translate_try()
    assert panel.describe(panel.values()) == describe_translate(1, model=model, examples=examples)


def test_chapter_15s_alt_text_says_what_the_model_wrote():
    from mwm import tiny
    from mwm.widgets.ch15_tiny import LENGTH, PROMPTS, describe_tiny, load_model

    model = load_model()
    written = tiny.sample(model, PROMPTS[0], LENGTH, temperature=1.0, seed=1)
    said = describe_tiny(PROMPTS[0], "1", 1, model)
    assert f'sampled at θ = 1 with seed 1: "{" ".join(written.split())}"' in said
    probs = tiny.next_char_probs(model, PROMPTS[0], 1.0)
    assert f"{probs.max():.2f}" in said.split("the tallest ")[1].split(",")[0]
    panel = W.tiny_try()
    assert panel.describe(panel.values()) == said


# --- the tours and the chapters' prose: every step quotes its chapter, every instruction has a step ---

#: Verbs that open an instruction to the reader ("Slide the length to 50", "then press greedy", "; check both").
_INSTRUCTION = re.compile(
    r"(?:^|[:;,(]\s+|\b(?:then|now|and|or)\s+)"
    r"(?:choose|pick|set|move|slide|drag|push|press|switch|tick|untick|raise|lower|ease|shut|click|step through|"
    r"load|find|start on|try|rotate|turn|put|look|watch|check|select|stay|keep|go back|open|compare)\b", re.I)


def _words(text: str) -> str:
    return " ".join(text.split())


def _paragraphs(markdown: str) -> list[list[str]]:
    """A cell's prose as paragraphs of sentences (each list item a paragraph of its own); headings, tables,
    display maths and fences left out."""
    lines = [line for line in markdown.split("\n") if not re.match(r"\s*(`{3,}|\$\$)", line)]
    out = []
    for para in re.split(r"\n\s*\n|\n(?=\s*[*-] )", "\n".join(lines)):
        para = _words(para)
        if para and not para.startswith(("#", "|")):
            out.append(re.split(r"(?<=[.!?])\s+(?=[A-Z*\"“(])", para))
    return out


def _chapters_and_panels():
    """[(chapter file name, its markdown cells, the names of the panel builders its code cells call)] in order."""
    out = []
    for path in sorted((Path(__file__).resolve().parents[1] / "chapters").glob("[0-9][0-9]-*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        prose = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
        out.append((path.name, prose, [n for n in re.findall(r"\b(\w+_try)\(", code) if n in W.__all__]))
    return out


def _instructions(prose: list[str], labels: set[str], symbols: set[str] = frozenset()) -> list[str]:
    """The sentences that tell the reader to do something with a panel, with a clause that opens on an instruction's
    verb: in a "Try it" section, in a paragraph that says "panel", naming one of its controls or options (*in
    italics*, ``labels``), or setting a control by its symbol in maths ("$f=0.95$", ``symbols``)."""
    found, in_try = [], False
    for markdown in prose:
        section = []   # the cell's lines that stand in a "Try it" section
        for line in markdown.split("\n"):
            if re.match(r"#{1,3} ", line):
                in_try = line.strip() == "## Try it"
            elif in_try:
                section.append(line)
        section = _words("\n".join(section))
        for paragraph in _paragraphs(markdown):
            says_panel = "panel" in " ".join(paragraph).lower()
            for sentence in paragraph:
                near_a_panel = sentence in section or says_panel or any(f"*{label}*" in sentence.lower() for label in labels) \
                    or any(re.search(rf"\$\s*{re.escape(symbol)}\s*=\s*-?[\d.]+\s*\$", sentence) for symbol in symbols)
                if near_a_panel and _INSTRUCTION.search(sentence) and not sentence.startswith("In Jupyter"):
                    found.append(sentence)
    return found


def test_each_tour_step_quotes_its_chapter():
    """A step's ``says`` is the chapter's own words, so the prose and the tour cannot drift apart silently."""
    on_a_page = set()
    for name, prose, builders in _chapters_and_panels():
        text = _words("\n\n".join(prose))
        for builder in builders:
            on_a_page.add(builder)
            for step in _panel(builder).tour:
                assert _words(step["says"]) in text, f"{name}, {builder}: the chapter does not say {step['says']!r}"
    assert on_a_page == {b.__name__ for b in BUILDERS}


def test_every_instruction_in_a_chapter_has_a_tour_step():
    """Each sentence that tells the reader to move a panel's controls holds some step's ``says``: an instruction
    written without a tour (which the build would not draw and the browser test would not replay) fails here."""
    from mwm.widgets.static import control_options
    counted = 0
    for name, prose, builders in _chapters_and_panels():
        labels, says, symbols = set(), [], set()
        for builder in builders:
            panel = _panel(builder)
            says += [_words(step["says"]) for step in panel.tour]
            symbols |= {name for name in panel.controls if len(name) <= 2}   # w, f, z, r: set as "$f=0.95$"
            for control_name, control in panel.controls.items():
                labels.add((control.description or control_name).lower())
                options = control_options(control)
                labels |= {str(label).lower() for label in (options[2] if options else [])}
        for sentence in _instructions(prose, labels, symbols):
            counted += 1
            assert any(s in sentence for s in says), f"{name}: no tour step says {sentence!r}"
    assert counted >= 40   # the chapters' instructions are found (a detector that finds none would pass anything)


def test_an_instruction_is_found_in_a_try_section_or_where_it_names_a_panel_or_a_control():
    prose = ["## Try it\n\nThe panel shows a window. Slide it to 4 and look at the words.\n\n## Why it works\n\n"
             "Choose $\\tau$ well above the gap.",
             "In the second panel, drag the length. Then compare.\n\nLater, push *plain w* up to 3.",
             "**3.** In the lab, the LSTM is right. Switch it to $f=0.95$. Read at its last word, a window of $n=3$ holds it.",
             "In Jupyter you can also choose your own."]
    assert _instructions(prose, {"plain w"}, {"f"}) == [
        "Slide it to 4 and look at the words.", "In the second panel, drag the length.", "Then compare.",
        "Later, push *plain w* up to 3.", "Switch it to $f=0.95$."]
    assert _instructions(prose, set()) == ["Slide it to 4 and look at the words.", "In the second panel, drag the length.",
                                           "Then compare."]



def test_at_the_tanks_last_tour_stop_the_hand_set_gates_are_drawn_at_every_value_and_said_to_do_nothing(cheap_pictures):
    """Chapter 9's tour ends with the gates read from the pre-activations: there the four hand sliders change nothing.
    Each is listed at every value (sharing the stop's one picture), so the page marks them idle instead of moving
    the others back when the reader tries one."""
    from mwm.widgets.static import idle_controls, move, static_states
    from matplotlib.figure import Figure

    panel = W.tank_try()
    real, stops = panel._draw, {panel.picture_key(v) for v in _tour_values(panel)}
    # the tour's stops (and what shares their picture) really drawn, every other setting a stand-in
    panel._draw = lambda v: real(v) if panel.picture_key(v) in stops else (Figure(), "(not drawn here)")
    data = static_states(panel)
    names = [c["name"] for c in _listed(data)]
    stop = [int(x) for x in data["tour"][-1]["key"].split(",")]
    assert [names[k] for k in idle_controls(data, stop)] == ["f", "i", "c_tilde", "o"]
    f = names.index("f")
    for i in range(len(_listed(data)[f]["options"])):
        assert move(data, stop, f, i)[1] == []   # no other control goes back
