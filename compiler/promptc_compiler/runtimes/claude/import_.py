"""Import, Claude Code side: a `.claude/agents/*.md` frontmatter as a promptc spec.

What it carries over, never deciding a call wider than Claude Code did
(tests/test_import_never_widens.py holds it to promptc_compiler.runtimes.claude.decide on the
original folder): docs/import.md. The session's settings become the
config-level `permission` (`Session`); a rule is written only in a shape
OpenCode matches as surely (`Rules`): an allow only where every input its
OpenCode pattern matches is one the Claude rule matches, a deny or ask
wherever the Claude rule may match. An agent's `tools`, `disallowedTools` and
`permissionMode` become its own rules (`permission_map`). A Claude Code
subagent starts no subagents (`task: deny`); the settings' `agent`, the main
session's agent, becomes a primary that may. What Claude Code does not offer
an agent is denied (`NOT_OFFERED`: no tool makes OpenCode's `list` calls;
TodoWrite and AskUserQuestion are not offered in a non-interactive run; Glob
and Grep only to an agent whose `tools` names them and that has no Bash), and
so is a tool `disallowedTools` names, with a specifier or not (either takes it
away whole). Claude Code reads path rules in any case (a deny or ask is
written in the spelling given, lower and upper case), refuses a shell command
that reads or writes a file a Read or Edit deny rule names (those commands are
denied), and asks before a command line with a command substitution. In
`dontAsk` (and `auto`, which refuses offline what it cannot check) what would
be asked is refused, a file outside the project too (`external_directory:
deny`). Claude Code 2.1.332's behaviour here is tests/oracles/FACTS.md's and
promptc_compiler.runtimes.claude.decide's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from promptc_compiler.permissions import wildcard
from promptc_compiler.permissions.ruleset import SCALAR_KEYS
from promptc_compiler.runtimes import reading
from promptc_compiler.runtimes.claude import permission_rules as claude_rules
from promptc_compiler.runtimes.claude.agents import OVERRIDES, REFUSED
from promptc_compiler.runtimes.reading import Note, Reader, front, json_position, meta

# OpenCode permission -> the Claude Code tools that must all be allowed for it
# to stay open (any one of the alternatives).
REQUIRES: Mapping[str, tuple[frozenset[str], ...]] = {
    "read": (frozenset({"Read"}),),
    "edit": (frozenset({"Edit", "Write"}),),
    "glob": (frozenset({"Glob"}),),
    "grep": (frozenset({"Grep"}),),
    "bash": (frozenset({"Bash"}),),
    "task": (frozenset({"Agent"}), frozenset({"Task"})),
    "webfetch": (frozenset({"WebFetch"}),),
    "websearch": (frozenset({"WebSearch"}),),
    "todowrite": (frozenset({"TodoWrite"}),),
    "skill": (frozenset({"Skill"}),),
    "lsp": (frozenset({"LSP"}),),
}
# OpenCode permissions whose calls no tool Claude Code offers an agent makes
# (2.1.332: no LS; no TodoWrite or AskUserQuestion in a non-interactive run;
# Glob and Grep only where `LISTED_ONLY` says): denied, config-level.
NOT_OFFERED = ("list", "todowrite", "question", "glob", "grep")
# Offered only to an agent whose `tools` names them and that has no Bash.
LISTED_ONLY = {"glob": "Glob", "grep": "Grep"}
# Command lines Claude Code asks about whatever the rules allow (a command
# substitution cannot be checked before it runs).
SUBSTITUTIONS = ("*$(*", "*`*")
# Paths Claude Code asks about whatever the rules allow (a last name ending in
# a dot: a Windows spelling of another name), once it has trimmed the path's
# trailing spaces (`a.txt ` is decided as `a.txt`): claude_rules.SUSPICIOUS,
# which the claude target gives back without asking for every other path.
SUSPICIOUS = (claude_rules.SUSPICIOUS,)
# OpenCode permission -> the Claude tools whose settings rules deny or ask for it.
RULED_BY: Mapping[str, frozenset[str]] = {
    key: frozenset().union(*alternatives) | ({"NotebookEdit"} if key == "edit" else set())
    for key, alternatives in REQUIRES.items()
}
# Claude tools whose pattern form `Tool(a, b)` narrows an OpenCode pattern permission.
PATTERNED = {"Bash": "bash", "Agent": "task", "Task": "task"}
# What a settings rule's specifier is, per Claude tool; any other tool's
# specifier (`WebFetch(domain:x)`) has no OpenCode pattern.
SPECIFIER_KIND = {
    "Bash": "command",
    "Read": "path",
    "Edit": "path",
    "Agent": "name",
    "Task": "name",
}
# Claude Code tools promptc knows have no OpenCode permission of their own.
NO_COUNTERPART = frozenset(
    {"MultiEdit", "NotebookEdit", "NotebookRead", "BashOutput", "KillShell", "KillBash"}
)
# Claude Code's permission modes, by how the import decides in them: `manual`
# is `default`; `bypassPermissions` takes no effect in a subagent; `auto`
# refuses what it would ask (offline its check cannot run).
MODES = {
    "default": "default",
    "manual": "default",
    "bypassPermissions": "default",
    "acceptEdits": "acceptEdits",
    "auto": "dontAsk",
    "dontAsk": "dontAsk",
    "plan": "plan",
}
# Settings keys promptc has no model of, each said in its own words: a hook or
# an MCP server is no permission promptc writes, and dropped without a word it
# would look kept. (The same holds for an agent's own `hooks` and `mcpServers`.)
_NOT_MODELLED = "promptc does not model them and writes no"
SESSION_KEYS = {
    "hooks": f"`hooks`: Claude Code hooks; {_NOT_MODELLED} hooks: not carried over",
    "mcpServers": f"`mcpServers`: MCP servers; {_NOT_MODELLED} MCP config: not carried over",
    "enabledMcpjsonServers": f"`enabledMcpjsonServers`: {_NOT_MODELLED} MCP config: "
    "not carried over",
    "enableAllProjectMcpServers": f"`enableAllProjectMcpServers`: {_NOT_MODELLED} MCP "
    "config: not carried over",
}
MCP_FILE = ".mcp.json"
MCP_NOTE = (
    "the project's MCP servers: promptc does not model them and writes no .mcp.json; "
    "not carried over (keep this file beside the built .claude/)"
)
ACTIONS = ("allow", "ask", "deny")  # settings lists, in the order they are written
RANK = {"deny": 0, "ask": 1, "allow": 2}
# The agent keys a build writes from `targets.claude` and OpenCode has no key
# for: carried there as written. (`model` too, with a note; `description` is
# OpenCode's own.)
CLAUDE_ONLY_KEYS = tuple(key for key in OVERRIDES if key not in ("description", "model"))
# The agent keys that say what it may do: they become its `permission`
# (permission_map); a build never writes them from `targets.claude` (REFUSED).
PERMISSION_KEYS = ("tools", "disallowedTools", "permissionMode")
COMMAND_CLAUDE_KEYS = (
    *("allowed-tools", "model", "disable-model-invocation"),
    *("context", "agent", "hooks"),
)
_TOOL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)(?:\(([^)]*)\))?\s*")
_RULE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\((.*)\))?", re.DOTALL)
_STARS = re.compile(r"\*{2,}")
_CLASS = re.compile(r"\[[^\]]*\]")
_WILD = re.compile(r"[*?\[\]\\!]")


def tool_list(value: Any) -> list[str]:
    """Claude's tools value (comma-separated text or a list) as tool entries."""
    if isinstance(value, str):
        parts: list[str] = []
        depth, current = 0, ""
        for char in value:
            depth += (char == "(") - (char == ")")
            if char == "," and depth == 0:
                parts.append(current)
                current = ""
            else:
                current += char
        parts.append(current)
        return [part.strip() for part in parts if part.strip()]
    if isinstance(value, list):
        return [str(item).strip() for item in value if str(item).strip()]
    return []


