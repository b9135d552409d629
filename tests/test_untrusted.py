"""The cleaning of student content for the teacher's pages (mwm_grader.untrusted, mwm_grader.guard).

Every markdown vector and every output MIME type of tests/hostile_content.py goes through the
steps the course's nbgrader config runs (clean_notebook, then the templates with the clean_html
filter); what comes out has no script, event handler, frame, object, style, refresh, base, form,
remote load or script URL left. A harmless notebook reads the same before and after. The
browser test of the same vectors is tests/test_teacher_pages.py.
"""
from __future__ import annotations

import base64
import copy
import os
import pwd
import re
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup

from mwm_grader import guard, untrusted
from tests import hostile_content as hc

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "exercises" / "source" / "practice" / "practice.ipynb"
ATTACHMENTS = {"evil.svg": {"image/svg+xml": "PHN2Zz48L3N2Zz4="}, "evil.html": {"image/png": untrusted._BLANK_PNG},
               "missing.png": {"image/png": untrusted._BLANK_PNG}}
FORBIDDEN_TAGS = {"script", "style", "iframe", "frame", "object", "embed", "applet", "meta", "link", "base", "form",
                  "input", "button", "textarea", "select", "svg", "math", "video", "audio", "source", "template"}


def _problems(html: str, where: str = "", page: bool = False) -> list[str]:
    """Every way ``html`` (a fragment of student content) could run script, load, restyle or leave.

    With ``page``, ``html`` is a whole page section rendered by a template: its own classes, ids,
    score boxes and comment fields are not counted.
    """
    found = []
    for el in BeautifulSoup(html, "html.parser").find_all(True):
        if el.name in FORBIDDEN_TAGS - ({"input", "textarea", "button"} if page else set()):
            found.append(f"{where}<{el.name}>")
        for attr, value in el.attrs.items():
            value = " ".join(value) if isinstance(value, list) else str(value)
            if attr.lower().startswith("on") or attr.lower() in ("srcdoc", "formaction", "xlink:href") \
                    or (attr == "style" and not page):
                found.append(f"{where}{el.name}[{attr}]")
            if attr.lower() in ("href", "src", "data", "action", "background", "poster"):
                v = value.strip().lower()
                if v.startswith(("javascript:", "vbscript:", "data:text", "data:application")):
                    found.append(f"{where}{el.name}[{attr}={v[:30]}]")
                if el.name != "a" and v.startswith(("http:", "https:", "//")):
                    found.append(f"{where}{el.name}[{attr}] loads {v[:40]}")
            if page:
                continue
            if attr == "class" and set(value.split()) - untrusted._CLASSES.get(el.name, set()):
                found.append(f"{where}{el.name}[class={value}]")
            if attr == "id" and not value.startswith(untrusted.ID_PREFIX):
                found.append(f"{where}{el.name}[id={value}]")
    return found


def _markdown(source: str, attachments=None) -> str:
    """A markdown cell's source as nbconvert's HTML exporter renders it (before any cleaning)."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    renderer = IPythonRenderer(escape=False, attachments=attachments or {})
    return MarkdownWithMath(renderer=renderer).render(source)


@pytest.mark.parametrize("vector", sorted(hc.markdown_vectors()))
def test_every_markdown_vector_is_inert_after_cleaning(vector):
    source = hc.markdown_vectors()[vector]
    raw = _markdown(source, ATTACHMENTS)
    cleaned = untrusted.clean_html(raw)
    assert not _problems(cleaned, f"{vector}: "), cleaned
    assert untrusted.clean_html(cleaned) == cleaned  # idempotent: the exporter may clean twice


def test_the_vectors_are_live_before_cleaning():
    """The control: nbconvert's own rendering keeps the script of most vectors (so the test above tests something)."""
    live = [v for v, source in hc.markdown_vectors().items()
            if _problems(_markdown(source, ATTACHMENTS))]
    assert len(live) >= 18, live


@pytest.mark.parametrize("fragment, kept", [
    ("<p>a <b>bold</b>, <i>slanted</i> and <code>code</code> word</p>", None),
    ("<table><thead><tr><th>step</th></tr></thead><tbody><tr><td>0.25</td></tr></tbody></table>", None),
    ("<ul><li>one</li></ul><ol start=\"3\"><li>three</li></ol>", None),
    ('<a href="https://example.org/page" rel="noopener noreferrer nofollow">a source</a>', None),
    ('<img src="data:image/png;base64,iVBORw0KGgo=" alt="a figure">', None),
    ('<img src="fig.png" alt="handed in">', None),
    ('<div class="highlight"><pre><span class="k">def</span> <span class="nf">f</span></pre></div>', None),
    ("<p>$h_t = \\tanh(a_t)$ and $a &lt; b$</p>", None),
    ("<details open><summary>more</summary>text</details>", '<details open="">'),
    ('<h2 id="x">Title<a class="anchor-link" href="#x">¶</a></h2>', 'id="student-x"'),
])
def test_what_a_teacher_reads_is_kept(fragment, kept):
    cleaned = untrusted.clean_html(fragment)
    if kept is None:
        assert BeautifulSoup(cleaned, "html.parser").get_text() == BeautifulSoup(fragment, "html.parser").get_text()
        for tag in re.findall(r"<([a-z0-9]+)", fragment):
            assert f"<{tag}" in cleaned, (tag, cleaned)
    else:
        assert kept in cleaned, cleaned
    assert not _problems(cleaned)


