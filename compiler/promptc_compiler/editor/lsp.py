"""`promptc lsp`: a language server over stdio (pygls, lsprotocol types).

Diagnostics are `promptc lint`'s: every run lints the whole bundle, the files
on disk under the editor's unsaved texts (Config.overlays), so an edit of a
fragment re-diagnoses every agent that includes it. A run reads every file
again but hands the session's api.Kept to api.lint: a file whose bytes did not
change is not parsed again, and the diagnostics are still exactly a fresh
lint's. Edits are
debounced (DELAY) so typing runs one lint per pause.
Definition, hover and completion are promptc_compiler.editor.navigate's answers; code actions
are the fixes `promptc lint --fix` applies (promptc_compiler.pipeline.fix), as workspace edits.

A promptc column counts code points; the editor's count the units the client
and server agreed on (UTF-16 unless the client offers otherwise): pygls's
position codec converts between them.

The messages are read here, not by pygls's loop (Frames, Server.listen): a
header it does not expect, or a body that is not JSON, left pygls deaf to
every later message or answered nothing. Here every request gets an answer
or a JSON-RPC error, a framing problem is logged and the reading goes on at
the next message, and the exit code is the protocol's (docs/robustness.md,
"The language server").
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import re
import sys
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, BinaryIO, NamedTuple, Protocol, TypeVar
from urllib.parse import unquote

from cattrs import transform_error
from lsprotocol import types
from pygls import uris
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
)
from pygls.workspace import TextDocument

from promptc_compiler import __version__, api
from promptc_compiler.base.diagnostics import Diagnostic, Severity
from promptc_compiler.base.errors import PromptcError
from promptc_compiler.base.files import read_regular
from promptc_compiler.core.config import Config, load_config
from promptc_compiler.core.loader import MAX_FILE_BYTES
from promptc_compiler.editor.navigate import Item, Snapshot, complete, definition, hover
from promptc_compiler.editor.quickfix import Edit, fix_edits, suggestion

DELAY = 0.1  # seconds without an edit before a run
SOURCE = "promptc"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    # `promptc lint` shows infos only with --verbose: a hint, which editors show quietly.
    Severity.INFO: types.DiagnosticSeverity.Hint,
}
_KIND = {
    "fragment": types.CompletionItemKind.Module,
    "parameter": types.CompletionItemKind.Variable,
    "value": types.CompletionItemKind.Value,
    "agent": types.CompletionItemKind.Reference,
    "key": types.CompletionItemKind.Property,
    "action": types.CompletionItemKind.EnumMember,
}
# `path:line:col: message`, as a ConfigError names the place in the config file.
_AT = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<message>.*)$", re.DOTALL)
# The token a diagnostic's position starts: a quoted key, or up to a blank or `:`.
_TOKEN = re.compile(r"\"[^\"]*\"|'[^']*'|[^\s:]+")


class Session:
    """One workspace's bundle as the editor has it: its config, the last run's
    findings, and what runs keep for the next (api.Kept: each run re-lints the
    whole bundle, but parses again only the files that changed)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config: Config | None = None
        self.findings: dict[Path, list[Diagnostic]] = {}  # the last run's, by file
        self.kept = api.Kept()

    def reload(self) -> None:
        """Read the config again at the next run (it was saved or changed on disk)."""
        self.config = None

    def diagnose(self, overlays: Mapping[Path, str]) -> dict[Path, list[Diagnostic]]:
        """Lint the bundle under `overlays`: every file's diagnostics, and an empty
        list for each file the previous run had findings in and this one has none."""
        try:
            run = api.lint(_overlaid(self._config(), overlays), kept=self.kept)
            diagnostics: Sequence[Diagnostic] = run.diagnostics
        except PromptcError as exc:  # a config the run cannot start with
            diagnostics = [_config_error(exc, self.root)]
        found: dict[Path, list[Diagnostic]] = {}
        for diagnostic in diagnostics:
            found.setdefault(Path.cwd() / diagnostic.path, []).append(diagnostic)
        cleared: dict[Path, list[Diagnostic]] = {p: [] for p in self.findings if p not in found}
        self.findings = found
        return {**cleared, **found}

    def snapshot(self, overlays: Mapping[Path, str]) -> Snapshot:
        return Snapshot(_overlaid(self._config(), overlays))

    def _config(self) -> Config:
        if self.config is None:
            self.config = load_config(cwd=self.root)
        return self.config

    def is_config(self, path: Path) -> bool:
        config = self.config
        return config is not None and config.source is not None and path == config.source


