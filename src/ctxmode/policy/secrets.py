"""Secret redaction shared by everything that writes user text: `redact(text) -> text`.

Each secret becomes `[FILTERED]`; the text around it (a key name, a user name, a
host, the auth scheme) is kept so the line still says what happened.

Linear time by construction: every pattern either starts with a literal anchored
by a lookbehind (so only the start of a run can begin a match, and the run is
scanned once) or has only bounded quantifiers; PEM blocks are walked by hand.
Applying `redact` twice changes nothing (`[FILTERED]` never matches a rule).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

FILTERED = "[FILTERED]"


class _Lazy:
    """A regex compiled on first use: the hook path imports this module but rarely needs all."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source)
        return self._compiled


_NOT_FILTERED = r"(?!\[FILTERED\])"

# --- tokens recognisable by their prefix ------------------------------------------------
# `(?<![...])` pins a match to the start of a token-character run: one scan per run.
_RUN_START = r"(?<![A-Za-z0-9_\-])"
_PREFIXED_TOKENS = _Lazy(
    r"(?=[gsrxAnhe])"  # a first-character guard lets the scanner skip most positions fast
    + _RUN_START
    + r"(?:"
    r"gh[pousr]_[A-Za-z0-9]{30,}"  # GitHub classic tokens
    r"|github_pat_[A-Za-z0-9_]{22,}"  # GitHub fine-grained tokens
    r"|glpat-[A-Za-z0-9_\-]{20,}"  # GitLab
    r"|sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"  # Anthropic / OpenAI
    r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"  # Stripe secret / restricted keys
    r"|xox[abposr]-[A-Za-z0-9\-]{10,}"  # Slack
    r"|xapp-[A-Za-z0-9\-]{10,}"  # Slack app-level
    r"|(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"  # AWS access key ids
    r"|AIza[A-Za-z0-9_\-]{35}"  # Google API keys
    r"|npm_[A-Za-z0-9]{36}"  # npm
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"  # JWT
    r")"
)

# --- headers ------------------------------------------------------------------------------
_AUTH_SCHEME = r"(?:bearer|basic|digest|token|bot|apikey|negotiate)[ \t]{1,8}"
_AUTH_HEADER = _Lazy(
    r"(?i)(?=[ap])(?<![A-Za-z0-9_\-])((?:proxy-)?authorization[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?"
    r"(?:"
    + _AUTH_SCHEME
    + r")?)"
    # The scheme is never the credential (keeps `Bearer [FILTERED]` stable).
    + _NOT_FILTERED
    + r"(?!"
    + _AUTH_SCHEME
    + r")([^\s\"',;]+)"
)
# A bare `Bearer <token>` outside a header (curl -H, logs). The token must look like one.
_BEARER = _Lazy(
    r"(?i)(?=b)(?<![A-Za-z0-9_\-])(bearer[ \t]{1,8})"
    + _NOT_FILTERED
    + r"([A-Za-z0-9._~+/=\-]{16,})"
)

