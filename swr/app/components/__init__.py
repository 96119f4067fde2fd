"""Pieces several pages draw: :mod:`.sidebar`, :mod:`.errors`, :mod:`.answer` (the answer card),
:mod:`.evidence` (evidence head, scroll box) and :mod:`.passages` (passage cards)."""
