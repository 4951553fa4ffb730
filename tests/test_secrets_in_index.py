"""No planted secret appears in any search output or in the cache file."""

from __future__ import annotations

import json

import pytest
from conftest import cache_text

from birkin_mnemosyne import Mnemosyne, RedactionError
from birkin_mnemosyne.redact import write_secret_hashes

# Built by concatenation so the repository holds no secret-shaped literal.
PLANTED = {
    "openai": "sk-" + "proj-" + "Q7" * 20,
    "github": "ghp_" + "a1B2" * 9,
    "aws": "AKIA" + "IOSFODNN7EXAMPL1",
    "slack": "xoxb-" + "1234567890-" + "abcdefghij" * 2,
    "password": "hunter2" + "-zebra-41",
    "url": "s3cr3t" + "PassW0rd",
}


@pytest.fixture
def secret_vault(vault):
    vault.write(
        "hosts/leaky.md",
        f"""
        ---
        title: Leaky host
        ---
        # Leaky host

        ## Access

        api key {PLANTED["openai"]} for the deploy bot
        token {PLANTED["github"]} and {PLANTED["aws"]} and {PLANTED["slack"]}
        password: {PLANTED["password"]}
        DATABASE_URL=postgres://atlas:{PLANTED["url"]}@db1:5432/atlas

        -----BEGIN OPENSSH PRIVATE KEY-----
        b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
        -----END OPENSSH PRIVATE KEY-----
        """,
    )
    return vault


def _all_outputs(engine: Mnemosyne) -> str:
    """Every response to the queries below, minus the echo of the caller's own query."""
    texts = []
    queries = ["api key deploy bot", "token", "password", "DATABASE_URL", "openssh", "leaky"]
    for query in queries + list(PLANTED.values()):
        for exact in (False, True):
            response = engine.search_response(query, exact=exact)
            response.pop("query")
            texts.append(json.dumps(response, ensure_ascii=False))
    return "\n".join(texts)


def test_no_secret_in_search_output_or_cache(secret_vault):
    engine = Mnemosyne(secret_vault.root)
    output = _all_outputs(engine)
    assert "[REDACTED:" in output
    cache = cache_text(engine.cache_path)
    for name, secret in PLANTED.items():
        assert secret not in output, name
        assert secret not in cache, name
        assert secret.lower() not in cache, name
    assert "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU" not in cache
    # The secrets' terms are not searchable either.
    assert engine.search(PLANTED["password"]) == []
    # A secret-shaped query is redacted where the response echoes it.
    assert PLANTED["github"] not in engine.search_response(f"where is {PLANTED['github']}")["query"]


def test_secret_hash_file_redacts_live_secrets(vault):
    live = "correct" + "horse" + "battery" + "staple"
    vault.write("n.md", f"# Wifi\n\nthe office wifi key is {live} today\n")
    write_secret_hashes([live], vault.root / ".mnemosyne" / "secret-hashes.json")
    (vault.root / ".mnemosyne" / "config.json").write_text(
        json.dumps({"redaction": {"secret_hashes": ".mnemosyne/secret-hashes.json"}}),
        encoding="utf-8",
    )
    engine = Mnemosyne(vault.root)
    hit = engine.search("office wifi key")[0]
    assert live not in hit["snippet"] and "[REDACTED:" in hit["snippet"]
    assert live not in cache_text(engine.cache_path)


def test_missing_hash_file_fails_closed(vault):
    vault.write("n.md", "# x\n\ntext\n")
    (vault.root / ".mnemosyne").mkdir()
    (vault.root / ".mnemosyne" / "config.json").write_text(
        json.dumps({"redaction": {"secret_hashes": "missing.json"}}), encoding="utf-8"
    )
    engine = Mnemosyne(vault.root)
    with pytest.raises(RedactionError):
        engine.search("text")
    assert not engine.cache_path.exists()


def test_disabling_the_hex_family(vault):
    sha = "0123456789abcdef" * 2 + "01234567"
    vault.write("n.md", f"# Deploys\n\ndeployed commit {sha} to production\n")
    assert sha not in json.dumps(Mnemosyne(vault.root).search_response("deployed commit"))
    (vault.root / ".mnemosyne").mkdir(exist_ok=True)
    (vault.root / ".mnemosyne" / "config.json").write_text(
        json.dumps({"redaction": {"disabled": ["hex"]}}), encoding="utf-8"
    )
    engine = Mnemosyne(vault.root)
    assert sha in engine.search("deployed commit")[0]["snippet"]
    assert engine.warnings and "another configuration" in engine.warnings[0]
