"""Hypothesis strategies for hostile input, the invariants every run must keep,
and the counter behind `make fuzz`'s "N generated examples" line.

The strategies favour the pieces that break parsers (fences, YAML indicators,
anchors and aliases, tabs, odd line breaks, placeholder look-alikes) mixed
with arbitrary text, so that most examples get past the first check and reach
the later stages.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from hypothesis import settings
from hypothesis import strategies as st

from promptc_compiler import rules
from promptc_compiler.api import Result
from promptc_compiler.core.config import Config, load_config

EXAMPLES: collections.Counter[str] = collections.Counter()

# Scratch bundles live in memory where the machine offers it: the writer
# fsyncs every file, which on a disk would make fuzzing crawl.
SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def tick(name: str) -> None:
    """Count one generated example (a fuzz test calls this first thing)."""
    EXAMPLES[name] += 1


def ci_examples(count: int) -> int:
    """A costly fuzz test's examples under the "ci" profile (`make test`), fewer
    than the profile's own; under any other profile (`make fuzz`) the profile's."""
    if settings.get_current_profile_name() == "ci":
        return count
    return settings().max_examples  # a fresh settings object is the profile's


# --- text ------------------------------------------------------------------

_ODD = "\t\r\x00\x0b\x0c\x1b\x7f\x85\xa0\u2028\u2029\ufeff\ud7ff\ue000\U0001f600é"

some_text = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from(_ODD), max_size=12)

YAML_PIECES = [
    "description: ",
    "mode: ",
    "permission:",
    "  ",
    "    ",
    "\t",
    "- ",
    ": ",
    ":",
    "? ",
    "&a ",
    "*a",
    "&b [*a, *a, *a]",
    "<<: *a",
    "!!python/object:os.system ",
    "!!binary ",
    "!custom ",
    "|",
    ">-",
    "[",
    "]",
    "{",
    "}",
    ",",
    "#",
    "'",
    '"',
    '"\\e[2J"',
    "\\",
    "%YAML 1.1",
    "---",
    "...",
    "yes",
    "no",
    "on",
    "~",
    "null",
    "0x1F",
    "0o17",
    "1e3",
    ".nan",
    "-.inf",
    "2026-01-13",
    "2026-02-30",
    "9" * 40,
    "0x" + "f" * 5000,  # past a double and Python's decimal digits: Infinity
    "9" * 5000,
    "subagent",
    "primary",
    '"*": allow',
    "*: allow",
    "edit: deny",
    "bash:",
    "targets:",
    "claude:",
    "opencode:",
    "tools: Read, Grep",
    "\n",
]

yaml_line = st.lists(st.sampled_from(YAML_PIECES) | some_text, max_size=8).map("".join)
yaml_text = st.lists(yaml_line, max_size=12).map("\n".join)

_key = st.sampled_from(["description", "mode", "permission", "targets", "edit", "bash", "*"])
_scalar = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=30)
    | st.sampled_from(["yes", "no", "allow", "deny", "ask", "subagent", "2026-01-13", "1e3"])
)
yaml_values = st.recursive(
    _scalar,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(_key | st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=25,
)
yaml_documents = st.builds(
    lambda data, flow, width: yaml.safe_dump(
        data, default_flow_style=flow, allow_unicode=True, width=width, sort_keys=False
    ),
    st.dictionaries(_key | st.text(max_size=10), yaml_values, max_size=6),
    st.sampled_from([False, True, None]),
    st.sampled_from([20, 80, 1000]),
)

MARKDOWN_PIECES = [
    "<<tone>>",
    "<<caveman>>",
    "<<flow_build_plan>>",
    "<<missing>>",
    "<< tone >>",
    "<<",
    ">>",
    "<<tone",
    '<<caveman(level="ultra")>>',
    "<<caveman(level=level)>>",
    "<<tone()>>",
    "<<../../etc/passwd>>",
    "<</etc/passwd>>",
    "<<''.__class__>>",
    "<<lipsum>>",
    "<<range(10)>>",
    "<<caveman(level=" + "9" * 5000 + ")>>",  # past Python's decimal digits
    '<% if target == "claude" %>',
    "<% if target == 0x" + "f" * 5000 + " %>",  # past 64 bits, and any digit limit
    "<% else %>",
    "<% endif %>",
    "<% for x in y %>",
    "<%",
    "%>",
    "<#",
    "#>",
    "{{injected_rules}}",
    "${{ runner.os }}",
    "{% include 'x' %}",
    "{# note #}",
    "$ARGUMENTS",
    "${WORKSPACE}",
    "!`git status`",
    "@scout",
    "cat <<EOF",
    "cout << x",
    "```",
    "```python",
    "~~~",
    "    ",
    "`",
    "``",
    "# Heading",
    "---",
    "\n",
    "\n\n",
]

markdown = st.lists(st.sampled_from(MARKDOWN_PIECES) | some_text, max_size=30).map("".join)


@st.composite
def spec_bytes(draw: st.DrawFn, frontmatter: st.SearchStrategy[str] | None = None) -> bytes:
    """A spec or fragment file: arbitrary bytes, or fences around YAML and markdown."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=600))
    head = draw(frontmatter or st.one_of(yaml_text, yaml_documents, st.just("description: d")))
    opening = draw(st.sampled_from(["---\n", "---\n", "--- \n", "  ---\n", "\n---\n", ""]))
    closing = draw(st.sampled_from(["\n---\n", "\n---\n", "\n...\n", "\n", ""]))
    text = opening + head + closing + draw(markdown)
    if draw(st.booleans()):
        text = text.replace("\n", draw(st.sampled_from(["\r\n", "\r", "\n"])))
    raw = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        raw = b"\xef\xbb\xbf" + raw
    if draw(st.integers(0, 9)) == 0:
        cut = draw(st.integers(0, len(raw)))
        raw = (
            raw[:cut]
            + draw(st.sampled_from([b"\xff", b"\x00", b"\xc3", b"\xed\xa0\x80"]))
            + raw[cut:]
        )
    return raw


