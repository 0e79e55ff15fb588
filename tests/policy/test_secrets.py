"""Secret redaction: each kind of secret is filtered, ordinary text is not, and it is linear."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxmode.policy.secrets import FILTERED, redact

GITHUB = "ghp_" + "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"export GITHUB_TOKEN={GITHUB}", GITHUB),
        (f"cloned with {GITHUB} ok", GITHUB),
        ("gho_" + "x" * 36, "gho_" + "x" * 36),
        ("ghs_" + "Ab1" * 12, "ghs_" + "Ab1" * 12),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "github_pat_11ABCDEFG"),
        ("key sk-proj-abc123DEF456ghi789JKL012mno345 used", "sk-proj-abc123DEF456"),
        ("ANTHROPIC_KEY sk-ant-api03-Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0f", "sk-ant-api03-Zx9y"),
        ("slack xoxb-123456789012-abcdefABCDEF here", "xoxb-123456789012"),
        ("id AKIAIOSFODNN7EXAMPLE in log", "AKIAIOSFODNN7EXAMPLE"),
        ("temp ASIAY34FZKBOKMUTVV7A creds", "ASIAY34FZKBOKMUTVV7A"),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtn"),
        ("maps AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW ok", "AIzaSyA1b2C3"),
        ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39"),
        ("stripe rk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_live_4eC39"),
        ("//registry.npmjs.org/:_authToken=npm_" + "a1" * 18, "npm_a1a1"),
        ("npm_" + "Z9" * 18 + " published", "npm_Z9Z9"),
        (
            "cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "eyJzdWIiOiIxMjM0In0",
        ),
    ],
)
def test_tokens_with_known_prefixes_are_filtered(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert FILTERED in out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'curl -H "Authorization: Bearer abc.def-123"',
            'curl -H "Authorization: Bearer [FILTERED]"',
        ),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [FILTERED]"),
        ("proxy-authorization: token 12345", "proxy-authorization: token [FILTERED]"),
        ("header bearer 0a1b2c3d4e5f6a7b8c9d used", "header bearer [FILTERED] used"),
    ],
)
def test_authorization_headers_keep_the_scheme_and_lose_the_credential(
    text: str, expected: str
) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("DB_PASSWORD=hunter2", "DB_PASSWORD=[FILTERED]"),
        ("export API_KEY='abc def'", "export API_KEY='[FILTERED]'"),
        ('{"password": "hunter2", "user": "bob"}', '{"password": "[FILTERED]", "user": "bob"}'),
        ("  client_secret: s3cr3t-value", "  client_secret: [FILTERED]"),
        ('apiKey = "k-123"', 'apiKey = "[FILTERED]"'),
        ("x-api-key: abc123", "x-api-key: [FILTERED]"),
        (
            "https://h/cb?access_token=abc123&state=x",
            "https://h/cb?access_token=[FILTERED]&state=x",
        ),
        ("mysql --password hunter2 --verbose", "mysql --password [FILTERED] --verbose"),
        ("deploy --api-key=abc123 --token xyz", "deploy --api-key=[FILTERED] --token [FILTERED]"),
        ('secret := "abc"', 'secret := "[FILTERED]"'),
        ("passwd: pa55", "passwd: [FILTERED]"),
    ],
)
def test_secret_assignments_in_env_json_yaml_and_flags_are_filtered(
    text: str, expected: str
) -> None:
    assert redact(text) == expected


SENDGRID = "SG." + "aB3dE5fG7hI9jK1lM3nO5p" + "." + "Q7rS9tU1vW3xY5zA7bC9dE1fG3hI5jK7lM9nO1pQ3r"
WEBHOOK = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLSGd"


# Credentials as shells, clients and credential files spell them; the shape stays.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mysql -uroot -phunter2 prod", "mysql -uroot -p[FILTERED] prod"),
        ("/usr/bin/mysqldump -p'pa ss' db", "/usr/bin/mysqldump -p'[FILTERED]' db"),
        ("mariadb -h db -pS3cr3t -e 'select 1'", "mariadb -h db -p[FILTERED] -e 'select 1'"),
        ("curl -u bob:hunter2 https://x", "curl -u bob:[FILTERED] https://x"),
        ("curl -fsu bob:hunter2 https://x", "curl -fsu bob:[FILTERED] https://x"),
        ("curl --user=bob:hunter2 https://x", "curl --user=bob:[FILTERED] https://x"),
        ("curl -x p --proxy-user 'bob:pw' u", "curl -x p --proxy-user 'bob:[FILTERED]' u"),
        ("docker login -u bob -p hunter2 r.io", "docker login -u bob -p [FILTERED] r.io"),
        ("podman login -p=hunter2 r.io", "podman login -p=[FILTERED] r.io"),
        ("export DB_PASS=hunter2", "export DB_PASS=[FILTERED]"),
        ("MYSQL_PWD=hunter2 mysql -u app", "MYSQL_PWD=[FILTERED] mysql -u app"),
        (
            "DefaultEndpointsProtocol=https;AccountName=acc;AccountKey=abc1+/xyz==;EndpointSuffix=x",
            "DefaultEndpointsProtocol=https;AccountName=acc;AccountKey=[FILTERED];EndpointSuffix=x",
        ),
        (f"SENDGRID_KEY used {SENDGRID} here", f"SENDGRID_KEY used {FILTERED} here"),
        ("machine api.x.com login bob password hunter2", "machine api.x.com login bob password [FILTERED]"),
        ("machine x\n  login bob\n  password hunter2\n", "machine x\n  login bob\n  password [FILTERED]\n"),
        ("db.x.com:5432:prod:app:hunter2", "db.x.com:5432:prod:app:[FILTERED]"),
        ("*:*:*:postgres:s3cret\n", "*:*:*:postgres:[FILTERED]\n"),
        ("SECRET_KEY_BASE=0a1b2c3d4e5f", "SECRET_KEY_BASE=[FILTERED]"),
        ("Server=db;Database=app;Uid=sa;Pwd=hunter2;", "Server=db;Database=app;Uid=sa;Pwd=[FILTERED];"),
        ("sshpass -p hunter2 ssh host", "sshpass -p [FILTERED] ssh host"),
        ("sshpass -phunter2 scp a h:", "sshpass -p[FILTERED] scp a h:"),
        ("redis-cli -a hunter2 ping", "redis-cli -a [FILTERED] ping"),
        (f"STRIPE_WEBHOOK {WEBHOOK}", f"STRIPE_WEBHOOK {FILTERED}"),
        ("psql postgres://app:hunter2@db/prod -c 'select 1'", "psql postgres://app:[FILTERED]@db/prod -c 'select 1'"),
        ("--db-pass hunter2 --verbose", "--db-pass [FILTERED] --verbose"),
        ("proxy-authorization: basic dXNlcjpw", "proxy-authorization: basic [FILTERED]"),
        ("DB_PASSWORD=ab;cd-ef\n", "DB_PASSWORD=[FILTERED]\n"),
        ("--password=a;b --verbose", "--password=[FILTERED] --verbose"),
        ("Server=db;Pwd=h;2;Uid=sa", "Server=db;Pwd=[FILTERED];Uid=sa"),
        ("Cookie: sid=abc123; theme=dark", "Cookie: sid=[FILTERED]; theme=[FILTERED]"),
        ("Set-Cookie: sid=abc; Path=/; HttpOnly", "Set-Cookie: sid=[FILTERED]; Path=/; HttpOnly"),
        ("curl -b 'sid=abc; t=1' -b jar.txt u", "curl -b 'sid=[FILTERED]; t=[FILTERED]' -b jar.txt u"),
        ("curl --cookie sid=abc u", "curl --cookie sid=[FILTERED] u"),
        ("replica.x:5433:*:app:hunter2", "replica.x:5433:*:app:[FILTERED]"),
    ],
)  # fmt: skip
def test_client_flags_env_and_credential_files_are_filtered(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_connection_strings_keep_user_and_host() -> None:
    assert redact("DATABASE_URL postgres://bob:s3cret@db.internal:5432/app") == (
        "DATABASE_URL postgres://bob:[FILTERED]@db.internal:5432/app"
    )
    assert redact("redis://:pw@cache:6379") == "redis://:[FILTERED]@cache:6379"
    assert redact("see https://example.com:8080/path") == "see https://example.com:8080/path"


def test_a_pem_private_key_block_is_filtered_whole() -> None:
    body = "MIIEowIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aumzZ\n" * 5
    text = f"before\n-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\nafter"
    assert redact(text) == f"before\n{FILTERED}\nafter"
    escaped = '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n"}'
    assert redact(escaped) == '{"private_key": "[FILTERED]\\n"}'


def test_a_truncated_pem_block_is_filtered_through_its_body() -> None:
    text = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA=\nAAAA\n\nnext output"
    assert redact(text) == f"{FILTERED}\n\nnext output"


def test_a_pem_block_cut_at_its_start_is_filtered_back_to_its_first_line() -> None:
    # Text indexed in pieces can split a key: the second piece has an END but no BEGIN.
    line = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
    text = f"done\n{line}\n{line}\nAAAA==\n-----END OPENSSH PRIVATE KEY-----\nnext"
    assert redact(text) == f"done\n{FILTERED}\nnext"


def test_public_keys_and_certificates_are_left_alone() -> None:
    text = "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----"
    assert redact(text) == text


def test_private_network_addresses_only_when_asked() -> None:
    text = "hosts 10.1.2.3, 172.20.0.1, 192.168.1.10 and fd00::1: down"
    assert redact(text) == text
    assert redact(text, private_networks=True) == (
        f"hosts {FILTERED}, {FILTERED}, {FILTERED} and {FILTERED}: down"
    )


@pytest.mark.parametrize(
    "text",
    [
        "8.8.8.8 172.32.0.1 172.15.9.9 192.169.0.1 fe80::1 2001:db8::1",
        "version 10.0.0.256 and 300.1.1.1",
        "coffee fcab is not an address",
    ],
)
def test_public_addresses_and_lookalikes_stay_with_private_networks_on(text: str) -> None:
    assert redact(text, private_networks=True) == text


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)",
        "request 123e4567-e89b-12d3-a456-426614174000 failed",
        "Forgot your password? A password reset link was sent to you.",
        "The token bucket refills; tokens: see the docs. Password policy applies.",
        "max_tokens=4096 input_tokens: 120 token_count=3 password_reset: true",
        "def login(token: str, password=None, secret: Optional[str] = None):",
        'password = os.environ["DB_PASSWORD"]; token=args.token',
        "export PASSWORD=$DB_PASSWORD SECRET=${VAULT_SECRET}",
        "secrets: inherit",
        "The base64 word SGVsbG8gd29ybGQ= appears in prose, as does aGVsbG8.",
        "Bearer authentication is described in RFC 6750.",
        "Basic usage: run the task-runner with sk-learn-style options.",
        "mkdir -p build && ssh -p 22 host",
        "mysql -u root -p appdb && docker run -u 1000:1000 img",
        "curl --user-agent a:b https://x && curl -u bob:$TOKEN https://x",
        "cd $PWD; PWD=/home/me OLDPWD=/tmp make",
        "bypass=true pass: 12 passed: 3",
        "at 12:30:45:00:11 the key=42 was used; monkey: banana",
        "login succeeded, password accepted for bob",
        "src/main.c:12:5: warning: unused variable; cookie: none set",
        "curl -b cookies.txt -c jar.txt https://x; a=1;b=2",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "see https://example.com/docs/auth#tokens and mailto:bob@example.com",
        "",
    ],
)
def test_ordinary_text_is_not_filtered(text: str) -> None:
    assert redact(text) == text


# Fragments that combine into near-secrets, so the properties meet the rules' edges.
FRAGMENTS = [
    "password",
    "token",
    "API_KEY",
    "=",
    ": ",
    ":",
    " := ",
    '"',
    "'",
    " ",
    "\n",
    "--",
    "[FILTERED]",
    "]",
    "Bearer ",
    "Authorization: ",
    "ghp_",
    "sk-",
    "AKIA",
    "eyJ",
    ".",
    "abcdefgh12345678",
    "Z" * 20,
    "postgres://u:",
    "@",
    "/",
    "-----BEGIN PRIVATE KEY-----",
    "-----END PRIVATE KEY-----",
    "10.0.0.1",
    "fd00::",
    "$",
    "(",
]
near_secrets = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=30
).map("".join)
any_text = st.one_of(st.text(), near_secrets)


def test_end_lines_left_from_cut_key_blocks_are_all_filtered_at_once() -> None:
    # Text indexed in pieces can start with the tails of several cut key blocks; a second
    # redaction must find nothing more to filter.
    text = "-----END PRIVATE KEY-----\n" * 5 + "after\n"
    once = redact(text)
    assert once == "[FILTERED]\n" * 5 + "after\n"
    assert redact(once) == once


@settings(max_examples=400, deadline=None)
@given(any_text, st.booleans())
def test_redaction_is_idempotent_and_bounded(text: str, private: bool) -> None:
    once = redact(text, private_networks=private)
    assert redact(once, private_networks=private) == once
    # Every marker replaces at least one character of input.
    assert len(once) <= len(text) + (len(FILTERED) - 1) * once.count(FILTERED)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_redaction_never_raises_on_any_text(text: str) -> None:
    assert isinstance(redact(text, private_networks=True), str)


# Inputs that make backtracking regexes quadratic or worse; 200 KB each. A quadratic
# rule would need minutes here, the linear one needs well under a second.
ADVERSARIAL = [
    "a" * 200_000,
    "eyJ" * 70_000,
    "password=" * 25_000,
    'password="' + "x" * 200_000,
    "-----BEGIN PRIVATE KEY-----\n" * 7_000,
    "postgres://u:" * 15_000,
    "Authorization: " * 13_000,
    "sk-" * 70_000,
    "10.0.0." * 30_000,
    "fd00:" * 40_000,
    "--password " * 18_000,
    "x" * 40 + "password" * 25_000,
    "mysql -" * 30_000,
    "curl -u a" * 25_000,
    "docker login -p " * 12_000,
    "machine login a password " * 10_000,
    "\n password x" * 18_000,
    "a:5432:b:c:" * 20_000,
    "api_key" * 30_000,
]


@pytest.mark.timeout(20)
@pytest.mark.parametrize("text", ADVERSARIAL, ids=lambda t: repr(t[:16]))
def test_adversarial_input_finishes(text: str) -> None:
    out = redact(text, private_networks=True)
    assert redact(out, private_networks=True) == out
