"""An agent can use a tool in OpenCode but not in a runtime promptc writes for.

The translation never widens: what a runtime cannot hold exactly for one
agent, it narrows, down to leaving a tool out. This warning says when that
took a whole kind of tool from an agent that OpenCode lets use it (some call
allowed or asked): its shell, edits, reads, searches, web access, delegation
or skills. One line per agent names the tools some target takes from it,
at its `permission` key:

    specs/agents/scout.md:7:1: warning [lost-tool] `scout` loses read, shell

`--verbose` prints below it what each runtime takes (`Codex (codex): read,
shell: ...`); the json output has it as the diagnostic's `detail`, and each
target's TRANSLATION.md lists it. Every build also prints one line per
target, for example
`gemini: 14 agents; 8 lost shell, 7 lost edit; 61% of 900 usable calls kept`.

To hand a tool back on purpose where the runtime cannot narrow it, accept the
widening for that runtime (`accept_wider` in `[targets.<name>]`, see
wider-translation); to silence the warning, set this rule's level.

Options: none.
"""

ID = "lost-tool"
DEFAULT_LEVEL = "warning"
STAGE = True
LEVEL_FIXED = False
OPTIONS: dict[str, object] = {}
