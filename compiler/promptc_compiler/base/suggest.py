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


def near_miss(word: str, choices: Iterable[str]) -> str | None:
    """The choice `word` is a slip of: equal but for case, `-`/`_` or a plural
    `s`, or one edit away (two in words longer than six letters). Stricter than
    `closest`, so that invented keys (`version`, `tags`) are not taken for
    typos of real ones (`permission`, `targets`)."""
    pool = list(choices)
    norm = fold(word)
    for choice in pool:
        target = fold(choice)
        if norm in (target, target + "s") or target == norm + "s":
            return choice
    limit = 1 if len(norm) <= 6 else 2
    best = [c for c in pool if _distance(norm, fold(c)) <= limit]
    if len(best) == 1:
        return best[0]
    return closest(word, best) if best else None


def fold(word: str) -> str:
    """A spelling without case, `-` or `_`: `allowed_tools` and `allowedTools` fold alike."""
    return word.lower().replace("-", "").replace("_", "")


def _distance(a: str, b: str) -> int:
    """Edit distance with adjacent transpositions (optimal string alignment)."""
    if abs(len(a) - len(b)) > 2:
        return 3
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, start=1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]
