"""Codex CLI: its target, its permission translation, decision model and import."""
