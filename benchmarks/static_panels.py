"""How much faster the website's "Try" panels are drawn now (mwm.widgets.static).

Draws the same settings of one panel two ways, side by side in this process:

* before: every figure laid out with ``tight_layout``, saved as a full-colour PNG, decoded
  again and re-encoded with a median-cut palette, one setting after another (what the
  build did until the layout cache and the worker processes);
* now: :func:`mwm.widgets.static.static_states` (each figure geometry laid out once,
  rendered straight to an octree palette, settings shared among the worker processes;
  ``MWM_PANEL_WORKERS`` sets how many, default the usable cores).

Prints seconds for each and the ratio. Usage:
``.venv/bin/python benchmarks/static_panels.py [--panel tank_try] [--settings 40]``.
Not a test: times depend on the machine; compare the ratio.
"""
from __future__ import annotations

import argparse
import io
import time

from PIL import Image

import mwm.widgets as W
from mwm.widgets import static
from mwm.widgets.panel import figure_png


def before(panel, all_values) -> float:
    """Seconds to draw ``all_values`` as the build used to."""
    start = time.perf_counter()
    for values in all_values:
        fig, _ = panel._draw(values)  # layout() outside same_layout() runs tight_layout
        image = Image.open(io.BytesIO(figure_png(fig))).convert("RGB")
        image = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT)
        image.save(io.BytesIO(), format="PNG", optimize=True)
    return time.perf_counter() - start


def now(panel, all_values) -> float:
    """Seconds to draw ``all_values`` as the build does now."""
    start = time.perf_counter()
    static._draw_all(panel, all_values)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--panel", default="tank_try", help="a panel builder of mwm.widgets (default tank_try)")
    parser.add_argument("--settings", type=int, default=40, help="how many of its settings to draw (default 40)")
    args = parser.parse_args()
    panel = getattr(W, args.panel)()
    base = panel.values()
    all_values = []
    for name, control in panel.controls.items():  # one control at a time, as the site's "single" mode
        opts = static.control_options(control)
        if opts is None:
            continue
        for value in opts[1]:
            all_values.append(dict(base, **{name: value}))
    all_values = all_values[:args.settings]
    t_before, t_now = before(panel, all_values), now(panel, all_values)
    print(f"{args.panel}: {len(all_values)} settings; before {t_before:.1f} s, now {t_now:.1f} s "
          f"with {static.panel_workers(len(all_values) - 1)} worker(s): {t_before / t_now:.1f}x faster")


if __name__ == "__main__":
    main()
