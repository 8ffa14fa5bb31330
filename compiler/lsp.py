"""`promptc lsp`: a language server over stdio (pygls, lsprotocol types).

Diagnostics are `promptc lint`'s: every run lints the whole bundle, the files
on disk under the editor's unsaved texts (Config.overlays), so an edit of a
fragment re-diagnoses every agent that includes it. A run reads every file
again but hands the session's api.Kept to api.lint: a file whose bytes did not
change keeps what the last run worked out from it (its load, schema problems,
composition, ...), each keyed by the texts it read, so an edit costs what it
touches and the diagnostics are still exactly a fresh lint's. Edits are
debounced (DELAY) so typing runs one lint per pause.
Definition, hover and completion are compiler.navigate's answers; code actions
are the fixes `promptc lint --fix` applies (compiler.fix), as workspace edits.

A promptc column counts code points; the editor's count the units the client
and server agreed on (UTF-16 unless the client offers otherwise): pygls's
position codec converts between them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from lsprotocol import types
from pygls import uris
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from compiler import __version__, api
from compiler.config import Config, load_config
from compiler.diagnostics import Diagnostic, Fix, Severity
from compiler.errors import PromptcError
from compiler.fix import apply as apply_fixes
from compiler.navigate import Item, Snapshot, complete, definition, hover

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
    whole bundle, but works again only on what changed)."""

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


# --- the server ---------------------------------------------------------------------

T = TypeVar("T")


class Server(LanguageServer):
    """The pygls server, with the session of its workspace and the pending run."""

    def __init__(self) -> None:
        super().__init__("promptc", __version__)
        self.session: Session | None = None
        self.pending: asyncio.TimerHandle | None = None
        self.snapshot: Snapshot | None = None

    def current(self) -> Session:
        if self.session is None:
            root = self.workspace.root_path or str(Path.cwd())
            self.session = Session(Path(root).resolve())
        return self.session

    def overlays(self) -> dict[Path, str]:
        """The open markdown documents' texts, by the path the bundle's walk finds them at."""
        found = {}
        for document in self.workspace.text_documents.values():
            if document.path and document.path.endswith(".md"):  # untitled: no path
                found[Path(document.path).resolve()] = document.source
        return found

    def changed(self) -> None:
        """An edit: the snapshot is stale; run once the edits pause."""
        self.snapshot = None
        if self.pending is not None:
            self.pending.cancel()
        self.pending = asyncio.get_running_loop().call_later(DELAY, self.run)

    def run(self) -> None:
        self.pending = None
        nothing: dict[Path, list[Diagnostic]] = {}
        found = self.guarded(lambda: self.current().diagnose(self.overlays()), nothing)
        for path, diagnostics in found.items():
            document = self._document(path)
            lines = document.source.split("\n") if document else _lines(path)
            uri = document.uri if document else uris.from_fs_path(str(path)) or path.as_uri()
            shown = [self._diagnostic(d, lines) for d in diagnostics]
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=shown)
            )

    def ask(self) -> Snapshot:
        if self.snapshot is None:
            self.snapshot = self.current().snapshot(self.overlays())
        return self.snapshot

    def guarded(self, question: Callable[[], T], otherwise: T) -> T:
        """The answer, or `otherwise` with the error logged: a broken bundle never
        stops the server."""
        try:
            return question()
        except Exception as exc:
            message = "".join(traceback.format_exception(exc))
            self.window_log_message(
                types.LogMessageParams(type=types.MessageType.Error, message=message)
            )
            return otherwise

    def _document(self, path: Path) -> TextDocument | None:
        document: TextDocument
        for document in self.workspace.text_documents.values():
            if document.path and Path(document.path).resolve() == path.resolve():
                return document
        return None

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

    def place(self, uri: str, position: types.Position) -> tuple[Path, int, int, str]:
        """The file, 1-based line and code-point column of a client position, and the text."""
        document = self.workspace.get_text_document(uri)
        text = document.source
        lines = text.split("\n")
        server = self.workspace.position_codec.position_from_client_units(lines, position)
        return Path(document.path).resolve(), server.line + 1, server.character + 1, text


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return []


def _bundle_file(uri: str) -> bool:
    path = uris.to_fs_path(uri)
    return path is not None and path.endswith((".md", ".toml"))


def serve() -> None:
    """Run the server on stdin and stdout until the client says exit."""
    _server().start_io()


def _server() -> Server:
    server = Server()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def edited(
        ls: Server, params: types.DidOpenTextDocumentParams | types.DidChangeTextDocumentParams
    ) -> None:
        if _bundle_file(params.text_document.uri):
            ls.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: Server, params: types.DidSaveTextDocumentParams) -> None:
        path = uris.to_fs_path(params.text_document.uri)
        if path is not None and ls.current().is_config(Path(path).resolve()):
            ls.current().reload()
        if _bundle_file(params.text_document.uri):
            ls.changed()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: Server, params: types.DidCloseTextDocumentParams) -> None:
        ls.changed()  # the file on disk stands again where the buffer stood

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def files_changed(ls: Server, params: types.DidChangeWatchedFilesParams) -> None:
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
    """Each fix `promptc lint --fix` would apply in this file within the range, and all of them."""
    uri = params.text_document.uri
    document = ls.workspace.get_text_document(uri)
    path = Path(document.path).resolve()
    fixable = [(d, d.fix) for d in ls.current().findings.get(path, []) if d.fix is not None]
    wanted = params.range
    found: list[types.CodeAction] = []
    for d, fix in fixable:
        first, last = min(d.line, fix.start) - 1, max(d.line, fix.end) - 1
        if last < wanted.start.line or first > wanted.end.line:
            continue
        title = f"promptc: fix [{d.rule}]: {d.message.splitlines()[0]}"
        found.append(_action(title, types.CodeActionKind.QuickFix, document, [fix]))
    if fixable:
        every = [fix for _, fix in fixable]
        kind = types.CodeActionKind.SourceFixAll
        found.append(_action("promptc: apply every fix in this file", kind, document, every))
    return found


def _action(
    title: str, kind: str, document: TextDocument, fixes: Sequence[Fix]
) -> types.CodeAction:
    """The fixes as one edit of the whole text, applied as `--fix` applies them."""
    text = document.source
    end = types.Position(len(text.split("\n")), 0)
    edit = types.TextEdit(
        range=types.Range(types.Position(0, 0), end), new_text=apply_fixes(text, fixes)
    )
    changes: dict[str, Any] = {document.uri: [edit]}
    return types.CodeAction(title=title, kind=kind, edit=types.WorkspaceEdit(changes=changes))
