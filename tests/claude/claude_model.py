"""Claude Code 2.1.332's rule syntax, written apart from promptc_compiler.runtimes.claude.decide.

tests/test_skills.py reads the `allowed-tools` a skill keeps through it, so
that a rule the translation writes is checked by a second reading of Claude
Code's documented matching, not by the code that wrote it:

- `Bash(spec)`: `*` is any text, a run of blanks is one space, a trailing
  ` *` (or `:*`) is optional when it is the only `*`, everything else literal;
- `Read(spec)` / `Edit(spec)` (Edit rules cover Write and NotebookEdit):
  gitignore patterns relative to the project root: `*` and `?` stay within
  a folder, `**` crosses folders, a pattern without `/` matches a name at
  any depth, a matched folder covers all inside it; `~/`, `//` and `/`
  patterns never match a path inside the project.
- `Agent(name)`: that subagent.
"""

from __future__ import annotations

import re
from functools import lru_cache

EDITING = {"Edit", "Write", "NotebookEdit"}
_RULE = re.compile(r"([A-Za-z]+)(?:\((.*)\))?", re.DOTALL)


def parse_rule(text: str) -> tuple[str, str | None]:
    match = _RULE.fullmatch(text)
    assert match, f"not a Claude Code permission rule: {text!r}"
    return match[1], match[2]


def _matches(rule: tuple[str, str | None], tool: str, value: str) -> bool:
    name, spec = rule
    if spec is None:
        return name == tool
    if name == "Bash":
        return tool == "Bash" and bash_match(spec, value)
    if name == "Edit":
        return tool in EDITING and path_match(spec, value)
    if name == "Read":
        return tool == "Read" and path_match(spec, value)
    if name == "Agent":
        return tool == "Agent" and spec == value
    raise AssertionError(f"promptc wrote a rule this model does not know: {name}({spec})")


@lru_cache(maxsize=4096)
def _bash_regex(spec: str) -> re.Pattern[str]:
    if spec.endswith(":*"):
        spec = spec[:-2] + " *"
    spec = " ".join(spec.split())
    optional = spec.endswith(" *") and spec.count("*") == 1
    body = spec[:-2] if optional else spec
    text = "".join(".*" if c == "*" else re.escape(c) for c in body)
    return re.compile(text + ("(?: .*)?" if optional else ""), re.DOTALL)


def bash_match(spec: str, command: str) -> bool:
    return _bash_regex(spec).fullmatch(" ".join(command.split())) is not None


@lru_cache(maxsize=4096)
def _path_regex(spec: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(spec):
        if spec.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif spec.startswith("/**", i) and i + 3 == len(spec):
            out, i = out + "/.*", i + 3
        elif spec.startswith("**", i):
            out, i = out + ".*", i + 2
        elif spec[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif spec[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(spec[i]), i + 1
    return re.compile(out, re.DOTALL)


def path_match(spec: str, path: str) -> bool:
    if spec.startswith(("//", "~/", "/")):
        return False
    spec = spec.removeprefix("./")
    anchored = "/" in spec.rstrip("/")
    regex = _path_regex(spec.rstrip("/"))
    parts = path.split("/")
    for end in range(1, len(parts) + 1):  # the path and every folder holding it
        candidate = "/".join(parts[:end]) if anchored else parts[end - 1]
        if regex.fullmatch(candidate):
            return True
    return False
