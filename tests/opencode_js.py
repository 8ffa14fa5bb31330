"""OpenCode's own permission code, taken out of the installed binary and run as the oracle.

The opencode-ai package ships a Bun single-file executable: its JavaScript
modules sit in the ELF section `.bun`, followed by a table of (name, contents)
string pointers. This module reads that table, finds the Permission namespace
(the module whose namespace exports `evaluate` and `fromConfig`), takes the
text of its `evaluate` and `disabled` functions (the second decides which
tools an agent's model never sees), follows their `X.match(` calls through the
module's imports to the Wildcard namespace and the text of `match`, takes the
task tool's function that builds a subagent session's rules, and runs them,
byte for byte as shipped, under the binary's own JavaScript engine
(`BUN_BE_BUN=1` turns the executable into the `bun` it was built with). One
process answers a whole batch of (rules, permission, input) queries and
(rules, tool ids) questions.

Nothing here re-implements the matcher: if the bundle's layout changes, the
extraction fails loudly instead of silently testing something else.
"""

from __future__ import annotations

import json
import mmap
import re
import struct
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from tests import oracle

TRAILER = b"\n---- Bun! ----\n"
RECORD = struct.Struct("<12I4B")  # name, contents, sourcemap, bytecode, ... pointers + flags


class ExtractionError(Exception):
    pass


