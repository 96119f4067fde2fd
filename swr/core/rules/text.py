"""The numbers of the text stage's rules (swr/text/structure.py). Free unless marked calibrated."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StructureRules:
    """What makes a line a heading, a list item or a table row (swr/text/structure.py)."""

    # a chapter line ("第三章 清洁") or a numbered one ("2.1 Cleaning") is a heading only when at most
    # this many characters long (a longer one is a sentence that starts with a number); set on the
    # sample manuals and tests/test_structure.py; changing it changes STRUCTURE_VERSION's output
    heading_chars: int = 40


DEFAULT_STRUCTURE = StructureRules()
