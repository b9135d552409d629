"""A class roster read one way for answer keys, the hub, the gradebook's names and grading (teacher's side).

A roster is a CSV file with one student per row. :func:`read_roster_entries` reads it as a
spreadsheet saves it (Excel's "CSV UTF-8" with its byte-order mark, commas, semicolons or tabs)
and applies the course's one id rule (:func:`mwm_practice.ids.normalize_student_id`) to every
row: an id is lower-cased as JupyterHub logs users in, and an id the course cannot use, a
repeated id, an empty file or a file that is not UTF-8 is refused with a message that names the
row. Nothing is dropped without a word.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from mwm_practice.ids import normalize_student_id

__all__ = ["RosterError", "RosterEntry", "read_roster_entries", "read_roster", "ID_HEADERS"]

#: Column headings that name the student id, the most specific first (compared lower-cased, with
#: spaces and hyphens read as underscores: "Student ID" is student_id).
ID_HEADERS = ["student_id", "studentid", "student", "username", "user_name", "user", "login", "id"]
_FIRST = ["first_name", "firstname", "given_name", "forename", "first"]
_LAST = ["last_name", "lastname", "surname", "family_name", "last"]
_FULL = ["name", "full_name", "student_name", "display_name"]
_EMAIL = ["email", "e_mail", "mail", "email_address"]


class RosterError(ValueError):
    """A roster that cannot be read as it stands; the message names the file and the rows."""


@dataclass(frozen=True)
class RosterEntry:
    """One student of a roster: the id (normalized), names and email ("" when the roster has none), the row (from 1)."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    row: int = 0


def _heading(cell: str) -> str:
    return "_".join(cell.strip().lower().replace("-", " ").split())


def _column(header: list[str], names: list[str]):
    found = [n for n in names if n in header]
    return header.index(min(found, key=names.index)) if found else None


def read_roster_entries(path) -> list[RosterEntry]:
    """Every student of the roster at ``path``, in its order.

    The id column is the one headed ``student_id`` (as in the ``grades.csv`` that ``nbgrader
    export`` writes), ``Student ID``, ``student``, ``username``, ``user``, ``login`` or ``id``;
    without such a heading the first column, and the first row is data unless its first cell is
    not an id. Names come from ``first_name``/``last_name`` (or ``name``, split at its last
    space) and ``email`` columns when present.

    Args:
        path: the CSV file (str or Path).

    Returns:
        list of :class:`RosterEntry`, ids lower-cased and checked.

    Raises:
        RosterError: the file is missing, empty, not UTF-8, or has a row whose id the course
            cannot use, or two rows with the same id; the message lists every such row (up to 10).
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RosterError(f"roster {path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise RosterError(f"roster {path}: row {line} is not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the file "
                          "as UTF-8 (Excel: 'CSV UTF-8 (comma delimited)')") from None
    if not text.strip():
        raise RosterError(f"roster {path} is empty: one student per row (a column headed student_id, or the ids "
                          "in the first column)")
    try:
        dialect = csv.Sniffer().sniff(text.splitlines()[0], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    rows = [(n, row) for n, row in enumerate(csv.reader(io.StringIO(text), dialect), start=1)
            if any(cell.strip() for cell in row)]
    if not rows:
        raise RosterError(f"roster {path} holds no student")
    header = [_heading(c) for c in rows[0][1]]
    column = _column(header, ID_HEADERS)
    first = last = full = email = None
    if column is not None:
        first, last, full, email = (_column(header, names) for names in (_FIRST, _LAST, _FULL, _EMAIL))
        rows = rows[1:]
    else:
        column = 0
        try:
            normalize_student_id(rows[0][1][0])
        except ValueError:
            rows = rows[1:]  # a heading this reader does not know; the ids are the first column
    entries, problems, seen = [], [], {}

    def cell(row, i):
        return row[i].strip() if i is not None and i < len(row) else ""

    for n, row in rows:
        value = cell(row, column)
        try:
            sid = normalize_student_id(value)
        except (TypeError, ValueError) as exc:
            problems.append(f"row {n}: {exc}")
            continue
        if sid in seen:
            problems.append(f"rows {seen[sid]} and {n} are the same student {sid!r}")
            continue
        seen[sid] = n
        f, la = cell(row, first), cell(row, last)
        if not (f or la) and cell(row, full):
            f, _, la = cell(row, full).rpartition(" ")
            if not f:
                f, la = la, ""
        entries.append(RosterEntry(sid, f, la, cell(row, email), n))
    if problems:
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise RosterError(f"roster {path}: " + "; ".join(problems[:10]) + more)
    if not entries:
        raise RosterError(f"roster {path} holds no student id (one student per row; a column headed student_id, "
                          "or the ids in the first column)")
    return entries


def read_roster(path) -> list[str]:
    """The student ids of the roster at ``path`` (see :func:`read_roster_entries`, whose errors it raises)."""
    return [e.id for e in read_roster_entries(path)]
