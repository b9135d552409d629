"""A hostile student's submission, opened in every page a teacher opens, in Chromium: nothing of it runs.

mallory hands in the practice notebook with every vector of :mod:`tests.hostile_content` planted
(raw HTML, SVG, frames, objects, styles, links, TeX, attachments, a raw cell, notebook and cell
metadata, outputs of every MIME type, written into the file and made by her code while it is
graded in the sandbox) and files beside it; alice hands in honest work, and the gradebook gives
her a first and last name that are script (as a roster or a hub could). The class is graded by
nbgrader's own autograde with the course's config. Then the teacher's JupyterLab runs on the
course folder, as ``make teacher-lab`` runs it, and the teacher, in Chromium:

1. first opens a *control* page at the Lab's own address: mallory's vectors rendered by nbconvert
   with its defaults (what nbgrader's Formgrader did before). Its scripts must run (they mark the
   page and write files through the Jupyter API), or the vectors prove nothing;
2. opens the Formgrader from the Lab's menu and, in its frame, mallory's and alice's submissions,
   the lists of students, submissions and grades;
3. opens each file mallory handed in, by the Formgrader's file route;
4. opens mallory's feedback page, through the Lab's server and as a file;
5. opens mallory's submitted and autograded notebooks in JupyterLab.

After each page: no vector marked any frame, no file ``pwned-*`` exists anywhere in the course
folder, and no request left the Lab's origin; and what a teacher needs still shows: mallory's
text, her maths typeset, her figure, the verdicts, the Formgrader's score boxes filled by its
own scripts. Screenshots: ``test-artifacts/screenshots/teacher-*.png``.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from mwm_grader import problems as problems_mod
from mwm_grader.variants import numbers_for
from tests import hostile_content as hc
from tests.practice_course import grade_class, need_sandbox, parts_of, solve
from tests.test_hub import _free_ports, _menu
from tests.test_lab import _stop_lab
from tests.test_site import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _need_browser

TOKEN = "teacher-pages-token"
WAIT_MS = 120_000
#: What nbgrader's Formgrader ran before this course cleaned student content (issue 23's table).
LIVE_IN_CONTROL = {"md-img-onerror", "md-svg-onload", "md-details", "md-iframe-srcdoc", "md-iframe-js", "md-form",
                   "out-html", "out-js", "out-markdown"}


def _own(student):
    return parts_of(problems_mod.build_all(numbers_for(student))[0])


def _hostile(nb):
    solve(nb, _own("mallory"))
    return hc.make_hostile(nb)


def _control_html(tmp: Path) -> str:
    """mallory's vectors, executed in a plain kernel and rendered by nbconvert's defaults (the control)."""
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("control")])
    hc.make_hostile(nb, raising=False)
    for cell in nb.cells:  # nbconvert's defaults refuse to render a page naming a missing attachment,
        cell.source = cell.source.replace(" ![c](attachment:missing.png)", "")  # and the refresh would
        if "http-equiv" in cell.source:  # leave the page before its marks are read
            cell.source = ""
    NotebookClient(nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp)}}).execute()
    html, _ = HTMLExporter(template_name="classic").from_notebook_node(nb)
    # nbgrader's pages load jQuery, which a JavaScript output of the classic template calls
    jquery = '<script src="/formgrader/static/node_modules/jquery/dist/jquery.min.js"></script>'
    return html.replace("<head>", "<head>" + jquery, 1)


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The graded class (mallory hostile, alice honest), its control page, and the submission ids."""
    _need_browser()
    need_sandbox()
    from nbgrader.api import Gradebook

    tmp = tmp_path_factory.mktemp("teacher-pages")
    graded = grade_class(tmp, {"mallory": _hostile, "alice": lambda nb: solve(nb, _own("alice"))},
                         before_grading=lambda c: hc.plant_files(c / "submitted" / "mallory" / "practice"))
    assert graded["result"]["success"], graded["result"]["log"][-3000:]
    assert graded["scores"] == {"mallory": graded["max_score"], "alice": graded["max_score"]}, graded["scores"]
    folder = graded["course"]
    with Gradebook(f"sqlite:///{folder / 'gradebook.db'}", "machines-with-memory") as gb:
        gb.update_or_create_student("alice", first_name=hc.onerror("name-first"),
                                    last_name=f"<script>{hc.payload('name-last')}</script>",
                                    email=f'"><img src=x onerror="{hc.payload("name-email")}">@x')
        ids = {s: gb.find_submission_notebook("practice", "practice", s).id for s in ("mallory", "alice")}
    return folder, ids, _control_html(tmp)


