"""How Claude Code (claude 2.1.332) reads one shell command: read-only or not, and its files.

Claude Code runs a command without asking, when no deny or ask rule matches
it, if the command is one of its read-only ones (promptc_compiler.runtimes.claude.permission_rules
READ_ONLY) and its arguments pass the binary's checks: no redirection, no
command substitution; for the commands the binary keeps a table of safe
flags for (SAFE_FLAGS, copied from the tables claude 2.1.332 carries, found
in the strings of the binary), no other flag. Whatever a command names
outside the project makes Claude Code ask ("was blocked. For security,
Claude Code may only ... the allowed working directories"), and a Read or
Edit deny rule matching a file a command reads or writes refuses it
(`cat .env` under `Read(**/*.env)`, `rm .env` under `Edit(**/*.env)`; a
Read ask rule is not read for the shell). Each of these was seen on the
binary, run offline against a scripted model endpoint; the decision tests
(tests/claude/test_decisions_claude.py) hold it there.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from promptc_compiler.permissions import calls, shell
from promptc_compiler.runtimes.claude.permission_rules import READ_ONLY

# The flags each read-only command with a table may carry (a value may follow
# a flag; short flags may be joined, `-rn`).
SAFE_FLAGS: dict[str, str] = {
    "date": (
        "--date --debug --help --iso-8601 --reference --rfc-3339 --rfc-email --universal "
        "--utc --version -I -R -d -r -u"
    ),
    "docker inspect": "--format --size --type -f -s",
    "docker logs": "--details --follow --since --tail --timestamps --until -f -n -t",
    "fd": (
        "--absolute-path --and --base-directory --batch-size --case-sensitive "
        "--changed-before --changed-within --color --exact-depth --exclude --extension "
        "--fixed-strings --follow --format --full-path --glob --help --hidden --hyperlink "
        "--ignore-case --ignore-file --max-buffer-time --max-depth --max-results --min-depth "
        "--no-ignore --no-ignore-parent --no-ignore-vcs --no-require-git --one-file-system "
        "--owner --path-separator --print0 --prune --quiet --regex --search-path "
        "--show-errors --size --strip-cwd-prefix --threads --type --version -0 -1 -E -F -H -I "
        "-L -S -V -a -c -d -e -g -h -i -j -o -p -q -s -t"
    ),
    "file": (
        "--apple --brief --check-encoding --dereference --exclude --exclude-quiet --help "
        "--keep-going --list --mime --mime-encoding --mime-type --no-buffer --no-dereference "
        "--preserve-date --print0 --raw --separator --special-files --version -0 -F -L -b -c "
        "-h -i -k -l -n -p -r -s -v"
    ),
    "git blame": (
        "--abbrev --color --date --ignore-rev --ignore-revs-file --incremental "
        "--line-porcelain --no-color --porcelain --root --score-debug --show-email "
        "--show-name --show-number --show-stats -C -L -M -e -f -l -n -p -s -t -w"
    ),
    "git branch": (
        "--abbrev --all --color --column --contains --ignore-case --list --merged --no-abbrev "
        "--no-color --no-column --no-contains --no-merged --points-at --remotes "
        "--show-current --sort --verbose -a -i -l -r -v -vv"
    ),
    "git cat-file": "--allow-undetermined-type --batch-check -e -p -s -t",
    "git config --get": (
        "--bool --bool-or-int --default --expiry-date --global --int --local --name-only "
        "--null --path --show-origin --show-scope --system --type --worktree -z"
    ),
    "git describe": (
        "--abbrev --always --broken --candidates --contains --dirty --exact-match --exclude "
        "--first-match --long --match --tags"
    ),
    "git diff": (
        "--abbrev --binary --break-rewrites --cached --check --color --color-words "
        "--diff-algorithm --diff-filter --dirstat --exit-code --find-copies "
        "--find-copies-harder --find-renames --full-index --function-context --histogram "
        "--ignore-all-space --ignore-blank-lines --ignore-space-at-eol --ignore-space-change "
        "--ignore-submodules --inter-hunk-context --irreversible-delete --minimal --name-only "
        "--name-status --no-color --no-ext-diff --no-index --no-renames --numstat "
        "--patch-with-stat --patience --pickaxe-all --pickaxe-regex --quiet --relative "
        "--shortstat --staged --stat --submodule --summary --word-diff --word-diff-regex "
        "--ws-error-highlight -B -C -D -G -M -O -R -S -l -p -s -u"
    ),
    "git for-each-ref": (
        "--contains --count --format --merged --no-contains --no-merged --points-at --sort"
    ),
    "git grep": (
        "--after-context --and --basic-regexp --before-context --break --cached --color "
        "--context --count --extended-regexp --files-with-matches --files-without-match "
        "--fixed-strings --full-name --heading --ignore-case --invert-match --line-number "
        "--max-depth --no-color --no-index --not --only-matching --or --perl-regexp --quiet "
        "--recurse-submodules --threads --untracked --word-regexp -A -B -C -E -F -G -H -L -P "
        "-c -e -h -i -l -n -o -q -v -w"
    ),
    "git log": (
        "--abbrev-commit --after --all --ancestry-path --author --author-date-order --before "
        "--boundary --branches --cherry-mark --cherry-pick --color --committer --date "
        "--date-order --decorate --dense --diff-filter --first-parent --follow --format "
        "--full-history --graph --grep --left-right --max-age --max-count --merges --min-age "
        "--name-only --name-status --no-color --no-decorate --no-ext-diff --no-max-parents "
        "--no-merges --no-min-parents --no-patch --no-walk --numstat --oneline --patch "
        "--pickaxe-all --pickaxe-regex --pretty --relative-date --remotes --reverse "
        "--shortstat --simplify-merges --since --skip --source --sparse --stat --tags "
        "--topo-order --until --walk-reflogs -G -S -n -p -s"
    ),
    "git ls-files": (
        "--abbrev --cached --debug --deleted --directory --eol --error-unmatch --exclude "
        "--exclude-from --exclude-per-directory --exclude-standard --full-name --ignored "
        "--killed --modified --no-empty-directory --others --recurse-submodules --stage "
        "--unmerged -X -c -d -f -i -k -m -o -s -t -u -v -x -z"
    ),
    "git ls-remote": (
        "--branches --exit-code --get-url --heads --quiet --refs --sort --symref --tags -b -h -q -t"
    ),
    "git merge-base": "--all --fork-point --independent --is-ancestor --octopus",
    "git reflog": (
        "--after --all --author --before --branches --committer --date --decorate --graph "
        "--grep --max-count --no-decorate --oneline --relative-date --remotes --since --tags "
        "--until -n"
    ),
    "git remote": "--verbose -v",
    "git remote show": "-n",
    "git rev-list": (
        "--abbrev --abbrev-commit --after --all --ancestry-path --author --before --branches "
        "--committer --count --dense --first-parent --format --full-history --graph --grep "
        "--max-age --max-count --max-parents --merges --min-age --min-parents "
        "--no-max-parents --no-merges --no-min-parents --oneline --pretty --remotes --reverse "
        "--since --skip --source --sparse --tags --until --walk-reflogs -n"
    ),
    "git rev-parse": (
        "--abbrev-ref --absolute-git-dir --git-common-dir --git-dir --is-bare-repository "
        "--is-inside-git-dir --is-inside-work-tree --is-shallow-repository "
        "--is-shallow-update --path-prefix --short --show-cdup --show-prefix --show-toplevel "
        "--symbolic --symbolic-full-name --verify"
    ),
    "git shortlog": (
        "--after --all --author --before --branches --committer --email --format --group "
        "--no-merges --numbered --remotes --since --summary --tags --until -c -e -n -s"
    ),
    "git show": (
        "--abbrev-commit --color --color-words --date --decorate --diff-filter --first-parent "
        "--format --graph --name-only --name-status --no-color --no-decorate --no-ext-diff "
        "--no-patch --numstat --oneline --patch --pretty --quiet --raw --relative-date "
        "--shortstat --stat --word-diff --word-diff-regex -m -p -s"
    ),
    "git stash list": (
        "--all --branches --date --decorate --graph --max-count --no-decorate --oneline "
        "--relative-date --remotes --tags -n"
    ),
    "git stash show": (
        "--abbrev --color --diff-filter --name-only --name-status --no-color --no-ext-diff "
        "--no-patch --numstat --patch --shortstat --stat --word-diff --word-diff-regex -p -s"
    ),
    "git status": (
        "--ahead-behind --branch --column --find-renames --ignore-submodules --ignored --long "
        "--no-ahead-behind --no-column --no-renames --porcelain --renames --short "
        "--untracked-files --verbose -M -b -s -u -v"
    ),
    "git tag": (
        "--column --contains --format --ignore-case --list --merged --no-column --no-contains "
        "--no-merged --points-at --sort -i -l -n"
    ),
    "git worktree list": "--expire --porcelain --verbose -v",
    "grep": (
        "--after-context --basic-regexp --before-context --binary --binary-files "
        "--byte-offset --color --colour --context --count --dereference-recursive --devices "
        "--directories --exclude --exclude-dir --exclude-from --extended-regexp --file "
        "--files-with-matches --files-without-match --fixed-strings --group-separator --help "
        "--ignore-case --include --initial-tab --invert-match --label --line-buffered "
        "--line-number --line-regexp --max-count --no-filename --no-group-separator "
        "--no-ignore-case --no-messages --null --null-data --only-matching --perl-regexp "
        "--quiet --recursive --regexp --silent --text --unix-byte-offsets --version "
        "--with-filename --word-regexp -A -B -C -D -E -F -G -H -I -L -P -R -T -U -V -Z -a -b "
        "-c -d -e -f -h -i -l -m -n -o -q -r -s -u -v -w -x -z"
    ),
    "hostname": (
        "--alias --all-fqdns --all-ip-addresses --domain --fqdn --help --ip-address --long "
        "--short --verbose --version -A -I -V -a -d -f -h -i -s -v"
    ),
    "lsof": (
        "-? -A -C -E -F -H -K -L -N -O -P -Q -R -S -T -U -V -X -a -b -c -d -e -g -h -i -k -l "
        "-n -o -p -r -s -t -u -v -x"
    ),
    "md5sum": (
        "--binary --check --help --ignore-missing --quiet --status --strict --tag --text "
        "--version --warn --zero -b -c -t -w -z"
    ),
    "netstat": "-I -L -a -f -g -i -l -m -n -r -s -v",
    "pgrep": (
        "--count --delimiter --euid --exact --full --group --help --ignore-case --inverse "
        "--lightweight --list-full --list-name --logpidfile --newest --ns --nslist --older "
        "--oldest --parent --pgroup --pidfile --runstates --session --terminal --uid "
        "--version -F -G -L -O -P -U -V -a -c -d -f -g -i -l -n -o -r -s -t -u -v -w -x"
    ),
    "rg": (
        "-- --after-context --before-context --color --column --context --count --debug "
        "--files-with-matches --files-without-match --fixed-strings --follow --glob --heading "
        "--help --hidden --ignore-case --invert-match --json --line-number --max-count "
        "--max-depth --no-heading --no-ignore --only-matching --quiet --regexp --smart-case "
        "--stats --text --type --type-list --type-not --version --word-regexp -A -B -C -F -H "
        "-L -S -T -a -c -d -e -f -g -h -i -l -m -n -o -q -t -u -v -w"
    ),
    "sed": (
        "--debug --expression --help --line-length --posix --quiet --regexp-extended "
        "--separate --silent --unbuffered --version --zero-terminated -E -e -l -n -r -s -u -z"
    ),
    "sha1sum": (
        "--binary --check --help --ignore-missing --quiet --status --strict --tag --text "
        "--version --warn --zero -b -c -t -w -z"
    ),
    "sha256sum": (
        "--binary --check --help --ignore-missing --quiet --status --strict --tag --text "
        "--version --warn --zero -b -c -t -w -z"
    ),
    "sort": (
        "--batch-size --buffer-size --check --check-char-order --dictionary-order "
        "--field-separator --general-numeric-sort --help --human-numeric-sort --ignore-case "
        "--ignore-leading-blanks --ignore-nonprinting --key --merge --month-sort "
        "--numeric-sort --parallel --random-sort --reverse --sort --stable --unique --version "
        "--version-sort --zero-terminated -C -M -R -S -V -b -c -d -f -g -h -i -k -m -n -r -s "
        "-t -u -z"
    ),
    "ss": (
        "--all --bpf --cgroup --context --contexts --dccp --events --extended --family --help "
        "--inet-sockopt --info --ipv4 --ipv6 --listening --memory --mptcp --no-header "
        "--numeric --oneline --options --packet --processes --query --raw --sctp --socket "
        "--summary --tcp --tipc --tipcinfo --tos --udp --unix --version --vsock -0 -4 -6 -A "
        "-E -H -M -O -S -V -Z -a -b -d -e -f -h -i -l -m -n -o -p -s -t -u -w -x -z"
    ),
    "tput": "-T -V -x",
    "tree": (
        "--authority --charset --device --dirsfirst --du --fflinks --filelimit --filesfirst "
        "--fromfile --fromtabfile --gitfile --gitignore --help --hintro --houtro --hyperlink "
        "--ignore-case --info --infofile --inodes --matchdirs --metafirst --nolinks "
        "--noreport --prune --scheme --si --sort --timefmt --version -A -C -D -F -H -I -J -L "
        "-N -P -Q -S -T -U -X -a -c -d -f -g -h -i -l -n -p -q -r -s -t -u -v -x"
    ),
    "which": (
        "--all --help --show-dot --show-tilde --skip-alias --skip-dot --skip-functions "
        "--skip-tilde --version -V -a -p -s -v -w"
    ),
    "xargs": "-0 -E -I -L -P -d -n -r -s -t -x",
}
# Names of the same programs, with the same flags.
SAFE_FLAGS |= {"egrep": SAFE_FLAGS["grep"], "fgrep": SAFE_FLAGS["grep"], "fdfind": SAFE_FLAGS["fd"]}

# The commands whose file arguments Claude Code checks against the working
# folders and the Read and Edit rules (the binary's own list), by what they
# do to the files.
WRITES = frozenset({"mkdir", "touch", "rm", "rmdir", "mv", "cp", "tee"})
READS = frozenset(
    {
        *("cd", "ls", "find", "cat", "head", "tail", "sort", "uniq", "wc", "cut", "paste"),
        *("column", "file", "stat", "diff", "awk", "gawk", "mawk", "nawk", "strings"),
        *("hexdump", "od", "base64", "nl", "tac", "man", "rev", "fold", "expand", "unexpand"),
        *("fmt", "comm", "cmp", "pr", "numfmt", "tsort", "grep", "egrep", "fgrep", "rg", "sed"),
        *("git", "jq", "sha256sum", "sha1sum", "md5sum"),
    }
)
# Leading arguments that are not files: a search pattern, a script, a filter.
_NOT_FILES = {"grep": 1, "egrep": 1, "fgrep": 1, "rg": 1, "sed": 1, "jq": 1, "awk": 1, "git": 1}
_FIND_UNSAFE = frozenset(
    {"-delete", "-rm", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fls"}
    | {"-fprintf", "-files0-from"}
)
_XARGS_RUNS = frozenset({"echo", "printf", "wc", "grep", "egrep", "fgrep", "head", "tail"})
_EXACT = frozenset(
    form for form in READ_ONLY if form.split()[0] in ("ip", "node", "python", "python3", "claude")
)
_NO_ARGUMENTS = frozenset({"pwd", "whoami", "hostname", "git remote"})
_SPECIAL = re.compile(r"[()$`|{}&;\n\r]")
_DISCARDED = re.compile(r"\s*(?:\d?>>?\s*/dev/null|\d?>&\d)")
_REDIRECT = re.compile(r"[0-9&]?(>>?|<)(.*)")


class Files(NamedTuple):
    """What a command does to files: those it reads and writes (paths as the
    call matrix writes them), and whether any is outside the project."""

    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()

    @property
    def outside(self) -> bool:
        return any(not calls.inside(calls.absolute(p)) for p in (*self.reads, *self.writes))


def _by_first_word() -> dict[str, tuple[tuple[str, ...], ...]]:
    found: dict[str, list[tuple[str, ...]]] = {}
    for candidate in READ_ONLY:
        parts = tuple(candidate.split())
        found.setdefault(parts[0], []).append(parts)
    # the longest first: `git stash list` before `git stash`
    return {word: tuple(sorted(forms, key=len, reverse=True)) for word, forms in found.items()}


_FORMS = _by_first_word()


def form(words: tuple[str, ...]) -> str | None:
    """The read-only command the words start with (the longest: `git stash list`)."""
    for parts in _FORMS.get(words[0] if words else "", ()):
        if words[: len(parts)] == parts:
            return " ".join(parts)
    return None


def read_only(command: shell.Command) -> bool:
    """Whether Claude Code runs the command unasked when no rule decides it."""
    text = _DISCARDED.sub("", command.text)
    found = form(command.words)
    if found is None or "<" in text or ">" in text or "$(" in text or "`" in text:
        return False
    args = command.words[len(found.split()) :]
    if found in _EXACT:
        return not args
    if found in _NO_ARGUMENTS:
        return all(a.startswith("-") for a in args) if found == "git remote" else not args
    if found in ("echo", "printf"):
        return True
    if found in SAFE_FLAGS:
        return _flags_safe(found, args) and _arguments_safe(found, args)
    if found == "find":
        return not any(a in _FIND_UNSAFE for a in args)
    if found == "uniq":
        return all(a.startswith("-") or a.isdigit() for a in args)
    if found == "history":
        return len(args) <= 1 and all(a.isdigit() for a in args)
    if found in ("arch", "ifconfig"):
        return len(args) <= 1 and all(a in ("-h", "--help") or a[:1].isalpha() for a in args)
    return found in ("ls", "jq", "test", "[", "[[") or _SPECIAL.search(text) is None


def _flags_safe(found: str, args: tuple[str, ...]) -> bool:
    safe = set(SAFE_FLAGS[found].split())
    for arg in args:
        if arg == "--":
            break
        if not arg.startswith("-") or arg == "-":
            continue
        name = arg.split("=", 1)[0]
        if name in safe:
            continue
        joined = not arg.startswith("--") and len(arg) > 2
        if not (joined and all(f"-{c}" in safe for c in arg[1:])):
            return False
    return True


def _arguments_safe(found: str, args: tuple[str, ...]) -> bool:
    """What a word that is not a flag may be: `xargs` runs a read-only command,
    `date` prints a format; `git branch`, `git tag` and `sort` create nothing."""
    words = [a for a in args if not a.startswith("-")]
    if found == "xargs":
        return bool(words) and words[0] in _XARGS_RUNS
    if found == "date":
        return all(w.startswith("+") for w in words)
    if found in ("git branch", "git tag"):
        return not words
    return True


def files(command: shell.Command) -> Files:
    """The files a command reads and writes that Claude Code checks, redirections included."""
    reads: list[str] = []
    writes: list[str] = []
    words = list(command.words)
    name = words[0] if words else ""
    for index, word in enumerate(words):
        redirect = _REDIRECT.fullmatch(word)
        if redirect is None:
            continue
        target = redirect[2] or (words[index + 1] if index + 1 < len(words) else "")
        if target and target != "/dev/null" and not target.startswith("&"):
            (reads if redirect[1] == "<" else writes).append(target)
    if name in READS or name in WRITES:
        named = [w for w in _plain(words[1:]) if not w.startswith("-")]
        named = [w for w in named if w != "/dev/null"][_NOT_FILES.get(name, 0) :]
        named = [w.split("*", 1)[0].split("?", 1)[0] or "." for w in named if "$" not in w]
        in_place = name == "sed" and any(w.startswith("-i") for w in words[1:])
        (writes if name in WRITES or in_place else reads).extend(named)
    return Files(tuple(reads), tuple(writes))


def _plain(words: list[str]) -> list[str]:
    """The words that are not redirections nor their targets."""
    found: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        redirect = _REDIRECT.fullmatch(word)
        if redirect is not None:
            skip = not redirect[2]
            continue
        found.append(word)
    return found
