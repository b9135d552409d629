"""Draw the course's cell diagrams as small hand-laid SVG files in chapters/figures/.

Usage (from the project root): ``python scripts/book/draw_figures.py`` rewrites

* ``unrolled-cell.svg``: the plain cell unrolled over three steps (chapter 3);
* ``lstm-cell.svg``: one LSTM step (chapter 9);
* ``gru-cell.svg``: one GRU step, in the course's convention (chapter 10);
* ``encoder-decoder.svg``: the translator of chapter 12;
* ``encoder-decoder-attention.svg``: the same with attention (chapter 14).

The output depends on nothing but this file (no randomness, no dates), so running it
twice gives the same bytes; ``tests/test_diagrams.py`` checks that the committed files
are exactly what it draws, and that they stay readable: a viewBox and no fixed size, a
<title> and a <desc>, every text at least 14 units, a light background.

Letters follow the notation table of intro.md: bold italic for vectors, italic for
matrices and scalars; subscripts are shifted with ``dy`` (which every browser honours)
and drawn at 14 units, the smallest size the figures use. Meaning never rests on colour
alone: every arrow that carries a weight is labelled with its letter.
"""
from __future__ import annotations

from pathlib import Path

FIGURES = Path(__file__).resolve().parents[2] / "chapters" / "figures"

SERIF = "'DejaVu Serif', 'Times New Roman', Times, serif"
SANS = "'DejaVu Sans', Arial, Helvetica, sans-serif"
BACKGROUND = "#f7f7f2"
INK = "#1a1a1a"
#: Arrow colours (all dark enough on the background; every arrow also carries a label).
COLOURS = {"ink": INK, "w": "#7a4b00", "u": "#1b4f9c", "v": "#00695c", "gate": "#8e2c00", "grey": "#555555"}
MATH, SUB, SMALL = 18, 14, 15
SUB_SHIFT = 5


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Figure:
    """An SVG drawing: primitives append elements; :meth:`svg` returns the file's text."""

    def __init__(self, width: int, height: int, title: str, desc: str):
        self.width, self.height, self.title, self.desc = width, height, title, desc
        self.items: list[str] = []

    # ---- text
    def math(self, x, y, *parts, anchor="middle", size=MATH):
        """Maths text. Parts: ("h", "v") bold-italic vector, ("W", "i") italic,
        ("t−1", "sub") subscript, ("dec", "sup") superscript, ("=", "r") upright."""
        spans, level = [], 0
        for text, kind in parts:
            attrs = []
            target = {"sub": SUB_SHIFT, "sup": -8}.get(kind, 0)
            if target != level:
                attrs.append(f'dy="{target - level}"')
                level = target
            if kind in ("sub", "sup"):
                attrs.append(f'font-size="{SUB}" font-style="italic"')
            elif kind == "v":
                attrs.append('font-style="italic" font-weight="bold"')
            elif kind == "i":
                attrs.append('font-style="italic"')
            spans.append(f"<tspan {' '.join(attrs)}>{_esc(text)}</tspan>" if attrs else _esc(text))
        self.items.append(f'<text x="{x}" y="{y}" font-family="{SERIF}" font-size="{size}" '
                          f'text-anchor="{anchor}" fill="{INK}">{"".join(spans)}</text>')

    def words(self, x, y, text, anchor="middle", size=SMALL, italic=False, colour=INK):
        style = ' font-style="italic"' if italic else ""
        self.items.append(f'<text x="{x}" y="{y}" font-family="{SANS}" font-size="{size}"{style} '
                          f'text-anchor="{anchor}" fill="{colour}">{_esc(text)}</text>')

    # ---- shapes
    def box(self, x, y, w, h, fill="#e4efe0", rx=8, dash=False):
        d = ' stroke-dasharray="6 4"' if dash else ""
        self.items.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" fill="{fill}" '
                          f'stroke="{INK}" stroke-width="1.6"{d}/>')

    def node(self, x, y, symbol, r=13):
        """A small circle holding an operation: ×, +, ⊙."""
        self.items.append(f'<circle cx="{x}" cy="{y}" r="{r}" fill="#ffffff" stroke="{INK}" stroke-width="1.6"/>')
        self.items.append(f'<text x="{x}" y="{y + 6}" font-family="{SERIF}" font-size="18" '
                          f'text-anchor="middle" fill="{INK}">{symbol}</text>')

    def dot(self, x, y, colour="ink"):
        self.items.append(f'<circle cx="{x}" cy="{y}" r="3.5" fill="{COLOURS[colour]}"/>')

    def line(self, points, colour="ink", arrow=True, dash=False, width=2.0, hop=None):
        """A polyline through ``points``; ``hop`` = (x, y) draws a small bridge over a crossing line."""
        d = f"M {points[0][0]} {points[0][1]}"
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            if hop and y0 == y1 == hop[1] and min(x0, x1) < hop[0] < max(x0, x1):
                s = 1 if x1 > x0 else -1
                d += f" L {hop[0] - 7 * s} {y0} A 7 7 0 0 {1 if s > 0 else 0} {hop[0] + 7 * s} {y0}"
            d += f" L {x1} {y1}"
        extra = ' stroke-dasharray="7 5"' if dash else ""
        marker = f' marker-end="url(#head-{colour})"' if arrow else ""
        self.items.append(f'<path d="{d}" fill="none" stroke="{COLOURS[colour]}" stroke-width="{width}"'
                          f'{extra}{marker}/>')

    def svg(self) -> str:
        heads = "".join(
            f'<marker id="head-{name}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="10" '
            f'markerHeight="10" markerUnits="userSpaceOnUse" orient="auto">'
            f'<path d="M 0 0 L 10 5 L 0 10 z" fill="{colour}"/></marker>'
            for name, colour in COLOURS.items())
        body = "\n".join(self.items)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {self.height}" '
                f'role="img" aria-labelledby="title desc">\n'
                f'<title id="title">{_esc(self.title)}</title>\n<desc id="desc">{_esc(self.desc)}</desc>\n'
                f"<defs>{heads}</defs>\n"
                f'<rect x="0" y="0" width="{self.width}" height="{self.height}" fill="{BACKGROUND}"/>\n'
                f"{body}\n</svg>\n")


