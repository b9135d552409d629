"""What runs in a student's kernel for the practice problems: nothing here computes an answer.

* :mod:`mwm_practice.notebook`: the practice notebook's :class:`~mwm_practice.notebook.Practice`:
  the student id, the problems as the teacher's tools gave them (a *view*: statements, given
  numbers, the form of each answer, and where allowed the checks of a part), answers handed in
  as data.
* :mod:`mwm_practice.checks`: the one-line answer checks (form, tolerance) the hand-in cells and
  the teacher's judge share.
* :mod:`mwm_practice.ids`: the one rule for a student id.

The teacher's side (the problems and each student's numbers, the judge, the sandbox, grading a
class) is the separate package ``mwm_grader`` (``grader/``): it imports this package, never the
reverse, and a student's environment does not install it.
"""
