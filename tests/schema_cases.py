"""Planted frontmatter defects: where promptc must report each, and whether OpenCode loads it.

Each case is one agent file. `expect` holds every (line, column, rule id)
promptc reports for it, errors and warnings alike; `rejected` records what
the real `opencode agent list` (opencode-ai 1.18.33) does with the same file
as `.opencode/agents/<name>.md`: True when it refuses to load.
"""

from __future__ import annotations

from dataclasses import dataclass

DESCRIPTION = "description: Reviews diffs for bugs and missing tests."


@dataclass(frozen=True)
class Case:
    name: str
    frontmatter: str  # lines between the fences, without a trailing newline
    expect: frozenset[tuple[int, int, str]]
    rejected: bool

    @property
    def text(self) -> str:
        return f"---\n{self.frontmatter}\n---\nReview the diff.\n"


def case(name: str, frontmatter: str, rejected: bool, *expect: tuple[int, int, str]) -> Case:
    return Case(name, frontmatter, frozenset(expect), rejected)


D = DESCRIPTION
CASES = (
    # Values OpenCode refuses to load: `schema`.
    case("mode-unknown", f"{D}\nmode: sidekick", True, (3, 7, "schema")),
    case("mode-null", f"{D}\nmode:", True, (3, 6, "schema")),
    case("temperature-string", f'{D}\ntemperature: "0.2"', True, (3, 14, "schema")),
    case("temperature-infinite", f"{D}\ntemperature: .inf", True, (3, 14, "schema")),
    case("steps-zero", f"{D}\nsteps: 0", True, (3, 8, "schema")),
    case("steps-fraction", f"{D}\nsteps: 1.5", True, (3, 8, "schema")),
    case("hidden-yes", f"{D}\nhidden: yes", True, (3, 9, "schema")),
    case("disable-number", f"{D}\ndisable: 1", True, (3, 10, "schema")),
    case("variant-number", f"{D}\nvariant: 5", True, (3, 10, "schema")),
    case("options-list", f"{D}\noptions: [fast]", True, (3, 1, "schema")),
    case("description-date", "description: 2026-01-13", True, (2, 14, "schema")),
    case("model-date", f"{D}\nmodel: 2026-01-13", True, (3, 8, "schema")),
    case("tools-list", f"{D}\ntools:\n  - read\n  - bash", True, (3, 1, "schema")),
    case("tools-comma-string", f"{D}\ntools: Read, Grep, Glob", True, (3, 8, "schema")),
    case(
        "tools-map-not-bool",
        f"{D}\ntools:\n  bash: nope",
        True,
        (4, 9, "schema"),
        (3, 1, "deprecated-key"),
    ),
    case("color-claude-name", f"{D}\ncolor: blue", True, (3, 8, "schema")),
    case("color-hex-unquoted", f"{D}\ncolor: #FF5733", True, (3, 7, "schema")),
    case("permission-null", f"{D}\npermission:", True, (3, 12, "schema")),
    case("permission-list", f"{D}\npermission: [bash]", True, (3, 1, "schema")),
    case("permission-action-typo", f"{D}\npermission:\n  bash: alow", True, (4, 9, "schema")),
    case(
        "permission-pattern-yes",
        f'{D}\npermission:\n  bash:\n    "git *": yes',
        True,
        (5, 14, "schema"),
    ),
    case(
        "permission-scalar-map",
        f'{D}\npermission:\n  webfetch:\n    "*": allow',
        True,
        (4, 3, "schema"),
    ),
    case(
        "permission-doom-loop-map",
        f'{D}\npermission:\n  doom_loop:\n    "*": ask',
        True,
        (4, 3, "schema"),
    ),
    case(
        "permission-custom-action", f"{D}\npermission:\n  plan_db: maybe", True, (4, 12, "schema")
    ),
    # promptc's own format: `schema`, though OpenCode loads the file.
    case("description-missing", "mode: subagent", False, (1, 1, "schema")),
    case("targets-unknown", f"{D}\ntargets:\n  claud:\n    model: haiku", False, (4, 3, "schema")),
    case(
        "targets-claude-colour",
        f"{D}\ntargets:\n  claude:\n    color: teal",
        False,
        (5, 12, "schema"),
    ),
    case(
        "targets-claude-hooks-list",
        f"{D}\ntargets:\n  claude:\n    hooks: []",
        False,
        (5, 5, "schema"),
    ),
    case(
        "targets-claude-provider",
        f"{D}\ntargets:\n  claude:\n    model: anthropic/claude-haiku-4-5",
        False,
        (5, 12, "schema"),
    ),
    # Loaded by OpenCode but lost or misread.
    case("key-permisson", f"{D}\npermisson:\n  bash: deny", False, (3, 1, "key-typo")),
    case("key-permissions", f"{D}\npermissions:\n  bash: deny", False, (3, 1, "key-typo")),
    case("key-permision", f"{D}\npermision:\n  bash: deny", False, (3, 1, "key-typo")),
    case("key-temprature", f"{D}\ntemprature: 0.2", False, (3, 1, "key-typo")),
    case("key-invented", f"{D}\ncategory: review", False, (3, 1, "unknown-key")),
    case("key-date-invented", f"{D}\nlast_updated: 2026-01-13", False, (3, 1, "unknown-key")),
    case("model-claude-alias", f"{D}\nmodel: haiku", False, (3, 8, "cross-ecosystem")),
    case("model-mode-value", f"{D}\nmodel: subagent", False, (3, 8, "cross-ecosystem")),
    case("model-no-provider", f"{D}\nmodel: gpt-4o", False, (3, 8, "cross-ecosystem")),
    case(
        "allowed-tools-on-agent",
        f"{D}\nallowed-tools: Read, Grep",
        False,
        (3, 1, "cross-ecosystem"),
    ),
    case("hooks-empty-list", f"{D}\nhooks: []", False, (3, 1, "cross-ecosystem")),
    case(
        "claude-key-permission-mode", f"{D}\npermissionMode: plan", False, (3, 1, "cross-ecosystem")
    ),
    case(
        "permission-claude-tool",
        f"{D}\npermission:\n  Bash: deny",
        False,
        (4, 3, "cross-ecosystem"),
    ),
    case(
        "permission-claude-rule",
        f'{D}\npermission:\n  "Bash(git push *)": deny',
        False,
        (4, 3, "cross-ecosystem"),
    ),
    case(
        "tools-map-and-permission",
        f"{D}\ntools:\n  bash: false\npermission:\n  edit: deny",
        False,
        (3, 1, "deprecated-key"),
    ),
    case("max-steps", f"{D}\nmaxSteps: 5", False, (3, 1, "deprecated-key")),
)

# The valid example of shared/reference/opencode.md, verbatim: no diagnostics at all.
REFERENCE_AGENT = """\
---
description: Reviews diffs for bugs and missing tests. Use after code changes.
mode: subagent
temperature: 0.1
permission:
  edit: deny
  webfetch: deny
  bash:
    "*": ask
    "git diff*": allow
    "rm *": deny
  task:
    "*": deny
---
You are a strict code reviewer.
"""