def test_clean_html_refuses_none_and_reads_bytes():
    with pytest.raises(TypeError, match="fragment"):
        untrusted.clean_html(None)
    assert untrusted.clean_html("<b>é</b>".encode()) == "<b>é</b>"


def _output(data, metadata=None, kind="display_data"):
    return nbformat.v4.new_output(kind, data=data, metadata=metadata or {}, **({"execution_count": 3}
                                                                              if kind == "execute_result" else {}))


def test_every_output_mime_type():
    figure = base64.b64encode(hc.png(4, 2)).decode()
    cases = [
        (_output({"text/html": hc.onerror("h"), "text/plain": "h"}), {"text/html", "text/plain"}),
        (_output({"application/javascript": hc.payload("js")}), {"text/plain"}),
        (_output({"application/vnd.jupyter.widget-view+json": {"model_id": "x"}, "text/plain": "w"}), {"text/plain"}),
        (_output({"application/vnd.jupyter.widget-state+json": {}}), {"text/plain"}),
        (_output({"text/markdown": hc.onerror("md")}), {"text/markdown"}),
        (_output({"text/latex": "$x$"}), {"text/latex"}),
        (_output({"image/svg+xml": hc.svg("svg")}), {"image/svg+xml"}),
        (_output({"image/png": figure}, {"image/png": {"width": 4, "height": "2 onerror=x"}}), {"image/png"}),
        (_output({"image/png": base64.b64encode(b"<script>not a png</script>").decode()}), {"text/plain"}),
        (_output({"image/jpeg": base64.b64encode(b"\xff\xd8\xff\xe0rest").decode()}), {"image/jpeg"}),
        (_output({"text/vnd.mermaid": "graph TD; A-->B"}), {"text/plain"}),
        (_output({"application/json": {"a": 1}}), {"application/json"}),
        (_output({"application/pdf": "JVBERi0="}), {"text/plain"}),
        (_output({"text/html": "<script>x</script>"}, {"text/html": {"isolated": True}}), {"text/html"}),
        (_output({"text/plain": "3"}, kind="execute_result"), {"text/plain"}),
    ]
    for output, kept in cases:
        cleaned = untrusted.clean_output(output)
        assert set(cleaned["data"]) == kept, (output["data"].keys(), cleaned)
        assert not _problems(cleaned["data"].get("text/html", "")), cleaned
        assert set(cleaned["metadata"]) <= {"image/png", "image/jpeg", "image/gif"}, cleaned["metadata"]
        nbformat.validate(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(outputs=[cleaned])]))
    png_meta = untrusted.clean_output(cases[7][0])["metadata"]
    assert png_meta == {"image/png": {"width": 4}}
    assert untrusted.clean_output(cases[1][0])["data"]["text/plain"] == "[output removed: application/javascript]"
    assert untrusted.clean_output({"output_type": "stream", "name": "evil", "text": ["a", "b"]}) == {
        "output_type": "stream", "name": "stdout", "text": "ab"}
    error = untrusted.clean_output({"output_type": "error", "ename": "E", "evalue": "<b>", "traceback": ["t", 3]})
    assert error["traceback"] == ["t"] and error["evalue"] == "<b>"  # text: the templates escape it
    assert untrusted.clean_output({"output_type": "mystery"})["output_type"] == "stream"


def _hostile_notebook():
    nb = nbformat.read(SOURCE, as_version=4)
    hc.make_hostile(nb)
    return nb


