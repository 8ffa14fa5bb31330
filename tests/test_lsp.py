"""`promptc lsp`: the real server process over stdio (pytest-lsp), and its answers in process.

The end-to-end tests open, edit and ask about files of the server's
workspace as an editor does, one server for them all; the raw ones send
bytes no client library would, to one server of their own (and the ones
about exiting each to its own); the in-process ones ask promptc_compiler.editor.navigate and promptc_compiler.editor.lsp's
Session the questions the server forwards to them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import io
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pygls import uris
from pytest_lsp import ClientServerConfig, LanguageClient

from promptc_compiler import api
from promptc_compiler.core.config import load_config
from promptc_compiler.core.loader import MAX_FILE_BYTES
from promptc_compiler.core.validate import opencode_agent_keys
from promptc_compiler.editor.lsp import MAX_MESSAGE_BYTES, FdInput, Frame, Frames, Session
from promptc_compiler.editor.navigate import Snapshot, complete, definition, hover
from promptc_compiler.runtimes import copied_key
from tests.conftest import every_field
from tests.rules.test_required_snippet import FRAGMENT, ONE_CHARACTER, SNIPPET, agent

pytestmark = pytest.mark.slow

CONFIG = """\
[rules.required-snippet]
fragment = "caveman"
params = {level = "full"}

[rules.dangerous-allow]
level = "off"
"""

SCOUT = """\
---
description: Explores the codebase read-only and reports findings.
mode: subagent
permission:
  edit: deny
  bash:
    "*": ask
    "git status*": allow
  skill:
    "*": deny
    tone: allow
---
<<caveman>>

# Scout
"""

LEAD = """\
---
description: Leads the work and hands reading to the scout.
mode: primary
permission:
  bash:
    "rg *": allow
    "*": deny
  task:
    "*": deny
    scout: allow
---
<<caveman>>

# Lead
"""

SKILL = "---\nname: tone\ndescription: Sets the tone of every answer.\n---\nSpeak plainly.\n"


BUNDLE_FILES = MappingProxyType(
    {
        "promptc.toml": CONFIG,
        "fragments/caveman.md": FRAGMENT,
        "specs/agents/scout.md": SCOUT,
        "specs/agents/lead.md": LEAD,
        "specs/agents/sage.md": agent(f"{ONE_CHARACTER}\n\n# Sage\n"),
        "specs/skills/tone/SKILL.md": SKILL,
    }
)


def write_bundle(root: Path) -> Path:
    for rel, text in BUNDLE_FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root.resolve()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundle the module's language server has for its workspace."""
    return write_bundle(tmp_path_factory.mktemp("workspace") / "bundle")


@pytest.fixture
def bundle(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A scratch bundle of the test's own; for a test of the real server (one
    asking for `client`), that server's workspace, as write_bundle wrote it."""
    if "client" in request.fixturenames:
        workspace: Path = request.getfixturevalue("workspace")
        return workspace
    return write_bundle(tmp_path / "bundle")


def restore(root: Path) -> None:
    """The workspace as write_bundle wrote it: a test may write files, FIFOs too."""
    root = write_bundle(root)
    written = {root / rel for rel in BUNDLE_FILES}
    for path in sorted(root.rglob("*"), reverse=True):  # a folder's files before it
        if path.is_dir() and not path.is_symlink():
            if not any(path.iterdir()):
                path.rmdir()
        elif path not in written:
            path.unlink()


# --- the real server over stdio ---------------------------------------------------------


# One server for the module: a start costs about 2 s of CPU (lsprotocol's
# import, a first lint), and no test below needs a process of its own; the
# `client` fixture hands it to each test as a fresh one would be.
@pytest_lsp.fixture(  # type: ignore[untyped-decorator]  # pytest-lsp ships no types for it
    scope="module",
    config=ClientServerConfig(server_command=[sys.executable, "-m", "promptc_compiler", "lsp"]),
)
async def server(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=uris.from_fs_path(str(workspace)),
        )
    )
    yield
    await lsp_client.shutdown_session()


class Documents:
    """The documents a test has open in the server, to close after it."""

    def __init__(self, client: LanguageClient, monkeypatch: pytest.MonkeyPatch) -> None:
        self.open: dict[str, None] = {}  # a set in opening order
        opening, closing = client.text_document_did_open, client.text_document_did_close

        def did_open(params: types.DidOpenTextDocumentParams) -> None:
            self.open[params.text_document.uri] = None
            opening(params)

        def did_close(params: types.DidCloseTextDocumentParams) -> None:
            self.open.pop(params.text_document.uri, None)
            closing(params)

        monkeypatch.setattr(client, "text_document_did_open", did_open)
        monkeypatch.setattr(client, "text_document_did_close", did_close)


@pytest_asyncio.fixture(loop_scope="module")
async def client(
    server: LanguageClient, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[LanguageClient]:
    """The module's server as a fresh one is: no document open, its workspace
    as written, no diagnostics received.

    After the test the workspace is written again and the test's documents
    closed. The server handles messages in order, so once it answers the
    request sent last, every run started before has published: what arrived
    is cleared. The closing starts one run more, on the files as written,
    which may publish during the next test: lead.md's and sage.md's findings
    and empty lists. No test's first wait is for such diagnostics but the one
    for sage.md's, the same its own run publishes.
    """
    documents = Documents(server, monkeypatch)
    yield server
    restore(workspace)
    for at in list(documents.open):
        server.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(at))
        )
    closed = types.TextDocumentIdentifier(uri(workspace / "specs/agents/scout.md"))
    answer = server.text_document_hover_async(types.HoverParams(closed, types.Position(0, 0)))
    assert await asyncio.wait_for(answer, 60) is None  # not open: nothing to say
    server.diagnostics.clear()


