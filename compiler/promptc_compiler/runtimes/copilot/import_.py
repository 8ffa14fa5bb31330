"""`promptc import copilot`: a project's `.github/agents/` as specs.

Copilot CLI 1.0.102 loads a `.md` file of `.github/agents/` as a custom agent
when its frontmatter has a `description` string (`<name>.agent.md` names the
agent `<name>`); VS Code's `chatmodes/` beside it is not read. What an agent
may do becomes the OpenCode rules that decide each call as Copilot does by
default (promptc_compiler.runtimes.import_lists): reading and searching run;
the shell, edits and the web ask (`_ASKS`); a file outside the project asks
(`external_directory: ask`). Copilot gives its main agent `skill` and its todo
list (`sql`) whatever `tools` says, but a subagent its `task` starts gets
exactly its list (tests/oracles/FACTS.md): they are allowed only when listed.
It also takes its tools' own names (`view`, `bash`, `create`, ...). An agent
is `mode: all` (the user picks it and Copilot's `task` starts it), or
`primary` with `infer: false`; an explicit `infer: true` (or a value Copilot
refuses) is carried under `targets.copilot`, as written.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from promptc_compiler.runtimes import import_lists
from promptc_compiler.runtimes.copilot.tools import COPILOT
from promptc_compiler.runtimes.reading import Reader

# Copilot's own tool names beside its aliases (as promptc_compiler.runtimes.copilot.decide
# resolves them).
OWN_NAMES: Mapping[str, tuple[str, ...]] = {
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
}
# The OpenCode permissions whose calls Copilot asks about by default (the
# others its tools make run unasked).
_ASKS = frozenset({"edit", "bash", "webfetch", "websearch"})


def _unasked(key: str, _tool: str) -> str:
    return "ask" if key in _ASKS else "allow"


def _mode(meta: Mapping[str, Any]) -> str:
    return "primary" if meta.get("infer") is False else "all"


def _extra(meta: Mapping[str, Any]) -> dict[str, Any]:
    # `infer: false` is said by `mode: primary`, and no `infer` is Copilot's `true`:
    # an explicit `true` (or a value Copilot refuses) is written back only from here.
    return {"infer": meta["infer"]} if "infer" in meta and meta["infer"] is not False else {}


READING = import_lists.Reading(
    COPILOT,
    OWN_NAMES,
    _unasked,
    outside="ask",
    mode=_mode,
    reads=("name", "tools", "infer"),
    unread=("chatmodes",),
    suffix=".agent",
    extra=_extra,
)


def read_folder(root: Path, reader: Reader) -> None:
    import_lists.read(root, reader, READING)
