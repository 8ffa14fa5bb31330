"""Secrets in specs, fragments, skills, modes and the config: tokens, keys, passwords.

A prompt is copied into every runtime's files, into the model provider's
logs and into every chat that runs it: a credential written in it is
published. Each is reported where it is written (the message shows only its
first characters), naming the agents and runtimes it reaches. Kinds, after
the formats gitleaks and detect-secrets document:

- aws-access-key (`AKIA`, `ASIA`... and 16 base-32 characters; AWS's own
  documentation key, ending in `EXAMPLE`, is not reported), aws-secret-key
  (40 characters assigned to an `aws_secret_access_key`), gcp-api-key
  (`AIza...`), azure-storage-key (`AccountKey=...`);
- github-token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`),
  gitlab-token (`glpat-`);
- openai-key (`sk-proj-`, `sk-svcacct-`, `sk-admin-`, and keys holding
  `T3BlbkFJ`), anthropic-key (`sk-ant-api03-`, `sk-ant-admin01-`...);
- slack-token (`xoxb-`, `xoxp-`, `xapp-`...), slack-webhook;
- stripe-key (`sk_live_`, `rk_live_`, and the `_test_` ones);
- npm-token, pypi-token, huggingface-token, sendgrid-key, jwt;
- private-key: a `-----BEGIN ... PRIVATE KEY-----` block;
- url-password: `scheme://user:password@host` with a literal password;
- assigned-secret: a value of 12 characters or more, with letters and
  digits and a Shannon entropy of `min_entropy` bits per character or more,
  assigned to a key-like name (`api_key = ...`, `token: ...`,
  `PASSWORD=...`, `Authorization: Bearer ...`). Values that are references,
  not secrets, are not reported: `$VAR`, `${VAR}`, `{{ var }}`, `<token>`,
  `os.environ[...]`, and values saying they are examples (`your-token`,
  `changeme`, `xxxx`, `example`, `redacted`, `...`).

The list is promptc's own rather than detect-secrets' plugins, which miss
OpenAI and Anthropic keys written in a sentence and cost seconds on a large
bundle: docs/security.md has the comparison and its figures.

False positives: a made-up key in an example; write it as a placeholder
(`$OPENAI_API_KEY`, `<token>`), which the model reads as well. No fix is
offered: the secret must be rotated, not only removed.

Options:
    min_entropy (number, default 3.0): bits per character an assigned value
        needs to count as a secret.
    accept (list of tables, default []): findings kept on purpose (see
        hidden-text and docs/security.md); name the kind and the file, and
        never write the secret itself into the config.

Fails:
    Usa la clave AKIAQ3EGWBNB7LKX5R2M para subir a S3.
Passes:
    Usa la clave de `$AWS_ACCESS_KEY_ID` para subir a S3.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from promptc_compiler.base.diagnostics import Problem
from promptc_compiler.rules import exposure
from promptc_compiler.rules.exposure import Finding, Source
from promptc_compiler.runtimes.translations import Translated

ID = "secret"
DEFAULT_LEVEL = "error"
STAGE = False
SECURITY_SEVERITY = "9.0"

# (kind, what it is, the token); a token is matched whole, never inside a longer word.
FORMATS = (
    ("aws-access-key", "an AWS access key id", r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}"),
    (
        "aws-secret-key",
        "an AWS secret access key",
        r"(?i:aws_?secret_?(?:access_?)?key)[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}",
    ),
    ("gcp-api-key", "a Google API key", r"AIza[0-9A-Za-z_-]{35}"),
    ("azure-storage-key", "an Azure storage key", r"AccountKey=[A-Za-z0-9+/]{86}=="),
    ("github-token", "a GitHub token", r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}"),
    ("github-token", "a GitHub token", r"github_pat_[A-Za-z0-9_]{60,}"),
    ("gitlab-token", "a GitLab token", r"glpat-[A-Za-z0-9_-]{20}"),
    ("anthropic-key", "an Anthropic API key", r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{32,}"),
    ("openai-key", "an OpenAI API key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{32,}"),
    ("openai-key", "an OpenAI API key", r"sk-[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}"),
    ("slack-token", "a Slack token", r"xox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{10,}"),
    ("slack-token", "a Slack app token", r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{32,}"),
    (
        "slack-webhook",
        "a Slack webhook",
        r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{20,}",
    ),
    ("stripe-key", "a Stripe secret key", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("npm-token", "an npm token", r"npm_[A-Za-z0-9]{36}"),
    ("pypi-token", "a PyPI token", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
    ("huggingface-token", "a Hugging Face token", r"hf_[A-Za-z]{34}"),
    ("sendgrid-key", "a SendGrid key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    (
        "jwt",
        "a JSON Web Token",
        r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    ),
    (
        "private-key",
        "a private key",
        r"-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----",
    ),
)
# One pass for every format. No lookaround leads an alternative, so the regex
# engine skips ahead to the characters a token can start with; whether a match
# stands alone (not inside a longer word) is checked after.
_FORMATS = re.compile("|".join(f"(?P<f{i}>{token})" for i, (_, _, token) in enumerate(FORMATS)))
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_URL_PASSWORD = re.compile(
    r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@\"'`]{1,64}:([^\s:/@\"'`]{3,64})@[\w.-]+"
)
_ASSIGNED = re.compile(
    r"(?i:api[_.-]?key|apikey|secret|token|passw(?:or)?d|passwd|pwd|credential|access[_.-]?key|"
    r"client[_.-]?secret|auth[_.-]?key)[\w.-]{0,30}?[\"']?[ \t]*(?::=|=>|=|:)[ \t]*[\"']?"
    r"(?P<value>[^\s\"'`,;<>()\[\]{}]{12,200})"
    r"|(?i:bearer)[ \t]+(?P<bearer>[A-Za-z0-9._~+/-]{20,200}=*)"
)
_NOT_SECRET = re.compile(
    r"^(?:\$|%|os\.environ|process\.env|env\()|example|changeme|your[_-]|xxxx|\*\*\*|redacted|"
    r"placeholder|dummy|\.\.\.|<|\{\{",
    re.IGNORECASE,
)
# Lower-case words every match of a group holds: its regex runs only on their lines.
FORMAT_TRIGGERS = (
    "akia", "asia", "abia", "acca", "a3t", "aws", "aiza", "accountkey=", "ghp_", "gho_", "ghu_",
    "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "xox", "xapp-", "hooks.slack.com", "sk_",
    "rk_", "npm_", "pypi-", "hf_", "sg.", "eyj", "private key",
)  # fmt: skip
ASSIGNED_TRIGGERS = ("key", "secret", "token", "passw", "pwd", "credential", "bearer")
KINDS = (*dict.fromkeys(kind for kind, _, _ in FORMATS), "url-password", "assigned-secret")
OPTIONS: dict[str, Any] = {
    "min_entropy": {"type": "number", "minimum": 0, "default": 3.0},
    "accept": exposure.accept_option(KINDS),
}
SHOWN = 4  # characters of a secret a message shows


def check(project: Translated, options: Mapping[str, Any]) -> Iterator[Problem]:
    found = (
        finding
        for source in exposure.of(project).sources
        for finding in _scan(source, options["min_entropy"])
    )
    yield from exposure.report(exposure.of(project), ID, options, found)


def _scan(source: Source, min_entropy: float) -> Iterator[Finding]:
    known: list[Finding] = []
    for start, end in source.windows(FORMAT_TRIGGERS):
        known.extend(_formats(source, start, end))
    for start, end in source.windows(("://",)):
        known.extend(_url_passwords(source, start, end))
    yield from known
    # A value a known format already names (`aws_secret_access_key = ...`) is
    # not reported again as an assigned secret.
    lines = {source.position(finding.offset)[0] for finding in known}
    for start, end in source.windows(ASSIGNED_TRIGGERS):
        for finding in _assigned(source, start, end, min_entropy):
            if source.position(finding.offset)[0] not in lines:
                yield finding


def _formats(source: Source, start: int, end: int) -> Iterator[Finding]:
    text = source.text
    for match in _FORMATS.finditer(text, start, end):
        start, end = match.span()
        if (start and text[start - 1] in _WORD) or (end < len(text) and text[end] in _WORD):
            continue
        index = int(next(name for name, value in match.groupdict().items() if value)[1:])
        kind, what, _ = FORMATS[index]
        token = match.group()
        if kind == "aws-access-key" and token.endswith("EXAMPLE"):
            continue  # AWS's documentation key
        yield _finding(source, match.start(), kind, what, token)


def _url_passwords(source: Source, start: int, end: int) -> Iterator[Finding]:
    for match in _URL_PASSWORD.finditer(source.text, start, end):
        password = match.group(1)
        if not _NOT_SECRET.search(password) and password.lower() not in ("password", "pass"):
            yield _finding(source, match.start(1), "url-password", "a password in a URL", password)


def _assigned(source: Source, start: int, end: int, min_entropy: float) -> Iterator[Finding]:
    for match in _ASSIGNED.finditer(source.text, start, end):
        group = "value" if match.group("value") else "bearer"
        value = match.group(group)
        if _secret_like(value, min_entropy):
            what = "a high-entropy value assigned to a key-like name"
            yield _finding(source, match.start(group), "assigned-secret", what, value)


def _finding(source: Source, offset: int, kind: str, what: str, token: str) -> Finding:
    shown = "" if kind == "private-key" else f" `{token[:SHOWN]}…` ({len(token)} characters)"
    message = f"{what}{shown} is published with every prompt that includes it"
    return Finding(source, offset, kind, message, _HINT)


_HINT = "rotate it, then read it from the environment (`$NAME`) instead of writing it here"


def _secret_like(value: str, min_entropy: float) -> bool:
    """A value with letters and digits, no sign of being a reference or an example,
    and entropy enough to be random."""
    if _NOT_SECRET.search(value):
        return False
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    return entropy(value) >= min_entropy


def entropy(value: str) -> float:
    """Shannon entropy of `value`, in bits per character."""
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())
