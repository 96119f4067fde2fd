"""The bind rule: with no users configured the app runs open (single-user local use) only on a
loopback address."""
from __future__ import annotations

import ipaddress


def is_loopback(address: str | None) -> bool:
    """True for ``127.0.0.0/8``, ``::1`` and ``localhost``; an empty address means every interface."""
    address = (address or "").strip().strip("[]")
    if address.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False  # a host name or "" (all interfaces): not provably loopback


def open_mode_refusal(address: str | None, users_configured: bool) -> str | None:
    """Why the app must not serve (None when it may): open mode on a non-loopback address."""
    if users_configured or is_loopback(address):
        return None
    shown = address or "every interface"
    return (f"Refusing to serve: the app listens on {shown} but no users are configured, so anyone on the "
            "network could read and delete every knowledge base. Create users first "
            "(`python -m swr users add NAME --role admin`), or bind 127.0.0.1 "
            "(server.address in .streamlit/config.toml) for single-user local use.")
