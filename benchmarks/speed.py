"""Time `promptc check`, `lint` and `build`, cold and warm, next to the interpreter and the peers.

Generates bundles of N agents (about 150 lines each: the caveman snippet with a
parameter, a flow fragment, a per-target block and a permission map), then
times every command in a fresh process per run and prints the median wall
time, the median CPU time (user and system, of every thread; the steadier
figure on a shared machine), the wall time's ratio to the baselines timed in
the same run, and the peak RSS (the repo's own bundle, ndomo, is timed too):

- floor: `python -c pass`; imports: `python -c "import yaml, jsonschema, jinja2"`
  (both with the interpreter running this script, i.e. the same environment);
- files: a fresh process creating N empty files in the scratch folder, what a
  cold build's file creations cost the disk alone at that moment;
- cold: the cache folder (and, for build, the output folder) moved out of the
  way before each run, as if it had never been made;
- warm: nothing changed since the previous run (a cache hit).

Peers run in the same loop when `--peers DIR` names a folder where
`npm i rulesync@17.0.0 @carlrannaberg/cclint@0.2.10 @intellectronica/ruler@0.3.44`
was run (DIR/node_modules/.bin; a peer not installed there is left out)
and `--agnix PATH` names agnix's binary; each gets the same N agents in its own
source format. A peer that fails says so in the output. rulesync runs twice, on
the same work as a cold promptc build each time: for OpenCode alone (the
bundle's own target) and for Claude Code and OpenCode together (against the
same bundle built for both, a row of its own). Peers run at N up to 1000; above
that only rulesync for both runtimes, whose peak memory is compared.

The run ends with the ratios issue 34 sets as targets, each measured in this
run (see `targets`): the cold two-runtime build against rulesync 17.0.0 at
N=16 and N=1000, a cold lint against cclint 0.2.10 at N=1000, the two-runtime
build's peak memory against rulesync's at N=10000, a cold check of 16 agents
against importing yaml, jsonschema and jinja2, and a cold lint's CPU time per
agent at every size.

Nothing is deleted until every run is done: every bundle lives in one scratch
folder, and what a cold run must not find is renamed into a graveyard inside
it. Deleting first cost the next run's file creations on ext4 without a
journal (as on the machine the README's table comes from): the kernel skips,
one block lookup each, every inode freed in the last minute, and in the last
six while its inode table block is not yet written back (`recently_deleted`
in fs/ext4/ialloc.c, RECENTCY_MIN and RECENTCY_DIRTY; seen with `perf record
-g`), so 1,000 creations right after 2,000 deletions took 0.1 to 0.35 s
instead of 0.01 s, for every tool, in amounts that varied from run to run,
and after 750,000 deletions 0.11 s for minutes.
Deletions by anything else in the minutes before (a test suite, the end of a
previous run of this script) still cost the first runs: the files row shows
what creating costs in the same run, and a run started after a few quiet
minutes is the one to quote.

    .venv/bin/python benchmarks/speed.py --sizes 16 1000 10000 --peers /tmp/peers
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

CAVEMAN = """\
---
description: The caveman tone snippet.
params:
  level: {type: string, enum: [lite, full, ultra], default: full}
---
Tono: caveman por default, nivel <<level>>. Activa siempre.
Excepción: prosa normal para advertencias de seguridad.
"""

FLOW = "## Flujo\n" + "".join(f"- Paso {n}: lee, cambia, verifica.\n" for n in range(20))

AGENT = """\
---
description: Agent {i} explores the code and reports findings with paths and lines.
mode: subagent
permission:
  edit: deny
  webfetch: ask
  bash:
    "*": ask
    "git status *": allow
    "git diff *": allow
    "rg *": allow
    "rm *": deny
  task:
    "*": deny
---
<<caveman(level="ultra")>>

# Agent {i}

<% if target == "claude" %>
Lanza subagentes con la herramienta Agent.
<% else %>
Lanza subagentes con la herramienta task.
<% endif %>

<<flow>>

{body}
"""

LINE = "Paso {n}: lee `src/{n}.py`, compara con el test y reporta hallazgos con ruta y línea."
BODY = "\n".join(LINE.format(n=n) for n in range(110))

CONFIG = """\
[targets.opencode]

