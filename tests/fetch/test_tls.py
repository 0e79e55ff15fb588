"""HTTPS to a pinned address still sends SNI for, and verifies the certificate of, the host name."""

from __future__ import annotations

import datetime
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from ctxmode.fetch.client import fetch_raw
from ctxmode.fetch.errors import FetchError

from .conftest import LocalServer, fixed_resolver, respond


def self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / f"{name}.pem", directory / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[LocalServer, ssl.SSLContext, list[str]]]:
    cert, key = self_signed(tmp_path, "pinned.test")
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    names: list[str] = []
    server_side.sni_callback = lambda sock, name, ctx: names.append(name)  # type: ignore[assignment]
    trust = ssl.create_default_context(cafile=str(cert))
    with LocalServer(tls=server_side) as server:
        yield server, trust, names


def test_https_to_a_pinned_address_sends_sni_and_verifies_the_name(tls_server):
    server, trust, names = tls_server
    server.routes["/"] = respond("secure")
    resolver = fixed_resolver({"pinned.test": ["127.0.0.1"]})
    url = f"https://pinned.test:{server.port}/"
    raw = fetch_raw(url, resolver=resolver, ssl_context=trust)
    assert raw.body == b"secure"
    assert names == ["pinned.test"]
    assert server.host_headers == [f"pinned.test:{server.port}"]


def test_a_certificate_for_another_name_is_refused_in_one_line(tls_server):
    server, trust, _ = tls_server
    server.routes["/"] = respond("secure")
    resolver = fixed_resolver({"other.test": ["127.0.0.1"]})
    with pytest.raises(FetchError) as caught:
        fetch_raw(f"https://other.test:{server.port}/", resolver=resolver, ssl_context=trust)
    message = str(caught.value)
    assert message.startswith("could not connect to other.test") and "\n" not in message
    assert "certificate" in message.lower() or "hostname" in message.lower()
