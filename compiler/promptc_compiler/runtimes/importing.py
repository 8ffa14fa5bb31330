"""What every runtime's import shares: a note on what it could not carry over."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    """Something the import could not carry over, at a frontmatter key."""

    key: str
    message: str
