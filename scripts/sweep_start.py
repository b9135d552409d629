"""Chapter 8's control for the orthogonal start: Gaussian starts rescaled to radius 1, over learning rates and seeds.

Usage (from the project root):
    .venv/bin/python scripts/sweep_start.py [--out PATH] [--workers N]

Chapter 8 trains a small recurrent network (8 hidden units, sequences of 20 words, the sign of
the first word to be recalled after the last) from an orthogonal ``W`` and from a Gaussian ``W``
with entries of size 1/sqrt(8). The Gaussian starts differ from the orthogonal one in two ways:
their eigenvalues are spread over the unit disc, and their spectral radius is not 1 (0.7 to 1.3
on the chapter's ten seeds). This sweep separates the two with a third start, the same Gaussian
matrix divided by its spectral radius, so that it differs from the orthogonal start only in the
spread. Every start is trained for 100 steps at each learning rate of :data:`ETAS`, plain and
clipped at gamma = 2, on the data of each seed of :data:`SEEDS` (the same data and the same
``U`` for the three starts of a seed).

``memory_task``, ``gradient`` and ``train`` are chapter 8's own (tests/test_ch08_machinery.py
checks that they give the chapter's numbers). A run is marked *chaotic* when nudging its start
by one part in 10^15 moves its final loss by more than 10^-3: such a run ends elsewhere on a
computer that rounds differently, so its final loss is data of this machine only. The summary
keeps every run, chaotic or not, and says how many were.

The file ``lib/mwm/data/start_sweep.json`` holds, one line per learning rate, clip and start,
every seed's final loss, the seeds whose run is chaotic and those whose loss jumped (one update
raising it by more than 0.5, chapter 8's measure); and per learning rate and clip: the orthogonal runs' mean final loss, and for each
Gaussian start the mean of its final loss minus the orthogonal run's on the same seed, with a
paired-bootstrap 95% interval (2,000 resamples of the seeds, seed 0) and the number of seeds on
which it ended higher. The file is the same on every run on one machine.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
from pathlib import Path

import numpy as np

from mwm import last_state_loss, orthogonal, rnn_backward, rnn_forward

ROOT = Path(__file__).resolve().parents[1]
SWEEP_FILE = ROOT / "lib" / "mwm" / "data" / "start_sweep.json"
#: The learning rates, the clips (None: plain), the seeds and the starts swept.
ETAS = (0.005, 0.01, 0.02, 0.04)
GAMMAS = (None, 2.0)
SEEDS = tuple(range(100))
STARTS = ("orthogonal", "Gaussian", "Gaussian at radius 1")
#: A run is chaotic when a nudge of NUDGE (relative) moves its final loss by more than CHAOS.
NUDGE, CHAOS = 1e-15, 1e-3
#: A loss jump: one update that raises the loss by more than this.
JUMP = 0.5
RESAMPLES, BOOT_SEED = 2000, 0

T, n_seq, H, d = 20, 16, 8, 1


def memory_task(seed, W0=None):
    """Chapter 8's data (xs, targets) and start (W0 orthogonal unless given, U random, b zero, in one row)."""
    rng = np.random.default_rng(seed)
    xs = rng.normal(0, 0.1, (T, n_seq, d))
    first = rng.choice([-1.0, 1.0], n_seq)
    xs[0, :, 0] = first
    targets = 0.5 * first[:, None] * np.ones((n_seq, H))
    W0 = orthogonal(H, seed=seed) if W0 is None else W0
    start = np.concatenate([W0.ravel(), rng.normal(0, 1, H * d), np.zeros(H)])
    return (xs, targets), start


def gradient(weights, data):
    """Chapter 8's loss and its gradient at ``weights`` (W, U, b in one row)."""
    (xs, targets), i, j = data, H * H, H * H + H * d
    P = {"W": weights[:i].reshape(H, H), "U": weights[i:j].reshape(H, d), "b": weights[j:]}
    hs, caches = rnn_forward(xs, P)
    L, dL_dh = last_state_loss(hs, targets)
    grads = rnn_backward(dL_dh / n_seq, caches, P)[0]
    return L / n_seq, np.concatenate([grads[name].ravel() for name in ("W", "U", "b")])


def train(data, start, gamma=None, eta=0.02, steps=100):
    """Chapter 8's training loop: the losses and gradient lengths of ``steps`` updates."""
    weights, losses, norms = start.copy(), [], []
    for _ in range(steps):
        L, g = gradient(weights, data)
        norm = np.linalg.norm(g)
        if gamma is not None and norm > gamma:
            g *= gamma / norm
        weights = weights - eta * g
        losses.append(L)
        norms.append(norm)
    return np.array(losses), np.array(norms)


