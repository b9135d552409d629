"""Forward pass + BPTT: lib's numpy cell against PyTorch autograd on the CPU, side by side.

Usage (from the project root):
    .venv/bin/python benchmarks/bptt_vs_torch.py [--reps 200]

Setting: hidden size 48, input size 32, 96 steps, batch 16, float64 on both sides,
one thread on both sides (set before numpy and torch are imported). Each repetition
times, in alternating order, one full training-shaped pass:

* lib:   ``hs = rnn_forward(...)``, then ``rnn_bptt(...)`` -> dW, dU, db;
* torch: ``torch.nn.RNN`` forward (its C++ time loop), then ``backward()`` -> the same
  three gradients (autograd; torch's two biases play our one ``b``);
* torch, Python loop: the same cell written as a loop of ``tanh(h @ W.T + x @ U.T + b)``
  in Python, then ``backward()`` (a second baseline, shaped like lib's loop).

The loss is ``sum_t <G_t, h_t>`` for a fixed random G, so dL/dh_t = G_t on both sides.
It prints the median time of each and the ratios lib / torch. Goal: lib within 2x of
``torch.nn.RNN``. The first repetitions are warm-up and are not counted. This is a
measurement, not a test.
"""
from __future__ import annotations

import argparse
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = "1"

import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

from mwm import rnn_bptt, rnn_forward  # noqa: E402

HIDDEN, INPUT, STEPS, BATCH = 48, 32, 96, 16


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="timed repetitions of each (default 200)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed repetitions first (default 20)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    W = rng.normal(0, 1 / np.sqrt(HIDDEN), (HIDDEN, HIDDEN))
    U = rng.normal(0, 1 / np.sqrt(INPUT), (HIDDEN, INPUT))
    b = rng.normal(0, 0.1, HIDDEN)
    xs = rng.normal(size=(STEPS, BATCH, INPUT))
    G = rng.normal(size=(STEPS, BATCH, HIDDEN))

    def lib_pass():
        hs = rnn_forward(xs, dict(W=W, U=U, b=b))[0]
        g = rnn_bptt(xs, hs, G, dict(W=W, U=U, b=b))
        return g.dW, g.dU, g.db

    rnn = torch.nn.RNN(INPUT, HIDDEN, nonlinearity="tanh").double()
    with torch.no_grad():
        rnn.weight_hh_l0.copy_(torch.from_numpy(W))
        rnn.weight_ih_l0.copy_(torch.from_numpy(U))
        rnn.bias_ih_l0.copy_(torch.from_numpy(b))
        rnn.bias_hh_l0.zero_()
    xt, Gt = torch.from_numpy(xs), torch.from_numpy(G)

    def torch_pass():
        rnn.zero_grad(set_to_none=True)
        out, _ = rnn(xt)
        (out * Gt).sum().backward()
        return rnn.weight_hh_l0.grad, rnn.weight_ih_l0.grad, rnn.bias_hh_l0.grad

    Wt, Ut, bt = (torch.from_numpy(a.copy()).requires_grad_() for a in (W, U, b))

    def torch_loop_pass():
        for p in (Wt, Ut, bt):
            p.grad = None
        h = torch.zeros(BATCH, HIDDEN, dtype=torch.float64)
        loss = 0.0
        for t in range(STEPS):
            h = torch.tanh(h @ Wt.T + xt[t] @ Ut.T + bt)
            loss = loss + (h * Gt[t]).sum()
        loss.backward()
        return Wt.grad, Ut.grad, bt.grad

    # The three must agree before they are timed.
    ref = lib_pass()
    for name, run in (("torch.nn.RNN", torch_pass), ("torch loop", torch_loop_pass)):
        diff = max(float(np.abs(a - g.detach().numpy()).max()) for a, g in zip(ref, run()))
        print(f"max |lib - {name}| over dW, dU, db: {diff:.1e}")
        assert diff < 1e-9, name

    runs = {"lib (numpy)": lib_pass, "torch.nn.RNN + autograd": torch_pass, "torch Python loop + autograd": torch_loop_pass}
    times = {name: [] for name in runs}
    order = list(runs)
    for rep in range(args.warmup + args.reps):
        for name in (order if rep % 2 == 0 else order[::-1]):   # interleaved, alternating order
            start = time.perf_counter()
            runs[name]()
            elapsed = time.perf_counter() - start
            if rep >= args.warmup:
                times[name].append(elapsed)

    print(f"hidden {HIDDEN}, input {INPUT}, {STEPS} steps, batch {BATCH}, float64, 1 thread; "
          f"median of {args.reps} interleaved repetitions (forward + BPTT):")
    med = {name: statistics.median(ts) * 1e3 for name, ts in times.items()}
    for name, ms in med.items():
        print(f"  {name:30s} {ms:8.3f} ms")
    lib = med["lib (numpy)"]
    print(f"ratio lib / torch.nn.RNN:         {lib / med['torch.nn.RNN + autograd']:.2f}  (goal: <= 2)")
    print(f"ratio lib / torch Python loop:    {lib / med['torch Python loop + autograd']:.2f}")


if __name__ == "__main__":
    main()
