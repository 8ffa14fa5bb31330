"""Claude Code's own rules: what a spec must be for Claude Code to read it as OpenCode does.

Each module is a rule of promptc_compiler.rules' contract, registered through
the package's adapter (promptc_compiler.runtimes.claude.RULES).
"""