def uri(path: Path) -> str:
    found: str | None = uris.from_fs_path(str(path))
    assert found is not None
    return found


def open_file(client: LanguageClient, path: Path, text: str | None = None) -> str:
    document = types.TextDocumentItem(
        uri=uri(path),
        language_id="markdown",
        version=1,
        text=path.read_text(encoding="utf-8") if text is None else text,
    )
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=document))
    return document.uri


def edit(client: LanguageClient, at: str, text: str, version: int = 2) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=at, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def published(
    client: LanguageClient, at: str, wanted: Callable[[Sequence[types.Diagnostic]], bool]
) -> Sequence[types.Diagnostic]:
    """The diagnostics of `at` once they are what `wanted` looks for."""

    async def wait() -> Sequence[types.Diagnostic]:
        while True:
            found = client.diagnostics.get(at)
            if found is not None and wanted(found):
                return found
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(wait(), timeout=60)


def rules(found: Sequence[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in found}


@pytest.mark.asyncio(loop_scope="module")
async def test_a_mistyped_key_is_reported_at_its_range_and_cleared_once_fixed(
    client: LanguageClient, bundle: Path
) -> None:
    scout = bundle / "specs/agents/scout.md"
    at = open_file(client, scout, SCOUT.replace("permission:", "permisson:"))
    found = await published(client, at, lambda ds: "key-typo" in rules(ds))
    [typo] = [d for d in found if d.code == "key-typo"]
    assert typo.range == types.Range(types.Position(3, 0), types.Position(3, 9))
    assert typo.severity == types.DiagnosticSeverity.Error
    assert "did you mean `permission`?" in typo.message
    edit(client, at, SCOUT)
    await published(client, at, lambda ds: "key-typo" not in rules(ds))
    # The file on disk never changed: the diagnostics were the unsaved buffer's.
    assert scout.read_text(encoding="utf-8") == SCOUT


@pytest.mark.asyncio(loop_scope="module")
async def test_a_fragment_edit_re_diagnoses_the_agents_that_include_it(
    client: LanguageClient, bundle: Path
) -> None:
    fragment = bundle / "fragments/caveman.md"
    at = open_file(client, fragment)
    # Without its default, `level` must be given where `<<caveman>>` is called.
    edit(client, at, FRAGMENT.replace("    default: full\n", ""))
    found = await published(client, uri(bundle / "specs/agents/scout.md"), lambda ds: bool(ds))
    assert "compose" in rules(found)
    assert any("level" in d.message for d in found)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_broken_buffer_is_reported_and_the_server_keeps_answering(
    client: LanguageClient, bundle: Path
) -> None:
    at = open_file(client, bundle / "specs/agents/scout.md")
    edit(client, at, "---\ndescription: [unclosed\n\x00<<caveman(level=>>\n")
    found = await published(client, at, lambda ds: "syntax" in rules(ds))
    assert all(d.source == "promptc" for d in found)
    answer = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=at), position=types.Position(2, 3)
        )
    )
    assert answer is None
    edit(client, at, SCOUT, version=3)
    await published(client, at, lambda ds: "syntax" not in rules(ds))


@pytest.mark.asyncio(loop_scope="module")
async def test_definition_of_a_fragment_call_lands_in_its_file(
    client: LanguageClient, bundle: Path
) -> None:
    at = open_file(client, bundle / "specs/agents/scout.md")
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=at), position=types.Position(12, 4)
        )
    )
    assert isinstance(found, list)
    assert [location.uri for location in found] == [uri(bundle / "fragments/caveman.md")]


@pytest.mark.asyncio(loop_scope="module")
async def test_hover_on_a_permission_rule_names_its_decision(
    client: LanguageClient, bundle: Path
) -> None:
    at = open_file(client, bundle / "specs/agents/lead.md")
    answer = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=at), position=types.Position(5, 6)
        )
    )
    assert answer is not None
    assert isinstance(answer.contents, types.MarkupContent)
    text = answer.contents.value
    assert text.startswith('**allow**: `bash "rg *": allow`')
    # `"*": deny` below matches all it matches: promptc can answers deny, by that rule.
    assert 'promptc can lead bash "rg *"` (a primary agent) answers **deny**' in text
    assert "Shadowed: it never decides" in text


