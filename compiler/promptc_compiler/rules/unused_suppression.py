"""A suppression that suppresses nothing, or that cannot: no reason, no such rule.

A finding kept on purpose is suppressed with its reason, in the rule's config
table or as a comment in a spec's frontmatter:

    [[rules.unknown-key.suppress]]
    path = "specs/agents/scout.md"
    contains = "category"
    reason = "our router reads it"

    ---
    description: Explores the codebase read-only and reports findings.
    category: research  # promptc: suppress[unknown-key] our router reads it
    ---

A comment alone on its line speaks of the next line. Reported here: a
suppression whose finding is gone (a warning: remove it), and, as errors, one
without a reason, one naming no rule, and one for a rule whose findings cannot
be suppressed (the pipeline's stages: `syntax`, `encoding`, `schema`,
`compose`, `emit`, `wider-translation`, `write`, `stale-output`, ...; their
errors guard what promptc writes). `promptc lint --verbose` does not show
suppressed findings; `promptc explain RULE` says whether a rule can be
suppressed.

Options: none (the level applies to unused suppressions; malformed ones are
always errors).

Fails:
    category: research  # promptc: suppress[unknown-key]
Passes:
    category: research  # promptc: suppress[unknown-key] our router reads it
"""

ID = "unused-suppression"
DEFAULT_LEVEL = "warning"
STAGE = True
LEVEL_FIXED = False
OPTIONS: dict[str, object] = {}
