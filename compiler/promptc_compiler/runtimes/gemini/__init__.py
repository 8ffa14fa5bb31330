"""Gemini CLI: its target (an extension), its policy rules and decision model."""