# --------------------------------------------------------------------------- (a) unrolled cell
def unrolled_cell() -> Figure:
    f = Figure(720, 400, "The plain recurrent cell, unrolled over three steps",
               "Three identical boxes stand in a row, one per step; each applies tanh. The hidden state h of step "
               "t−2 enters the first box from the left through the recurrent matrix W. Each box also takes "
               "its input from below, x of step t−1, t and t+1, through the input matrix U, and the bias b. "
               "Each box hands its new hidden state, h of step t−1, t and t+1, to the right through the same W. "
               "From every new hidden state a dashed arrow goes up through the read-out matrix V to the logits y of "
               "that step. The same W, U and b serve every step.")
    f.words(360, 30, "one cell, drawn once per step: the same W, U and b in every box")
    steps = [("t−1", "t−2"), ("t", "t−1"), ("t+1", "t")]
    xs = [130, 330, 530]
    mid = 215
    f.math(14, mid - 12, ("h", "v"), ("t−2", "sub"), anchor="start")
    f.line([(20, mid), (xs[0], mid)], "w")
    f.math(100, mid - 10, ("W", "i"))
    for k, ((now, _), x) in enumerate(zip(steps, xs)):
        f.box(x, mid - 30, 100, 60)
        f.words(x + 50, mid + 6, "tanh", size=17)
        # the input, through U
        f.math(x + 40, 345, ("x", "v"), (now, "sub"))
        f.line([(x + 40, 325), (x + 40, mid + 30)], "u")
        f.math(x + 52, 290, ("U", "i"), anchor="start")
        # the bias
        f.math(x + 86, 318, ("b", "v"))
        f.line([(x + 86, 300), (x + 86, mid + 30)], "grey")
        f.words(x + 50, 380, f"step {now}", size=SMALL, colour=COLOURS["grey"])
        # the new hidden state: to the right through W, and up to the read-out
        j = x + 118
        end = xs[k + 1] if k + 1 < len(xs) else 706
        f.line([(x + 100, mid), (end, mid)], "w")
        f.dot(j, mid, "w")
        f.math(j + 4, mid + 26, ("h", "v"), (now, "sub"), anchor="start")
        if k + 1 < len(xs):
            f.math(end - 22, mid - 10, ("W", "i"))
        f.line([(j, mid), (j, 92)], "v", dash=True)
        f.math(j + 8, 150, ("V", "i"), anchor="start")
        f.math(j, 78, ("y", "v"), (now, "sub"))
    return f


