"""The fast paths of rendering give what the plain ones give.

- compose: a body rendered for its text (compose.Texts) records no anchors;
  a source map renders it again with them. Text, "printed nothing" and the
  findings of composing must be those of the rendering with anchors.
- compose: a placeholder written with values only is rendered once per text;
  the static checks of placeholders and conditions in bodies without
  parameters are decided once per text. Held against an engine that
  remembers none of them.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import compose
from compiler.bundle import load_bundle
from compiler.compose import compose_bundle
from compiler.config import Config
from tests.strategies import bundle_on_disk, bundles

TONE = "Tono: caveman por default, nivel full. Activa siempre."
EXCEPTION = "Excepción: prosa normal para advertencias de seguridad."
CAVEMAN = f"""\
---
description: Tono caveman.
params:
  level: {{type: string, enum: [lite, full, ultra], default: full}}
---
{TONE.replace("full", "<<level>>")}
{EXCEPTION}
"""
WRAP = '---\ndescription: Envuelve el tono.\n---\n<<caveman(level="full")>>\nY algo más.\n'
# A fragment with parameters: in it, `level` is a variable, so a placeholder or
# a condition reads otherwise than in an agent (where `level` is a fragment).
MOD = """\
---
description: Con parámetros.
params:
  level: {{type: string, enum: [lite, full, ultra], default: full}}
---
{}
"""
MOD_PIECES = [
    "<<caveman(level=level)>>",
    "<% if level == 'full' %>\nLleno.\n<% else %>\nOtro.\n<% endif %>",
    "<% if target == 'claude' %>\nC.\n<% endif %>",
    "<% if level == 'ful\\x6c' %>\n<<caveman(level=level)>>\n<% endif %>",
    "<<level>>",
    "<<level(a=1)>>",
    "<<flow>>",
    "Texto.",
]
LEVEL = "---\ndescription: Un fragmento llamado level.\nparams:\n  a: {type: integer, default: 1}\n---\nL <<a>>\n"
FLOW = "## Flujo\n- Paso 0: lee, cambia, verifica.\n- Paso 1: lee, cambia, verifica.\n"
CONFIG = """\
[targets.opencode]
[targets.claude]

