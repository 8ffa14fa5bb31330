"""How Codex CLI (@openai/codex 0.171.0) decides a call, from the files promptc wrote.

Read from a `codex` output (`.codex/config.toml`, `.codex/agents/*.toml`,
`.codex/rules/*.rules`). Codex starts a role only through `spawn_agent`, from
the user's own session, so every call of an agent, a primary's too, is made
by its role, one level below that session. Seen on the binary (a scripted
model server on 127.0.0.1 logging the tools each conversation is offered and
the results sent back; `codex exec`, whose approval policy is `never`):

- what a spawned role gets comes from the project's config: its sandbox (a
  role's own `sandbox_mode` is not applied), `view_image`, `web_search` and
  `update_plan` (`[tools.update_plan]`, off unless enabled) are the
  session's whatever the role file says; `[agents] max_depth` (1 unless set)
  decides whether a role has `spawn_agent` at all (a role is at depth 1, so
  with 1 it has none; a role's `multi_agent` or `max_depth` is not applied);
  the one tool a role file takes away is the shell (`[features] shell_tool
  = false`); it cannot give back a shell the project took away;
- `apply_patch` is there whenever the model's catalog entry has it (every
  OpenAI model): no setting removes it, so the model counts it in. It writes
  inside the workspace-write sandbox (the project, but not `.git`, `.codex`,
  `.agents`; not `/tmp` when the config excludes it) without asking, and
  anywhere else only after an approval (asked);
- shell (`exec_command`): the line as Codex reads it. A line of plain words
  joined by `&&`, `||`, `;`, `|` is decided per command; any other line
  (substitutions, redirections, variables, subshells, `&`, ...) as the one
  command `bash -lc <line>`. A command is held against the prefix rules (a
  rule matches a command whose first words are its pattern's, a first word
  given as a path also by its basename; the strictest matching rule decides:
  forbidden > prompt > allow); a command no rule matches runs in the sandbox,
  except a forced `rm` (Codex's one dangerous-command check), which asks;
  the line takes its strictest command's decision;
- reads, searches and listings go through the shell (`view_image`, which
  reads any image file, is off); there is no tool to fetch a URL or load a
  skill (a skill is a file the role reads with the shell);
- `request_user_input` is offered to a role but refuses: "can only be used
  by the root thread".

tests/codex/test_decisions_codex.py holds this to the real `codex` call by call,
and tests/codex/test_conformance_codex.py to `codex execpolicy check`.
"""

from __future__ import annotations

import ast
import posixpath
import re
import tomllib
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, NamedTuple

from promptc_compiler.permissions import calls, shell
from promptc_compiler.permissions.calls import Call, Verdict

RUNTIME = "Codex"

AS_OPENCODE = {"forbidden": "deny", "prompt": "ask", "allow": "allow"}
STRICT = {"allow": 0, "prompt": 1, "forbidden": 2}
# What a shell line that is not plain words reaches the rules as: `bash -lc <line>`.
SHELL = "bash"
# Folders of the project the workspace-write sandbox keeps read-only.
PROTECTED = (".git", ".codex", ".agents")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac"}
    | {"function", "select", "time", "!", "[[", "]]", "coproc"}
)


class PrefixRule(NamedTuple):
    pattern: tuple[tuple[str, ...], ...]  # per position, the alternatives
    decision: str
    path: str

    def matches(self, words: Sequence[str]) -> bool:
        return len(words) >= len(self.pattern) and all(
            word in choices for word, choices in zip(words, self.pattern, strict=False)
        )

    def shown(self) -> str:
        return " ".join(p[0] if len(p) == 1 else "[" + "|".join(p) + "]" for p in self.pattern)


class Role(NamedTuple):
    name: str
    shell: bool  # the role file does not take the shell away
    path: str


class Session(NamedTuple):
    """What the project's config gives every role."""

    shell: bool
    sandbox: str  # workspace-write | read-only | danger-full-access
    slash_tmp: bool  # /tmp writable in the workspace-write sandbox
    view_image: bool
    web_search: bool
    update_plan: bool
    max_depth: int


