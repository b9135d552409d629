"""How much the translator's inference gains from validating once at the door (chapters 9, 12-13).

Measures, at the translator's hidden size (H = 128):

* one LSTM step through the public, checked ``mwm.lstm_step`` and through the unchecked
  kernel ``mwm.lstm._lstm_step`` that the loops now run;
* one decoder step (``Translator.step``) and greedy decoding of one test sentence
  (``Translator.translate``), in this tree and in the tree of a git revision (``--before``,
  default ``BASELINE``, the last commit that checked every step), run side by side in two
  fresh interpreters.

Prints the times (best of several repeats, so CPU noise only ever adds) and the ratios.
Usage: ``.venv/bin/python benchmarks/translator_speed.py [--before REV]``. Not a test:
times depend on the machine; only the ratios are meant to be compared.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The last commit whose translator validated its input at every step.
BASELINE = "2749246"


def _best(fn, number, repeat=7) -> float:
    """Seconds per call: the best of ``repeat`` runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def measure() -> dict:
    """Time this interpreter's ``mwm`` (whichever is on sys.path); return seconds per call."""
    import inspect

    import numpy as np

    import mwm
    from mwm import lstm
    from mwm.seq2seq import load_translator
    from mwm.translation_corpus import load_pairs

    model = load_translator("plain")
    w, H = model.decoder_cell, model.hidden_size
    h, c, x = np.zeros(H), np.zeros(H), model.params["tgt_embedding"][5]
    if len(inspect.signature(lstm.lstm_step).parameters) == 4:     # the old API: (h_prev, c_prev, x, weights)
        def checked():
            return lstm.lstm_step(h, c, x, w)
    else:                                                          # the contract: (state, x, weights)
        state = lstm.LSTMState(h, c)

        def checked():
            return lstm.lstm_step(state, x, w)
    source = load_pairs("test")[0][0]
    start = model.decoder_start(source)
    words = model.translate(source)
    return {"mwm": str(Path(mwm.__file__).parent), "H": H, "source_words": len(source), "output_words": len(words),
            "checked_step": _best(checked, 2000), "kernel_step": _best(lambda: lstm._lstm_step(h, c, x, w), 2000),
            "decoder_step": _best(lambda: model.step(start, model.bos_id), 1000),
            "translate": _best(lambda: model.translate(source), 20)}


def _run(lib: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(lib), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--measure"], env=env, cwd=tempfile.gettempdir(),
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--before", default=BASELINE,
                        help=f"git revision to compare with (default {BASELINE}, the last that checked every step)")
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure()))
        return
    rev = args.before
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "lib.tar"
        subprocess.run(["git", "archive", "-o", str(archive), rev, "lib/mwm"], cwd=ROOT, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        before = _run(Path(tmp) / "lib")
        after = _run(ROOT / "lib")
    print(f"before = {rev[:10]}, after = this tree; H = {after['H']}; test sentence 1: "
          f"{after['source_words']} English words -> {after['output_words']} Hindi words")
    print(f"{'':34s}{'before':>12s}{'after':>12s}{'before/after':>14s}")
    for key, label in (("decoder_step", "one decoder step (Translator.step)"),
                       ("translate", "translate one test sentence")):
        b, a = before[key], after[key]
        print(f"{label:34s}{1e6 * b:10.1f}us{1e6 * a:10.1f}us{b / a:13.2f}x")
    print(f"one LSTM step, checked lstm_step vs unchecked kernel (this tree): "
          f"{1e6 * after['checked_step']:.1f}us vs {1e6 * after['kernel_step']:.1f}us, "
          f"{after['checked_step'] / after['kernel_step']:.2f}x")


if __name__ == "__main__":
    main()