def _split(entry: str) -> tuple[str, list[str] | None]:
    match = _TOOL.fullmatch(entry)
    if match is None:
        return entry, None
    patterns = match.group(2)
    if patterns is None:
        return match.group(1), None
    return match.group(1), [p.strip() for p in patterns.split(",") if p.strip()]


# --- what one Claude rule matches, as OpenCode patterns -------------------------


def _command(spec: str) -> str:
    """Claude's prefix form `git diff:*` is OpenCode's `git diff *` (which also matches bare)."""
    return spec[:-2] + " *" if spec.endswith(":*") else spec


def cover(kind: str, spec: str) -> list[str]:
    """OpenCode patterns matching at least every input the Claude specifier
    matches; `["*"]` is the whole tool."""
    if kind == "command":
        text = _command(spec)
        return ["*"] if wildcard.universal(text) else [text]
    if kind == "name":
        return [spec]
    if kind == "path" and spec in SUSPICIOUS:
        return [spec]
    if kind == "path":
        # Claude Code also reads `.env ` and `.env.` as `.env`: the name and
        # anything after it. (A pattern ending in a space or a dot is left as it
        # is: OpenCode reads a trailing ` *` as "and maybe more words".)
        found = _path_cover(spec)
        return _fewest(_any_case([p if p.endswith(("*", " ", ".")) else f"{p}*" for p in found]))
    return ["*"]


