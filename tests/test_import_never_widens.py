"""`promptc import claude` never widens: for generated Claude Code agents and
settings, no tool call the imported bundle decides is decided wider than Claude
Code decided it (deny < ask < allow).

OpenCode's side is compiler.permissions over the files the import plans
(OpenCode's defaults, then the proposed config `permission`, then the agent's
own `permission`), evaluated as a primary session, which appends no deny; Claude
Code's side is tests/claude_model.py, written apart from the importer from
Claude Code's documented rules.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from compiler import wildcard
from compiler.config import load_config
from compiler.importer import plan_import
from compiler.permissions import Origin, Rule, defaults, evaluate, from_config
from compiler.translate import ENVIRONMENT
from tests import claude_model
from tests.strategies import (
    CLAUDE_AGENTS,
    SCRATCH,
    claude_agent_meta,
    claude_settings,
    tick,
)

# Claude tool -> the OpenCode permission its calls ask for, and inputs to ask about.
COMMANDS = ["git diff HEAD", "git push origin main", "git", "npm test", "ls", "lsof", "rm -rf /"]
PATHS = ["src/a.py", "src/b/c.py", "README.md", "docs/x.md", "a/README.md", ".env", "a.txt"]
PROBES: dict[str, tuple[str, list[str]]] = {
    "Read": ("read", PATHS),
    "Edit": ("edit", PATHS),
    "Write": ("edit", PATHS),
    "Glob": ("glob", ["*"]),
    "Grep": ("grep", ["*"]),
    "Bash": ("bash", COMMANDS),
    "WebFetch": ("webfetch", ["https://example.com/a", "https://other.org/"]),
    "WebSearch": ("websearch", ["*"]),
    "Agent": ("task", CLAUDE_AGENTS),
    "TodoWrite": ("todowrite", ["*"]),
    "Skill": ("skill", ["*"]),
    "LSP": ("lsp", ["*"]),
}

IMPORTED = Origin("config", "the imported files")


def _rules(data: Any, patterns: wildcard.Patterns) -> list[Rule]:
    if data is None:
        return []
    value = {"*": data} if isinstance(data, str) else data
    return from_config(value, ENVIRONMENT.home, lambda path: IMPORTED, patterns)


def _plan(agents: list[dict[str, Any]], settings: list[dict[str, Any]]) -> tuple[Any, Path]:
    with tempfile.TemporaryDirectory(prefix="promptc-import-", dir=SCRATCH) as scratch:
        root = Path(scratch)
        folder = root / "source/.claude/agents"
        folder.mkdir(parents=True)
        for name, meta in zip(CLAUDE_AGENTS, agents, strict=False):
            front = yaml.safe_dump({"name": name, **meta}, sort_keys=False)
            (folder / f"{name}.md").write_text(f"---\n{front}---\nBody of {name}.\n")
        for name, doc in zip(("settings.json", "settings.local.json"), settings, strict=False):
            (root / "source/.claude" / name).write_text(json.dumps(doc))
        (root / "bundle").mkdir()
        return plan_import("claude", root / "source", load_config(cwd=root / "bundle")), root


def _agent_permission(files: Mapping[str, str], name: str) -> Any:
    text = files[f"specs/agents/{name}.md"]
    return yaml.safe_load(text[4:].split("\n---\n", 1)[0]).get("permission")


@given(
    agents=st.lists(claude_agent_meta(), min_size=1, max_size=3),
    settings=st.lists(claude_settings(), max_size=2),
)
def test_imported_claude_agents_never_decide_wider_than_claude_code(
    agents: list[dict[str, Any]], settings: list[dict[str, Any]]
) -> None:
    tick("import-never-widens")
    plan, _ = _plan(agents, settings)
    assert not [n for n in plan.notes if n.severity.value == "error"], plan.notes
    patterns = wildcard.Patterns()
    base = _rules(defaults(ENVIRONMENT), patterns) + _rules(plan.config.get("permission"), patterns)
    claude_settings_, mode = claude_model.source_settings(settings)
    for name, meta in zip(CLAUDE_AGENTS, agents, strict=False):
        rules = base + _rules(_agent_permission(plan.files, name), patterns)
        source = claude_model.source_agent(meta)
        for tool, (permission, inputs) in PROBES.items():
            for value in inputs:
                claude = claude_model.source_decide(source, claude_settings_, mode, tool, value)
                opencode = evaluate(rules, permission, value).action
                assert claude_model.RANK[opencode] <= claude_model.RANK[claude], (
                    name,
                    tool,
                    value,
                    opencode,
                    claude,
                )
