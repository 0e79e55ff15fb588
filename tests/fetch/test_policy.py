"""The SSRF address policy: every spelling of an address gets the verdict of the address."""

from __future__ import annotations

import ipaddress
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxmode import settings
from ctxmode.fetch import policy
from ctxmode.fetch.policy import PolicyError, classify_address, parse_inet_aton

ipv4s = st.integers(min_value=0, max_value=2**32 - 1).map(ipaddress.IPv4Address)
ipv6s = st.integers(min_value=0, max_value=2**128 - 1).map(ipaddress.IPv6Address)


def in_network(cidr: str) -> st.SearchStrategy[str]:
    network = ipaddress.ip_network(cidr)
    first = int(network.network_address)
    return st.integers(first, first + network.num_addresses - 1).map(
        lambda n: str(ipaddress.ip_address(n))
    )


def spellings(address: ipaddress.IPv4Address) -> list[str]:
    """The ways the C resolver accepts to write one IPv4 address."""
    n = int(address)
    a, b, c, d = address.packed
    return [
        str(n),
        hex(n),
        f"0{n:o}",
        ".".join(f"0{x:o}" if x else "0" for x in (a, b, c, d)),
        ".".join(hex(x) for x in (a, b, c, d)),
        f"{a}.{b}.{(c << 8) | d}",
        f"{a}.{(b << 16) | (c << 8) | d}",
        f"::ffff:{address}",
        f"::ffff:{(n >> 16):x}:{(n & 0xFFFF):x}",
        f"[::ffff:{address}]",
    ]


@given(ipv4s)
def test_every_spelling_of_an_ipv4_address_gets_its_verdict(address: ipaddress.IPv4Address):
    expected = classify_address(str(address))
    for spelling in spellings(address):
        assert classify_address(spelling) == expected, spelling


@given(ipv4s, st.data())
def test_inet_aton_forms_parse_like_the_c_resolver(address: ipaddress.IPv4Address, data):
    spelling = data.draw(st.sampled_from(spellings(address)[:7]))
    assert parse_inet_aton(spelling) == address
    assert socket.inet_aton(spelling) == address.packed


@given(st.text(alphabet="0123456789abcdefxX.", max_size=24))
def test_inet_aton_parser_agrees_with_the_platform(text: str):
    try:
        expected = ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:
        expected = None
    assert parse_inet_aton(text) == expected


@given(st.text(max_size=40))
def test_any_text_gets_a_verdict_and_non_addresses_are_blocked(text: str):
    verdict = classify_address(text)
    assert verdict in ("public", "private", "blocked")
    if policy.parse_ip_literal(text) is None:
        assert verdict == "blocked"


@pytest.mark.parametrize(
    ("cidr", "verdict"),
    [
        ("169.254.0.0/16", "blocked"),
        ("0.0.0.0/8", "blocked"),
        ("224.0.0.0/4", "blocked"),
        ("240.0.0.0/4", "blocked"),
        ("127.0.0.0/8", "private"),
        ("10.0.0.0/8", "private"),
        ("172.16.0.0/12", "private"),
        ("192.168.0.0/16", "private"),
        ("100.64.0.0/16", "private"),
        ("fe80::/10", "blocked"),
        ("ff00::/8", "blocked"),
        ("fc00::/8", "private"),
    ],
)
@given(data=st.data())
def test_ranges_get_their_verdict(cidr: str, verdict: str, data):
    assert classify_address(data.draw(in_network(cidr))) == verdict


@given(in_network("169.254.0.0/16"))
def test_link_local_is_blocked_through_every_ipv6_wrapper(address: str):
    for wrapped in (f"::ffff:{address}", f"::{address}", f"64:ff9b::{address}"):
        assert classify_address(wrapped) == "blocked"


@given(ipv6s, st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8))
def test_zone_ids_are_ignored(address: ipaddress.IPv6Address, zone: str):
    assert classify_address(f"{address}%{zone}") == classify_address(str(address))
    assert classify_address(f"[{address}%25{zone}]") == classify_address(str(address))


@pytest.mark.parametrize(
    "address",
    [
        "169.254.169.254",
        "2852039166",
        "0xa9fea9fe",
        "0xA9FEA9FE",
        "0251.0376.0251.0376",
        "169.254.43518",
        "169.16689662",
        "::ffff:169.254.169.254",
        "::ffff:a9fe:a9fe",
        "fd00:ec2::254",
        "100.100.100.200",
        "0.0.0.0",
        "::",
        "255.255.255.255",
        "fe80::1%eth0",
        "not-an-ip",
        "",
    ],
)
def test_metadata_and_unusable_addresses_are_blocked(address: str):
    assert classify_address(address) == "blocked"


@pytest.mark.parametrize("address", ["127.0.0.1", "127.1", "::1", "::ffff:127.0.0.1", "10.1.2.3"])
def test_loopback_and_private_networks_are_private(address: str):
    assert classify_address(address) == "private"


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "1.1.1.1"])
def test_internet_addresses_are_public(address: str):
    assert classify_address(address) == "public"


@given(
    st.lists(in_network("8.0.0.0/8"), max_size=4),
    in_network("169.254.0.0/16"),
    st.lists(in_network("8.0.0.0/8"), max_size=4),
    st.booleans(),
)
def test_one_blocked_answer_refuses_the_host(before, bad, after, strict):
    with pytest.raises(PolicyError, match=r"^blocked: .* link-local/cloud metadata address"):
        policy.check_addresses("rebind.example", [*before, bad, *after], strict=strict)


@given(st.lists(in_network("127.0.0.0/8"), min_size=1, max_size=4))
def test_private_answers_pass_unless_strict(addresses):
    assert policy.check_addresses("host.example", addresses, strict=False)
    with pytest.raises(PolicyError, match="strict mode"):
        policy.check_addresses("host.example", addresses, strict=True)


def test_no_answer_refuses_the_host():
    with pytest.raises(PolicyError, match="resolved to no address"):
        policy.check_addresses("empty.example", [], strict=False)


@pytest.mark.parametrize(
    "host", ["metadata.google.internal", "METADATA.GOOGLE.INTERNAL.", "metadata.goog", ""]
)
def test_metadata_host_names_and_empty_hosts_are_refused(host: str):
    with pytest.raises(PolicyError, match=r"^blocked: "):
        policy.check_hostname(host)


@pytest.mark.parametrize("scheme", ["file", "ftp", "gopher", "javascript", "data", ""])
def test_only_http_and_https_are_allowed(scheme: str):
    with pytest.raises(PolicyError, match="only http and https"):
        policy.check_scheme(scheme)
    policy.check_scheme("http")
    policy.check_scheme("HTTPS")


@pytest.mark.parametrize("name", settings.FETCH_STRICT.names)
@pytest.mark.parametrize(
    ("value", "strict"), [("1", True), ("true", True), ("0", False), ("", False)]
)
def test_strict_mode_reads_every_reference_variable(name: str, value: str, strict: bool):
    assert policy.strict_from_env({name: value}) is strict
    assert policy.strict_from_env({}) is False
