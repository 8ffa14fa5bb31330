"""Import: turn a hand-written OpenCode, Claude Code, Codex, Copilot or Gemini folder into specs.

What each layout carries over: docs/import.md, and the Import section of
docs/targets/codex.md, copilot.md and gemini.md. `plan_import` reads the folder
and returns every file it would write, the config it proposes and what it could
not carry over; nothing is written until the plan is checked: each body must
compose back to its original bytes (verified with the composition engine
itself) and no existing spec or fragment is replaced without `force`. Each
runtime's keys are read by compiler/promptc_compiler/runtimes/claude/import_.py, import_codex.py and
import_lists.py: a key with an OpenCode meaning becomes that key, and a key only
the runtime reads goes to the spec's `targets.<runtime>` override, as written,
so that a build for the same runtime writes it back. What an agent may do is
decided as the runtime decided it, never more permissively: its defaults (what
it asks about, the tools an agent without a list has) become the OpenCode
rules that decide the same (tests/test_import_never_widens.py holds every
import to promptc_compiler.runtimes's model of the runtime on the original folder).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from promptc_compiler.base.diagnostics import Diagnostic, Severity
from promptc_compiler.base.errors import UsageError
from promptc_compiler.base.files import replace_file
from promptc_compiler.core import yamlout
from promptc_compiler.core.bundle import Bundle
from promptc_compiler.core.compose import compose_bundle
from promptc_compiler.core.config import Config, thaw
from promptc_compiler.core.loader import SourceFile, load_bytes, load_file
from promptc_compiler.core.project import frontmatter_text
from promptc_compiler.pipeline.import_text import Shared, escape, find_shared, replace_shared
from promptc_compiler.rules import agent_id
from promptc_compiler.runtimes import import_lists
from promptc_compiler.runtimes.claude import import_ as import_claude
from promptc_compiler.runtimes.codex import import_ as import_codex
from promptc_compiler.runtimes.targets import TARGETS
from promptc_compiler.runtimes.tool_lists import COPILOT, GEMINI

# The folder each runtime reads in a project, by the target that writes it
# (the registry's PROJECT_FOLDER): one import command each.
LAYOUTS = {name: t.PROJECT_FOLDER for name, t in TARGETS.items() if t.PROJECT_FOLDER is not None}
RULE = "import"
MODE_KEYS = ("description", "agent", "model", "variant", "subtask")


@dataclass(frozen=True)
class Plan:
    files: Mapping[str, str]  # path relative to the bundle root -> text
    config: Mapping[str, Any]  # proposed [tool.promptc] settings
    notes: tuple[Diagnostic, ...]
    shared: tuple[Shared, ...] = ()
    # Folders (relative to the bundle root) written even when empty: a folder
    # with no agents still gets the specs folder every later command reads.
    folders: tuple[str, ...] = ()


@dataclass
class _Reader:
    config: Config
    notes: list[Diagnostic] = field(default_factory=list)
    agents: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (frontmatter, body)
    modes: dict[str, tuple[str, str]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)  # the proposed config
    originals: dict[str, str] = field(default_factory=dict)  # agent id -> body as read
    paths: dict[str, Path] = field(default_factory=dict)  # agent id -> its file

    def note(
        self, path: Path, message: str, at: tuple[int, int] = (1, 1), error: bool = False
    ) -> None:
        severity = Severity.ERROR if error else Severity.WARNING
        line, column = at
        self.notes.append(
            Diagnostic(self.config.display(path), line, column, RULE, severity, message)
        )

    def keep(self, ident: str, path: Path, front: str, body: str, original: str) -> None:
        self.agents[ident] = (front, body)
        self.originals[ident] = original
        self.paths[ident] = path

    def agent(self, ident: str, source: SourceFile, front: str) -> None:
        """Keep the agent, unless its body cannot be kept byte for byte (noted)."""
        body = self._body(source)
        if body is not None:
            self.keep(ident, source.path, front, body, source.body)

    def mode(self, ident: str, source: SourceFile, front: str) -> None:
        body = self._body(source)
        if body is not None:
            self.modes[ident] = (front, body)

    def _body(self, source: SourceFile) -> str | None:
        escaped = escape(source.body)
        if escaped is None:
            message = "body cannot be kept byte for byte; not imported"
            self.note(source.path, message, (source.body_line, 1), error=True)
        return escaped

    def at_key(self, source: SourceFile, key: str, message: str) -> None:
        at = source.frontmatter.where((key,), key=True) if source.frontmatter else (1, 1)
        self.note(source.path, message, at)

    def load(self, path: Path) -> SourceFile | None:
        """The file, or None (with its errors noted) when it cannot be carried over."""
        source = load_file(path)
        errors = [p for rule, p in source.findings if rule == "syntax"]
        for problem in errors:
            self.note(
                path, f"{problem.message}; not imported", (problem.line, problem.column), True
            )
        return None if errors else source


def source_root(kind: str, folder: Path) -> Path:
    """The `.opencode`/`.claude` folder: `folder` itself or inside it."""
    name = LAYOUTS[kind]
    if folder.name == name and folder.is_dir():
        return folder
    if (folder / name).is_dir():
        return folder / name
    raise UsageError(
        f"{folder}: no {name}/ folder here (give the project folder or {name}/ itself)"
    )


def _markdown(
    root: Path, names: tuple[str, ...], reader: _Reader
) -> Iterator[tuple[str, SourceFile]]:
    """Every .md file under the folders `names` that loads: its id and source."""
    seen: dict[str, Path] = {}
    for name in names:
        folder = root / name
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_dir():
                continue
            if path.suffix != ".md":
                reader.note(path, "not a .md file; not imported")
                continue
            ident = path.relative_to(folder).with_suffix("").as_posix()
            if ident in seen:
                message = f"`{ident}` is also defined by {seen[ident]}; not imported"
                reader.note(path, message, error=True)
                continue
            seen[ident] = path
            source = reader.load(path)
            if source is not None:
                yield ident, source


def plan_import(kind: str, folder: Path, config: Config) -> Plan:
    root = source_root(kind, folder)
    reader = _Reader(config)
    if kind in ("copilot", "gemini"):
        _read_lists(kind, root, reader)
    else:
        _READERS[kind](root, reader)
    agents = reader.agents
    specs = _relative(config, config.specs)
    if not agents:
        _note_no_agents(kind, root, reader)
    files = {
        f"{specs}/{folder_name}/{ident}.md": front + body
        for folder_name, items in (("agents", agents), ("modes", reader.modes))
        for ident, (front, body) in items.items()
    }
    shared = _with_shared(config, files, agents, reader)
    proposal = dict(reader.settings)
    if kind != "opencode":  # OpenCode's target is on when no `[targets]` is written
        proposal["targets"] = _targets_on(kind, reader.settings.get("targets", {}))
    _check_permission_kept(config, proposal, reader)
    _check_target_on(config, kind, reader)
    snippet = _snippet_proposal(shared, list(agents))
    if snippet:
        proposal["rules"] = {"required-snippet": snippet}
    if naming := agent_id.proposal(agents):  # names as the runtime knew them
        proposal.setdefault("rules", {})["agent-id"] = naming
    for ident in verify(Plan(files, proposal, ()), reader.originals, config):
        message = f"agent `{ident}` would not compose back to its text; please report this"
        reader.note(reader.paths.get(ident, root), message, error=True)
    return Plan(files, proposal, tuple(reader.notes), tuple(shared), (specs,))


def _note_no_agents(kind: str, root: Path, reader: _Reader) -> None:
    """A folder without agents (only rules, settings or commands) is imported for
    what it has, and says so: it is no error, and no agent was skipped."""
    where = "agents/*.toml" if kind == "codex" else "agents/*.md"
    has = f"{len(reader.modes)} command(s) and the settings" if reader.modes else "its settings"
    reader.note(root, f"no agent here ({where}): imported {has} only")


def _with_shared(
    config: Config, files: dict[str, str], agents: Mapping[str, tuple[str, str]], reader: _Reader
) -> list[Shared]:
    """Put text repeated across agents in fragments (in `files`), and the shared text
    kept. An agent whose body would not compose back with them keeps its text as
    read, and is said to: the import of the others goes on."""
    specs = _relative(config, config.specs)
    fragments = _relative(config, config.fragments)
    found = find_shared({ident: body for ident, (_, body) in agents.items()})
    failed: set[str] = set()
    while True:
        kept = [
            replace(
                item, carriers=carriers, at_top=tuple(i for i in item.at_top if i not in failed)
            )
            for item in found
            if len(carriers := tuple(i for i in item.carriers if i not in failed)) >= 2
        ]
        candidate = dict(files)
        for ident, (front, body) in agents.items():
            text = body if ident in failed else replace_shared(body, kept)
            candidate[f"{specs}/agents/{ident}.md"] = front + text
        for item in kept:
            candidate[f"{fragments}/{item.name}.md"] = fragment_file(item.text)
        newly = set(verify(Plan(candidate, {}, ()), reader.originals, config)) - failed
        if not kept or not newly:
            break
        failed |= newly
    for ident in sorted(failed):
        reader.note(
            reader.paths[ident],
            "imported without shared fragments: with them its body would not come back "
            "byte for byte; please report this",
        )
    files.update(candidate)
    return kept


def fragment_file(text: str) -> str:
    """The fragment file whose body is exactly `text`: behind an empty frontmatter
    when the loader would take the text's own first lines for one (a `---` line)."""
    alone = load_bytes(Path("fragment.md"), text.encode())
    return text if alone.body == text and not alone.findings else f"---\n---\n{text}"