@pytest.fixture(scope="module")
def lab(course, tmp_path_factory):
    """The teacher's JupyterLab on the course folder (``make teacher-lab``): yields its address."""
    folder, _, _ = course
    home = tmp_path_factory.mktemp("teacher-home")
    (port,) = _free_ports(1)
    log = home / "lab.log"
    env = dict(os.environ, HOME=str(home), JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "MWM_STUDENT"):
        env.pop(name, None)
    args = [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
            f"--ServerApp.token={TOKEN}", "--ServerApp.password="]
    if os.geteuid() == 0:
        args.append("--allow-root")
    process = subprocess.Popen(args, cwd=folder, env=env, stdout=open(log, "a"), stderr=subprocess.STDOUT,
                               start_new_session=True)
    origin = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "JupyterLab stopped:\n" + log.read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"{origin}/api", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "JupyterLab did not answer in 60 s:\n" + log.read_text()[-3000:]
                time.sleep(0.3)
        yield origin, log
    finally:
        _stop_lab(process)


def _covered(frame, selector: str) -> list[str]:
    """The elements of ``selector`` that something else is drawn over, at their centre (scrolled into view)."""
    return frame.locator(selector).evaluate_all("""els => els.filter(e => {
        e.scrollIntoView({block: "center"});
        const r = e.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return false;
        const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !(top && (top === e || e.contains(top) || top.contains(e)));
    }).map(e => e.id || e.className || e.tagName)""")


def _formgrader_frame(page):
    _menu(page, "Nbgrader", "Formgrader")
    page.locator(".jp-MainAreaWidget iframe").first.wait_for()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for frame in page.frames:
            if "/formgrader" in frame.url:
                return frame
        page.wait_for_timeout(200)
    raise AssertionError("the Formgrader's frame did not open")


