"""What stands at a place in a bundle's file: its definition, a hover text, completions.

The language server (promptc_compiler.editor.lsp) asks these questions of a Snapshot: the
bundle loaded once from the files on disk under the editor's unsaved texts
(Config.overlays), composed for the lint target, with OpenCode's permission
model resolved when first asked. A Snapshot is made for one version of the
texts and dropped at the next edit: nothing is kept from one to the next.

Positions are 1-based lines and columns counted in code points, as promptc's
diagnostics count them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from promptc_compiler.base.source import SOURCE
from promptc_compiler.core import params
from promptc_compiler.core.bundle import Bundle, load_bundle
from promptc_compiler.core.compose import Composition, SourceMap, compose_bundle
from promptc_compiler.core.config import Config
from promptc_compiler.core.loader import JsonPath, SourceFile
from promptc_compiler.core.project import make_project
from promptc_compiler.core.resources import load_schema
from promptc_compiler.core.scan import Placeholder, scan_of
from promptc_compiler.permissions import delegation, wildcard
from promptc_compiler.permissions import runtime as runtime_model
from promptc_compiler.permissions.ruleset import ACTIONS, KNOWN_KEYS, evaluate
from promptc_compiler.permissions.runtime import Agent, Runtime
from promptc_compiler.permissions.wildcard import TooComplex
from promptc_compiler.runtimes import TARGET_NAMES

# The `$defs` whose keys a spec of each kind may hold besides the schema's own properties.
# An agent spec is OpenCode's format: Claude Code's keys belong under `targets.claude`
# (at the top they are cross-ecosystem errors, in a mode schema errors), so they are
# offered only there.
_KEY_DEFS = {"agent": ("opencodeAgent",)}
# A key a target's override may not set (tools, permissions) refers to this definition.
_NOT_OVERRIDABLE = "#/$defs/notOverridable"


class File(NamedTuple):
    """A file of the bundle: its kind (agent, mode, fragment, skill), id and loaded source."""

    kind: str
    ident: str  # agent or mode id, fragment name, `<skill>/<path in its folder>`
    source: SourceFile


class Place(NamedTuple):
    """A place to jump to: a file and a 1-based line."""

    path: Path
    line: int = 1


class Snapshot:
    """One version of the bundle, loaded for the editor's questions."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.bundle: Bundle = load_bundle(config)
        self.target = next(iter(config.targets), SOURCE)  # the lint target, as api's
        self.files: dict[Path, File] = {}
        for kind, items in (
            ("agent", self.bundle.agents),
            ("mode", self.bundle.modes),
            ("fragment", self.bundle.fragments),
            ("skill", self.bundle.skill_files()),
        ):
            for ident, source in items.items():
                self.files[source.path] = File(kind, ident, source)

    @functools.cached_property
    def composition(self) -> Composition:
        return compose_bundle(self.bundle, self.target, TARGET_NAMES, self.config.display)

    @functools.cached_property
    def runtime(self) -> Runtime:
        """The agents OpenCode would load, as `promptc can` resolves them."""
        composition = (
            self.composition
            if self.target == SOURCE
            else compose_bundle(self.bundle, SOURCE, TARGET_NAMES, self.config.display)
        )
        project = make_project(self.config, self.bundle, composition, SOURCE)
        return runtime_model.resolve(project)


# --- what stands at a place ---------------------------------------------------------


def placeholder_at(source: SourceFile, line: int, column: int) -> Placeholder | None:
    """The `<<name>>` or `<<name(...)>>` the place falls in, if any."""
    if not source.ok:
        return None
    for found in scan_of(source).placeholders:
        if found.line == line and found.column <= column < found.column + len(found.text):
            return found
    return None


def key_at(source: SourceFile, line: int, column: int) -> JsonPath | None:
    """The frontmatter key written on this line at or before the column (the deepest)."""
    front = source.frontmatter
    if front is None or not front.start_line < line < front.end_line + 1:
        return None
    best: tuple[int, JsonPath] | None = None
    for path, (at, start) in front.keys.items():
        if at == line and start <= column and (best is None or start > best[0]):
            best = (start, path)
    return best[1] if best else None