def _fewest(found: list[str]) -> list[str]:
    """The patterns without those another one of them covers (of two that cover
    each other, the first stays)."""
    patterns = wildcard.Patterns()

    def covered(i: int, p: str) -> bool:
        return any(
            i != j
            and reading.covers(patterns, q, p)
            and (j < i or not reading.covers(patterns, p, q))
            for j, q in enumerate(found)
        )

    return [p for i, p in enumerate(found) if not covered(i, p)]


def _any_case(patterns: list[str]) -> list[str]:
    """Each pattern as written, in lower and upper case and with its case swapped:
    Claude Code matches path rules in any case, OpenCode in the one written."""
    variants = (str, str.lower, str.upper, str.swapcase)
    return list(dict.fromkeys(change(p) for p in patterns for change in variants))


def readers(spec: str | None) -> list[str]:
    """Bash patterns covering every command that names a file the path rule
    `spec` matches (Claude Code refuses a command reading or writing a file a
    Read or Edit deny rule names); `["*"]` for the whole tool."""
    if spec is None or spec in ("", "*", "**"):
        return ["*"]
    found = []
    for pattern in _any_case(_path_cover(spec)):
        core = pattern.removeprefix("*/").removesuffix("/*").strip("*")
        found.append(f"*{core}*" if core else "*")
    return ["*"] if "*" in found else list(dict.fromkeys(found))


def inside(kind: str, spec: str) -> list[str]:
    """OpenCode patterns matching only inputs the Claude specifier matches (maybe none)."""
    if kind == "command":
        text = _command(spec)
        return [] if "?" in text else [text]  # OpenCode's `?` is any one character
    if kind == "name":
        return [spec] if wildcard.is_literal(spec) else []
    if kind == "path":
        return _path_inside(spec)
    return []