def _overlaid(config: Config, overlays: Mapping[Path, str]) -> Config:
    return dataclasses.replace(config, overlays=MappingProxyType(dict(overlays)))


def _config_error(exc: PromptcError, root: Path) -> Diagnostic:
    at = _AT.match(str(exc))
    if at is None:
        return Diagnostic(str(root), 1, 1, "config", Severity.ERROR, str(exc))
    line, column = int(at["line"]), int(at["column"])
    return Diagnostic(at["path"], line, column, "config", Severity.ERROR, at["message"])


# --- documents ----------------------------------------------------------------------


class Refused(Exception):
    """A document the server leaves alone, and why: its URI names no file
    promptc can read, or it is not open in the editor."""


def file_path(uri: str) -> Path:
    """The local file a document URI names, resolved; Refused saying why there is none."""
    try:
        path = uris.to_fs_path(uri)
    except ValueError:  # what urllib says of a malformed authority (`file://[x/`)
        path = None
    if path is None:
        scheme = uris.uri_scheme(uri) or "no scheme"
        raise Refused(f"not a file ({scheme}); promptc checks the files of a bundle")
    if "\x00" in path:  # what `%00` decodes to: no file system takes it in a name
        raise Refused("its path holds a NUL byte (%00), which no file name can")
    if not os.path.isabs(path):
        raise Refused(f"its path {path!r} is not absolute")
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name too long
        raise Refused(f"its path cannot be resolved: {exc}") from None


def _lines(path: Path) -> list[str]:
    """The lines of a file the editor has not opened, to place its diagnostics.
    Only a regular file under the loader's cap is read: a FIFO would never end."""
    try:
        raw = read_regular(path, MAX_FILE_BYTES, follow_symlinks=True)
    except OSError:
        return []
    return raw.decode("utf-8", errors="replace").split("\n")


def _resolved(path: Path) -> Path:
    """`path` with its symlinks resolved, as an open document's path is; as it is
    when it cannot be (a symlink loop)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def _bundle_file(path: Path) -> bool:
    return path.name.endswith((".md", ".toml"))


# --- the server ---------------------------------------------------------------------

T = TypeVar("T")


class ServerProtocol(LanguageServerProtocol):
    """pygls's protocol, with a message that does not fit its type refused
    without the traceback pygls would print (Server.receive answers it)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        """`data` as the lsprotocol message it is (pygls picks the type the
        same way); JsonRpcInvalidParams saying what does not fit, where."""
        method = data.get("method")
        kind: Any
        if "id" in data and "error" in data:
            kind = types.ResponseErrorMessage
        elif method is not None:
            fallback = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
            kind = self.get_message_type(method) or fallback
        else:  # the answer to a request of the server's, by its id
            kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
        try:
            return self._converter.structure(data, kind)
        except Exception as exc:  # cattrs' validation errors, and whatever a hook raises
            found = transform_error(exc)
            more = f" (and {len(found) - 3} more)" if len(found) > 3 else ""
            raise JsonRpcInvalidParams(f"Invalid Params: {'; '.join(found[:3])}{more}") from None


