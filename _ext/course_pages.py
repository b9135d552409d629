"""Sphinx extension of the course: a "run it yourself" note on every chapter page.

It also removes a duplicated script tag that this Jupyter Book version emits.

Each page under ``chapters/`` gets, right under its title, a short note with a link that
downloads the chapter's notebook (Sphinx copies the file into the site's ``_downloads``)
and the commands that open it live in JupyterLab, where every "Try" panel is
interactive.
"""
from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx import addnodes


def _note(docname: str, source: str) -> nodes.Element:
    name = Path(source).name
    para = nodes.paragraph()
    para += nodes.strong(text="Run this chapter yourself. ")
    para += nodes.Text("Download ")
    ref = addnodes.download_reference("", "", refdoc=docname, reftarget=name, refexplicit=True)
    ref += nodes.literal(text=name)
    para += ref
    para += nodes.Text(", or clone the course, run ")
    para += nodes.literal(text="make setup")
    para += nodes.Text(" in its folder (see its README), then open it with ")
    para += nodes.literal(text=f".venv/bin/jupyter lab chapters/{name}")
    para += nodes.Text(". There every panel is live; on this page the panels replay figures drawn when the site was built.")
    note = nodes.admonition(classes=["tip", "run-locally"])
    note += nodes.title(text="Run it locally")
    note += para
    return note


def add_run_note(app, doctree) -> None:
    docname = app.env.docname
    if not docname.startswith("chapters/"):
        return
    source = app.env.doc2path(docname)
    for section in doctree.findall(nodes.section):
        title = next(iter(section.findall(nodes.title)), None)
        index = section.index(title) + 1 if title is not None else 0
        section.insert(index, _note(docname, str(source)))
        break


def drop_duplicate_scripts(app, pagename, templatename, context, doctree) -> None:
    """Keep each script once: sphinx-thebe registers its settings script twice in this
    Jupyter Book version, and the second copy throws "already declared" in the browser."""
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        filename = getattr(script, "filename", script) or ""  # the copies differ only in None vs ""
        key = (str(filename), tuple(sorted((k, str(v)) for k, v in getattr(script, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", drop_duplicate_scripts)
    # Run before Sphinx's own collectors (priority 500) so the download link is registered.
    app.connect("doctree-read", add_run_note, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
