"""How Codex CLI (@openai/codex 0.171.0) decides a call, from the files promptc wrote.

Read from a `codex` output (`.codex/config.toml`, `.codex/agents/*.toml`,
`.codex/rules/*.rules`). A call of an agent is made by its role (a delegated
call, started with `spawn_agent`) or by the main session run as that agent:

- shell (`exec_command`): absent when the role's, or the project's,
  `[features] shell_tool` is false; else each command of the line against the
  project's prefix rules (a rule matches a command whose first words are its
  pattern's; of all matching rules the strictest decides: forbidden > prompt
  > allow); a command no rule matches runs in the sandbox without asking;
  the line takes its strictest command's decision;
- edits (`apply_patch`): inside the project the workspace-write sandbox lets
  them through; outside it they need an approval that a non-interactive run
  refuses (asked); a role's own `sandbox_mode` is not applied (seen on the
  binary: the child runs in the parent's sandbox);
- `spawn_agent` starts any role, whatever the caller; `request_user_input`
  asks the user; `update_plan` runs;
- reads, searches and listings go through the shell: Codex has no tool of
  its own for them, nor for fetching a URL, searching the web or a skill.

The tests hold this to the real `codex` (tests/oracles/codex.py) and to
`codex execpolicy check`.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from compiler import calls, shell
from compiler.calls import Call, Verdict

RUNTIME = "Codex"
TARGETS = ("codex",)

AS_OPENCODE = {"forbidden": "deny", "prompt": "ask", "allow": "allow"}
STRICT = {"allow": 0, "prompt": 1, "forbidden": 2}


@dataclass(frozen=True)
class PrefixRule:
    pattern: tuple[tuple[str, ...], ...]  # per position, the alternatives
    decision: str
    path: str

    def matches(self, words: Sequence[str]) -> bool:
        return len(words) >= len(self.pattern) and all(
            word in choices for word, choices in zip(words, self.pattern, strict=False)
        )


@dataclass(frozen=True)
class Role:
    name: str
    features: Mapping[str, object]
    path: str


@dataclass(frozen=True)
class Codex:
    roles: Mapping[str, Role]
    features: Mapping[str, object]  # the project config's
    rules: tuple[PrefixRule, ...]

    def decide(self, call: Call) -> Verdict:
        role = self.roles.get(call.agent.replace("/", "-"))
        if role is None:
            return Verdict("deny", "no role file: Codex has no such role")
        if call.permission == "bash":
            return self._shell(role, call.input)
        if call.permission == "edit":
            return self._edit(role, call.input)
        if call.permission == "task":
            return self._spawn(role, call.input)
        if call.permission == "question":
            return self._tool(role, "request_user_input", "ask", "it asks the user")
        if call.permission == "todowrite":
            return self._tool(role, "update_plan", "allow", "it runs")
        return Verdict("deny", f"Codex has no tool for `{call.permission}`")

    def _feature(self, role: Role, name: str) -> bool:
        value = role.features.get(name, self.features.get(name, True))
        return value is not False

    def _shell(self, role: Role, line: str) -> Verdict:
        if not self._feature(role, "shell_tool"):
            return Verdict("deny", f"{role.path}: `[features] shell_tool = false`")
        verdicts = [self._command(command.words) for command in shell.commands(line)]
        if not verdicts:
            return Verdict("allow", "an empty command line")
        return min(verdicts, key=lambda v: calls.RANK[v.action])

    def _command(self, words: Sequence[str]) -> Verdict:
        found = [r for r in self.rules if r.matches(words)]
        if not found:
            return Verdict("allow", "no prefix rule matches: Codex runs it in its sandbox")
        rule = max(found, key=lambda r: STRICT[r.decision])
        shown = " ".join(p[0] for p in rule.pattern)
        return Verdict(AS_OPENCODE[rule.decision], f"{rule.path}: `{shown}` {rule.decision}")

    def _edit(self, role: Role, path: str) -> Verdict:
        if not self._feature(role, "apply_patch_freeform"):
            return Verdict("deny", f"{role.path}: `[features] apply_patch_freeform = false`")
        if calls.inside(calls.absolute(path)):
            return Verdict("allow", "apply_patch: the workspace-write sandbox allows the project")
        return Verdict("ask", "apply_patch: outside the project the sandbox needs an approval")

    def _spawn(self, role: Role, name: str) -> Verdict:
        if not self._feature(role, "multi_agent"):
            return Verdict("deny", f"{role.path}: `[features] multi_agent = false`")
        if name.replace("/", "-") not in self.roles:
            return Verdict("deny", "spawn_agent: no such role")
        return Verdict("allow", "spawn_agent starts any role")

    def _tool(self, role: Role, tool: str, action: str, does: str) -> Verdict:
        return Verdict(action, f"{tool}: {does}")


def parse_rules(text: str, path: str) -> tuple[PrefixRule, ...]:
    """The prefix rules of a `.rules` file (its Starlark is Python's syntax here)."""
    found = []
    for node in ast.parse(text).body:
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        args = {k.arg: ast.literal_eval(k.value) for k in node.value.keywords}
        pattern = tuple(tuple(p) if isinstance(p, list) else (p,) for p in args["pattern"])
        found.append(PrefixRule(pattern, args.get("decision", "allow"), path))
    return tuple(found)


def load(files: Mapping[str, str]) -> Codex:
    config = tomllib.loads(files.get(".codex/config.toml", ""))
    roles: dict[str, Role] = {}
    for rel, text in sorted(files.items()):
        if rel.startswith(".codex/agents/") and rel.endswith(".toml"):
            data = tomllib.loads(text)
            roles[data["name"]] = Role(data["name"], data.get("features", {}), rel)
    rules = tuple(
        rule
        for rel, text in sorted(files.items())
        if rel.startswith(".codex/rules/") and rel.endswith(".rules")
        for rule in parse_rules(text, rel)
    )
    return Codex(roles, config.get("features", {}), rules)