class Server(LanguageServer):
    """The pygls server, with the session of its workspace and the pending run."""

    def __init__(self) -> None:
        super().__init__("promptc", __version__, protocol_cls=ServerProtocol)
        self.session: Session | None = None
        self.pending: asyncio.TimerHandle | None = None
        self.snapshot: Snapshot | None = None
        self.stopping = False  # `shutdown` was answered: `exit` ends with 0
        self.out: StdoutWriter | None = None

    def current(self) -> Session:
        if self.session is None:
            self.session = Session(self._root())
        return self.session

    def _root(self) -> Path:
        uri = self.workspace.root_uri
        if uri:
            try:
                return file_path(uri)
            except Refused as exc:
                self.log(f"workspace folder {uri}: {exc}; the working directory stands for it")
        return Path.cwd().resolve()

    def opened(self) -> dict[Path, TextDocument]:
        """The open documents that are files, by their path. One whose URI names
        no file was refused when it was opened, and is left out."""
        found: dict[Path, TextDocument] = {}
        for document in self.workspace.text_documents.values():
            try:
                found[file_path(document.uri)] = document
            except Refused:
                continue
        return found

    def document(self, uri: str) -> tuple[Path, TextDocument]:
        """An open document and its file; Refused for a document that is not open
        (pygls would read it from disk, a FIFO too) or names no file."""
        document: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        if document is None:
            raise Refused("not open in the editor")
        return file_path(uri), document

    def refuse(self, uri: str, reason: Refused) -> None:
        """Say why an opened document is not checked: in the log, and on a file's
        URI as a diagnostic of its own. No other document is touched."""
        self.log(f"{uri} is not checked: {reason}", types.MessageType.Warning)
        if uris.uri_scheme(uri) != "file":
            return  # an untitled buffer or a diff view: the log is enough
        start = types.Position(0, 0)
        shown = types.Diagnostic(
            range=types.Range(start, start),
            message=f"promptc cannot check this document: {reason}",
            severity=types.DiagnosticSeverity.Error,
            source=SOURCE,
        )
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[shown])
        )

    def changed(self) -> None:
        """An edit: the snapshot is stale; run once the edits pause."""
        self.snapshot = None
        if self.pending is not None:
            self.pending.cancel()
        self.pending = asyncio.get_running_loop().call_later(DELAY, self.run)

    def run(self) -> None:
        self.pending = None
        opened = self.opened()
        nothing: dict[Path, list[Diagnostic]] = {}
        found = self.guarded(lambda: self.current().diagnose(_overlays(opened)), nothing)
        for path, diagnostics in found.items():
            document = opened.get(path) or opened.get(_resolved(path))
            lines = document.source.split("\n") if document else _lines(path)
            uri = document.uri if document else uris.from_fs_path(str(path)) or path.as_uri()
            shown = [self._diagnostic(d, lines) for d in diagnostics]
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=shown)
            )

    def ask(self) -> Snapshot:
        if self.snapshot is None:
            self.snapshot = self.current().snapshot(_overlays(self.opened()))
        return self.snapshot

    def guarded(self, question: Callable[[], T], otherwise: T) -> T:
        """The answer, or `otherwise` with the error logged: a broken bundle never
        stops the server."""
        try:
            return question()
        except Refused:
            return otherwise  # said when the document was opened, or not open at all
        except Exception as exc:
            self.log("".join(traceback.format_exception(exc)), types.MessageType.Error)
            return otherwise

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def _diagnostic(self, d: Diagnostic, lines: Sequence[str]) -> types.Diagnostic:
        line = max(d.line - 1, 0)
        text = lines[line] if line < len(lines) else ""
        start = min(max(d.column - 1, 0), len(text))
        token = _TOKEN.match(text, start)
        end = token.end() if token else start
        codec = self.workspace.position_codec
        where = codec.range_to_client_units(
            lines,
            types.Range(types.Position(line, start), types.Position(line, end)),
        )
        message = f"{d.message}\n{d.hint}" if d.hint else d.message
        return types.Diagnostic(
            range=where,
            message=message,
            severity=_SEVERITY[d.severity],
            code=d.rule,
            source=SOURCE,
        )

    def action(
        self, title: str, document: TextDocument, edits: Sequence[Edit], d: Diagnostic | None = None
    ) -> types.CodeAction:
        """A quick fix for `d` (a fix-all without it) as text edits in the client's units."""
        lines = document.source.split("\n")
        codec = self.workspace.position_codec
        changes: dict[str, Any] = {
            document.uri: [
                types.TextEdit(
                    range=codec.range_to_client_units(
                        lines, types.Range(types.Position(*e.start), types.Position(*e.end))
                    ),
                    new_text=e.text,
                )
                for e in edits
            ]
        }
        kind = types.CodeActionKind.QuickFix if d else types.CodeActionKind.SourceFixAll
        return types.CodeAction(
            title=title,
            kind=kind,
            diagnostics=[self._diagnostic(d, lines)] if d else None,
            edit=types.WorkspaceEdit(changes=changes),
        )

    def place(self, uri: str, position: types.Position) -> tuple[Path, int, int, str]:
        """The file, 1-based line and code-point column of a client position, and the text."""
        path, document = self.document(uri)
        text = document.source
        lines = text.split("\n")
        server = self.workspace.position_codec.position_from_client_units(lines, position)
        return path, server.line + 1, server.character + 1, text

    # --- reading and answering messages ---

    def listen(self, stdin: Input, stdout: BinaryIO) -> int:
        """Answer the messages on `stdin` until `exit` or the end of the input; the
        exit code the protocol asks for: 0 after `shutdown`, 1 without."""
        self.out = StdoutWriter(stdout)
        self.protocol.set_writer(self.out)
        try:
            return asyncio.run(self._listen(Frames(stdin)))
        except (BrokenPipeError, KeyboardInterrupt):  # the editor went away, or Ctrl-C
            return 1

    async def _listen(self, frames: Frames) -> int:
        loop = asyncio.get_running_loop()
        arrived: asyncio.Queue[Frame] = asyncio.Queue()
        # A daemon thread, not pygls's pool: a read still waiting on stdin when
        # the server ends must not keep the process alive.
        reader = threading.Thread(
            target=_read_all, args=(frames, loop, arrived), name="promptc lsp", daemon=True
        )
        reader.start()
        while True:
            frame = await arrived.get()
            for problem in frame.problems:
                self.framing(problem)
            if frame.body is not None:
                try:
                    self.receive(frame.body)
                except SystemExit as exc:  # pygls's `exit`: 0 after `shutdown`, else 1
                    return exc.code if isinstance(exc.code, int) else 1
            if frame.ended:
                return 0 if self.stopping else 1

    def framing(self, problem: str) -> None:
        """A framing problem: on stderr, which editors keep as the server's log,
        and in the client's log, for a client that still reads."""
        print(f"promptc lsp: {problem}", file=sys.stderr, flush=True)
        self.log(problem, types.MessageType.Warning)

    def receive(self, body: bytes) -> None:
        """Hand one message to pygls, or answer it with the JSON-RPC error it earns."""
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            self.framing(f"a message that is not JSON ({exc}); answered with a parse error")
            self.reply_error(None, JsonRpcParseError(f"Parse Error: not JSON: {exc}"))
            return
        if not isinstance(data, dict):
            self.reply_error(None, JsonRpcInvalidRequest("Invalid Request: not a JSON object"))
            return
        msg_id = data.get("id")
        request = "id" in data and "method" in data
        wrong = _malformed(data)
        if wrong is not None:
            if request or "method" not in data:  # a notification is never answered
                self.reply_error(_usable_id(msg_id), JsonRpcInvalidRequest(wrong))
            self.log(wrong, types.MessageType.Warning)
            return
        if self.stopping and data.get("method") != types.EXIT:
            if request:  # pygls would drop it, and the client wait for good
                self.reply_error(msg_id, JsonRpcInvalidRequest("Invalid Request: shut down"))
            return
        try:
            message = self.protocol.structure_message(data)
        except JsonRpcException as exc:
            if request:
                self.reply_error(msg_id, exc)
            self.log(f"{data.get('method', 'a response')}: {exc.message}")
            return
        self.protocol.handle_message(message)

    def reply_error(self, msg_id: int | str | None, error: JsonRpcException) -> None:
        """An error response, written here: lsprotocol would leave out an `id` of null,
        which JSON-RPC requires when the request's id could not be read."""
        if self.out is None:
            return
        answer = {"code": error.code, "message": error.message}
        self.out.write(_framed({"jsonrpc": "2.0", "id": msg_id, "error": answer}))


