"""Frontmatter the runtime would reject: a wrong type, a value outside its set.

Reported by the validate stage against schemas/agent.schema.json,
mode.schema.json and fragment.schema.json, at the offending value (or key),
always as an error. The message names the JSON path, what is accepted and
what was found, and how to fix the usual causes: a quoted number, a YAML date
where text is expected, `yes` for true, a `#` colour read as a comment, a
misspelt action (`alow`), a map given to a permission that takes one action
(`webfetch`, `question`, `todowrite`, `websearch`, `doom_loop`), Claude Code's
`tools` list or colour names.

How the work is split: `schema` reports what OpenCode (or Claude Code, for
`targets.claude`) refuses to load, and promptc's own format rules (a mode's
keys, `targets`, a missing `description`). Mistakes the runtime loads but
misreads have their own ids with their own levels: `key-typo` (`permisson:`),
`unknown-key` (keys OpenCode moves into `options`), `cross-ecosystem`
(`model: haiku`, `allowed-tools`), `deprecated-key` (`tools` maps, `maxSteps`).
Unknown agent keys are never schema errors, because OpenCode accepts them.

Fails:
    ---
    description: Reviews diffs.
    mode: sidekick        # $.mode: 'sidekick' is not one of subagent, primary, all
    temperature: "0.2"    # $.temperature: must be a number (found the text '0.2')
    permission:
      webfetch:           # takes one action (allow, ask or deny), not a map of patterns
        "*": allow
    ---
"""

ID = "schema"
DEFAULT_LEVEL = "error"
STAGE = True
OPTIONS: dict[str, object] = {}