def _check_permission_kept(config: Config, proposal: Mapping[str, Any], reader: _Reader) -> None:
    """An existing config is never rewritten: when it lacks the proposed config-level
    permission, the imported agents would be decided wider than where they came from."""
    wanted = proposal.get("permission")
    if config.source is None or wanted is None or thaw(config.permission) == wanted:
        return
    reader.note(
        config.source,
        "the imported agents rely on the proposed config-level `permission` (printed "
        "below): without it OpenCode decides calls wider than the imported folder did",
        config.where(("permission",)),
    )


def _targets_on(kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The proposed `[targets]`: OpenCode's (on by default, and kept on: the
    specs are OpenCode's first) and the imported runtime's, once, with the
    options the import found for it. A Claude Code import turns on `claude`
    only: a `claude-plugin` target reads the same `targets.claude` keys."""
    targets: dict[str, Any] = {"opencode": dict(options.get("opencode", {}))}
    targets[kind] = dict(options.get(kind, {}))
    return targets


def _check_target_on(config: Config, kind: str, reader: _Reader) -> None:
    """An existing config is never rewritten: without the imported runtime's
    target, `build` writes none of its files, and says so only here."""
    if config.source is None or kind in config.targets:
        return
    reader.note(
        config.source,
        f"no `[targets.{kind}]` here: `promptc build` writes no {kind} files for the "
        "imported agents until it is added (the proposal below has it)",
        config.where(("targets",)),
    )


def _relative(config: Config, path: Path) -> str:
    return path.relative_to(config.root).as_posix()


def _front(spec: Mapping[str, Any]) -> str:
    return f"---\n{yamlout.dump(spec)}---\n"


def _meta(source: SourceFile) -> Mapping[str, Any]:
    return source.frontmatter.data if source.frontmatter else {}


def _read_opencode(root: Path, reader: _Reader) -> None:
    for ident, source in _markdown(root, ("agents", "agent"), reader):
        for key in ("name", "prompt"):
            if key in _meta(source):
                reader.at_key(
                    source,
                    key,
                    f"`{key}` is not written by the opencode target; the body and file name decide",
                )
        reader.agent(ident, source, frontmatter_text(source))
    for ident, source in _markdown(root, ("commands", "command"), reader):
        meta = _meta(source)
        for key in meta:
            if key not in MODE_KEYS:
                reader.at_key(source, key, f"`{key}` is no key of a promptc mode; not carried over")
        reader.mode(ident, source, _front({key: meta[key] for key in MODE_KEYS if key in meta}))
    _read_opencode_json(root.parent / "opencode.json", reader)


def _json_file(path: Path, reader: _Reader) -> tuple[str, dict[str, Any]] | None:
    """The text and object of a JSON file, or None (noted) when it has none."""
    if not path.is_file():
        return None
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        where = (getattr(exc, "lineno", 1), getattr(exc, "colno", 1))
        reader.note(path, f"cannot read: {exc}; not imported", where, True)
        return None
    if not isinstance(data, dict):
        reader.note(path, "not a JSON object; not imported", error=True)
        return None
    return text, data


def _read_opencode_json(path: Path, reader: _Reader) -> None:
    found = _json_file(path, reader)
    if found is None:
        return
    text, data = found
    for key, value in data.items():
        if key in ("default_agent", "permission"):
            reader.settings[key] = value
        elif key != "$schema":
            kept = " (MCP servers: keep them in the project's own opencode.json)"
            reader.note(
                path,
                f"`{key}`: promptc writes only default_agent and permission to "
                f"opencode.json; not carried over{kept if key == 'mcp' else ''}",
                _json_position(text, key),
            )


def _read_claude(root: Path, reader: _Reader) -> None:
    session, main_at = _read_claude_settings(root, reader)
    permission = session.permission()
    if permission:
        reader.settings["permission"] = permission
    for ident, source in _markdown(root, ("agents",), reader):
        spec, notes = import_claude.agent_spec(ident, _meta(source), session)
        _notes(reader, source, notes)
        reader.agent(ident, source, _front(spec))
        if spec["mode"] == "primary":
            reader.settings["default_agent"] = ident
    if main_at is not None and "default_agent" not in reader.settings:
        path, at = main_at
        reader.note(path, f"`agent`: no agent here is named `{session.main}`; not carried over", at)
    for ident, source in _markdown(root, ("commands",), reader):
        spec, notes = import_claude.command_spec(_meta(source), source.body)
        _notes(reader, source, notes)
        reader.mode(ident, source, _front(spec))
    if (root.parent / import_claude.MCP_FILE).is_file():
        reader.note(root.parent / import_claude.MCP_FILE, import_claude.MCP_NOTE)
    for name in ("skills", "hooks", "output-styles"):
        if (root / name).is_dir():
            reader.note(root / name, f"{name}/ has no promptc equivalent; not carried over")


def _read_codex(root: Path, reader: _Reader) -> None:
    project = import_codex.Project()
    config = root / "config.toml"
    data = _toml_file(config, reader) if config.is_file() else None
    if data is not None:
        project, notes = import_codex.project_settings(data)
        text = config.read_text(encoding="utf-8")
        for key, message in notes:
            reader.note(config, message, (_toml_line(text, key), 1))
    models: dict[str, str] = {}
    specs: list[dict[str, Any]] = []
    folder = root / "agents"
    for path in sorted(folder.rglob("*.toml")) if folder.is_dir() else ():
        ident = path.relative_to(folder).with_suffix("").as_posix()
        role = _toml_file(path, reader)
        if role is None:
            continue
        text = path.read_text(encoding="utf-8")
        body = role.get("developer_instructions")
        escaped = escape(body) if isinstance(body, str) and body.strip() else None
        if escaped is None or not isinstance(body, str):
            message = "no developer_instructions promptc can keep; not imported"
            reader.note(path, message, (_toml_line(text, "developer_instructions"), 1), True)
            continue
        spec, notes = import_codex.role_spec(ident, role, project)
        for key, message in notes:
            reader.note(path, message, (_toml_line(text, key), 1))
        if "model" in spec:
            models[spec["model"]] = role["model"]
        specs.append(spec)
        reader.keep(ident, path, _front(spec), escaped, body)
    target: dict[str, Any] = {"models": models} if models else {}
    if accepted := import_codex.accepted_wider(specs):
        target["accept_wider"] = accepted
    if target:
        reader.settings["targets"] = {"codex": target}
    found: dict[str, list[str]] = {}
    for path in sorted((root / "rules").glob("*.rules")):
        rules, skipped = import_codex.prefix_rules(path.read_text(encoding="utf-8"))
        for action, patterns in rules.items():
            found.setdefault(action, []).extend(patterns)
        for line, message in skipped:
            reader.note(path, message, (line, 1))
    reader.settings["permission"] = import_codex.session_permission(found, project)


def _read_lists(kind: str, root: Path, reader: _Reader) -> None:
    runtime = COPILOT if kind == "copilot" else GEMINI
    for name in import_lists.UNREAD[kind]:
        if (root / name).is_dir():
            reader.note(root / name, f"{runtime.label} reads no {name}/; not imported")
    found = []
    for ident, source in _markdown(root, ("agents",), reader):
        skipped = import_lists.not_an_agent(runtime, _meta(source))
        if skipped is not None:
            reader.note(source.path, skipped)
        else:
            found.append((ident.removesuffix(".agent") if kind == "copilot" else ident, source))
    # Whom Copilot's `task` may start: not an `infer: false` agent, a primary
    # OpenCode's task tool never starts.
    idents = [ident for ident, source in found if _meta(source).get("infer") is not False]
    for ident, source in found:
        spec, notes = import_lists.agent_spec(runtime, ident, _meta(source), idents)
        _notes(reader, source, notes)
        if spec is not None:
            reader.agent(ident, source, _front(spec))
    folder = root / "commands"
    for path in sorted(folder.rglob("*.toml")) if kind == "gemini" else ():
        data = _toml_file(path, reader)
        if data is None:
            continue
        spec, text, notes = import_lists.command_spec(data)
        for note in notes:
            reader.note(path, f"`{note.key}`: {note.message}", error=text is None)
        body = escape(text) if text is not None else None
        if text is not None and body is None:
            reader.note(path, "prompt cannot be kept byte for byte; not imported", error=True)
        if body is not None:
            ident = path.relative_to(folder).with_suffix("").as_posix()
            reader.modes[ident] = (_front(spec), body)


_READERS = {"opencode": _read_opencode, "claude": _read_claude, "codex": _read_codex}


def _toml_file(path: Path, reader: _Reader) -> dict[str, Any] | None:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        where = re.search(r"line (\d+), column (\d+)", str(exc))
        at = (int(where[1]), int(where[2])) if where else (1, 1)
        reader.note(path, f"cannot read: {exc}; not imported", at, True)
        return None


def _toml_line(text: str, key: str) -> int:
    """The line a top-level key or table is written on (1 when it is not found)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if re.match(rf"\s*(\[\s*)?{re.escape(key)}\s*[=\]]", line):
            return number
    return 1


def _notes(reader: _Reader, source: SourceFile, notes: list[import_claude.Note]) -> None:
    for note in notes:
        reader.at_key(source, note.key, note.message)


def _read_claude_settings(
    root: Path, reader: _Reader
) -> tuple[import_claude.Session, tuple[Path, tuple[int, int]] | None]:
    """settings.json and settings.local.json, merged as Claude Code merges them
    (the rules of both; the local file's `defaultMode` and `agent` win), and
    where the `agent` that counts is written."""
    found: list[import_claude.Setting] = []
    mode = "default"
    main: str | None = None
    main_at: tuple[Path, tuple[int, int]] | None = None
    for name in ("settings.json", "settings.local.json"):
        path = root / name
        read = _json_file(path, reader)
        if read is None:
            continue
        text, data = read
        settings, notes = import_claude.read_settings(data)
        found += settings.settings
        mode = settings.mode or mode
        if settings.main is not None:
            main, main_at = settings.main, (path, _json_position(text, "agent"))
        for note in notes:
            reader.note(path, note.message, _json_position(text, note.key))
    return import_claude.Session(tuple(found), mode, main), main_at


def _json_position(text: str, key: str) -> tuple[int, int]:
    """Line and column of the JSON string `key` in `text` (1:1 when not found)."""
    at = text.find(json.dumps(key, ensure_ascii=False))
    if at < 0:
        return 1, 1
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def _snippet_proposal(shared: list[Shared], agents: list[str]) -> dict[str, Any] | None:
    """required-snippet settings for the block that opens most bodies, if one does."""
    top = [item for item in shared if len(item.at_top) * 2 > len(agents)]
    if not top:
        return None
    best = max(top, key=lambda item: len(item.at_top))
    exempt = sorted(set(agents) - set(best.at_top))
    proposal: dict[str, Any] = {"fragment": best.name, "applies_to": "all"}
    if exempt:
        proposal["exempt"] = exempt
    proposal["expected_count"] = len(best.at_top)
    return proposal


def verify(plan: Plan, originals: Mapping[str, str], config: Config) -> list[str]:
    """Ids whose composed body differs from the original: each must compose back exactly."""
    specs = _relative(config, config.specs)
    fragments = _relative(config, config.fragments)

    def load(prefix: str) -> dict[str, SourceFile]:
        return {
            rel[len(prefix) :].removesuffix(".md"): load_bytes(config.root / rel, text.encode())
            for rel, text in plan.files.items()
            if rel.startswith(prefix)
        }

    bundle = Bundle(load(f"{specs}/agents/"), {}, load(f"{fragments}/"))
    composed = compose_bundle(bundle, "opencode").agents
    return sorted(i for i, body in originals.items() if composed.get(i) != body)


def conflicts(plan: Plan, root: Path) -> list[str]:
    return sorted(rel for rel in plan.files if (root / rel).exists())


def write(plan: Plan, root: Path) -> None:
    """Write every planned file (each through a temporary file, so none is left half written)."""
    for rel in plan.folders:
        (root / rel).mkdir(parents=True, exist_ok=True)
    for rel, text in sorted(plan.files.items()):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        replace_file(root / rel, text.encode("utf-8"))


def config_toml(settings: Mapping[str, Any]) -> str:
    """The proposed settings as TOML for promptc.toml (order kept: it is meaning)."""
    lines: list[str] = []
    if "default_agent" in settings:
        lines.append(f"default_agent = {_toml(settings['default_agent'])}")
    permission = settings.get("permission")
    if isinstance(permission, Mapping):
        lines += ["", "[permission]"]
        lines += [f"{_toml_key(k)} = {_toml(v)}" for k, v in permission.items()]
    elif permission is not None:
        lines.append(f"permission = {_toml(permission)}")
    for table in ("targets", "rules"):
        for name, options in settings.get(table, {}).items():
            lines += ["", f"[{table}.{name}]"]
            lines += [f"{_toml_key(k)} = {_toml(v)}" for k, v in options.items()]
    return "\n".join(lines).lstrip("\n") + "\n" if lines else ""


def _toml_key(key: str) -> str:
    return (
        key
        if key.replace("_", "").replace("-", "").isalnum() and key.isascii()
        else json.dumps(key)
    )


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)