[rules.required-snippet]
fragment = "caveman"
params = {level = "ultra"}
"""

MODE = "---\ndescription: Build a feature.\nagent: a0\n---\n<<flow>>\n\nTrabaja en: $ARGUMENTS\n"


# The same bundle built for both runtimes, as rulesync's two-target run builds it.
BOTH_TARGETS = CONFIG.replace("[targets.opencode]\n", "[targets.opencode]\n\n[targets.claude]\n")


def write_promptc(root: Path, agents: int, config: str = CONFIG) -> None:
    (root / "specs/agents").mkdir(parents=True)
    (root / "specs/modes").mkdir(parents=True)
    (root / "fragments").mkdir(parents=True)
    (root / "promptc.toml").write_text(config)
    (root / "fragments/caveman.md").write_text(CAVEMAN)
    (root / "fragments/flow.md").write_text(FLOW)
    (root / "specs/modes/build.md").write_text(MODE)
    for i in range(agents):
        (root / f"specs/agents/a{i}.md").write_text(AGENT.format(i=i, body=BODY))


def _plain_body(i: int) -> str:
    """The same agent as composed text: peers have no fragments, so it is inlined."""
    tone = "Tono: caveman por default, nivel ultra. Activa siempre.\n"
    return f"{tone}\n# Agent {i}\n\n{FLOW}\n{BODY}\n"


def write_rulesync(root: Path, agents: int) -> None:
    folder = root / ".rulesync/subagents"
    folder.mkdir(parents=True)
    (root / "rulesync.jsonc").write_text(
        '{"targets": ["claudecode", "opencode"], "features": ["subagents"]}\n'
    )
    for i in range(agents):
        head = f"---\nname: a{i}\ntargets: ['*']\ndescription: Agent {i} explores the code.\n---\n"
        (folder / f"a{i}.md").write_text(head + _plain_body(i))


def write_ruler(root: Path, agents: int) -> None:
    folder = root / ".ruler"
    folder.mkdir(parents=True)
    (folder / "ruler.toml").write_text('default_agents = ["claude"]\n')
    for i in range(agents):
        head = f"---\nname: a{i}\ndescription: Agent {i} explores the code.\n---\n"
        (folder / f"a{i}.md").write_text(head + _plain_body(i))


def write_agnix(root: Path, agents: int) -> None:
    folder = root / ".claude/agents"
    folder.mkdir(parents=True)
    for i in range(agents):
        head = f"---\nname: a{i}\ndescription: Agent {i} explores the code.\n---\n"
        (folder / f"a{i}.md").write_text(head + _plain_body(i))


def timed(command: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int, int]:
    """(seconds, CPU seconds, peak RSS in KiB, exit code) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode


class Table:
    def __init__(self, scratch: Path) -> None:
        # (command, N, median seconds, median CPU seconds, peak RSS, note)
        self.rows: list[tuple[str, int, float, float, int, str]] = []
        self.floor = self.imports = float("nan")
        self.scratch = scratch
        self._buried = 0

    def folder(self) -> Path:
        """A new folder for one bundle, deleted only with the scratch folder."""
        return Path(tempfile.mkdtemp(dir=self.scratch))

    def bury(self, path: Path) -> None:
        """Move `path` out of the way without deleting it (see the module's doc)."""
        if path.exists():
            self._buried += 1
            path.rename(self.scratch / f"graveyard-{self._buried}")

    def measure(
        self,
        name: str,
        size: int,
        command: Sequence[str],
        cwd: Path,
        repeat: int,
        before: list[Path] | None = None,
        env: dict[str, str] | None = None,
    ) -> float:
        times, cpus, peaks, codes = [], [], [], set()
        for _ in range(repeat):
            for path in before or []:
                self.bury(path)
            seconds, cpu, peak, code = timed(command, cwd, env or dict(os.environ))
            times.append(seconds)
            cpus.append(cpu)
            peaks.append(peak)
            codes.add(code)
        median = statistics.median(times)
        note = "" if codes == {0} else f"exit {sorted(codes)}"
        self.rows.append((name, size, median, statistics.median(cpus), max(peaks), note))
        print(self._line(self.rows[-1]), flush=True)
        return median

    def row(self, name: str, size: int) -> tuple[str, int, float, float, int, str] | None:
        """A row that exited 0, if it was measured."""
        return next((r for r in self.rows if r[:2] == (name, size) and not r[5]), None)

    def wall(self, name: str, size: int) -> float:
        """The median wall time of a row."""
        return next(row[2] for row in self.rows if row[:2] == (name, size))

    def cpu(self, name: str, size: int) -> float:
        """The median CPU time of a row (all of the process's threads and children)."""
        return next(row[3] for row in self.rows if row[:2] == (name, size))

    def _line(self, row: tuple[str, int, float, float, int, str]) -> str:
        name, size, median, cpu, peak, note = row
        floor = median / self.floor if self.floor == self.floor else float("nan")
        imports = median / self.imports if self.imports == self.imports else float("nan")
        return (
            f"| {name:38} | {size:>6} | {median * 1000:>9.1f} ms | {cpu * 1000:>9.1f} ms "
            f"| {floor:>7.2f}x | {imports:>7.2f}x | {peak / 1024:>6.1f} MiB | {note}"
        )