def _path_cover(spec: str) -> list[str]:
    """Every path a gitignore-style specifier may match, whether OpenCode is given
    it relative to the project or absolute, and wherever the specifier is anchored:
    the path at any depth and everything inside it (OpenCode's `*` crosses folders)."""
    text = _CLASS.sub("?", spec)
    for prefix in ("//", "~/", "./", "/"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    text = _STARS.sub("*", text.replace("/**/", "/*")).strip("/")
    while text.startswith("*/"):
        text = text[2:]
    if text in ("", "*"):
        return ["*"]
    # `x/**` also reaches the folder `x` itself (promptc_compiler.runtimes.claude.decide matches
    # it).
    if spec.endswith("/**") and text.endswith("/*") and text[:-2].strip("*/"):
        return _path_cover(spec[:-3])
    found = [text] if text.startswith("*") else [text, f"*/{text}"]
    return found if text.endswith("*") else found + [f"{p}/*" for p in found]


def _path_inside(spec: str) -> list[str]:
    """A path OpenCode gives relative to the project: a literal path (and what is
    in it, when it is a folder), everything under a literal folder, or a name
    ending (`*.md`); any other shape, or an anchor promptc cannot place (`/`,
    `~/`), matches nothing for sure."""
    if spec.startswith(("/", "~")):
        return []
    text = spec.removeprefix("./")
    folder = text.endswith("/")
    text = text.rstrip("/")
    if text in ("*", "**"):
        return ["*"]
    if text.endswith("/**") and text[:-3] and not _WILD.search(text[:-3]):
        return [text[:-3] + "/*"]
    if _WILD.search(text):
        tail = text[1:]
        simple = text.startswith("*") and tail and "/" not in text and not _WILD.search(tail)
        return [text] if simple else []
    if not text:
        return []
    found = [text] if "/" in text else [text, f"*/{text}"]
    contents = [f"{p}/*" for p in found]
    return contents if folder else found + contents


# --- the session: settings.json rules and Claude Code's defaults ----------------


class Setting(NamedTuple):
    """One settings rule: `Tool` (specifier None) or `Tool(specifier)`."""

    tool: str
    specifier: str | None
    action: str  # allow | ask | deny


@dataclass
class Rules:
    """What Claude Code decides for one OpenCode permission, as OpenCode patterns:
    `base` for inputs no specifier rule matches, then the inputs surely allowed,
    those maybe asked, those maybe denied (deny beats ask beats allow)."""

    key: str
    base: str
    allow: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)

    def value(self) -> Any:
        """The OpenCode value: an action, or a map whose last match decides as Claude Code would."""
        if self.key in SCALAR_KEYS:  # one action for every input: the least of them
            if self.base == "deny" or self.deny:
                return "deny"
            return "ask" if self.base == "ask" or self.ask else self.base
        rules = {"*": self.base}
        if self.base != "allow":
            _put(rules, self.allow, "allow")
        if len(rules) > 1 or self.base == "allow":
            _put(rules, self.ask, "ask")
        if len(rules) > 1 or self.base != "deny":
            _put(rules, self.deny, "deny")
        return _pruned(rules)

    def narrowed(self, available: list[str]) -> Any:
        """The value for an agent whose tool exists only for `available` patterns:
        each at the most Claude Code grants anything it matches, the rest denied."""
        if self.key in SCALAR_KEYS or (self.base == "deny" and not self.allow):
            return "deny"
        patterns = wildcard.Patterns()
        rules = {"*": "deny"}
        for pattern in available:
            surely = any(reading.covers(patterns, wider, pattern) for wider in self.allow)
            action = "allow" if surely else self.base
            if any(_overlap(patterns, pattern, asked) for asked in self.ask):
                action = min(action, "ask", key=RANK.__getitem__)
            _put(rules, [pattern], action)
        _put(rules, self.deny, "deny")
        return _pruned(rules)


def _put(rules: dict[str, str], patterns: Sequence[str], action: str) -> None:
    """Each pattern after every rule written so far (a repeat moves to the end)."""
    for pattern in patterns:
        rules.pop(pattern, None)
        rules[pattern] = action


def _pruned(rules: dict[str, str]) -> Any:
    """The map without rules a later one covers, as a plain action when only `"*"`
    is left."""
    kept = reading.without_covered(rules)
    return kept["*"] if list(kept) == ["*"] else kept


def _overlap(patterns: wildcard.Patterns, one: str, other: str) -> bool:
    try:
        return patterns.witness((one, other)) is not None
    except wildcard.TooComplex:
        return True


