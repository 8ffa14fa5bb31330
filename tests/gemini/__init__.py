"""Gemini CLI: its target, its decision model held to the real binary, its conformance runs."""
