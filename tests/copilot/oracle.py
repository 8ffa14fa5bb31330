"""GitHub Copilot CLI (copilot 1.0.102) as a decision oracle.

Run: `copilot -p PROMPT --output-format json --no-auto-update
--disable-client-telemetry [flags] [--agent NAME]` in the project, with the
bring-your-own-key provider (`COPILOT_PROVIDER_BASE_URL` the server, Chat
Completions, model gpt-4.1), `COPILOT_OFFLINE=true`, `COPILOT_HOME` in a
scratch HOME whose config.json trusts the project, and the ~235 MB package
unpacked once into `.pytest_cache/copilot-pkg` (`COPILOT_PKG_CACHE_HOME`).
Never `--allow-all-tools`, `--allow-all` or `--yolo`; permission rules are
flags (`--allow-tool 'shell(git status:*)'`, `--deny-tool ...`), given
through `run(..., flags=)`.

Seen on the binary (tests/oracles/FACTS.md has the configs):
- Tools offered (main session): bash, read_bash, stop_bash, list_bash,
  view, create, edit, fetch_copilot_cli_documentation, skill, sql,
  session_store_sql, read_agent, list_agents, write_agent, grep, glob,
  task. No web_fetch or web_search (offline), no ask_user in `-p` mode.
  An agent's `tools:` list selects tools by name or alias (`execute` gives
  bash and its helpers); `--agent` adds skill and sql to it, a subagent
  started by `task` gets exactly its list. A command pattern there
  (`shell(touch:*)`) is no tool name: that agent gets no tool at all.
- In `-p` mode a call no flag allows is refused "Permission denied because
  no interactive user response was available. Retry in an interactive
  session ..." (asked), except read-only commands (`cat`, `git status`)
  and `view`, which run; a `--deny-tool` match: "Permission to run this
  tool was denied due to the following rules: `shell(rm:*)`" (refused).
  It goes on after each: one run decides a batch.
- Delegation: `task {description, prompt, agent_type, name}`. The agent's
  hook answers first; a call it lets through for an agent `task` cannot
  start (`infer: false`, or none) ends "Unknown agent_type: NAME" (refused).
- Timing (2 cores under a load of 13-16): 4-6 s a run (the first run on a
  machine unpacks the package: ~6 s more).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests import oracle
from tests.oracles import Attempt, OracleError, Outcome, Verdict, harness
from tests.oracles.server import ModelServer

TIMEOUT = 240
MODEL = "gpt-4.1"
PACKAGES = Path(__file__).resolve().parents[2] / ".pytest_cache" / "copilot-pkg"
"""Where the binary unpacks its ~235 MB package, once for every run."""


def prepare(home: Path, project: Path) -> None:
    folder = home / ".copilot"
    folder.mkdir(parents=True, exist_ok=True)
    config = {"trusted_folders": [str(project.resolve())], "auto_update": False, "banner": "never"}
    (folder / "config.json").write_text(json.dumps(config))


class _Launch:
    def __init__(self, project: Path, home: Path, agent: str | None, flags: Sequence[str]) -> None:
        self.project, self.home, self.agent, self.flags = project, home, agent, flags

    def __call__(
        self, server: ModelServer, _plan: harness.Plan
    ) -> subprocess.CompletedProcess[str]:
        prepare(self.home, self.project)
        env = {
            **oracle.scratch_env(self.home),
            "COPILOT_PROVIDER_BASE_URL": f"{server.url}/v1",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "offline-oracle",
            "COPILOT_MODEL": MODEL,
            "COPILOT_OFFLINE": "true",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_HOME": str(self.home / ".copilot"),
            "COPILOT_PKG_CACHE_HOME": str(PACKAGES),
        }
        args = [str(oracle.binary("copilot")), "-p", harness.PROMPT, "--output-format", "json"]
        args += ["--no-auto-update", "--disable-client-telemetry", *self.flags]
        if self.agent:
            args += ["--agent", self.agent]
        try:
            return oracle.capture(args, self.project, env, TIMEOUT)
        except subprocess.TimeoutExpired as error:
            raise OracleError(f"copilot did not finish in {TIMEOUT} s") from error


def classify(seen: harness.Evidence) -> Verdict:
    text = seen.result
    if "no interactive user response" in text:
        return "asked"
    if "denied" in text.lower():
        return "refused"
    if text.startswith("Unknown agent_type:"):
        return "refused"  # `task` starts no agent with `infer: false`, or none
    return "ran"


def attempt(permission: str, value: str, project: Path) -> Attempt | None:
    """The Copilot CLI call that exercises `permission` with `value`.

    `edit` creates a new file (`create`); `read` and `list` both view a path;
    `webfetch` needs a 127.0.0.1 URL. Copilot keeps its todo list in its
    `sql` session store, which no OpenCode permission governs: `todowrite`
    has no call.
    """
    path = str(harness.inside(value, project))
    calls = {
        "bash": lambda: Attempt("bash", {"command": value, "description": "oracle"}),
        "edit": lambda: Attempt("create", {"path": path, "file_text": harness.CONTENT}),
        "read": lambda: Attempt("view", {"path": path}),
        "list": lambda: Attempt("view", {"path": path}),
        "glob": lambda: Attempt("glob", {"pattern": value}),
        "grep": lambda: Attempt("grep", {"pattern": value}),
        "webfetch": lambda: Attempt("web_fetch", {"url": value}),
        "websearch": lambda: Attempt("web_search", {"query": value}),
        "task": lambda: Attempt(
            "task",
            {
                "description": "oracle",
                "prompt": f"{harness.QUIET}: answer done.",
                "agent_type": value,
                "name": "oracle",
            },
        ),
        "skill": lambda: Attempt("skill", {"skill": value}),
        "question": lambda: Attempt("ask_user", {"question": value}),
    }
    make = calls.get(permission)
    return make() if make else None


def _creates(call: Attempt) -> Path | None:
    if call.tool == "create":
        return Path(call.arguments["path"])
    return None


def _spawn(agent: str) -> tuple[Attempt, ...]:
    prompt = f"{harness.MARKER}: do the task."
    arguments = {"description": "oracle", "prompt": prompt, "agent_type": agent, "name": "oracle"}
    return (Attempt("task", arguments),)


def run(
    project: Path,
    attempts: Sequence[Attempt],
    *,
    agent: str | None = None,
    delegate: bool = False,
    home: Path | None = None,
    flags: Sequence[str] = (),
) -> list[Outcome]:
    """Decide `attempts` with Copilot CLI in `project` (see the module docstring).

    `home/.copilot/config.json` is the driver's (it trusts the project).
    `flags`: Copilot's permission rules, which are command-line flags
    (`--allow-tool 'shell(git status:*)'`, `--deny-tool ...`).
    """
    PACKAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="copilot-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch), None if delegate else agent, flags),
            classify=classify,
            spawn=_spawn,
            creates=_creates,
        )
        return harness.decide(driver, attempts, agent, delegate)
