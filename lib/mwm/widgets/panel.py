"""The frame every chapter's "Try" is built on.

A :class:`TryPanel` is an ``ipywidgets.VBox``: a title, a row of controls, a figure
and an optional line of readings. Whenever a control changes, the panel asks its
``draw`` function for a new matplotlib figure and shows it as a PNG in an
``ipywidgets.Image``. The figure is drawn once when the panel is built, so the first
display already shows a meaningful picture.

When a notebook is turned into the website, the panel's display also carries that
first picture as a plain ``image/png`` (see ``_repr_mimebundle_``), so a page read
without a running kernel shows the figure instead of an empty box. During the book
build (``MWM_STATIC_PANELS=1``) it also carries a ``text/html`` twin with the figure of
every setting and browser-side controls (:mod:`mwm.widgets.static`), which the website
shows instead. In Jupyter the live widget is shown.

Panels keep no global state: each builds its own figures with
``matplotlib.figure.Figure`` (never ``pyplot``) and keeps only its controls' values.
"""
from __future__ import annotations

import base64
import io
from typing import Callable, Mapping

import ipywidgets as widgets
from matplotlib.figure import Figure

from .drawing import DPI, in_course_style
from .static import static_enabled, static_html

#: DPI: resolution of every panel's picture, in dots per inch (defined in drawing.py; static.py reads it here).


def figure_png(fig: Figure) -> bytes:
    """Render a matplotlib figure to PNG bytes, reproducibly (no software or date stamp)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


class TryPanel(widgets.VBox):
    """A live "Try" panel: named controls, a figure redrawn from their values, readings.

    Args:
        title: one line shown above the controls.
        controls: name -> ipywidgets value widget (slider, toggle buttons, dropdown...).
            Each control's ``value`` is passed to ``draw`` under its name.
        draw: function(values: dict) -> (Figure, readings: str). The readings string
            (may be empty) is shown under the figure as HTML.

    Attributes:
        controls: the mapping given. ``image``: the ipywidgets.Image with the PNG.
        readings: the ipywidgets.HTML under the figure.
        live_only: None, or a phrase naming what the panel does only in Jupyter (extra
            widgets outside ``controls``, such as a text box), e.g. "type your own
            candidate". The website's static twin tells the reader to run the chapter
            for it.
        tour: the chapter's instructions for this panel, in the text's order: a list of steps
            {"says": the instruction as the chapter words it (a verbatim piece of its text),
            "moves": {control: value} (in the order the text makes them, from where the step
            before left the controls; empty for "look at ..."), "expect": [substrings the
            readings then show], and "same_picture": True for moves that change only the
            readings}. The website draws every setting the tour passes through (every notch of
            a slider it moves, and its moves made in any order) even when it cannot draw every
            combination; the tests replay it on the page and check the text quotes it.
        combined: groups of control names (tuples) whose lesson is their combination, such as
            chapter 2's w with the number of steps: the website draws every combination of each
            group's values, the other controls at their start.
        describe: None, or a function(values) -> a sentence saying what the picture shows at
            those values (chapter 13's tree: which branches the beam cut, and where the most
            probable sentence was); the website puts it first in each picture's alt text.
        picture_key: None, or a function(values) -> a hashable key: settings with equal keys
            show the same picture (chapter 14's example sentence changes only the readings
            within its length bucket). The website draws one setting per key.
        readings_of: None, or a function(values) -> the readings alone, exactly what ``draw``
            gives with its figure; used with ``picture_key`` for the settings not drawn (without
            it, they share the drawn setting's readings too).
    """

    def __init__(self, title: str, controls: Mapping[str, widgets.ValueWidget],
                 draw: Callable[[dict], tuple[Figure, str]], **kwargs):
        self.title = title
        self.controls = dict(controls)
        self.live_only: str | None = None
        self.tour: list[dict] = []
        self.combined: list[tuple] = []
        self.describe: Callable[[dict], str] | None = None
        self.picture_key: Callable[[dict], object] | None = None
        self.readings_of: Callable[[dict], str] | None = None
        self._draw = in_course_style(draw)
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%", height="auto"))
        self.readings = widgets.HTML()
        header = widgets.HTML(f"<b>Try:</b> {title}")
        rows = [header]
        if self.controls:
            rows.append(widgets.HBox(list(self.controls.values()),
                                     layout=widgets.Layout(flex_flow="row wrap")))
        rows += [self.image, self.readings]
        super().__init__(rows, **kwargs)
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.redraw()

    @property
    def png(self) -> bytes:
        """The figure currently shown, as PNG bytes."""
        return bytes(self.image.value)

    def values(self) -> dict:
        """The current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def redraw(self) -> None:
        """Draw the figure for the current control values and show it."""
        fig, text = self._draw(self.values())
        self.image.value = figure_png(fig)
        self.readings.value = text

    def _on_change(self, _change) -> None:
        self.redraw()

    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs)
        # A kernel-free reader (the website) falls back to the current picture.
        bundle["image/png"] = base64.b64encode(self.png).decode("ascii")
        bundle["text/plain"] = f"Try: {self.title} (a live panel in Jupyter; the picture shows its first state)"
        if static_enabled():
            bundle["text/html"] = static_html(self)
        return bundle
