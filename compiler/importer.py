"""Import: turn a hand-written OpenCode or Claude Code folder into promptc specs.

`plan_import` reads the folder and returns every file it would write, the
config it proposes and what it could not carry over; nothing is written until
the plan is checked: each body must compose back to its original bytes
(verified with the composition engine itself) and no existing spec or
fragment is replaced without `force`. README.md, "Adopting an existing
bundle", says what each layout becomes; the Claude Code side is
compiler/import_claude.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler import import_claude, yamlout
from compiler.bundle import Bundle
from compiler.compose import compose_bundle
from compiler.config import Config
from compiler.diagnostics import Diagnostic, Severity
from compiler.errors import UsageError
from compiler.files import replace_file
from compiler.import_text import Shared, escape, find_shared, replace_shared
from compiler.loader import SourceFile, load_bytes, load_file
from compiler.project import frontmatter_text

LAYOUTS = {"opencode": ".opencode", "claude": ".claude"}
RULE = "import"
MODE_KEYS = ("description", "agent", "model", "variant", "subtask")


@dataclass(frozen=True)
class Plan:
    files: Mapping[str, str]  # path relative to the bundle root -> text
    config: Mapping[str, Any]  # proposed [tool.promptc] settings
    notes: tuple[Diagnostic, ...]
    shared: tuple[Shared, ...] = ()


@dataclass
class _Reader:
    config: Config
    notes: list[Diagnostic] = field(default_factory=list)
    originals: dict[str, str] = field(default_factory=dict)  # agent id -> body as read

    def note(self, path: Path, line: int, column: int, message: str, error: bool = False) -> None:
        severity = Severity.ERROR if error else Severity.WARNING
        self.notes.append(
            Diagnostic(self.config.display(path), line, column, RULE, severity, message)
        )

    def at_key(self, source: SourceFile, key: str, message: str) -> None:
        pos = source.frontmatter.where((key,), key=True) if source.frontmatter else None
        self.note(source.path, pos.line if pos else 1, pos.column if pos else 1, message)

    def load(self, path: Path) -> SourceFile | None:
        """The file, or None (with its errors noted) when it cannot be carried over."""
        source = load_file(path)
        errors = [p for rule, p in source.findings if rule == "syntax"]
        for problem in errors:
            self.note(path, problem.line, problem.column, f"{problem.message}; not imported", True)
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


def _markdown(root: Path, names: tuple[str, ...], reader: _Reader) -> Iterator[tuple[str, Path]]:
    seen: dict[str, Path] = {}
    for name in names:
        folder = root / name
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_dir():
                continue
            if path.suffix != ".md":
                reader.note(path, 1, 1, "not a .md file; not imported")
                continue
            ident = path.relative_to(folder).with_suffix("").as_posix()
            if ident in seen:
                reader.note(
                    path, 1, 1, f"`{ident}` is also defined by {seen[ident]}; not imported", True
                )
                continue
            seen[ident] = path
            yield ident, path


def plan_import(kind: str, folder: Path, config: Config) -> Plan:
    root = source_root(kind, folder)
    reader = _Reader(config)
    settings: dict[str, Any] = {}
    if kind == "opencode":
        agents = _read(root, ("agents", "agent"), reader, _opencode_agent, reader.originals)
        modes = _read(root, ("commands", "command"), reader, _opencode_command)
        _read_opencode_json(root.parent / "opencode.json", reader, settings)
    else:
        agents = _read(root, ("agents",), reader, _claude_agent, reader.originals)
        modes = _read(root, ("commands",), reader, _claude_command)
        for name in ("settings.json", "settings.local.json"):
            _read_claude_settings(root / name, reader)
        for name in ("skills", "hooks", "output-styles"):
            if (root / name).is_dir():
                message = f"{name}/ has no promptc equivalent; not carried over"
                reader.note(root / name, 1, 1, message)
    bodies = {ident: body for ident, (_, body) in agents.items()}
    shared = find_shared(bodies)
    files: dict[str, str] = {}
    specs = _relative(config, config.specs)
    fragments = _relative(config, config.fragments)
    for folder_name, items in (("agents", agents), ("modes", modes)):
        for ident, (front, body) in items.items():
            text = body if folder_name == "modes" else replace_shared(body, shared)
            files[f"{specs}/{folder_name}/{ident}.md"] = front + text
    for item in shared:
        files[f"{fragments}/{item.name}.md"] = item.text
    proposal = dict(settings)
    snippet = _snippet_proposal(shared, list(agents))
    if snippet:
        proposal["rules"] = {"required-snippet": snippet}
    plan = Plan(files, proposal, (), tuple(shared))
    for ident in verify(plan, reader.originals, config):
        message = f"agent `{ident}` would not compose back to its text; please report this"
        reader.note(root, 1, 1, message, True)
    return Plan(files, proposal, tuple(reader.notes), tuple(shared))


def _relative(config: Config, path: Path) -> str:
    return path.relative_to(config.root).as_posix()


def _body(reader: _Reader, source: SourceFile) -> str | None:
    escaped = escape(source.body)
    if escaped is None:
        reader.note(
            source.path,
            source.body_line,
            1,
            "body cannot be kept byte for byte; not imported",
            True,
        )
    return escaped


Front = Callable[[str, SourceFile, _Reader], str]


def _read(
    root: Path,
    folders: tuple[str, ...],
    reader: _Reader,
    front: Front,
    originals: dict[str, str] | None = None,
) -> dict[str, tuple[str, str]]:
    """Id -> (frontmatter text, escaped body) of the markdown files in `folders`,
    each frontmatter written by `front`; `originals` gets each body as read."""
    found: dict[str, tuple[str, str]] = {}
    for ident, path in _markdown(root, folders, reader):
        source = reader.load(path)
        if source is None:
            continue
        head = front(ident, source, reader)
        body = _body(reader, source)
        if body is not None:
            found[ident] = (head, body)
            if originals is not None:
                originals[ident] = source.body
    return found


def _opencode_agent(ident: str, source: SourceFile, reader: _Reader) -> str:
    for key in ("name", "prompt"):
        if source.frontmatter and key in source.frontmatter.data:
            message = (
                f"`{key}` is not written by the opencode target; the body and file name decide"
            )
            reader.at_key(source, key, message)
    return frontmatter_text(source)


def _opencode_command(ident: str, source: SourceFile, reader: _Reader) -> str:
    meta = source.frontmatter.data if source.frontmatter else {}
    for key in meta:
        if key not in MODE_KEYS:
            reader.at_key(source, key, f"`{key}` is no key of a promptc mode; not carried over")
    return f"---\n{yamlout.dump({key: meta[key] for key in MODE_KEYS if key in meta})}---\n"


def _read_json(path: Path, reader: _Reader) -> Any:
    """The JSON document at `path`; None when there is none or it cannot be read (noted)."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        line, column = getattr(exc, "lineno", 1), getattr(exc, "colno", 1)
        reader.note(path, line, column, f"cannot read: {exc}; not imported", True)
        return None


