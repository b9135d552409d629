"""The chapters' interactive "Try" panels: one builder per "Try", each returning a TryPanel.

Each builder returns a fresh ``ipywidgets`` container whose first render already shows
its figure; the ``draw_*`` function beside each builder returns (matplotlib Figure,
readings) for any setting, so a chapter or a test can draw a state without a widget.

| chapter | builders |
|---|---|
| 1 why order matters | :func:`running_note_try`, :func:`window_try` |
| 2 the recurrent cell | :func:`scalar_cell_try`, :func:`six_note_try` |
| 3 unrolling | :func:`unroll_try` |
| 4 many jobs, one cell | :func:`shapes_try`, :func:`next_word_try` |
| 5 a language model that talks | :func:`talk_try` |
"""
from .panel import TryPanel, figure_png
from .ch01_order import draw_running_note, draw_window, running_note_try, window_try
from .ch02_cell import draw_scalar_cell, draw_six_note, scalar_cell_try, six_note_try, six_note_weights
from .ch03_unroll import draw_unroll, unroll_try
from .ch04_jobs import draw_next_word, draw_shape, next_word_try, shapes_try
from .ch05_talk import draw_talk, talk_try

__all__ = [
    "TryPanel", "figure_png",
    "running_note_try", "window_try", "draw_running_note", "draw_window",
    "scalar_cell_try", "six_note_try", "draw_scalar_cell", "draw_six_note", "six_note_weights",
    "unroll_try", "draw_unroll",
    "shapes_try", "next_word_try", "draw_shape", "draw_next_word",
    "talk_try", "draw_talk",
]
