"""Which network addresses a fetch may reach: pure classification of IPs and host names (SSRF).

Every address a host resolves to gets a verdict: "blocked" (never fetched: link-local and
cloud metadata, unspecified, multicast, reserved), "private" (loopback, RFC 1918, ULA, CGNAT:
allowed unless strict mode) or "public". IP literals in the odd spellings the C resolver
accepts (`2852039166`, `0xa9fea9fe`, `0251.0376.0251.0376`, `169.254.43518`) are parsed the
same way it does, and IPv4 addresses carried inside IPv6 are judged as the IPv4 they reach.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from ctxmode import settings
from ctxmode.fetch.errors import FetchError

Verdict = Literal["public", "private", "blocked"]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

# First match wins, so the specific metadata addresses come before the ranges holding them.
_IPV4_RULES: tuple[tuple[ipaddress.IPv4Network, Verdict, str], ...] = (
    (_V4("100.100.100.200/32"), "blocked", "cloud metadata"),  # Alibaba Cloud
    (_V4("192.0.0.192/32"), "blocked", "cloud metadata"),  # Oracle Cloud
    (_V4("169.254.0.0/16"), "blocked", "link-local/cloud metadata"),
    (_V4("0.0.0.0/8"), "blocked", "unspecified ('this network')"),
    (_V4("224.0.0.0/4"), "blocked", "multicast"),
    (_V4("240.0.0.0/4"), "blocked", "reserved/broadcast"),
    (_V4("127.0.0.0/8"), "private", "loopback"),
    (_V4("10.0.0.0/8"), "private", "private network"),
    (_V4("172.16.0.0/12"), "private", "private network"),
    (_V4("192.168.0.0/16"), "private", "private network"),
    (_V4("100.64.0.0/10"), "private", "carrier-grade NAT"),
    (_V4("192.0.0.0/24"), "private", "special-purpose"),
    (_V4("198.18.0.0/15"), "private", "benchmarking"),
    (_V4("192.0.2.0/24"), "private", "documentation"),
    (_V4("198.51.100.0/24"), "private", "documentation"),
    (_V4("203.0.113.0/24"), "private", "documentation"),
)

_IPV6_RULES: tuple[tuple[ipaddress.IPv6Network, Verdict, str], ...] = (
    (_V6("::/128"), "blocked", "unspecified"),
    (_V6("fd00:ec2::254/128"), "blocked", "cloud metadata"),  # AWS IMDS over IPv6
    (_V6("fe80::/10"), "blocked", "link-local"),
    (_V6("ff00::/8"), "blocked", "multicast"),
    (_V6("100::/64"), "blocked", "discard-only"),
    (_V6("::1/128"), "private", "loopback"),
    (_V6("fc00::/7"), "private", "unique local"),
    (_V6("fec0::/10"), "private", "site-local"),
    (_V6("2001:db8::/32"), "private", "documentation"),
)

# Prefixes whose low 32 bits are an IPv4 address the packet ends up at.
_EMBEDDED_V4_PREFIXES: tuple[ipaddress.IPv6Network, ...] = (
    _V6("::ffff:0:0/96"),  # IPv4-mapped
    _V6("::/96"),  # IPv4-compatible (deprecated); :: and ::1 are matched before this is used
    _V6("::ffff:0:0:0/96"),  # IPv4-translated
    _V6("64:ff9b::/96"),  # NAT64 well-known prefix
)

# Names that reach a metadata service without looking like one.
BLOCKED_HOSTNAMES = frozenset(
    {
        "metadata.google.internal",
        "metadata.goog",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
    }
)


@dataclass(frozen=True)
class AddressVerdict:
    """One address's classification and the reason, e.g. ("blocked", "link-local/cloud metadata")."""

    address: str
    verdict: Verdict
    reason: str
    via_ipv4: str | None = None  # the IPv4 address an IPv6 form carries, when it carries one


class PolicyError(FetchError):
    """A URL or address the policy refuses; the message is one line for the user."""


def strict_from_env(environ: dict[str, str] | None = None) -> bool:
    """Whether CTXMODE_FETCH_STRICT (or the reference's names) asks to block private addresses."""
    return settings.flag(settings.FETCH_STRICT, environ)


def strip_zone(host: str) -> str:
    """`[fe80::1%eth0]` -> `fe80::1` (brackets, URL-escaped and plain zone ids removed)."""
    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host.split("%", 1)[0]


