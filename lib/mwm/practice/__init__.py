"""The course's practice problems: their numbers, statements, answers and grading.

* :mod:`mwm.practice.problems`: the sixteen problems, built from their numbers (``NUMBERS``,
  the website's) with every answer computed by ``mwm``.
* :mod:`mwm.practice.variants`: every student's own numbers, derived from their student id.
* :mod:`mwm.practice.notebook`: what the student's notebook runs (``Practice``): the id it
  works under, each problem shown with that id's numbers, answers handed in.
* :mod:`mwm.practice.judge` and :mod:`mwm.practice.sandbox`: the teacher's side of grading
  (nbgrader preprocessors): student code run in a sandbox, answers judged outside it.
"""
