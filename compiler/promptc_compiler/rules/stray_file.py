"""A file under specs/ or fragments/ that is not markdown, and so is ignored.

Reported by discovery as a warning so that nothing is skipped silently: a
`reviewer.txt` or `reviewer.MD` next to the agents would otherwise vanish.
"""

ID = "stray-file"
DEFAULT_LEVEL = "warning"
STAGE = True
OPTIONS: dict[str, object] = {}
