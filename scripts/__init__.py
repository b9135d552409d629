"""The course's scripts, by audience (the teacher's commands are the package ``mwm_grader``, in grader/).

* ``scripts/``: the recipes that rebuild the course's data from fixed seeds: corpora, trained
  weights, sweeps (``checks.md`` lists each with its chapter). Each runs from the project root
  as ``.venv/bin/python scripts/NAME.py``, or, when it shares another recipe's code, as
  ``.venv/bin/python -m scripts.NAME``.
* ``scripts/book/``: the book's tools: the execution cache and panel drawing of ``make book``,
  executing a chapter for commit, the figures, the "How we checked" page, the prose count.

Tests import them as ``from scripts import NAME`` and ``from scripts.book import NAME``
(pytest puts the repository root on ``sys.path``).
"""
