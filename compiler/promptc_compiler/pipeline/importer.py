"""Import: turn a hand-written runtime folder (a project's `.opencode/`, ...) into specs.

What each layout carries over: docs/import.md, and the Import section of each
runtime's page under docs/targets/. `plan_import` has the runtime's package
read its folder (its `import_from`, promptc_compiler.runtimes.adapter) and
returns every file it would write, the config it proposes and what it could
not carry over; nothing is written until the plan is checked: each body must
compose back to its original bytes (verified with the composition engine
itself) and no existing spec or fragment is replaced without `force`. A key
with an OpenCode meaning becomes that key, and a key only the runtime reads
goes to the spec's `targets.<runtime>` override, as written, so that a build
for the same runtime writes it back. What an agent may do is decided as the
runtime decided it, never more permissively: its defaults (what it asks about,
the tools an agent without a list has) become the OpenCode rules that decide
the same (tests/test_import_never_widens.py holds every import to the
runtime's decision model on the original folder).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from promptc_compiler.base.diagnostics import Diagnostic
from promptc_compiler.base.errors import UsageError
from promptc_compiler.base.files import replace_file
from promptc_compiler.base.source import SOURCE
from promptc_compiler.core.bundle import Bundle
from promptc_compiler.core.compose import compose_bundle
from promptc_compiler.core.config import Config, thaw
from promptc_compiler.core.loader import SourceFile, load_bytes
from promptc_compiler.pipeline.import_text import Shared, find_shared, replace_shared
from promptc_compiler.rules import agent_id
from promptc_compiler.runtimes import IMPORT_FOLDERS, RUNTIMES, TARGET_NAMES
from promptc_compiler.runtimes.reading import Reader

# The folder each runtime reads in a project (the registry's IMPORT_FOLDER):
# one import command each.
LAYOUTS = IMPORT_FOLDERS


class Plan(NamedTuple):
    files: Mapping[str, str]  # path relative to the bundle root -> text
    config: Mapping[str, Any]  # proposed [tool.promptc] settings
    notes: tuple[Diagnostic, ...]
    shared: tuple[Shared, ...] = ()
    # Folders (relative to the bundle root) written even when empty: a folder
    # with no agents still gets the specs folder every later command reads.
    folders: tuple[str, ...] = ()


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


def plan_import(kind: str, folder: Path, config: Config) -> Plan:
    root = source_root(kind, folder)
    reader = Reader(config)
    RUNTIMES[kind].import_from(root, reader)
    agents = reader.agents
    specs = _relative(config, config.specs)
    if not agents:
        _note_no_agents(root, reader)
    files = {
        f"{specs}/{folder_name}/{ident}.md": front + body
        for folder_name, items in (("agents", agents), ("modes", reader.modes))
        for ident, (front, body) in items.items()
    }
    shared = _with_shared(config, files, agents, reader)
    proposal = dict(reader.settings)
    if kind != SOURCE:  # OpenCode's target is on when no `[targets]` is written
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


def _note_no_agents(root: Path, reader: Reader) -> None:
    """A folder without agents (only rules, settings or commands) is imported for
    what it has, and says so: it is no error, and no agent was skipped."""
    where = reader.agent_files
    has = f"{len(reader.modes)} command(s) and the settings" if reader.modes else "its settings"
    reader.note(root, f"no agent here ({where}): imported {has} only")


def _with_shared(
    config: Config, files: dict[str, str], agents: Mapping[str, tuple[str, str]], reader: Reader
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


def _check_permission_kept(config: Config, proposal: Mapping[str, Any], reader: Reader) -> None:
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
    targets: dict[str, Any] = {SOURCE: dict(options.get(SOURCE, {}))}
    targets[kind] = dict(options.get(kind, {}))
    return targets


def _check_target_on(config: Config, kind: str, reader: Reader) -> None:
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
    composed = compose_bundle(bundle, SOURCE, TARGET_NAMES).agents
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
