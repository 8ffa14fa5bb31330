"""Import, Codex side: a `.codex/agents/*.toml` role as a promptc spec, `.codex/rules` as rules.

A role keeps what the codex target writes back: `developer_instructions` is the
body; `model` becomes the OpenCode model `openai/<model>` with the codex
target's `models` option mapping it back; `model_reasoning_effort` becomes
`options.reasoningEffort` (which OpenCode passes to the provider).
`nickname_candidates`, which OpenCode has no key for, goes to the spec's
`targets.codex` as written, as do a `model` or `model_reasoning_effort` that is
not a string (the lint of the imported bundle says why).

What a role may do is decided as Codex decides it, never more permissively
(tests/test_import_never_widens.py holds it to promptc_compiler.runtimes.codex.decide on the
original folder). Codex has a shell, `apply_patch`, `spawn_agent`, a plan and
a question to the user, and no tool of its own for searching or listing
files, fetching a URL, a skill or a language server: a role gets those
permissions denied (`NO_TOOL`), and searches through its shell as in Codex.
What the session gives every role whatever its file says is each role's:
`view_image` (on unless `[features] view_image = false`) reads any file, as
`read: allow`; `web_search` (unless "disabled") as `websearch: allow`;
`[tools.update_plan]` as `todowrite`. `[features]`, the role's over the
project's `config.toml`, take tools away: `shell_tool = false` gives `bash:
deny`, `multi_agent = false` `task: deny`; `apply_patch_freeform = false`
gives `edit: deny` and so does a `read-only` sandbox (the role's or the
project's), as the role meant, although Codex 0.171 keeps apply_patch for the
first and runs a role in its parent's sandbox (tests/oracles/FACTS.md):
narrower, never wider. The role still edits in Codex, so the proposed config
accepts that for the codex target (`accept_wider = ["edit"]`,
`accepted_wider`): built back, the role is what it was, where the target
would otherwise refuse it. A role's description (and nicknames) missing from
its file comes from its `[agents.<name>]` entry in config.toml, as Codex
takes it.

The config-level permission is the session's, every role's
(`session_permission`). Command rules (`prefix_rule`) become its `bash`:
`"*": allow` first (Codex runs a command no rule names, in its sandbox),
asks for a forced `rm` (Codex's own check, `FORCED_RM`), then the allows,
asks and denies as `words *` patterns, in that order, so that OpenCode's
last matching rule is Codex's strictest one; each ask and deny also by path
(`*/curl *`), as Codex matches the basename of a first word given as a path.
A command naming a folder outside the project runs in the sandbox too
(`external_directory: allow`); apply_patch asks outside the project and in
the folders the sandbox keeps read-only (`SANDBOXED` edit asks). With the
project's `approval_policy = "never"` Codex asks nobody: a `prompt` rule, a
forced `rm` and those edits refuse, so they become denies. Built back for
Codex, every role keeps its shell (`accepted_wider`) and the rules come back
as prefix rules (tests/test_import_round_trip_decisions.py).
"""

from __future__ import annotations

import ast
import itertools
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptc_compiler.runtimes.codex.translate import NAME
from promptc_compiler.runtimes.reading import Reader, escape, front, toml_line, without_covered

ROLE_KEYS = ("name", "description", "developer_instructions", "model", "model_reasoning_effort")
# Role keys that only the spec's `targets.codex` can say (schemas/agent.schema.json).
OVERRIDES = ("nickname_candidates",)
ACTIONS = {"allow": "allow", "prompt": "ask", "forbidden": "deny"}
# OpenCode permissions Codex has no tool for (promptc_compiler.runtimes.codex.decide).
NO_TOOL = ("read", "glob", "grep", "list", "lsp", "skill", "webfetch", "websearch")
# `[features]` that take a tool away when false, and the permission it acts under.
FEATURES = {"shell_tool": "bash", "apply_patch_freeform": "edit", "multi_agent": "task"}
LIMIT = 256  # patterns one prefix_rule may become
# A forced `rm` as OpenCode patterns (wider than Codex's check: any `rm` with a
# `-` before an `f`): a command no rule names runs unasked in Codex, but this one.
FORCED_RM = ("rm *-*f*", "sudo rm *-*f*")
# Where apply_patch asks (OpenCode's edit paths, relative to the project): outside
# it, and in the folders the workspace-write sandbox keeps read-only.
SANDBOXED = (
    "..",
    "../*",
    *(f"{name}{rest}" for name in (".git", ".codex", ".agents") for rest in ("", "/*")),
)


