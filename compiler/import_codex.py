"""Import, Codex side: a `.codex/agents/*.toml` role as a promptc spec, `.codex/rules` as rules.

A role keeps what the codex target writes back: `developer_instructions` is the
body; `model` becomes the OpenCode model `openai/<model>` with the codex
target's `models` option mapping it back; `model_reasoning_effort` becomes
`options.reasoningEffort` (which OpenCode passes to the provider);
`[features] shell_tool = false` gives `bash: deny` and `sandbox_mode =
"read-only"` gives `edit: deny`, so the spec never grants more than the role
meant. `nickname_candidates`, which OpenCode has no key for, goes to the spec's
`targets.codex` as written, as do a `model` or `model_reasoning_effort` that is
not a string (the lint of the imported bundle says why). Command rules
(`prefix_rule`) become the config's `permission.bash`: `"*": ask` first
(Codex runs a command no rule names in its sandbox, which OpenCode has not
got), then the allows, asks and denies as `words *` patterns, in that order,
so that OpenCode's last matching rule is Codex's strictest one.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator, Mapping
from typing import Any

ROLE_KEYS = ("name", "description", "developer_instructions", "model", "model_reasoning_effort")
# Role keys that only the spec's `targets.codex` can say (schemas/agent.schema.json).
OVERRIDES = ("nickname_candidates",)
ACTIONS = {"allow": "allow", "prompt": "ask", "forbidden": "deny"}


def role_spec(ident: str, data: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A promptc agent frontmatter for a Codex role file, and (key, message) for
    what did not carry over."""
    notes: list[tuple[str, str]] = []
    name = data.get("name")
    if isinstance(name, str) and name != ident:
        notes.append(("name", f"name `{name}` differs from the file's path: the id is `{ident}`"))
    spec: dict[str, Any] = {"description": str(data.get("description", "")), "mode": "subagent"}
    override = {key: data[key] for key in OVERRIDES if key in data}
    if isinstance(data.get("model"), str):
        spec["model"] = f"openai/{data['model']}"
    elif "model" in data:
        override["model"] = data["model"]
    if isinstance(data.get("model_reasoning_effort"), str):
        spec["options"] = {"reasoningEffort": data["model_reasoning_effort"]}
    elif "model_reasoning_effort" in data:
        override["model_reasoning_effort"] = data["model_reasoning_effort"]
    permission: dict[str, str] = {}
    if data.get("sandbox_mode") == "read-only":
        permission["edit"] = "deny"
    features = data.get("features")
    if isinstance(features, Mapping) and features.get("shell_tool") is False:
        permission["bash"] = "deny"
    if permission:
        spec["permission"] = permission
    if override:
        spec["targets"] = {"codex": override}
    for key in data:
        if key in (*ROLE_KEYS, *OVERRIDES, "sandbox_mode") or (
            key == "features" and permission.get("bash")
        ):
            continue
        notes.append((key, f"`{key}` has no promptc spec key; not carried over"))
    return spec, notes


def rules_permission(text: str) -> tuple[dict[str, str], list[tuple[int, str]]]:
    """The bash permission map for a `.rules` file, and (line, message) for what is left out."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return {}, [(exc.lineno or 1, f"not a rules file promptc can read: {exc.msg}")]
    found: dict[str, list[str]] = {action: [] for action in ACTIONS.values()}
    skipped: list[tuple[int, str]] = []
    for node in tree.body:
        call = node.value if isinstance(node, ast.Expr) else None
        if not isinstance(call, ast.Call) or getattr(call.func, "id", None) != "prefix_rule":
            skipped.append((node.lineno, "only prefix_rule(...) is carried over"))
            continue
        try:
            args = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
        except ValueError:
            skipped.append((node.lineno, "a prefix_rule with computed values; not carried over"))
            continue
        action = ACTIONS.get(args.get("decision", "allow"))
        patterns = list(_patterns(args.get("pattern")))
        if action is None or not patterns:
            skipped.append((node.lineno, "a prefix_rule promptc cannot read; not carried over"))
            continue
        found[action] += patterns
    permission = {"*": "ask"}
    for action in ("allow", "ask", "deny"):
        permission.update(dict.fromkeys(found[action], action))
    return permission, skipped


def _patterns(pattern: Any) -> Iterator[str]:
    """`words *` for each choice of the alternatives (none when a word is a wildcard)."""
    if not isinstance(pattern, list) or not pattern:
        return
    choices = [item if isinstance(item, list) else [item] for item in pattern]
    words = [w for choice in choices for w in choice]
    if not all(isinstance(w, str) and w and not set(w) & set("*? ") for w in words):
        return
    for chosen in itertools.islice(itertools.product(*choices), 256):
        yield " ".join(chosen) + " *"