# Creates N empty files in a new folder of the scratch folder: what creating a
# cold build's files costs the file system alone, at that moment.
CREATE = (
    "import os, sys, tempfile\n"
    "folder = tempfile.mkdtemp(dir=sys.argv[1])\n"
    "for i in range(int(sys.argv[2])):\n"
    "    os.close(os.open(f'{folder}/f{i}', os.O_WRONLY | os.O_CREAT | os.O_EXCL))\n"
)


def files_row(table: Table, size: int, repeat: int) -> None:
    """The file system's part of a cold build: a fresh process creating `size`
    empty files (the floor included). It varies with the disk's state (see the
    module's doc), so it is timed in the same run as the builds."""
    command = [sys.executable, "-c", CREATE, str(table.scratch), str(size)]
    table.measure(f"python: create {size} empty files", size, command, table.scratch, repeat)


def promptc_rows(table: Table, size: int, repeat: int, promptc: str) -> dict[str, float]:
    """The five runs of the size's bundle, and a cold build of it for both
    runtimes (what rulesync's two-target run is compared with)."""
    out: dict[str, float] = {}

    def cold_build(name: str, root: Path) -> float:
        before = [root / ".promptc-cache", root / "build"]
        return table.measure(name, size, [promptc, "build", "-q"], root, repeat, before)

    root = table.folder()
    write_promptc(root, size)
    subprocess.run([promptc, "build", "--no-cache", "-q"], cwd=root, check=False)
    out["check cold"] = table.measure(
        CHECK,
        size,
        [promptc, "check", "-q"],
        root,
        repeat,
        [root / ".promptc-cache"],
    )
    out["check warm"] = table.measure(
        "promptc check, warm", size, [promptc, "check", "-q"], root, repeat
    )
    out["lint cold"] = table.measure(
        LINT, size, [promptc, "lint", "-q"], root, repeat, [root / ".promptc-cache"]
    )
    out["build cold"] = cold_build("promptc build, cold", root)
    out["build warm"] = table.measure(
        "promptc build, warm", size, [promptc, "build", "-q"], root, repeat
    )
    root = table.folder()
    write_promptc(root, size, BOTH_TARGETS)
    out["build cold, both"] = cold_build(BOTH, root)
    return out


BOTH = "promptc build, cold (claude+opencode)"
LINT = "promptc lint, cold"
CHECK = "promptc check, cold"
IMPORTS = "python: import yaml, jsonschema, jinja2"
RULESYNC_ONE = "rulesync generate (opencode)"
RULESYNC_BOTH = "rulesync generate (claude+opencode)"
CCLINT = "cclint agents (lint only)"
# The promptc row of each run the peers are compared with.
WORK_ROWS = {"build cold": "promptc build, cold", "build cold, both": BOTH, "lint cold": LINT}
# Which promptc run does the same work as each peer's.
PAIRS = {
    RULESYNC_ONE: "build cold",
    RULESYNC_BOTH: "build cold, both",
    CCLINT: "lint cold",
}


def peer_rows(table: Table, size: int, repeat: int, peers: Path | None, agnix: Path | None) -> None:
    """Every peer at N up to 1000; above, rulesync for both runtimes only (its
    peak memory is a target)."""
    tools = []
    if peers is not None:
        bin_dir = peers / "node_modules/.bin"
        rulesync = [str(bin_dir / "rulesync"), "generate", "--features", "subagents", "--targets"]
        # The same outputs as promptc's two builds: OpenCode alone, then both runtimes.
        tools.append(
            (RULESYNC_ONE, write_rulesync, [*rulesync, "opencode"], [".claude", ".opencode"])
        )
        tools.append(
            (
                RULESYNC_BOTH,
                write_rulesync,
                [*rulesync, "claudecode,opencode"],
                [".claude", ".opencode"],
            )
        )
        tools.append(
            ("ruler apply (claude)", write_ruler, [str(bin_dir / "ruler"), "apply"], [".claude"])
        )
        tools.append((CCLINT, write_agnix, [str(bin_dir / "cclint"), "agents", "--quiet"], []))
        tools = [tool for tool in tools if Path(tool[2][0]).exists()]
        if size > 1000:
            tools = [tool for tool in tools if tool[0] == RULESYNC_BOTH]
    if agnix is not None and size <= 1000:
        tools.append(("agnix (lint only)", write_agnix, [str(agnix), "."], []))
    for name, write, command, outputs in tools:
        root = table.folder()
        write(root, size)
        env = {**os.environ, "HOME": str(root), "CI": "1"}
        table.measure(name, size, command, root, repeat, [root / o for o in outputs], env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 1000, 10000])
    parser.add_argument("--repeat", type=int, default=7, help="runs per command at N <= 100")
    parser.add_argument("--peers", type=Path, help="folder holding node_modules/.bin/rulesync")
    parser.add_argument("--agnix", type=Path, help="agnix binary")
    parser.add_argument(
        "--promptc", type=Path, help="the promptc to time (default: next to this Python)"
    )
    args = parser.parse_args()
    # An installed promptc runs from bytecode (pip compiles it); so does this
    # checkout here, even where PYTHONDONTWRITEBYTECODE is set.
    package = Path(__file__).resolve().parent.parent / "compiler"
    compileall.compile_dir(package, quiet=1)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="promptc-speed-") as scratch:
        run(args, Table(Path(scratch)), started)


