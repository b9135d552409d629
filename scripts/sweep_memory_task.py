"""Chapter 9's training result over learning rates: which models learn the memory task, at which rate.

Usage (from the project root):
    .venv/bin/python -m scripts.sweep_memory_task [--out PATH] [--workers N]

``scripts/train_memory_task.py`` trains its five models (the plain cell; the GRU and the LSTM
with PyTorch's default start; the GRU and the LSTM with their lane started open, shift 2) at one
learning rate, 0.01. This sweep trains the same five, with the same code (its ``train_one``:
Adam, batches of 64, at most 1,500 steps, stopping early once the loss is below 0.01), at each
learning rate of :data:`RATES`, on sentences of 20 and 50 words, five seeds each. A run
"learned" when it gets at least 95% of 4,000 fixed evaluation sentences right, as there.
At 0.01 the runs are those of the committed ``memory_task_results.json`` (the same seeds give
the same bytes; tests/test_memory_task.py checks it).

Writes ``lib/mwm/data/memory_task_rate_sweep.json``: the setup, every run (model, learning
rate, length, seed, steps used, final loss, right answers), and per model and rate the number
of runs that learned, out of 10, with Wilson's 95% interval. Everything is seeded and
single-threaded, so the file is the same on every run on one machine; ``--workers`` only
spreads the runs over processes. About 15 CPU-minutes (runs that do not learn use all 1,500
steps).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[1]

from mwm_torch.memory_task import MODELS, SETUP  # noqa: E402
try:  # run as a module from the project root, so that it finds the recipe it shares
    from scripts.train_memory_task import train_one  # noqa: E402
except ModuleNotFoundError as missing:
    if missing.name != "scripts":
        raise
    sys.exit("run it from the project root as a module: .venv/bin/python -m scripts.sweep_memory_task ...")

SWEEP_FILE = ROOT / "lib" / "mwm" / "data" / "memory_task_rate_sweep.json"
#: The learning rates, lengths, seeds and step budget swept.
RATES = (0.001, 0.003, 0.01, 0.03)
LENGTHS = (20, 50)
SEEDS = (0, 1, 2, 3, 4)
STEPS = 1500


def wilson(k: int, n: int, z: float = 1.96) -> list[float]:
    """Wilson's 95% interval for a share k / n (0 <= k <= n, n >= 1), as [low, high] in [0, 1]."""
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"k and n must satisfy 0 <= k <= n and n >= 1, got k={k}, n={n}")
    centre = (k + z ** 2 / 2) / (n + z ** 2)
    half = z * np.sqrt(k * (n - k) / n + z ** 2 / 4) / (n + z ** 2)
    return [float(max(0.0, centre - half)), float(min(1.0, centre + half))]


def jobs(rates=RATES, lengths=LENGTHS, seeds=SEEDS, steps=STEPS, models=tuple(MODELS)) -> list[tuple]:
    """Every run of the sweep as ``train_one``'s job, longest first (better packing over workers)."""
    out = [(m, L, seed, steps, dict(SETUP, learning_rate=rate))
           for rate in rates for L in lengths for m in models for seed in seeds]
    return sorted(out, key=lambda j: -j[1])


def sweep(todo: list[tuple], workers: int = 2, progress: bool = True) -> list[dict]:
    """Train every job; the result dicts (with their learning rate), in the order of :func:`jobs` before sorting."""
    bar = tqdm(total=len(todo), desc="runs", disable=not progress, file=sys.stderr)
    results = []
    if workers > 1:
        with mp.get_context("spawn").Pool(workers) as pool:
            for (result, _), job in zip(pool.imap(train_one, todo), todo):
                results.append(dict(result, learning_rate=job[4]["learning_rate"]))
                bar.update()
    else:
        for job in todo:
            results.append(dict(train_one(job)[0], learning_rate=job[4]["learning_rate"]))
            bar.update()
    bar.close()
    order = list(MODELS)
    return sorted(results, key=lambda r: (r["learning_rate"], order.index(r["model"]), r["length"], r["seed"]))


def summarise(runs: list[dict]) -> list[dict]:
    """Per learning rate and model: runs that learned (>= 95% right), out of how many, with Wilson's interval."""
    n_eval = SETUP["eval_sentences"]
    out = []
    for rate in sorted({r["learning_rate"] for r in runs}):
        for model in MODELS:
            mine = [r for r in runs if r["learning_rate"] == rate and r["model"] == model]
            if not mine:
                continue
            k = sum(r["right"] >= 0.95 * n_eval for r in mine)
            won = [r["steps"] for r in mine if r["right"] >= 0.95 * n_eval]
            out.append({"learning_rate": rate, "model": model, "learned": k, "runs": len(mine),
                        "interval": wilson(k, len(mine)), "median_steps_learned": float(np.median(won)) if won else None})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SWEEP_FILE)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    runs = sweep(jobs(), args.workers, not args.no_progress)
    setup = dict(SETUP, learning_rates=list(RATES), lengths=list(LENGTHS), seeds=list(SEEDS), max_steps=STEPS,
                 models={m: {"cell": MODELS[m][0], "lane_shift": MODELS[m][1]} for m in MODELS})
    setup.pop("learning_rate")
    data = {"setup": setup, "summary": summarise(runs), "runs": runs}
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    for row in data["summary"]:
        print(f"lr {row['learning_rate']:<6} {row['model']:16s} learned {row['learned']:2d} of {row['runs']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