def _section(path: JsonPath) -> JsonPath:
    """The key path as OpenCode reads it: a `targets.<name>` override's prefix removed."""
    return path[2:] if len(path) > 2 and path[0] == "targets" else path


# --- go to definition ---------------------------------------------------------------


def definition(snapshot: Snapshot, path: Path, line: int, column: int) -> list[Place]:
    """Where a fragment, a `task` pattern's agents or a `skill` entry's skills are written."""
    file = snapshot.files.get(path)
    if file is None:
        return []
    bundle = snapshot.bundle
    found = placeholder_at(file.source, line, column)
    if found is not None:
        fragment = bundle.fragments.get(found.name)
        return [Place(fragment.path)] if fragment is not None else []
    key = key_at(file.source, line, column)
    if key is None:
        return []
    key = _section(key)
    pattern = key[2] if len(key) == 3 and key[0] == "permission" else None
    if isinstance(pattern, str) and key[1] in ("task", "skill"):
        skills = {name: skill.main for name, skill in bundle.skills.items()}
        files = bundle.agents if key[1] == "task" else skills
        return [Place(f.path) for name, f in files.items() if wildcard.match(name, pattern)]
    if key == ("agent",) and file.kind == "mode":
        agent = file.source.frontmatter.data.get("agent") if file.source.frontmatter else None
        if isinstance(agent, str) and agent in bundle.agents:
            return [Place(bundle.agents[agent].path)]
    return []


# --- hover --------------------------------------------------------------------------


def hover(snapshot: Snapshot, path: Path, line: int, column: int) -> str | None:
    """Markdown about what stands at the place: a fragment call, a permission rule,
    an agent (its opening `---` line) and who can start it."""
    file = snapshot.files.get(path)
    if file is None:
        return None
    found = placeholder_at(file.source, line, column)
    if found is not None:
        return _fragment_hover(snapshot, file, found)
    if file.kind == "agent" and line == 1 and file.source.frontmatter is not None:
        return _agent_hover(snapshot, file.ident)
    key = key_at(file.source, line, column)
    if file.kind == "agent" and key is not None and _section(key)[:1] == ("permission",):
        return _rule_hover(snapshot, file, line)
    return None


def _fragment_hover(snapshot: Snapshot, file: File, call: Placeholder) -> str | None:
    fragment = snapshot.bundle.fragments.get(call.name)
    if fragment is None:
        return None
    declared, _ = params.declare(fragment, snapshot.bundle.fragments)
    lines = [f"**fragment `{call.name}`** ({snapshot.config.display(fragment.path)})"]
    description = fragment.frontmatter.data.get("description") if fragment.frontmatter else None
    if isinstance(description, str):
        lines += ["", description]
    if declared:
        lines += ["", "Parameters:"]
        for param in declared.values():
            about = f": {param.description}" if param.description else ""
            lines.append(f"- `{params.signature({param.name: param})}`{about}")
    composed = _composed(snapshot, file, call)
    if composed is not None:
        lines += ["", f"Composed for {snapshot.target}:", "", "```markdown", composed, "```"]
    return "\n".join(lines)


def _composed(snapshot: Snapshot, file: File, call: Placeholder) -> str | None:
    """The text this call composes to in its agent, mode or skill file, from the source map."""
    composition = snapshot.composition
    kinds: dict[str, tuple[Mapping[str, str], Mapping[str, SourceMap]]] = {
        "agent": (composition.agents, composition.agent_maps),
        "mode": (composition.modes, composition.mode_maps),
        "skill": (composition.skills, composition.skill_maps),
    }
    texts, maps = kinds.get(file.kind, ({}, {}))
    if file.ident not in texts:
        return None
    body = texts[file.ident].split("\n")
    origins = maps[file.ident]
    mine = [
        body[index]
        for index, origin in enumerate(origins)
        if origin.chain
        and (origin.chain[0].line, origin.chain[0].column) == (call.line, call.column)
        and index < len(body)
    ]
    return "\n".join(mine) if mine else None


