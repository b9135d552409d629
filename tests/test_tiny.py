"""Chapter 15's one-file model, mwm.tiny: its gradient, its training run, its command, its committed files."""
import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from mwm import gradient_check, tiny

ROOT = Path(__file__).resolve().parents[1]
DATA = files("mwm") / "data"


def _random_model(text, hidden, seed):
    model = tiny.new_model(text, hidden_size=hidden, seed=seed)
    rng = np.random.default_rng(seed + 100)
    for name in tiny.KEYS:
        model.weights[name] += rng.normal(0, 0.4, model.weights[name].shape)
    return model


@pytest.mark.parametrize("hidden", [1, 2, 7])
def test_the_gradient_is_the_derivative_of_the_loss(hidden):
    """Every weight's BPTT gradient agrees with central differences, from a nonzero state (the carried one)."""
    model = _random_model("to be or not to be, that is it.", hidden, seed=hidden)
    ids = model.encode("or not to be, th")
    h0 = np.random.default_rng(7).normal(0, 0.5, hidden)
    loss, grads, last = tiny.loss_and_grads(model, ids, h0)
    errors = gradient_check(lambda: tiny.loss_and_grads(model, ids, h0)[0], model.weights, grads)
    assert max(errors.values()) < 1e-6, errors
    assert loss > 0 and last.shape == (hidden,)


def test_the_state_is_carried_from_chunk_to_chunk():
    """Two chunks read one after the other, the second from the first's last state, give the whole text's loss."""
    model = _random_model("abcdefgh", 4, seed=3)
    ids = model.encode("abcdefghhgfedcba")
    whole, _, last = tiny.loss_and_grads(model, ids, np.zeros(4))
    first, _, h = tiny.loss_and_grads(model, ids[:9], np.zeros(4))
    second, _, last2 = tiny.loss_and_grads(model, ids[8:], h)
    assert first + second == pytest.approx(whole, rel=1e-12) and np.allclose(last, last2)
    assert tiny.loss_and_grads(model, ids[8:], np.zeros(4))[0] != pytest.approx(second)  # the state matters


def test_it_learns_a_pattern_and_keeps_the_held_out_text_apart():
    text = "abcd " * 200
    run = tiny.train(text, steps=300, hidden_size=8, lr=0.01, every=100, progress=False)
    assert [step for step, _, _ in run.curve] == [100, 200, 300]
    heldout = [point[2] for point in run.curve]
    assert heldout[-1] < 0.01 < heldout[0] < np.log(5) and heldout == sorted(heldout, reverse=True)
    assert run.samples[-1][1].startswith("bcd abcd abcd")


def test_a_short_run_is_reproducible_in_process():
    text = (DATA / "course_prose.txt").read_text(encoding="utf-8")[:20_000]
    a, b = (tiny.train(text, steps=40, hidden_size=8, every=20, progress=False) for _ in range(2))
    assert a.curve == b.curve and a.samples == b.samples
    assert all(np.array_equal(a.model.weights[k], b.model.weights[k]) for k in tiny.KEYS)


def test_the_committed_model_is_the_committed_runs_last_point():
    """tiny_model.npz is the first seed's model: its held-out loss is the curve's last held-out point."""
    runs = json.loads((DATA / "tiny_runs.json").read_text(encoding="utf-8"))
    model = tiny.load(DATA / "tiny_model.npz")
    text = (DATA / runs["text"]).read_text(encoding="utf-8")
    assert len(text) == runs["characters"] and model.chars == "".join(sorted(set(text)))
    assert tiny.heldout_loss(model, text[int(len(text) * 0.9):]) == pytest.approx(runs["curves"]["0"][-1][2], abs=1e-6)
    late = [np.mean([point[2] for point in curve[-5:]]) for curve in runs["curves"].values()]   # chapter 15's measure
    spread = max(late) - min(late)
    assert len(late) == 3 and spread < 0.05
    rates = {float(rate): np.mean([point[2] for point in curve[-5:]]) for rate, curve in runs["rates"].items()}
    assert sorted(rates) == [0.0003, 0.003, 0.01]
    # chapter 15: 0.001 and 0.003 are alike (within the starts' spread); 0.0003 and 0.01 clearly worse
    assert min(late) - spread <= rates[0.003] <= max(late) + spread
    assert min(rates[0.0003], rates[0.01]) > max(late) + 0.1


