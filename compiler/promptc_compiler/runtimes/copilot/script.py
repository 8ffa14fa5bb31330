"""The preToolUse hook promptc writes into a Copilot CLI agent file, and what it decides.

Copilot CLI (1.0.102) runs an agent file's own `hooks.preToolUse` commands
before each tool call of that agent, whether it runs as the main session
(`copilot --agent`) or was started by `task`, and never for another agent's
calls. The hook reads the call as JSON on stdin (`toolName`, `toolArgs`, and
`parentAgentId` when a parent agent started it) and answers with
`{"permissionDecision": "allow" | "ask" | "deny"}`: allow runs the call
unasked, ask asks the user, deny refuses it; a hook that fails refuses the
call. promptc writes one such hook per agent: a POSIX shell script (Copilot
runs a hook's `bash` command on Linux and macOS, its `powershell` one on
Windows, where promptc's refuses every call) made of a fixed part, below,
and tables: shell functions of one `case` each, in the order the script
reads them, which say what OpenCode decides for a value.

The script reads the JSON as text, in the C locale, and takes each argument
it needs as the JSON string it is (escapes kept), refusing a call where the
argument is missing or written twice. A value is *plain* when it holds only
printable ASCII and no backslash (so no quote or escape either); the
`<permission>_<context>` table decides a plain value as OpenCode's rules do,
last rule first; any other value goes to `<permission>_<context>_odd`, which
refuses where a deny rule could decide it and asks otherwise. `m` is the
context of the main session, `s` of a subagent. In detail:

- `bash`: a line made only of plain commands joined by `;`, `&` and `|`
  (or one command with double-quoted words, `git commit -m "fix"`), naming
  no absolute, home or parent path and no command opening with a reserved
  word, is split at those operators; each command but a folder
  change is decided by `bash_<c>` (a deny refuses the line, an ask asks).
  Any other line goes to `bash_<c>_odd`, and to `folders_<c>` (OpenCode's
  `external_directory`) when it holds a `/` or a `~`.
- `view` (read and list), `create` and `edit` (edit): the path relative to
  the project folder (git's top level, else the session's folder), when it
  is under it and plain with no `.`, `..` or empty segment, by the tables of
  the permissions (`view` by both `read` and `list`); any other path by
  their `_odd` tables and `folders_<c>`.
- `grep`, `glob`: the pattern, and `folders_<c>` for a `path` outside the
  project; `skill`, `web_fetch` (`url`), `web_search` (`query`): the value;
  `task`: `task_<c>`, which names every agent OpenCode's rules let it start;
  `sql` (the todo list): `todowrite_<c>`; `ask_user`: `question_<c>`.
- `write_bash` (input typed into a running command: OpenCode has none) is
  refused; `read_bash`, `stop_bash`, `list_bash` run; any other tool is left
  to Copilot.

`decide` answers as the script does, for the decision model
(promptc_compiler.runtimes.copilot.decide); tests/test_decisions_copilot.py runs the real
script in sh on every call of the matrix and compares.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from promptc_compiler.runtimes import globs
from promptc_compiler.runtimes.globs import Star

ACTIONS = ("allow", "ask", "deny")
# Commands OpenCode never asks the bash permission for (promptc_compiler.permissions.shell).
FOLDER_COMMANDS = ("cd", "chdir", "popd", "pushd", "push-location", "set-location")
# Words that open a compound command: a line with one is not split by the script.
RESERVED = (
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "do",
    "done",
    "while",
    "until",
    "for",
    "case",
    "esac",
    "select",
    "function",
    "time",
    "coproc",
    "!",
)
BOUNDARY = "[!A-Za-z0-9_./-]"  # a character that cannot go on a word

# A pattern is a tuple of tokens: a literal string, STAR (`*`), ONE (`?`),
# EDGE (BOUNDARY) or HOME (`"$HOME"`).
STAR = "\x00*"
ONE = "\x00?"
EDGE = "\x00|"
HOME = "\x00~"  # the home folder, as OpenCode expands `~/` and `$HOME` in a pattern
TOKENS = (STAR, ONE, EDGE, HOME)
Token = str
Pattern = tuple[Token, ...]


class Table(NamedTuple):
    """One shell function: `name() { case $1 in ...) echo action ;; ... esac; }`."""

    name: str
    items: tuple[tuple[tuple[Pattern, ...], str], ...]  # (alternatives, action), in order

    def case(self, home: str) -> Case:
        """The table as sh matches a value against it, for a user whose home folder
        is `home`: each pattern in linear time (promptc_compiler.runtimes.globs)."""
        return Case(
            tuple(
                (tuple(_star(pattern, home) for pattern in alternatives), action)
                for alternatives, action in self.items
            )
        )


class Case(NamedTuple):
    items: tuple[tuple[tuple[Star, ...], str], ...]  # (alternatives, action), in order

    def decide(self, value: str) -> str:
        """The action of the first item with a pattern matching the value, as `case`."""
        for alternatives, action in self.items:
            if any(pattern.matches(value) for pattern in alternatives):
                return action
        return "ask"  # unreachable for a table promptc writes: its last item is `*`


class Hook(NamedTuple):
    agent: str  # the agent's name, in the reasons the script gives
    contexts: str  # "m" (main session only), "s" (subagent only) or "ms"
    tables: Mapping[str, Table]

    def cases(self, home: str, known: dict[Table, Case]) -> Cases:
        """The hook as it runs for a user whose home folder is `home`. `known`: the
        tables already read for that home (a load of many agents' files: they share
        most tables, and 1,000 agents' read one by one took 11% of their build)."""
        tables = {}
        for name, table in self.tables.items():
            found = known.get(table)
            if found is None:
                found = known[table] = table.case(home)
            tables[name] = found
        return Cases(self, home, tables)


class Cases(NamedTuple):
    """A hook with each of its tables as sh matches a value against it (Table.case)."""

    hook: Hook
    home: str
    tables: Mapping[str, Case]


# --- the script ------------------------------------------------------------------------------


def render(hook: Hook) -> str:
    """The hook's shell script."""
    head = _HEAD.replace("AGENT", hook.agent)
    tables = "".join(_table(t) for t in hook.tables.values())
    return head + tables + _CONTEXT[hook.contexts] + _TAIL


def _table(table: Table) -> str:
    lines = [f"{table.name}() {{\n", "  case $1 in\n"]
    for alternatives, action in table.items:
        words = "|".join(_word(p) for p in alternatives)
        lines.append(f"    {words}) echo {action} ;;\n")
    lines.append("  esac\n}\n")
    return "".join(lines)


def _word(pattern: Pattern) -> str:
    if not pattern:
        return "''"
    out = []
    for token in pattern:
        if token == STAR:
            out.append("*")
        elif token == ONE:
            out.append("?")
        elif token == EDGE:
            out.append(BOUNDARY)
        elif token == HOME:
            out.append('"$HOME"')
        else:
            out.append("\\'".join(f"'{part}'" if part else "" for part in token.split("'")))
    return "".join(out)


_HEAD = """\
# promptc: OpenCode's permission rules for AGENT, decided for each tool call.
# Written by promptc from the agent's spec (see TRANSLATION.md): edit the spec, not this.
LC_ALL=C
export LC_ALL
say() {
  case $1 in
    allow) printf '{"permissionDecision":"allow"}\\n' ;;
    ask) printf '{"permissionDecision":"ask","permissionDecisionReason":"%s"}\\n' \\
      "OpenCode's rules for AGENT ask before this call" ;;
    *) printf '{"permissionDecision":"deny","permissionDecisionReason":"%s"}\\n' \\
      "OpenCode's rules for AGENT deny this call" ;;
  esac
  exit 0
}
i=$(cat)
[ -n "${HOME:-}" ] || say deny
one() {
  case $i in
    *"\\"$1\\":\\""*"\\"$1\\":\\""*) return 1 ;;
    *"\\"$1\\":\\""*)
      printf '%s\\n' "$i" | sed -n -E 's/.*"'"$1"'":"(([^"\\\\]|\\\\.)*)".*/\\1/p' ;;
    *) return 1 ;;
  esac
}
printable() {
  [ -z "$(printf '%s' "$1" | tr -d ' -~')" ]
}
value() {
  if printable "$2"; then
    case $2 in
      *\\\\*) ;;
      *) "$1_$x" "$2"; return ;;
    esac
  fi
  "$1_$x"_odd "$2"
}
root() {
  git rev-parse --show-toplevel 2>/dev/null || one cwd
}
plain_path() {
  printable "$1" || return 1
  case $1 in
    .) return 0 ;;
    ''|*\\\\*|*//*|./*|../*|..|*/./*|*/../*|*/|*/.|*/..) return 1 ;;
  esac
}
odd() {
  d=$("$1_$x"_odd "$2")
  if [ "$d" = ask ]; then
    case $3 in
      */* | *~*) d=$(folders_$x "$3") ;;
    esac
  fi
  say "$d"
}
file() {
  p=$(one path) || say deny
  r=$(root) || say deny
  case $p in
    "$r") rel=. ;;
    "$r"/*) rel=${p#"$r"/} ;;
    *) rel= ;;
  esac
  d=allow
  for perm in "$@"; do
    if [ -n "$rel" ] && plain_path "$rel"; then
      e=$("$perm"_$x "$rel")
    else
      e=$("$perm"_$x"_odd" "$p")
      [ "$e" = ask ] && e=$(folders_$x "$p")
    fi
    case $e in
      allow) ;;
      ask) d=ask ;;
      *) say deny ;;
    esac
  done
  say "$d"
}
search() {
  v=$(one pattern) || say deny
  d=$(value "$1" "$v")
  case $i in
    *'"path":"'*)
      p=$(one path) || say deny
      r=$(root) || say deny
      case $p in
        "$r" | "$r"/*) ;;
        *)
          e=$(folders_$x "$p")
          [ "$e" = ask ] || say deny
          [ "$d" = allow ] && d=ask
          ;;
      esac
      ;;
  esac
  say "$d"
}
line() {
  c=$(one command) || say deny
  [ -n "$c" ] || say deny
  printable "$c" || odd bash "$c" "$c"
  q=$c
  case $c in
    *\\\\\\"*)
      q=$(printf '%s\\n' "$c" | sed 's/\\\\"/"/g')
      case $q in
        *\\;* | *\\&* | *\\|*) odd bash "$c" "$c" ;;
      esac
      ;;
  esac
  case $q in
    *\\\\* | *\\'* | *\\`* | *\\$* | *\\(* | *\\)* | *\\{*) odd bash "$c" "$c" ;;
    *\\}* | *\\<* | *\\>* | *\\#* | *\\[* | *\\]*) odd bash "$c" "$c" ;;
    /* | ~* | *' /'* | *' ~'* | *'"/'* | *'"~'* | *..*) odd bash "$c" "$c" ;;
    *[\\;\\&\\|]/* | *[\\;\\&\\|]~*) odd bash "$c" "$c" ;;
  esac
  d=allow
  rest=$q
  while [ -n "$rest" ]; do
    piece=${rest%%[\\;\\&\\|]*}
    case $rest in
      *[\\;\\&\\|]*) rest=${rest#*[\\;\\&\\|]} ;;
      *) rest= ;;
    esac
    piece=${piece#"${piece%%[! ]*}"}
    piece=${piece%"${piece##*[! ]}"}
    [ -n "$piece" ] || continue
    first=${piece%% *}
    case $first in
      FOLDERS) continue ;;
      RESERVED) odd bash "$c" "$c" ;;
    esac
    e=$(bash_$x "$piece")
    case $e in
      allow) ;;
      ask) d=ask ;;
      *) say deny ;;
    esac
  done
  say "$d"
}
"""
_CONTEXT = {
    "m": "x=m\n",
    "s": "x=s\n",
    "ms": 'x=m\ncase $i in\n  *\'"parentAgentId":"\'*) x=s ;;\nesac\n',
}
_TAIL = """\
case $i in
  *'"parentAgentId":"'*'"parentAgentId":"'*) say deny ;;
esac
t=$(one toolName) || say deny
case $t in
  bash) line ;;
  view) file read list ;;
  create | edit) file edit ;;
  grep) search grep ;;
  glob) search glob ;;
  task) v=$(one agent_type) || say deny; say "$(task_$x "$v")" ;;
  skill) v=$(one skill) || say deny; say "$(value skill "$v")" ;;
  web_fetch) v=$(one url) || say deny; say "$(value webfetch "$v")" ;;
  web_search) v=$(one query) || say deny; say "$(value websearch "$v")" ;;
  sql) say "$(todowrite_$x)" ;;
  ask_user) say "$(question_$x)" ;;
  write_bash) say deny ;;
  read_bash | stop_bash | list_bash) say allow ;;
esac
exit 0
"""
_HEAD = _HEAD.replace("FOLDERS", " | ".join(FOLDER_COMMANDS)).replace(
    "RESERVED", " | ".join(r if r != "!" else "\\!" for r in RESERVED)
)


# --- reading a script back ---------------------------------------------------------------------

_TABLE = re.compile(
    r"([a-z_]+)\(\) \{\n  case \$1 in\n((?:    .*\) echo (?:allow|ask|deny) ;;\n)+)  esac\n\}\n"
)
_ITEM = re.compile(r"    (.*)\) echo (allow|ask|deny) ;;")
_AGENT = re.compile(r"# promptc: OpenCode's permission rules for ([a-z0-9][a-z0-9_-]*), decided")


def parse(script: str) -> Hook | None:
    """The hook a script promptc wrote holds, or None for any other script (the
    decision model cannot tell what that one decides)."""
    found = _AGENT.match(script)
    if found is None:
        return None
    agent = found[1]
    head = _HEAD.replace("AGENT", agent)
    if not script.startswith(head):
        return None
    rest = script[len(head) :]
    tables: dict[str, Table] = {}
    while (match := _TABLE.match(rest)) is not None:
        items = []
        for line in match[2].splitlines():
            item = _ITEM.fullmatch(line)
            words = _words(item[1]) if item else None
            if item is None or words is None:
                return None
            items.append((words, item[2]))
        tables[match[1]] = Table(match[1], tuple(items))
        rest = rest[match.end() :]
    for contexts, text in _CONTEXT.items():
        if rest == text + _TAIL:
            hook = Hook(agent, contexts, tables)
            return hook if render(hook) == script else None
    return None


def _words(text: str) -> tuple[Pattern, ...] | None:
    """The alternatives of a case item (`'a'*|'b'`), or None for any other text."""
    found: list[Pattern] = []
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None
            _literal(tokens, text[i + 1 : end])
            i = end + 1
        elif text.startswith("\\'", i):
            _literal(tokens, "'")
            i += 2
        elif char in "*?":
            tokens.append(STAR if char == "*" else ONE)
            i += 1
        elif text.startswith(BOUNDARY, i):
            tokens.append(EDGE)
            i += len(BOUNDARY)
        elif text.startswith('"$HOME"', i):
            tokens.append(HOME)
            i += len('"$HOME"')
        elif char == "|":
            found.append(tuple(tokens))
            tokens = []
            i += 1
        else:
            return None
    found.append(tuple(tokens))
    return tuple(found)


def _literal(tokens: list[Token], text: str) -> None:
    if tokens and tokens[-1] not in TOKENS:
        tokens[-1] += text
    else:
        tokens.append(text)


def _star(pattern: Pattern, home: str) -> Star:
    """A case pattern as sh matches it, in the C locale (one byte is one
    character: every value a pattern with `?` meets is printable ASCII)."""
    parts: list[str] = []
    for token in pattern:
        if token == STAR:
            parts.append(globs.STAR)
        elif token in _PART:
            parts.append(_PART[token])
        else:
            parts += map(re.escape, home if token == HOME else token)
    return Star.of(parts)


_PART = {ONE: ".", EDGE: "[^A-Za-z0-9_./-]"}


# --- what the script decides ----------------------------------------------------------------


def escaped(value: str) -> str:
    """A string value as Copilot writes it in the hook's JSON (escapes kept)."""
    return json.dumps(value, ensure_ascii=False)[1:-1]


def decide(cases: Cases, tool: str, args: Mapping[str, str], parent: bool, root: str) -> str | None:
    """What the script answers for a call of `tool` with these string arguments,
    made by a subagent (`parent`) or the main session, in a project whose folder
    is `root`, for the user whose home folder the `cases` are for: allow, ask or
    deny, or None where it leaves the call to Copilot."""
    if not cases.home:
        return "deny"
    contexts = cases.hook.contexts
    x = "s" if contexts == "s" or (contexts == "ms" and parent) else "m"
    run = _Run(cases.tables, x, {k: escaped(v) for k, v in args.items()}, escaped(root))
    return run.tool(tool)


class _Run(NamedTuple):
    tables: Mapping[str, Case]
    x: str
    args: Mapping[str, str]  # JSON-escaped
    root: str

    def table(self, name: str, value: str = "") -> str:
        """A table's answer; a missing one fails in sh, which refuses the call."""
        found = self.tables.get(name)
        return found.decide(value) if found is not None else "deny"

    def value(self, permission: str, value: str) -> str:
        if _printable(value) and "\\" not in value:
            return self.table(f"{permission}_{self.x}", value)
        return self.table(f"{permission}_{self.x}_odd", value)

    def tool(self, tool: str) -> str | None:
        named = {"skill": ("skill", "skill"), "web_fetch": ("url", "webfetch")}
        named["web_search"] = ("query", "websearch")
        if tool not in _TOOLS:
            return None
        if tool == "bash":
            return self.line()
        if tool in ("view", "create", "edit"):
            return self.file(("read", "list") if tool == "view" else ("edit",))
        if tool in ("grep", "glob"):
            return self.search(tool)
        if tool == "task":
            return self.table(f"task_{self.x}", self.args.get("agent_type", ""))
        if tool in named:
            key, permission = named[tool]
            return self.value(permission, self.args[key]) if key in self.args else "deny"
        fixed = {"sql": "todowrite", "ask_user": "question"}
        if tool in fixed:
            return self.table(f"{fixed[tool]}_{self.x}")
        return "deny" if tool == "write_bash" else "allow"

    def odd(self, permission: str, value: str, where: str) -> str:
        found = self.table(f"{permission}_{self.x}_odd", value)
        if found == "ask" and ("/" in where or "~" in where):
            found = self.table(f"folders_{self.x}", where)
        return found

    def line(self) -> str:
        line = self.args.get("command")
        if not line:
            return "deny"
        if not _printable(line):
            return self.odd("bash", line, line)
        plain = line
        if '\\"' in line:  # quoted words: one command with nothing else special
            plain = line.replace('\\"', '"')
            if re.search("[;&|]", plain):
                return self.odd("bash", line, line)
        if _ODD_CHARS.search(plain) or _OUTSIDE.search(plain):
            return self.odd("bash", line, line)
        found = "allow"
        for piece in re.split(r"[;&|]", plain):
            piece = piece.strip(" ")
            first = piece.split(" ", 1)[0]
            if not piece or first in FOLDER_COMMANDS:
                continue
            if first in RESERVED:
                return self.odd("bash", line, line)
            action = self.table(f"bash_{self.x}", piece)
            if action == "deny":
                return "deny"
            if action == "ask":
                found = "ask"
        return found

    def file(self, permissions: Sequence[str]) -> str:
        path = self.args.get("path")
        if path is None:
            return "deny"
        rel = "." if path == self.root else path.removeprefix(self.root + "/")
        if rel == path:
            rel = ""
        found = "allow"
        for permission in permissions:
            if rel and _plain_path(rel):
                action = self.table(f"{permission}_{self.x}", rel)
            else:
                action = self.table(f"{permission}_{self.x}_odd", path)
                if action == "ask":
                    action = self.table(f"folders_{self.x}", path)
            if action == "deny":
                return "deny"
            if action == "ask":
                found = "ask"
        return found

    def search(self, permission: str) -> str:
        if "pattern" not in self.args:
            return "deny"
        found = self.value(permission, self.args["pattern"])
        path = self.args.get("path")
        if path is not None and path != self.root and not path.startswith(self.root + "/"):
            if self.table(f"folders_{self.x}", path) != "ask":
                return "deny"
            if found == "allow":
                found = "ask"
        return found


_TOOLS = frozenset(
    {"bash", "view", "create", "edit", "grep", "glob", "task", "skill", "web_fetch"}
    | {"web_search", "sql", "ask_user", "write_bash", "read_bash", "stop_bash", "list_bash"}
)
_ODD_CHARS = re.compile(r"[\\'`$(){}<>#\[\]]")
_OUTSIDE = re.compile(r'^[/~]|[ "][/~]|\.\.|[;&|][/~]')


def _printable(text: str) -> bool:
    return all(" " <= c <= "~" for c in text)


def _plain_path(rel: str) -> bool:
    if not _printable(rel):
        return False
    if rel == ".":
        return True
    if rel in ("", "..") or "\\" in rel or "//" in rel or rel.startswith(("./", "../")):
        return False
    return not ("/./" in rel or "/../" in rel or rel.endswith(("/", "/.", "/..")))