# --------------------------------------------------------------------------- (b) LSTM cell
def lstm_cell() -> Figure:
    f = Figure(720, 440, "One step of the LSTM",
               "The cell state runs along the top as a lane: c of step t−1 enters from the left, is "
               "multiplied entry by entry by the forget gate f_t, then receives the input gate i_t times "
               "the candidate c-tilde_t, and leaves on the right as c_t. Below, h of step t−1 from the left "
               "and the input x_t from below feed four boxes, each with its own weights: three sigmoid "
               "gates, f_t, i_t and o_t, and a tanh box that computes the candidate c-tilde_t. On the right, "
               "c_t passes through tanh and is multiplied by the output gate o_t to give the new hidden state h_t, "
               "which leaves on the right.")
    lane, row, bus = 90, 290, 370
    f.words(360, 28, "the cell state c runs along the top; four boxes read the previous hidden state and the input")
    f.math(14, lane - 12, ("c", "v"), ("t−1", "sub"), anchor="start")
    f.line([(20, lane), (177, lane)])
    f.node(190, lane, "⊙")
    f.line([(203, lane), (317, lane)])
    f.node(330, lane, "+")
    f.line([(343, lane), (706, lane)])
    f.math(700, lane - 12, ("c", "v"), ("t", "sub"), anchor="end")
    # inputs: the previous hidden state from the left, the input from below, joined on one bus
    f.math(14, bus - 12, ("h", "v"), ("t−1", "sub"), anchor="start")
    f.line([(20, bus), (470, bus)], arrow=False)
    f.math(110, 428, ("x", "v"), ("t", "sub"))
    f.line([(110, 410), (110, bus)], "u", arrow=False)
    f.dot(110, bus)
    gates = [(190, "σ", "f"), (290, "σ", "i"), (370, "tanh", "c~"), (470, "σ", "o")]
    for x, fn, _ in gates:
        f.dot(x, bus)
        f.line([(x, bus), (x, row + 20)])
        f.box(x - 30, row - 20, 60, 40, fill="#fbe3cf" if fn == "σ" else "#e4efe0")
        f.words(x, row + 6, fn, size=17)
    # forget gate to the lane's ⊙
    f.line([(190, row - 20), (190, lane + 13)], "gate")
    f.math(180, 190, ("f", "v"), ("t", "sub"), anchor="end")
    # input gate and candidate meet at ⊙, then go up to +
    f.line([(290, row - 20), (290, 200), (317, 200)], "gate")
    f.math(280, 245, ("i", "v"), ("t", "sub"), anchor="end")
    f.line([(370, row - 20), (370, 200), (343, 200)])
    f.math(380, 245, ("c̃", "v"), ("t", "sub"), anchor="start")
    f.node(330, 200, "⊙")
    f.line([(330, 187), (330, lane + 13)])
    # output: tanh of the lane, times the output gate
    f.dot(570, lane)
    f.line([(570, lane), (570, 121)])
    f.box(535, 121, 70, 32, fill="#e4efe0")
    f.words(570, 143, "tanh", size=17)
    f.line([(570, 153), (570, 187)])
    f.node(570, 200, "⊙")
    f.line([(470, row - 20), (470, 200), (557, 200)], "gate")
    f.math(460, 245, ("o", "v"), ("t", "sub"), anchor="end")
    f.line([(583, 200), (706, 200)])
    f.math(700, 188, ("h", "v"), ("t", "sub"), anchor="end")
    f.words(200, 410, "σ: a gate, each entry between 0 and 1", anchor="start", colour=COLOURS["grey"])
    f.words(200, 432, "⊙: entry-by-entry product", anchor="start", colour=COLOURS["grey"])
    f.words(600, 270, "every box has its", size=SMALL, colour=COLOURS["grey"])
    f.words(600, 290, "own W, U and b", size=SMALL, colour=COLOURS["grey"])
    return f