# --- key = value assignments (env, JSON, YAML, TOML, query strings) ----------------------
# The key must END with one of these words: `GITHUB_TOKEN`, `db_password`, `clientSecret`,
# `x-api-key`; but not `max_tokens`, `token_count`, `password_reset`, `secrets`.
_SECRET_WORD = (
    r"(?:pass(?:word|wd|phrase)|secret(?:[_\-]?key)?|token"
    r"|(?:api|access|private|auth)[_\-]?key|client[_\-]?secret)"
)
_VALUE = (
    r"(?:\"" + _NOT_FILTERED + r"(?P<dq>[^\"\n]+)\""
    r"|'" + _NOT_FILTERED + r"(?P<sq>[^'\n]+)'"
    r"|[\"']?" + _NOT_FILTERED + r"(?P<bare>[^\s\"',;&}\]\)=:][^\s\"',;&}\]\)]*))"
)
# Bare values that are code or references, not secrets: `token: str`, `password=None`,
# `password=$DB_PASSWORD`, `token=os.environ[`, `password=args.password`.
_NOT_A_SECRET = _Lazy(
    r"(?i)(?:[$%].*|[A-Za-z_][A-Za-z0-9_.]*[(\[].*|(?:str|string|int|bool|bytes|number|any"
    r"|none|null|nil|true|false|undefined)|[A-Za-z0-9_.]*" + _SECRET_WORD + r")"
)
# The match starts at the secret word: whatever precedes it in the key (`DB_`, `x-`) is
# kept as it is, and starting there spares a prefix search at every word.
_ASSIGNMENT = _Lazy(
    r"(?i)(?=[pstac])(?P<key>" + _SECRET_WORD + r")"
    r"(?P<sep>[\"']?[ \t]{0,8}:?=[ \t]{0,8}|[\"']?[ \t]{0,8}:[ \t]{0,8})" + _VALUE
)
# Command-line flags with a space: `--password hunter2`, `--api-key x` (not `-p`: too ambiguous).
_FLAG = _Lazy(
    r"(?i)(?=-)(?<![A-Za-z0-9_\-])(?P<key>--?(?:[A-Za-z0-9]{1,20}-){0,3}" + _SECRET_WORD + r")"
    r"(?P<sep>[ \t]{1,8})(?!-)" + _VALUE
)

# --- connection strings: keep scheme, user and host, drop the password --------------------
# Anchored on the literal `://` (fast to find) after a scheme character.
_URL_PASSWORD = _Lazy(
    r"(?<=[A-Za-z0-9+.\-])(://[^\s:/@\"'<>]{0,128}:)" + _NOT_FILTERED + r"([^\s@/\"'<>]+)(@)"
)

