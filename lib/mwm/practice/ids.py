"""The one rule for student ids: what the course files, grades, keys and sets up (teacher's and student's side).

nbgrader files a submission in the exchange as ``<id>+<assignment>+<time>+<random>`` and as folders
named after the id, and JupyterHub uses the id as the user name: :func:`check_student_id` admits
only ids all of them can carry.
"""
from __future__ import annotations

import re

__all__ = ["ID_PATTERN", "check_student_id"]

#: Ids nbgrader can file: a letter or digit first, then letters, digits, ``.``, ``_``, ``-``
#: or ``@`` (JupyterHub user names); nbgrader's exchange separates fields with ``+``.
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")


def check_student_id(student_id) -> str:
    """Return ``student_id`` if nbgrader can file work under it.

    Args:
        student_id: the student's id (their JupyterHub user name, or any id the teacher gives).

    Returns:
        The id, unchanged.

    Raises:
        TypeError: ``student_id`` is not a str.
        ValueError: it is empty, longer than 64 characters, or holds a character other than
            letters, digits, ``.``, ``_``, ``-`` and ``@`` (nbgrader uses ``+`` and ``*`` itself).
    """
    if not isinstance(student_id, str):
        raise TypeError(f"student_id must be a str, got {type(student_id).__name__}")
    if not ID_PATTERN.fullmatch(student_id):
        raise ValueError(
            f"student_id {student_id!r} cannot be used: a student id is 1 to 64 letters, digits, '.', '_', '-' "
            "or '@', starting with a letter or digit (nbgrader files submissions as id+assignment+time)")
    return student_id
