"""Train GRUs with and without a reset gate on chapter 10's task, the last order; write what they learned.

Usage (from the project root):
    .venv/bin/python scripts/train_reset_gate.py [--workers N] [--out PATH]

The task and the model are ``mwm_torch.reset_task``'s: sentences of 20 words in which some words
are *orders* (marked, +1 or -1), the answer being the sign of the last order; a GRU of 8 units in
the course's convention (its lane started open, b_z = -2) and a linear read-out of the last hidden state.
Two arms differ in one thing: the reset gate, learned, or held at 1. A third arm has the reset gate but never
trains it: it starts from exactly the learned arm's weights (same seed), so the pair differs only in
whether the gate learns. Each arm is trained at
every learning rate of :data:`RATES` from every seed of :data:`SEEDS`, with Adam on batches of
64 for at most 1,000 steps (stopping early once the mean loss of the last 50 steps is below 0.01),
and scored on 4,000 fixed sentences; a run "learned" at 95% right.

For the GRU with a reset gate trained from seed 0 at 0.01 the script also records its reset and
update gates on those 4,000 sentences: the mean over units of r_t and z_t on the orders after the
first, and on the fillers. Its weights go to ``lib/mwm/data/reset_gate_weights.npz`` (the names
of ``mwm.gru_forward``'s dict, plus ``out_w``, ``out_b``), the rest to
``lib/mwm/data/reset_gate_results.json``. Seeded, float32, one thread per process: the files are
the same on every run on one machine. About 8 CPU-minutes.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]

from mwm.npz import save_npz  # noqa: E402
from mwm_torch.reset_task import TASK, CourseGRU, orders  # noqa: E402

DATA = ROOT / "lib" / "mwm" / "data"
RESULTS, WEIGHTS = DATA / "reset_gate_results.json", DATA / "reset_gate_weights.npz"
#: arm -> (has a reset gate, learns it). The frozen arm starts from exactly the learned arm's weights (same seed)
#: and keeps its reset gate's weights at that start.
ARMS = {"reset gate": (True, True), "reset held at 1": (False, False), "reset gate frozen at its start": (True, False)}
RATES = (0.003, 0.01, 0.03)
SEEDS = (0, 1, 2, 3, 4)
SETUP = {"hidden_size": 8, "batch_size": 64, "max_steps": 1000, "stop_loss": 0.01, "stop_window": 50,
         "eval_sentences": 4000, "eval_seed": 2024, **TASK}
SHOWN = ("reset gate", 0.01, 0)     # the run whose gates the chapter shows


def evaluation():
    """The 4,000 fixed sentences every run is scored on: (inputs, targets)."""
    return orders(torch.Generator().manual_seed(SETUP["eval_seed"]), SETUP["eval_sentences"])


def train_one(job):
    """Train one (arm, rate, seed); return (result dict, the model)."""
    arm, rate, seed = job
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    has_gate, learns_gate = ARMS[arm]
    model = CourseGRU(SETUP["hidden_size"], reset=has_gate)
    if has_gate and not learns_gate:
        for name in ("W_r", "U_r", "b_r"):
            getattr(model, name).requires_grad_(False)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=rate)
    data = torch.Generator().manual_seed(7919 * seed + 1)
    recent, used = [], 0
    for step in range(SETUP["max_steps"]):
        x, y = orders(data, SETUP["batch_size"])
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        used = step + 1
        recent = (recent + [loss.item()])[-SETUP["stop_window"]:]
        if len(recent) == SETUP["stop_window"] and sum(recent) / len(recent) < SETUP["stop_loss"]:
            break
    x, y = evaluation()
    with torch.no_grad():
        right = int(((model(x) > 0).float() == y).sum())
    return {"arm": arm, "learning_rate": rate, "seed": seed, "steps": used, "right": right}, model


def _result_only(job):
    return train_one(job)[0]


def gates_of(model) -> dict:
    """Mean reset and update gate (over units and sentences) on the orders after the first, and on the fillers."""
    x, _ = evaluation()
    with torch.no_grad():
        _, z, r = model.states(x)
    marked = x[:, :, 1] > 0
    later = marked.clone()
    later[:, 0] = False
    fillers = ~marked
    return {"r_orders": float(r[later].mean()), "r_fillers": float(r[fillers].mean()),
            "z_orders": float(z[later].mean()), "z_fillers": float(z[fillers].mean())}


def summarise(runs: list[dict]) -> list[dict]:
    """Per arm and rate: runs that learned (>= 95% right) and the mean accuracy."""
    out = []
    for arm in ARMS:
        for rate in RATES:
            mine = [r["right"] / SETUP["eval_sentences"] for r in runs if r["arm"] == arm and r["learning_rate"] == rate]
            out.append({"arm": arm, "learning_rate": rate, "learned": int(sum(a >= 0.95 for a in mine)), "runs": len(mine),
                        "mean_accuracy": round(float(np.mean(mine)), 6)})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--weights", type=Path, default=WEIGHTS)
    args = parser.parse_args(argv)
    jobs = [(arm, rate, seed) for arm in ARMS for rate in RATES for seed in SEEDS]
    with mp.get_context("spawn").Pool(args.workers) as pool:
        runs = pool.map(_result_only, jobs)
    shown_result, shown = train_one(SHOWN)
    assert shown_result == runs[jobs.index(SHOWN)]
    weights = {name: p.detach().numpy().astype(np.float32).copy() for name, p in shown.named_parameters()
               if not name.startswith("out.")}
    weights.update(out_w=shown.out.weight.detach().numpy()[0].copy(), out_b=shown.out.bias.detach().numpy().copy())
    save_npz(args.weights, weights)
    data = {"setup": dict(SETUP, arms=list(ARMS), learning_rates=list(RATES), seeds=list(SEEDS)),
            "summary": summarise(runs), "shown": {"arm": SHOWN[0], "learning_rate": SHOWN[1], "seed": SHOWN[2],
                                                   **gates_of(shown)}, "runs": runs}
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for row in data["summary"]:
        print(row)
    print(data["shown"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