def test_clean_notebook_keeps_cells_and_grading_drops_the_rest():
    nb = _hostile_notebook()
    nb.cells[2].metadata["nbgrader"] = {"grade_id": '"><img src=x>', "solution": True}
    before = copy.deepcopy(nb)
    cleaned = untrusted.clean_notebook(nb)
    assert nb == before, "clean_notebook changed its argument"
    nbformat.validate(cleaned)
    assert set(cleaned.metadata) == {"kernelspec"}  # the hostile language name is not a language name
    nb_plain = nbformat.read(SOURCE, as_version=4)
    assert untrusted.clean_notebook(nb_plain).metadata == nb_plain.metadata
    assert len(cleaned.cells) == len(nb.cells)
    for old, new in zip(nb.cells, cleaned.cells):
        assert set(new.metadata) <= {"nbgrader"}
        if old.cell_type == "raw":
            assert new.cell_type == "markdown" and "&lt;script&gt;" in new.source and "<script" not in new.source
            continue
        assert new.source == old.source and new.cell_type == old.cell_type
        grading = old.metadata.get("nbgrader")
        if grading and re.fullmatch(r"[\w-]+", grading["grade_id"]):
            assert new.metadata["nbgrader"] == grading
        else:
            assert "nbgrader" not in new.metadata
        for output in new.get("outputs", []):
            assert not _problems(output.get("data", {}).get("text/html", ""))
    (attached,) = [c for c in cleaned.cells if "attachment:evil.svg" in c.source]
    assert set(attached.attachments) == {"evil.svg", "evil.html", "missing.png"}
    assert attached.attachments["evil.html"] == {"image/png": untrusted._BLANK_PNG}
    assert set(attached.attachments["evil.svg"]) == {"image/svg+xml"}
    assert untrusted.clean_notebook(cleaned) == cleaned
    with pytest.raises(TypeError, match="nb must be"):
        untrusted.clean_notebook({"cells": "no"})


def _config(template: str):
    from mwm_grader import make_exercises as mk

    config = mk.course_config(ROOT / "exercises")
    config.HTMLExporter.template_name = template
    return config


def _formgrade_resources():
    return {"assignment_id": "practice", "notebook_id": "practice", "submission_id": "abc123", "index": 0,
            "total": 1, "base_url": "", "student": "mallory", "last_name": hc.onerror("last"),
            "first_name": "<script>x</script>", "notebook_path": "autograded/mallory/practice/practice.ipynb"}


def _render(nb, config, resources):
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter(config=config).from_notebook_node(copy.deepcopy(nb), resources=copy.deepcopy(resources))
    return html


def _notebook_part(html: str):
    soup = BeautifulSoup(html, "html.parser")
    return soup.select_one("#notebook-container #notebook-container") or soup.select_one("#notebook-container")


def test_the_formgrader_page_of_a_hostile_notebook_has_no_script_but_its_own():
    html = _render(_hostile_notebook(), _config("formgrade"), _formgrade_resources())
    soup = BeautifulSoup(html, "html.parser")
    allowed = set(guard.formgrade_script_hashes())
    assert set(guard.inline_script_hashes(html)) <= allowed, "an inline script the policy does not allow"
    for script in soup.find_all("script"):
        src = script.get("src")
        assert src is None or src.startswith(("/formgrader/static/", "/mwm-static/")), src
    assert not [el for el in soup.find_all(True) if any(a.startswith("on") for a in el.attrs)]
    body = str(_notebook_part(html))
    assert not _problems(body, page=True), _problems(body, page=True)[:10]
    styles = [el for el in _notebook_part(html).find_all(style=True)]
    assert all(el.name in ("input", "span", "iframe") and "position" not in el["style"] for el in styles), styles[:3]
    assert "<script>x</script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html  # the name, escaped


def test_a_harmless_notebook_reads_the_same_in_the_formgrader():
    """The solved instructor notebook, rendered by nbgrader's own template and by the course's: the same text."""
    import nbgrader

    nb = nbformat.read(SOURCE, as_version=4)
    plain = _config("formgrade")
    plain.HTMLExporter.extra_template_basedirs = [str(Path(nbgrader.__file__).parent / "server_extensions"
                                                      / "formgrader" / "templates")]
    plain.HTMLExporter.preprocessors = []
    plain.HTMLExporter.sanitize_html = False
    plain.HTMLExporter.filters = {}
    resources = dict(_formgrade_resources(), first_name="Ada", last_name="Lovelace")
    theirs = _notebook_part(_render(nb, plain, resources))
    ours = _notebook_part(_render(nb, _config("formgrade"), resources))
    assert " ".join(ours.get_text().split()) == " ".join(theirs.get_text().split())
    for tag in ("img", "table", "pre", "code", "strong", "em", "li", "input", "textarea", "h2"):
        assert len(ours.find_all(tag)) == len(theirs.find_all(tag)), tag
    assert len(ours.find_all("img")) >= 1 or len(theirs.find_all("img")) == 0


def test_the_feedback_template_allows_only_its_own_loader():
    text = (Path(untrusted.TEMPLATE_DIR) / "feedback" / "index.html.j2").read_text(encoding="utf-8")
    (policy,) = re.findall(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text)
    hashes = guard.inline_script_hashes(text)
    assert len(hashes) == 1 and re.findall(r"'sha256-[^']+'", policy) == hashes
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy.split("style-src")[0]
    assert "cdnjs" not in text and "jsdelivr" not in text and "mathjax()" not in text
    for name in ("formgrade_macros.html.j2", "index.html.j2"):
        page = (Path(untrusted.TEMPLATE_DIR) / "formgrade" / name).read_text(encoding="utf-8")
        assert not re.search(r"\son[a-z]+=", page), name  # no inline handler: the policy would refuse it
        assert "mathjax()" not in page and "cdnjs" not in page


