"""Student content made inert before a teacher, or a classmate, opens it (teacher's side only).

Everything a student's notebook holds, and everything their code printed or displayed while it
was graded (in the sandbox, :mod:`mwm_grader.sandbox`), is data written by the student. None
of it may run as script, load a resource or restyle the page in any view a teacher opens: the
Formgrader's submission page, the feedback pages, the autograded notebook in JupyterLab. nbgrader
renders those pages with nbconvert, whose sanitizer is off by default, so this module cleans
student content where it enters the teacher's side, with a kept HTML sanitizer (``nh3``, the
Python binding of the Rust library ammonia), and nothing home-made:

* :func:`clean_notebook` rebuilds a notebook from what a teacher needs to read: every cell's
  source, the nbgrader metadata of graded cells, plain-text, PNG/JPEG/GIF, SVG (shown as an
  image, never inline), LaTeX, Markdown and JSON outputs, HTML outputs through
  :func:`clean_html`, image attachments, errors and streams. Script (``application/javascript``),
  widget views and state, unknown MIME types, other metadata (notebook title, cell tags, output
  metadata other than an image's size) are dropped; a raw cell becomes escaped text.
* :func:`clean_html` cleans one HTML fragment: the tags and attributes of text, lists, tables,
  code and images; links only to ``http``, ``https``, ``mailto`` and ``#`` anchors; images only from
  ``data:image/...`` or a plain relative path (a file handed in beside the notebook, which the
  Formgrader serves as an image or as text, :mod:`mwm_grader.guard`); no ``style``, ``class``
  other than code highlighting's, or ``id`` other than prefixed ``student-``.
* :class:`CleanStudentContent` runs :func:`clean_notebook` as an nbconvert/nbgrader preprocessor:
  in ``nbgrader autograde`` right after the answers are judged (so the autograded notebook on
  disk is clean), and again in every HTML page the course's nbgrader config renders (the
  Formgrader's page and ``generate_feedback``), where the templates also pass each markdown
  cell's rendered HTML through :func:`clean_html` (the ``clean_html`` filter).
* :class:`CourseCollect` is ``nbgrader collect`` that refuses a submission filed under an id the
  course cannot use (:func:`mwm_practice.ids.check_student_id`), and, where nbgrader checks who
  owns the files, one that names another student (nbgrader itself only warns and collects it);
  a notebook nbgrader could not read is kept aside and replaced (:func:`repair_unreadable`).

Wired in ``exercises/nbgrader_config.py``. What was tried against it is in ``tests/test_untrusted.py``
(every MIME type and markdown vector) and ``tests/test_teacher_pages.py`` (the pages, in Chromium).
"""
from __future__ import annotations

import base64
import binascii
import copy
import html as _html
import os
import re
from pathlib import Path

import nh3
from nbformat.notebooknode import NotebookNode, from_dict
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

__all__ = ["clean_html", "clean_notebook", "clean_output", "CleanStudentContent", "CourseCollect", "KEPT_MIME_TYPES",
           "ID_PREFIX", "TEMPLATE_DIR", "repair_unreadable"]

#: The course's copies of nbgrader's Formgrader and feedback templates (``formgrade/``, ``feedback/``).
TEMPLATE_DIR = str(Path(__file__).parent / "templates")
#: Prefix given to every ``id`` in student HTML, so that none can stand for one of the page's own.
ID_PREFIX = "student-"
_TEXT_TAGS = {"a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd", "del",
              "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6",
              "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span",
              "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul",
              "var"}
_ATTRIBUTES = {
    "a": {"href", "title"}, "abbr": {"title"}, "img": {"src", "alt", "title", "width", "height"},
    "td": {"colspan", "rowspan", "align"}, "th": {"colspan", "rowspan", "align", "scope"}, "ol": {"start"},
    "details": {"open"}, "col": {"span"}, "colgroup": {"span"},
    "h1": {"id"}, "h2": {"id"}, "h3": {"id"}, "h4": {"id"}, "h5": {"id"}, "h6": {"id"},
}


def _pygments_classes() -> set[str]:
    from pygments.token import STANDARD_TYPES

    return {name for name in STANDARD_TYPES.values() if name}


