"""The parts of the exported evidence card (:func:`swr.manage.render.evidence_card_html`): its
answer labels, the settings table with secrets masked, and the PDF page crops of a passage."""
from __future__ import annotations

import json
import re
from typing import Any

from swr.manage.escape import esc

KIND_LABELS = {
    "llm": "LLM answer",
    "extractive": "Extractive answer (no LLM configured)",
}


_SECRET_NAME = re.compile(r"(?i)(^|_)(api_?key|key|secret|password|passwd|token|auth|authorization)$")
_URL_USERINFO = re.compile(r"(?i)\b(https?://)[^/\s\"'@]+@")


def mask_secrets(name: str, value: Any) -> Any:
    """``value`` with secret-named entries (api_key, token, ...) masked, also when nested, and
    user:password removed from URLs."""
    if _SECRET_NAME.search(str(name)) and value:
        return "***"
    if isinstance(value, dict):
        return {k: mask_secrets(k, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_secrets("", v) for v in value]
    if isinstance(value, str):
        return _URL_USERINFO.sub(r"\1***@", value)
    return value


def _setting_value(name: str, value: Any) -> str:
    """A settings value as text, secrets masked."""
    value = mask_secrets(name, value)
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def settings_html(settings: dict) -> str:
    """The settings as a two-column table."""
    rows = "".join(
        f"<tr><td>{esc(k)}</td><td>{esc(_setting_value(k, v))}</td></tr>"
        for k, v in (settings or {}).items()
    )
    return f'<table class="swr-settings">{rows}</table>' if rows else "<p>(none)</p>"


_PNG_URI = re.compile(r"data:image/png;base64,[A-Za-z0-9+/]+={0,2}")


def page_images_html(images: list[tuple[str, str]]) -> str:
    """The page crops of one passage's hits: ``<figure class="swr-crop">`` each (caption escaped)."""
    out = [f'<figure class="swr-crop"><img alt="{esc(cap)}" src="{uri}" style="max-width:100%;'
           f'border:1px solid #d0d7de;border-radius:6px"><figcaption class="swr-meta">{esc(cap)}</figcaption></figure>'
           for cap, uri in images if _PNG_URI.fullmatch(uri or "")]
    return "".join(out)
