"""Chapter 11's stacked layers on a trained model: scripts/train_layers.py, its committed results, what the chapter says."""
import json

import numpy as np
import pytest

from mwm_torch.charlm import StackedCharRNN
from scripts import train_layers as script
from tests.chapter_cells import chapter_path


@pytest.fixture(scope="module")
def results():
    return json.loads(script.OUT.read_text(encoding="utf-8"))


def test_the_two_arms_have_about_the_same_size():
    one, two = (StackedCharRNN(*script.ARMS[arm]).learned() for arm in script.ARMS)
    assert (one, two) == (5068, 4956)
    with pytest.raises(ValueError, match="num_layers and hidden_size"):
        StackedCharRNN(8, 0)


def test_the_file_holds_every_run(results):
    assert [(r["arm"], r["learning_rate"], r["seed"]) for r in results["runs"]] == \
        [(a, rate, s) for a in script.ARMS for rate in script.RATES for s in script.SEEDS]
    assert results["setup"]["steps"] == script.STEPS
    assert {r["numbers"] for r in results["runs"]} == {5068, 4956}


@pytest.mark.training
def test_a_short_run_repeats_itself():
    job = ("two layers, 32 units each", 0.01, 1)
    assert script.train_one(job, steps=15) == script.train_one(job, steps=15)


def test_chapter_11_says_what_the_runs_show(results):
    one, two = script.ARMS
    run = {(r["arm"], r["learning_rate"], r["seed"]): r for r in results["runs"]}
    gaps = [run[one, rate, s]["heldout"] - run[two, rate, s]["heldout"] for rate in script.RATES for s in script.SEEDS]
    assert all(g > 0 for g in gaps) and (round(min(gaps), 3), round(max(gaps), 3), round(np.mean(gaps), 3)) == (0.003, 0.075, 0.030)
    assert np.std(gaps) > 0.8 * np.mean(gaps)                                    # "vary as much as their mean"
    assert all(run[two, 0.003, s]["corpus"] < run[one, 0.003, s]["corpus"] for s in script.SEEDS)
    behind = [run[two, 0.01, s]["corpus"] - run[one, 0.01, s]["corpus"] for s in script.SEEDS]
    assert (round(min(behind), 3), round(max(behind), 3)) == (0.001, 0.003)            # "a hair behind, by 0.001 to 0.003"
    chapter = json.loads(chapter_path(11).read_text(encoding="utf-8"))
    text = " ".join("".join(c["source"]) for c in chapter["cells"] if c["cell_type"] == "markdown")
    for phrase in ("in all 6 pairs, by 0.003 to 0.075 nats per character (mean 0.030)", "a hair behind, by 0.001 to 0.003, at the larger"):
        assert phrase in text, phrase
