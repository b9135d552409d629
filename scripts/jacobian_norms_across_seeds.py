"""Chapter 7's gradient measurements on three trained character models: what is general, what is one network's.

Usage (from the project root):
    .venv/bin/python scripts/jacobian_norms_across_seeds.py [--out PATH]

Chapter 7 measures how the gradient fades in the character model of chapter 5 (the committed
``char_lm.npz``, trained by ``scripts/train_char_lm.py`` from seed 5). This script makes the same
measurements on it, on two more models trained by the same script and recipe from seeds 6
and 7 (``char_lm_seed6.npz``, ``char_lm_seed7.npz``: ``scripts/train_char_lm.py --seed N --out
lib/mwm/data/char_lm_seedN.npz``, about 4 minutes each) and on seed 5 trained for 500 steps only
(``char_lm_500steps.npz``: ``--steps 500 --out lib/mwm/data/char_lm_500steps.npz``, 20 s; its
learning rate falls to zero over those 500 steps), each rebuilt byte for byte by that command.

Each model reads the corpus's sentences as one running text from a zero state. At each full stop
at least 60 characters in (step T), the Jacobian's norm ``||dh_T / dh_(T-j)||_2`` for j = 1..60 (the
spectral norm of the product of the step Jacobians ``diag(1 - h_t^2) W``), as chapter 7's cells
compute it. Per model the file ``lib/mwm/data/char_lm_jacobian_seeds.json`` holds: rho(W) and
||W||_2; the median norm's peak, where it is, and where it first drops below 1; the shares of
ends whose norm exceeds 1 and 10 somewhere, and the largest norm; at the sentence
boundary, the median norm back to the sentence's start, the median two characters further
(past the ". " before it) and the median of their ratio, with the control (the ratio over two
steps inside a sentence: median and 90th percentile); and the mean tanh slope after ". " and
after any other character. tests/test_ch07_machinery.py checks that the seed-5 row is what the
chapter prints.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from mwm import lm_forward, load_char_lm, load_corpus, spectral_radius
from mwm.charlm import WEIGHTS_PATH

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "lib" / "mwm" / "data" / "char_lm_jacobian_seeds.json"
#: name -> weight file of the models measured: the course's model (seed 5), two more seeds of the same recipe,
#: and seed 5 trained for 500 steps only (a run of its own: its learning rate falls to zero over those steps).
MODELS = {"seed 5": WEIGHTS_PATH, "seed 6": WEIGHTS_PATH.with_name("char_lm_seed6.npz"),
          "seed 7": WEIGHTS_PATH.with_name("char_lm_seed7.npz"),
          "seed 5, 500 steps": WEIGHTS_PATH.with_name("char_lm_500steps.npz")}
BACK = 60


def jacobian_norms(model, text: str):
    """(states, ends, norms): the hidden states over ``text``, the full stops at least BACK characters in, and the
    (ends, BACK) Jacobian norms ``||dh_T / dh_(T-j)||_2``."""
    W = model.W
    H = W.shape[0]
    _, states = lm_forward(model, text)
    ends = [i + 1 for i, ch in enumerate(text) if ch == "." and i >= BACK]
    norms = np.empty((len(ends), BACK))
    for n, T in enumerate(ends):
        jacobian = np.eye(H)
        for j in range(1, BACK + 1):
            jacobian = jacobian @ (np.diag(1 - states[T - j + 1] ** 2) @ W)
            norms[n, j - 1] = np.linalg.norm(jacobian, 2)
    return states, ends, norms


def measure(model, text: str) -> dict:
    """Chapter 7's numbers for one model reading ``text`` (see the module's docstring)."""
    states, ends, norms = jacobian_norms(model, text)
    median = np.median(norms, axis=0)
    top = norms.max(axis=1)
    own, past, inside = [], [], []
    for row, T in zip(norms, ends):
        p = text.rfind(".", 0, T - 1)
        j0 = T - p - 2
        own.append(row[j0 - 1])
        past.append(row[j0 + 1])
        inside += [row[j - 1] / row[j + 1] for j in range(1, j0 - 2)]
    own, past = np.array(own), np.array(past)
    at_stop = np.array([text[i] == "." or text[i - 1:i + 1] == ". " for i in range(len(text))])
    slopes = 1 - states[1:] ** 2
    return {"rho": float(spectral_radius(model.W)), "norm_W": float(np.linalg.norm(model.W, 2)),
            "median_peak": float(median.max()), "median_peak_at": int(median.argmax() + 1),
            "median_first_below_1_at": int(np.argmax(median < 1) + 1) if np.any(median < 1) else None,
            "share_above_1": float(np.mean(top > 1)), "share_above_10": float(np.mean(top > 10)),
            "largest": float(norms.max()),
            "own_median": float(np.median(own)), "past_median": float(np.median(past)),
            "boundary_ratio_median": float(np.median(own / past)),
            "inside_ratio_median": float(np.median(inside)), "inside_ratio_p90": float(np.percentile(inside, 90)),
            "slope_at_stop": float(slopes[at_stop].mean()), "slope_elsewhere": float(slopes[~at_stop].mean())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    text = " ".join(load_corpus())
    rows = {name: measure(load_char_lm(path), text) for name, path in MODELS.items()}
    args.out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    for name, r in rows.items():
        print(name, {k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
