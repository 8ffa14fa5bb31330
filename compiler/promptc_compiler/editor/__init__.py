"""Editor front ends: the language server, watch mode, and what they answer (definitions,
hovers, completions, quick fixes)."""
