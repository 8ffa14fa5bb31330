"""`promptc import opencode`: a project's `.opencode/` and `opencode.json` as specs.

An agent keeps its frontmatter as written (`name` and `prompt` are noted: the
opencode target writes neither, the file name and the body decide); a command
keeps the keys a promptc mode has; `opencode.json` gives the config its
`default_agent` and `permission`, and every other key is noted as left to the
project's own file (MCP servers among them).
"""

from __future__ import annotations

from pathlib import Path

from promptc_compiler.core.project import frontmatter_text
from promptc_compiler.runtimes.reading import Reader, front, json_position, meta

MODE_KEYS = ("description", "agent", "model", "variant", "subtask")


def read_folder(root: Path, reader: Reader) -> None:
    for ident, source in reader.markdown(root, ("agents", "agent")):
        for key in ("name", "prompt"):
            if key in meta(source):
                reader.at_key(
                    source,
                    key,
                    f"`{key}` is not written by the opencode target; the body and file name decide",
                )
        reader.agent(ident, source, frontmatter_text(source))
    for ident, source in reader.markdown(root, ("commands", "command")):
        data = meta(source)
        for key in data:
            if key not in MODE_KEYS:
                reader.at_key(source, key, f"`{key}` is no key of a promptc mode; not carried over")
        reader.mode(ident, source, front({key: data[key] for key in MODE_KEYS if key in data}))
    _read_config(root.parent / "opencode.json", reader)


def _read_config(path: Path, reader: Reader) -> None:
    found = reader.json_file(path)
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
                json_position(text, key),
            )
