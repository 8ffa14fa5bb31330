"""Claude Code: its targets (project layout and plugin), its permission translation,
decision model and import."""