# --- PEM private keys ---------------------------------------------------------------------
_PEM_BEGIN = _Lazy(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----")
_PEM_END = _Lazy(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----")
_PEM_BODY_LINE = _Lazy(r"[A-Za-z0-9+/=:\- \t\r]*")

# --- private network addresses (opt-in) ---------------------------------------------------
_IPV4 = _Lazy(
    r"(?=1)(?<![0-9.])(?:10|172|192)\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}(?![0-9]|\.[0-9])"
)
_IPV6_ULA = _Lazy(r"(?i)(?=f)(?<![0-9a-z:])f[cd][0-9a-f]{2}:[0-9a-f:]{1,36}(?:%[A-Za-z0-9]{1,15})?")


@cache
def _private_networks() -> tuple[list[object], object]:
    import ipaddress  # only when an address-like string was seen

    v4 = [ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]
    return v4, ipaddress.ip_network("fc00::/7")


def _token(match: re.Match[str]) -> str:
    text = match.group(0)
    # OpenAI-style `sk-` keys always carry digits; `sk-` + words is prose ("sk-learn-...").
    if text.startswith("sk-") and not any(c.isdigit() for c in text):
        return text
    return FILTERED


def _keep_prefix(match: re.Match[str]) -> str:
    return match.group(1) + FILTERED


def _bearer(match: re.Match[str]) -> str:
    token = match.group(2)
    if not any(c.isdigit() for c in token):  # "Bearer authentication..." is prose
        return match.group(0)
    return match.group(1) + FILTERED


def _assignment(match: re.Match[str]) -> str:
    for group in ("dq", "sq", "bare"):
        value = match.group(group)
        if value is None:
            continue
        if value == FILTERED or (group == "bare" and _NOT_A_SECRET.compiled.fullmatch(value)):
            return match.group(0)
        start, end = match.start(group) - match.start(), match.end(group) - match.start()
        text = match.group(0)
        return text[:start] + FILTERED + text[end:]
    return match.group(0)


def _url_password(match: re.Match[str]) -> str:
    return match.group(1) + FILTERED + match.group(3)


def _private_ipv4(match: re.Match[str]) -> str:
    import ipaddress

    try:
        address = ipaddress.IPv4Address(match.group(0))
    except ValueError:
        return match.group(0)
    v4, _v6 = _private_networks()
    return FILTERED if any(address in net for net in v4) else match.group(0)


def _private_ipv6(match: re.Match[str]) -> str:
    # The run may swallow a trailing colon of the sentence ("fd00::1: down").
    import ipaddress

    text = match.group(0)
    candidate = text.split("%", 1)[0]
    for trimmed in (candidate, candidate.rstrip(":")):
        try:
            address = ipaddress.IPv6Address(trimmed)
        except ValueError:
            continue
        if address not in _private_networks()[1]:
            return text
        kept = candidate[len(trimmed) :] if trimmed != candidate else ""
        return FILTERED + kept
    return text


def _redact_pem(text: str) -> str:
    """Replace each PEM private key block, BEGIN to END, by one marker.

    A block cut short (no END line) is filtered through its last base64-looking line.
    One forward walk: the END search is not repeated once it has failed.
    """
    if "PRIVATE KEY" not in text:
        return text
    out: list[str] = []
    pos = 0
    end: re.Match[str] | None = None
    no_more_ends = False
    while (begin := _PEM_BEGIN.compiled.search(text, pos)) is not None:
        out.append(text[pos : begin.start()])
        if not no_more_ends and (end is None or end.start() < begin.end()):
            end = _PEM_END.compiled.search(text, begin.end())
            no_more_ends = end is None
        next_begin = _PEM_BEGIN.compiled.search(text, begin.end())
        if end is not None and (next_begin is None or end.start() < next_begin.start()):
            pos = end.end()
        else:
            pos = _end_of_key_body(text, begin.end())
        out.append(FILTERED)
    out.append(text[pos:])
    return "".join(out)


def _end_of_key_body(text: str, pos: int) -> int:
    """End of the base64-looking lines that follow a BEGIN line with no END (newline kept)."""
    end = text.find("\n", pos)
    if end < 0:
        return len(text)
    while True:
        following = text.find("\n", end + 1)
        line = text[end + 1 : len(text) if following < 0 else following]
        if not line.strip() or not _PEM_BODY_LINE.compiled.fullmatch(line):
            return end
        end = len(text) if following < 0 else following
        if following < 0:
            return end


# (pattern, replacement, substrings of the lowercased text without which it cannot match)
_Rule = tuple[_Lazy, Callable[[re.Match[str]], str], tuple[str, ...]]
_SECRET_TRIGGERS = ("pass", "secret", "token", "key")
_RULES: tuple[_Rule, ...] = (
    (_URL_PASSWORD, _url_password, ("://",)),
    (_AUTH_HEADER, _keep_prefix, ("authorization",)),
    (_BEARER, _bearer, ("bearer",)),
    (
        _PREFIXED_TOKENS,
        _token,
        (
            *("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "k_live_"),
            *("k_test_", "xox", "xapp-", "akia", "asia", "aiza", "npm_", "hf_", "eyj"),
        ),
    ),
    (_ASSIGNMENT, _assignment, _SECRET_TRIGGERS),
    (_FLAG, _assignment, _SECRET_TRIGGERS),
)
_NETWORK_RULES: tuple[_Rule, ...] = (
    (_IPV4, _private_ipv4, ("10.", "172.", "192.")),
    (_IPV6_ULA, _private_ipv6, ("fc", "fd")),
)


_MAX_PASSES = 4


def redact(text: str, *, private_networks: bool = False) -> str:
    """`text` with tokens, keys, passwords, auth headers and private keys replaced by `[FILTERED]`.

    With `private_networks=True`, private IPv4 (10/8, 172.16/12, 192.168/16) and IPv6
    unique-local (fc00::/7) addresses are filtered too.
    """
    if not text:
        return text
    rules = _NETWORK_RULES + _RULES if private_networks else _RULES
    # A marker can create a match for another rule (it ends a token run), so passes repeat
    # until nothing changes; each pass is linear and real text settles in one or two.
    for _ in range(_MAX_PASSES):
        redacted = _one_pass(text, rules)
        if redacted == text:
            break
        text = redacted
    return text


def _one_pass(text: str, rules: tuple[_Rule, ...]) -> str:
    text = _redact_pem(text)
    lowered = text.lower()
    for pattern, replace, triggers in rules:
        if any(trigger in lowered for trigger in triggers):
            text = pattern.compiled.sub(replace, text)
            lowered = text.lower()
    return text
