"""The `models` option of every target but OpenCode: OpenCode model ids mapped
to the runtime's own, and what a spec's model becomes through it (or through
its own `targets.<target>.model`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from promptc_compiler.base.source import SOURCE
from promptc_compiler.core.project import Spec


def models_option(runtime: str, examples: str) -> dict[str, Any]:
    """The JSON Schema of a target's `models` option."""
    return {
        "type": "object",
        "additionalProperties": {"type": "string", "minLength": 1},
        "default": {},
        "description": f"OpenCode model id -> {runtime} model ({examples}).",
    }


def mapped_model(
    spec: Spec, models: Mapping[str, str], target: str, runtime: str, fallback: str
) -> tuple[str | None, str | None]:
    """(the runtime's model, note): the spec's `targets.<target>.model`, else its
    OpenCode model through `models`; None (the runtime's own default) when the
    spec names no model or one the map lacks, with a note naming `fallback`
    (what the agent runs on then)."""
    override = spec.override(target).get("model")
    if isinstance(override, str) and override:
        return override, None
    model = spec.view(SOURCE).get("model")
    if not isinstance(model, str) or not model:
        return None, None
    if model in models:
        return models[model], None
    return None, f"model `{model}` has no {runtime} counterpart in the `models` option; {fallback}"
