"""Did-you-mean suggestions for misspelt names (keys, rules, fragments, agents)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The most likely intended name, or None when nothing is close."""
    pool = sorted(set(choices))
    lowered = {c.lower(): c for c in pool}
    if word.lower() in lowered:
        return lowered[word.lower()]
    # Plural and singular slips (`permissions`, `agent`) are common in real files.
    for candidate in (word.rstrip("s"), word + "s"):
        if candidate in pool:
            return candidate
    matches = difflib.get_close_matches(word, pool, n=1, cutoff=0.6)
    return matches[0] if matches else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A message suffix: ' (did you mean `x`?)' or ''."""
    best = closest(word, choices)
    return f" (did you mean `{best}`?)" if best and best != word else ""
