"""A problem's words live in a template beside its builder: ``p01.md.j2`` beside ``p01.py``.

The builder computes the numbers with ``mwm``; the template holds the statement, each part's
question and solution code, the worked steps and what to remember, as Markdown (maths in ``$...$``,
backslashes written once) and Python, with Jinja2 blocks and placeholders where the numbers go. A
change of wording is then a change of text that diffs line by line.

In a template, each piece is a block: ``title``, ``practises``, ``statement``, ``given`` (the code
cell that gives the numbers), ``question_<letter>`` / ``solution_<letter>`` per part (or one
``question`` and ``solution`` that take the part's variables), ``steps`` (one step per paragraph,
paragraphs separated by a blank line) and ``remember``. The filters are the number writers of
:mod:`.base`: ``{{ x|num }}`` (a given number), ``{{ x|fmt }}`` (four decimals; ``fmt(5)``,
``fmt(None, 3)`` for significant figures), ``fmt_list``, ``pnum``, ``par``, ``plus``, ``plus_num``,
``signed``, ``sci``, ``lit`` (a Python literal), ``tex_vec``, ``tex_matrix``, ``number_word``,
``and_list``.
"""
from __future__ import annotations

from functools import lru_cache

from . import base

#: The number writers a template may use as filters (see the module's docstring).
FILTERS = ("num", "fmt", "fmt_list", "pnum", "par", "plus", "plus_num", "signed", "sci", "lit", "tex_vec",
           "tex_matrix", "number_word", "and_list")


@lru_cache(maxsize=1)
def _environment():
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("mwm_grader", "problems"), undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False, autoescape=False)
    env.filters.update({name: getattr(base, name) for name in FILTERS})
    return env


class Text:
    """The template of problem ``number``, filled in with ``context`` (the builder's numbers).

    Args:
        number: the problem's number, 1-16 (its template is ``pNN.md.j2``).
        **context: the names the template's placeholders read.

    Raises:
        jinja2.TemplateNotFound: if the problem has no template.
    """

    def __init__(self, number: int, **context):
        self.template = _environment().get_template(f"p{number:02d}.md.j2")
        self.context = context

    def __call__(self, block: str, **more) -> str:
        """The text of ``block``, without the line breaks that open and close it.

        Args:
            block: a block of the template, e.g. ``"statement"`` or ``"question_a"``.
            **more: names added for this block only (a part's index, say).

        Returns:
            str: Markdown or Python.

        Raises:
            KeyError: if the template has no such block. jinja2.UndefinedError: if it reads a name not given.
        """
        if block not in self.template.blocks:
            raise KeyError(f"{self.template.name} has no block {block!r}")
        context = self.template.new_context({**self.context, **more})
        try:
            return "".join(self.template.blocks[block](context)).strip("\n")
        except Exception:   # Jinja's own mapping: the traceback names the template's line, not the block's end
            return self.template.environment.handle_exception()

    def paragraphs(self, block: str, **more) -> list[str]:
        """The text of ``block`` cut at its blank lines: one entry per paragraph (the worked steps)."""
        return [p.strip("\n") for p in self(block, **more).split("\n\n") if p.strip()]
