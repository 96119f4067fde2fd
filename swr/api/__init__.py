"""The HTTP interface (FastAPI; the only importer of fastapi and mcp): the native API under
``/api/v1``, Dify's external knowledge at ``/dify/retrieval``, OpenAI-compatible chat under ``/v1``
and MCP at ``/mcp``. :func:`swr.api.app.create_app` builds it around one engine; ``streamlit run
app.py`` serves it beside the pages, ``python -m swr serve`` alone."""
