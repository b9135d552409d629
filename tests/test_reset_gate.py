"""Chapter 10's trained reset gate: scripts/train_reset_gate.py, its committed results, and what the chapter says.

* The task's sentences answer with the sign of their last order; bad arguments are named.
* The committed weights run in numpy (``mwm.gru_forward``, the course's convention) give the shown
  run's score and its gate means; the summary is recomputed from the runs.
* One run trained again gives the committed result (``training``).
* The chapter's sentences say what the file shows.
"""
import json

import numpy as np
import pytest
import torch

from mwm import gru_forward, sigmoid
from mwm_torch.reset_task import CourseGRU, orders
from scripts import train_reset_gate as script
from tests.chapter_cells import chapter_path


@pytest.fixture(scope="module")
def results():
    return json.loads(script.RESULTS.read_text(encoding="utf-8"))


def test_the_answer_is_the_sign_of_the_last_order():
    x, y = orders(torch.Generator().manual_seed(3), 200, 12)
    assert x.shape == (200, 12, 2) and bool(torch.all(x[:, 0, 1] == 1))
    for s, m, target in zip(x[:, :, 0], x[:, :, 1], y):
        last = max(t for t in range(12) if m[t] == 1)
        assert abs(float(s[last])) == 1.0 and float(target) == float(s[last] > 0)
        assert bool(torch.all(s[m == 0].abs() <= 0.5))
    with pytest.raises(ValueError, match="order_rate"):
        orders(torch.Generator(), 4, order_rate=1.5)
    with pytest.raises(ValueError, match="n and length"):
        orders(torch.Generator(), 0)


def test_the_frozen_arm_starts_where_the_learned_arm_starts():
    torch.manual_seed(3)
    learned = CourseGRU(reset=True)
    torch.manual_seed(3)
    frozen = CourseGRU(reset=True)
    assert all(torch.equal(a, b) for a, b in zip(learned.parameters(), frozen.parameters()))
    assert script.ARMS["reset gate frozen at its start"] == (True, False)


def test_without_a_reset_gate_the_model_has_none():
    assert not hasattr(CourseGRU(reset=False), "W_r")
    with_gate = sum(p.numel() for p in CourseGRU(reset=True).parameters())
    without = sum(p.numel() for p in CourseGRU(reset=False).parameters())
    assert with_gate - without == 8 * (8 + 2) + 8        # one block


def test_the_committed_weights_give_the_shown_run_in_numpy(results):
    """The course's own GRU step on the saved weights: the shown run's score and gate means."""
    with np.load(script.WEIGHTS) as saved:
        weights = {k: saved[k].astype(np.float64) for k in saved.files}
    out_w, out_b = weights.pop("out_w"), weights.pop("out_b")
    x, y = script.evaluation()
    hs, caches = gru_forward(x.numpy().astype(np.float64), weights, batch_first=True)
    right = int(np.sum(((hs[:, -1] @ out_w + out_b) > 0) == (y.numpy() > 0)))
    shown = results["shown"]
    run = next(r for r in results["runs"] if (r["arm"], r["learning_rate"], r["seed"]) == script.SHOWN)
    assert right == run["right"]
    marked = x[:, :, 1].numpy() > 0
    later = marked.copy()
    later[:, 0] = False
    r = np.stack([c["r"] for c in caches], axis=1)      # (B, T, H)
    z = np.stack([c["z"] for c in caches], axis=1)
    assert r[later].mean() == pytest.approx(shown["r_orders"], abs=1e-5)
    assert r[~marked].mean() == pytest.approx(shown["r_fillers"], abs=1e-5)
    assert z[later].mean() == pytest.approx(shown["z_orders"], abs=1e-5)
    assert np.allclose(caches[0]["z"], sigmoid(x[:, 0].numpy() @ weights["U_z"].T + weights["b_z"]))


def test_the_summary_is_the_runs(results):
    assert results["setup"]["arms"] == list(script.ARMS) and results["setup"]["learning_rates"] == list(script.RATES)
    assert len(results["runs"]) == len(script.ARMS) * len(script.RATES) * len(script.SEEDS)
    assert script.summarise(results["runs"]) == results["summary"]


@pytest.mark.training
def test_a_run_trained_again_gives_the_committed_result(results):
    committed = next(r for r in results["runs"] if (r["arm"], r["learning_rate"], r["seed"]) == ("reset gate", 0.03, 1))
    assert script.train_one(("reset gate", 0.03, 1))[0] == committed


def test_chapter_10_says_what_the_runs_show(results):
    runs = {(r["arm"], r["learning_rate"], r["seed"]): r for r in results["runs"]}
    assert all(r["right"] >= 0.95 * 4000 for r in runs.values())                  # both ways learned in every run
    pairs = [(runs["reset gate", rate, s]["steps"], runs["reset held at 1", rate, s]["steps"])
             for rate in script.RATES for s in script.SEEDS]
    assert all(a < b for a, b in pairs) and len(pairs) == 15
    saved = []                                                                        # "by 22%, 20% and 15%"
    for rate in script.RATES:
        a = np.mean([runs["reset gate", rate, s]["steps"] for s in script.SEEDS])
        b = np.mean([runs["reset held at 1", rate, s]["steps"] for s in script.SEEDS])
        saved.append(round(100 * (1 - a / b)))
    assert saved == [22, 20, 15]
    frozen = [(runs["reset gate", rate, s]["steps"], runs["reset gate frozen at its start", rate, s]["steps"])
              for rate in script.RATES for s in script.SEEDS]
    assert all(a < b for a, b in frozen)                                              # "beat it in all 15 pairs"
    for rate in script.RATES:                                                         # "about as slowly as held at 1"
        f = np.mean([runs["reset gate frozen at its start", rate, s]["steps"] for s in script.SEEDS])
        h = np.mean([runs["reset held at 1", rate, s]["steps"] for s in script.SEEDS])
        assert 0.95 < f / h < 1.05, rate
    assert min(r["right"] for r in runs.values()) == 3995
    shown = results["shown"]
    assert (round(shown["r_orders"], 2), round(shown["r_fillers"], 2)) == (0.35, 0.54)
    chapter = json.loads(chapter_path(10).read_text(encoding="utf-8"))
    text = " ".join("".join(c["source"]) for c in chapter["cells"] if c["cell_type"] == "markdown")
    for phrase in ("sooner in all 15 pairs, by 22%, 20% and 15% on average", "(at least 3,995 of 4,000 right)",
                   "(mean $r$ 0.35, against 0.54 on fillers)", "the learned gate beat it in all 15 pairs"):
        assert phrase in text, phrase
