"""The book's tools: ``make book``'s execution cache and panel drawing (``book_cache``), a chapter
executed for commit (``execute_notebooks``), the diagrams (``draw_figures``), the "How we checked"
page (``checks_page``) and the count of a chapter's main prose (``prose_words``)."""