class _Request:
    def __init__(self, path, host="127.0.0.1:8888"):
        self.path, self.host = path, host


@pytest.mark.parametrize("path, content_type, policy", [
    ("/formgrader/submissions/abc/", None, "script-src 127.0.0.1:8888/formgrader/static/"),
    ("/formgrader/submissions/abc/notes.html", "text/plain; charset=utf-8", "sandbox"),
    ("/formgrader/submissions/abc/sub/notes.SVG", "image/svg+xml", "sandbox"),
    ("/formgrader/submissions/abc/page.xhtml", "text/plain; charset=utf-8", "sandbox"),
    ("/formgrader/submissions/abc/x.png%00.html", "text/plain; charset=utf-8", "sandbox"),
    ("/formgrader/submissions/abc/fig.PNG", "image/png", "sandbox"),
    ("/formgrader/submissions/abc/next", None, "object-src 'none'"),
    ("/formgrader/manage_students", None, "object-src 'none'"),
    ("/formgrader/submissions/components/x.js", None, "object-src 'none'"),
    ("/lab/tree/x.ipynb", None, "img-src 'self' data: blob:"),
    ("/files/feedback/x.html", None, None),
])
def test_the_guard_sets_each_route_s_headers(path, content_type, policy):
    from tornado.httputil import HTTPHeaders

    transform = type("G", (guard.FormgraderGuard,), {"teacher_lab": True})(_Request(path))
    headers = HTTPHeaders({"Content-Type": "text/html", "Content-Security-Policy": "frame-ancestors 'self'"})
    _, headers, _ = transform.transform_first_chunk(200, headers, b"", True)
    policies = headers.get_list("Content-Security-Policy")
    assert policies[0] == "frame-ancestors 'self'"  # Jupyter's own policy stays
    if policy is None:
        assert len(policies) == 1
    else:
        assert any(policy in p for p in policies[1:]), policies
    if content_type:
        assert headers["Content-Type"] == content_type and headers["X-Content-Type-Options"] == "nosniff"
        if content_type.startswith("text/plain"):
            assert headers["Content-Disposition"].startswith("attachment")
    page = guard.submission_page_policy("h:1", "/user/teacher/")
    assert "h:1/user/teacher/formgrader/static/" in page and "'unsafe-inline'" not in page.split("style-src")[0]


def test_inline_script_hashes_refuses_template_code():
    with pytest.raises(ValueError, match="template code"):
        guard.inline_script_hashes("<script>var a = '{{ resources.x }}';</script>")
    assert guard.inline_script_hashes('<script src="a.js"></script><script type="text/x-mathjax-config">x</script>') == []


def test_collect_refuses_ids_the_course_cannot_use_and_files_of_another_owner(tmp_path):
    """A folder named after a script, or a submission under a classmate's name, is never collected."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    from mwm_grader import make_exercises as mk

    mk.venv_on_path()  # nbgrader's gradebook calls alembic

    me = pwd.getpwuid(os.getuid()).pw_name
    course, exchange = tmp_path / "course", tmp_path / "exchange"
    inbound = exchange / "machines-with-memory" / "inbound"
    names = {"alice": "alice+practice+2026-12-01 10:00:00.000000 UTC+abc",
             me: f"{me}+practice+2026-12-01 10:00:00.000000 UTC+def",
             "bad": "<img src=x onerror=" + hc.short_payload("id") + ">+practice+2026-12-01 10:00:00.000000 UTC+ghi"}
    for name in names.values():
        (inbound / name).mkdir(parents=True)
        (inbound / name / "practice.ipynb").write_text("{}")
        (inbound / name / "timestamp.txt").write_text("2026-12-01 10:00:00.000000 UTC")
    course.mkdir()
    for check_owner, expected in ((False, {"alice", me}), (True, {me})):
        config = Config()
        config.CourseDirectory.root = str(course)
        config.CourseDirectory.course_id = "machines-with-memory"
        config.Exchange.root = str(exchange)
        config.ExchangeCollect.check_owner = check_owner
        coursedir = CourseDirectory(config=config)
        coursedir.assignment_id = "practice"
        untrusted.CourseCollect(coursedir=coursedir, config=config).start()
        got = {p.name for p in (course / "submitted").iterdir()}
        assert got == expected, (check_owner, got)
        import shutil

        shutil.rmtree(course / "submitted")


def test_an_answer_key_shows_an_id_as_text():
    from mwm_grader import answer_keys

    page = answer_keys.roster_html(["alice", "<script>x</script>"], "mathjax/tex-svg-full.js")
    assert "<script>x</script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