_CLASSES = {"div": {"highlight"}, "span": _pygments_classes(), "a": {"anchor-link"}}
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=\s]*", re.I)
_RELATIVE_FILE = re.compile(r"(?![./\\])[\w\-. ]+(?:/[\w\-. ]+)*")
_LINK = re.compile(r"(?:https?://|mailto:)[^\s\x00-\x1f]*|#[\w\-.:%]*", re.I)


def _attribute_filter(tag: str, attribute: str, value: str):
    if tag == "img" and attribute == "src":
        value = value.strip()
        if _DATA_IMAGE.fullmatch(value):
            return value
        if _RELATIVE_FILE.fullmatch(value) and ".." not in value.split("/") and ":" not in value:
            return value
        return None
    if tag == "a" and attribute == "href":
        value = value.strip()
        if value.startswith("#") and not value.startswith("#" + ID_PREFIX):
            value = "#" + ID_PREFIX + value[1:]  # the student's own anchors, never the page's
        return value if _LINK.fullmatch(value) else None
    if attribute in ("width", "height"):
        return value if re.fullmatch(r"\d{1,5}(?:px|%)?", value.strip()) else None
    return value


def clean_html(fragment) -> str:
    """Clean one HTML fragment written by a student (or by their code) for a teacher's page.

    Args:
        fragment: str or bytes (UTF-8), or any object whose ``str`` is HTML (a Jinja ``Markup``).

    Returns:
        str: the fragment with only text, lists, tables, code, images and safe links left (see
        the module's docstring). Text is kept, escaped where needed; ``<script>`` and ``<style>``
        elements go with their content.

    Raises:
        TypeError: ``fragment`` is None.

    Used as nbconvert's ``clean_html`` filter by the course's nbgrader config, so the templates'
    own sanitizing hooks (``HTMLExporter.sanitize_html``) call it.
    """
    if fragment is None:
        raise TypeError("fragment must be HTML text, got None")
    text = fragment.decode("utf-8", "replace") if isinstance(fragment, bytes) else str(fragment)
    return nh3.clean(text, tags=_TEXT_TAGS, clean_content_tags={"script", "style"}, attributes=_ATTRIBUTES,
                     attribute_filter=_attribute_filter, strip_comments=True, link_rel="noopener noreferrer nofollow",
                     url_schemes={"http", "https", "mailto", "data"}, allowed_classes=_CLASSES, id_prefix=ID_PREFIX)


#: The output MIME types a cleaned notebook keeps (text/html cleaned; the others are data, not markup).
KEPT_MIME_TYPES = ("text/plain", "text/html", "text/markdown", "text/latex", "image/png", "image/jpeg", "image/gif",
                   "image/svg+xml", "application/json")
_MAGIC = {"image/png": (b"\x89PNG\r\n\x1a\n",), "image/jpeg": (b"\xff\xd8\xff",), "image/gif": (b"GIF87a", b"GIF89a")}
_ATTACHMENT_TYPES = ("image/png", "image/jpeg", "image/gif", "image/svg+xml")
_SAFE_NAME = re.compile(r"[\w\-. ]{1,128}")
_CELL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_GRADE_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
#: A transparent 1x1 PNG, put in place of an attachment that was dropped or never there (nbconvert
#: refuses to render a markdown cell that names a missing attachment).
_BLANK_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII="


def _text(value) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(value)
    return None


def _image(mime: str, value) -> str | None:
    data = _text(value)
    if data is None:
        return None
    try:
        raw = base64.b64decode(data.strip(), validate=False)
    except (binascii.Error, ValueError):
        return None
    if mime in _MAGIC and not raw.startswith(_MAGIC[mime]):
        return None
    return data.strip()


def _svg(value) -> str | None:
    data = _text(value)
    return data if data is not None and "<svg" in data[:4096].lower() else None


def _size_metadata(meta) -> dict:
    kept = {}
    if not isinstance(meta, dict):
        return kept
    for mime in ("image/png", "image/jpeg", "image/gif"):
        sizes = meta.get(mime)
        if isinstance(sizes, dict):
            sizes = {k: int(v) for k, v in sizes.items()
                     if k in ("width", "height") and isinstance(v, (int, float)) and not isinstance(v, bool)
                     and 0 < v < 100_000}
            if sizes:
                kept[mime] = sizes
    return kept


