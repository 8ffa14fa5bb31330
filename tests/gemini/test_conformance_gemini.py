"""Conformance: the real `gemini` (tests/package.json, 0.61.0) loads every agent and command promptc emits.

promptc writes an extension (`agents/`, `commands/`, `skills/`, `policies/`);
Gemini CLI reads the same files from a project's `.gemini/` folder, and loads
project agents the way the fact sheet says: the folder
trusted (`GEMINI_CLI_TRUST_WORKSPACE=true`) and every agent acknowledged in
the scratch HOME's `acknowledgments/agents.json` (its file's sha256). Each
gemini start costs seconds of CPU, so one scratch project holds the agent
files of every bundle (the fixtures, tests/fixtures/team among them,
emitted in memory), each under its own file name: Gemini reads and checks every file on its own, so three
runs answer everything.

- `gemini skills list`, run in that project, prints an "Agent loading error"
  for every agent file its strict schema refuses (and exits 0 anyway), then
  every skill it read from `.gemini/skills/` (the team's and those of
  tests/fixtures/skills), with the file it came from; a skill it cannot read
  is absent.
- The same agent files in the team's extension (its
  `gemini-extension.json` and `policies/`, which must load without an
  error), linked with `gemini extensions link DIR --consent`: `gemini extensions list
  -o json` prints, on stderr, an "Error loading agent" line for every file
  refused, then each agent as Gemini resolved it, with the file it came from
  (`toolConfig.tools`, `modelConfig.model`, `runConfig.maxTurns`, and the
  keys a `targets.gemini` override writes: `displayName`,
  `runConfig.maxTimeMinutes`).
- Every command: `gemini -p "/<mode> <request>"`, its model a local mock of
  the Gemini API, sends the model the command's prompt with `{{args}}`
  filled in.

One more agent file, broken on purpose, shows both listings can fail.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import re
import shutil
import subprocess
import threading
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from tests import bundles, oracle

# Each test starts a slow runtime (OpenCode, Gemini CLI): `make conformance` runs them.
pytestmark = [pytest.mark.slow, pytest.mark.conformance]

BUNDLES = {
    "team": bundles.TEAM,
    "claude": bundles.FIXTURES / "claude",
    "opencode": bundles.FIXTURES / "opencode",
    "permissions": bundles.FIXTURES / "permissions",
    "overrides": bundles.FIXTURES / "overrides",
}
SKILLS = bundles.FIXTURES / "skills"  # its one agent is a primary: only its skills are used
BROKEN = "zz-broken.md"
ERROR = re.compile(r"(?:Agent loading error|Error loading agent)[^\n]*")
REQUEST = "arregla el typo del README"


def gemini(
    args: list[str], cwd: Path, home: Path, **extra: str
) -> subprocess.CompletedProcess[str]:
    env = {**oracle.scratch_env(home), "GEMINI_CLI_TRUST_WORKSPACE": "true", **extra}
    return oracle.capture([str(oracle.binary("gemini")), *args], cwd, env, timeout=180)


def emitted(bundle: str) -> dict[str, bytes]:
    return bundles.render(BUNDLES[bundle], "gemini", lint_errors=bundle == "permissions")


def front(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


class MockGemini(http.server.BaseHTTPRequestHandler):
    """Answers every generateContent call; keeps the requests. A request that asks
    for JSON (Gemini's routing classifier) gets the JSON it asks for."""

    requests: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append(request)
        wants_json = request.get("generationConfig", {}).get("responseMimeType")
        text = '{"complexity_reasoning": "x", "complexity_score": 1}' if wants_json else "ok"
        part = {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
        body = json.dumps({"candidates": [part]}).encode()
        stream = "alt=sse" in self.path
        if stream:
            body = b"data: " + body + b"\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def mock_gemini() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    requests: list[dict[str, Any]] = []
    handler = type("Handler", (MockGemini,), {"requests": requests})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", requests
    server.shutdown()
    server.server_close()


def project(scratch: Path) -> tuple[Path, dict[str, tuple[str, dict[str, Any]]]]:
    """The scratch project: every bundle's agents, the team's commands, the
    broken file. Returns it with, per agent file name, (bundle, frontmatter)."""
    root = scratch / "project"
    agents = root / ".gemini" / "agents"
    agents.mkdir(parents=True)
    wrote: dict[str, tuple[str, dict[str, Any]]] = {}
    for bundle in BUNDLES:
        for rel, data in emitted(bundle).items():
            if rel.startswith("agents/"):
                name = f"{bundle}--{rel.rsplit('/', 1)[1]}"
                (agents / name).write_bytes(data)
                wrote[name] = (bundle, front(data.decode()))
            elif rel.startswith(("commands/", "skills/")) and bundle == "team":
                (root / ".gemini" / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / ".gemini" / rel).write_bytes(data)
    for rel, data in bundles.render(SKILLS, "gemini").items():
        if rel.startswith("skills/"):
            (root / ".gemini" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / ".gemini" / rel).write_bytes(data)
    scout = (agents / "team--scout.md").read_text()
    (agents / BROKEN).write_text(scout.replace("kind: local\n", "kind: local\nsandbox: x\n", 1))
    (root / ".gemini/skills/zz-broken").mkdir()
    (root / ".gemini/skills/zz-broken/SKILL.md").write_text("A skill with no frontmatter.\n")
    return root, wrote


def skills_listed(text: str) -> dict[str, str]:
    """`gemini skills list`'s skills: name -> the SKILL.md it came from."""
    found = re.findall(r"^(\S+) \[Enabled\]\n.*?^  Location: +(\S+)$", text, re.M | re.S)
    return dict(found)


def acknowledge(root: Path, home: Path) -> None:
    """Acknowledge the project's agents, as Gemini CLI asks the user to."""
    files = sorted((root / ".gemini" / "agents").glob("*.md"))
    names = {
        front(f.read_text())["name"]: hashlib.sha256(f.read_bytes()).hexdigest() for f in files
    }
    (home / ".gemini" / "acknowledgments").mkdir(parents=True)
    (home / ".gemini" / "acknowledgments" / "agents.json").write_text(
        json.dumps({str(root): names})
    )


def listing(root: Path, home: Path, scratch: Path) -> tuple[list[str], list[dict[str, Any]]]:
    """Link the project's agents as an extension and list it: (errors, agents)."""
    folder = scratch / "extension"
    shutil.copytree(root / ".gemini" / "agents", folder / "agents")
    for rel, data in emitted("team").items():
        if rel == "gemini-extension.json" or rel.startswith("policies/"):
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)
    done = gemini(["extensions", "link", str(folder), "--consent"], scratch, home)
    assert "linked successfully" in done.stdout + done.stderr, done
    done = gemini(["extensions", "list", "-o", "json"], scratch, home)
    start = re.search(r"^\[$", done.stderr, re.MULTILINE)
    assert start is not None, done
    extensions = json.loads(done.stderr[start.start() :])
    assert [e["name"] for e in extensions] == ["promptc"]
    assert "Policy file" not in done.stdout + done.stderr, done  # the policy rules load
    return ERROR.findall(done.stderr[: start.start()]), extensions[0]["agents"]


def commands(root: Path, home: Path, url: str) -> dict[str, subprocess.CompletedProcess[str]]:
    """Each command of the project run once, `/<name> <request>`, by its name."""
    (home / ".gemini" / "settings.json").write_text(
        '{"security": {"auth": {"selectedType": "gemini-api-key"}}}'
    )
    extra = {"GEMINI_API_KEY": "offline", "GOOGLE_GEMINI_BASE_URL": url}
    return {
        path.stem: gemini(
            ["-m", "gemini-2.5-flash", "-p", f"/{path.stem} {REQUEST}"], root, home, **extra
        )
        for path in sorted((root / ".gemini" / "commands").glob("*.toml"))
    }


@pytest.fixture(scope="module")
def loaded(
    tmp_path_factory: pytest.TempPathFactory, mock_gemini: tuple[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    oracle.binary("gemini")
    scratch = tmp_path_factory.mktemp("gemini")
    root, wrote = project(scratch)
    homes = [tmp_path_factory.mktemp("home") for _ in range(2)]
    for home in homes:
        acknowledge(root, home)

    def one_home() -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
        skills = gemini(["skills", "list"], root, homes[0])
        return skills, commands(root, homes[0], mock_gemini[0])

    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(one_home)
        listed = pool.submit(listing, root, homes[1], scratch)
        skills, ran = first.result()
        return {
            "root": root,
            "wrote": wrote,
            "skills": skills,
            "commands": ran,
            **dict(zip(("errors", "agents"), listed.result(), strict=True)),
        }


def test_skills_list_refuses_only_the_broken_file(loaded: dict[str, Any]) -> None:
    done = loaded["skills"]
    assert done.returncode == 0, done
    found = ERROR.findall(done.stdout + done.stderr)
    assert len(found) == 1, found
    assert f"/.gemini/agents/{BROKEN}:" in found[0], found
    assert "Unrecognized key(s) in object: 'sandbox'" in done.stderr


def test_skills_list_prints_every_skill_promptc_wrote(loaded: dict[str, Any]) -> None:
    root = loaded["root"]
    files = sorted((root / ".gemini" / "skills").glob("*/SKILL.md"))
    wrote = {front(f.read_text())["name"]: str(f) for f in files if f.parent.name != "zz-broken"}
    assert {"caveman", "team-flow", "review-notes"} <= set(wrote)
    listed = skills_listed(loaded["skills"].stdout)
    assert {n: p for n, p in listed.items() if p.startswith(str(root))} == wrote
    assert "zz-broken" not in loaded["skills"].stdout  # a skill Gemini cannot read is absent


def test_the_extension_listing_refuses_only_the_broken_file(loaded: dict[str, Any]) -> None:
    assert len(loaded["errors"]) == 1
    assert f"/agents/{BROKEN}:" in loaded["errors"][0]


@pytest.mark.parametrize("bundle", list(BUNDLES))
def test_gemini_loads_every_agent_with_the_tools_and_model_promptc_wrote(
    loaded: dict[str, Any], bundle: str
) -> None:
    resolved = {Path(a["metadata"]["filePath"]).name: a for a in loaded["agents"]}
    wrote = {name: meta for name, (b, meta) in loaded["wrote"].items() if b == bundle}
    assert wrote, "a bundle without agents would prove nothing"
    for name, meta in wrote.items():
        agent = resolved[name]
        assert agent["name"] == meta["name"], name
        assert agent["toolConfig"]["tools"] == meta["tools"], name
        assert agent["modelConfig"]["model"] == meta.get("model", "inherit"), name
        assert agent["runConfig"]["maxTurns"] == meta.get("max_turns", 30), name
        assert agent["description"] == meta["description"], name
        # Keys only a `targets.gemini` override writes (tests/fixtures/overrides).
        assert agent.get("displayName") == meta.get("display_name"), name
        assert agent["runConfig"]["maxTimeMinutes"] == meta.get("timeout_mins", 10), name
        assert agent["promptConfig"]["systemPrompt"].strip(), name
    assert BROKEN not in resolved


def test_every_mode_runs_as_a_gemini_command_with_the_request_filled_in(
    loaded: dict[str, Any], mock_gemini: tuple[str, list[dict[str, Any]]]
) -> None:
    sent = [
        part.get("text", "")
        for request in mock_gemini[1]
        for content in request.get("contents", [])
        for part in content.get("parts", [])
    ]
    ran = loaded["commands"]
    assert sorted(ran) == ["build", "hack", "review"]  # the team's modes
    for name, done in ran.items():
        assert done.returncode == 0, done
        toml = tomllib.loads((loaded["root"] / f".gemini/commands/{name}.toml").read_text())
        assert "{{args}}" in toml["prompt"], name
        assert toml["prompt"].replace("{{args}}", REQUEST) in sent, name