def rules_for(key: str, settings: Sequence[Setting], asking_default: str) -> Rules:
    """Claude Code's decision for one OpenCode permission under `settings`;
    `asking_default` is what tools that need permission get when no rule matches."""
    whole: dict[str, set[str]] = {action: set() for action in ACTIONS}
    found: dict[str, list[str]] = {action: [] for action in ACTIONS}
    for setting in settings:
        if setting.tool not in RULED_BY[key]:
            continue
        if setting.specifier is None:
            whole[setting.action].add(setting.tool)
            continue
        kind = SPECIFIER_KIND.get(setting.tool, "plain")
        if setting.action != "allow":
            patterns = cover(kind, setting.specifier)
        elif setting.tool in ("Read", "Edit", *PATTERNED):  # Write(...) rules are not consulted
            patterns = inside(kind, setting.specifier)
        else:
            patterns = []
        if patterns == ["*"]:
            # `Edit(...)` rules decide Write too.
            whole[setting.action] |= (
                {setting.tool, "Write"} if setting.tool == "Edit" else {setting.tool}
            )
        else:
            found[setting.action] += patterns
    if whole["deny"]:
        return Rules(key, "deny")
    asks = any(tool.asks for tool in claude_rules.group(key))
    if whole["ask"]:
        base = "ask"
    elif any(needed <= whole["allow"] for needed in REQUIRES[key]):
        base = "allow"
    else:
        base = asking_default if asks else "allow"
    allow = found["allow"] if base != "allow" and not whole["ask"] else []
    return Rules(key, base, allow, found["ask"], found["deny"])


class Session(NamedTuple):
    """Claude Code's session: the settings files' rules, merged, and its default mode."""

    settings: tuple[Setting, ...] = ()
    mode: str = "default"
    main: str | None = None  # the settings' `agent`: the main session's agent

    def decisions(self, mode: str) -> dict[str, Rules]:
        """Per OpenCode permission, what Claude Code decides in permission mode `mode`:
        `dontAsk` denies whatever it would ask; `plan` writes no file;
        `acceptEdits` runs the edits no rule decides (in the project only: outside
        it, `external_directory` asks)."""
        settings = [*self.settings, *_implied_settings(self.settings)]
        asking_default = "ask"
        if mode == "dontAsk":
            settings = [
                Setting(s.tool, s.specifier, "deny" if s.action == "ask" else s.action)
                for s in settings
            ]
            asking_default = "deny"
        elif mode == "plan":
            settings += [Setting(tool, None, "deny") for tool in ("Edit", "Write")]
        elif mode == "acceptEdits":
            settings += [Setting(tool, None, "allow") for tool in ("Edit", "Write")]
        return {key: rules_for(key, settings, asking_default) for key in REQUIRES}

    def permission(self) -> dict[str, Any]:
        """The config-level OpenCode `permission`: every decision that is not
        OpenCode's own default allow."""
        values = {key: rules.value() for key, rules in self.decisions(self.mode).items()}
        permission = {key: value for key, value in values.items() if value != "allow"}
        permission.update(dict.fromkeys(NOT_OFFERED, "deny"))
        permission["external_directory"] = outside(self.mode)
        return permission


# A session whose settings files hold no rule.
NO_SETTINGS = Session()


def _implied_settings(settings: Sequence[Setting]) -> list[Setting]:
    """The rules Claude Code keeps without a setting saying them: it asks before a
    command substitution and a suspicious path, and refuses a command on a file
    a Read or Edit deny names."""
    found = [Setting("Bash", pattern, "ask") for pattern in SUBSTITUTIONS]
    found += [Setting(tool, path, "ask") for tool in ("Read", "Edit") for path in SUSPICIOUS]
    for setting in settings:
        if setting.action == "deny" and setting.tool in ("Read", "Edit", "Write"):
            found += [Setting("Bash", pattern, "deny") for pattern in readers(setting.specifier)]
    return found


def outside(mode: str) -> str:
    """`external_directory` in a mode: Claude Code asks before reading or editing
    a file outside the project (OpenCode's own default allows its temporary and
    skill folders), and in `dontAsk` refuses it."""
    return "deny" if mode == "dontAsk" else "ask"


class SettingsFile(NamedTuple):
    """What one settings file says: its rules, its `defaultMode`, its `agent`."""

    settings: tuple[Setting, ...] = ()
    mode: str | None = None
    main: str | None = None