def clean_output(output) -> dict:
    """One cell output, cleaned (see :func:`clean_notebook`).

    Args:
        output: an nbformat output (dict-like), untrusted.

    Returns:
        dict: a valid nbformat 4 output: a stream, an error, or a display/result whose data
        holds only :data:`KEPT_MIME_TYPES` (``text/html`` through :func:`clean_html`); what was
        dropped is said in its ``text/plain`` when nothing else is left.
    """
    kind = output.get("output_type") if isinstance(output, dict) else None
    if kind == "stream":
        text = _text(output.get("text")) or ""
        return {"output_type": "stream", "name": "stderr" if output.get("name") == "stderr" else "stdout",
                "text": text}
    if kind == "error":
        trace = output.get("traceback")
        trace = [t for t in trace if isinstance(t, str)] if isinstance(trace, list) else []
        return {"output_type": "error", "ename": _text(output.get("ename")) or "Error",
                "evalue": _text(output.get("evalue")) or "", "traceback": trace}
    if kind not in ("display_data", "execute_result"):
        return {"output_type": "stream", "name": "stdout", "text": "[an output nbformat does not know was removed]\n"}
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    kept, dropped = {}, []
    for mime, value in data.items():
        if mime in ("text/plain", "text/markdown", "text/latex"):
            text = _text(value)
            if text is not None:
                kept[mime] = text
        elif mime == "text/html":
            text = _text(value)
            if text is not None:
                kept[mime] = clean_html(text)
        elif mime in ("image/png", "image/jpeg", "image/gif"):
            image = _image(mime, value)
            if image is not None:
                kept[mime] = image
        elif mime == "image/svg+xml":
            svg = _svg(value)
            if svg is not None:
                kept[mime] = svg
        elif mime == "application/json" and isinstance(value, (dict, list)):
            kept[mime] = copy.deepcopy(value)
        else:
            dropped.append(str(mime)[:80])
    if not kept:
        kept["text/plain"] = f"[output removed: {', '.join(dropped) or 'nothing readable'}]"
    cleaned = {"output_type": kind, "data": kept, "metadata": _size_metadata(output.get("metadata"))}
    if kind == "execute_result":
        count = output.get("execution_count")
        cleaned["execution_count"] = count if isinstance(count, int) and not isinstance(count, bool) else None
    return cleaned


def _nbgrader_metadata(meta):
    if not isinstance(meta, dict) or not isinstance(meta.get("grade_id"), str) \
            or not _GRADE_ID.fullmatch(meta["grade_id"]):
        return None
    return {k: v for k, v in meta.items()
            if isinstance(k, str) and (v is None or isinstance(v, (bool, int, float, str)))}


def judged_record(record, grade_id):
    """A hand-in cell's verdict record (:data:`mwm_grader.judge.JUDGED`) reduced to its fields' types, or None.

    Args:
        record: the cell's ``JUDGED`` metadata (untrusted until the judge wrote it).
        grade_id: the cell's nbgrader grade id; only a ``pNN-x-test`` (or a lab's ``lab-<slug>-test``)
            cell's record naming that part counts.

    Returns:
        ``{"part", "right", "blank", "restored", "mistakes": {answer name: slip key}}`` with booleans and
        short plain names only (the class report, :mod:`mwm_grader.report`, reads the same form), or None.
    """
    m = re.fullmatch(r"(p\d\d-[a-z]|lab-[a-z][a-z0-9-]{0,40})-test", grade_id) if isinstance(grade_id, str) else None
    if not m or not isinstance(record, dict) or record.get("part") != m.group(1):
        return None
    named = record.get("mistakes") if isinstance(record.get("mistakes"), dict) else {}
    return {"part": m.group(1), **{k: record.get(k) is True for k in ("right", "blank", "restored")},
            "mistakes": {a: k for a, k in named.items() if isinstance(a, str) and isinstance(k, str)
                         and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", a)
                         and re.fullmatch(r"[a-z0-9][a-z0-9-]{0,63}", k)}}


