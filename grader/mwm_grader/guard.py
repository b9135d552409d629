"""A Jupyter server extension for the teacher's Lab: the Formgrader's pages cannot run a student's script.

What a student wrote is cleaned before any page shows it (:mod:`mwm_grader.untrusted`); this
is the second wall, in the browser, for anything the cleaning might miss. Loaded by every
Jupyter server of the course's ``.venv`` (``make setup`` installs
``labs/jupyter_server_config.d/mwm-guard.json`` there; the teacher's Lab on a hub loads it from
``labs/teacher/jupyter_server_config.json`` too). It adds headers to the Formgrader's responses
and changes nothing else:

* **A submission's notebook page** (``<base>formgrader/submissions/<id>/``) gets a
  Content-Security-Policy that allows scripts only from nbgrader's own static folder, from this
  extension's MathJax, and the page's own static inline blocks, by their sha256
  (:func:`formgrade_script_hashes`); no inline event handler, no ``javascript:`` URL, no script,
  frame, object, form target or stylesheet from anywhere else, no ``<base>``.
* **Files of a submission** (``<base>formgrader/submissions/<id>/<path>``, nbgrader's route to
  what a student handed in beside the notebook): PNG, JPEG, GIF, WebP and SVG are served as
  images; everything else (HTML, XHTML, JavaScript, ...) as ``text/plain``, as a download. All of
  them with ``X-Content-Type-Options: nosniff`` and a ``sandbox`` policy that allows no script and
  no request, so even an SVG opened on its own, or a file a browser did render, runs nothing.
* **The Formgrader's other pages** (its lists of assignments, submissions and students, which
  show student ids and names through nbgrader's scripts): no plug-in objects, no ``<base>``, no
  form sent elsewhere, no framing by other sites.
* **Every other page of a teacher's Lab** (a server started on a course folder, one holding
  ``nbgrader_config.py``: ``make teacher-lab``, or the teacher's Lab on the hub), where a teacher
  opens submitted notebooks: images, media, fonts, stylesheets, frames and requests only from the
  Lab itself (or ``data:``/``blob:``), so a student's markdown or output cannot make the teacher's
  browser fetch a tracking image, frame a remote page (a MyST ``{iframe}`` directive) or load a
  remote data file (a Vega-Lite output); no plug-in objects, no ``<base>``, no form sent
  elsewhere. JupyterLab itself already shows an untrusted notebook's HTML sanitized and runs
  none of its script.

It also serves MathJax (the copy the website build uses, from ``sphinx-mathjax-offline``) at
``<base>mwm-static/mathjax/``, without a login, since it is a public file: the Formgrader's page
and the feedback pages typeset their maths with it instead of a CDN's.
"""
from __future__ import annotations

import base64
import hashlib
import mimetypes
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

from tornado import web

__all__ = ["FormgraderGuard", "formgrade_script_hashes", "inline_script_hashes", "mathjax_dir",
           "submission_page_policy", "IMAGE_TYPES"]

TEMPLATES = Path(__file__).parent / "templates"
#: What the file route serves as an image (by the file name's extension); everything else is text.
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp", ".svg": "image/svg+xml"}
_INLINE_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S)
_NAVIGATION = re.compile(r"(?:next_incorrect|prev_incorrect|next|prev)/?")


def inline_script_hashes(html: str) -> list[str]:
    """The CSP hash sources (``'sha256-...'``) of every inline script of ``html`` that browsers run.

    Args:
        html: a page or a template's text. A block with a ``src`` attribute, or of a type that is
            not JavaScript (``text/x-mathjax-config``, JSON), is left out.

    Returns:
        list of str, in the page's order.

    Raises:
        ValueError: a block holds a Jinja expression or statement (``{{``, ``{%``): its text would
            change from page to page, so no fixed hash can allow it.
    """
    found = []
    for m in _INLINE_SCRIPT.finditer(html):
        attrs, body = m.group("attrs"), m.group("body")
        if "src=" in attrs:
            continue
        kind = re.search(r'type="([^"]*)"', attrs)
        if kind and kind.group(1).lower() not in ("text/javascript", "application/javascript", "module"):
            continue
        if "{{" in body or "{%" in body:
            raise ValueError(f"an inline script holds template code, so no fixed hash allows it: {body[:80]!r}")
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii")
        found.append(f"'sha256-{digest}'")
    return found


@lru_cache(maxsize=None)
def formgrade_script_hashes() -> tuple[str, ...]:
    """The hashes of the inline scripts of the course's Formgrader page (``templates/formgrade/``)."""
    hashes = []
    for name in ("formgrade_macros.html.j2", "index.html.j2"):
        hashes += inline_script_hashes((TEMPLATES / "formgrade" / name).read_text(encoding="utf-8"))
    return tuple(dict.fromkeys(hashes))


def mathjax_dir() -> Path | None:
    """The MathJax 3 folder of ``sphinx-mathjax-offline`` (the website's copy), or None if it is not installed."""
    from importlib import metadata

    try:
        dist = metadata.distribution("sphinx-mathjax-offline")
    except metadata.PackageNotFoundError:
        return None
    folder = Path(dist.locate_file("sphinx-mathjax-offline/static/mathjax"))
    return folder if (folder / "tex-svg-full.js").is_file() else None


