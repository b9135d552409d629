"""Train chapter 15's model, ``mwm.tiny``, on the course's own prose, from three random starts.

    python scripts/train_tiny.py              # about three minutes: rewrites the two committed files
    python scripts/train_tiny.py --steps 1000 --seeds 0 --no-rates --out-dir /tmp/x   # a short run (the test's)

Reads lib/mwm/data/course_prose.txt (``scripts/make_course_prose.py``); trains on its first nine
tenths with ``mwm.tiny.train``'s defaults (a hidden state of 64, chunks of 25 characters, Adam at
0.001, clipping at 5) for ``--steps`` steps from each seed, and from the first seed at three other
learning rates, 0.0003, 0.003 and 0.01 (the setting the result depends on most); writes

* ``tiny_model.npz``: the model of the first seed (``mwm.tiny.load`` reads it);
* ``tiny_runs.json``: every seed's curve (step, training loss, held-out loss on the last tenth, in
  nats per character), the other rates' curves, and the first seed's samples as it learned.

Everything is numpy in float64 on one thread's worth of work, so the same machine rewrites exactly
the committed files; the test reruns the first 1,000 steps of seed 0 and compares them with the
committed curve's first point and sample.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "lib" / "mwm" / "data"
TEXT = DATA / "course_prose.txt"
STEPS = 20000
SEEDS = (0, 1, 2)
EVERY = 1000
#: The learning rates tried beside mwm.tiny.train's default, from the first seed.
OTHER_RATES = (0.0003, 0.003, 0.01)


def main(argv=None) -> int:
    from mwm import tiny

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=STEPS, help=f"training steps per seed ({STEPS})")
    ap.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), help="the random starts (0 1 2)")
    ap.add_argument("--no-rates", action="store_true", help="skip the other learning rates")
    ap.add_argument("--out-dir", type=Path, default=DATA, help="where the two files go (lib/mwm/data)")
    args = ap.parse_args(argv)
    text = TEXT.read_text(encoding="utf-8")
    runs = {}
    for seed in args.seeds:
        run = tiny.train(text, steps=args.steps, seed=seed, every=EVERY, progress=sys.stderr.isatty())
        runs[seed] = run
        print(f"seed {seed}: held-out loss {run.curve[-1][2]:.4f} nats per character after {args.steps} steps")
    rates = {}
    for lr in () if args.no_rates else OTHER_RATES:
        run = tiny.train(text, steps=args.steps, seed=args.seeds[0], lr=lr, every=EVERY, progress=sys.stderr.isatty())
        rates[lr] = run
        print(f"learning rate {lr}: held-out loss {run.curve[-1][2]:.4f} nats per character")
    first = runs[args.seeds[0]]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    tiny.save(first.model, args.out_dir / "tiny_model.npz")
    record = {"text": TEXT.name, "characters": len(text), "steps": args.steps, "every": EVERY,
              "curves": {str(s): [[step, round(a, 6), round(b, 6)] for step, a, b in r.curve] for s, r in runs.items()},
              "rates": {str(lr): [[step, round(a, 6), round(b, 6)] for step, a, b in r.curve] for lr, r in rates.items()},
              "samples": [[step, s] for step, s in first.samples]}
    (args.out_dir / "tiny_runs.json").write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n",
                                                 encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