def _attachments(cell_attachments, source: str) -> dict:
    kept = {}
    if isinstance(cell_attachments, dict):
        for name, bundle in cell_attachments.items():
            if not isinstance(name, str) or not _SAFE_NAME.fullmatch(name) or not isinstance(bundle, dict):
                continue
            clean = {}
            for mime in _ATTACHMENT_TYPES:
                if mime in bundle:  # nbformat keeps attachments base64-encoded; nbconvert shows them as data: URLs
                    value = _image(mime, bundle[mime])
                    if mime == "image/svg+xml" and value is not None \
                            and b"<svg" not in base64.b64decode(value)[:4096].lower():
                        value = None
                    if value is not None:
                        clean[mime] = value
            kept[name] = clean or {"image/png": _BLANK_PNG}
    for name in re.findall(r"attachment:([^\s)\"'<>]+)", source):
        if name not in kept:
            kept[name] = {"image/png": _BLANK_PNG}
    return kept


def clean_notebook(nb) -> NotebookNode:
    """A student's notebook with only what a teacher needs to read, every piece of it inert.

    Args:
        nb: an nbformat 4 notebook (a ``NotebookNode`` or a dict), untrusted; it is not changed.

    Returns:
        NotebookNode: a new notebook. Notebook metadata: ``kernelspec`` and ``language_info``
        reduced to their names. Each cell: its source; a valid cell id; for a graded cell, its
        ``nbgrader`` metadata (scalar values, a grade id of letters, digits, ``_`` and ``-``);
        markdown cells keep image attachments (PNG, JPEG, GIF, SVG; a missing one becomes a
        blank image); code cells keep their outputs cleaned by :func:`clean_output`; a raw cell
        becomes a markdown cell showing its text. The function is idempotent.

    Raises:
        TypeError: ``nb`` is not a notebook (no list of cells).
    """
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise TypeError(f"nb must be an nbformat notebook with a list of cells, got {type(nb).__name__}")
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    new_meta = {}
    spec = meta.get("kernelspec")
    if isinstance(spec, dict):
        new_meta["kernelspec"] = {k: re.sub(r"[^\w .+-]", "", spec[k])[:64] for k in ("name", "display_name", "language")
                                  if isinstance(spec.get(k), str)}
    info = meta.get("language_info")
    if isinstance(info, dict) and isinstance(info.get("name"), str) and re.fullmatch(r"[\w+-]{1,32}", info["name"]):
        new_meta["language_info"] = {"name": info["name"]}
    new_cells, seen_ids = [], set()
    for i, cell in enumerate(cells):
        if not isinstance(cell, dict):
            continue
        kind = cell.get("cell_type")
        source = _text(cell.get("source")) or ""
        cell_id = cell.get("id")
        if not isinstance(cell_id, str) or not _CELL_ID.fullmatch(cell_id) or cell_id in seen_ids:
            cell_id = f"cleaned-{i}"
        seen_ids.add(cell_id)
        metadata = {}
        grading = _nbgrader_metadata((cell.get("metadata") or {}).get("nbgrader")) \
            if isinstance(cell.get("metadata"), dict) else None
        if grading is not None:
            metadata["nbgrader"] = grading
            judged = judged_record(cell["metadata"].get("mwm_judged"), grading.get("grade_id"))
            if judged is not None:  # the grader's verdict (mwm_grader.judge.JUDGED), for the class report
                metadata["mwm_judged"] = judged
        if kind == "code":
            outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
            count = cell.get("execution_count")
            new = {"cell_type": "code", "id": cell_id, "metadata": metadata, "source": source,
                   "execution_count": count if isinstance(count, int) and not isinstance(count, bool) else None,
                   "outputs": [clean_output(o) for o in outputs]}
        elif kind == "markdown":
            new = {"cell_type": "markdown", "id": cell_id, "metadata": metadata, "source": source}
            attachments = _attachments(cell.get("attachments"), source)
            if attachments:
                new["attachments"] = attachments
        else:  # a raw cell (nbconvert would paste its text into the page as HTML), or an unknown type
            shown = _html.escape(source, quote=False)
            new = {"cell_type": "markdown", "id": cell_id, "metadata": {},
                   "source": f"<pre>{shown}</pre>" if shown else ""}
        new_cells.append(new)
    return from_dict({"nbformat": 4, "nbformat_minor": max(5, int(nb.get("nbformat_minor") or 5)
                                                           if isinstance(nb.get("nbformat_minor"), int) else 5),
                      "metadata": new_meta, "cells": new_cells})


