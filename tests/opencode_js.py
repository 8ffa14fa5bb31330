"""OpenCode's own permission code, taken out of the installed binary and run as the oracle.

The opencode-ai package ships a Bun single-file executable: its JavaScript
modules sit in the ELF section `.bun`, followed by a table of (name, contents)
string pointers. This module reads that table, finds the Permission namespace
(the module whose namespace exports `evaluate` and `fromConfig`), takes the
text of its `evaluate` function, follows its `X.match(` call through the
module's imports to the Wildcard namespace and the text of `match`, and runs
both, byte for byte as shipped, under the binary's own JavaScript engine
(`BUN_BE_BUN=1` turns the executable into the `bun` it was built with). One
process answers a whole batch of (rules, permission, input) queries.

Nothing here re-implements the matcher: if the bundle's layout changes, the
extraction fails loudly instead of silently testing something else.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

TRAILER = b"\n---- Bun! ----\n"
RECORD = struct.Struct("<12I4B")  # name, contents, sourcemap, bytecode, ... pointers + flags


class ExtractionError(Exception):
    pass


def _section(binary: Path, name: bytes) -> bytes:
    data = binary.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ExtractionError(f"{binary} is not a 64-bit ELF executable")
    (shoff,) = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx]
    for header in headers:
        start = names[4] + header[0]
        if data[start : data.index(b"\0", start)] == name:
            return data[header[4] : header[4] + header[5]]
    raise ExtractionError(f"{binary} has no {name.decode()} section")


@lru_cache(maxsize=2)
def modules(binary: Path) -> dict[str, str]:
    """Every embedded module: {"/$bunfs/root/chunk-xyz.js": source text}."""
    section = _section(binary, b".bun")
    if not section.endswith(TRAILER):
        raise ExtractionError("the .bun section does not end with Bun's trailer")
    # Offsets trailer: byte_count u64, modules {offset u32, length u32}, entry u32, ...
    _, table, size = struct.unpack_from("<QII", section, len(section) - 48)
    base = 8  # the section starts with its own u64 length
    found: dict[str, str] = {}
    for index in range(size // RECORD.size):
        fields = RECORD.unpack_from(section, base + table + index * RECORD.size)
        name = section[base + fields[0] : base + fields[0] + fields[1]].decode()
        if name.endswith(".js"):
            found[name] = section[base + fields[2] : base + fields[2] + fields[3]].decode()
    if not found:
        raise ExtractionError("no JavaScript modules found in the .bun section")
    return found


@dataclass(frozen=True)
class Extracted:
    permission_module: str
    evaluate_name: str
    wildcard_module: str
    match_name: str
    namespace_alias: str


def _one(pattern: str, text: str, what: str) -> re.Match[str]:
    found = list(re.finditer(pattern, text))
    if len(found) != 1:
        raise ExtractionError(f"expected exactly one {what}, found {len(found)}")
    return found[0]


@lru_cache(maxsize=2)
def locate(binary: Path) -> Extracted:
    mods = modules(binary)
    perm = [
        n for n, t in mods.items() if re.search(r"fromConfig:\(\)=>\w+", t) and "evaluate:()=>" in t
    ]
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
    wild = mods[path]
    local = exported
    for part in _one(r"export\{([^}]*)\}", wild, "export list").group(1).split(","):
        name, _, outer = part.partition(" as ")
        if (outer or name).strip() == exported:
            local = name.strip()
    match = _one(
        rf"\b{re.escape(local)},\{{match:\(\)=>([\w$]+),Wildcard:\(\)=>", wild, "Wildcard namespace"
    ).group(1)
    _function_head(wild, match)
    return Extracted(perm[0], evaluate, path, match, alias)


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
const out = { match: matchText, evaluate: evaluateText, results: [], matches: [] };
for (const batch of job.batches) {
  const rules = batch.rules;
  out.results.push(batch.queries.map(([permission, input]) => {
    const rule = evaluate(permission, input, rules);
    return [rule.action, rules.indexOf(rule)];
  }));
}
out.matches = job.pairs.map(([text, pattern]) => match(text, pattern));
process.stdout.write(JSON.stringify(out));
"""


@dataclass(frozen=True)
class Answers:
    match_source: str
    evaluate_source: str
    decisions: list[list[tuple[str, int]]]  # per batch: (action, index of the deciding rule or -1)
    matches: list[bool]


def run(
    binary: Path,
    env: dict[str, str],
    batches: list[tuple[list[dict[str, str]], list[tuple[str, str]]]],
    pairs: list[tuple[str, str]] = (),  # type: ignore[assignment]
) -> Answers:
    """Evaluate every (permission, input) query of each batch against its rule list,
    and Wildcard.match on every (text, pattern) pair, in one process."""
    found = locate(binary)
    mods = modules(binary)
    job: dict[str, Any] = {
        "permission_module": mods[found.permission_module],
        "evaluate_name": found.evaluate_name,
        "alias": found.namespace_alias,
        "wildcard_module": mods[found.wildcard_module],
        "match_name": found.match_name,
        "batches": [{"rules": rules, "queries": queries} for rules, queries in batches],
        "pairs": list(pairs),
    }
    with tempfile.TemporaryDirectory(prefix="oc-js-") as tmp:
        script = Path(tmp) / "driver.cjs"
        script.write_text(DRIVER, encoding="utf-8")
        data = Path(tmp) / "job.json"
        data.write_text(json.dumps(job), encoding="utf-8")
        done = subprocess.run(
            [str(binary), str(script), str(data)],
            env={**env, "BUN_BE_BUN": "1"},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    if done.returncode != 0:
        raise ExtractionError(f"the extracted code failed: {done.stderr.strip()[-2000:]}")
    out = json.loads(done.stdout)
    return Answers(
        out["match"],
        out["evaluate"],
        [[(a, i) for a, i in batch] for batch in out["results"]],
        out["matches"],
    )
