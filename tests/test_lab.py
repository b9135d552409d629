"""A learner's JupyterLab, in Chromium: a chapter run, saved, and reopened after a restart shows its panels.

A plain ``jupyter lab`` from the course's ``.venv`` (not ``make lab``), for a learner with no
Jupyter settings of their own (a new home and config folder), on a copy of chapter 2. The
learner runs every cell and saves; the server stops and starts again, and the chapter is
opened again. Each "Try" panel must show its picture, and no output may read "Error displaying
widget: model not found". That holds because ``make setup`` installs ``labs/overrides.json``
as JupyterLab's defaults for that ``.venv`` (widget state saved with the notebook).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.test_hub import _free_ports, _menu
from tests.test_site import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, _need_browser

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "02-the-recurrent-cell.ipynb"
PANELS = ("scalar_cell_try()", "six_state_try()")  # the chapter's two "Try" cells
WAIT_MS = 120_000


def _start_lab(work: Path, home: Path, port: int, log: Path) -> subprocess.Popen:
    env = dict(os.environ, HOME=str(home), JUPYTER_CONFIG_DIR=str(home / ".jupyter"))
    for name in ("JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "MWM_STUDENT"):
        env.pop(name, None)
    args = [str(Path(sys.executable).parent / "jupyter"), "lab", "--no-browser", f"--port={port}",
            "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={work}"]
    if os.geteuid() == 0:
        args.append("--allow-root")
    process = subprocess.Popen(args, env=env, stdout=open(log, "a"), stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None, "JupyterLab stopped:\n" + log.read_text()[-3000:]
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2):
                return process
        except OSError:
            assert time.monotonic() < deadline, "JupyterLab did not answer in 60 s:\n" + log.read_text()[-3000:]
            time.sleep(0.3)


def _stop_lab(process: subprocess.Popen):
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _open(browser, port: int):
    """The chapter opened in a new tab once its kernel is idle, and a list that collects the tab's console."""
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(WAIT_MS)
    console = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}") if m.type != "debug" else None)
    page.goto(f"http://127.0.0.1:{port}/lab/tree/chapters/{CHAPTER}?reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell")
    page.wait_for_selector("text=Python 3 (ipykernel) | Idle")
    return page, console


def _panels_shown(page, console) -> str | None:
    """Check that each "Try" cell shows its picture; the call whose cell says "model not found" instead, if one does.

    Raises:
        AssertionError: when a cell shows neither a picture nor that message, or a broken picture.
    """
    for call in PANELS:
        cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea", has_text=call)).first
        cell.scroll_into_view_if_needed()
        # the panel's Image widget, not a PNG the output might also carry (shown when the widget is not)
        picture = cell.locator(".jp-OutputArea-output img.widget-image").first
        missing = cell.locator("text=model not found")
        try:
            picture.or_(missing).first.wait_for()
        except Exception as exc:   # say what the learner would see instead
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "lab-chapter-reopened-failed.png"))
            raise AssertionError(f"{call}: no picture; the cell shows {cell.inner_text()[:600]!r}; "
                                 f"the console said {console[-20:]}") from exc
        if missing.count():
            return call
        picture.scroll_into_view_if_needed()
        assert picture.evaluate("img => img.complete && img.naturalWidth > 0"), call
    return None


def _panel_model(nb: dict, call: str) -> str:
    """The widget model id that the output of the code cell calling ``call`` shows."""
    for c in nb["cells"]:
        if c["cell_type"] == "code" and call in "".join(c["source"]):
            for o in c.get("outputs", []):
                view = o.get("data", {}).get("application/vnd.jupyter.widget-view+json")
                if view:
                    return view["model_id"]
    raise AssertionError(f"{call}: no cell shows a widget")


def _picture_bytes(state: dict, model_id: str) -> int:
    """Bytes of the first Image widget's value under ``model_id`` in a saved widget ``state`` (0 if none)."""
    model = state.get(model_id, {})
    if model.get("model_name") == "ImageModel":
        return sum(len(b.get("data", "")) for b in model.get("buffers", []) if b.get("path") == ["value"])
    for child in model.get("state", {}).get("children", []):
        found = _picture_bytes(state, child.removeprefix("IPY_MODEL_"))
        if found:
            return found
    return 0


def test_a_chapter_reopened_after_a_restart_shows_its_panels_not_model_not_found(tmp_path):
    _need_browser()
    from playwright.sync_api import sync_playwright

    defaults = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert defaults.is_file() and json.loads(defaults.read_text()) == json.loads(
        (ROOT / "labs" / "overrides.json").read_text()), f"{defaults} is not labs/overrides.json: run make setup"
    work, home, log = tmp_path / "work", tmp_path / "home", tmp_path / "lab.log"
    (work / "chapters").mkdir(parents=True)
    home.mkdir()
    shutil.copy(ROOT / "chapters" / CHAPTER, work / "chapters")
    n_code = sum(c["cell_type"] == "code" for c in json.loads((ROOT / "chapters" / CHAPTER).read_text())["cells"])
    (port,) = _free_ports(1)
    lab = _start_lab(work, home, port, log)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page, _ = _open(browser, port)
            # The committed outputs go first, so whatever is seen after the restart is the learner's run.
            _menu(page, "Edit", "Clear Outputs of All Cells")
            last = page.locator(".jp-CodeCell").last
            last.scroll_into_view_if_needed()
            last.locator(".jp-InputPrompt:text-is('[ ]:')").wait_for()
            _menu(page, "Run", "Run All Cells")
            # Done when the last code cell shows the fresh kernel's last execution count (the
            # kernel goes idle between cells, so its status alone says nothing).
            last.locator(f".jp-InputPrompt:text-is('[{n_code}]:')").wait_for()
            page.keyboard.press("Control+s")
            page.wait_for_selector(".jp-mod-dirty", state="detached")
            browser.close()
        _stop_lab(lab)
        saved = json.loads((work / "chapters" / CHAPTER).read_text())
        state = saved["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
        for call in PANELS:   # each panel's models, its picture's bytes among them, went into the file
            shown = _panel_model(saved, call)
            assert shown in state, f"{call}: its panel's model is not in the saved widget state"
            assert _picture_bytes(state, shown) > 0, f"{call}: the saved widget state has no picture"

        lab = _start_lab(work, home, port, log)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for attempt in (1, 2):
                page, console = _open(browser, port)
                raced = _panels_shown(page, console)
                if not raced:
                    break
                # jupyterlab_widgets 3.0.17 marks the widgets restored once the new kernel says it has
                # none, which can come before the notebook's saved state is loaded; a panel asking in
                # that gap for more than 2 s (a loaded machine) shows "model not found". Closing the
                # tab and opening it again, as a learner would, must then show every panel.
                assert attempt == 1, f"{raced}: 'model not found' again after the chapter was opened a second time"
                print(f"{raced}: 'model not found' on the first opening (the widget manager's race); opening again")
                page.close()
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "lab-chapter-reopened.png"))
            browser.close()
    finally:
        _stop_lab(lab)