def parse_inet_aton(text: str) -> ipaddress.IPv4Address | None:
    """Parse an IPv4 address the way C `inet_aton` does, or None.

    1-4 parts separated by dots, each decimal, octal (leading 0) or hex (0x); the last part
    fills all remaining bytes, so `127.1` is 127.0.0.1 and `2852039166` is 169.254.169.254.
    """
    parts = text.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values: list[int] = []
    for part in parts:
        value = _parse_aton_part(part)
        if value is None:
            return None
        values.append(value)
    *leading, last = values
    if any(v > 0xFF for v in leading) or last >= 1 << (8 * (4 - len(leading))):
        return None
    number = last
    for index, value in enumerate(leading):
        number |= value << (8 * (3 - index))
    return ipaddress.IPv4Address(number)


def _parse_aton_part(part: str) -> int | None:
    lowered = part.lower()
    if lowered.startswith("0x"):
        digits, base = lowered[2:], 16
        allowed = "0123456789abcdef"
    elif len(part) > 1 and part.startswith("0"):
        digits, base, allowed = part[1:], 8, "01234567"
    else:
        digits, base, allowed = part, 10, "0123456789"
    if not digits or any(ch not in allowed for ch in digits):
        return None
    return int(digits, base)


def parse_ip_literal(host: str) -> IPAddress | None:
    """The IP address `host` spells (any inet_aton form, IPv6 with zone id), or None for a name."""
    bare = strip_zone(host)
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    return parse_inet_aton(bare) if bare and bare[0].isdigit() else None


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address in (ipaddress.IPv6Address("::"), ipaddress.IPv6Address("::1")):
        return None
    for prefix in _EMBEDDED_V4_PREFIXES:
        if address in prefix:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def judge_address(ip: str | IPAddress) -> AddressVerdict:
    """Classify one address; anything that is not a well-formed IP is blocked."""
    address = parse_ip_literal(ip) if isinstance(ip, str) else ip
    if address is None:
        return AddressVerdict(str(ip), "blocked", "not a valid IP address")
    shown = str(address)
    if isinstance(address, ipaddress.IPv6Address):
        inner = _embedded_ipv4(address)
        if inner is not None:
            verdict = judge_address(inner)
            return AddressVerdict(shown, verdict.verdict, verdict.reason, str(inner))
        for network6, verdict6, reason6 in _IPV6_RULES:
            if address in network6:
                return AddressVerdict(shown, verdict6, reason6)
        return AddressVerdict(shown, "public", "public")
    for network4, verdict4, reason4 in _IPV4_RULES:
        if address in network4:
            return AddressVerdict(shown, verdict4, reason4)
    return AddressVerdict(shown, "public", "public")


def classify_address(ip: str) -> Verdict:
    """ "public", "private" or "blocked" for one address string (zone ids and odd forms allowed)."""
    return judge_address(ip).verdict


def normalize_hostname(host: str) -> str:
    """Lower-case, zone and brackets stripped, trailing dot removed: the form names are matched in."""
    return strip_zone(host).lower().rstrip(".")


def check_hostname(host: str) -> None:
    """Refuse empty hosts and names that reach cloud metadata services by name."""
    name = normalize_hostname(host)
    if not name:
        raise PolicyError("blocked: the URL has no host")
    if name in BLOCKED_HOSTNAMES:
        raise PolicyError(f"blocked: {name} is a cloud metadata host name")


def check_addresses(host: str, addresses: Iterable[str | IPAddress], *, strict: bool) -> list[str]:
    """Check EVERY address `host` resolved to; return them canonical, or raise PolicyError.

    One bad answer among good ones refuses the host: an attacker controlling DNS picks
    which answer the connection would use.
    """
    approved: list[str] = []
    for address in addresses:
        verdict = judge_address(address)
        if verdict.verdict == "blocked":
            raise PolicyError(_refusal(host, verdict))
        if verdict.verdict == "private" and strict:
            raise PolicyError(_refusal(host, verdict) + " (strict mode: CTXMODE_FETCH_STRICT=1)")
        if verdict.address not in approved:
            approved.append(verdict.address)
    if not approved:
        raise PolicyError(f"blocked: {normalize_hostname(host)} resolved to no address")
    return approved


def _refusal(host: str, verdict: AddressVerdict) -> str:
    name = normalize_hostname(host)
    via = "" if name == verdict.address.lower() else f" ({name} resolves to it)"
    article = "an" if verdict.reason[0] in "aeiou" else "a"
    carried = f" (IPv4 {verdict.via_ipv4})" if verdict.via_ipv4 else ""
    return f"blocked: {verdict.address}{carried} is {article} {verdict.reason} address{via}"


def check_scheme(scheme: str) -> None:
    """Only http and https are fetched."""
    if scheme.lower() not in ("http", "https"):
        shown = f"{scheme}:" if scheme else "no scheme"
        raise PolicyError(f"blocked: only http and https URLs can be fetched (got {shown})")