def read_settings(doc: Mapping[str, Any]) -> tuple[SettingsFile, list[Note]]:
    """One settings file, and what is not carried over (each note keyed by the
    rule's text or the setting's key)."""
    notes = [
        Note(key, SESSION_KEYS.get(key, "a Claude Code session setting; promptc does not write it"))
        for key in doc
        if key not in ("permissions", "$schema", "agent")
    ]
    main = doc.get("agent") if isinstance(doc.get("agent"), str) else None
    if "agent" in doc and main is None:
        notes.append(Note("agent", "`agent` names no agent; not carried over"))
    settings, mode = _permissions(doc.get("permissions"), notes)
    return SettingsFile(tuple(settings), mode, main), notes


def _permissions(permissions: Any, notes: list[Note]) -> tuple[list[Setting], str | None]:
    if not isinstance(permissions, Mapping):
        return [], None
    found: list[Setting] = []
    mode: str | None = None
    for key, value in permissions.items():
        if key in ACTIONS and isinstance(value, list):
            for text in value:
                setting = _setting(str(text), key, notes)
                if setting is not None:
                    found.append(setting)
        elif key == "defaultMode" and isinstance(value, str) and value in MODES:
            mode = MODES[value]
        else:
            notes.append(
                Note(key, f"`permissions.{key}` has no OpenCode counterpart; not carried over")
            )
    return found, mode


def _setting(text: str, action: str, notes: list[Note]) -> Setting | None:
    match = _RULE.fullmatch(text.strip())
    if match is None or match.group(2) == "":
        notes.append(Note(text, f"`{text}` is no rule Claude Code reads; not carried over"))
        return None
    tool, specifier = match.group(1), match.group(2)
    tool = "Agent" if tool == "Task" else tool
    if tool.startswith("mcp__"):
        notes.append(Note(text, f"`{text}`: MCP tools have no permission promptc writes"))
        return None
    if not any(tool in tools for tools in RULED_BY.values()):
        if tool not in NO_COUNTERPART:
            notes.append(Note(text, f"`{text}`: `{tool}` has no OpenCode permission promptc knows"))
        return None
    kind = SPECIFIER_KIND.get(tool, "plain")
    if specifier is None:
        return Setting(tool, specifier, action)
    if action == "allow" and not (tool in ("Read", "Edit", *PATTERNED) and inside(kind, specifier)):
        message = (
            "cannot match only what this allows; left to the rule that would decide without it"
        )
        notes.append(Note(text, f"`{text}`: OpenCode {message}"))
    elif kind == "plain":
        message = f"has one rule for every `{tool}` call; it gets the {action}"
        notes.append(Note(text, f"`{text}`: OpenCode {message}"))
    return Setting(tool, specifier, action)


# --- one agent ---------------------------------------------------------------------


def permission_map(
    meta: Mapping[str, Any], session: Session = NO_SETTINGS
) -> tuple[dict[str, Any], list[Note]]:
    """The OpenCode permission map for a Claude agent's `tools`, `disallowedTools`
    and `permissionMode`, on top of the session's config-level permission."""
    notes: list[Note] = []
    written = meta.get("permissionMode")
    mode = MODES[written] if isinstance(written, str) and written in MODES else session.mode
    mine = session.decisions(mode)
    top = session.decisions(session.mode) if mode != session.mode else mine
    permission: dict[str, Any] = {}
    listed = (
        tool_list(meta["tools"]) if "tools" in meta and meta["tools"] not in ("*", ["*"]) else None
    )
    if listed is not None:
        permission.update(_allowlist(listed, mine, notes))
    for key, rules in mine.items():
        if key not in permission and rules.value() != top[key].value():
            permission[key] = rules.value()
    for key, tool in LISTED_ONLY.items():
        if _offered(tool, listed, tool_list(meta.get("disallowedTools"))):
            permission[key] = mine[key].value()  # over the config-level deny
        elif key in permission:
            permission[key] = "deny"
    for key in NOT_OFFERED:
        # Whatever the agent's mode or `tools` say, Claude Code offers no such
        # tool: the session's deny stands (no ask or allow wider than Claude).
        if key in permission and key not in LISTED_ONLY:
            permission[key] = "deny"
    if outside(mode) != outside(session.mode):
        permission["external_directory"] = outside(mode)
    for entry in tool_list(meta.get("disallowedTools")):
        _deny(permission, entry, notes)
    return permission, notes


