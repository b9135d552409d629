"""The notebook checks once more, on other numerical kernels.

nbval (``--nbval`` in pytest.ini) compares every chapter's and the instructor practice
notebook's committed outputs with a fresh run on this machine's best kernels. This file
runs the same comparison a second time in a child pytest whose environment selects
other kernels: PyTorch's portable CPU code (no AVX2/AVX-512) and MKL's compatible mode,
numpy's loops without AVX2/AVX-512, and one BLAS and OpenMP thread. Committed outputs
must match both, so they cannot depend on the CPU. (OpenBLAS's own kernel choice,
``OPENBLAS_CORETYPE``, is left to the machine: some machines set it because other kernels
fail there.) Run as one test so that, under ``pytest -n``, it overlaps the other work.
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The environment of the second pass.
PORTABLE = {
    "ATEN_CPU_CAPABILITY": "default",
    "MKL_CBWR": "COMPATIBLE",
    "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
NOTEBOOK_PATHS = ["chapters", "exercises/source"]


def _portable_env() -> dict:
    return dict(os.environ, **PORTABLE)


def test_the_portable_environment_selects_other_kernels():
    probe = ("import numpy, torch; "
             "print(torch.backends.cpu.get_cpu_capability()); "
             "from numpy._core._multiarray_umath import __cpu_features__ as f; "
             "print(f.get('X86_V3'), f.get('X86_V4'))")
    out = subprocess.run([sys.executable, "-c", probe], env=_portable_env(), capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["DEFAULT", "False", "False"], out


def test_every_notebook_matches_its_outputs_on_portable_kernels():
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-q", "--no-header", *NOTEBOOK_PATHS],
                            env=_portable_env(), cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert " passed" in result.stdout.splitlines()[-1], result.stdout[-500:]