@dataclass(frozen=True)
class Project:
    """What the project's `.codex/config.toml` says about every role."""

    features: Mapping[str, Any] = field(default_factory=dict)
    sandbox: Any = None
    never_asks: bool = False  # approval_policy = "never"
    # The tools every role has or has not, whatever its file says
    # (promptc_compiler.runtimes.codex.decide).
    web_search: bool = True  # web_search other than "disabled"
    update_plan: bool = False  # [tools.update_plan] enabled = true
    roles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # [agents.<name>]


def project_settings(data: Mapping[str, Any]) -> tuple[Project, list[tuple[str, str]]]:
    """The project settings of a parsed `config.toml`, and (key, message) for
    what is not carried over (the `[agents]` tables are what the roles say)."""
    features = data.get("features")
    tools = data.get("tools")
    plan = tools.get("update_plan") if isinstance(tools, Mapping) else None
    project = Project(
        features if isinstance(features, Mapping) else {},
        data.get("sandbox_mode"),
        data.get("approval_policy") == "never",
        data.get("web_search", "cached") != "disabled",
        isinstance(plan, Mapping) and plan.get("enabled") is True,
        _declared_roles(data.get("agents")),
    )
    carried = ("features", "sandbox_mode", "approval_policy", "agents", "web_search")
    notes = [
        (key, f"`{key}` in config.toml has no promptc equivalent; not carried over")
        for key in data
        if key not in carried and not (key == "tools" and set(tools or ()) == {"update_plan"})
    ]
    if data.get("sandbox_mode") not in (None, "read-only", "workspace-write"):
        notes.append(("sandbox_mode", _SANDBOX_NOTE.format(data["sandbox_mode"])))
    notes += _unknown_features(project.features)
    notes += _agents_notes(data.get("agents"))
    return project, notes


# What `[agents]` says for the project (Codex's `max_threads` and `max_depth`),
# and the keys of an `[agents.<name>]` entry a role takes as its own.
_AGENTS_SETTINGS = ("max_threads", "max_depth")
ENTRY_KEYS = ("description", "config_file", "nickname_candidates")


def _declared_roles(table: Any) -> dict[str, Mapping[str, Any]]:
    if not isinstance(table, Mapping):
        return {}
    return {
        name: entry
        for name, entry in table.items()
        if name not in _AGENTS_SETTINGS and isinstance(entry, Mapping)
    }


def _agents_notes(table: Any) -> list[tuple[str, str]]:
    notes = []
    for name, entry in _declared_roles(table).items():
        for key in entry:
            if key not in ENTRY_KEYS:
                notes.append(("agents", f"`[agents.{name}] {key}` has no promptc equivalent"))
    if isinstance(table, Mapping) and "max_threads" in table:
        notes.append(("agents", "`[agents] max_threads` has no promptc equivalent"))
    return notes


def declared(ident: str, data: Mapping[str, Any], project: Project) -> Mapping[str, Any]:
    """The `[agents.<name>]` entry of config.toml for a role: by the role's
    `name`, else by its `config_file` (a role file may leave `name` to it)."""
    name = data.get("name")
    if isinstance(name, str) and name in project.roles:
        return project.roles[name]
    path = f"agents/{ident}.toml"
    for entry in project.roles.values():
        if str(entry.get("config_file", "")).removeprefix("./") == path:
            return entry
    return {}


# Codex 0.171 runs a spawned role in its session's sandbox, whatever the role says.
_ROLE_SANDBOX = (
    "`sandbox_mode = {!r}`: Codex runs a role in its session's sandbox, not in its own "
    "(only `read-only` is carried over, as `edit: deny`); not carried over"
)
# A build for Codex writes the workspace-write sandbox for the project (the
# roles run in it whatever their own files say).
_SANDBOX_NOTE = (
    "`sandbox_mode = {!r}`: a build for Codex writes the workspace-write sandbox for the "
    "project; the imported roles ask before an edit outside it"
)


