"""Secret redaction: every family, its false positives, hash files, and the invariants."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from birkin_mnemosyne.errors import RedactionError
from birkin_mnemosyne.redact import (
    _PATTERN_FINDERS,
    DEFAULT_REDACTOR,
    FAMILIES,
    HASH_FILE_FORMAT,
    RULES_VERSION,
    Redactor,
    SecretHashes,
    hash_secret,
    load_secret_hashes,
    mark,
    redact_text,
    write_secret_hashes,
)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "reference" / "redaction.md"

# Every secret-shaped fixture is built by concatenation, so the repository itself holds
# nothing a secret scanner would flag.
DASHES = "-" * 5
PEM_BODY = "MIIEow" + "IBAAKCAQEA" * 6 + "\n" + "x3Qz" * 16 + "\n"
SK = "sk-" + "A1b2C3d4" * 6
SK_PROJ = "sk-" + "proj-" + "Q7_x-" * 20
SK_ANT = "sk-" + "ant-" + "api03-" + "Zx9" * 31 + "AA"
GHP = "ghp_" + "a1B2" * 9
GITHUB_PAT = "github_" + "pat_" + "11ABCDEFG0" + "_" + "x9Y8" * 15
SLACK_BOT = "xox" + "b-" + "1234567890-" + "1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx"
SLACK_APP = "xa" + "pp-" + "1-" + "A0123456789-" + "0123456789012-" + "abcdef" * 8
SLACK_HOOK_PATH = "T0000" + "0000/" + "B0000" + "0000/" + "XXXXXXXXXXXXXXXXXXXXXXXX"
STRIPE = "sk_" + "live_" + "51Hx" * 12
STRIPE_RESTRICTED = "rk_" + "live_" + "51Hx" * 12
STRIPE_WEBHOOK = "wh" + "sec_" + "AbCd1234" * 4
GOOGLE = "AI" + "za" + "SyA1" * 8 + "xyz"
AWS_ID = "AK" + "IA" + "IOSFODNN7EXAMPLE"
AWS_TEMP_ID = "AS" + "IA" + "Z2X3C4V5B6N7M8Q9"
AWS_SECRET = "wJalrXUtnFEMI/" + "K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
TELEGRAM = "123456789" + ":AA" + "Fq3" * 11
JWT = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0" + "."
JWT += "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
BEARER = "ya29" + ".a0Af" + "H6SMB" * 6 + "9"
MD5 = "9e107d9d372bb682" + "6bd81d3542a419d6"
GIT_SHA = "2fd4e1c67a2d28fc" + "ed849ee1bb76e739" + "1b93eb12"
SHA256_UPPER = ("E3B0C44298FC1C14" + "9AFBF4C8996FB924") * 2

# Vendor-prefixed keys the named families do not cover (prefixed_token); the random
# parts are fixed strings that look like what the vendors issue.
GLPAT = "gl" + "pat-" + "xYz12AbCdEfGhIjKlMnO"
HF = "hf" + "_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZqRpLmN"
NPM = "np" + "m_" + "pCAsEZX9JjqPTWS53sB32sQT9j1BYtIJfKuL"
TK_HEX = "tk" + "_" + "d2867328c41a00d68ec55c016d6d604f4d626e30"
DOP = "dop" + "_v1_" + "4d85a26106103f1380589dbaba0983303526782884604a9c1e2d3f4a5b6c7d8e"

PRIVATE_KEY_LABELS = ["RSA ", "OPENSSH ", "EC ", "DSA ", "ENCRYPTED ", ""]


def pem(label: str = "RSA ", *, end: bool = True, block: str = "") -> str:
    text = f"{DASHES}BEGIN {label}PRIVATE KEY{block}{DASHES}\n{PEM_BODY}"
    return text + (f"{DASHES}END {label}PRIVATE KEY{block}{DASHES}" if end else "")


# (text, family, the secret that must disappear)
POSITIVE = [
    *[
        (f"key:\n{pem(label)}\nafter", "private_key", PEM_BODY.strip())
        for label in PRIVATE_KEY_LABELS
    ],
    (f"gpg:\n{pem('PGP ', block=' BLOCK')}\n", "private_key", PEM_BODY.strip()),
    (f"truncated paste:\n{pem(end=False)}", "private_key", PEM_BODY.strip()),
    ('{"private_key": "' + pem("").replace("\n", "\\n") + '\\n"}', "private_key", "IBAAKCAQEA"),
    (
        "clone https://bob:" + "hunter2pw" + "@git.example.com/repo.git",
        "url_credentials",
        "hunter2pw",
    ),
    ("DATABASE_URL=postgres://atlas:" + "s3cr3t" + "@db1:5432/atlas", "url_credentials", "s3cr3t"),
    ("redis://:" + "r3disPw" + "@cache:6379/0", "url_credentials", "r3disPw"),
    ("mongodb://app:" + "p@ssw0rd" + "@mongo1/db", "url_credentials", "p@ssw0rd"),
    (
        "https://" + "0a1b2c3d4e5f60718293" + "@sentry.example.com/42",
        "url_credentials",
        "0a1b2c3d4e5f60718293",
    ),
    (f"export OPENAI_API_KEY={SK}", "sk_api_key", SK),
    (f"new key {SK_PROJ} for the bot", "sk_api_key", SK_PROJ),
    (f"anthropic: {SK_ANT}", "sk_api_key", SK_ANT),
    *[
        (f"token {prefix + 'a1B2' * 9} here", "github_token", prefix + "a1B2" * 9)
        for prefix in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")
    ],
    (f"fine-grained {GITHUB_PAT}", "github_token", GITHUB_PAT),
    (f"bot token {SLACK_BOT}", "slack_token", SLACK_BOT),
    (f"user token {SLACK_BOT.replace('xoxb', 'xoxp')}", "slack_token", SLACK_BOT[5:]),
    (f"legacy {SLACK_BOT.replace('xoxb', 'xoxa')}", "slack_token", SLACK_BOT[5:]),
    (f"socket mode {SLACK_APP}", "slack_token", SLACK_APP),
    ("post to https://hooks.slack.com/services/" + SLACK_HOOK_PATH, "slack_token", SLACK_HOOK_PATH),
    (f"stripe {STRIPE}", "stripe_key", STRIPE),
    (f"restricted {STRIPE_RESTRICTED}", "stripe_key", STRIPE_RESTRICTED),
    (f"webhook signing {STRIPE_WEBHOOK}", "stripe_key", STRIPE_WEBHOOK),
    (f"maps key {GOOGLE}.", "google_api_key", GOOGLE),
    (f"id {AWS_ID} in us-east-1", "aws_key", AWS_ID),
    (f"session {AWS_TEMP_ID}", "aws_key", AWS_TEMP_ID),
    (f"aws_secret_access_key = {AWS_SECRET}", "aws_key", AWS_SECRET),
    (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", "aws_key", AWS_SECRET),
    (f'{{"SecretAccessKey": "{AWS_SECRET}"}}', "aws_key", AWS_SECRET),
    (f"bot {TELEGRAM} for alerts", "telegram_bot_token", TELEGRAM),
    (f"session cookie {JWT}", "jwt", JWT),
    (f"Authorization: Bearer {BEARER}", "bearer_token", BEARER),
    (f"curl -H 'authorization: bearer {BEARER}' api", "bearer_token", BEARER),
    ("curl -H 'Authorization: token " + "abc123def" + "'", "bearer_token", "abc123def"),
    (
        "Authorization: Basic " + "YWxhZGRpbjpvcGVuc2VzYW1l",
        "bearer_token",
        "YWxhZGRpbjpvcGVuc2VzYW1l",
    ),
    (f"send it as bearer {BEARER} to the API", "bearer_token", BEARER),
    ("password: " + "hunter2", "key_value", "hunter2"),
    ("db:\n  password: " + "tr0ub4dor&3\n  user: app", "key_value", "tr0ub4dor&3"),
    ("passwd=" + "letmein99", "key_value", "letmein99"),
    ("export PGPASSWORD=" + "pgS3cret; psql -h db", "key_value", "pgS3cret"),
    ("SECRET=" + "shh-value", "key_value", "shh-value"),
    ("token=" + "tok-value-1", "key_value", "tok-value-1"),
    ("api_key: " + "k-123-456", "key_value", "k-123-456"),
    ("client_secret = " + "cs-abc-xyz", "key_value", "cs-abc-xyz"),
    ('{"password": "' + "json pass phrase" + '", "user": "bob"}', "key_value", "json pass phrase"),
    ("settings = {'api-key': '" + "quoted-1" + "'}", "key_value", "quoted-1"),
    ('db_password = "' + "toml-pw" + '"', "key_value", "toml-pw"),
    ("mysql --password " + "cli-pw-9" + " --host db", "key_value", "cli-pw-9"),
    ("tool --api-key=" + "cli-key-7", "key_value", "cli-key-7"),
    ("tool --db-token '" + "quoted flag" + "'", "key_value", "quoted flag"),
    ("**Password:** " + "bold-pw", "key_value", "bold-pw"),
    ("- wifi password: " + "correct horse battery staple", "key_value", "horse battery"),
    ("login?user=bob&password=" + "url-pw&next=/", "key_value", "url-pw"),
    ("Server=db;Uid=app;Pwd=" + "conn-pw;", "key_value", "conn-pw"),
    ("https://api.example.com/v1?token=" + "q-tok-1&page=2", "key_value", "q-tok-1"),
    ("accessToken: " + "camel-tok", "key_value", "camel-tok"),
    (
        "cert:\n  private_key: |\n    " + "line-one\n    line-two\n  name: x",
        "key_value",
        "line-two",
    ),
    (f"snippet shows {TK_HEX} in full", "prefixed_token", TK_HEX),
    (f"gitlab {GLPAT}", "prefixed_token", GLPAT),
    (f"HF_TOKEN is {HF}.", "prefixed_token", HF),
    (f"//registry.npmjs.org/:_authToken={NPM}", "prefixed_token", NPM),
    (f"do {DOP}", "prefixed_token", DOP),
    (f"glued MY_{TK_HEX}", "prefixed_token", TK_HEX),
    (f"export FOO_TOKEN={TK_HEX}", "prefixed_token", TK_HEX),
    ("export X_PASSWORD=" + "pl41n-pw-9", "key_value", "pl41n-pw-9"),
    (f"md5 {MD5}", "hex", MD5),
    (f"commit {GIT_SHA} fixed it", "hex", GIT_SHA),
    (f"digest sha256:{SHA256_UPPER}", "hex", SHA256_UPPER),
]

FALSE_POSITIVES = [
    "The password policy says passwords rotate every 90 days.",
    "Follow the password reset procedure in the wiki.",
    "The token bucket algorithm smooths bursts.",
    "max_tokens: 4096",
    "token_count: 5",
    "passwordless: true",
    "Secretary: Jane Doe",
    "the bearer of bad news arrived; bearer bonds",
    "pwd: /home/bob/project",
    "PWD=/home/bob",
    "1Password: the app we use",
    "see sk-learn-style-pipelines-explained for details",
    "password: ${DB_PASSWORD}",
    "token: {{ vault_token }}",
    "api_key: <your-api-key>",
    "password: null",
    "password: ********",
    "token = get_token()",
    "password = os.environ['DB_PASSWORD']",
    "def login(user: str, password: str) -> None:",
    "def connect(host, password=None, token: Optional[str] = None):",
    "self.passwd = passwd",
    "self.refresh_token = self.refresh_token",
    'password = b""',
    "def unix_getpass(prompt='Password: ', stream=None):",
    "authorization = request.headers.get('Authorization')",
    "--token-file ~/.config/token",
    "mycli --password --verbose",
    "short hex " + "abcdef0123456789" * 1 + "abcdef012345678",  # 31 characters
    "in an identifier x" + MD5 + " and " + MD5 + "_suffix",
    "uuid 123e4567-e89b-12d3-a456-426614174000",
    "https://example.com:8443/path?q=1",
    "git@github.com:org/repo.git and ssh://git@github.com/org/repo",
    "if password == expected: return",
    "Python's secrets module; tokens: 1200; credentials file",
    "read_only_replica_count = 3; max_connection_pool_size_per_worker_v2 = 8",
    "def test_ExtremelyLongCamelCaseFunctionName2(): getUserAccountSettingsForTenant",
    "numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.whl and ubuntu_2204jammyjellyfishamd64",
    "request req-123e4567-e89b-12d3-a456-426614174000 failed",
    "see /srv/app/releases/2026_03_02_build_artifacts/main-3f9a2b7c8d1e4f6a.js",
    "x_aaaaaaaaaa1111111111bbbbbbbb is repetitive, not random",
    "state-of-the-art retrieval-augmented-generation pipelines-for-everyone",
]


def test_families_tuple_is_the_single_source_of_truth():
    assert len(set(FAMILIES)) == len(FAMILIES)
    assert set(_PATTERN_FINDERS) | {"secret_hash"} == set(FAMILIES)
    assert DEFAULT_REDACTOR.enabled == tuple(f for f in FAMILIES if f != "secret_hash")


@pytest.mark.parametrize(("text", "family", "secret"), POSITIVE)
def test_each_family_redacts_its_secret(text, family, secret):
    redacted = DEFAULT_REDACTOR.redact(text)
    assert secret not in redacted
    assert mark(family) in redacted
    assert family in DEFAULT_REDACTOR.count(text)


@pytest.mark.parametrize("text", FALSE_POSITIVES)
def test_prose_and_placeholders_are_left_alone(text):
    assert DEFAULT_REDACTOR.findings(text) == []
    assert DEFAULT_REDACTOR.redact(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("password: hunter2", "password: [REDACTED:key_value]"),
        ("PGPASSWORD=abc psql", "PGPASSWORD=[REDACTED:key_value] psql"),
        ('{"token": "abc", "n": 1}', '{"token": "[REDACTED:key_value]", "n": 1}'),
        ("--password abc --verbose", "--password [REDACTED:key_value] --verbose"),
        ("password: abc # rotated", "password: [REDACTED:key_value] # rotated"),
        ('x = "password: abc"', 'x = "password: [REDACTED:key_value]"'),
        ("def f(password=None):", "def f(password=None):"),
        ("| password: abc | note |", "| password: [REDACTED:key_value] | note |"),
        ("https://bob:pw@host/x", "https://bob:[REDACTED:url_credentials]@host/x"),
        (
            "https://hooks.slack.com/services/" + SLACK_HOOK_PATH + " ok",
            "https://hooks.slack.com/services/[REDACTED:slack_token] ok",
        ),
        (f"a {pem()} b", "a [REDACTED:private_key] b"),
        (f"a {pem(end=False)}\n\nmore text", "a [REDACTED:private_key]"),
    ],
)
def test_keys_hosts_and_context_stay_readable(text, expected):
    assert DEFAULT_REDACTOR.redact(text) == expected


def test_most_specific_family_wins_and_spans_never_overlap():
    text = f"token: {SK}\nhttps://x-access-token:{GHP}@github.com/o/r"
    findings = DEFAULT_REDACTOR.findings(text)
    assert [family for family, _, _ in findings] == ["sk_api_key", "github_token"]
    assert DEFAULT_REDACTOR.redact(text) == (
        "token: [REDACTED:sk_api_key]\n"
        "https://x-access-token:[REDACTED:github_token]@github.com/o/r"
    )
    # What a specific family leaves of a key's value is still hidden, as key_value.
    mixed = f"password: abc {SK}"
    assert DEFAULT_REDACTOR.redact(mixed) == (
        "password: [REDACTED:key_value] [REDACTED:sk_api_key]"
    )


def test_findings_and_count_describe_what_redact_replaces():
    text = f"a {GHP} b password: x1 c {MD5} d {GHP}"
    findings = DEFAULT_REDACTOR.findings(text)
    # key_value's value runs to the end of the line; the token inside keeps its family.
    assert [f for f, _, _ in findings] == ["github_token", "key_value", "github_token"]
    rebuilt, cursor = [], 0
    for family, start, end in findings:
        rebuilt += [text[cursor:start], mark(family)]
        cursor = end
    assert "".join([*rebuilt, text[cursor:]]) == DEFAULT_REDACTOR.redact(text)
    assert DEFAULT_REDACTOR.count(text) == {"github_token": 2, "key_value": 1}
    assert DEFAULT_REDACTOR.count("nothing here") == {}
    assert redact_text(text) == DEFAULT_REDACTOR.redact(text)


def test_existing_marks_are_never_matched_again():
    for text in ("password: [REDACTED]", "token: [REDACTED:key_value] x", "[REDACTED:hex]" * 3):
        once = DEFAULT_REDACTOR.redact(text)
        assert DEFAULT_REDACTOR.redact(once) == once
    assert DEFAULT_REDACTOR.redact("password: [REDACTED]") == "password: [REDACTED]"


def test_disabled_families_are_skipped():
    text = f"commit {GIT_SHA} by {GHP}"
    redactor = Redactor(disabled=["hex"])
    assert redactor.redact(text) == "commit " + GIT_SHA + " by [REDACTED:github_token]"
    assert "hex" not in redactor.enabled
    assert Redactor(disabled="hex").enabled == redactor.enabled  # one name is accepted
    everything_off = Redactor(disabled=FAMILIES)
    assert everything_off.redact(text) == text


def test_unknown_family_lists_the_valid_ones():
    with pytest.raises(RedactionError) as caught:
        Redactor(disabled=["hex", "passwords"])
    message = str(caught.value)
    assert "'passwords'" in message
    assert all(family in message for family in FAMILIES)


def test_fingerprint_tracks_the_configuration(tmp_path):
    salt = b"0123456789abcdef"
    hashes = SecretHashes(salt, frozenset({hash_secret("first-secret", salt)}), 8)
    other = SecretHashes(salt, frozenset({hash_secret("second-secret", salt)}), 8)
    prints = {
        Redactor().fingerprint,
        Redactor(disabled=["hex"]).fingerprint,
        Redactor(disabled=["hex", "jwt"]).fingerprint,
        Redactor(secret_hashes=hashes).fingerprint,
        Redactor(secret_hashes=other).fingerprint,
        Redactor(secret_hashes=SecretHashes(salt, hashes.hashes, 9)).fingerprint,
    }
    assert len(prints) == 6
    assert Redactor().fingerprint == DEFAULT_REDACTOR.fingerprint
    assert (
        Redactor(disabled=["jwt", "hex"]).fingerprint
        == Redactor(disabled=["hex", "jwt"]).fingerprint
    )
    # What runs decides it: hashes with secret_hash disabled redact like no hashes.
    assert Redactor(["secret_hash"], hashes).fingerprint == Redactor().fingerprint
    assert len(DEFAULT_REDACTOR.fingerprint) < 40
    # The rules version is in it: a cache built under older rules is rebuilt.
    assert DEFAULT_REDACTOR.fingerprint.startswith(f"redact{RULES_VERSION}-")
    assert RULES_VERSION >= 2  # 2 added prefixed_token


# ------------------------------------------------------------------- secret hashes


def test_hash_secret_is_salted_sha256():
    salt = bytes(range(16))
    expected = hashlib.sha256(salt + "pässword".encode()).hexdigest()
    assert hash_secret("pässword", salt) == expected


def test_write_then_load_round_trips(tmp_path):
    path = tmp_path / "hashes.json"
    write_secret_hashes(["  alpha-secret-1 \n", "", "beta-secret-22"], path)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == HASH_FILE_FORMAT
    assert document["algorithm"] == "sha256"
    assert document["min_length"] == 8
    assert document["hashes"] == sorted(document["hashes"])
    assert "alpha-secret-1" not in path.read_text(encoding="utf-8")
    loaded = load_secret_hashes(path)
    assert loaded.salt == bytes.fromhex(document["salt"]) and len(loaded.salt) == 16
    assert loaded.hashes == {
        hash_secret(s, loaded.salt) for s in ("alpha-secret-1", "beta-secret-22")
    }
    write_secret_hashes(["alpha-secret-1"], tmp_path / "again.json")
    assert load_secret_hashes(tmp_path / "again.json").salt != loaded.salt  # random salt
    fixed = tmp_path / "fixed.json"
    write_secret_hashes(["alpha-secret-1"], fixed, salt=b"s" * 16, min_length=10)
    assert load_secret_hashes(fixed) == SecretHashes(
        b"s" * 16, frozenset({hash_secret("alpha-secret-1", b"s" * 16)}), 10
    )


@pytest.mark.parametrize(
    ("secrets", "problem"),
    [
        (["short"], "could never match"),
        (["has space inside"], "whitespace"),
        (["x" * 600], "could never match"),
        ("one-string-secret", "not one string"),
        ([12345678], "not a string"),
    ],
)
def test_write_refuses_secrets_that_could_never_match(tmp_path, secrets, problem):
    with pytest.raises(RedactionError, match=problem):
        write_secret_hashes(secrets, tmp_path / "h.json")
    assert not (tmp_path / "h.json").exists()


def test_write_refuses_a_weak_salt(tmp_path):
    with pytest.raises(RedactionError, match="salt"):
        write_secret_hashes(["long-enough-secret"], tmp_path / "h.json", salt=b"abc")


@pytest.fixture
def hashed(tmp_path):
    live = "Corr3ct-h0rse"
    path = tmp_path / "hashes.json"
    write_secret_hashes([live], path)
    return live, Redactor(secret_hashes=load_secret_hashes(path))


@pytest.mark.parametrize(
    "shape",
    [
        "the wifi key is {s} today",
        'quoted "{s}", bracketed ({s}), end of sentence {s}.',
        "env WIFI_KEY={s} and yaml key: {s}",
        '{{"wifi": "{s}"}}',
        "line start\n{s}\nline end",
    ],
)
def test_hashed_secrets_are_redacted_in_every_candidate_shape(hashed, shape):
    live, redactor = hashed
    text = shape.format(s=live)
    redacted = redactor.redact(text)
    assert live not in redacted
    assert text.count(live) == redacted.count(mark("secret_hash"))
    assert redactor.redact(redacted) == redacted


def test_hash_matching_is_exact_and_respects_min_length(hashed, tmp_path):
    live, redactor = hashed
    for near_miss in (live + "x", live[:-1], live.lower(), "prefix" + live):
        assert redactor.redact(f"a {near_miss} b") == f"a {near_miss} b"
    salt = b"q" * 16
    long_floor = SecretHashes(salt, frozenset({hash_secret(live, salt)}), len(live) + 1)
    assert Redactor(secret_hashes=long_floor).redact(live) == live
    exact_floor = SecretHashes(salt, frozenset({hash_secret(live, salt)}), len(live))
    assert Redactor(secret_hashes=exact_floor).redact(live) == mark("secret_hash")
    # Verdicts are cached across calls; the answer must not change.
    assert Redactor(secret_hashes=exact_floor).redact(f"{live} {live}") == (
        f"{mark('secret_hash')} {mark('secret_hash')}"
    )


def test_missing_hash_file_fails_closed(tmp_path):
    with pytest.raises(RedactionError, match="not found.*write_secret_hashes"):
        load_secret_hashes(tmp_path / "absent.json")


GOOD_DOCUMENT = {
    "format": HASH_FILE_FORMAT,
    "algorithm": "sha256",
    "salt": "00" * 16,
    "min_length": 8,
    "hashes": ["ab" * 32],
}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"{not json", "not UTF-8 JSON"),
        (b"\xff\xfe\xfa", "not UTF-8 JSON"),
        (b"[]", "not a JSON object"),
        ({**GOOD_DOCUMENT, "format": "mnemosyne-secret-hashes/9"}, "format"),
        ({**GOOD_DOCUMENT, "algorithm": "md5"}, "algorithm"),
        ({**GOOD_DOCUMENT, "salt": "zz"}, "salt is not a hex"),
        ({**GOOD_DOCUMENT, "salt": 7}, "salt is not a hex"),
        ({**GOOD_DOCUMENT, "salt": "00"}, "salt is shorter"),
        ({**GOOD_DOCUMENT, "min_length": True}, "min_length"),
        ({**GOOD_DOCUMENT, "min_length": 0}, "min_length"),
        ({**GOOD_DOCUMENT, "min_length": "8"}, "min_length"),
        ({**GOOD_DOCUMENT, "hashes": "ab" * 32}, "hashes is not a list"),
        ({**GOOD_DOCUMENT, "hashes": ["ab" * 31]}, r"hashes\[0\]"),
        ({**GOOD_DOCUMENT, "hashes": [None]}, r"hashes\[0\]"),
        ({**GOOD_DOCUMENT, "extra": 1}, "unknown key"),
        ({k: v for k, v in GOOD_DOCUMENT.items() if k != "salt"}, "missing key"),
    ],
)
def test_malformed_hash_file_fails_closed(tmp_path, content, problem):
    path = tmp_path / "hashes.json"
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    with pytest.raises(RedactionError, match=problem):
        load_secret_hashes(path)


def test_well_formed_hand_written_file_loads(tmp_path):
    path = tmp_path / "hashes.json"
    path.write_text(json.dumps({**GOOD_DOCUMENT, "hashes": ["AB" * 32]}), encoding="utf-8")
    loaded = load_secret_hashes(path)
    assert loaded.hashes == {"ab" * 32} and loaded.min_length == 8
    assert "00" * 16 not in repr(loaded)


# ------------------------------------------------------------------ invariants

FRAGMENTS = [
    "password",
    "Token",
    "api_key",
    "Authorization",
    "Bearer ",
    "bearer ",
    ":",
    "=",
    ": ",
    " = ",
    "=>",
    ":=",
    '"',
    "'",
    "`",
    "**",
    " ",
    "\n",
    "\t",
    "|",
    " #",
    "--password ",
    "https://",
    "user:pw@",
    "@",
    pem()[:40],
    DASHES + "END RSA PRIVATE KEY" + DASHES,
    SK,
    "sk-",
    GHP,
    "ghp_",
    SLACK_BOT,
    JWT,
    "eyJ",
    ".",
    MD5,
    AWS_ID,
    TELEGRAM,
    ":AA",
    "[REDACTED:jwt]",
    "[REDACTED",
    "]",
    "$X",
    "<x>",
    "null",
    "hunter2",
    "é",
    "\ud800",
    "0",
    "a",
    "Corr3ct-h0rse",
    "hooks.slack.com/services/",
    STRIPE,
    GOOGLE,
    TK_HEX,
    "tk_",
    "_",
    "-",
    ",",
    ";",
    "&",
]
SALT = b"k" * 16
HASHED = Redactor(
    secret_hashes=SecretHashes(SALT, frozenset({hash_secret("Corr3ct-h0rse", SALT)}), 8)
)
texts = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(FRAGMENTS), max_size=18).map("".join),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_redaction_is_idempotent_and_well_formed(text):
    for redactor in (DEFAULT_REDACTOR, HASHED):
        findings = redactor.findings(text)
        assert findings == sorted(findings, key=lambda finding: finding[1])
        assert all(0 <= start < end <= len(text) for _, start, end in findings)
        assert all(a[2] <= b[1] for a, b in zip(findings, findings[1:], strict=False))
        once = redactor.redact(text)
        assert redactor.redact(once) == once
        assert sum(redactor.count(text).values()) == len(findings)


def test_planted_secrets_never_survive_together():
    text = "\n".join(text for text, _, _ in POSITIVE)
    redacted = DEFAULT_REDACTOR.redact(text)
    for _, _, secret in POSITIVE:
        assert secret not in redacted
    assert DEFAULT_REDACTOR.redact(redacted) == redacted


def test_docs_describe_every_family():
    docs = DOCS.read_text(encoding="utf-8")
    for family in FAMILIES:
        assert f"`{family}`" in docs, family
    assert HASH_FILE_FORMAT in docs
