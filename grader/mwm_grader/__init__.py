"""The teacher's side of the course's practice problems: only a teacher's environment installs it.

* :mod:`mwm_grader.problems`: the sixteen problems, built from their numbers (``NUMBERS``,
  the website's) with every answer computed by ``mwm``, each problem's words in a template
  beside its builder (``problems/pNN.md.j2``); :mod:`mwm_grader.variants`: every
  student's own numbers, derived from their student id; :mod:`mwm_grader.mistakes`: the slips
  each part's feedback can name.
* :mod:`mwm_grader.views`: what a student's kernel is given of the problems (statements, given
  numbers, the form of each answer, and where allowed a part's checks), as data for
  ``mwm_practice``, which never builds a problem itself.
* :mod:`mwm_grader.judge`, :mod:`mwm_grader.sandbox`, :mod:`mwm_grader.untrusted`: grading
  (nbgrader preprocessors): student code run in a sandbox, answers judged outside it, student
  content cleaned before any page a teacher opens shows it.
* :mod:`mwm_grader.hub`: the course on a JupyterHub (``c.CourseHub`` settings, read by
  ``hub/jupyterhub_config.py``).
* The teacher's commands, each with ``--help``: ``mwm-exercises`` (:mod:`~mwm_grader.make_exercises`),
  ``mwm-answer-keys``, ``mwm-grade`` (:mod:`~mwm_grader.grade_parallel`), ``mwm-gradebook``,
  ``mwm-roster``, ``mwm-student``, ``mwm-report``.

Imports go one way: this package imports ``mwm_practice`` and ``mwm``; neither imports it.
"""
from pathlib import Path

#: The course checkout the teacher's commands work in (this package is installed from its
#: ``grader/`` folder, editable): its ``exercises/``, ``students/``, ``reports/``.
COURSE_ROOT = Path(__file__).resolve().parents[2]