def role_spec(
    ident: str, data: Mapping[str, Any], project: Project = Project()
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A promptc agent frontmatter for a Codex role file, and (key, message) for
    what did not carry over."""
    notes: list[tuple[str, str]] = []
    name = data.get("name")
    if isinstance(name, str) and name != ident:
        notes.append(("name", f"name `{name}` differs from the file's path: the id is `{ident}`"))
    entry = declared(ident, data, project)
    # Codex takes a role's description and nicknames from its file, else from its
    # `[agents.<name>]` entry in config.toml.
    description = data.get("description")
    if not (isinstance(description, str) and description.strip()):
        description = entry.get("description", description)
    spec: dict[str, Any] = {"description": str(description or ""), "mode": "subagent"}
    override = {key: data[key] for key in OVERRIDES if key in data}
    if "nickname_candidates" not in override and "nickname_candidates" in entry:
        override["nickname_candidates"] = entry["nickname_candidates"]
    if isinstance(data.get("model"), str):
        spec["model"] = f"openai/{data['model']}"
    elif "model" in data:
        override["model"] = data["model"]
    if isinstance(data.get("model_reasoning_effort"), str):
        spec["options"] = {"reasoningEffort": data["model_reasoning_effort"]}
    elif "model_reasoning_effort" in data:
        override["model_reasoning_effort"] = data["model_reasoning_effort"]
    own = data.get("features")
    own = own if isinstance(own, Mapping) else {}
    spec["permission"] = _permission({**project.features, **own}, data, project)
    if override:
        spec["targets"] = {"codex": override}
    for key in data:
        if key not in (*ROLE_KEYS, *OVERRIDES, "sandbox_mode", "features"):
            notes.append((key, f"`{key}` has no promptc spec key; not carried over"))
    if data.get("sandbox_mode") not in (None, "read-only"):
        notes.append(("sandbox_mode", _ROLE_SANDBOX.format(data["sandbox_mode"])))
    notes += _unknown_features(own)
    return spec, notes


def _permission(
    features: Mapping[str, Any], data: Mapping[str, Any], project: Project
) -> dict[str, str]:
    permission: dict[str, Any] = dict.fromkeys(NO_TOOL, "deny")
    # The session's tools: view_image reads any file the sandbox can read (the
    # project's and outside it), web_search and update_plan are on or off for all.
    if project.features.get("view_image", True) is not False:
        permission["read"] = "allow"
    if project.web_search:
        permission["websearch"] = "allow"
    # Written either way: OpenCode's task tool denies a subagent `todowrite` unless
    # its rules name it.
    permission["todowrite"] = "allow" if project.update_plan else "deny"
    for feature, key in FEATURES.items():
        if features.get(feature) is False:
            permission[key] = "deny"
    if "read-only" in (data.get("sandbox_mode"), project.sandbox):
        permission["edit"] = "deny"
    return permission


def session_permission(found: Mapping[str, list[str]], project: Project) -> dict[str, Any]:
    """The config-level permission, every role's and Codex's own session's: the
    command rules (`bash_permission`); a command naming a folder outside the
    project runs in the sandbox, where OpenCode would ask `external_directory`
    first: allowed; apply_patch asks outside the project and in the folders the
    sandbox keeps read-only, so those edits ask (refuse, when Codex asks nobody)."""
    asks = "deny" if project.never_asks else "ask"
    # A read-only sandbox: every edit needs an approval (denied: `accepted_wider`).
    edit = "deny" if project.sandbox == "read-only" else dict.fromkeys(SANDBOXED, asks)
    return {
        "external_directory": "allow",
        "edit": edit,
        "bash": bash_permission(found, project.never_asks),
    }


def accepted_wider(specs: Iterable[Mapping[str, Any]], session: Mapping[str, Any]) -> list[str]:
    """The codex target's `accept_wider` the imported roles need to build back as
    they were: `edit` when a role's `edit: deny` came from `apply_patch_freeform =
    false` or a read-only sandbox. Codex 0.171 gives such a role apply_patch all
    the same (the sandbox is its parent's), so the codex target refuses the spec
    unless told that Codex may edit wider than OpenCode: what the role did before
    the import, and every build prints each such call. `bash` when the session's
    rules name commands by path (`*/curl *`, `_by_path`): they also take a later
    word ending in the name (`echo a/curl`), which Codex runs and no prefix rule
    can stop, so the codex target would take every role's shell away."""
    denied = any(spec.get("permission", {}).get("edit") == "deny" for spec in specs)
    bash = session.get("bash")
    by_path = isinstance(bash, Mapping) and any(p.startswith("*/") for p in bash)
    return [*(["bash"] if by_path else []), *(["edit"] if denied else [])]


def _unknown_features(features: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [
        ("features", f"`[features] {key}` has no promptc equivalent; not carried over")
        for key in features
        if key not in FEATURES
    ]


def prefix_rules(text: str) -> tuple[dict[str, list[str]], list[tuple[int, str]]]:
    """The OpenCode bash patterns of a `.rules` file by OpenCode action, and (line,
    message) for what is left out."""
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
        patterns = list(_patterns(args.get("pattern"), covering=action != "allow"))
        if action is None or not patterns:
            skipped.append((node.lineno, "a prefix_rule promptc cannot read; not carried over"))
            continue
        found[action] += patterns
    return found, skipped


def bash_permission(found: Mapping[str, list[str]], never_asks: bool = False) -> dict[str, str]:
    """The bash map for the rules of every file: `"*": allow` and the forced-`rm`
    asks, then the allows, asks and denies, each pattern after the ones before it
    (OpenCode's last match is then Codex's strictest rule); `never_asks`: what
    Codex would ask, it refuses."""
    permission = {"*": "allow"}
    # Codex's one check of its own: a forced `rm` (also through `sudo`) asks when
    # no rule decides it (promptc_compiler.runtimes.codex.decide).
    forced = "deny" if never_asks else "ask"
    permission.update(dict.fromkeys(_by_path(FORCED_RM), forced))
    for action in ("allow", "ask", "deny"):
        # An allow by path is left to `"*": allow`: spelt `*/npm test *`, it would
        # also take `rm -rf x/npm test`, which Codex asks about.
        written = found.get(action, ())
        for pattern in written if action == "allow" else _by_path(written):
            permission.pop(pattern, None)
            permission[pattern] = "deny" if never_asks and action == "ask" else action
    # A rule a later one covers never decides (`docker ps *` allowed, then
    # `docker *` asked: Codex's strictest rule asks for both): left out.
    return without_covered(permission)


def _by_path(patterns: Iterable[str]) -> Iterator[str]:
    """Each pattern, then the same command named by a path (`*/curl *`): Codex
    matches a rule, and its forced-`rm` check, on the basename of a first word
    given as a path (`/usr/bin/curl`, `./rm`). No OpenCode pattern says "the
    first word ends in `/curl`": `*/curl *` also takes `echo a/curl`, which
    Codex runs. Narrower, never wider; built back for Codex (`accepted_wider`),
    Codex's own rule on `curl` holds every path to it."""
    for pattern in patterns:
        yield pattern
        first = pattern.split(" ", 1)[0]
        if first and "/" not in first and not set(first) & set("*?"):
            yield f"*/{pattern}"


def _patterns(pattern: Any, covering: bool) -> Iterator[str]:
    """`words *` for each choice of the alternatives. Codex reads each word as
    written: a word with a wildcard is read as a wildcard only where a wider
    match is safe (`covering`, for a prompt or forbidden rule), and so are
    alternatives too many to spell out; an allow gets no such rule."""
    if not isinstance(pattern, list) or not pattern:
        return
    choices = [item if isinstance(item, list) else [item] for item in pattern]
    words = [w for choice in choices for w in choice]
    if not all(isinstance(w, str) and w and " " not in w for w in words):
        return
    if not covering and any(set(w) & set("*?") for w in words):
        return
    if covering and math.prod(len(choice) for choice in choices) > LIMIT:
        choices = [choice if len(choice) == 1 else ["*"] for choice in choices]
    for chosen in itertools.islice(itertools.product(*choices), LIMIT):
        yield " ".join(chosen) + " *"


# --- the folder -------------------------------------------------------------------------------


def read_folder(root: Path, reader: Reader) -> None:
    """`.codex/`: its config, roles and command rules into `reader`."""
    reader.agent_files = "agents/*.toml"
    project = Project()
    config = root / "config.toml"
    data = reader.toml_file(config) if config.is_file() else None
    if data is not None:
        project, notes = project_settings(data)
        text = config.read_text(encoding="utf-8")
        for key, message in notes:
            reader.note(config, message, (toml_line(text, key), 1))
    models: dict[str, str] = {}
    specs: list[dict[str, Any]] = []
    folder = root / "agents"
    for path in sorted(folder.rglob("*.toml")) if folder.is_dir() else ():
        ident = path.relative_to(folder).with_suffix("").as_posix()
        role = reader.toml_file(path)
        if role is None:
            continue
        text = path.read_text(encoding="utf-8")
        body = role.get("developer_instructions")
        escaped = escape(body) if isinstance(body, str) and body.strip() else None
        if escaped is None or not isinstance(body, str):
            message = "no developer_instructions promptc can keep; not imported"
            reader.note(path, message, (toml_line(text, "developer_instructions"), 1), True)
            continue
        spec, notes = role_spec(ident, role, project)
        for key, message in notes:
            reader.note(path, message, (toml_line(text, key), 1))
        if "model" in spec:
            models[spec["model"]] = role["model"]
        specs.append(spec)
        reader.keep(ident, path, front(spec), escaped, body)
    found: dict[str, list[str]] = {}
    for path in sorted((root / "rules").glob("*.rules")):
        rules, skipped = prefix_rules(path.read_text(encoding="utf-8"))
        for action, patterns in rules.items():
            found.setdefault(action, []).extend(patterns)
        for line, message in skipped:
            reader.note(path, message, (line, 1))
    session = session_permission(found, project)
    reader.settings["permission"] = session
    target: dict[str, Any] = {"models": models} if models else {}
    if accepted := accepted_wider(specs, session):
        target["accept_wider"] = accepted
    if target:
        reader.settings["targets"] = {NAME: target}
