"""Frontmatter that does not match its JSON Schema (schemas/*.schema.json).

Reported by the validate stage at the offending key or value, always as an
error. The message names the JSON path; an unknown key gets a did-you-mean.

Fails:
    ---
    description: Reviews diffs.
    mode: sidekick        # $.mode: 'sidekick' is not one of subagent, primary, all
    ---
"""

ID = "schema"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}