def _offered(tool: str, listed: list[str] | None, taken: list[str]) -> bool:
    """Whether Claude Code offers Glob or Grep: only when `tools` names it and
    the agent has no Bash."""
    names = {_split(entry)[0] for entry in listed or ()}
    bash = "Bash" in names and "Bash" not in {_split(entry)[0] for entry in taken}
    return listed is not None and tool in names and not bash


def _allowlist(entries: list[str], mine: Mapping[str, Rules], notes: list[Note]) -> dict[str, Any]:
    allowed: set[str] = set()
    narrowed: dict[str, list[str]] = {}
    for entry in entries:
        tool, patterns = _split(entry)
        if tool.startswith("mcp__"):
            notes.append(Note("tools", f"`{entry}`: MCP tools have no permission promptc writes"))
            continue
        if patterns is not None and tool in PATTERNED:
            kind = SPECIFIER_KIND[tool]
            for pattern in patterns:
                exact = inside(kind, pattern)
                if not exact:
                    notes.append(
                        Note(
                            "tools", f"`{tool}({pattern})`: OpenCode cannot match only that; denied"
                        )
                    )
                narrowed.setdefault(PATTERNED[tool], []).extend(exact)
            continue
        if patterns is not None:
            notes.append(Note("tools", f"`{entry}`: only the pattern-less tool is carried over"))
        allowed.add(tool)
        if tool not in NO_COUNTERPART and not any(tool in s for a in REQUIRES.values() for s in a):
            notes.append(Note("tools", f"`{tool}` has no OpenCode permission promptc knows"))
    permission: dict[str, Any] = {}
    for key, alternatives in REQUIRES.items():
        if any(needed <= allowed for needed in alternatives):
            continue
        permission[key] = mine[key].narrowed(narrowed[key]) if key in narrowed else "deny"
    if ({"Edit", "Write"} & allowed) and permission.get("edit") == "deny":
        notes.append(
            Note("tools", "OpenCode's `edit` covers both Edit and Write: denied, as one is missing")
        )
    return permission


def _deny(permission: dict[str, Any], entry: str, notes: list[Note]) -> None:
    tool, _ = _split(entry)
    keys = [k for k, alts in REQUIRES.items() if any(tool in needed for needed in alts)]
    if not keys:
        notes.append(Note("disallowedTools", f"`{entry}` has no OpenCode permission promptc knows"))
        return
    # With a specifier or not, the entry takes the tool away whole (seen on
    # claude 2.1.332: `disallowedTools: Bash(cat *)` leaves no Bash at all).
    for key in keys:
        permission[key] = "deny"


def agent_spec(
    ident: str, meta: Mapping[str, Any], session: Session = NO_SETTINGS
) -> tuple[dict[str, Any], list[Note]]:
    """A promptc agent frontmatter for a Claude Code agent, and what did not carry over."""
    notes: list[Note] = []
    stem = ident.rsplit("/", 1)[-1]
    if "name" in meta and meta["name"] != stem:
        message = f"name `{meta['name']}` differs from the file name `{stem}`: the id is `{ident}`"
        notes.append(Note("name", message))
    spec: dict[str, Any] = {}
    if "description" in meta:
        spec["description"] = meta["description"]
    main = session.main is not None and meta.get("name", stem) == session.main
    spec["mode"] = "primary" if main else "subagent"
    claude: dict[str, Any] = {}
    if "model" in meta:
        claude["model"] = meta["model"]
        if meta["model"] != "inherit":
            notes.append(
                Note(
                    "model",
                    f"model `{meta['model']}` kept for Claude Code only; OpenCode needs "
                    "`provider/model` (set `model:` or `targets.opencode.model`)",
                )
            )
    permission, permission_notes = permission_map(meta, session)
    notes.extend(permission_notes)
    if not main:
        if any(_split(entry)[0] in ("Agent", "Task") for entry in tool_list(meta.get("tools"))):
            notes.append(
                Note(
                    "tools",
                    "a Claude Code subagent starts no subagents: `task: deny` (the agent "
                    "the settings' `agent` names runs as the main session and may)",
                )
            )
        permission.pop("task", None)
        permission["task"] = "deny"
    if permission:
        spec["permission"] = permission
    for key in CLAUDE_ONLY_KEYS:
        if key in meta:
            claude[key] = meta[key]
    for key in meta:
        if key in REFUSED and key not in (*PERMISSION_KEYS, "name"):
            # `hooks`, `mcpServers`: a build would refuse them under `targets.claude`.
            notes.append(Note(key, SESSION_KEYS.get(key, f"`{key}`: not carried over")))
        elif key not in ("name", *OVERRIDES, *PERMISSION_KEYS):
            notes.append(
                Note(key, f"`{key}` is no Claude Code agent key promptc knows; not carried over")
            )
    if claude:
        spec["targets"] = {"claude": claude}
    return spec, notes


