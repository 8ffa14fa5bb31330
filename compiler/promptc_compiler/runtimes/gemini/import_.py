"""`promptc import gemini`: a Gemini CLI extension's or project's subagents and commands as specs.

A subagent of `agents/` (Gemini CLI's schema needs a `description` that is not
blank; a `kind` other than `local` runs elsewhere and is not imported) is a
subagent spec, whose rules decide each call as Gemini does by default
(promptc_compiler.runtimes.import_lists): every tool but read_file,
list_directory, glob, grep_search and google_web_search asks (`_RUNS`); its
file tools refuse files outside the project (`external_directory` stays
denied, which also stops its shell there: OpenCode decides outside folders for
all of an agent's tools at once), and a path through `.env`, `.git` or
`node_modules` in any case (`_BLOCKED`). It also takes its legacy
`search_file_content`. `display_name`, `temperature`, `timeout_mins` and a
`max_turns` that is no step count are carried under `targets.gemini`, as
written. A command of `commands/` becomes a mode: its `{{args}}` becomes
`$ARGUMENTS`, its `!{cmd}` becomes `` !`cmd` `` and its `@{path}` becomes
`@path`; a command that says `$ARGUMENTS` as text (Gemini fills only
`{{args}}`) keeps both as written, with `targets.gemini.literal_arguments` so
that a build for Gemini writes `$ARGUMENTS` back as text. Its description is
carried whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from promptc_compiler.base.body_syntax import ARGUMENTS, FILE
from promptc_compiler.runtimes import import_lists
from promptc_compiler.runtimes.gemini.tools import GEMINI, NAME
from promptc_compiler.runtimes.reading import Note, Reader, escape, front

# Gemini's legacy name for `grep_search`, beside its table's.
OWN_NAMES: Mapping[str, tuple[str, ...]] = {"search_file_content": ("grep",)}
# The tools whose calls Gemini's own policies run unasked (its read-only.toml);
# it asks before a call of any other tool. A permission is decided by the first
# tool of the agent's that makes its calls, in the order of GEMINI.tools
# (`read_file` before `read_many_files`, which asks).
_RUNS = frozenset(
    {"read_file", "list_directory", "glob", "grep_search", "search_file_content"}
    | {"google_web_search"}
)
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
_SHELL = re.compile(r"!\{([^{}`\n]+)\}")
_FILE = re.compile(r"@\{([^{}\s]+)\}")


def _unasked(key: str, tool: str) -> Any:
    action = "allow" if tool in _RUNS else "ask"
    if key not in _PATH_TOOLS:
        return action
    return {"*": action, **dict.fromkeys(_BLOCKED, "deny")}


def _elsewhere(meta: Mapping[str, Any]) -> Note | None:
    if meta.get("kind", "local") != "local":
        return Note("kind", f"a `{meta['kind']}` agent runs elsewhere; not imported")
    return None


def _extra(meta: Mapping[str, Any]) -> dict[str, Any]:
    # A `max_turns` that is no step count keeps its place, where the lint says why.
    if "max_turns" in meta and not import_lists.step_count(meta["max_turns"]):
        return {"max_turns": meta["max_turns"]}
    return {}


READING = import_lists.Reading(
    GEMINI,
    OWN_NAMES,
    _unasked,
    outside=None,
    mode=lambda _meta: "subagent",
    reads=("kind", "name", "tools"),
    blank_description=False,
    elsewhere=_elsewhere,
    extra=_extra,
)


def read_folder(root: Path, reader: Reader) -> None:
    """The subagents of `agents/`, then the commands of `commands/`."""
    import_lists.read(root, reader, READING)
    folder = root / "commands"
    for path in sorted(folder.rglob("*.toml")):
        data = reader.toml_file(path)
        if data is None:
            continue
        spec, text, notes = command_spec(data)
        for note in notes:
            reader.note(path, f"`{note.key}`: {note.message}", error=text is None)
        body = escape(text) if text is not None else None
        if text is not None and body is None:
            reader.note(path, "prompt cannot be kept byte for byte; not imported", error=True)
        if body is not None:
            ident = path.relative_to(folder).with_suffix("").as_posix()
            reader.modes[ident] = (front(spec), body)


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
        spec["targets"] = {NAME: {"literal_arguments": True}}
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