AGENT_IDS = ["scout", "smith", "team/reviewer", "Code Reviewer", "a", "-x", "sage:2", "ünï"]
MODE_IDS = ["build", "hack", "review", "x y"]
FRAGMENT_PATHS = ["tone", "caveman", "flow/build/plan", "a-b", "1bad", "tone_x", "flow_build/plan"]

CONFIGS = [
    "",
    "",
    "",
    "[rules.description-length]\nmin = 0\n",
    '[rules.empty-body]\nlevel = "off"\n',
    '[rules.unused-fragment]\nignore = ["tone"]\n',
    'default_agent = "scout"\n',
]


@st.composite
def bundles(draw: st.DrawFn) -> dict[str, bytes]:
    """{relative path: bytes} of a whole bundle: config, agents, modes, fragments."""
    files: dict[str, bytes] = {"promptc.toml": draw(st.sampled_from(CONFIGS)).encode()}
    for folder, names in (
        ("specs/agents", AGENT_IDS),
        ("specs/modes", MODE_IDS),
        ("fragments", FRAGMENT_PATHS),
    ):
        for name in draw(st.lists(st.sampled_from(names), max_size=3, unique=True)):
            files[f"{folder}/{name}.md"] = draw(spec_bytes())
    return files


# --- running ---------------------------------------------------------------


@contextlib.contextmanager
def bundle_on_disk(files: Mapping[str, bytes]) -> Iterator[tuple[Path, Config]]:
    """Write the bundle to a fresh folder and load its config there."""
    with tempfile.TemporaryDirectory(prefix="promptc-fuzz-", dir=SCRATCH) as scratch:
        root = Path(scratch)
        (root / "specs").mkdir()
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        yield root, load_config(cwd=root)


def line_count(raw: bytes) -> int:
    """Lines as an editor counts them, whatever the line endings."""
    return raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1


def check_result(result: Result, sources: Mapping[str, bytes] | None = None) -> None:
    """Every diagnostic is well formed and points inside the file it names."""
    for d in result.diagnostics:
        assert d.rule in rules.RULES, d
        assert d.message, d
        assert d.line >= 1, d
        assert d.column >= 1, d
        d.path.encode("utf-8")  # printable and JSON-safe
        if sources is not None:
            for rel, raw in sources.items():
                if d.path.endswith("/" + rel):
                    assert d.line <= line_count(raw), (d, rel)