def _overlays(opened: Mapping[Path, TextDocument]) -> dict[Path, str]:
    """The open markdown documents' texts, by the path the bundle's walk finds them at."""
    return {path: d.source for path, d in opened.items() if path.name.endswith(".md")}


def _malformed(data: dict[str, Any]) -> str | None:
    """What makes `data` no JSON-RPC 2.0 message, if anything."""
    if data.get("jsonrpc") != "2.0":
        return 'Invalid Request: "jsonrpc" is not "2.0"'
    if "method" in data and not isinstance(data["method"], str):
        return 'Invalid Request: "method" is not a string'
    if "id" in data and _usable_id(data["id"]) is None:
        return 'Invalid Request: "id" is neither a string nor a number'
    if "method" not in data and "result" not in data and "error" not in data:
        return 'Invalid Request: neither "method" nor "result" nor "error"'
    if "method" not in data and "id" not in data:
        return 'Invalid Request: a response without "id"'
    return None


def _usable_id(value: object) -> int | str | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return value


def _framed(payload: object) -> bytes:
    body = json.dumps(payload).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_all(frames: Frames, loop: asyncio.AbstractEventLoop, into: asyncio.Queue[Frame]) -> None:
    """Read frames until the input ends, each handed to the server's loop."""
    while True:
        try:
            frame = frames.next()
        except Exception as exc:  # stdin itself failed: the server must not wait on
            frame = Frame(None, (f"reading the input failed: {exc}",), ended=True)
        try:
            loop.call_soon_threadsafe(into.put_nowait, frame)
        except RuntimeError:  # the loop is closed: the server has ended
            return
        if frame.ended:
            return