def submission_page_policy(host: str, base_url: str) -> str:
    """The Content-Security-Policy of a submission's notebook page.

    Args:
        host: the ``Host`` the browser asked for (``127.0.0.1:8888``); scheme-less sources match
            the page's own scheme.
        base_url: the server's base URL (``/`` or ``/user/teacher/``).

    Returns:
        str, the header's value.
    """
    base = "/" + base_url.strip("/") + "/" if base_url.strip("/") else "/"
    scripts = " ".join([f"{host}{base}formgrader/static/", f"{host}{base}mwm-static/", *formgrade_script_hashes()])
    return ("default-src 'none'; "
            f"script-src {scripts}; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
            "object-src 'none'; frame-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'self'")


OTHER_PAGES_POLICY = "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"
TEACHER_LAB_POLICY = ("img-src 'self' data: blob:; media-src 'self' data: blob:; font-src 'self' data:; "
                      "style-src 'self' 'unsafe-inline' data: blob:; connect-src 'self' ws: wss:; "
                      "frame-src 'self' blob: data:; object-src 'none'; base-uri 'self'; form-action 'self'")
#: Every handed-in file: no script, no request, not even inside an SVG opened on its own (``sandbox``).
FILE_POLICY = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"


class FormgraderGuard(web.OutputTransform):
    """Adds the headers of the module's docstring to every Formgrader response (a tornado output transform)."""

    base_url = "/"
    #: True on a teacher's Lab (a server whose root folder is a course): every page gets TEACHER_LAB_POLICY.
    teacher_lab = False

    def __init__(self, request):
        self.request = request

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        """Add this response's headers (see the module's docstring); the body is left as it is."""
        base = "/" + self.base_url.strip("/") + "/" if self.base_url.strip("/") else "/"
        path = unquote(self.request.path)
        if not path.startswith(base + "formgrader"):
            if self.teacher_lab and not path.startswith(base + "files/"):  # /files/ has Jupyter's own sandbox
                headers.add("Content-Security-Policy", TEACHER_LAB_POLICY)
            return status_code, headers, chunk
        rest = path[len(base):]
        m = re.fullmatch(r"formgrader/submissions/([^/]+)(?:/(.*))?", rest, re.S)
        if m and m.group(1) != "components" and m.group(2) and not _NAVIGATION.fullmatch(m.group(2)):
            name = m.group(2).rsplit("/", 1)[-1]
            suffix = ("." + name.rsplit(".", 1)[-1].lower()) if "." in name else ""
            if suffix in IMAGE_TYPES:
                headers["Content-Type"] = IMAGE_TYPES[suffix]
            else:
                headers["Content-Type"] = "text/plain; charset=utf-8"
                safe = re.sub(r'[^A-Za-z0-9._-]', "_", name) or "file"
                headers["Content-Disposition"] = f'attachment; filename="{safe}.txt"'
            headers["X-Content-Type-Options"] = "nosniff"
            headers.add("Content-Security-Policy", FILE_POLICY)
        elif m and m.group(1) != "components" and not m.group(2):
            headers.add("Content-Security-Policy", submission_page_policy(self.request.host, self.base_url))
            headers["X-Content-Type-Options"] = "nosniff"
        else:
            headers.add("Content-Security-Policy", OTHER_PAGES_POLICY)
            headers["X-Content-Type-Options"] = "nosniff"
        return status_code, headers, chunk


class _MathJaxHandler(web.StaticFileHandler):
    """MathJax's files, for any visitor (a public library; a feedback page opened in a sandbox sends no cookie)."""

    def set_extra_headers(self, path):
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Access-Control-Allow-Origin", "*")


def _jupyter_server_extension_points():
    return [{"module": "mwm_grader.guard"}]


def _load_jupyter_server_extension(serverapp):
    """Add the transform and the MathJax route to ``serverapp``'s web application."""
    from jupyter_server.utils import url_path_join

    web_app = serverapp.web_app
    base_url = web_app.settings.get("base_url", "/")
    root = Path(getattr(serverapp, "root_dir", "") or ".")
    teacher_lab = (root / "nbgrader_config.py").is_file()
    guard = type("FormgraderGuard", (FormgraderGuard,), {"base_url": base_url, "teacher_lab": teacher_lab})
    web_app.add_transform(guard)
    folder = mathjax_dir()
    if folder is not None:
        mimetypes.add_type("text/javascript", ".js")
        web_app.add_handlers(".*$", [(url_path_join(base_url, r"mwm-static/mathjax/(.*)"), _MathJaxHandler,
                                      {"path": str(folder)})])
    else:
        serverapp.log.warning("mwm_grader.guard: sphinx-mathjax-offline is not installed; the Formgrader shows "
                              "maths as TeX")
    serverapp.log.info("mwm_grader.guard: the Formgrader's pages run no student script (base %s%s)", base_url,
                       "; a teacher's Lab: images from this server only" if teacher_lab else "")


load_jupyter_server_extension = _load_jupyter_server_extension