def _section(data: mmap.mmap, name: bytes) -> tuple[int, int]:
    """(offset, size) of an ELF64 section."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ExtractionError("the opencode binary is not a 64-bit ELF executable")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx]
    for header in headers:
        start = names[4] + header[0]
        if data[start : data.find(b"\0", start)] == name:
            return header[4], header[5]
    raise ExtractionError(f"the opencode binary has no {name.decode()} section")


@lru_cache(maxsize=2)
def _table(binary: Path) -> tuple[mmap.mmap, dict[str, tuple[int, int]]]:
    """The mapped binary and where each embedded JavaScript module's source lies in it."""
    with binary.open("rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    offset, size = _section(data, b".bun")
    end = offset + size
    if data[end - len(TRAILER) : end] != TRAILER:
        raise ExtractionError("the .bun section does not end with Bun's trailer")
    # Offsets trailer: byte_count u64, modules {offset u32, length u32}, entry u32, ...
    _, table, count = struct.unpack_from("<QII", data, end - 48)
    base = offset + 8  # the section starts with its own u64 length
    found: dict[str, tuple[int, int]] = {}
    for index in range(count // RECORD.size):
        fields = RECORD.unpack_from(data, base + table + index * RECORD.size)
        name = data[base + fields[0] : base + fields[0] + fields[1]].decode()
        if name.endswith(".js"):
            found[name] = (base + fields[2], base + fields[2] + fields[3])
    if not found:
        raise ExtractionError("no JavaScript modules found in the .bun section")
    return data, found


def modules(binary: Path, containing: bytes = b"") -> dict[str, str]:
    """Embedded modules ({"/$bunfs/root/chunk-xyz.js": source}) whose source holds `containing`."""
    section, table = _table(binary)
    return {
        name: section[start:end].decode()
        for name, (start, end) in table.items()
        if section.find(containing, start, end) != -1
    }


def module(binary: Path, name: str) -> str:
    section, table = _table(binary)
    start, end = table[name]
    return section[start:end].decode()


@dataclass(frozen=True)
class Extracted:
    permission_module: str
    evaluate_name: str
    disabled_name: str  # Permission.disabled: the tools `opencode debug agent` shows as off
    wildcard_module: str
    match_name: str
    namespace_alias: str
    task_module: str  # the task tool, whose function builds a subagent session's rules
    session_name: str


def _one(pattern: str, text: str, what: str) -> re.Match[str]:
    found = list(re.finditer(pattern, text))
    if len(found) != 1:
        raise ExtractionError(f"expected exactly one {what}, found {len(found)}")
    return found[0]


@lru_cache(maxsize=2)
def locate(binary: Path) -> Extracted:
    mods = modules(binary, b"fromConfig:()=>")
    perm = [n for n, t in mods.items() if "evaluate:()=>" in t]
    if len(perm) != 1:
        raise ExtractionError(f"expected one Permission module, found {perm}")
    text = mods[perm[0]]
    evaluate = _one(r"evaluate:\(\)=>([\w$]+)", text, "Permission.evaluate export").group(1)
    source = _function_head(text, evaluate)
    body = source[: source.index("}", source.index("findLast")) + 1]
    aliases = set(re.findall(r"([\w$]+)\.match\(", body))
    if len(aliases) != 1:
        raise ExtractionError(f"expected one Wildcard namespace in evaluate, found {aliases}")
    alias = aliases.pop()
    disabled = _one(r"disabled:\(\)=>([\w$]+)", text, "Permission.disabled export").group(1)
    if f"{alias}.match(" not in _function_head(text, disabled):
        raise ExtractionError(f"Permission.disabled does not match through `{alias}`")
    # import{..., Sz as g, ...}from"/$bunfs/root/chunk-....js"
    imported = None
    for names, path in re.findall(r'import\{([^}]*)\}from"([^"]+)"', text):
        for part in names.split(","):
            exported, _, local = part.partition(" as ")
            if (local or exported).strip() == alias:
                imported = (exported.strip(), path)
    if imported is None:
        raise ExtractionError(f"cannot find where `{alias}` is imported from")
    exported, path = imported
    wild = module(binary, path)
    local = exported
    for part in _one(r"export\{([^}]*)\}", wild, "export list").group(1).split(","):
        name, _, outer = part.partition(" as ")
        if (outer or name).strip() == exported:
            local = name.strip()
    match = _one(
        rf"\b{re.escape(local)},\{{match:\(\)=>([\w$]+),Wildcard:\(\)=>", wild, "Wildcard namespace"
    ).group(1)
    _function_head(wild, match)
    tasks = modules(binary, b"parentSessionPermission")
    if len(tasks) != 1:
        raise ExtractionError(f"expected one task tool module, found {sorted(tasks)}")
    [(task_path, task_text)] = tasks.items()
    session = _one(
        r"function ([\w$]+)\(([\w$]+)\)\{let [\w$]+=\2\.subagent\.permission\.some\(",
        task_text,
        "subagent session function",
    ).group(1)
    return Extracted(perm[0], evaluate, disabled, path, match, alias, task_path, session)


def _function_head(text: str, name: str) -> str:
    start = _one(rf"function {re.escape(name)}\(", text, f"function {name}").start()
    return text[start : start + 2000]


DRIVER = r"""
const fs = require("fs");
const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
// The first `}` at which the text parses as a whole function is its end:
// any earlier one leaves a string, a regex or a block open.
function extract(src, name, free) {
  const start = src.indexOf(`function ${name}(`);
  for (let i = src.indexOf("{", start); i < src.length; i++) {
    if (src[i] !== "}") continue;
    const text = src.slice(start, i + 1);
    try { return [text, new Function(...free, `return (${text});`)]; } catch (e) {}
  }
  throw new Error(`cannot extract function ${name}`);
}
const [matchText, makeMatch] = extract(job.wildcard_module, job.match_name, []);
const match = makeMatch();
const [evaluateText, makeEvaluate] = extract(job.permission_module, job.evaluate_name, [job.alias]);
const evaluate = makeEvaluate({ match });
const [disabledText, makeDisabled] = extract(job.permission_module, job.disabled_name, [job.alias]);
const disabled = makeDisabled({ match });
const [sessionText, makeSession] = extract(job.task_module, job.session_name, []);
const session = makeSession();
const out = { match: matchText, evaluate: evaluateText, disabled: disabledText, session: sessionText, results: [], matches: [], sessions: [], hidden: [] };
for (const batch of job.batches) {
  const rules = batch.rules;
  out.results.push(batch.queries.map(([permission, input]) => {
    const rule = evaluate(permission, input, rules);
    return [rule.action, rules.indexOf(rule)];
  }));
}
out.matches = job.pairs.map(([text, pattern]) => match(text, pattern));
// A subagent started from a primary's top-level session (which has no rules of its own).
out.sessions = job.batches.map((b) => session({ parentSessionPermission: [], subagent: { permission: b.rules } }));
out.hidden = job.batches.map((b) => [...disabled(b.tools, b.rules)]);
process.stdout.write(JSON.stringify(out));
"""


@dataclass(frozen=True)
class Answers:
    match_source: str
    evaluate_source: str
    disabled_source: str
    session_source: str
    decisions: list[list[tuple[str, int]]]  # per batch: (action, index of the deciding rule or -1)
    matches: list[bool]
    sessions: list[list[dict[str, str]]]  # per batch: rules a subagent session adds
    hidden: list[set[str]]  # per batch: the tool ids Permission.disabled turns off


@dataclass(frozen=True)
class Batch:
    """One agent's questions: its rule list, (permission, input) queries, tool ids."""

    rules: list[dict[str, str]]
    queries: list[tuple[str, str]]
    tools: list[str]


def run(
    binary: Path,
    env: dict[str, str],
    batches: Sequence[Batch],
    pairs: Sequence[tuple[str, str]] = (),
) -> Answers:
    """Evaluate every (permission, input) query of each batch against its rule list,
    ask which of its tool ids that list turns off, and Wildcard.match every
    (text, pattern) pair, in one process."""
    found = locate(binary)
    job: dict[str, Any] = {
        "permission_module": module(binary, found.permission_module),
        "evaluate_name": found.evaluate_name,
        "disabled_name": found.disabled_name,
        "alias": found.namespace_alias,
        "wildcard_module": module(binary, found.wildcard_module),
        "match_name": found.match_name,
        "task_module": module(binary, found.task_module),
        "session_name": found.session_name,
        "batches": [{"rules": b.rules, "queries": b.queries, "tools": b.tools} for b in batches],
        "pairs": list(pairs),
    }
    with tempfile.TemporaryDirectory(prefix="oc-js-") as tmp:
        script = Path(tmp) / "driver.cjs"
        script.write_text(DRIVER, encoding="utf-8")
        data = Path(tmp) / "job.json"
        data.write_text(json.dumps(job), encoding="utf-8")
        done = oracle.capture(
            [str(binary), str(script), str(data)], None, {**env, "BUN_BE_BUN": "1"}, 300
        )
    if done.returncode != 0:
        raise ExtractionError(f"the extracted code failed: {done.stderr.strip()[-2000:]}")
    out = json.loads(done.stdout)
    return Answers(
        out["match"],
        out["evaluate"],
        out["disabled"],
        out["session"],
        [[(a, i) for a, i in batch] for batch in out["results"]],
        out["matches"],
        out["sessions"],
        [set(tools) for tools in out["hidden"]],
    )