@pytest.mark.asyncio(loop_scope="module")
async def test_completion_after_the_placeholder_opener_lists_the_fragments(
    client: LanguageClient, bundle: Path
) -> None:
    at = open_file(client, bundle / "specs/agents/scout.md")
    edit(client, at, SCOUT.replace("# Scout", "<<"))
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=at), position=types.Position(14, 2)
        )
    )
    assert isinstance(found, types.CompletionList)
    assert [item.label for item in found.items] == ["caveman"]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_code_action_restores_the_snippet(client: LanguageClient, bundle: Path) -> None:
    sage = bundle / "specs/agents/sage.md"
    at = open_file(client, sage)
    found = await published(client, at, lambda ds: "required-snippet" in rules(ds))
    [drift] = [d for d in found if d.code == "required-snippet"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=at),
            range=drift.range,
            context=types.CodeActionContext(diagnostics=[drift]),
        )
    )
    assert actions is not None
    [fix] = [a for a in actions if isinstance(a, types.CodeAction) and a.kind == "quickfix"]
    assert fix.edit is not None
    assert fix.edit.changes is not None
    [change] = fix.edit.changes[at]
    before = sage.read_text(encoding="utf-8")
    assert applied(before, [change]) == agent("<<caveman>>\n\n# Sage\n")
    # Only the drifted lines are replaced: the frontmatter above them is untouched.
    body = before.split("\n").index("---", 1) + 1
    assert (change.range.start.line, change.range.end.line) == (body, body + 1)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_code_action_adds_the_missing_catch_all_first_and_applying_it_clears_it(
    client: LanguageClient, bundle: Path
) -> None:
    open_map = LEAD.replace('    "*": deny\n    scout: allow\n', "    scout: allow\n")
    at = open_file(client, bundle / "specs/agents/lead.md", open_map)
    found = await published(client, at, lambda ds: "missing-catch-all" in rules(ds))
    [loose] = [d for d in found if d.code == "missing-catch-all"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=at),
            range=loose.range,
            context=types.CodeActionContext(diagnostics=[loose]),
        )
    )
    assert actions is not None
    [fix] = [a for a in actions if isinstance(a, types.CodeAction) and a.kind == "quickfix"]
    assert fix.edit is not None
    assert fix.edit.changes is not None
    [change] = fix.edit.changes[at]
    fixed = LEAD.replace('    "*": deny\n    scout: allow\n', '    "*": ask\n    scout: allow\n')
    assert applied(open_map, [change]) == fixed
    # An insertion of the one new line before `scout: allow`, nothing else.
    where = types.Position(open_map.split("\n").index("    scout: allow"), 0)
    assert (change.range, change.new_text) == (types.Range(where, where), '    "*": ask\n')
    edit(client, at, fixed)  # what the editor does when the action is picked
    await published(client, at, lambda ds: "missing-catch-all" not in rules(ds))


@pytest.mark.asyncio(loop_scope="module")
async def test_a_did_you_mean_is_a_quick_fix_of_the_word_alone(
    client: LanguageClient, bundle: Path
) -> None:
    typo = SCOUT.replace("permission:", "permisson:")
    at = open_file(client, bundle / "specs/agents/scout.md", typo)
    found = await published(client, at, lambda ds: "key-typo" in rules(ds))
    [wrong] = [d for d in found if d.code == "key-typo"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=at),
            range=wrong.range,
            context=types.CodeActionContext(diagnostics=[wrong]),
        )
    )
    assert actions is not None
    [fix] = [a for a in actions if isinstance(a, types.CodeAction) and a.kind == "quickfix"]
    assert fix.title == "promptc: change `permisson` to `permission` [key-typo]"
    assert fix.diagnostics is not None
    assert [d.code for d in fix.diagnostics] == ["key-typo"]
    assert fix.edit is not None
    assert fix.edit.changes is not None
    [change] = fix.edit.changes[at]
    span = types.Range(types.Position(3, 0), types.Position(3, 9))
    assert (change.range, change.new_text) == (span, "permission")
    edit(client, at, applied(typo, [change]))
    await published(client, at, lambda ds: "key-typo" not in rules(ds))


def applied(text: str, changes: list[types.TextEdit]) -> str:
    """What an editor makes of `text` with the edits (ASCII: UTF-16 units are characters)."""
    lines = text.split("\n")

    def offset(at: types.Position) -> int:
        return sum(len(line) + 1 for line in lines[: at.line]) + at.character

    for change in sorted(
        changes, key=lambda c: (offset(c.range.start), offset(c.range.end)), reverse=True
    ):
        start, end = offset(change.range.start), offset(change.range.end)
        text = text[:start] + change.new_text + text[end:]
    return text


# --- what no editor should send, and the server survives -------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.asyncio(loop_scope="module")
async def test_a_fifo_in_the_bundle_gets_the_command_lines_diagnostic_and_the_server_answers(
    client: LanguageClient, bundle: Path
) -> None:
    fifos = ("fragments/pipe.md", "specs/agents/pipe.md", "specs/skills/tone/pipe.txt")
    for rel in fifos:
        os.mkfifo(bundle / rel)  # opened, it would block until a writer came
    at = open_file(client, bundle / "specs/agents/scout.md")
    for rel in fifos:
        found = await published(client, uri(bundle / rel), lambda ds: bool(ds))
        assert [d.message for d in found] == ["not a regular file but a FIFO; refused"]
    # Asked about the FIFO itself, not open in the editor: answered, nothing read.
    pipe = types.TextDocumentIdentifier(uri=uri(bundle / "fragments/pipe.md"))
    hovered = await asyncio.wait_for(
        client.text_document_hover_async(types.HoverParams(pipe, types.Position(0, 0))), 60
    )
    assert hovered is None
    edit(client, at, SCOUT.replace("permission:", "permisson:"))
    await published(client, at, lambda ds: "key-typo" in rules(ds))


