"""Train plain, GRU and LSTM readers on chapter 9's memory task; write accuracies per length.

The task is the memory lab's (chapter 9; ``mwm.memory_lab``): the first word is +1 (chai)
or -1 (coffee), every later word a filler uniform in [-0.5, 0.5], and the answer is
which drink came first. Each word is the pair (s_t, m_t), with the marker m_t = 1 on
the first word only. Nothing is wired by hand here: a small torch model (one
``nn.RNN`` / ``nn.GRU`` / ``nn.LSTM`` layer of 8 units, then a linear read-out of the
last hidden state, trained with the logistic loss and Adam) must *learn* to carry the
first word to the end.

Five models (:data:`MODELS`): the plain tanh cell, the GRU and the LSTM with PyTorch's
default start, and the GRU and the LSTM with their lane started open (shift 2 on the
lane's gate: the LSTM's forget gate starts near sigmoid(2) = 0.88, as chapter 9
advises, and the GRU's keep gate 1 - z likewise, which is a shift of -2 on the course's z).

For every model and every training length L, one run per seed trains on sentences of
exactly L words for at most ``--steps`` steps of 64 sentences, stopping early once the
mean loss of the last 50 steps is below 0.01. Each run is then scored on 4000 fixed
evaluation sentences of the same length (binomial standard error at most 0.8 points);
a run with accuracy >= 0.95 counts as "learned". So the results show how the chance of
learning the task changes as the first word moves further from the answer: the gradient
reaching it has to travel L - 1 steps back (chapter 7).

Everything is float32 and seeded (``torch.manual_seed``, a seeded data generator per
run) and single-threaded (``torch.set_num_threads(1)``), so a run gives the same bytes
every time on a given machine; ``--workers`` only spreads the runs over processes.

Usage (from the project root):

    .venv/bin/python scripts/train_memory_task.py            # full run: 150 runs, about 260 CPU-seconds
    .venv/bin/python scripts/train_memory_task.py --quick --workers 1 --out /tmp/quick.json

The full run took 257 CPU-seconds on the machine that wrote the committed files, that is
a little over two minutes on two free cores (runs that learn stop early; runs that fail
use all 1500 steps). ``--quick`` takes a few seconds.

Writes ``lib/mwm/data/memory_task_results.json`` (setup, per-run accuracy and steps,
summary per model and length) and ``lib/mwm/data/memory_task_weights.npz`` (the seed-0
model of every kind at the longest length, a few kB), and prints their sha256.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from mwm.npz import save_npz
from mwm_torch.memory_task import FULL, MODELS, QUICK, SETUP, Reader, sentences

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "lib" / "mwm" / "data"

def train_one(job):
    """Train one (cell, length, seed) run; return its result dict and its weights (numpy)."""
    name, length, seed, steps, setup = job
    cell, lane_shift = MODELS[name]
    torch.set_num_threads(1)
    torch.manual_seed(1000 * seed + length)
    model = Reader(cell, setup["hidden_size"], lane_shift)
    opt = torch.optim.Adam(model.parameters(), lr=setup["learning_rate"])
    data = torch.Generator().manual_seed(7919 * seed + length)
    recent, used = [], 0
    for step in range(steps):
        x, y = sentences(data, setup["batch_size"], length, setup["noise"])
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        used = step + 1
        recent = (recent + [loss.item()])[-setup["stop_window"]:]
        if len(recent) == setup["stop_window"] and sum(recent) / len(recent) < setup["stop_loss"]:
            break
    evaluation = torch.Generator().manual_seed(setup["eval_seed"] + length)
    x, y = sentences(evaluation, setup["eval_sentences"], length, setup["noise"])
    with torch.no_grad():
        right = int(((model(x) > 0).float() == y).sum())
    weights = {name: p.detach().numpy().astype(np.float32).copy() for name, p in model.state_dict().items()}
    result = {"model": name, "length": length, "seed": seed, "steps": used,
              "final_loss": round(sum(recent) / len(recent), 6), "right": right}
    return result, weights


def run(lengths, seeds, steps, workers=1, progress=True, models=tuple(MODELS)):
    """Train every (model, length, seed); return (results dict, weights of seed 0 at the longest length)."""
    setup = dict(SETUP, lengths=list(lengths), seeds=list(seeds), max_steps=steps,
                 models={m: {"cell": MODELS[m][0], "lane_shift": MODELS[m][1]} for m in models})
    jobs = [(m, L, seed, steps, SETUP) for L in lengths for m in models for seed in seeds]
    jobs.sort(key=lambda j: -j[1])  # longest first: better packing over workers
    out = []
    bar = tqdm(total=len(jobs), desc="runs", disable=not progress, file=sys.stderr)
    if workers > 1:
        with mp.get_context("spawn").Pool(workers) as pool:
            for res in pool.imap_unordered(train_one, jobs):
                out.append(res)
                bar.update()
    else:
        for job in jobs:
            out.append(train_one(job))
            bar.update()
    bar.close()
    order = list(models)
    out.sort(key=lambda r: (order.index(r[0]["model"]), r[0]["length"], r[0]["seed"]))
    runs = [r for r, _ in out]
    n = SETUP["eval_sentences"]
    summary = {}
    for model in models:
        rows = []
        for L in lengths:
            accs = [r["right"] / n for r in runs if r["model"] == model and r["length"] == L]
            rows.append({"length": L, "accuracies": accs, "mean_accuracy": round(float(np.mean(accs)), 6),
                         "learned": int(sum(a >= 0.95 for a in accs))})
        summary[model] = rows
    longest = max(lengths)
    weights = {f"{r['model']}/{name}": w[name] for r, w in out
               for name in w if r["length"] == longest and r["seed"] == seeds[0]}
    return {"setup": setup, "summary": summary, "runs": runs}, weights


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a shortened run (lengths 5 and 10, one seed, 40 steps)")
    parser.add_argument("--steps", type=int, default=None, help="maximum training steps per run")
    parser.add_argument("--workers", type=int, default=2, help="processes to spread the runs over")
    parser.add_argument("--out", type=Path, default=DATA / "memory_task_results.json")
    parser.add_argument("--weights", type=Path, default=None,
                        help="npz for the seed-0 models at the longest length (default: beside --out)")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--models", nargs="*", default=list(MODELS), help="which models to train")
    parser.add_argument("--lengths", nargs="*", type=int, default=None, help="training lengths")
    parser.add_argument("--seeds", nargs="*", type=int, default=None, help="seeds")
    args = parser.parse_args(argv)
    plan = dict(QUICK if args.quick else FULL)
    for key in ("steps", "lengths", "seeds"):
        if getattr(args, key) is not None:
            plan[key] = getattr(args, key)
    start = time.perf_counter()
    results, weights = run(plan["lengths"], plan["seeds"], plan["steps"], args.workers,
                           not args.no_progress, tuple(args.models))
    seconds = time.perf_counter() - start
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    weights_path = args.weights or args.out.with_name(args.out.stem.replace("_results", "") + "_weights.npz")
    save_npz(weights_path, weights)
    for path in (args.out, weights_path):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: sha256 {digest}")
    print(f"trained {len(results['runs'])} runs in {seconds:.0f} s")
    for model, rows in results["summary"].items():
        print(f"{model:16s}", "  ".join(f"L={r['length']}: {r['mean_accuracy']:.3f} ({r['learned']}/{len(r['accuracies'])})"
                                      for r in rows))


if __name__ == "__main__":
    main()
