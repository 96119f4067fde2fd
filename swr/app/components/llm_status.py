"""The system panel's LLM row: a remote endpoint, or the local model and its server's health."""
from __future__ import annotations

from swr.core.redact import safe_url


def llm_status_line(llm: dict) -> str:
    """One line for ``Engine.system_info()["llm"]``."""
    if not llm.get("configured"):
        return ("not configured: answers are extractive (set OPENAI_BASE_URL and SWR_LLM_MODEL, or run "
                "scripts/setup.sh --local-llm)")
    local = llm.get("local_server")
    if local:
        state = local["status"] + (f", loaded in {local['load_s']} s" if local.get("load_s") else "")
        line = f"{local['model']} (local, {local['threads']} thread(s)): {state}"
        return line + (f" - {local['error']}" if local.get("error") else "")
    return f"{llm.get('model')} at {safe_url(llm.get('base_url') or '')}"