@pytest.mark.asyncio(loop_scope="module")
async def test_a_uri_with_a_nul_byte_is_refused_and_only_that_document_is_told(
    client: LanguageClient, bundle: Path
) -> None:
    nul = uri(bundle / "specs/agents") + "/sc%00out.md"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(nul, "markdown", 1, SCOUT))
    )
    untitled = "untitled:Untitled-1"
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(untitled, "markdown", 1, SCOUT))
    )
    [refused] = await published(client, nul, lambda ds: bool(ds))
    assert refused.message == (
        "promptc cannot check this document: its path holds a NUL byte (%00), "
        "which no file name can"
    )
    # Every other document is checked as before: a run ends with no error logged.
    at = open_file(
        client, bundle / "specs/agents/scout.md", SCOUT.replace("permission:", "permisson:")
    )
    await published(client, at, lambda ds: "key-typo" in rules(ds))
    edit(client, at, SCOUT)
    await published(client, at, lambda ds: "key-typo" not in rules(ds))
    logged = [m.message for m in client.log_messages]
    assert any(m.startswith(f"{untitled} is not checked: not a file (untitled)") for m in logged)
    assert not [m for m in logged if "Traceback" in m]
    assert untitled not in client.diagnostics  # an untitled buffer is only logged
    # Closing the refused document takes its diagnostic away.
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(nul))
    )
    await published(client, nul, lambda ds: not ds)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_buffer_past_the_file_cap_is_refused_as_that_file_would_be(
    client: LanguageClient, bundle: Path
) -> None:
    fragment = bundle / "fragments/caveman.md"
    text = FRAGMENT + SNIPPET * (MAX_FILE_BYTES // len(SNIPPET.encode()) + 1)
    size = len(text.encode())
    at = open_file(client, fragment, text)
    found = await published(client, at, lambda ds: "syntax" in rules(ds))
    assert [d.message for d in found if d.code == "syntax"] == [
        f"file is {size:,} bytes; promptc reads spec files up to {MAX_FILE_BYTES:,} bytes "
        "(no runtime can use a prompt this long)"
    ]
    # What `promptc lint` says of the same text saved: the same, at the same place.
    fragment.write_text(text, encoding="utf-8")
    [linted] = [d for d in api.lint(load_config(cwd=bundle)).diagnostics if d.rule == "syntax"]
    assert (linted.line, linted.column, linted.message) == (1, 1, found[0].message)


class RawServer:
    """`promptc lsp` spoken to byte by byte, to send what no client library would."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.marks = 0  # how many ends said() marked
        self.heard = 0  # how much of stderr said() handed out
        self.process = subprocess.Popen(
            [sys.executable, "-m", "promptc_compiler", "lsp"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.stderr: list[bytes] = []
        assert self.process.stdout is not None
        assert self.process.stderr is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()
        threading.Thread(
            target=self.stderr.extend, args=(self.process.stderr,), daemon=True
        ).start()
        self.send(
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {"capabilities": {}, "rootUri": uri(root)},
                }
            )
        )
        assert "capabilities" in self.answer(0)["result"]

    def _read(self, stdout: IO[bytes]) -> None:
        while True:
            length = None
            while (line := stdout.readline()) not in (b"\r\n", b""):
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            if not line or length is None:
                self.messages.put(None)
                return
            self.messages.put(json.loads(stdout.read(length)))

    def send(self, raw: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(raw)
        self.process.stdin.flush()

    def answer(self, msg_id: int | None) -> dict[str, Any]:
        """The response to `msg_id` (None: an error response with a null id)."""
        while True:
            message = self.messages.get(timeout=60)  # a deaf server fails the test here
            assert message is not None, f"the server ended; stderr: {self.errors()}"
            if "method" not in message and message.get("id") == msg_id:
                return message

    def exit(self, shutdown: bool) -> int:
        if shutdown:
            self.send(frame({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}))
            assert self.answer(99)["result"] is None
        self.send(frame({"jsonrpc": "2.0", "method": "exit"}))
        return self.process.wait(timeout=60)

    def errors(self) -> str:
        return b"".join(self.stderr).decode("utf-8", "replace")

    def said(self) -> str:
        """What the server logged since the last call, all of it, while it runs.

        A header it cannot read, with a request after it, marks the end: the
        server logs a message's framing problems before it answers the message,
        so once the answer came, the mark is on its way to the stderr reader."""
        self.marks += 1
        mark = f"mark-{self.marks}"
        at = uri(self.root / "specs/agents/scout.md")
        self.send(b"Content-Length: %s\r\n\r\n" % mark.encode() + frame(hover_request(-1, at)))
        assert self.answer(-1)["result"] is None
        logged = f"promptc lsp: Content-Length {mark!r} is not a number of bytes\n"
        deadline = time.monotonic() + 60
        while logged not in (text := self.errors())[self.heard :]:
            assert time.monotonic() < deadline, f"{logged!r} not read in 60 s: {text}"
            time.sleep(0.05)
        end = text.index(logged, self.heard)
        said, self.heard = text[self.heard : end], end + len(logged)
        return said

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=60)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def frame(message: dict[str, Any], ending: bytes = b"\r\n") -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d%s%s" % (len(body), ending, ending) + body


def hover_request(msg_id: int, at: str, line: object = 0) -> dict[str, Any]:
    position = {"line": line, "character": 0}
    params = {"textDocument": {"uri": at}, "position": position}
    return {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover", "params": params}


@pytest.fixture(scope="module")
def raw_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawServer]:
    """One server for the tests that send bytes no client library would: a start
    costs about 2 s of CPU (lsprotocol's import). After them all it still shuts
    down cleanly, and it never logged a traceback."""
    server = RawServer(write_bundle(tmp_path_factory.mktemp("raw") / "bundle"))
    try:
        yield server
        assert server.exit(shutdown=True) == 0
        assert "Traceback" not in server.errors()
    finally:
        server.close()


@pytest.fixture
def raw(raw_server: RawServer) -> RawServer:
    """The module's raw server; what it logged before is the earlier tests', and
    every answer to their requests is read."""
    raw_server.said()
    return raw_server


def test_ill_typed_params_and_malformed_json_are_answered_with_errors(raw: RawServer) -> None:
    at = uri(raw.root / "specs/agents/scout.md")
    raw.send(frame(hover_request(1, at, line="first")))
    wrong = raw.answer(1)["error"]
    assert wrong["code"] == -32602
    assert "expected int @ $.params.position.line" in wrong["message"]
    raw.send(b'Content-Length: 9\r\n\r\n{"id": 2,')
    assert raw.answer(None)["error"]["code"] == -32700
    raw.send(frame({"jsonrpc": "2.0", "id": 3}))  # neither a method nor a result
    assert raw.answer(3)["error"]["code"] == -32600
    raw.send(frame(hover_request(4, at)))
    assert raw.answer(4)["result"] is None  # still answering
    said = raw.said()
    assert "a message that is not JSON" in said
    assert "Traceback" not in said


GARBLED = [
    (b"Content-Length: abc\r\n\r\n", "Content-Length 'abc' is not a number of bytes"),
    (b"Content-Type: application/json\r\n\r\n", "a message without a Content-Length"),
    (b"Content-Length: 3\r\n\r\n", "a message that is not JSON"),  # too short
]


def test_each_bad_content_length_is_logged_and_the_next_message_answered(
    raw: RawServer,
) -> None:
    scout, lead = (uri(raw.root / f"specs/agents/{name}.md") for name in ("scout", "lead"))
    for n, (garbled, _) in enumerate(GARBLED):
        skipped = json.dumps(hover_request(2 * n + 1, scout)).encode()
        raw.send(garbled + skipped + frame(hover_request(2 * n + 2, lead)))
        assert raw.answer(2 * n + 2)["result"] is None
    errors = raw.said()
    at = [errors.find(f"promptc lsp: {said}") for _, said in GARBLED]
    assert -1 not in at, errors
    assert at == sorted(at), errors  # each said as its message came
    assert "Traceback" not in errors


def test_headers_that_end_in_lf_alone_are_read_and_said_once(raw: RawServer) -> None:
    at = uri(raw.root / "specs/agents/scout.md")
    raw.send(frame(hover_request(1, at), ending=b"\n") + frame(hover_request(2, at), ending=b"\n"))
    assert raw.answer(1)["result"] is None
    assert raw.answer(2)["result"] is None
    assert raw.said().count("header lines end in LF alone, not CRLF") == 1


def test_exit_without_shutdown_ends_with_1_and_a_request_after_shutdown_is_refused(
    bundle: Path,
) -> None:
    quitter = RawServer(bundle)
    try:
        assert quitter.exit(shutdown=False) == 1
    finally:
        quitter.close()
    polite = RawServer(bundle)
    try:
        polite.send(frame({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}))
        polite.answer(1)
        polite.send(frame(hover_request(2, uri(bundle / "specs/agents/scout.md"))))
        assert polite.answer(2)["error"]["code"] == -32600  # pygls dropped it, unanswered
        assert polite.exit(shutdown=False) == 0  # shut down before
    finally:
        polite.close()


# --- reading frames, in process --------------------------------------------------------


def frames(raw: bytes) -> list[Frame]:
    """Every frame of `raw`, up to the end of the input."""
    reader = Frames(io.BytesIO(raw))
    found = [reader.next()]
    while not found[-1].ended:
        found.append(reader.next())
    return found


def test_frames_in_order_then_the_end() -> None:
    one, two = frame({"id": 1}), frame({"id": "é"})
    assert frames(one + two) == [
        Frame(json.dumps({"id": 1}).encode()),
        Frame(json.dumps({"id": "é"}).encode()),
        Frame(None, ended=True),
    ]


def test_stdin_read_through_its_descriptor_frames_as_a_stream_does() -> None:
    # LF-only headers, a bad length whose body is glued to the next message,
    # a long line, a body longer than a read: every path of FdInput's reading.
    sent = (
        frame({"id": 1}, ending=b"\n")
        + b"Content-Length: x\r\n\r\n"
        + b"{" * 200_000
        + frame({"id": "x" * 100_000})
    )
    reading, writing = os.pipe()

    def write() -> None:
        os.write(writing, sent)
        os.close(writing)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        reader = Frames(FdInput(reading))
        found = [reader.next() for _ in range(3)]
    finally:
        writer.join(timeout=60)
        os.close(reading)
    assert found == frames(sent)
    assert [f.body is not None for f in found] == [True, True, False]


def test_a_body_cut_short_by_the_end_of_the_input_is_said() -> None:
    [cut] = frames(b"Content-Length: 50\r\n\r\n{}")
    assert cut == Frame(None, ("the input ended 2 bytes into a message of 50",), ended=True)


def test_a_message_past_the_limit_is_skipped_unread_and_the_next_one_read() -> None:
    big = MAX_MESSAGE_BYTES + 1
    first, second, end = frames(b"Content-Length: %d\r\n\r\n" % big + b" " * big + frame({}))
    assert first.body is None
    assert "past the 67,108,864 promptc reads" in first.problems[0]
    assert second.body == b"{}"
    assert end.ended


def test_a_content_length_of_thousands_of_digits_is_no_number() -> None:
    first, *_ = frames(b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}" + frame({}))
    assert first.problems[0].startswith("Content-Length '9999")
    assert first.body == b"{}"


# --- the same answers, in process -------------------------------------------------------


@pytest.fixture
def snapshot(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> Snapshot:
    monkeypatch.chdir(bundle)
    return Session(bundle).snapshot({})


def test_a_task_pattern_leads_to_the_agent_spec(snapshot: Snapshot, bundle: Path) -> None:
    places = definition(snapshot, bundle / "specs/agents/lead.md", 10, 6)
    assert [p.path for p in places] == [bundle / "specs/agents/scout.md"]


def test_a_skill_entry_leads_to_its_skill_file(snapshot: Snapshot, bundle: Path) -> None:
    places = definition(snapshot, bundle / "specs/agents/scout.md", 11, 6)
    assert [p.path for p in places] == [bundle / "specs/skills/tone/SKILL.md"]


def test_hover_on_a_fragment_call_shows_its_parameters_and_composed_text(
    snapshot: Snapshot, bundle: Path
) -> None:
    text = hover(snapshot, bundle / "specs/agents/scout.md", 13, 3)
    assert text is not None
    assert '- `level (string: "lite", "full", "ultra"' in text
    assert "Composed for opencode:" in text
    assert "Tono: caveman por default, nivel full. Activa siempre." in text


def test_hover_on_an_agent_names_who_starts_it(snapshot: Snapshot, bundle: Path) -> None:
    text = hover(snapshot, bundle / "specs/agents/scout.md", 1, 1)
    assert text is not None
    assert "Started by:\n- `lead`: allow, by specs/agents/lead.md:10:5" in text
    assert text.endswith("Starts:\n- no agent")


def test_hover_on_a_task_entry_names_its_decision_and_the_agent_it_starts(
    snapshot: Snapshot, bundle: Path
) -> None:
    text = hover(snapshot, bundle / "specs/agents/lead.md", 10, 6)
    assert text is not None
    assert text.startswith('**allow**: `task "scout": allow`')
    assert "answers **allow**, decided by this rule." in text
    assert "**agent `scout`** (mode subagent)" in text


def labels(snapshot: Snapshot, path: Path, text: str, line: int, column: int) -> list[str]:
    return [item.label for item in complete(snapshot, path, text, line, column)]


def test_completion_offers_agent_ids_in_a_task_map(snapshot: Snapshot, bundle: Path) -> None:
    text = LEAD.replace("    scout: allow", "    s")
    found = labels(snapshot, bundle / "specs/agents/lead.md", text, 10, 6)
    assert found == ['"*"', "lead", "sage", "scout"]


def test_completion_offers_permission_keys_and_actions(snapshot: Snapshot, bundle: Path) -> None:
    path = bundle / "specs/agents/lead.md"
    keys = labels(snapshot, path, LEAD.replace("  bash:", "  web"), 5, 6)
    assert {"bash", "webfetch", "task", "skill"} <= set(keys)
    actions = labels(snapshot, path, LEAD.replace("  bash:", "  edit: "), 5, 9)
    assert actions == ["ask", "allow", "deny"]


def test_completion_offers_frontmatter_keys_and_enum_values(
    snapshot: Snapshot, bundle: Path
) -> None:
    path = bundle / "specs/agents/lead.md"
    keys = labels(snapshot, path, LEAD.replace("mode: primary", "te"), 3, 3)
    assert {"temperature", "description", "mode", "permission", "targets"} <= set(keys)
    modes = labels(snapshot, path, LEAD.replace("mode: primary", "mode: "), 3, 7)
    assert modes == ["subagent", "primary", "all"]


# Claude Code agent keys: in an OpenCode spec's frontmatter each is a cross-ecosystem error.
CLAUDE_ONLY = {"permissionMode", "maxTurns", "hooks", "disallowedTools", "mcpServers"}


def test_completion_at_the_top_of_an_agent_offers_only_opencode_keys(
    snapshot: Snapshot, bundle: Path
) -> None:
    path = bundle / "specs/agents/lead.md"
    keys = set(labels(snapshot, path, LEAD.replace("mode: primary", "m"), 3, 2))
    assert not keys & CLAUDE_ONLY
    assert keys == {*opencode_agent_keys(), "targets"}


def test_no_key_offered_at_the_top_of_an_agent_is_one_cross_ecosystem_reports(
    snapshot: Snapshot, bundle: Path
) -> None:
    """The rule's own test (runtimes.copied_key) says no to every key offered."""
    path = bundle / "specs/agents/lead.md"
    keys = labels(snapshot, path, LEAD.replace("mode: primary", ""), 3, 1)
    assert keys
    assert [key for key in keys if copied_key(key)] == []


def test_completion_under_a_target_offers_that_runtimes_keys(
    snapshot: Snapshot, bundle: Path
) -> None:
    path = bundle / "specs/agents/lead.md"
    text = LEAD.replace("mode: primary", "targets:\n  claude:\n    m")
    claude = set(labels(snapshot, path, text, 5, 6))
    assert {"permissionMode", "maxTurns", "model", "color"} <= claude
    assert not {"permission", "temperature"} & claude  # not Claude Code's
    codex = set(labels(snapshot, path, text.replace("claude:", "codex:"), 5, 6))
    assert "model_reasoning_effort" in codex
    assert not {"tools", "permission"} & codex
    opencode = set(labels(snapshot, path, text.replace("claude:", "opencode:"), 5, 6))
    assert "temperature" in opencode
    assert not opencode & CLAUDE_ONLY
    gemini = set(labels(snapshot, path, text.replace("claude:", "gemini:"), 5, 6))
    assert "max_turns" in gemini
    assert not gemini & CLAUDE_ONLY
    names = labels(snapshot, path, LEAD.replace("mode: primary", "targets:\n  c"), 4, 4)
    assert names == ["opencode", "claude", "claude-plugin", "codex", "copilot", "gemini"]


def test_completion_in_a_mode_offers_claude_command_keys_only_under_its_target(
    snapshot: Snapshot, bundle: Path
) -> None:
    path = bundle / "specs/modes/review.md"
    mode = "---\ndescription: Review the change.\nagent: lead\na\n---\nGo.\n"
    top = set(labels(snapshot, path, mode, 4, 2))
    assert {"agent", "argument-hint", "targets"} <= top
    assert not {"allowed-tools", "disable-model-invocation"} & top  # schema errors up here
    nested = mode.replace("\na\n", "\ntargets:\n  claude:\n    a\n")
    assert {"allowed-tools", "disable-model-invocation"} <= set(
        labels(snapshot, path, nested, 6, 6)
    )


def test_completion_offers_parameters_and_their_values_in_a_call(
    snapshot: Snapshot, bundle: Path
) -> None:
    path = bundle / "specs/agents/scout.md"
    names = labels(snapshot, path, SCOUT.replace("<<caveman>>", "<<caveman("), 13, 11)
    assert names == ["level"]
    text = SCOUT.replace("<<caveman>>", "<<caveman(level=")
    values = labels(snapshot, path, text, 13, 17)
    assert values[:3] == ['"lite"', '"full"', '"ultra"']


def test_a_removed_fragment_is_gone_from_the_next_run(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(bundle)
    session = Session(bundle)
    assert session.diagnose({})
    (bundle / "fragments/caveman.md").unlink()
    scout = bundle / "specs/agents/scout.md"
    found = session.diagnose({})
    assert any("unknown fragment 'caveman'" in d.message for d in found[scout])
    assert "caveman" not in session.snapshot({}).bundle.fragments


def served(session: Session, overlays: Mapping[Path, str]) -> list[tuple[object, ...]]:
    """Every diagnostic the server publishes after a run, in publishing order."""
    return every_field(d for found in session.diagnose(overlays).values() for d in found)


def linted(root: Path, overlays: Mapping[Path, str]) -> list[tuple[object, ...]]:
    """What `promptc lint` reports of the same texts, in a run of its own."""
    config = dataclasses.replace(load_config(cwd=root), overlays=MappingProxyType(dict(overlays)))
    return every_field(api.lint(config).diagnostics)


def test_a_fragment_edit_changes_what_the_agents_that_include_it_are_told(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(bundle)
    inner, quiet = bundle / "fragments/inner.md", bundle / "specs/agents/quiet.md"
    inner.write_text("Nota.\n", encoding="utf-8")
    (bundle / "fragments/note.md").write_text("<<inner>>\n", encoding="utf-8")
    quiet.write_text(SCOUT.replace("<<caveman>>\n\n# Scout\n", "<<note>>\n"), encoding="utf-8")
    session = Session(bundle)
    sage, scout = bundle / "specs/agents/sage.md", bundle / "specs/agents/scout.md"
    fragment = bundle / "fragments/caveman.md"

    def told(overlays: dict[Path, str], path: Path) -> set[str]:
        found = served(session, overlays)
        assert found == linted(bundle, overlays)
        return {str(d[3]) for d in found if d[0] == str(path.relative_to(bundle))}

    assert "required-snippet" in told({}, sage)  # its copy drifted by one character
    # The fragment now reads as sage's copy does: the drift is gone.
    same = {fragment: FRAGMENT.replace("siempre.", "siempre!")}
    assert "required-snippet" not in told(same, sage)
    # Now it reads as nothing sage wrote: sage's text is no copy, the snippet is missing.
    other = {fragment: FRAGMENT.replace(SNIPPET.replace("full", "<<level>>"), "Habla claro.")}
    assert "required-snippet" in told(other, sage)
    # Without its default, `level` must be given where `<<caveman>>` is called.
    needed = {fragment: FRAGMENT.replace("    default: full\n", "")}
    assert "compose" in told(needed, scout)
    assert "compose" not in told({}, scout)
    assert "required-snippet" in told({}, sage)
    # quiet's body is what the fragment it includes includes, and empty once that is.
    assert "empty-body" not in told({}, quiet)
    assert "empty-body" in told({inner: ""}, quiet)
    assert "empty-body" not in told({}, quiet)


def test_a_schema_invalid_edit_then_its_fix_then_the_same_edit_again(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(bundle)
    session = Session(bundle)
    scout = bundle / "specs/agents/scout.md"
    broken = {scout: SCOUT.replace("mode: subagent", "mode: sidekick")}
    for overlays, wrong in [({}, False), (broken, True), ({}, False), (broken, True)]:
        found = served(session, overlays)
        assert found == linted(bundle, overlays)
        assert any(d[3] == "schema" and "sidekick" in str(d[5]) for d in found) == wrong


def test_after_a_sequence_of_edits_the_diagnostics_equal_a_fresh_lint(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(bundle)
    session = Session(bundle)
    agents, fragment = bundle / "specs/agents", bundle / "fragments/caveman.md"
    lead, scout = agents / "lead.md", agents / "scout.md"
    steps: list[tuple[Callable[[], object], dict[Path, str]]] = [
        (lambda: None, {}),
        (lambda: None, {scout: SCOUT.replace("# Scout", "# Scout\n\nLee más.")}),
        (lambda: None, {lead: LEAD.replace("---\n<<", "<<")}),  # frontmatter left open
        # A condition that fails only when evaluated, twice: reported each time.
        (lambda: None, {scout: f"{SCOUT}<% if target > 3 %>x<% endif %>\n"}),
        (lambda: None, {scout: f"{SCOUT}<% if target > 3 %>x<% endif %>\n"}),
        (lambda: None, {lead: LEAD, fragment: FRAGMENT.replace("siempre.", "a veces.")}),
        (lambda: (agents / "sage.md").rename(agents / "sabio.md"), {}),  # an agent renamed
        (lambda: lead.write_text(LEAD.replace("scout: allow", "sabio: allow")), {}),
        (lambda: fragment.unlink(), {}),  # every <<caveman>> is unknown now
        (lambda: fragment.write_text(FRAGMENT, encoding="utf-8"), {}),
    ]
    for change, overlays in steps:
        change()
        assert served(session, overlays) == linted(bundle, overlays)


def test_a_config_that_does_not_load_is_an_error_at_its_line(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(bundle)
    session = Session(bundle)
    assert session.diagnose({})  # the bundle's own findings, before
    (bundle / "promptc.toml").write_text(CONFIG + '\n[rules.no-such-rule]\nlevel = "off"\n')
    session.reload()  # what saving the config does
    found = session.diagnose({})
    [error] = found.pop(bundle / "promptc.toml")
    assert (error.line, error.column, error.rule) == (8, 1, "config")
    assert error.message.startswith("unknown rule 'no-such-rule'")
    assert all(ds == [] for ds in found.values())  # every other file's findings are cleared


def test_a_config_that_is_not_toml_is_an_error_at_its_line(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(bundle)
    session = Session(bundle)
    (bundle / "promptc.toml").write_text(CONFIG + "\n[rules.empty-body\n")
    found = session.diagnose({})
    [error] = found.pop(bundle / "promptc.toml")
    assert (error.line, error.column, error.rule) == (len(CONFIG.splitlines()) + 2, 18, "config")
    assert error.message.startswith("invalid TOML: ")
    assert bundle not in found  # not on the bundle's folder


@pytest.mark.skipif(
    sys.getallocatedblocks() == 0, reason="this interpreter does not count its memory blocks"
)
def test_memory_stays_flat_over_five_hundred_edit_cycles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the server's handler (Session.diagnose) leaves behind, in the interpreter's
    count of allocated blocks: tracemalloc would make each run several times slower."""
    root = tmp_path / "small"
    (root / "specs/agents").mkdir(parents=True)
    (root / "fragments").mkdir()
    (root / "fragments/tone.md").write_text("Be brief.\n", encoding="utf-8")
    scout = root / "specs/agents/scout.md"
    scout.write_text(SCOUT.replace("<<caveman>>", "<<tone>>"), encoding="utf-8")
    monkeypatch.chdir(root)
    session = Session(root.resolve())
    path = scout.resolve()

    def cycle(n: int) -> None:
        # Every other edit is broken: a run after a failed one starts afresh too.
        text = SCOUT.replace("permission:", "permisson:") if n % 2 else SCOUT
        found = session.diagnose({path: text.replace("<<caveman>>", f"<<tone>>\n{n}")})
        assert ("key-typo" in {d.rule for d in found.get(path, [])}) == bool(n % 2)

    for n in range(100):  # warm: imports, compiled patterns, the interpreter's free lists
        cycle(n)
    gc.collect()  # what only a reference cycle holds is garbage, not growth
    before = sys.getallocatedblocks()
    for n in range(100, 600):
        cycle(n)
    gc.collect()
    growth = sys.getallocatedblocks() - before
    # A leak of one diagnostic a run would be several blocks each time: 1,000s.
    assert growth < 1_000, f"{growth:,} more memory blocks after 500 more edits"


# --- the Neovim 0.7 setup of docs/editors.md, in a real Neovim when there is one --------

NVIM_PROBE = """\
vim.api.nvim_buf_set_lines(0, 2, 3, false, { "mod: subagent" })
vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out, string.format("%d:%d %s", d.lnum, d.col, d.code))
end
local range = { start = { line = 2, character = 0 }, ["end"] = { line = 2, character = 3 } }
local params = { textDocument = vim.lsp.util.make_text_document_params(), range = range,
  context = { diagnostics = {} } }
for _, r in pairs(vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 60000) or {}) do
  for _, a in ipairs(r.result or {}) do
    for _, edits in pairs(a.edit.changes) do
      for _, e in ipairs(edits) do
        table.insert(out, string.format("%s %d:%d-%d:%d %s", a.title, e.range.start.line,
          e.range.start.character, e.range["end"].line, e.range["end"].character, e.newText))
      end
    end
  end
end
vim.fn.writefile(out, vim.env.PROBE_OUT)
vim.cmd("qa!")
"""


@pytest.mark.skipif(shutil.which("nvim") is None, reason="no Neovim on this machine")
def test_the_documented_neovim_setup_for_0_7_diagnoses_and_offers_the_quick_fix(
    bundle: Path, tmp_path: Path
) -> None:
    page = (Path(__file__).parent.parent / "docs/editors.md").read_text(encoding="utf-8")
    setup = page.split("Neovim 0.7 to 0.10", 1)[1].split("```lua\n", 1)[1].split("```", 1)[0]
    config = tmp_path / "config/nvim"
    config.mkdir(parents=True)
    (config / "init.lua").write_text(setup, encoding="utf-8")
    (tmp_path / "probe.lua").write_text(NVIM_PROBE, encoding="utf-8")
    bin_dir = str(Path(sys.executable).parent)
    env = {
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PROBE_OUT": str(tmp_path / "out.txt"),
    }
    done = subprocess.run(
        ["nvim", "--headless", "specs/agents/scout.md", "-c", f"luafile {tmp_path / 'probe.lua'}"],
        cwd=bundle,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = (tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()
    assert "2:0 key-typo" in found
    assert "promptc: change `mod` to `mode` [key-typo] 2:0-2:3 mode" in found