# --------------------------------------------------------------------------- (c) GRU cell
def gru_cell() -> Figure:
    f = Figure(720, 492, "One step of the GRU, in the course's convention",
               "The previous hidden state h_{t−1} runs along the top. It is multiplied entry by entry by one minus the "
               "update gate z_t, then receives z_t times the candidate h-tilde_t, and leaves on the right as "
               "h_t = (1 − z_t) ⊙ h_{t−1} + z_t ⊙ h-tilde_t. Below, the previous hidden state and the input x_t feed two "
               "sigmoid gates, the reset gate r_t and the update gate z_t. The reset gate multiplies the previous "
               "hidden state before it enters the tanh box that computes the candidate, "
               "h-tilde_t = tanh(W (r_t ⊙ h_{t−1}) + U x_t + b), which also reads the input x_t.")
    lane, mid, row, bus, xline = 110, 230, 320, 380, 418
    f.math(360, 30, ("h", "v"), ("t", "sub"), ("  =  (1 − ", "r"), ("z", "v"), ("t", "sub"), (") ⊙ ", "r"),
           ("h", "v"), ("t−1", "sub"), ("  +  ", "r"), ("z", "v"), ("t", "sub"), (" ⊙ ", "r"),
           ("h̃", "v"), ("t", "sub"), size=17)
    f.math(360, 58, ("h̃", "v"), ("t", "sub"), ("  =  tanh(", "r"), ("W", "i"), ("(", "r"), ("r", "v"),
           ("t", "sub"), (" ⊙ ", "r"), ("h", "v"), ("t−1", "sub"), (") + ", "r"), ("U", "i"), ("x", "v"),
           ("t", "sub"), (" + ", "r"), ("b", "v"), (")", "r"), size=17)
    # the lane
    f.math(14, lane - 12, ("h", "v"), ("t−1", "sub"), anchor="start")
    f.line([(20, lane), (317, lane)])
    f.dot(80, lane)
    f.node(330, lane, "⊙")
    f.line([(343, lane), (657, lane)])
    f.node(670, lane, "+")
    f.line([(683, lane), (716, lane)])
    f.math(714, lane - 16, ("h", "v"), ("t", "sub"), anchor="end")
    # the previous hidden state goes down to the reset product and the gates' bus
    f.line([(80, lane), (80, bus)], arrow=False)
    f.dot(80, mid)
    f.line([(80, mid), (187, mid)])
    f.line([(80, bus), (330, bus)], arrow=False)
    # the input joins the bus and also runs on to the candidate
    f.math(130, 462, ("x", "v"), ("t", "sub"))
    f.line([(130, 444), (130, bus)], "u", arrow=False)
    f.dot(130, bus, "u")
    f.dot(130, xline, "u")
    f.line([(130, xline), (520, xline), (520, mid + 20)], "u")
    f.math(530, 400, ("U", "i"), anchor="start")
    for x in (200, 330):               # reset gate r, update gate z
        f.dot(x, bus)
        f.line([(x, bus), (x, row + 20)])
        f.box(x - 30, row - 20, 60, 40, fill="#fbe3cf")
        f.words(x, row + 6, "σ", size=17)
    # reset gate times previous hidden state, into the candidate through W
    f.line([(200, row - 20), (200, mid + 13)], "gate")
    f.math(190, 280, ("r", "v"), ("t", "sub"), anchor="end")
    f.node(200, mid, "⊙")
    f.line([(213, mid), (480, mid)], hop=(330, mid))
    f.math(460, mid - 10, ("W", "i"))
    f.box(480, mid - 20, 80, 40, fill="#e4efe0")
    f.words(520, mid + 6, "tanh", size=17)
    f.line([(560, mid), (617, mid)])
    f.math(588, mid - 10, ("h̃", "v"), ("t", "sub"))
    f.node(630, mid, "⊙")
    f.line([(643, mid), (670, mid), (670, lane + 13)])
    # update gate: 1 − z_t to the lane, z_t to the candidate's product
    f.line([(330, row - 20), (330, 170)], "gate", arrow=False)
    f.dot(330, 170, "gate")
    f.line([(330, 170), (330, 158)], "gate")
    f.box(308, 134, 44, 24, fill="#ffffff", rx=4)
    f.words(330, 152, "1 −", size=SMALL)
    f.line([(330, 134), (330, lane + 13)], "gate")
    f.line([(330, 170), (630, 170), (630, mid - 13)], "gate")
    f.math(340, 280, ("z", "v"), ("t", "sub"), anchor="start")
    f.words(230, 462, "σ: a gate, each entry between 0 and 1", anchor="start", colour=COLOURS["grey"])
    f.words(230, 484, "⊙: entry-by-entry product", anchor="start", colour=COLOURS["grey"])
    return f


