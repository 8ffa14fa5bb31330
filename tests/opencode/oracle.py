"""OpenCode (opencode 1.18.33) as a decision oracle.

Run: `opencode run --format json -m mock/mock-model --title oracle [--agent
NAME] PROMPT` in the project, HOME a scratch folder whose global config
(`~/.config/opencode/opencode.json`) adds the `mock` provider
(`@ai-sdk/openai-compatible`, bundled, Chat Completions to the server) and
turns snapshots off; the project's own opencode.json and `.opencode/` are
read as they are. `--agent` takes primary (or `all`) agents only.

Seen on the binary (tests/oracles/FACTS.md has the configs):
- Tools offered (build, no rules): bash, edit, glob, grep, read, skill,
  task, todowrite, webfetch, write. No tool for `list`; `websearch` needs
  Exa and `question` an interactive client, so both come back absent. A
  subagent loses task and todowrite; a tool whose last rule is `"*": deny`
  is not offered (absent).
- Deny: "The user has specified a rule which prevents you from using this
  specific tool call. Here are some of the relevant rules [...]"; the run
  goes on. Ask: stderr "permission requested: bash (ls -la); auto-rejecting"
  and the run ENDS there, unless the config sets
  `experimental.continue_loop_on_deny: true` (the driver does): then the
  model gets "The user rejected permission to use this specific tool call."
  and the batch goes on.
- Delegation: `task {description, prompt, subagent_type}`.
- Timing (2 cores under a load of 13-16): 24-32 s a run with a data dir
  used before, ~36 s with a fresh one (its database is set up first), ~12 s
  more with snapshots on. Runs share one data dir per pytest-xdist worker
  under .pytest_cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests import oracle
from tests.oracles import Attempt, OracleError, Outcome, Verdict, harness
from tests.oracles.server import MODEL, ModelServer

TIMEOUT = 240
DATA = Path(__file__).resolve().parents[2] / ".pytest_cache" / "opencode-data"
"""OpenCode's data dir (its database): one per pytest-xdist worker, kept
between runs, as a fresh one costs ~10 s to set up."""

ENV = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
}


def prepare(home: Path, url: str) -> None:
    """The scratch HOME's global config: the mock provider, as the default model."""
    folder = home / ".config" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "options": {"baseURL": f"{url}/v1", "apiKey": "offline-oracle"},
        "models": {MODEL: {"tool_call": True}},
    }
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {"mock": provider},
        "model": f"mock/{MODEL}",
        "small_model": f"mock/{MODEL}",
        "autoupdate": False,
        "share": "disabled",
        # No git snapshot of the project before and after every step: seconds a call.
        "snapshot": False,
        # An auto-rejected ask ends the run unless this is set; a deny does not.
        "experimental": {"continue_loop_on_deny": True},
    }
    (folder / "opencode.json").write_text(json.dumps(config))


class _Launch:
    def __init__(self, project: Path, home: Path, agent: str | None, data: Path | None) -> None:
        self.project, self.home, self.agent, self.data = project, home, agent, data

    def __call__(
        self, server: ModelServer, _plan: harness.Plan
    ) -> subprocess.CompletedProcess[str]:
        prepare(self.home, server.url)
        env = {**oracle.scratch_env(self.home), **ENV}
        if self.data is not None:
            env["XDG_DATA_HOME"] = str(self.data)
        args = [str(oracle.binary("opencode")), "run", "--format", "json", "-m", f"mock/{MODEL}"]
        args += ["--title", "oracle"]
        if self.agent:
            args += ["--agent", self.agent]
        try:
            return oracle.capture([*args, harness.PROMPT], self.project, env, TIMEOUT)
        except subprocess.TimeoutExpired as error:
            raise OracleError(f"opencode did not finish in {TIMEOUT} s") from error


def classify(seen: harness.Evidence) -> Verdict:
    text = seen.result
    if "rejected permission" in text or "auto-reject" in text:
        return "asked"
    if "prevents you from using" in text or "denied" in text:
        return "refused"
    return "ran"


def attempt(permission: str, value: str, project: Path) -> Attempt | None:
    """The OpenCode call that exercises `permission` with `value`.

    `edit` writes a new file (the `write` tool, which the edit permission
    governs); `webfetch` needs a 127.0.0.1 URL. OpenCode 1.18.33 has no
    tool for `list`; `websearch` and `question` are offered only with Exa or
    to an interactive client, so they come back absent here.
    """
    path = str(harness.inside(value, project))
    todo = {"content": value, "status": "pending", "priority": "low", "id": "oracle"}
    question = {
        "question": value,
        "header": "oracle",
        "options": [{"label": "yes", "description": "yes"}, {"label": "no", "description": "no"}],
    }
    calls = {
        "bash": lambda: Attempt("bash", {"command": value, "description": "oracle"}),
        "edit": lambda: Attempt("write", {"filePath": path, "content": harness.CONTENT}),
        "read": lambda: Attempt("read", {"filePath": path}),
        "glob": lambda: Attempt("glob", {"pattern": value}),
        "grep": lambda: Attempt("grep", {"pattern": value}),
        "webfetch": lambda: Attempt("webfetch", {"url": value, "format": "text"}),
        "websearch": lambda: Attempt("websearch", {"query": value}),
        "task": lambda: Attempt(
            "task",
            {
                "description": "oracle",
                "prompt": f"{harness.QUIET}: answer done.",
                "subagent_type": value,
            },
        ),
        "skill": lambda: Attempt("skill", {"name": value}),
        "todowrite": lambda: Attempt("todowrite", {"todos": [todo]}),
        "question": lambda: Attempt("question", {"questions": [question]}),
    }
    make = calls.get(permission)
    return make() if make else None


def _creates(call: Attempt) -> Path | None:
    if call.tool == "write":
        return Path(call.arguments["filePath"])
    return None


def _spawn(agent: str) -> tuple[Attempt, ...]:
    prompt = f"{harness.MARKER}: do the task."
    return (Attempt("task", {"description": "oracle", "prompt": prompt, "subagent_type": agent}),)


def run(
    project: Path,
    attempts: Sequence[Attempt],
    *,
    agent: str | None = None,
    delegate: bool = False,
    home: Path | None = None,
) -> list[Outcome]:
    """Decide `attempts` with OpenCode in `project` (see the module docstring).

    `home/.config/opencode/opencode.json` is the driver's (the provider); the
    project's own config and `.opencode/` decide. The runs of one pytest
    worker share a data dir.
    """
    # One data dir per worker, whatever the HOME: its database costs ~10 s to set up.
    data = DATA / os.environ.get("PYTEST_XDIST_WORKER", "main")
    with tempfile.TemporaryDirectory(prefix="opencode-home-") as scratch:
        driver = harness.Driver(
            launch=_Launch(project, home or Path(scratch), None if delegate else agent, data),
            classify=classify,
            spawn=_spawn,
            creates=_creates,
        )
        return harness.decide(driver, attempts, agent, delegate)