# --- reading messages ---------------------------------------------------------------

MAX_MESSAGE_BYTES = 64 << 20  # a longer message is skipped, never held: no buffer is this long
_PIECE = 1 << 16  # a line is read in pieces of at most this many bytes
_TAIL = 256  # what is kept of a line longer than a piece: enough to end in a header
# A header is a token, a colon and a value (RFC 9110's field syntax).
_HEADER = re.compile(rb"([!#$%&'*+\-.^_`|~0-9A-Za-z]+):(.*)")
# A Content-Length header at the end of a line that is no header: what follows
# a body whose length was wrong, glued to the next message's headers.
_GLUED = re.compile(rb"content-length[ \t]*:[ \t]*(\d+)[ \t]*\Z", re.IGNORECASE)


class Input(Protocol):
    """What Frames reads from: io.BytesIO, or FdInput."""

    def readline(self, limit: int, /) -> bytes: ...

    def read(self, size: int, /) -> bytes: ...


class FdInput:
    """A file descriptor's bytes (stdin's), read with os.read and buffered here.

    Not sys.stdin.buffer: the reading thread waits inside it holding its lock,
    and when the server ends the interpreter, closing sys.stdin, finds the
    lock held and aborts (exit code -6 instead of the protocol's)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()

    def readline(self, limit: int, /) -> bytes:
        """Up to and including the next LF, at most `limit` bytes; b"" at the end."""
        searched = 0
        while (end := self.buffer.find(b"\n", searched, limit)) < 0:
            searched = len(self.buffer)
            if searched >= limit or not self._fill(_PIECE):
                return self._take(min(limit, len(self.buffer)))
        return self._take(end + 1)

    def read(self, size: int, /) -> bytes:
        """`size` bytes, fewer only at the end of the input."""
        while len(self.buffer) < size and self._fill(size - len(self.buffer)):
            pass
        return self._take(min(size, len(self.buffer)))

    def _fill(self, wanted: int) -> bool:
        chunk = os.read(self.fd, max(wanted, _PIECE))
        self.buffer += chunk
        return bool(chunk)

    def _take(self, size: int) -> bytes:
        taken = bytes(self.buffer[:size])
        del self.buffer[:size]
        return taken


class Frame(NamedTuple):
    """The next message's body as read off the input (None when there is none
    to hand on), what was wrong with the framing on the way to it, and whether
    the input ended."""

    body: bytes | None
    problems: tuple[str, ...] = ()
    ended: bool = False


class Frames:
    """The messages of a byte stream, framed as the protocol frames them: header
    lines (`Content-Length: N`), a blank line, then N bytes of body.

    Lenient where the intent is plain and loud where it is not: header lines
    that end in LF alone are read as if they ended in CRLF (said once); headers
    without a usable Content-Length are said and skipped, up to the next line
    that is or ends in a Content-Length header, where a body whose length was
    missing or wrong, glued to the next message's headers, ends.
    """

    def __init__(self, stream: Input) -> None:
        self.stream = stream
        self.lf_said = False

    def next(self) -> Frame:
        problems: list[str] = []
        length: int | None = None
        headers = False  # a header line was read, so a blank line ends a header block
        said = False  # what was wrong with its Content-Length was said
        skipped = 0  # bytes of lines that were no header
        while True:
            line, dropped = self._line()
            if not line:
                return Frame(None, (*problems, *_skipped(skipped)), ended=True)
            text = line[:-2] if line.endswith(b"\r\n") else line.removesuffix(b"\n")
            header = _HEADER.fullmatch(text)
            if header is None and text:
                glued = _GLUED.search(text)
                found = _length(glued[1]) if glued else None
                if glued is None or found is None:
                    skipped += dropped + len(line)
                    continue
                skipped += dropped + len(text) - len(glued[0])
                length, headers = found, True
                continue
            self._say_lf(line, problems)
            if header is None:  # a blank line: the headers end
                if length is not None:
                    return self._body(length, [*problems, *_skipped(skipped)])
                if headers and not said:
                    problems.append("a message without a Content-Length header; skipped")
                headers = said = False
                continue
            headers = True
            if header[1].lower() == b"content-length":
                value = header[2].strip()
                length = _length(value)
                if length is None:
                    shown = value[:40].decode("ascii", "replace")
                    problems.append(f"Content-Length {shown!r} is not a number of bytes")
                    said = True

    def _body(self, length: int, problems: list[str]) -> Frame:
        if length > MAX_MESSAGE_BYTES:
            got = self._skip(length)
            problems.append(
                f"a message of {length:,} bytes, past the {MAX_MESSAGE_BYTES:,} promptc reads;"
                " skipped"
            )
            return Frame(None, tuple(problems), ended=got < length)
        body = self.stream.read(length)
        if len(body) < length:
            problems.append(f"the input ended {len(body):,} bytes into a message of {length:,}")
            return Frame(None, tuple(problems), ended=True)
        return Frame(body, tuple(problems))

    def _line(self) -> tuple[bytes, int]:
        """The next line with its ending (b"" at the end of the input) and how many
        bytes of it were dropped: of a line longer than a piece, only the end is kept."""
        line = self.stream.readline(_PIECE)
        dropped = 0
        while len(line) >= _PIECE and not line.endswith(b"\n"):
            more = self.stream.readline(_PIECE)
            if not more:
                break
            dropped += len(line) - _TAIL
            line = line[-_TAIL:] + more
        return line, dropped

    def _skip(self, length: int) -> int:
        """Read past `length` bytes without holding them; how many there were."""
        got = 0
        while got < length:
            chunk = self.stream.read(min(_PIECE, length - got))
            if not chunk:
                break
            got += len(chunk)
        return got

    def _say_lf(self, line: bytes, problems: list[str]) -> None:
        if not self.lf_said and not line.endswith(b"\r\n") and line.endswith(b"\n"):
            self.lf_said = True
            problems.append("header lines end in LF alone, not CRLF; read all the same")


def _length(digits: bytes) -> int | None:
    """A Content-Length's number; None for anything else, and for more digits
    than any length has (int() refuses thousands of them, slowly)."""
    return int(digits) if digits.isdigit() and len(digits) <= 18 else None


def _skipped(count: int) -> tuple[str, ...]:
    return (f"skipped {count:,} bytes that were no message",) if count else ()


def serve() -> int:
    """Run the server on stdin and stdout until the client says exit; the exit code."""
    return _server().listen(FdInput(sys.stdin.fileno()), sys.stdout.buffer)


def _server() -> Server:
    server = Server()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: Server, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        try:
            path = file_path(uri)
        except Refused as exc:
            ls.refuse(uri, exc)
            return
        if _bundle_file(path):
            ls.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: Server, params: types.DidChangeTextDocumentParams) -> None:
        if ls.guarded(lambda: _bundle_file(file_path(params.text_document.uri)), False):
            ls.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: Server, params: types.DidSaveTextDocumentParams) -> None:
        path = ls.guarded(lambda: file_path(params.text_document.uri), None)
        if path is None:
            return
        if ls.current().is_config(path):
            ls.current().reload()
        if _bundle_file(path):
            ls.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: Server, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if ls.guarded(lambda: file_path(uri), None) is None:  # its refusal goes with it
            empty = types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            ls.text_document_publish_diagnostics(empty)
            return
        ls.changed()  # the file on disk stands again where the buffer stood

    @server.feature(types.SHUTDOWN)
    def on_shutdown(ls: Server, _params: None) -> None:
        ls.stopping = True
        if ls.pending is not None:  # no run after the answer: the client is leaving
            ls.pending.cancel()
            ls.pending = None

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def files_changed(ls: Server, _params: types.DidChangeWatchedFilesParams) -> None:
        ls.current().reload()
        ls.changed()

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def goto(ls: Server, params: types.DefinitionParams) -> list[types.Location] | None:
        def answer() -> list[types.Location]:
            path, line, column, _ = ls.place(params.text_document.uri, params.position)
            return [
                _location(place.path, place.line)
                for place in definition(ls.ask(), path, line, column)
            ]

        return ls.guarded(answer, None) or None

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: Server, params: types.HoverParams) -> types.Hover | None:
        def answer() -> types.Hover | None:
            path, line, column, _ = ls.place(params.text_document.uri, params.position)
            text = hover(ls.ask(), path, line, column)
            if text is None:
                return None
            content = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
            return types.Hover(contents=content)

        return ls.guarded(answer, None)

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=["<", "(", ",", "=", '"', " "]),
    )
    def on_complete(ls: Server, params: types.CompletionParams) -> types.CompletionList:
        def answer() -> list[types.CompletionItem]:
            path, line, column, text = ls.place(params.text_document.uri, params.position)
            return [_item(item) for item in complete(ls.ask(), path, text, line, column)]

        return types.CompletionList(is_incomplete=False, items=ls.guarded(answer, []))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll]
        ),
    )
    def actions(ls: Server, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.guarded(lambda: _actions(ls, params), [])

    return server


def _location(path: Path, line: int) -> types.Location:
    start = types.Position(line - 1, 0)
    uri = uris.from_fs_path(str(path)) or path.as_uri()
    return types.Location(uri=uri, range=types.Range(start, start))


def _item(item: Item) -> types.CompletionItem:
    return types.CompletionItem(
        label=item.label,
        kind=_KIND.get(item.kind),
        detail=item.detail or None,
        insert_text=item.insert,
    )


def _actions(ls: Server, params: types.CodeActionParams) -> list[types.CodeAction]:
    """Within the range: each fix `promptc lint --fix` would apply and each did-you-mean, as
    the smallest edits; and every fix of the file at once."""
    path, document = ls.document(params.text_document.uri)
    text, wanted = document.source, params.range
    findings = ls.current().findings.get(path, [])
    found: list[types.CodeAction] = []
    for d in findings:
        first, last = d.line - 1, (max(d.line, d.fix.end) if d.fix else d.line) - 1
        if d.fix is not None:
            first = min(first, d.fix.start - 1)
        if last < wanted.start.line or first > wanted.end.line:
            continue
        if d.fix is not None:
            title = f"promptc: fix [{d.rule}]: {d.message.splitlines()[0]}"
            found.append(ls.action(title, document, fix_edits(text, [d.fix]), d))
        guess = suggestion(d, text)
        if guess is not None:
            title = f"promptc: change `{guess[0]}` to `{guess[1]}` [{d.rule}]"
            found.append(ls.action(title, document, [guess[2]], d))
    fixes = [d.fix for d in findings if d.fix is not None]
    if fixes:
        every = ls.action("promptc: apply every fix in this file", document, fix_edits(text, fixes))
        found.append(every)
    return found
