"""Execute notebooks in place, deterministically, so they can be committed with outputs.

Usage (from the project root, inside .venv):
    python scripts/book/execute_notebooks.py chapters/*.ipynb

Each notebook runs top to bottom in a fresh kernel started in its own folder. Cells
tagged ``hide-cell`` (pause-and-predict answers) are also marked collapsed for
JupyterLab, as the website folds them. Cell timings and widget state are not stored, so re-running an unchanged notebook
changes nothing but the widgets' random model ids. A cell that fails stops the
script with its error.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def coalesce_streams(outputs: list) -> list:
    """Merge consecutive stdout (or stderr) outputs into one, as nbval compares them.

    How a cell's prints are split into stream messages depends on timing; merging them
    keeps the committed file the same from run to run.
    """
    merged = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def execute(path: Path, timeout: int = 600) -> float:
    """Run one notebook in place; return the seconds it took."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
        if "hide-cell" in cell.metadata.get("tags", []):
            # The website folds these cells by their tag; JupyterLab folds them by this.
            cell.metadata["jupyter"] = {"source_hidden": True, "outputs_hidden": True}
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(paths: list[str]) -> None:
    if not paths:
        sys.exit(__doc__)
    for p in paths:
        seconds = execute(Path(p))
        print(f"{p}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
