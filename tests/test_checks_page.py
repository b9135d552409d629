"""The website's "How we checked" page (checks.md): up to date, and every script or test a chapter names links to it."""
import json
import re

from scripts.book import checks_page
from tests.chapter_cells import CHAPTERS as CHAPTER_DIR

CHAPTERS = sorted(CHAPTER_DIR.glob("[0-9][0-9]-*.ipynb"))


def test_the_page_is_what_the_files_give():
    assert checks_page.main(["--check"]) == 0
    text = checks_page.PAGE.read_text(encoding="utf-8")
    for name in checks_page.DATA_SCRIPTS:
        assert f"| `scripts/{name}.py` | " in text and checks_page.first_line(checks_page.ROOT / "scripts" / f"{name}.py")
    assert text.count("| `tests/test_") == len(list((checks_page.ROOT / "tests").glob("test_*.py")))
    assert "checks" in (checks_page.ROOT / "_toc.yml").read_text(encoding="utf-8")


def test_every_script_or_test_a_chapter_names_is_a_link_to_the_page():
    listed = set(re.findall(r"`((?:scripts|tests)/\w+\.py)`", checks_page.page()))
    named = 0
    for path in CHAPTERS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            text = "".join(cell["source"])
            for mention in re.finditer(r"(\[)?`((?:scripts|tests)/\w+\.py)[^`]*`(\]\(([^)]*)\))?", text):
                named += 1
                assert mention.group(1) and mention.group(4) == "../checks.md", (path.name, mention.group(0))
                assert mention.group(2) in listed, (path.name, mention.group(2))
            assert "README" not in text, (path.name, "the website has no README: link or cut")
    assert named >= 5  # the chapters still name a few scripts (most checks left the reader's path): the loop checks something
