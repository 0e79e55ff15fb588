"""Secret redaction shared by everything that writes user text: `redact(text) -> text`.

Each secret becomes `[FILTERED]`; the text around it (a key name, a user name, a
host, the auth scheme, a flag) is kept so the line still says what happened.

Every rule has anchors: lowercase words at which a match can begin (`://`, `password`,
`mysql`, `ghp_`). They are found with `str.find` (fast), and only there is the rule's
pattern tried, so text without any anchor costs one `lower()` and `re` is not even
imported. Linear time: a match attempt is bounded or stops at the end of its token run,
and a pattern that begins at the start of a run (lookbehind) fails at once inside one.
Applying `redact` twice changes nothing (`[FILTERED]` never matches a rule).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from ipaddress import IPv4Network, IPv6Network

FILTERED = "[FILTERED]"


class _Lazy:
    """A regex compiled on first use: the hook path imports this module but rarely needs one.

    `re` itself is imported only then: most hook calls carry no trigger word at all.
    """

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.source)
        return self._compiled


_NOT_FILTERED = r"(?!\[FILTERED\])"

# --- tokens recognisable by their prefix ------------------------------------------------
# `(?<![...])` pins a match to the start of a token-character run.
_RUN_START = r"(?<![A-Za-z0-9_\-])"
_PREFIXED_TOKENS = _Lazy(
    _RUN_START + r"(?:"
    r"gh[pousr]_[A-Za-z0-9]{30,}"  # GitHub classic tokens
    r"|github_pat_[A-Za-z0-9_]{22,}"  # GitHub fine-grained tokens
    r"|glpat-[A-Za-z0-9_\-]{20,}"  # GitLab
    r"|sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"  # Anthropic / OpenAI
    r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}"  # Stripe secret / restricted keys
    r"|whsec_[A-Za-z0-9+/=]{20,}"  # Stripe webhook signing secrets
    r"|xox[abposr]-[A-Za-z0-9\-]{10,}"  # Slack
    r"|xapp-[A-Za-z0-9\-]{10,}"  # Slack app-level
    r"|(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"  # AWS access key ids
    r"|AIza[A-Za-z0-9_\-]{35}"  # Google API keys
    r"|npm_[A-Za-z0-9]{36}"  # npm
    r"|hf_[A-Za-z0-9]{30,}"  # Hugging Face
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"  # JWT
    r"|SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"  # SendGrid
    r")"
)
_TOKEN_PREFIXES = (
    *("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "sk_live_"),
    *("sk_test_", "rk_live_", "rk_test_", "whsec_", "xox", "xapp-", "akia", "asia", "aiza"),
    *("npm_", "hf_", "eyj", "sg."),
)

# --- headers ------------------------------------------------------------------------------
_AUTH_SCHEME = r"(?:bearer|basic|digest|token|bot|apikey|negotiate)[ \t]{1,8}"
# Starts at `authorization`: a `proxy-` before it stays as it is.
_AUTH_HEADER = _Lazy(
    r"(?i)(?<![A-Za-z0-9_])(authorization[\"']?[ \t]{0,8}[:=][ \t]{0,8}[\"']?"
    r"(?:" + _AUTH_SCHEME + r")?)"
    # The scheme is never the credential (keeps `Bearer [FILTERED]` stable).
    + _NOT_FILTERED + r"(?!" + _AUTH_SCHEME + r")([^\s\"',;]+)"
)  # fmt: skip
# A bare `Bearer <token>` outside a header (curl -H, logs). The token must look like one.
_BEARER = _Lazy(
    r"(?i)(?<![A-Za-z0-9_\-])(bearer[ \t]{1,8})" + _NOT_FILTERED + r"([A-Za-z0-9._~+/=\-]{16,})"
)

# --- key = value assignments (env, JSON, YAML, TOML, query strings) ----------------------
# The key must END with one of these words: `GITHUB_TOKEN`, `db_password`, `clientSecret`,
# `x-api-key`, `DB_PASS`, `MYSQL_PWD`, `Pwd` (ODBC), `AccountKey` (Azure), `SECRET_KEY_BASE`;
# but not `max_tokens`, `token_count`, `password_reset`, `secrets`, `bypass`, `OLDPWD`.
# Each alternative starts with its anchor word; what a `key` needs before it is looked
# behind for (`api_key`, `AccessKey`), so a plain `key=` is left alone.
_KEY_OWNERS = ("api", "access", "private", "auth", "account")
_SECRET_WORD = (
    r"(?:pass(?:word|wd|phrase)|(?<=[_\-])pass|(?<![A-Za-z0-9.$])pwd"
    r"|secret(?:[_\-]?key(?:[_\-]?base)?)?|token|(?:"
    + "|".join(f"(?<={owner})|(?<={owner}[_\\-])" for owner in _KEY_OWNERS)
    + r")key)"
)
_SECRET_ANCHORS = ("pass", "pwd", "secret", "token", "key")
# A `;` inside a bare value (`DB_PASSWORD=ab;cd` in a .env file) belongs to it, unless it
# ends the value: before a blank, a quote, another `;`, the end, or the next `Key=` of a
# connection string (`Pwd=x;Server=db`).
_INNER_SEMICOLON = r";(?![\s;\"']|$|[A-Za-z][A-Za-z0-9 _.\-]{0,40}=)"
_VALUE = (
    r"(?:\"" + _NOT_FILTERED + r"(?P<dq>[^\"\n]+)\""
    r"|'" + _NOT_FILTERED + r"(?P<sq>[^'\n]+)'"
    r"|[\"']?"
    + _NOT_FILTERED
    + r"(?P<bare>[^\s\"',;&}\]\)=:](?:[^\s\"',;&}\]\)]|"
    + _INNER_SEMICOLON
    + r")*))"
)
# Bare values that are code or references, not secrets: `token: str`, `password=None`,
# `password=$DB_PASSWORD`, `token=os.environ[`, `password=args.password`.
_NOT_A_SECRET = _Lazy(
    r"(?i)(?:[$%].*|[A-Za-z_][A-Za-z0-9_.]*[(\[].*|(?:str|string|int|bool|bytes|number|any"
    r"|none|null|nil|true|false|undefined)|[A-Za-z0-9_.]*" + _SECRET_WORD + r")"
)
# The match starts at the secret word: whatever precedes it in the key (`DB_`, `x-`) is
# kept as it is.
_ASSIGNMENT = _Lazy(
    r"(?i)(?P<key>" + _SECRET_WORD + r")"
    r"(?P<sep>[\"']?[ \t]{0,8}:?=[ \t]{0,8}|[\"']?[ \t]{0,8}:[ \t]{0,8})" + _VALUE
)
# Command-line flags with a space: `--password hunter2`, `--api-key x` (not `-p`: too
# ambiguous). The match starts at the secret word too; `_flag` checks the dashes before it.
_FLAG = _Lazy(r"(?i)(?P<key>" + _SECRET_WORD + r")(?P<sep>[ \t]{1,8})(?!-)" + _VALUE)
_FLAG_START = _Lazy(r"(?:^|[^A-Za-z0-9_\-])--?(?:[A-Za-z0-9]{1,20}-){0,3}\Z")

# Short flags that carry a password only for some programs (`mkdir -p`, `ssh -p 22` do not):
# the program's name anchors the match, then its own arguments are scanned (bounded, and
# never past the end of that command) for the flag.
_PROGRAM_START = r"(?<![A-Za-z0-9_.\-])"
_SAME_COMMAND = r"(?![A-Za-z0-9_\-])[^\n;|&]{0,300}?[ \t]"


def _program_flag(programs: str, flag: str, separator: str) -> _Lazy:
    return _Lazy(
        _PROGRAM_START + r"(?:" + programs + r")" + _SAME_COMMAND
        + r"(?P<key>" + flag + r")(?P<sep>" + separator + r")(?!-)" + _VALUE
    )  # fmt: skip


# `mysql -psecret` (attached: `-p secret` would make `secret` the database name)
_MYSQL_P = _program_flag(r"mysql(?:dump|admin|import|show|check|pump|sh)?|mariadb", "-p", "")
# `sshpass -p secret`, `redis-cli -a secret`, `docker login -p secret`
_SSHPASS_P = _program_flag("sshpass", "-p", r"[ \t]{0,8}")
_REDIS_A = _program_flag("redis-cli", "-a", r"[ \t]{0,8}")
# Starts at `login`, the program looked behind for (one anchor instead of seven).
_LOGIN_P = _program_flag(
    "(?:"
    + "|".join(f"(?<={program} )" for program in ("docker", "podman", "nerdctl", "buildah"))
    + "|".join(("", *(f"(?<={program} )" for program in ("skopeo", "registry", "oras"))))
    + ")login",
    "-p",
    r"[ \t]{1,8}|=",
)
# `curl -u user:secret`, `curl --proxy-user=user:secret`, `curl -su user:secret`
_CURL_USER = _Lazy(
    _PROGRAM_START + r"curl" + _SAME_COMMAND
    + r"(?P<key>-[A-Za-z]{0,8}[uU]|--user|--proxy-user)(?P<sep>[ \t]{1,8}|=|)"
    + r"(?P<user>[\"']?[^\s:\"']{0,128}:)" + _NOT_FILTERED + r"(?P<secret>[^\s\"']+)"
)  # fmt: skip

# --- cookies: `Cookie:` / `Set-Cookie:` headers, `curl -b` / `--cookie` --------------------
# The header's value runs to the end of its line or quote; each `name=value` in it loses
# its value (a cookie is a session credential), the names and attributes stay.
_COOKIE_HEADER = _Lazy(
    r"(?i)(?<![A-Za-z0-9_])(cookie[\"']?[ \t]{0,8}:[ \t]{0,8})([^\r\n\"']{1,8192})"
)
_CURL_COOKIE = _Lazy(
    _PROGRAM_START + r"curl" + _SAME_COMMAND
    + r"(-[A-Za-z]{0,8}b|--cookie)([ \t]{1,8}|=|)([\"']?)((?<=[\"'])[^\r\n\"']*=[^\r\n\"']*|[^\s\"']*=[^\s\"']*)"
)  # fmt: skip
_COOKIE_PAIR = _Lazy(r"([^\s=;,]{1,256}=)(?!\[FILTERED\])([^;,\s][^;\r\n]*)")
# Set-Cookie attributes: not secrets.
_COOKIE_ATTRIBUTES = ("path=", "domain=", "expires=", "max-age=", "samesite=", "priority=")

# --- credential files: .netrc and .pgpass lines ---------------------------------------------
# `machine h login u password secret` on one line, or `password secret` alone on its line
# (netrc's other layout), never `login ok, password accepted`.
_NETRC_INLINE = _Lazy(
    r"(?<![A-Za-z0-9_\-])((?:machine[ \t]{1,8}[^\s]{1,256}|default)"
    r"[ \t]{1,8}login[ \t]{1,8}[^\s]{1,256}[ \t]{1,8}password[ \t]{1,8})"
    + _NOT_FILTERED + r"([^\s]+)"
)  # fmt: skip
_NETRC_LINE = _Lazy(r"(?m)([ \t]{0,16}password[ \t]{1,8})" + _NOT_FILTERED + r"([^\s]+)(?=[ \t]*$)")
# `host:port:database:user:password`, a whole line (tried once per line holding a colon).
_PGPASS = _Lazy(
    r"(?m)((?![0-9]{1,255}:)[^:\s]{1,255}:(?:[0-9]{1,5}|\*):[^:\s]{1,255}:[^:\s]{1,255}:)"
    + _NOT_FILTERED + r"(\S+)(?=[ \t]*$)"
)  # fmt: skip

# --- connection strings: keep scheme, user and host, drop the password --------------------
# Starts at the literal `://`, after a scheme character.
_URL_PASSWORD = _Lazy(
    r"(?<=[A-Za-z0-9+.\-])(://[^\s:/@\"'<>]{0,128}:)" + _NOT_FILTERED + r"([^\s@/\"'<>]+)(@)"
)

# --- PEM private keys ---------------------------------------------------------------------
_PEM_BEGIN = _Lazy(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----")
_PEM_END = _Lazy(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----")
_PEM_BODY_LINE = _Lazy(r"[A-Za-z0-9+/=:\- \t\r]*")
_PEM_BASE64_LINE = _Lazy(r"[A-Za-z0-9+/=]{1,80}")

# --- private network addresses (opt-in) ---------------------------------------------------
_IPV4 = _Lazy(r"(?<![0-9.])(?:10|172|192)\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}(?![0-9]|\.[0-9])")
_IPV6_ULA = _Lazy(r"(?i)(?<![0-9a-z:])f[cd][0-9a-f]{2}:[0-9a-f:]{1,36}(?:%[A-Za-z0-9]{1,15})?")


_networks: tuple[list[IPv4Network], IPv6Network] | None = None


def _private_networks() -> tuple[list[IPv4Network], IPv6Network]:
    global _networks
    if _networks is None:
        import ipaddress  # only when an address-like string was seen

        v4 = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")
        _networks = [ipaddress.IPv4Network(n) for n in v4], ipaddress.IPv6Network("fc00::/7")
    return _networks


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
        if match.group("key").lower() == "pwd" and value.startswith(("/", "~")):
            return match.group(0)  # the shell's working directory, not a password
        start, end = match.start(group) - match.start(), match.end(group) - match.start()
        text = match.group(0)
        return text[:start] + FILTERED + text[end:]
    return match.group(0)


def _flag(match: re.Match[str]) -> str:
    start = match.start()
    if not _FLAG_START.compiled.search(match.string, max(0, start - 80), start):
        return match.group(0)
    return _assignment(match)


def _curl_user(match: re.Match[str]) -> str:
    secret = match.group("secret")
    if _NOT_A_SECRET.compiled.fullmatch(secret):  # `-u user:$TOKEN`
        return match.group(0)
    return match.group(0)[: match.start("secret") - match.start()] + FILTERED


def _cookie_values(pairs: str) -> str:
    def value(match: re.Match[str]) -> str:
        if match.group(1).lower().lstrip().endswith(_COOKIE_ATTRIBUTES):
            return match.group(0)
        return match.group(1) + FILTERED

    return _COOKIE_PAIR.compiled.sub(value, pairs)


def _cookie_header(match: re.Match[str]) -> str:
    return match.group(1) + _cookie_values(match.group(2))


def _curl_cookie(match: re.Match[str]) -> str:
    start = match.start(4) - match.start()
    return match.group(0)[:start] + _cookie_values(match.group(4))


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

    A block cut short (no END line) is filtered through its last base64-looking line, and
    one cut at its start (text indexed in pieces: an END line with no BEGIN before it)
    from its first. One forward walk: the END search is not repeated once it has failed.
    """
    if "PRIVATE KEY" not in text:
        return text
    out: list[str] = []
    pos = 0
    first_begin = _PEM_BEGIN.compiled.search(text)
    # Every END line before the first BEGIN is the tail of a cut block: all of them go in
    # this pass, so a second redaction finds nothing left to filter.
    while (orphan_end := _PEM_END.compiled.search(text, pos)) is not None and (
        first_begin is None or orphan_end.start() < first_begin.start()
    ):
        out.append(text[pos : _start_of_key_body(text, orphan_end.start(), floor=pos)] + FILTERED)
        pos = orphan_end.end()
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