def shape(value: Any) -> Any:
    """The structure of parsed YAML with the scalars blanked out."""
    if isinstance(value, Mapping):
        return {str(k): shape(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [shape(v) for v in value]
    return None


# --- permission maps and commands --------------------------------------------

# Words of shell commands, some of which extend others (`push`, `pushx`): a
# pattern that ends inside a word matches commands whose word is longer.
COMMAND_WORDS = ["git", "push", "pushx", "status", "--force", "-f", "rm", "-rf", "npm", "x", "a.b"]
_ACTIONS = st.sampled_from(["allow", "ask", "deny"])
bash_patterns = st.builds(
    lambda head, words, tail: head + " ".join(words) + tail,
    st.sampled_from(["", "", "", "*"]),
    st.lists(st.sampled_from(COMMAND_WORDS), max_size=3),
    st.sampled_from(["", "*", "*", " *", " *", "?"]),
).filter(bool)
# An agent's `bash`: one action, or a map of pattern -> action (order is meaning).
bash_maps = _ACTIONS | st.dictionaries(bash_patterns, _ACTIONS, min_size=1, max_size=6)
commands = st.lists(st.sampled_from(COMMAND_WORDS), min_size=1, max_size=4)

# Lints about the maps themselves: a generated map may well be one they report.
_QUIET_LINTS = "".join(
    f'[rules.{rule}]\nlevel = "off"\n\n'
    for rule in ("missing-catch-all", "shadowed-rule", "dangerous-allow", "unreachable-subagent")
)


@st.composite
def permission_bundles(draw: st.DrawFn, target: str) -> dict[str, bytes]:
    """A bundle of one to four agents with generated bash maps, for one target;
    sometimes a config-level bash map too."""
    config = f"[targets.{target}]\n\n{_QUIET_LINTS}"
    if draw(st.booleans()):
        shared = draw(st.dictionaries(bash_patterns, _ACTIONS, min_size=1, max_size=2))
        inline = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in shared.items())
        config += f"[permission]\nbash = {{ {inline} }}\n"
    files = {"promptc.toml": config.encode()}
    for index in range(draw(st.integers(1, 4))):
        front = {
            "description": f"Generated agent number {index} with its own bash rules.",
            "mode": draw(st.sampled_from(["subagent", "subagent", "primary", "all"])),
            "permission": {"bash": draw(bash_maps)},
        }
        text = f"---\n{yaml.safe_dump(front, sort_keys=False)}---\nTrabaja.\n"
        files[f"specs/agents/a{index}.md"] = text.encode()
    return files


# --- Claude Code folders (the source of `promptc import claude`) ------------

CLAUDE_TOOLS = [
    "Read",
    "Edit",
    "Write",
    "NotebookEdit",
    "Glob",
    "Grep",
    "Bash",
    "WebFetch",
    "WebSearch",
    "Agent",
    "TodoWrite",
    "Skill",
    "LSP",
]
CLAUDE_AGENTS = ["scout", "smith", "lead"]
CLAUDE_MODES = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", "auto"]
BASH_SPECS = [
    "git diff:*",
    "git *",
    "git push *",
    "npm test:*",
    "ls*",
    "ls *",
    "rm -rf *",
    "*",
    "a?b",
]
PATH_SPECS = [
    "src/**",
    "./src/a.py",
    "*.md",
    "README.md",
    "docs/",
    "/src/**",
    "//etc/**",
    "~/.ssh/**",
    "./.env",
    "**/secret*",
    "src/*.py",
]


@st.composite
def claude_rule(draw: st.DrawFn) -> str:
    """One Claude Code permission rule: `Tool` or `Tool(specifier)`."""
    tool = draw(st.sampled_from([*CLAUDE_TOOLS, "Bash", "Bash", "Edit", "Read", "Task"]))
    if tool == "Bash" and draw(st.booleans()):
        return f"Bash({draw(st.sampled_from(BASH_SPECS))})"
    if tool in ("Edit", "Read", "Write") and draw(st.booleans()):
        return f"{tool}({draw(st.sampled_from(PATH_SPECS))})"
    if tool in ("Agent", "Task") and draw(st.booleans()):
        return f"{tool}({draw(st.sampled_from(CLAUDE_AGENTS))})"
    if tool == "WebFetch" and draw(st.booleans()):
        return f"WebFetch(domain:{draw(st.sampled_from(['example.com', 'docs.python.org']))})"
    return tool


@st.composite
def claude_agent_meta(draw: st.DrawFn) -> dict[str, Any]:
    """The frontmatter of a `.claude/agents/*.md` file: tools, disallowedTools, permissionMode."""
    meta: dict[str, Any] = {"description": "A generated Claude Code agent for the test."}
    if draw(st.integers(0, 3)):
        chosen: list[str] = []
        for tool in draw(st.lists(st.sampled_from(CLAUDE_TOOLS), unique=True, max_size=10)):
            if tool == "Bash" and draw(st.booleans()):
                specs = draw(st.lists(st.sampled_from(BASH_SPECS), min_size=1, max_size=3))
                chosen += [f"Bash({spec})" for spec in specs]
            elif tool == "Agent" and draw(st.booleans()):
                names = draw(st.lists(st.sampled_from(CLAUDE_AGENTS), min_size=1, unique=True))
                chosen.append(f"Agent({', '.join(names)})")
            else:
                chosen.append(tool)
        meta["tools"] = ", ".join(chosen) if draw(st.booleans()) else chosen
    if draw(st.integers(0, 2)) == 0:
        meta["disallowedTools"] = ", ".join(draw(st.lists(claude_rule(), max_size=3)))
    if draw(st.integers(0, 2)) == 0:
        meta["permissionMode"] = draw(st.sampled_from(CLAUDE_MODES))
    return meta


@st.composite
def claude_settings(draw: st.DrawFn) -> dict[str, Any]:
    """A `.claude/settings.json` document: allow, ask and deny rules, maybe a defaultMode."""
    permissions: dict[str, Any] = {}
    for action in ("allow", "ask", "deny"):
        rules = draw(st.lists(claude_rule(), max_size=4))
        if rules:
            permissions[action] = rules
    if draw(st.integers(0, 3)) == 0:
        permissions["defaultMode"] = draw(st.sampled_from(CLAUDE_MODES))
    return {"permissions": permissions} if permissions else {}


# --- whole permission maps (the copilot and gemini tool lists) ---------------

PERMISSION_KEYS = [
    "*",
    "read",
    "edit",
    "glob",
    "grep",
    "list",
    "bash",
    "task",
    "webfetch",
    "websearch",
    "skill",
    "todowrite",
    "question",
    "lsp",
    "external_directory",
    "doom_loop",
    "plan_db",
]
# Overlapping wildcards, `?`, a trailing space, another case, the home folder.
PERMISSION_PATTERNS = ["*", "git *", "git status*", "rm *", "*.env", "src/*", "scout", "sm*", "ls"]
PERMISSION_PATTERNS += ["git st?tus *", "Git *", "ls ", "~/notas/*", "*.en?", "team-*"]
_rules = st.dictionaries(st.sampled_from(PERMISSION_PATTERNS), _ACTIONS, min_size=1, max_size=4)
_SCALAR = {"todowrite", "question", "webfetch", "websearch", "doom_loop"}  # no pattern maps
permission_maps = st.lists(st.sampled_from(PERMISSION_KEYS), max_size=7, unique=True).flatmap(
    lambda keys: st.fixed_dictionaries(
        {key: _ACTIONS if key in _SCALAR else _ACTIONS | _rules for key in keys}
    )
)
"""An OpenCode `permission` map: each key a scalar action or an ordered pattern map."""


@st.composite
def tool_list_bundles(draw: st.DrawFn) -> dict[str, bytes]:
    """A bundle of agents with generated modes and permission maps, and perhaps a
    config-level map: {relative path: bytes}, ready for bundle_on_disk."""
    shared = draw(st.none() | permission_maps)
    config: dict[str, Any] = {"custom_tools": ["plan_db"]}
    if shared:
        config["permission"] = shared
    files = {"promptc.toml": _toml(config).encode()}
    names = draw(
        st.lists(
            st.sampled_from(["scout", "smith", "lead", "sage"]), min_size=1, max_size=3, unique=True
        )
    )
    for name in names:
        meta = {
            "description": f"Agente {name} con permisos generados.",
            "mode": draw(st.sampled_from(["subagent", "subagent", "primary", "all"])),
            "steps": draw(st.integers(1, 50)),
            "permission": draw(permission_maps),
        }
        text = "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\nCuerpo.\n"
        files[f"specs/agents/{name}.md"] = text.encode()
    return files


def _toml(data: Mapping[str, Any]) -> str:
    """The few TOML shapes tool_list_bundles writes: strings, lists, nested tables."""
    lines, tables = [], []
    for key, value in data.items():
        if isinstance(value, Mapping):
            tables.append((key, value))
        else:
            lines.append(f"{json.dumps(key)} = {json.dumps(value)}")
    text = "\n".join(lines) + "\n"
    for key, value in tables:
        text += f"\n[{key}]\n"
        for inner, item in value.items():
            shown = (
                "{ "
                + ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in item.items())
                + " }"
                if isinstance(item, Mapping)
                else json.dumps(item)
            )
            text += f"{json.dumps(inner)} = {shown}\n"
    return text
