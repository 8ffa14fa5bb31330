"""Import, Copilot CLI and Gemini CLI side: an agent file or a Gemini command as a promptc spec.

An agent becomes a `permission` map that decides every call as the runtime
itself would, never more permissively (tests/test_import_never_widens.py holds
it to the runtime's decision model, promptc_compiler.runtimes): `"*": deny` first, for
every tool the agent does not have (an MCP tool, a tool OpenCode has and the
runtime has not), then each OpenCode permission one of its tools acts under
(the tables of promptc_compiler.runtimes.tool_lists), at what the runtime does with such a call
when nobody configured anything: reading and searching run; in Copilot the
shell, edits and the web ask (`_COPILOT_ASKS`), in Gemini every tool but
read_file, list_directory, glob, grep_search and google_web_search asks
(`_GEMINI_RUNS`). An agent without `tools`, or with `"*"`, has every tool of
the runtime, each decided that way. Files outside the project: Copilot asks
(`external_directory: ask`), Gemini's file tools refuse them
(`external_directory` stays denied, which also stops its shell there: OpenCode
decides outside folders for all of an agent's tools at once), and a path
through `.env`, `.git` or `node_modules` in any case (`_BLOCKED`). Copilot gives
its main agent `skill` and its todo list (`sql`) whatever `tools` says, but a
subagent its `task` starts gets exactly its list (tests/oracles/FACTS.md):
they are allowed only when listed. Copilot's `task` starts the folder's own
agents (named one by one: OpenCode's `general` and `explore` are no Copilot
agents; an `infer: false` one is a primary, which OpenCode's task tool never
starts); Gemini subagents start no subagents. Copilot also takes its tools'
own names (`view`, `bash`, `create`, ...), Gemini its legacy
`search_file_content`. A Copilot agent is `mode: all` (the user picks it and
Copilot's `task` starts it), or `primary` with `infer: false`; a Gemini
agent is a subagent. `max_turns` becomes `steps`. The keys the target's
`targets.<target>` override table takes and OpenCode has no place for go there
as written, so that a build for the same runtime writes them back: `model`
(named without a provider, which OpenCode needs) in both runtimes, Copilot's
`infer: true`, Gemini's `display_name`, `temperature` and `timeout_mins` (and a
`max_turns` that is no step count). A Gemini command's `{{args}}` becomes
`$ARGUMENTS`, its `!{cmd}` becomes `` !`cmd` `` and its `@{path}` becomes
`@path`; a command that says `$ARGUMENTS` as text (Gemini fills only
`{{args}}`) keeps both as written, with `targets.gemini.literal_arguments`
so that a build for Gemini writes `$ARGUMENTS` back as text. Its description
is carried whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from promptc_compiler.base.body_syntax import ARGUMENTS, FILE
from promptc_compiler.runtimes.claude.import_ import Note
from promptc_compiler.runtimes.tool_lists import COPILOT, GEMINI, Runtime

# Tool names each runtime takes beside the tool_lists tables: Copilot's own
# tool names beside its aliases (as promptc_compiler.runtimes.copilot.decide resolves them),
# Gemini's legacy name for `grep_search`.
OWN_NAMES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "copilot": {
        "view": ("read", "list"),
        "grep": ("grep",),
        "glob": ("glob",),
        "edit": ("edit",),
        "create": ("edit",),
        "bash": ("bash",),
        "shell": ("bash",),
        "task": ("task",),
        "web_fetch": ("webfetch",),
        "fetch": ("webfetch",),
        "skill": ("skill",),
        "sql": ("todowrite",),  # its session store, where its todo list lives
    },
    "gemini": {"search_file_content": ("grep",)},
}
# The OpenCode permissions whose calls Copilot asks about by default (the
# others its tools make run unasked).
_COPILOT_ASKS = frozenset({"edit", "bash", "webfetch", "websearch"})
# The tools whose calls Gemini's own policies run unasked (its read-only.toml);
# it asks before a call of any other tool. A permission is decided by the first
# tool of the agent's that makes its calls, in the order of GEMINI.tools
# (`read_file` before `read_many_files`, which asks).
_GEMINI_RUNS = frozenset(
    {"read_file", "list_directory", "glob", "grep_search", "search_file_content"}
    | {"google_web_search"}
)
# What the runtime does with a file outside the project, as `external_directory`
# (None: refused, left to `"*": deny`).
_OUTSIDE = {"copilot": "ask", "gemini": None}
# Gemini's file tools (OpenCode's `read`, `list` and `edit`) refuse a path one of
# whose folders or file is `.env`, `.git` or `node_modules` in any case, with
# trailing dots and spaces or a `:stream` after the name, an 8.3 short name of
# one (`GIT~1`) or a `gha-creds-*.json` (promptc_compiler.runtimes.gemini.decide). OpenCode
# matches in the case written, so each name is written with `?` for its
# letters (`.???` stands for `.env` and `.git`): denied at the start of the
# path or after a `/`, followed by nothing, a space, a `/` or a `:`, or a dot
# and one of those, or a second dot. This also denies the few paths of the same
# shape (a `.tox` folder); a `.env.example` or `.gitignore` is not one.
_PATH_TOOLS = ("read", "list", "edit")
_BLOCKED_NAMES = (".???", "????_???????")
_AFTER_NAME = (" *", "/*", ":*", ". *", "./*", ".:*", "..*")
_BLOCKED = (
    *(
        f"{lead}{name}{after}"
        for name in _BLOCKED_NAMES
        for after in _AFTER_NAME
        for lead in ("", "*/")
    ),
    "*~?*",  # a short name: `GIT~1`, `NODE_M~1`, `EN1A2B~2`
    "???-?????-*",  # `gha-creds-`
    "*/???-?????-*",
)
# Keys of the agent file that the target's override table takes as written and
# that have no OpenCode key of their own: carried there (override_table).
OVERRIDES = {
    runtime.target: tuple(key for key in runtime.overrides if key not in runtime.opencode_keys)
    for runtime in (COPILOT, GEMINI)
}
# The keys an import reads: beside the override table's, Copilot's `infer`
# (`mode`) and Gemini's `kind` (only `local` agents are imported).
_KNOWN = {
    "copilot": ("name", "tools", "infer", *COPILOT.overrides),
    "gemini": ("kind", "name", "tools", *GEMINI.overrides),
}
_SHELL = re.compile(r"!\{([^{}`\n]+)\}")
_FILE = re.compile(r"@\{([^{}\s]+)\}")


# Folders beside `agents/` the runtime's CLI does not read (VS Code's chat modes).
UNREAD = {"copilot": ("chatmodes",), "gemini": ()}


def not_an_agent(runtime: Runtime, meta: Mapping[str, Any]) -> str | None:
    """Why the runtime loads no agent from a file of its agents folder (None: it
    does). Copilot CLI 1.0.102 takes a `.md` file there only with a frontmatter
    `description` string (a README or notes file is none); Gemini CLI's schema
    needs a description that is not blank."""
    description = meta.get("description")
    if isinstance(description, str) and (runtime is COPILOT or description.strip()):
        return None
    return (
        f"no `description` text in its frontmatter: {runtime.label} loads no agent from "
        "this file; not imported"
    )


def agent_spec(
    runtime: Runtime, ident: str, meta: Mapping[str, Any], agents: Sequence[str] = ()
) -> tuple[dict[str, Any] | None, list[Note]]:
    """The promptc agent frontmatter for a runtime's agent (None: not importable);
    `agents` are the ids of the folder's agents Copilot's `task` may start."""
    notes: list[Note] = []
    if runtime is GEMINI and meta.get("kind", "local") != "local":
        return None, [Note("kind", f"a `{meta['kind']}` agent runs elsewhere; not imported")]
    stem = ident.rsplit("/", 1)[-1]
    if "name" in meta and meta["name"] != stem:
        notes.append(
            Note("name", f"name `{meta['name']}` differs from the file name: the id is `{ident}`")
        )
    spec: dict[str, Any] = {}
    if "description" in meta:
        spec["description"] = meta["description"]
    if runtime is COPILOT:
        spec["mode"] = "primary" if meta.get("infer") is False else "all"
    else:
        spec["mode"] = "subagent"
    if _step_count(meta.get("max_turns")):
        spec["steps"] = meta["max_turns"]
    spec["permission"] = permission_map(runtime, meta.get("tools"), notes, agents)
    override = override_table(runtime, meta)
    if override:
        spec["targets"] = {runtime.target: override}
    for key in meta:
        if key not in _KNOWN[runtime.target]:
            notes.append(Note(key, f"`{key}` has no promptc equivalent; not carried over"))
    return spec, notes


def override_table(runtime: Runtime, meta: Mapping[str, Any]) -> dict[str, Any]:
    """The agent's keys that only `targets.<target>` can say, as written (the schema
    checks their values when the imported bundle is linted)."""
    table = {key: meta[key] for key in OVERRIDES[runtime.target] if key in meta}
    # `infer: false` is said by `mode: primary`, and no `infer` is Copilot's `true`:
    # an explicit `true` (or a value Copilot refuses) is written back only from here.
    if runtime is COPILOT and "infer" in meta and meta["infer"] is not False:
        table["infer"] = meta["infer"]
    # A `max_turns` that is no step count keeps its place, where the lint says why.
    if runtime is GEMINI and "max_turns" in meta and not _step_count(meta["max_turns"]):
        table["max_turns"] = meta["max_turns"]
    return table


def _step_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def permission_map(
    runtime: Runtime, tools: Any, notes: list[Note], agents: Sequence[str] = ()
) -> dict[str, Any]:
    """The OpenCode permission map deciding each call as the runtime does for an
    agent with this `tools` value (None: no `tools` key, every tool)."""
    listed = [tools] if isinstance(tools, str) else [str(t) for t in tools or ()]
    every = tools is None or "*" in listed
    if every:
        notes.append(Note("tools", _EVERY_TOOL))
    table = {**dict(runtime.tools), **OWN_NAMES[runtime.target]}
    # OpenCode permission -> the agent's tools that make its calls, in the runtime's order.
    having: dict[str, list[str]] = {}
    for tool in (tool for tool, _ in runtime.tools) if every else _in_order(runtime, listed):
        if tool in table:
            for key in table[tool]:
                having.setdefault(key, []).append(tool)
        else:
            notes.append(Note("tools", f"`{tool}` has no OpenCode permission promptc knows"))
    permission: dict[str, Any] = {"*": "deny"}
    for key in runtime.permissions:
        if key not in having:
            continue
        if key == "task":  # only the folder's own agents are there to start
            permission[key] = {"*": "deny", **dict.fromkeys(agents, "allow")} if agents else "deny"
        else:
            permission[key] = _unasked(runtime, key, having[key][0])
    outside = _OUTSIDE[runtime.target]
    if outside is not None:
        permission["external_directory"] = outside
    return permission


# What an agent with every tool loses through a spec (said once per agent).
_EVERY_TOOL = (
    "no `tools` list (or `*`): the runtime gives the agent every tool, MCP servers' too; the "
    "spec keeps the built-in ones, each decided as the runtime does by default, and denies "
    'the others (`"*": deny`): a build lists those tools and no MCP tool'
)


def _in_order(runtime: Runtime, listed: Sequence[str]) -> list[str]:
    """The listed tools, the runtime's own in its order first (the one that makes
    a permission's calls comes first), then its other names as listed."""
    order = [tool for tool, _ in runtime.tools]
    known = [tool for tool in order if tool in listed]
    return known + [tool for tool in dict.fromkeys(listed) if tool not in order]


