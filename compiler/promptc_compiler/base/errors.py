"""Exceptions that end a run with a message instead of a traceback."""

from __future__ import annotations


class PromptcError(Exception):
    """An expected failure: printed as one line, mapped to an exit code."""

    exit_code = 1


class ConfigError(PromptcError):
    """A bad or unreadable configuration: exit 2."""

    exit_code = 2


class UsageError(PromptcError):
    """A command line that cannot be carried out: exit 2."""

    exit_code = 2