def run(args: argparse.Namespace, table: Table, started: float) -> None:
    python = sys.executable
    header = (
        "| command                                |      N |    median    "
        "|  CPU median  |  /floor | /imports |  peak RSS  |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    table.floor = table.measure("python -c pass (floor)", 0, [python, "-c", "pass"], Path.cwd(), 15)
    imports = [python, "-c", "import yaml, jsonschema, jinja2"]
    table.imports = table.measure(IMPORTS, 0, imports, Path.cwd(), 15)
    repo = Path(__file__).resolve().parents[1]
    promptc = str(args.promptc or Path(python).with_name("promptc"))
    ndomo = table.measure(
        "promptc check, cold (ndomo)",
        len(list((repo / "specs/agents").glob("*.md"))),
        [promptc, "check", "--no-cache", "-q"],
        repo,
        args.repeat,
    )
    results: dict[int, dict[str, float]] = {}
    for size in args.sizes:
        repeat = args.repeat if size <= 100 else 3 if size <= 1000 else 1
        files_row(table, size, repeat)
        results[size] = promptc_rows(table, size, repeat, promptc)
        peer_rows(table, size, repeat, args.peers, args.agnix)
    print()
    print(f"ndomo cold check / imports: {ndomo / table.imports:.2f}")
    for row in table.rows:
        if row[0] in PAIRS and row[1] in results:
            work = WORK_ROWS[PAIRS[row[0]]]
            ratio, cpu = row[2] / table.wall(work, row[1]), row[3] / table.cpu(work, row[1])
            print(f"N={row[1]} {row[0]} / {work}: {ratio:.1f}x, CPU {cpu:.1f}x")
    print()
    for line in targets(table, args.peers):
        print(line)
    print(f"benchmark wall time: {time.perf_counter() - started:.0f} s")


def targets(table: Table, peers: Path | None) -> list[str]:
    """Issue 34's targets, each a ratio of two rows of this run (wall time, CPU
    time in brackets), or what is missing to measure it."""

    def ratio(name: str, size: int, over: str, over_size: int, why: str) -> str:
        mine, theirs = table.row(name, size), table.row(over, over_size)
        if mine is None or theirs is None:
            return f"not measured ({why})"
        return f"{mine[2] / theirs[2]:.2f}x ({mine[3] / theirs[3]:.2f}x CPU)"

    def peer(name: str, size: int) -> str:
        installed = peers is not None and (peers / "node_modules/.bin" / name).exists()
        return f"--sizes without {size}" if installed else f"no {name} in --peers DIR"

    found = ["issue 34 targets, measured in this run:"]
    for size, least in ((16, 2), (1000, 3)):
        got = ratio(RULESYNC_BOTH, size, BOTH, size, peer("rulesync", size))
        found.append(
            f"- N={size} cold build claude+opencode, rulesync 17.0.0 / promptc: {got} "
            f"(target >= {least}x)"
        )
    got = ratio(CCLINT, 1000, LINT, 1000, peer("cclint", 1000))
    found.append(f"- N=1000 cold lint, cclint 0.2.10 / promptc: {got} (target >= 1x)")
    mine, theirs = table.row(BOTH, 10000), table.row(RULESYNC_BOTH, 10000)
    if mine is None or theirs is None:
        got = f"not measured ({peer('rulesync', 10000)})"
    else:
        ours, peak = mine[4] / 1024, theirs[4] / 1024
        got = f"{ours:.0f} MiB, rulesync {peak:.0f} MiB, {ours / peak:.2f}x"
    found.append(f"- N=10000 peak RSS of the claude+opencode build, promptc: {got} (target < 1x)")
    got = ratio(CHECK, 16, IMPORTS, 0, "--sizes without 16")
    found.append(
        f'- N=16 cold check / python -c "import yaml, jsonschema, jinja2": {got} (target <= 3x)'
    )
    costs = [f"N={r[1]} {r[3] / r[1] * 1000:.2f} ms" for r in table.rows if r[0] == LINT and r[1]]
    found.append(f"- cold lint, CPU per agent: {', '.join(costs)} (target: flat)")
    return found


if __name__ == "__main__":
    main()
