"""The chapters' interactive "Try" panels: one builder per "Try", each returning a TryPanel.

Each builder returns a fresh ``ipywidgets`` container whose first render already shows
its figure; the ``draw_*`` function beside each builder returns (matplotlib Figure,
readings) for any setting, so a chapter or a test can draw a state without a widget.

| chapter | builders |
|---|---|
| 1 why order matters | :func:`running_state_try`, :func:`window_try` |
| 2 the recurrent cell | :func:`scalar_cell_try`, :func:`six_state_try` |
| 3 unrolling | :func:`unroll_try` |
| 4 many jobs, one cell | :func:`shapes_try`, :func:`next_word_try` |
| 6 backprop through time | :func:`step_machine_try` |
| 7 why memory fades or explodes | :func:`chain_try`, :func:`eigen_memory_try` |
| 8 clipping and a good start | :func:`cliff_try` |
| 9 the LSTM | :func:`tank_try`, :func:`memory_lab_try` |
| 10 the GRU | :func:`blend_dial_try`, :func:`ten_steps_try` |
| 11 reading both ways, and stacking layers | :func:`both_ways_try` |
| 12 encoder-decoder | :func:`translate_try`, :func:`bottleneck_try` |
| 13 choosing and grading words | :func:`beam_try`, :func:`bleu_try` |
| 14 the bottleneck | :func:`bottleneck_bleu_try`, :func:`attention_read_try` |
| 5 a language model that talks | :func:`talk_try` |
| 15 a model you own | :func:`tiny_try` |
"""
from .drawing import COLUMN_PX, COURSE_STYLE, DPI, MIN_TEXT_PX, smallest_text_px, use_course_style
from .panel import TryPanel, figure_png
from .ch01_order import draw_running_state, draw_window, running_state_try, window_try
from .ch02_cell import draw_scalar_cell, draw_six_state, scalar_cell_try, six_state_try, six_state_weights
from .ch03_unroll import draw_unroll, unroll_try
from .ch04_jobs import draw_next_word, draw_shape, next_word_try, shapes_try
from .ch06_bptt import draw_step_machine, step_machine, step_machine_try
from .ch07_fade import chain_try, draw_chain, draw_eigen_memory, eigen_memory_try
from .ch08_clip import cliff_try, draw_cliff
from .ch09_lstm import draw_memory_lab, draw_tank, memory_lab_try, tank_try
from .ch10_gru import blend_dial_try, draw_blend_dial, draw_ten_steps, ten_steps_try
from .ch11_both_ways import both_ways_try, draw_both_ways
from .ch12_translate import bottleneck_try, draw_bottleneck, draw_translate, translate_try
from .ch14_bottleneck import attention_read_try, bottleneck_bleu_try, draw_attention_read, draw_bleu_by_length
from .ch13_decode import beam_try, bleu_try, draw_beam, draw_bleu
from .ch05_talk import draw_talk, talk_try
from .ch15_tiny import draw_tiny, tiny_try

__all__ = [
    "TryPanel", "figure_png",
    "DPI", "COLUMN_PX", "MIN_TEXT_PX", "COURSE_STYLE", "use_course_style", "smallest_text_px",
    "running_state_try", "window_try", "draw_running_state", "draw_window",
    "scalar_cell_try", "six_state_try", "draw_scalar_cell", "draw_six_state", "six_state_weights",
    "unroll_try", "draw_unroll",
    "shapes_try", "next_word_try", "draw_shape", "draw_next_word",
    "step_machine_try", "draw_step_machine", "step_machine",
    "chain_try", "eigen_memory_try", "draw_chain", "draw_eigen_memory",
    "cliff_try", "draw_cliff",
    "tank_try", "memory_lab_try", "draw_tank", "draw_memory_lab",
    "blend_dial_try", "ten_steps_try", "draw_blend_dial", "draw_ten_steps",
    "both_ways_try", "draw_both_ways",
    "translate_try", "bottleneck_try", "draw_translate", "draw_bottleneck",
    "bottleneck_bleu_try", "draw_bleu_by_length", "attention_read_try", "draw_attention_read",
    "beam_try", "bleu_try", "draw_beam", "draw_bleu",
    "talk_try", "draw_talk",
    "tiny_try", "draw_tiny",
]
