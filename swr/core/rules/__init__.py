"""The rules objects: every number a rule decides by, named once with its meaning and the data it
was calibrated on (frozen dataclasses, reachable from the typed params), and the stable ids of the
rules that leave a trace."""
from __future__ import annotations

from dataclasses import fields
from typing import Any, Self


class FromDict:
    """``from_dict`` for a rules dataclass: the rules from a dict (the JSON of a request, a published
    setting, a benchmark's change; unknown keys ignored), or ``d`` itself when it is rules already."""

    @classmethod
    def from_dict(cls, d: Any) -> Self:
        if isinstance(d, cls):
            return d
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in (d or {}).items() if k in known})