class CleanStudentContent(Preprocessor):
    """nbgrader/nbconvert preprocessor: the notebook replaced by :func:`clean_notebook`'s.

    In ``Autograde.autograde_preprocessors`` put it right after the step that judges the answers
    (it drops the answer records); in ``HTMLExporter.preprocessors`` it cleans every notebook the
    Formgrader or ``generate_feedback`` turns into a page.
    """

    enabled = Bool(True, help="Clean the notebook (on unless turned off).").tag(config=True)

    def preprocess(self, nb, resources):
        """Return the cleaned notebook and ``resources`` unchanged."""
        cleaned = clean_notebook(nb)
        nb.clear()
        nb.update(cleaned)
        return nb, resources


def _collect_base():
    from nbgrader.exchange.default.collect import ExchangeCollect

    return ExchangeCollect


class CourseCollect(_collect_base()):
    """``nbgrader collect`` that refuses what no honest student could have filed.

    * An id the course cannot use (:func:`mwm_practice.ids.check_student_id`: a name a student
      picked for a folder of the exchange, say ``<img src=x onerror=...>``) is not collected; the
      log names it.
    * With ``check_owner`` on (nbgrader's default; a hub on a server), a submission whose files
      belong to another account than the id it names is not collected (nbgrader warns
      "cheating attempt?" and collects it anyway, so one student could hand in as another).
    """

    def init_src(self):
        """nbgrader's list of the newest submission per student, without the refused ones."""
        from mwm_practice.ids import check_student_id

        super().init_src()
        kept = []
        for record in self.src_records:
            sid = record.get("username")
            try:
                check_student_id(sid)
            except (TypeError, ValueError) as exc:
                self.log.warning("Not collected: %s (%s)", record.get("filename"), exc)
                continue
            if self.check_owner:
                try:
                    import pwd

                    owner = pwd.getpwuid(os.stat(os.path.join(self.inbound_path, record["filename"])).st_uid).pw_name
                except (ImportError, KeyError, OSError):
                    owner = None
                if owner is not None and owner != sid:
                    self.log.warning("Not collected: %s names the student %r but its files belong to %r",
                                     record.get("filename"), sid, owner)
                    continue
            kept.append(record)
        self.src_records = kept

    def do_copy(self, src, dest):
        """nbgrader's copy of one submission, then :func:`repair_unreadable` on the notebooks copied."""
        super().do_copy(src, dest)
        released = os.path.join(self.coursedir.root, self.coursedir.release_directory, self.coursedir.assignment_id)
        for note in repair_unreadable(dest, released):
            self.log.warning("%s: %s", dest, note)


def repair_unreadable(folder, released_folder) -> list[str]:
    """Make every notebook of a collected submission one that nbgrader can read and grade.

    A notebook that is not JSON, or not a notebook nbformat accepts, stops ``nbgrader
    autograde`` for that student: the student scores 0 with no word of why. Here it is kept
    beside, renamed ``<name>.ipynb.unreadable``, and replaced by the released version (every
    answer empty), marked with the reason (``metadata.mwm_collect.unreadable``), so the student
    is graded, and the feedback and the teacher's grading notes say what happened.

    Args:
        folder: the submission's folder (``submitted/<student>/<assignment>``).
        released_folder: the assignment's released folder (``release/<assignment>``).

    Returns:
        list of str: one line per notebook replaced.
    """
    import nbformat

    notes = []
    for path in sorted(Path(folder).glob("*.ipynb")):
        try:
            nbformat.validate(nbformat.read(path, as_version=4))
            continue
        except Exception as exc:  # noqa: BLE001 - whatever stops nbformat stops nbgrader
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}".rstrip(": ")
        released = Path(released_folder) / path.name
        path.rename(path.with_name(path.name + ".unreadable"))
        if released.is_file():
            nb = nbformat.read(released, as_version=4)
            nb.metadata["mwm_collect"] = {"unreadable": reason}
            nbformat.write(nb, path)
            notes.append(f"{path.name} could not be read ({reason}): kept as {path.name}.unreadable; "
                         "the released notebook stands in for it")
        else:
            notes.append(f"{path.name} could not be read ({reason}): kept as {path.name}.unreadable")
    return notes