# --------------------------------------------------------------------------- (d), (e) translator
def _encoder(f: Figure, top: int, heading_y: int):
    """Encoder boxes for x_1, x_2, ..., x_T and the summary box s; returns the x of each box's middle."""
    f.words(160, heading_y, "encoder: reads the English words", colour=COLOURS["grey"])
    cells = [(20, "1", "where"), (120, "2", "is"), (250, "T", "station")]
    exits = []
    for x, sub, word in cells:
        f.box(x, top, 60, 50)
        f.words(x + 30, top + 30, "LSTM")
        f.line([(x + 30, top + 110), (x + 30, top + 50)], "u")
        f.math(x + 30, top + 130, ("x", "v"), (sub, "sub"))
        f.words(x + 30, top + 152, f"“{word}”", italic=True)
        exits.append(x + 30)
    f.line([(80, top + 25), (120, top + 25)], "w")
    f.math(100, top + 15, ("h", "v"), ("1", "sub"))
    f.line([(180, top + 25), (250, top + 25)], "w", dash=True)
    f.math(200, top + 15, ("h", "v"), ("2", "sub"))
    f.words(228, top + 16, "⋯", size=18)
    # the last hidden state and cell state become the summary
    f.line([(310, top + 25), (372, top + 25)], "w")
    f.math(340, top + 15, ("h", "v"), ("T", "sub"), (", ", "r"), ("c", "v"), ("T", "sub"), size=16)
    f.box(372, top + 5, 46, 40, fill="#ffffff")
    f.math(395, top + 31, ("s", "v"))
    f.math(395, top + 72, ("s", "v"), (" = [", "r"), ("h", "v"), ("T", "sub"), (" ; ", "r"), ("c", "v"),
           ("T", "sub"), ("]", "r"), size=16)
    return exits


def encoder_decoder() -> Figure:
    f = Figure(720, 350, "The encoder-decoder translator",
               "On the left, the encoder, an LSTM, reads the English words x_1, x_2, ..., x_T one at a time "
               "and leaves a hidden state after each, h_1, h_2, ..., h_T. Its last hidden state and cell state, h_T and c_T, "
               "form the summary s, the only thing handed to the decoder. On the right, the decoder, a second "
               "LSTM, starts from s. At each step it reads the word it wrote one step earlier (the start "
               "symbol at first), and its read-out V turns its hidden state into probabilities for the next Hindi "
               "word: station, kahan, hai, and so on until the end symbol.")
    top = 140
    _encoder(f, top, top - 100)
    f.line([(418, top + 25), (458, top + 25)], "w")
    f.words(580, top - 100, "decoder: writes the Hindi words", colour=COLOURS["grey"])
    reads = ["<start>", "station", "kahan"]
    writes = ["station", "kahan", "hai"]
    for k, x in enumerate([458, 543, 628]):
        f.box(x, top, 58, 50, fill="#fdf0dc")
        f.words(x + 29, top + 30, "LSTM")
        f.line([(x + 29, top + 110), (x + 29, top + 50)], "u")
        f.words(x + 29, top + 130, reads[k], italic=True)
        f.line([(x + 29, top), (x + 29, top - 50)], "v")
        f.math(x + 37, top - 18, ("V", "i"), anchor="start")
        f.words(x + 29, top - 62, writes[k], italic=True)
        f.line([(x + 58, top + 25), (x + 85 if k < 2 else 712, top + 25)], "w", dash=k == 2)
    f.words(360, 335, "at each step the decoder reads the word it wrote one step earlier", colour=COLOURS["grey"])
    return f