def _start_of_key_body(text: str, end_line: int, *, floor: int) -> int:
    """Start of the base64 lines just before the END line at `end_line`, not before `floor`.

    Body lines are full width (64 or 70 characters) except the last one, so a short line
    further up is ordinary text and stays.
    """
    start, last = end_line, True
    while start > floor:
        previous = max(floor, text.rfind("\n", 0, start - 1) + 1)
        line = text[previous:start].rstrip("\r\n")
        if not _PEM_BASE64_LINE.compiled.fullmatch(line) or (not last and len(line) < 48):
            return start
        start, last = previous, False
    return start


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


class _Rule:
    """A pattern, what replaces its match, and the lowercase words at which a match begins
    (with `line_start`, at the start of the line holding such a word)."""

    __slots__ = ("anchors", "line_start", "pattern", "replace")

    def __init__(
        self,
        pattern: _Lazy,
        replace: Callable[[re.Match[str]], str],
        anchors: tuple[str, ...],
        *,
        line_start: bool = False,
    ) -> None:
        self.pattern, self.replace, self.anchors = pattern, replace, anchors
        self.line_start = line_start


_RULES = (
    _Rule(_URL_PASSWORD, _url_password, ("://",)),
    _Rule(_MYSQL_P, _assignment, ("mysql", "mariadb")),
    _Rule(_SSHPASS_P, _assignment, ("sshpass",)),
    _Rule(_REDIS_A, _assignment, ("redis-cli",)),
    _Rule(_LOGIN_P, _assignment, ("login",)),
    _Rule(_CURL_USER, _curl_user, ("curl",)),
    _Rule(_NETRC_INLINE, _keep_prefix, ("machine", "default")),
    _Rule(_NETRC_LINE, _keep_prefix, ("password",), line_start=True),
    _Rule(_PGPASS, _keep_prefix, (":",), line_start=True),
    _Rule(_AUTH_HEADER, _keep_prefix, ("authorization",)),
    _Rule(_COOKIE_HEADER, _cookie_header, ("cookie",)),
    _Rule(_CURL_COOKIE, _curl_cookie, ("curl",)),
    _Rule(_BEARER, _bearer, ("bearer",)),
    _Rule(_PREFIXED_TOKENS, _token, _TOKEN_PREFIXES),
    _Rule(_ASSIGNMENT, _assignment, _SECRET_ANCHORS),
    _Rule(_FLAG, _flag, _SECRET_ANCHORS),
)
_NETWORK_RULES = (
    _Rule(_IPV4, _private_ipv4, ("10.", "172.", "192.")),
    _Rule(_IPV6_ULA, _private_ipv6, ("fc", "fd")),
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


def explicit_redaction_off() -> bool:
    """Whether content indexed on request (`ctx_index`, `ctxmode index`) is stored verbatim.

    Only there: what ctxmode stores on its own (captured events, command output, logs,
    fetched pages) is always filtered.
    """
    from ctxmode import settings

    return not settings.flag(settings.REDACT)


def _lower_same_length(text: str) -> str:
    """`text.lower()`, keeping every index valid (a few characters lower to two)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _one_pass(text: str, rules: tuple[_Rule, ...]) -> str:
    text = _redact_pem(text)
    lowered = _lower_same_length(text)
    for rule in rules:
        starts = _match_starts(lowered, rule)
        if starts:
            redacted = _apply(rule, text, starts)
            if redacted is not text:
                text, lowered = redacted, _lower_same_length(redacted)
    return text


def _match_starts(lowered: str, rule: _Rule) -> list[int]:
    starts: set[int] = set()
    for anchor in rule.anchors:
        at = lowered.find(anchor)
        while at >= 0:
            if rule.line_start:  # one start per line: go on from the next line
                starts.add(lowered.rfind("\n", 0, at) + 1)
                end = lowered.find("\n", at)
                at = -1 if end < 0 else lowered.find(anchor, end)
                continue
            starts.add(at)
            at = lowered.find(anchor, at + 1)
    return sorted(starts)


def _apply(rule: _Rule, text: str, starts: list[int]) -> str:
    """`text` with the rule's matches at `starts` replaced (left to right, never overlapping)."""
    pattern = rule.pattern.compiled
    out: list[str] = []
    done = 0  # text[:done] is settled
    for start in starts:
        if start < done:
            continue
        match = pattern.match(text, start)
        if match is None:
            continue
        out.append(text[done:start])
        out.append(rule.replace(match))
        done = match.end()
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)