def test_no_student_content_runs_in_any_page_the_teacher_opens(course, lab):
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    folder, ids, control = course
    origin, log = lab
    watch = hc.Watch(lambda url: url == origin or url.startswith(origin + "/"), [folder])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
        # every request that leaves the Lab's origin is recorded and refused (same-origin ones are not touched)
        context.route(lambda url: url.startswith(("http:", "https:", "ws:", "wss:")) and not watch.inside(url),
                      watch.route)
        context.route(f"{origin}/mwm-control/**", lambda route: route.fulfill(
            status=200, content_type="text/html; charset=utf-8", body=control))
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        if os.environ.get("MWM_DEBUG_PAGES"):
            context.on("console", lambda m: print("console:", m.text[:300]))
            context.on("response", lambda r: r.status >= 400 and print("response:", r.status, r.url[:200],
                                                                       r.request.all_headers()))
        page.goto(f"{origin}/lab?token={TOKEN}&reset")
        page.wait_for_selector(".jp-LauncherCard")

        # 1. The control: nbconvert's defaults at the Lab's address run the vectors' scripts.
        control_page = context.new_page()
        control_page.goto(f"{origin}/mwm-control/page.html")
        wanted = {f"pwned-{v}.txt" for v in LIVE_IN_CONTROL}
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not wanted <= {Path(w).name for w in watch.written()}:
            control_page.wait_for_timeout(300)
        marked = watch.markers(control_page, "control")
        assert LIVE_IN_CONTROL <= marked, f"the control ran only {sorted(marked)}: the vectors are not live"
        assert wanted <= {Path(w).name for w in watch.written()}, watch.written()
        assert any(hc.EVIL in url for url in watch.foreign), "the control's requests to evil.invalid were not seen"
        control_page.close()
        watch.forget_writes()
        watch.ran.clear()
        watch.foreign.clear()

        # 2. The Formgrader, in its frame of the Lab: both submissions, then its lists.
        frame = _formgrader_frame(page)
        for student, sid in ids.items():
            frame.goto(f"{origin}/formgrader/submissions/{sid}/")
            frame.wait_for_selector("input.score")
            frame.wait_for_selector("mjx-container", timeout=60_000)  # the maths typeset, by the local MathJax
            watch.settle(page)
            assert not watch.markers(page, f"formgrader submission of {student}")
            text = frame.locator("#notebook-container").first.inner_text()
            assert "Problem 1 (a): right" in text
            frame.wait_for_selector("input.score[placeholder]")  # the autograded score, set by formgrade.js
            filled = frame.locator("input.score").evaluate_all(
                "els => els.filter(e => (e.getAttribute('placeholder') || '') !== '').length")
            assert filled > 0, "the Formgrader's own scripts did not fill the score boxes"
            if student == "mallory":
                honest = frame.locator(".text_cell_render", has_text=hc.HONEST_TEXT)
                assert honest.is_visible()
                assert honest.locator("mjx-container").count() >= 1, "mallory's maths is not typeset"
                figures = frame.locator("img").evaluate_all(
                    f"els => els.filter(e => e.naturalWidth === {hc.FIGURE_SIZE[0]}).length")
                assert figures >= 1, "mallory's PNG figure is not shown"
                assert frame.locator("a[href^='javascript:'], a[href^='data:'], iframe, object, embed").count() == 0
                red = frame.evaluate("() => [...document.querySelectorAll('*')].filter("
                                     "e => getComputedStyle(e).backgroundColor === 'rgb(255, 0, 0)').length")
                assert red == 0, "a student's style reached the page"
                covered = _covered(frame, "input.score")
                assert not covered, f"student content covers the Formgrader's score boxes: {covered[:3]}"
                honest.scroll_into_view_if_needed()
                page.screenshot(path=str(ARTIFACTS / "teacher-formgrader-hostile.png"))
            else:
                assert frame.locator("a.name-shown").inner_text().strip().startswith("<script>")  # shown as text
        for address in ("manage_students", "manage_students/alice", "manage_submissions/practice",
                        "gradebook/practice/practice", "manage_assignments"):
            frame.goto(f"{origin}/formgrader/{address}")
            frame.wait_for_selector("table tbody tr")
            watch.settle(page, 1)
            assert not watch.markers(page, f"formgrader {address}")
        frame.goto(f"{origin}/formgrader/manage_students")
        frame.locator("tbody tr", has_text="alice").first.wait_for()
        assert "<img src=x" in frame.locator("tbody").inner_text(), "alice's name is not shown as text"

        # 3. The files mallory handed in, through the Formgrader's route for them.
        mallory = ids["mallory"]
        for name in ("notes.html", "notes.htm", "notes.svg", "notes.js", "page.xhtml", "fig.png"):  # SVG: an image
            url = f"{origin}/formgrader/submissions/{mallory}/{name}"
            response = context.request.get(url)
            assert response.status == 200, (name, response.status)
            headers = response.headers
            assert headers.get("x-content-type-options") == "nosniff", name
            assert "sandbox" in headers.get("content-security-policy", ""), name
            if name.endswith((".png", ".svg")):
                assert headers["content-type"] == ("image/png" if name.endswith(".png") else "image/svg+xml")
            else:
                assert headers["content-type"].startswith("text/plain"), (name, headers["content-type"])
                assert headers.get("content-disposition", "").startswith("attachment"), name
            tab = context.new_page()
            try:
                tab.goto(url)
            except PlaywrightError:  # a download, not a page: nothing of it is rendered
                pass
            watch.settle(tab, 1)
            assert not watch.markers(tab, f"file {name}")
            tab.close()

        # 4. mallory's feedback page, through the Lab's server (maths typeset) and as a file.
        (feedback,) = (folder / "feedback" / "mallory" / "practice").rglob("practice.html")
        tab = context.new_page()
        # as the Lab's "Open in New Browser Tab" does (Jupyter serves /files/ only to a page of its own)
        tab.goto(f"{origin}/files/{feedback.relative_to(folder)}", referer=f"{origin}/lab")
        tab.wait_for_selector("mjx-container", timeout=60_000)
        watch.settle(tab)
        assert not watch.markers(tab, "feedback page")
        body = tab.locator("body").inner_text()
        assert hc.HONEST_TEXT in body and "Problem 1 (a): right" in body
        covered = _covered(tab, ".panel-heading .pull-right")
        assert not covered, f"student content covers the feedback page's scores: {covered[:3]}"
        tab.screenshot(path=str(ARTIFACTS / "teacher-feedback-hostile.png"), full_page=False)
        tab.goto(feedback.as_uri())
        watch.settle(tab)
        assert not watch.markers(tab, "feedback page as a file")
        tab.close()

        # 5. The submitted and the autograded notebook, opened in JupyterLab.
        for kind in ("submitted", "autograded"):
            page.goto(f"{origin}/lab/tree/{kind}/mallory/practice/practice.ipynb?reset")
            page.wait_for_selector(".jp-Notebook .jp-Cell")
            # scroll the notebook to its end, a screen at a time, so every cell is drawn (JupyterLab
            # draws cells as they come into view and may swap a cell's element while doing so)
            scrolled = page.evaluate("""async () => {
                const box = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');
                if (!box) return null;
                for (let i = 0; i < 400 && box.scrollTop + box.clientHeight < box.scrollHeight - 1; i++) {
                    box.scrollTop += box.clientHeight * 0.8;
                    await new Promise(done => setTimeout(done, 50));
                }
                return box.scrollTop + box.clientHeight >= box.scrollHeight - 1;
            }""")
            assert scrolled, f"the {kind} notebook could not be scrolled to its end"
            watch.settle(page, 2)
            assert not watch.markers(page, f"JupyterLab, {kind} notebook")
            assert page.locator(".jp-Notebook", has_text=hc.HONEST_TEXT).count() == 1
        page.screenshot(path=str(ARTIFACTS / "teacher-lab-hostile.png"))
        browser.close()

    time.sleep(1)
    assert not watch.ran, f"student script ran: {watch.ran}"
    assert not watch.written(), f"student script wrote through the teacher's API: {watch.written()}"
    assert not watch.foreign, f"requests left the teacher's origin: {watch.foreign[:10]}"
    assert "mwm_grader.guard" in log.read_text(), "the teacher's Lab did not load mwm_grader.guard"