def encoder_decoder_attention() -> Figure:
    f = Figure(720, 600, "The encoder-decoder translator with attention",
               "The encoder, an LSTM, reads the English words x_1, x_2, ..., x_T and keeps every hidden "
               "state, h_1, h_2, ..., h_T. Its last hidden state and cell state form the summary s, which "
               "starts the decoder, as without attention. At output step t the decoder first updates its own "
               "hidden state h_t^dec from the word it wrote one step earlier. The attention scores "
               "e_{t,j} = h_t^dec . h_j compare that state with every encoder state, and a softmax over j "
               "turns them into weights alpha_{t,j} that sum to 1. Their weighted sum of the encoder states, "
               "the context vector m_t = sum over j of alpha_{t,j} h_j, is read at this step. A combine layer, "
               "tanh(W_comb [h_t^dec ; m_t] + b_comb), joins the decoder's state and the context vector, and "
               "the read-out V turns the result into probabilities for word t. The drawing shows the read of "
               "one step t; every step makes its own.")
    top = 400
    states = _encoder(f, top, 585)
    # the summary still starts the decoder; earlier decoder steps are folded into the dashes
    f.line([(418, top + 25), (470, top + 25)], "w", dash=True)
    f.words(444, top + 15, "⋯", size=18)
    dx, hx = 470, 510
    f.box(dx, top, 80, 50, fill="#fdf0dc")
    f.words(hx, top + 30, "LSTM")
    f.line([(hx, top + 110), (hx, top + 50)], "u")
    f.words(hx, top + 130, "word t − 1", italic=True)
    f.words(hx, top + 152, "(written one step earlier)", colour=COLOURS["grey"])
    f.words(640, top + 72, "decoder, step t", colour=COLOURS["grey"])
    f.line([(dx + 80, top + 25), (712, top + 25)], "w")
    f.words(640, top + 15, "to step t + 1", colour=COLOURS["grey"])
    # every encoder state goes up to the weighted sum, with its weight
    sx, sy = 165, 185
    f.node(sx, sy, "Σ", r=16)
    ends = [(sx - 12, sy + 11), (sx, sy + 16), (sx + 12, sy + 11)]
    for x, (j, anchor, off), end in zip(states, [("1", "end", -8), ("2", "start", 8), ("T", "start", 8)], ends):
        f.dot(x, top, "v")
        f.line([(x, top), (x, 310), end], "v")
        f.math(x + off, 350, ("α", "i"), ("t," + j, "sub"), anchor=anchor)
    f.math(sx, sy - 32, ("m", "v"), ("t", "sub"), (" = Σ", "r"), ("j", "sub"), (" ", "r"), ("α", "i"),
           ("t,j", "sub"), (" ", "r"), ("h", "v"), ("j", "sub"), size=17)
    # the decoder's hidden state: scored against every encoder state, then combined with the context vector
    f.line([(hx, top), (hx, 205)])
    f.math(hx + 8, 350, ("h", "v"), ("t", "sub"), ("dec", "sup"), anchor="start")
    f.dot(hx, 262)
    f.line([(hx, 262), (252, 262)], dash=True)
    f.math(390, 290, ("scores ", "r"), ("e", "i"), ("t,j", "sub"), (" = ", "r"), ("h", "v"), ("t", "sub"),
           ("dec", "sup"), (" · ", "r"), ("h", "v"), ("j", "sub"), size=16)
    f.math(390, 314, ("softmax over ", "r"), ("j", "i"), (" gives ", "r"), ("α", "i"), ("t,j", "sub"), size=16)
    f.line([(sx + 16, sy), (365, sy)])
    f.math(300, sy - 10, ("m", "v"), ("t", "sub"))
    f.box(365, 160, 300, 45, fill="#e4efe0")
    f.math(515, 189, ("tanh(", "r"), ("W", "i"), ("comb", "sub"), (" [", "r"), ("h", "v"), ("t", "sub"),
           ("dec", "sup"), (" ; ", "r"), ("m", "v"), ("t", "sub"), ("] + ", "r"), ("b", "v"), ("comb", "sub"),
           (")", "r"), size=16)
    f.words(370, 150, "combine", anchor="start", colour=COLOURS["grey"])
    f.line([(515, 160), (515, 108)], "v")
    f.math(525, 140, ("V", "i"), anchor="start")
    f.words(515, 96, "probabilities for word t", italic=True)
    f.words(360, 36, "the read at one step t; every step makes its own", colour=COLOURS["grey"])
    return f


DRAWINGS = {
    "unrolled-cell.svg": unrolled_cell,
    "lstm-cell.svg": lstm_cell,
    "gru-cell.svg": gru_cell,
    "encoder-decoder.svg": encoder_decoder,
    "encoder-decoder-attention.svg": encoder_decoder_attention,
}


def draw_all() -> dict[str, str]:
    """File name -> SVG text, for every figure."""
    return {name: make().svg() for name, make in DRAWINGS.items()}


if __name__ == "__main__":
    FIGURES.mkdir(parents=True, exist_ok=True)
    for name, text in draw_all().items():
        (FIGURES / name).write_text(text, encoding="utf-8")
        print(f"{len(text.encode()):6d} bytes  chapters/figures/{name}")
