"""A page of the swr workbench: ``streamlit run app.py``. Every page file is this same shell; its
name is the page's URL and picks the module of swr.app that draws it (swr.app.base.PAGE_MODULES).

``streamlit run app.py`` imports this file for its ASGI application (``app`` below): the pages and
the HTTP API (swr.api) in one process around one engine; each session then runs it as its script."""
import streamlit as st

from swr.app.base import run_page

if __name__ == "__main__":  # a session's run of the chat page
    run_page(__file__)
else:  # imported by `streamlit run` for its application: the pages and the API
    from swr.app.asgi import app_options

    app = st.App(__file__, **app_options())
