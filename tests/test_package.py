"""The package's shape: ``mwm`` imports no torch, one npz writer rebuilds every committed weight file.

* Importing ``mwm`` and every one of its submodules leaves ``torch`` out of ``sys.modules``
  (checked in a fresh interpreter: this test process may have torch loaded already).
* :func:`mwm.npz.save_npz`, the writer every training script uses, rewrites each committed
  weight file byte for byte from its own arrays, in that file's format.
"""
import subprocess
import sys
from importlib.resources import files

import numpy as np
import pytest

from mwm.charlm import WEIGHTS_PATH
from mwm.npz import save_npz
from mwm.seq2seq import WEIGHT_FILES, save_weights

NO_TORCH = """
import importlib, pkgutil, sys
import mwm
names = [m.name for m in pkgutil.walk_packages(mwm.__path__, "mwm.")]
for name in names:
    importlib.import_module(name)
assert len(names) > 20, names
assert "torch" not in sys.modules, [m for m in sys.modules if m.startswith("torch")][:5]
print("ok", len(names))
"""


def test_mwm_and_every_submodule_import_without_torch():
    out = subprocess.run([sys.executable, "-c", NO_TORCH], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("ok")


def _arrays(path):
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}   # in the file's member order


@pytest.mark.parametrize("path, write", [
    (WEIGHTS_PATH, lambda p, a: save_npz(p, a, compress=False, sort=False)),                  # train_char_lm.py
    (WEIGHTS_PATH.with_name("char_lm_seed6.npz"), lambda p, a: save_npz(p, a, compress=False, sort=False)),
    (WEIGHTS_PATH.with_name("char_lm_seed7.npz"), lambda p, a: save_npz(p, a, compress=False, sort=False)),
    (WEIGHTS_PATH.with_name("char_lm_500steps.npz"), lambda p, a: save_npz(p, a, compress=False, sort=False)),
    (files("mwm").joinpath("data/memory_task_weights.npz"), lambda p, a: save_npz(p, a)),     # train_memory_task.py
    (files("mwm").joinpath("data/reset_gate_weights.npz"), lambda p, a: save_npz(p, a)),      # train_reset_gate.py
    (WEIGHT_FILES["plain"], save_weights),                                                     # train_translator.py
    (WEIGHT_FILES["attention"], save_weights),
    (WEIGHT_FILES["control"], save_weights),
], ids=["char_lm", "char_lm_seed6", "char_lm_seed7", "char_lm_500steps", "memory_task", "reset_gate", "translator_plain", "translator_attention", "translator_control"])
def test_the_one_npz_writer_rebuilds_every_committed_weight_file(tmp_path, path, write):
    out = tmp_path / "rebuilt.npz"
    write(out, _arrays(path))
    assert out.read_bytes() == path.read_bytes()


def test_save_npz_checks_its_arguments(tmp_path):
    with pytest.raises(ValueError, match="arrays must be a non-empty mapping"):
        save_npz(tmp_path / "a.npz", {})
    with pytest.raises(ValueError, match="names must be non-empty strings"):
        save_npz(tmp_path / "a.npz", {"": np.zeros(2)})
    with pytest.raises(ValueError, match="holds Python objects"):
        save_npz(tmp_path / "a.npz", {"x": np.array([{}, 1], dtype=object)})
