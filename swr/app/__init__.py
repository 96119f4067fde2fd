"""The Streamlit app: the only swr package that imports Streamlit.

``app.py`` and ``pages/*.py`` are few-line shells that call one page module's ``render()``:
:mod:`.chat`, :mod:`.knowledge_bases`, :mod:`.tune`, :mod:`.verify`, :mod:`.compare`. Shared
pieces: :mod:`.base` (page setup, the cached engine), :mod:`.state` (the session-state schema),
:mod:`.components` (sidebar, errors, answer card, evidence, passage cards), :mod:`.presets` (the
preset questions of a knowledge base), :mod:`.probe` ("why not retrieved?"), :mod:`.tune_charts`.

Document text, file names, knowledge-base names, questions and answers are untrusted: they reach
the page only as escaped HTML from :mod:`swr.manage.render` (``st.html``), through
:func:`.components.errors.md` (escaped Markdown) or as plain widget/table text.
"""