def gaussian_W(seed):
    """Chapter 8's Gaussian start for ``seed``: (H, H) entries of size 1/sqrt(H)."""
    return np.random.default_rng(1000 + seed).normal(0, 1 / np.sqrt(H), (H, H))


def start_W(kind: str, seed: int):
    """The start ``W`` of one of :data:`STARTS` (None: the orthogonal start memory_task draws).

    Raises:
        ValueError: if ``kind`` is not one of :data:`STARTS`.
    """
    if kind == "orthogonal":
        return None
    if kind == "Gaussian":
        return gaussian_W(seed)
    if kind == "Gaussian at radius 1":
        G = gaussian_W(seed)
        return G / np.abs(np.linalg.eigvals(G)).max()
    raise ValueError(f"kind must be one of {STARTS}, got {kind!r}")


def run(setting) -> tuple[float, bool, bool]:
    """One run: (final loss, chaotic?, jumped?) for ``setting`` = (eta, gamma, start kind, seed); it
    jumped if one update raised the loss by more than :data:`JUMP` (chapter 8's measure)."""
    eta, gamma, kind, seed = setting
    data, start = memory_task(seed, start_W(kind, seed))
    losses = train(data, start, gamma=gamma, eta=eta)[0]
    final = float(losses[-1])
    nudged = float(train(data, start * (1 + NUDGE), gamma=gamma, eta=eta)[0][-1])
    return final, bool(abs(nudged - final) > CHAOS), bool(np.diff(losses).max() > JUMP)


def settings(seeds=SEEDS) -> list[tuple]:
    """Every (eta, gamma, start, seed) of the sweep, in the file's order."""
    return [(eta, gamma, kind, seed) for eta in ETAS for gamma in GAMMAS for kind in STARTS for seed in seeds]


def summarise(runs: dict) -> list[dict]:
    """Per (eta, gamma): the orthogonal mean and each Gaussian start's paired gap with its interval.

    Args:
        runs: (eta, gamma, start, seed) -> (final loss, chaotic, jumped), for every seed of :data:`SEEDS`.
    """
    picks = np.random.default_rng(BOOT_SEED).integers(0, len(SEEDS), (RESAMPLES, len(SEEDS)))
    out = []
    for eta in ETAS:
        for gamma in GAMMAS:
            final = {k: np.array([runs[(eta, gamma, k, s)][0] for s in SEEDS]) for k in STARTS}
            row = {"eta": eta, "gamma": gamma, "orthogonal_mean": float(final["orthogonal"].mean()),
                   "chaotic": {k: sum(runs[(eta, gamma, k, s)][1] for s in SEEDS) for k in STARTS}, "gaps": {}}
            for kind in STARTS[1:]:
                gap = final[kind] - final["orthogonal"]
                low, high = np.percentile(gap[picks].mean(axis=1), [2.5, 97.5])
                row["gaps"][kind] = {"mean": float(gap.mean()), "interval": [float(low), float(high)],
                                     "higher": int(np.sum(gap > 0))}
            out.append(row)
    return out


def sweep(seeds=SEEDS, workers: int | None = None) -> dict:
    """Run every setting for ``seeds``: (eta, gamma, start, seed) -> (final loss, chaotic, jumped)."""
    todo = settings(seeds)
    workers = workers or len(os.sched_getaffinity(0))
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(run, todo, chunksize=16)
    else:
        results = [run(s) for s in todo]
    return dict(zip(todo, results))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SWEEP_FILE)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    runs = sweep(workers=args.workers)
    rows = [{"eta": eta, "gamma": gamma, "start": kind, "final": [runs[(eta, gamma, kind, s)][0] for s in SEEDS],
             "chaotic_seeds": [s for s in SEEDS if runs[(eta, gamma, kind, s)][1]],
             "jumped_seeds": [s for s in SEEDS if runs[(eta, gamma, kind, s)][2]]}
            for eta in ETAS for gamma in GAMMAS for kind in STARTS]
    head = {"etas": list(ETAS), "gammas": list(GAMMAS), "first_and_last_seed": [SEEDS[0], SEEDS[-1]], "starts": list(STARTS),
            "summary": summarise(runs)}
    text = json.dumps(head, indent=1)[:-2]   # the runs follow, one setting a line
    text += ',\n "runs": [\n' + ",\n".join("  " + json.dumps(r) for r in rows) + "\n ]\n}\n"
    json.loads(text)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(runs)} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