class Codex(NamedTuple):
    roles: Mapping[str, Role]
    session: Session
    rules: tuple[PrefixRule, ...]

    def decide(self, call: Call) -> Verdict:
        role = self.roles.get(call.agent)
        if role is None:
            return Verdict("deny", "no role file: Codex has no such role")
        permission = call.permission
        if permission == "bash":
            return self._shell(role, call.input)
        if permission == "edit":
            return self._edit(call.input)
        if permission == "task":
            return self._spawn(call.input)
        if permission == "read" and self.session.view_image:
            return Verdict("allow", "view_image reads any file the sandbox can read")
        if permission == "question":
            return Verdict("deny", "request_user_input can only be used by the root thread")
        return self._tool(permission)

    def alike(self, agent: str) -> Hashable:
        """Whether the role exists and keeps the shell: the rest is the session's."""
        role = self.roles.get(agent)
        return None if role is None else role.shell

    # --- the shell -----------------------------------------------------------------------

    def _shell(self, role: Role, line: str) -> Verdict:
        if not self.session.shell:
            return Verdict("deny", ".codex/config.toml: `[features] shell_tool = false`")
        if not role.shell:
            return Verdict("deny", f"{role.path}: `[features] shell_tool = false`")
        plain = plain_commands(line)
        if plain is None:
            return self._command((SHELL, "-lc", line), dangerous(line))
        if not plain:
            return Verdict("allow", "an empty command line")
        verdicts = [self._command(words, forced_rm(words)) for words in plain]
        return min(verdicts, key=lambda v: calls.RANK[v.action])

    def _command(self, words: Sequence[str], risky: bool) -> Verdict:
        found = self.matching(words)
        if found:
            rule = max(found, key=lambda r: STRICT[r.decision])
            why = f"{rule.path}: `{rule.shown()}` {rule.decision}"
            return Verdict(AS_OPENCODE[rule.decision], why)
        if risky:
            return Verdict("ask", "no prefix rule matches and Codex asks before a forced `rm`")
        return Verdict("allow", "no prefix rule matches: Codex runs it in its sandbox")

    def matching(self, words: Sequence[str]) -> list[PrefixRule]:
        """The rules a command matches: by its first word as written, else by the
        basename of a first word given as a path."""
        found = [r for r in self.rules if r.matches(words)]
        if found or not words or "/" not in words[0]:
            return found
        base = (posixpath.basename(words[0]), *words[1:])
        return [r for r in self.rules if r.matches(base)]

    # --- edits ---------------------------------------------------------------------------

    def _edit(self, path: str) -> Verdict:
        sandbox = self.session.sandbox
        if sandbox == "danger-full-access":
            return Verdict("allow", "apply_patch: the sandbox is off (`danger-full-access`)")
        full = calls.absolute(path)
        if sandbox == "workspace-write" and calls.inside(full):
            first = posixpath.relpath(full, calls.PROJECT).split("/", 1)[0]
            if first not in PROTECTED:
                return Verdict(
                    "allow",
                    "Codex gives every role apply_patch, which writes anywhere in the project "
                    "(no role file narrows it: the sandbox is the session's)",
                )
            return Verdict("ask", f"apply_patch: the sandbox keeps `{first}` read-only")
        if sandbox == "workspace-write" and self.session.slash_tmp and full.startswith("/tmp/"):
            return Verdict("allow", "apply_patch: the workspace-write sandbox lets it write /tmp")
        return Verdict("ask", f"apply_patch: the {sandbox} sandbox needs an approval there")

    # --- the other tools -----------------------------------------------------------------

    def _spawn(self, name: str) -> Verdict:
        if self.session.max_depth < 2:
            return Verdict(
                "deny",
                "a role runs one level below the session, and `[agents] max_depth` "
                f"{self.session.max_depth} gives it no spawn_agent",
            )
        if name not in self.roles:
            return Verdict("deny", "spawn_agent: no such role")
        return Verdict("allow", "spawn_agent starts any role (`[agents] max_depth` >= 2)")

    def _tool(self, permission: str) -> Verdict:
        session = self.session
        found = {
            "websearch": (session.web_search, "web_search", '`web_search = "disabled"`'),
            "todowrite": (session.update_plan, "update_plan", "`[tools.update_plan]` not enabled"),
        }.get(permission)
        if found is None:
            return Verdict("deny", f"Codex has no tool for `{permission}`")
        on, tool, off = found
        if on:
            return Verdict("allow", f"{tool}: every role has it (.codex/config.toml)")
        return Verdict("deny", f".codex/config.toml: {off}")


# --- how Codex reads a shell line ----------------------------------------------------------