@pytest.mark.training
def test_the_script_rebuilds_the_committed_runs_beginning(tmp_path):
    """The first 1,000 steps of the first seed, rerun by the script, give the committed first point and sample."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "train_tiny.py"), "--steps", "1000", "--seeds", "0",
                           "--no-rates", "--out-dir", str(tmp_path)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    short = json.loads((tmp_path / "tiny_runs.json").read_text(encoding="utf-8"))
    committed = json.loads((DATA / "tiny_runs.json").read_text(encoding="utf-8"))
    assert short["curves"]["0"] == committed["curves"]["0"][:1]
    assert short["samples"] == committed["samples"][:1]


def test_the_command_trains_on_a_text_file_and_prints_samples(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("the rain in spain stays mainly in the plain. " * 20, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mwm.tiny", "--text", str(path), "--steps", "60", "--every", "30",
                           "--hidden", "8", "--save", str(tmp_path / "mine.npz")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("held-out") == 2 and "step 60:" in done.stdout, done.stdout
    mine = tiny.load(tmp_path / "mine.npz")     # the model it trained, kept
    assert mine.chars == "".join(sorted(set(path.read_text(encoding="utf-8")))) and mine.weights["W"].shape == (8, 8)


@pytest.mark.parametrize("content, message", [
    (b"\xff\xfe not utf-8 \xff", "utf-8"),
    (b"ab", "at least"),
])
def test_the_command_says_what_is_wrong_with_a_text(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    done = subprocess.run([sys.executable, "-m", "mwm.tiny", "--text", str(path), "--steps", "5"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr.lower() and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("bad, word", [
    (lambda: tiny.new_model("aaaa"), "2 different characters"),
    (lambda: tiny.new_model("ab", hidden_size=0), "hidden_size"),
    (lambda: tiny.new_model("ab").encode("abc"), "does not know: 'c'"),
    (lambda: tiny.sample(tiny.new_model("ab"), ""), "prompt"),
    (lambda: tiny.sample(tiny.new_model("ab"), "a", temperature=0), "temperature"),
    (lambda: tiny.loss_and_grads(tiny.new_model("ab"), np.array([0]), np.zeros(64)), "ids"),
    (lambda: tiny.heldout_loss(tiny.new_model("ab"), "a"), "2 characters"),
])
def test_bad_input_names_the_argument(bad, word):
    with pytest.raises(ValueError, match=word):
        bad()


def test_a_file_that_is_not_a_model_is_refused(tmp_path):
    np.savez(tmp_path / "other.npz", W=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="not a tiny model"):
        tiny.load(tmp_path / "other.npz")


def test_the_course_prose_is_prose():
    """scripts/make_course_prose.py keeps words and drops maths, code, addresses and marks."""
    from scripts.make_course_prose import prose

    assert prose("## A heading\n\nThe state $h_t$ is `h` here, see [chapter 2](02.ipynb) and **this**.\n\n"
                 "```python\nx = 1\n```\n| a | b |") == ["The state is here, see chapter 2 and this."]
    text = (DATA / "course_prose.txt").read_text(encoding="utf-8")
    assert len(text) > 100_000 and not any(mark in text for mark in ("$", "`", "](", "**", "<img"))


@pytest.mark.parametrize("option, word", [(["--every", "0"], "every"), (["--steps", "0"], "steps"),
                                          (["--tau", "0"], "tau"), (["--lr", "-0.1"], "lr")])
def test_a_bad_option_is_named(tmp_path, option, word):
    path = tmp_path / "mine.txt"
    path.write_text("the rain in spain stays mainly in the plain. " * 5, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "mwm.tiny", "--text", str(path), *option],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and word in done.stderr and "Traceback" not in done.stderr, done.stderr

