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
from hypothesis import strategies as st

from compiler import rules
from compiler.api import Result
from compiler.config import Config, load_config

EXAMPLES: collections.Counter[str] = collections.Counter()

# Scratch bundles live in memory where the machine offers it: the writer
# fsyncs every file, which on a disk would make fuzzing crawl.
SCRATCH = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def tick(name: str) -> None:
    """Count one generated example (a fuzz test calls this first thing)."""
    EXAMPLES[name] += 1


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
    '<% if target == "claude" %>',
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
        assert d.message and d.line >= 1 and d.column >= 1, d
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


# --- permission maps ---------------------------------------------------------

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
PERMISSION_PATTERNS = ["*", "git *", "git status*", "rm *", "*.env", "src/*", "scout", "sm*", "ls"]
ACTIONS = ["allow", "ask", "deny"]

_action = st.sampled_from(ACTIONS)
_rules = st.dictionaries(st.sampled_from(PERMISSION_PATTERNS), _action, min_size=1, max_size=4)
_SCALAR = {"todowrite", "question", "webfetch", "websearch", "doom_loop"}  # no pattern maps
permission_maps = st.lists(st.sampled_from(PERMISSION_KEYS), max_size=7, unique=True).flatmap(
    lambda keys: st.fixed_dictionaries(
        {key: _action if key in _SCALAR else _action | _rules for key in keys}
    )
)
"""An OpenCode `permission` map: each key a scalar action or an ordered pattern map."""


@st.composite
def permission_bundles(draw: st.DrawFn) -> dict[str, bytes]:
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
    """The few TOML shapes permission_bundles writes: strings, lists, nested tables."""
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
