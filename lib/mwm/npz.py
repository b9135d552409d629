"""The one writer of the course's weight files (chapters 5, 9, 12, 14): ``.npz`` whose bytes depend only on the arrays.

``numpy.savez`` stamps every member with the current time, so two identical training
runs would write different bytes and a test could not check that a script rebuilds its
committed file. :func:`save_npz` fixes every date to 1980-01-01 and writes each array in
C order with ``numpy.lib.format.write_array`` (no pickles). ``numpy.load`` reads the
result like any ``.npz``.

The three committed formats, kept byte for byte:

* ``data/char_lm.npz`` (``scripts/train_char_lm.py``): stored, members in the order given;
* ``data/memory_task_weights.npz`` (``scripts/train_memory_task.py``): deflated, sorted;
* ``data/translator_*.npz`` (``scripts/train_translator.py``, :func:`mwm.seq2seq.save_weights`):
  deflated, sorted, file mode 0644.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

#: The fixed date of every member (the earliest a zip file can hold).
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def save_npz(path, arrays, *, compress: bool = True, sort: bool = True, file_mode: int | None = None) -> None:
    """Write ``arrays`` to ``path`` as an ``.npz``, reproducibly: equal arrays give equal bytes.

    Args:
        path: the file to write (its folder is created if missing).
        arrays: mapping name -> array (numeric or str; 0-d arrays stay 0-d). Names must be
            non-empty strings.
        compress: deflate every member (True) or store it as is (False).
        sort: write the members sorted by name (True) or in the mapping's order.
        file_mode: Unix permission bits recorded for each member (e.g. 0o644), or None to
            record none.

    Raises:
        ValueError: if ``arrays`` is empty, a name is not a non-empty string, or an array
            holds Python objects (it would need a pickle).

    Example:
        >>> import tempfile, hashlib
        >>> d = tempfile.mkdtemp()
        >>> save_npz(f"{d}/a.npz", {"w": np.arange(3.0)}); save_npz(f"{d}/b.npz", {"w": np.arange(3.0)})
        >>> open(f"{d}/a.npz", "rb").read() == open(f"{d}/b.npz", "rb").read()
        True
        >>> np.load(f"{d}/a.npz")["w"].tolist()
        [0.0, 1.0, 2.0]
    """
    if not hasattr(arrays, "keys") or len(arrays) == 0:
        raise ValueError("arrays must be a non-empty mapping name -> array")
    names = list(arrays)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ValueError(f"arrays' names must be non-empty strings, got {name!r}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=method) as zf:
        for name in (sorted(names) if sort else names):
            value = np.asarray(arrays[name])
            if value.dtype == object:
                raise ValueError(f"arrays[{name!r}] holds Python objects; only numeric and str arrays are written")
            if value.ndim and not value.flags.c_contiguous:
                value = np.ascontiguousarray(value)
            buf = io.BytesIO()
            np.lib.format.write_array(buf, value, allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=ZIP_DATE)
            info.compress_type = method
            if file_mode is not None:
                info.external_attr = file_mode << 16
            zf.writestr(info, buf.getvalue())
