"""The OpenCode permission model: ordered rules, last match wins, wildcards, shell lines,
delegation, coverage; the call matrix and OpenCode's decision of each call. Every
translation into another runtime is held to it."""
