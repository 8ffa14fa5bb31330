"""How Codex CLI 0.171.0 decides a command, read from the files promptc emitted.

Written apart from compiler.codex_rules, from Codex's documented rules (and
held against `codex execpolicy check` in test_conformance_codex.py):

- `.codex/rules/*.rules` hold `prefix_rule(pattern=[...], decision=...)`: a
  pattern element is a word or a list of alternative words; a rule matches a
  command whose first words are its pattern's; `decision` defaults to allow;
  of all matching rules the strictest decides (forbidden > prompt > allow);
- no rule matching: Codex runs the command in its sandbox without asking
  (counted as allow: nothing asks);
- a role whose file says `[features] shell_tool = false`, or every role and
  the main session when `.codex/config.toml` says it, has no shell (deny).
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

RANK = {"deny": 0, "ask": 1, "allow": 2}
AS_OPENCODE = {"forbidden": "deny", "prompt": "ask", "allow": "allow"}
STRICT = {"allow": 0, "prompt": 1, "forbidden": 2}
MAIN = "main session"


@dataclass(frozen=True)
class Rule:
    pattern: tuple[tuple[str, ...], ...]  # per position, the alternatives
    decision: str

    def matches(self, command: Sequence[str]) -> bool:
        return len(command) >= len(self.pattern) and all(
            word in choices for word, choices in zip(command, self.pattern, strict=False)
        )


@dataclass(frozen=True)
class Codex:
    rules: tuple[Rule, ...]
    shell: Mapping[str, bool]  # role name -> has exec_command (the main session too)

    def policy(self, command: Sequence[str]) -> str | None:
        """What `codex execpolicy check` says: the strictest matching decision, or None."""
        found = [r.decision for r in self.rules if r.matches(command)]
        return max(found, key=STRICT.__getitem__) if found else None

    def decide(self, role: str, command: Sequence[str]) -> str:
        """deny, ask or allow for a command the role (or MAIN) runs."""
        if not self.shell[role]:
            return "deny"
        found = self.policy(command)
        return AS_OPENCODE[found] if found else "allow"


def parse_rules(text: str) -> tuple[Rule, ...]:
    """The prefix rules of a `.rules` file (its Starlark is Python's syntax here)."""
    found = []
    for node in ast.parse(text).body:
        assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Call), ast.dump(node)
        args = {k.arg: ast.literal_eval(k.value) for k in node.value.keywords}
        pattern = tuple(tuple(p) if isinstance(p, list) else (p,) for p in args["pattern"])
        found.append(Rule(pattern, args.get("decision", "allow")))
    return tuple(found)


def load(files: Mapping[str, bytes]) -> Codex:
    """The model of a codex target's output ({path under out/codex/: bytes})."""
    config = tomllib.loads(files[".codex/config.toml"].decode())
    off = config.get("features", {}).get("shell_tool") is False
    shell = {MAIN: not off}
    for rel, data in files.items():
        if rel.startswith(".codex/agents/") and rel.endswith(".toml"):
            role = tomllib.loads(data.decode())
            shell[role["name"]] = not off and role.get("features", {}).get("shell_tool", True)
    rules = tuple(
        r
        for rel, data in sorted(files.items())
        if rel.startswith(".codex/rules/") and rel.endswith(".rules")
        for r in parse_rules(data.decode())
    )
    return Codex(rules, shell)