def _unasked(runtime: Runtime, key: str, tool: str) -> Any:
    """What the runtime does by default with the permission's calls made with `tool`."""
    if runtime is COPILOT:
        return "ask" if key in _COPILOT_ASKS else "allow"
    action = "allow" if tool in _GEMINI_RUNS else "ask"
    if key not in _PATH_TOOLS:
        return action
    return {"*": action, **dict.fromkeys(_BLOCKED, "deny")}


def command_spec(meta: Mapping[str, Any]) -> tuple[dict[str, Any], str | None, list[Note]]:
    """A Gemini command (parsed TOML) as (mode frontmatter, body, notes); body None: none."""
    notes: list[Note] = []
    prompt = meta.get("prompt")
    if not isinstance(prompt, str):
        return {}, None, [Note("prompt", "no `prompt` string; not imported")]
    spec: dict[str, Any] = {}
    body = prompt
    if ARGUMENTS in prompt:
        # Text for Gemini, which fills only `{{args}}`: it stays text in a build for
        # Gemini, and `{{args}}` stays as written beside it.
        spec["targets"] = {"gemini": {"literal_arguments": True}}
        notes.append(Note("prompt", _LITERAL_ARGUMENTS))
    else:
        body = body.replace("{{args}}", ARGUMENTS)
    body = _SHELL.sub(r"!`\1`", body)
    kept = [m.group(0) for m in _FILE.finditer(body) if _as_opencode(m) == m.group(0)]
    body = _FILE.sub(_as_opencode, body)
    if kept:
        notes.append(Note("prompt", _KEPT_FILES.format(", ".join(f"`{k}`" for k in kept))))
    description = meta.get("description")
    if not isinstance(description, str):
        description = next((line.strip("# ") for line in body.split("\n") if line.strip()), "")
        notes.append(Note("description", "no description: the first line of the prompt stands in"))
    for key in meta:
        if key not in ("prompt", "description"):
            notes.append(Note(key, f"`{key}` has no promptc equivalent; not carried over"))
    return {"description": description or "Imported command", **spec}, body, notes


def _as_opencode(reference: re.Match[str]) -> str:
    """Gemini's `@{path}` as OpenCode's `@path`, where OpenCode reads that path back
    (a `,` in it or a `.` at its end would end OpenCode's early); else as written."""
    path = reference.group(1)
    read = FILE.match(f"@{path}")
    return f"@{path}" if read is not None and read.group(1) == path else reference.group(0)


_KEPT_FILES = (
    "{} kept as written: OpenCode would read a shorter path from `@path`, so the file is "
    "attached in Gemini only"
)
_LITERAL_ARGUMENTS = (
    "`$ARGUMENTS` is text in a Gemini command (Gemini fills `{{args}}`): kept as written "
    "for Gemini (`targets.gemini.literal_arguments`); OpenCode and Claude Code fill it with "
    "the arguments"
)