[rules.required-snippet]
fragment = "caveman"
params = {level = "full"}
exempt = ["e"]
"""

# Ways a body carries the snippet (or something like it), and other lines.
PIECES = [
    "<<caveman>>",
    '<<caveman(level="full")>>',
    '<<caveman(level="ultra")>>',
    '<<caveman(level="maxi")>>',
    "Antes <<caveman>> después",
    "`<<caveman>>`",
    "<<wrap>>",
    f"{TONE}\n{EXCEPTION}",  # pasted by hand
    f"{TONE}\n\n{EXCEPTION}",
    f"  {TONE}   \n\t{EXCEPTION}",
    f"{TONE} {EXCEPTION}",
    f"{TONE.replace('full', 'ultra')}\n{EXCEPTION}",  # edited
    f"{TONE.replace('siempre', 'siempr')}\n{EXCEPTION}",
    f"{TONE}\n{EXCEPTION} Y más.",
    TONE,  # partial
    EXCEPTION,
    "Tono: caveman por default,\nnivel full. Activa siempre.\n" + EXCEPTION,
    f"```\n{TONE}\n{EXCEPTION}\n```",
    f"```\n{TONE}\n{EXCEPTION}",  # a fence left open
    f"<% if target == 'claude' %>\n<<caveman>>\n<% else %>\n{TONE}\n{EXCEPTION}\n<% endif %>",
    "<% if target == 'opencode' %>\n<<caveman>>\n<% endif %>",
    f"<% if target == 'claude' %>\n{TONE}\n{EXCEPTION}\n<% endif %>",
    "<<flow>>",
    # Placeholders and conditions with problems in an agent, not in a fragment.
    "<<level>>",
    "<<level(a=1)>>",
    "<<mod>>",
    '<<mod(level="ultra")>>',
    "<<cavemn>>",
    "<<target(x=1)>>",
    "<% if level == 'full' %>\nNivel.\n<% endif %>",
    "<% if target == 'claud' %>\nNo.\n<% elif target == 'opencode' %>\nSí.\n<% endif %>",
    # Conditions with escapes and comparisons Python refuses.
    "<% if target == 'clau\\x64e' %>\nJ <<caveman>>\n<% else %>\nK\n<% endif %>",
    "<% if target < 1 %>\nNunca.\n<% endif %>",
    "# Agente",
    "",
    "Paso 1: lee el test.",
    "Tono: formal.",
    "nivel full",
    "de",
    "~~~",
]


@st.composite
def snippet_bundles(draw: st.DrawFn) -> dict[str, bytes]:
    files = {
        "promptc.toml": CONFIG,
        "fragments/caveman.md": CAVEMAN,
        "fragments/wrap.md": WRAP,
        "fragments/flow.md": FLOW,
        "fragments/level.md": LEVEL,
        "fragments/mod.md": MOD.format("\n".join(draw(st.lists(st.sampled_from(MOD_PIECES))))),
    }
    names = draw(st.lists(st.sampled_from(["a", "b", "e", "p"]), min_size=1, max_size=3))
    for name in set(names):
        pieces = draw(st.lists(st.sampled_from(PIECES), max_size=7))
        glue = draw(st.sampled_from(["\n", "\n\n"]))
        mode = "primary" if name == "p" else "subagent"
        files[f"specs/agents/{name}.md"] = (
            f"---\ndescription: Agente {name} de prueba.\nmode: {mode}\n---\n{glue.join(pieces)}\n"
        )
    return {path: text.encode() for path, text in files.items()}


# --- rendering without anchors -------------------------------------------------------


def _renders(config: Config, target: str, mapped: bool) -> tuple[Any, ...]:
    bundle = load_bundle(config)
    composition = compose_bundle(bundle, target)
    engine = composition._engine
    texts = []
    for units in engine.kinds():
        for unit in units:
            if unit.source.ok:
                rendered = engine.render(unit, {"target": target}, (), strip=False, mapped=mapped)
                texts.append((unit.kind, unit.name, rendered.text, rendered.nothing))
                assert (rendered.anchors == ()) is (not mapped) or not rendered.text
    return tuple(texts), engine.result()


def _render_case(files: dict[str, bytes]) -> None:
    with bundle_on_disk(files) as (_, config):
        for target in ("opencode", "claude"):
            assert _renders(config, target, mapped=False) == _renders(config, target, mapped=True)
            bundle = load_bundle(config)
            composition = compose_bundle(bundle, target)
            for ident in composition.agents:  # the maps are those of a rendering with anchors
                mapped = composition._engine.render(
                    next(u for u in composition._engine.agents if u.name == ident),
                    {"target": target},
                    (),
                    strip=False,
                )
                assert composition.agents[ident] == mapped.text
                expected = compose_source_map(mapped.text, mapped.anchors)
                assert composition.agent_maps[ident] == expected


def compose_source_map(text: str, anchors: Any) -> Any:
    from compiler.compose import source_map

    return source_map(text, anchors)


@settings(max_examples=100, deadline=None)
@given(files=snippet_bundles())
def test_rendering_without_anchors_is_rendering_with_them(files: dict[str, bytes]) -> None:
    _render_case(files)


@settings(max_examples=100, deadline=None)
@given(files=bundles())
def test_rendering_without_anchors_holds_on_hostile_bundles(files: dict[str, bytes]) -> None:
    _render_case(files)


# --- verdicts and calls remembered per text --------------------------------------------


class _Forgets(dict):  # type: ignore[type-arg]
    """A memo that never holds anything: every verdict and call is worked out again."""

    def __setitem__(self, key: object, value: object) -> None:
        pass

    def add(self, key: object) -> None:
        pass


def _engine_state(config: Config, target: str, remember: bool) -> tuple[Any, ...]:
    engine = compose._Engine(load_bundle(config), target, str)
    if not remember:
        engine.clean = _Forgets()  # type: ignore[assignment]
        engine.verdicts = _Forgets()
        engine.calls = _Forgets()
    engine.check()
    units = [
        (u.kind, u.name, u.problems, u.bad, u.conditions, u.includes, u.refs, u.chain)
        for u in [*engine.agents, *engine.modes, *engine.skills, *engine.fragments.values()]
    ]
    composition = compose.Composition(engine)
    texts = [dict(kind) for kind in (composition.agents, composition.modes, composition.skills)]
    return units, texts, composition.findings, composition.used


def _memo_case(files: dict[str, bytes]) -> None:
    with bundle_on_disk(files) as (_, config):
        for target in ("opencode", "claude"):
            remembered = _engine_state(config, target, remember=True)
            assert remembered == _engine_state(config, target, remember=False)


@settings(max_examples=100, deadline=None)
@given(files=snippet_bundles())
def test_checks_and_calls_remembered_per_text_are_the_plain_ones(files: dict[str, bytes]) -> None:
    _memo_case(files)


@settings(max_examples=100, deadline=None)
@given(files=bundles())
def test_checks_and_calls_remembered_hold_on_hostile_bundles(files: dict[str, bytes]) -> None:
    _memo_case(files)