def command_spec(meta: Mapping[str, Any], body: str) -> tuple[dict[str, Any], list[Note]]:
    """A promptc mode frontmatter for a Claude Code command."""
    notes: list[Note] = []
    spec: dict[str, Any] = {}
    if "description" in meta:
        spec["description"] = meta["description"]
    else:
        first = next((line.strip() for line in body.split("\n") if line.strip()), "")
        spec["description"] = first.lstrip("# ")[:200] or "Imported command"
        notes.append(Note("description", "no description: the first line of the body stands in"))
    if "argument-hint" in meta:
        spec["argument-hint"] = meta["argument-hint"]
    claude = {key: meta[key] for key in COMMAND_CLAUDE_KEYS if key in meta}
    for key in meta:
        if key not in ("description", "argument-hint", *COMMAND_CLAUDE_KEYS):
            notes.append(
                Note(key, f"`{key}` is no Claude Code command key promptc knows; not carried over")
            )
    if claude:
        spec["targets"] = {"claude": claude}
    return spec, notes


# --- the folder -------------------------------------------------------------------------------


def read_folder(root: Path, reader: Reader) -> None:
    """`.claude/`: its settings, agents and commands into `reader`."""
    session, main_at = _read_settings_files(root, reader)
    permission = session.permission()
    if permission:
        reader.settings["permission"] = permission
    for ident, source in reader.markdown(root, ("agents",)):
        spec, notes = agent_spec(ident, meta(source), session)
        reader.at_keys(source, notes)
        reader.agent(ident, source, front(spec))
        if spec["mode"] == "primary":
            reader.settings["default_agent"] = ident
    if main_at is not None and "default_agent" not in reader.settings:
        path, at = main_at
        reader.note(path, f"`agent`: no agent here is named `{session.main}`; not carried over", at)
    for ident, source in reader.markdown(root, ("commands",)):
        spec, notes = command_spec(meta(source), source.body)
        reader.at_keys(source, notes)
        reader.mode(ident, source, front(spec))
    if (root.parent / MCP_FILE).is_file():
        reader.note(root.parent / MCP_FILE, MCP_NOTE)
    for name in ("skills", "hooks", "output-styles"):
        if (root / name).is_dir():
            reader.note(root / name, f"{name}/ has no promptc equivalent; not carried over")


def _read_settings_files(
    root: Path, reader: Reader
) -> tuple[Session, tuple[Path, tuple[int, int]] | None]:
    """settings.json and settings.local.json, merged as Claude Code merges them
    (the rules of both; the local file's `defaultMode` and `agent` win), and
    where the `agent` that counts is written."""
    found: list[Setting] = []
    mode = "default"
    main: str | None = None
    main_at: tuple[Path, tuple[int, int]] | None = None
    for name in ("settings.json", "settings.local.json"):
        path = root / name
        read = reader.json_file(path)
        if read is None:
            continue
        text, data = read
        settings, notes = read_settings(data)
        found += settings.settings
        mode = settings.mode or mode
        if settings.main is not None:
            main, main_at = settings.main, (path, json_position(text, "agent"))
        for note in notes:
            reader.note(path, note.message, json_position(text, note.key))
    return Session(tuple(found), mode, main), main_at
