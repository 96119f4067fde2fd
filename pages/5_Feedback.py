"""A page of the swr workbench: ``streamlit run app.py``. Every page file is this same shell; its
name is the page's URL and picks the module of swr.app that draws it (swr.app.base.PAGE_MODULES)."""
from swr.app.base import run_page

run_page(__file__)
