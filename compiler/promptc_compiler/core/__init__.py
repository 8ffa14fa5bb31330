"""Core stages: load, compose, validate; the config, the body scanner and the checked
model (a bundle composed for one target). Knows no runtime but OpenCode, whose spec
format is the source model."""
