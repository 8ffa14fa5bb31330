"""Import, tool-list side: a Copilot CLI or Gemini CLI agent file as a promptc spec.

An agent becomes a `permission` map that decides every call as the runtime
itself would, never more permissively (tests/test_import_never_widens.py holds
it to the runtime's decision model): `"*": deny` first, for every tool the
agent does not have (an MCP tool, a tool OpenCode has and the runtime has
not), then each OpenCode permission one of its tools acts under (the table of
the runtime's promptc_compiler.runtimes.tool_lists record, and its own other
names for tools), at what the runtime does with such a call when nobody
configured anything (`Reading.unasked`), and `external_directory` at what it
does with a file outside the project. An agent without `tools`, or with `"*"`,
has every tool of the runtime, each decided that way. A runtime's `task`
starts the folder's own agents (named one by one: OpenCode's `general` and
`explore` are no agents of the runtime's; a primary is one OpenCode's task
tool never starts). `max_turns` becomes `steps`. The keys the target's
`targets.<target>` override table takes and OpenCode has no place for go
there as written, so that a build for the same runtime writes them back.
Each runtime's package says the rest in its `Reading`: its tool names, its
defaults, which files it loads as agents and in which mode.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from promptc_compiler.runtimes.reading import Note, Reader, front, meta
from promptc_compiler.runtimes.tool_lists import Runtime


class Reading(NamedTuple):
    """How `promptc import` reads one tool-list runtime's agent files back."""

    runtime: Runtime
    # Tool names the runtime takes beside its table's (runtime.tools).
    own_names: Mapping[str, tuple[str, ...]]
    # What the runtime does, nobody having configured anything, with the calls of
    # an OpenCode permission made with one of its tools: (permission, tool) -> rule.
    unasked: Callable[[str, str], Any]
    # What it does with a file outside the project, as `external_directory`
    # (None: refused, left to `"*": deny`).
    outside: str | None
    # The OpenCode mode of an agent file.
    mode: Callable[[Mapping[str, Any]], str]
    # The agent file's keys the import reads beside its override table's.
    reads: tuple[str, ...] = ("name", "tools")
    # Folders beside `agents/` the runtime's CLI does not read.
    unread: tuple[str, ...] = ()
    # What the file names of its agents end with beside `.md`.
    suffix: str = ""
    # Whether it loads an agent whose `description` is blank.
    blank_description: bool = True
    # Why it runs the agent of a file elsewhere (not imported), if it does.
    elsewhere: Callable[[Mapping[str, Any]], Note | None] = lambda _meta: None
    # Keys only `targets.<target>` can say that it takes as written from a file.
    extra: Callable[[Mapping[str, Any]], dict[str, Any]] = lambda _meta: {}

    @property
    def overrides(self) -> tuple[str, ...]:
        """Keys of the agent file that the target's override table takes as written
        and that have no OpenCode key of their own: carried there (override_table)."""
        runtime = self.runtime
        return tuple(key for key in runtime.overrides if key not in runtime.opencode_keys)


def read(root: Path, reader: Reader, reading: Reading) -> None:
    """Every agent of the runtime's `agents/` folder into `reader`."""
    runtime = reading.runtime
    for name in reading.unread:
        if (root / name).is_dir():
            reader.note(root / name, f"{runtime.label} reads no {name}/; not imported")
    found = []
    for ident, source in reader.markdown(root, ("agents",)):
        skipped = not_an_agent(reading, meta(source))
        if skipped is not None:
            reader.note(source.path, skipped)
        else:
            found.append((ident.removesuffix(reading.suffix), source))
    # Whom the runtime's delegation may start: no primary (OpenCode's task tool never does).
    idents = [ident for ident, source in found if reading.mode(meta(source)) != "primary"]
    for ident, source in found:
        spec, notes = agent_spec(reading, ident, meta(source), idents)
        reader.at_keys(source, notes)
        if spec is not None:
            reader.agent(ident, source, front(spec))


def not_an_agent(reading: Reading, data: Mapping[str, Any]) -> str | None:
    """Why the runtime loads no agent from a file of its agents folder (None: it
    does). Copilot CLI 1.0.102 takes a `.md` file there only with a frontmatter
    `description` string (a README or notes file is none); Gemini CLI's schema
    needs a description that is not blank."""
    description = data.get("description")
    if isinstance(description, str) and (reading.blank_description or description.strip()):
        return None
    return (
        f"no `description` text in its frontmatter: {reading.runtime.label} loads no agent "
        "from this file; not imported"
    )


def agent_spec(
    reading: Reading, ident: str, data: Mapping[str, Any], agents: Sequence[str] = ()
) -> tuple[dict[str, Any] | None, list[Note]]:
    """The promptc agent frontmatter for a runtime's agent (None: not importable);
    `agents` are the ids of the folder's agents Copilot's `task` may start."""
    elsewhere = reading.elsewhere(data)
    if elsewhere is not None:
        return None, [elsewhere]
    notes: list[Note] = []
    stem = ident.rsplit("/", 1)[-1]
    if "name" in data and data["name"] != stem:
        notes.append(
            Note("name", f"name `{data['name']}` differs from the file name: the id is `{ident}`")
        )
    spec: dict[str, Any] = {}
    if "description" in data:
        spec["description"] = data["description"]
    spec["mode"] = reading.mode(data)
    if step_count(data.get("max_turns")):
        spec["steps"] = data["max_turns"]
    spec["permission"] = permission_map(reading, data.get("tools"), notes, agents)
    override = override_table(reading, data)
    if override:
        spec["targets"] = {reading.runtime.target: override}
    known = (*reading.reads, *reading.runtime.overrides)
    for key in data:
        if key not in known:
            notes.append(Note(key, f"`{key}` has no promptc equivalent; not carried over"))
    return spec, notes


def override_table(reading: Reading, data: Mapping[str, Any]) -> dict[str, Any]:
    """The agent's keys that only `targets.<target>` can say, as written (the schema
    checks their values when the imported bundle is linted)."""
    table = {key: data[key] for key in reading.overrides if key in data}
    table.update(reading.extra(data))
    return table


def step_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def permission_map(
    reading: Reading, tools: Any, notes: list[Note], agents: Sequence[str] = ()
) -> dict[str, Any]:
    """The OpenCode permission map deciding each call as the runtime does for an
    agent with this `tools` value (None: no `tools` key, every tool)."""
    runtime = reading.runtime
    listed = [tools] if isinstance(tools, str) else [str(t) for t in tools or ()]
    every = tools is None or "*" in listed
    if every:
        notes.append(Note("tools", _EVERY_TOOL))
    table = {**dict(runtime.tools), **reading.own_names}
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
            permission[key] = reading.unasked(key, having[key][0])
    if reading.outside is not None:
        permission["external_directory"] = reading.outside
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