def plain_commands(line: str) -> list[tuple[str, ...]] | None:
    """The commands of a line of plain words joined by `&&`, `||`, `;`, `|` or
    newlines, quotes removed; None when Codex would not read the line so."""
    commands: list[tuple[str, ...]] = []
    words: list[str] = []
    word: str | None = None
    i = 0
    while i < len(line):
        char = line[i]
        if char in " \t\n;&|":
            if word is not None:
                words.append(word)
                word = None
            if char in " \t":
                i += 1
                continue
            operator = _operator(line, i)
            if operator is None or (operator != "\n" and not words):
                return None
            if words:
                commands.append(tuple(words))
                words = []
            i += len(operator)
            continue
        if char in "$`()<>{}" or (char == "#" and word is None):
            return None
        if char in "'\"":
            i, text = _quoted(line, i)
            if text is None:
                return None
        else:
            text = line[i : i + 2] if char == "\\" else char
            i += len(text)
        word = (word or "") + text
    if word is not None:
        words.append(word)
    if words:
        commands.append(tuple(words))
    elif line.rstrip(" \t\n").endswith(("&&", "||", "|")):
        return None
    return commands if all(_plain_command(c) for c in commands) else None


def _operator(line: str, i: int) -> str | None:
    """The separator at i, or None for one Codex does not read as plain (`&`, `;;`, `|&`)."""
    for operator in ("&&", "||", ";;", "|&", ";", "|", "&", "\n"):
        if line.startswith(operator, i):
            return operator if operator in ("&&", "||", ";", "|", "\n") else None
    return None


def _quoted(line: str, i: int) -> tuple[int, str | None]:
    """Past the quote closing the one at i, and its text (None: not plain)."""
    quote = line[i]
    end = line.find(quote, i + 1)
    if end < 0:
        return len(line), None
    text = line[i + 1 : end]
    if quote == '"' and re.search(r"[$`\\]", text):
        return end + 1, None
    return end + 1, text


def _plain_command(words: tuple[str, ...]) -> bool:
    return not (_ASSIGNMENT.match(words[0]) or words[0] in _KEYWORDS)


def forced_rm(words: Sequence[str]) -> bool:
    """Codex's dangerous-command check: `rm` with a force option (through `sudo` too)."""
    if not words:
        return False
    name = posixpath.basename(words[0])
    if name == "sudo":
        return forced_rm(words[1:])
    if name != "rm":
        return False
    for word in words[1:]:
        if word == "--":
            return False
        if word == "--force" or (
            word.startswith("-") and not word.startswith("--") and "f" in word
        ):
            return True
    return False


def dangerous(line: str) -> bool:
    """Some literal command anywhere in the line is a forced `rm`."""
    return any(forced_rm(command.words) for command in shell.commands(line))


# --- reading the files ---------------------------------------------------------------------


def parse_rules(text: str, path: str) -> tuple[PrefixRule, ...]:
    """The prefix rules of a `.rules` file (its Starlark is Python's syntax here)."""
    found = []
    for node in ast.parse(text).body:
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            continue
        if getattr(node.value.func, "id", None) != "prefix_rule":
            continue
        args = {k.arg: ast.literal_eval(k.value) for k in node.value.keywords}
        pattern = tuple(tuple(p) if isinstance(p, list) else (p,) for p in args["pattern"])
        found.append(PrefixRule(pattern, args.get("decision", "allow"), path))
    return tuple(found)


def _table(data: Mapping[str, Any], *keys: str) -> Mapping[str, Any]:
    for key in keys:
        found = data.get(key)
        data = found if isinstance(found, Mapping) else {}
    return data


def session(config: Mapping[str, Any]) -> Session:
    """The project config's settings, with Codex's defaults where it says nothing (the
    sandbox: the widest, since then the user's own settings decide)."""
    features = _table(config, "features")
    workspace = _table(config, "sandbox_workspace_write")
    depth = _table(config, "agents").get("max_depth", 1)
    return Session(
        shell=features.get("shell_tool", True) is not False,
        sandbox=str(config.get("sandbox_mode", "danger-full-access")),
        slash_tmp=workspace.get("exclude_slash_tmp", False) is not True,
        view_image=features.get("view_image", True) is not False,
        web_search=config.get("web_search", "cached") != "disabled",
        update_plan=_table(config, "tools", "update_plan").get("enabled", False) is True,
        max_depth=depth if isinstance(depth, int) else 1,
    )


def load(files: Mapping[str, str]) -> Codex:
    config = tomllib.loads(files.get(".codex/config.toml", ""))
    roles: dict[str, Role] = {}
    for rel in sorted(files):  # each text read in turn, not all at once
        if rel.startswith(".codex/agents/") and rel.endswith(".toml"):
            data = tomllib.loads(files[rel])
            shell_tool = _table(data, "features").get("shell_tool", True)
            roles[data["name"]] = Role(data["name"], shell_tool is not False, rel)
    rules = tuple(
        rule
        for rel in sorted(files)
        if rel.startswith(".codex/rules/") and rel.endswith(".rules")
        for rule in parse_rules(files[rel], rel)
    )
    return Codex(roles, session(config), rules)