def _read_opencode_json(path: Path, reader: _Reader, settings: dict[str, Any]) -> None:
    data = _read_json(path, reader)
    if data is None:
        return
    if not isinstance(data, dict):
        reader.note(path, 1, 1, "not a JSON object; not imported", True)
        return
    for key, value in data.items():
        if key in ("default_agent", "permission"):
            settings[key] = value
        elif key != "$schema":
            written = "promptc writes only default_agent and permission to opencode.json"
            reader.note(path, 1, 1, f"`{key}`: {written}; not carried over")


def _claude_agent(ident: str, source: SourceFile, reader: _Reader) -> str:
    meta = source.frontmatter.data if source.frontmatter else {}
    spec, notes = import_claude.agent_spec(ident, meta)
    _notes(reader, source, notes)
    return f"---\n{yamlout.dump(spec)}---\n"


def _claude_command(ident: str, source: SourceFile, reader: _Reader) -> str:
    meta = source.frontmatter.data if source.frontmatter else {}
    spec, notes = import_claude.command_spec(meta, source.body)
    _notes(reader, source, notes)
    return f"---\n{yamlout.dump(spec)}---\n"


def _notes(reader: _Reader, source: SourceFile, notes: list[import_claude.Note]) -> None:
    for note in notes:
        reader.at_key(source, note.key, note.message)


def _read_claude_settings(path: Path, reader: _Reader) -> None:
    data = _read_json(path, reader)
    if isinstance(data, dict):
        for note in import_claude.settings_notes(data):
            reader.note(path, 1, 1, f"`{note.key}`: {note.message}")


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
    for rule, options in settings.get("rules", {}).items():
        lines += ["", f"[rules.{rule}]"]
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