def _agent_hover(snapshot: Snapshot, ident: str) -> str | None:
    runtime = snapshot.runtime
    agent = runtime.agents.get(ident)
    if agent is None:
        return f"**agent `{ident}`**: OpenCode does not load it (`disable: true`)"
    out = list(delegation.edges_from(runtime, agent))
    into = [
        edge
        for source in runtime.bundle_agents()
        for edge in delegation.edges_from(runtime, source)
        if edge.target.name == ident
    ]
    lines = [f"**agent `{ident}`** (mode {agent.mode})", "", "Started by:"]
    lines += [_edge(edge.source.name, edge, snapshot) for edge in into] or ["- no agent"]
    lines += ["", "Starts:"]
    lines += [_edge(edge.target.name, edge, snapshot) for edge in out] or ["- no agent"]
    return "\n".join(lines)


def _edge(name: str, edge: delegation.Edge, snapshot: Snapshot) -> str:
    nested = " (from a subagent session: refused at OpenCode's default depth)" * edge.nested
    rule = delegation.where(edge.decision.rule, snapshot.config.display)
    return f"- `{name}`: {edge.decision.action}, by {rule}{nested}"


def _rule_hover(snapshot: Snapshot, file: File, line: int) -> str | None:
    agent = snapshot.runtime.agents.get(file.ident)
    if agent is None:
        return None
    parts = []
    for index, rule in enumerate(agent.rules):
        origin = rule.origin
        if origin.kind == "agent" and origin.path == file.source.path and origin.line == line:
            parts.append(_rule_text(snapshot, agent, index))
    return "\n\n---\n\n".join(parts) or None


def _rule_text(snapshot: Snapshot, agent: Agent, index: int) -> str:
    """What `promptc can` answers for the rule's own input, and whether a later rule shadows it."""
    rule = agent.rules[index]
    subagent = agent.runs_as_subagent
    decision = evaluate(agent.effective(subagent), rule.permission, rule.pattern)
    role = "a subagent" if subagent else "a primary agent"
    asked = f'`promptc can {agent.name} {rule.permission} "{rule.pattern}"` ({role})'
    display = snapshot.config.display
    where = "this rule" if decision.rule is rule else delegation.where(decision.rule, display)
    lines = [
        f"**{rule.action}**: `{rule.text()}`",
        "",
        f"{asked} answers **{decision.action}**, decided by {where}.",
    ]
    coverage = snapshot.runtime.coverage
    try:
        dead = coverage.decides(agent.rules, index) is None
        later = coverage.overlapping(agent.rules, index) if dead else []
    except TooComplex:
        return "\n".join(lines)
    if dead:
        shadows = ", ".join(
            f"`{agent.rules[j].text()}` ({delegation.where(agent.rules[j], display)})"
            for j in later
        )
        lines += [
            "",
            f"Shadowed: it never decides; later rules match everything it matches: {shadows}.",
        ]
    # A `task` entry naming one agent: who else can start it, and whom it starts.
    if rule.permission == "task" and rule.pattern in snapshot.runtime.agents:
        lines += ["", _agent_hover(snapshot, rule.pattern) or ""]
    return "\n".join(lines)


# --- completion ---------------------------------------------------------------------


class Item(NamedTuple):
    """One completion: the label shown, the text inserted, what it is."""

    label: str
    kind: str  # fragment, parameter, value, agent, key, action
    detail: str = ""
    insert: str | None = None  # default: the label


