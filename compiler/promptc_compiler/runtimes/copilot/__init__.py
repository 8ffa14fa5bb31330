"""GitHub Copilot CLI: its target, the preToolUse hook it writes, its decision model."""
