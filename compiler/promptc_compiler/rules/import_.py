"""What `promptc import` could not carry over, or refused to write.

Reported by `promptc import opencode|claude DIR`: a source file that could not
be read, a key with no meaning in the spec format (kept under `targets:` where a
target reads it, otherwise named here), session-wide Claude Code settings with no
per-agent equivalent, and existing specs that are not overwritten without
`--force`. Files that could not be read are errors; what was left behind is a
warning, which fails the import only under `--strict`.
"""

ID = "import"
DEFAULT_LEVEL = "warning"
STAGE = True
OPTIONS: dict[str, object] = {}