_FRAGMENT_PREFIX = re.compile(r"<<[ \t]*[A-Za-z_][A-Za-z0-9_]*$|<<[ \t]*$")
_CALL_PREFIX = re.compile(r"<<[ \t]*([A-Za-z_][A-Za-z0-9_]*)\(([^()<>]*)$")
_ARG_VALUE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*([\"']?)[^,\"']*$")
_KEY_PREFIX = re.compile(r"^([ ]*)[\"']?[A-Za-z0-9_*./ -]*$")
_VALUE_PREFIX = re.compile(r"^([ ]*)(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_*./ -]+?):[ ]+\S*$")
_PARENT = re.compile(r"^([ ]*)(\"[^\"]*\"|'[^']*'|[^\s:#][^:#]*?)[ ]*:[ ]*(#.*)?$")


def complete(snapshot: Snapshot, path: Path, text: str, line: int, column: int) -> list[Item]:
    """Completions at the place in the editor's `text` of the file at `path`."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return []
    prefix = lines[line - 1][: column - 1]
    kind = _kind(snapshot.config, path)
    if kind is None:
        return []
    if _in_frontmatter(lines, line):
        return list(_frontmatter_items(snapshot, kind, lines, line, prefix))
    call = _CALL_PREFIX.search(prefix)
    if call is not None:
        return list(_argument_items(snapshot, call.group(1), call.group(2)))
    if _FRAGMENT_PREFIX.search(prefix):
        return [
            Item(name, "fragment", _signature(snapshot, source))
            for name, source in sorted(snapshot.bundle.fragments.items())
        ]
    return []


def _kind(config: Config, path: Path) -> str | None:
    for kind, folder in (
        ("agent", config.specs / "agents"),
        ("mode", config.specs / "modes"),
        ("skill", config.specs / "skills"),
        ("fragment", config.fragments),
    ):
        if folder in path.parents:
            return kind
    return None


def _in_frontmatter(lines: list[str], line: int) -> bool:
    if not lines or lines[0].rstrip() != "---" or line == 1:
        return False
    return all(lines[i].rstrip() not in ("---", "...") for i in range(1, line - 1))


def _signature(snapshot: Snapshot, source: SourceFile) -> str:
    declared, _ = params.declare(source, snapshot.bundle.fragments)
    return params.signature(declared)


def _argument_items(snapshot: Snapshot, name: str, written: str) -> Iterator[Item]:
    fragment = snapshot.bundle.fragments.get(name)
    if fragment is None:
        return
    declared, _ = params.declare(fragment, snapshot.bundle.fragments)
    value = _ARG_VALUE.search(written.rsplit(",", 1)[-1])
    if value is not None:
        param_name, quoted = value.group(1), value.group(2)
        param = declared.get(param_name)
        for choice in (param.enum or ()) if param else ():
            shown = params.describe(choice)
            insert = shown.strip('"') if quoted and isinstance(choice, str) else shown
            yield Item(shown, "value", f"{name}({param_name}=…)", insert)
        return
    given = {part.split("=", 1)[0].strip() for part in written.split(",")}
    for param in declared.values():
        if param.name not in given:
            yield Item(
                param.name, "parameter", params.signature({param.name: param}), f"{param.name}="
            )


def _parents(lines: list[str], line: int, indent: int) -> list[str]:
    """The keys of the mappings the line at `indent` stands in, outermost first."""
    found: list[str] = []
    for above in range(line - 2, 0, -1):
        match = _PARENT.match(lines[above])
        if match is None or len(match.group(1)) >= indent:
            continue
        found.insert(0, match.group(2).strip("\"'"))
        indent = len(match.group(1))
        if indent == 0:
            break
    return found


def _frontmatter_items(
    snapshot: Snapshot, kind: str, lines: list[str], line: int, prefix: str
) -> Iterator[Item]:
    value = _VALUE_PREFIX.match(prefix)
    if value is not None:
        parents = _parents(lines, line, len(value.group(1)))
        yield from _value_items(kind, [*parents, value.group(2).strip("\"'")])
        return
    key = _KEY_PREFIX.match(prefix)
    if key is None:
        return
    parents = _parents(lines, line, len(key.group(1)))
    section = parents[2:] if parents[:1] == ["targets"] and len(parents) >= 2 else parents
    if parents == ["targets"]:
        yield from (Item(name, "key", "target") for name in _TARGET_KEYS[kind])
    elif len(parents) == 2 and parents[0] == "targets":
        keys = _TARGET_KEYS[kind].get(parents[1], {})
        yield from (Item(name, "key", _about(schema)) for name, schema in keys.items())
    elif section == []:
        yield from (Item(name, "key", _about(schema)) for name, schema in _KEYS[kind].items())
    elif section == ["permission"] and kind == "agent":
        tools = snapshot.config.custom_tools
        yield from (Item(name, "key", "permission") for name in (*KNOWN_KEYS, *tools))
    elif section == ["permission", "task"]:
        yield Item('"*"', "agent", "every agent the task tool offers")
        for ident in sorted(snapshot.bundle.agents):
            yield Item(ident, "agent", _agent_detail(snapshot, ident))
    elif section == ["permission", "skill"]:
        yield Item('"*"', "key", "every skill")
        yield from (Item(name, "key", "skill") for name in sorted(snapshot.bundle.skills))


def _value_items(kind: str, path: list[str]) -> Iterator[Item]:
    section = path[2:] if path[:1] == ["targets"] and len(path) >= 3 else path
    if kind == "agent" and section[:1] == ["permission"] and len(section) in (2, 3):
        yield from (Item(action, "action", "permission action") for action in ACTIONS)
        return
    if len(section) == 1:
        keys = _TARGET_KEYS[kind].get(path[1], {}) if section is not path else _KEYS[kind]
        schema = keys.get(section[0], {})
        for choice in _enum(kind, schema):
            shown = params.render(choice) if isinstance(choice, bool) else str(choice)
            yield Item(shown, "value", section[0])


def _agent_detail(snapshot: Snapshot, ident: str) -> str:
    source = snapshot.bundle.agents[ident]
    data: Mapping[str, Any] = source.frontmatter.data if source.frontmatter else {}
    mode = data.get("mode", "all")
    return f"agent, mode {mode}" if isinstance(mode, str) else "agent"


def _schema_keys(kind: str) -> dict[str, Mapping[str, Any]]:
    """The frontmatter keys a spec of `kind` may hold, each with its schema."""
    schema = load_schema(kind)
    keys: dict[str, Mapping[str, Any]] = {}
    for definition in _KEY_DEFS.get(kind, ()):
        for name, value in schema["$defs"][definition].get("properties", {}).items():
            keys.setdefault(name, value)
    for name, value in schema.get("properties", {}).items():
        keys.setdefault(name, value)
    return keys


def _target_keys(kind: str) -> dict[str, dict[str, Mapping[str, Any]]]:
    """Target name -> the keys its override (`targets.<name>`) may set, from the schema."""
    schema = load_schema(kind)
    targets = schema.get("properties", {}).get("targets", {}).get("properties", {})
    found: dict[str, dict[str, Mapping[str, Any]]] = {}
    for name, ref in targets.items():
        definition = schema["$defs"][ref["$ref"].removeprefix("#/$defs/")]
        found[name] = {
            key: value
            for key, value in definition.get("properties", {}).items()
            if value.get("$ref") != _NOT_OVERRIDABLE
        }
    return found


def _enum(kind: str, schema: Mapping[str, Any]) -> tuple[Any, ...]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        schema = load_schema(kind)["$defs"].get(ref.removeprefix("#/$defs/"), {})
    if schema.get("type") == "boolean":
        return (True, False)
    return tuple(schema.get("enum", ()))


def _about(schema: Mapping[str, Any]) -> str:
    description = schema.get("description", "")
    return description.split(". ")[0] if isinstance(description, str) else ""


# The shipped schemas are package data: their keys are constants.
_KEYS = {kind: _schema_keys(kind) for kind in ("agent", "mode", "fragment", "skill")}
_TARGET_KEYS = {kind: _target_keys(kind) for kind in ("agent", "mode", "fragment", "skill")}
