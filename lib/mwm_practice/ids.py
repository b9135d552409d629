"""The one rule for student ids: what the course files, grades, keys and sets up (teacher's and student's side).

nbgrader files a submission in the exchange as ``<id>+<assignment>+<time>+<random>`` and as folders
named after the id, and JupyterHub uses the id as the user name, lower-cased: :func:`check_student_id`
admits only ids all of them can carry, and ids are read without regard to case (a student's
numbers are those of the lower-cased id, :func:`mwm_grader.variants.numbers_for`), so a roster's
"Mary.Jones" and the hub's "mary.jones" are one student. :func:`normalize_student_id` is what a
roster row, a ``make key`` argument or a hub login goes through.
"""
from __future__ import annotations

import re

__all__ = ["ID_PATTERN", "RULE", "check_student_id", "normalize_student_id"]

#: Ids nbgrader can file: a letter or digit first, then letters, digits, ``.``, ``_``, ``-``
#: or ``@`` (JupyterHub user names); nbgrader's exchange separates fields with ``+``.
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
#: The rule in words, as messages and the hub's login page give it.
RULE = ("1 to 64 characters: the letters a-z (no accents), digits, '.', '_', '-' or '@', starting with a letter "
        "or digit")


def check_student_id(student_id) -> str:
    """Return ``student_id`` if nbgrader can file work under it.

    Args:
        student_id: the student's id (their JupyterHub user name, or any id the teacher gives).

    Returns:
        The id, unchanged.

    Raises:
        TypeError: ``student_id`` is not a str.
        ValueError: it is empty, longer than 64 characters, or holds a character other than
            the letters a-z and A-Z, digits, ``.``, ``_``, ``-`` and ``@`` (nbgrader uses ``+`` and
            ``*`` itself).
    """
    if not isinstance(student_id, str):
        raise TypeError(f"student_id must be a str, got {type(student_id).__name__}")
    if not ID_PATTERN.fullmatch(student_id):
        raise ValueError(f"student_id {student_id!r} cannot be used: a student id is {RULE} (nbgrader files "
                         "submissions as id+assignment+time, and JupyterHub uses it as the user name)")
    return student_id


def normalize_student_id(raw) -> str:
    """The id ``raw`` stands for: stripped of surrounding spaces, lower-cased, then checked.

    Args:
        raw: str, e.g. a roster's cell ``" Mary.Jones "``.

    Returns:
        str, e.g. ``"mary.jones"`` (what JupyterHub logs that user in as).

    Raises:
        TypeError: ``raw`` is not a str.
        ValueError: the result breaks the rule (:data:`RULE`); the message names the value.
    """
    if not isinstance(raw, str):
        raise TypeError(f"student_id must be a str, got {type(raw).__name__}")
    return check_student_id(raw.strip().lower())
