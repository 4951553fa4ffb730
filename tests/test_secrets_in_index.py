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
    """Every response to the queries below, minus the echo of the caller's own query.

    The echo is the query itself and the query words the verdict names as missing
    (``absence_note``, ``signals.missing_names``, taken from the redacted query), which
    ``test_query_echoes_are_redacted`` checks.
    """
    texts = []
    queries = ["api key deploy bot", "token", "password", "DATABASE_URL", "openssh", "leaky"]
    for query in queries + list(PLANTED.values()):
        for exact in (False, True):
            response = engine.search_response(query, exact=exact)
            response.pop("query")
            response.pop("absence_note")
            response["signals"].pop("missing_names", None)
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


def test_query_echoes_are_redacted(secret_vault):
    engine = Mnemosyne(secret_vault.root)
    response = engine.search_response(f"where is {PLANTED['github']} used")
    echoed = json.dumps(
        [response["query"], response["absence_note"], response["signals"]["missing_names"]]
    )
    assert response["no_strong_match"] and response["absence_note"]
    assert PLANTED["github"] not in echoed and "[REDACTED:" in response["query"]


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


def test_a_hidden_run_id_is_found_by_its_value(vault):
    run = "47fe5d6bc8f2" + "4e9b708d988e" + "8b18a11a"
    vault.write("runs.md", f"# Training runs\n\n## Version 16\n\nregistered run `{run}` today\n")
    vault.write("other.md", "# Other runs\n\n## Version 15\n\nregistered another run today\n")
    engine = Mnemosyne(vault.root)
    for query in (run, run.upper(), f"which version is run {run}?"):
        response = engine.search_response(query)
        assert [hit["path"] for hit in response["hits"]][:1] == ["runs.md"], query
        assert response["hits"][0]["heading"] == "Version 16"
        text = json.dumps(response)
        assert run not in text.lower() and "[REDACTED:hex]" in response["query"]
        assert "[REDACTED:hex]" in response["hits"][0]["snippet"]
    # the index keeps a digest where the value stood, never the value
    cache = cache_text(engine.cache_path)
    assert run not in cache.lower()
    # a value the vault does not hold is named by its mark, not by its digest
    absent = engine.search_response("0123456789abcdef" * 2 + "01234567")
    assert absent["no_strong_match"] and absent["hits"] == []
    assert absent["absence_note"] == "'[REDACTED:hex]' appears nowhere in the vault"
    # a secret of another family is never looked up by value
    token = "ghp_" + "a1B2" * 9
    vault.write("token.md", f"# Token\n\nthe bot uses {token}\n")
    engine.refresh()
    assert engine.search_response(token)["hits"] == []


def test_a_digest_stands_only_for_a_hidden_value():
    from birkin_mnemosyne.redact import Redactor, lookup_term

    run = "2fd4e1c67a2d28fc" + "ed849ee1bb76e739" + "1b93eb12"
    term = lookup_term("hex", run)
    assert term == lookup_term("hex", run.upper()) != lookup_term("hex", run[:-1] + "3")
    assert term.startswith("#hex:") and run not in term
    text = f"commit {run} and password: {'Plat1num' + '-otter-93'}"
    assert Redactor().lookups(text) == [(7, 7 + len(run), term)]
    assert Redactor(disabled=["hex"]).lookups(text) == []


# One planted sample per redaction family (built by concatenation, as above).
FAMILY_SAMPLES = {
    "private_key": "-" * 5
    + "BEGIN RSA PRIVATE KEY"
    + "-" * 5
    + "\nMIIEow"
    + "IBAAKCAQEA" * 6
    + "\n"
    + "-" * 5
    + "END RSA PRIVATE KEY"
    + "-" * 5,
    "github_token": "ghp_" + "a1B2" * 9,
    "slack_token": "xox" + "b-" + "1234567890-" + "1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
    "stripe_key": "sk_" + "live_" + "51Hx" * 12,
    "sk_api_key": "sk-" + "A1b2C3d4" * 6,
    "google_api_key": "AI" + "za" + "SyA1" * 8 + "xyz",
    "aws_key": "AK" + "IA" + "IOSFODNN7EXAMPLE",
    "telegram_bot_token": "123456789" + ":AA" + "Fq3" * 11,
    "jwt": "eyJ"
    + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJ"
    + "zdWIiOiIxMjM0NTY3ODkwIn0"
    + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "url_credentials": "https://deploy:" + "Sup3rS3cret" + "Pw@git.example.org/repo",
    "bearer_token": "ya29" + ".a0Af" + "H6SMB" * 6 + "9",
    "key_value": "Plat1num" + "-otter-93",
    "hex": "2fd4e1c67a2d28fc" + "ed849ee1bb76e739" + "1b93eb12",
    "prefixed_token": "tk" + "_" + "d2867328c41a00d68ec55c016d6d604f4d626e30",
}
# The part of each sample that must never be seen again.
FAMILY_SECRET = {
    **FAMILY_SAMPLES,
    "private_key": "IBAAKCAQEA" * 3,
    "url_credentials": "Sup3rS3cretPw",
}


def test_every_family_is_redacted_from_output_and_cache(vault):
    from birkin_mnemosyne.redact import FAMILIES

    lines = {
        "private_key": FAMILY_SAMPLES["private_key"],
        "bearer_token": "Authorization: Bearer " + FAMILY_SAMPLES["bearer_token"],
        "key_value": "password: " + FAMILY_SAMPLES["key_value"],
    }
    body = "\n\n".join(
        f"{family} sample: " + lines.get(family, FAMILY_SAMPLES[family])
        for family in FAMILY_SAMPLES
    )
    vault.write(
        "vault-secrets.md", "# Planted\n\nzebra planted samples\n\n" + body + "\n", dedent=False
    )
    live = "correct" + "horse" + "battery" + "staple"
    vault.write("wifi.md", f"# Wifi\n\nzebra office wifi {live}\n", dedent=False)
    write_secret_hashes([live], vault.root / ".mnemosyne" / "secret-hashes.json")
    (vault.root / ".mnemosyne" / "config.json").write_text(
        json.dumps({"redaction": {"secret_hashes": ".mnemosyne/secret-hashes.json"}}),
        encoding="utf-8",
    )
    # every family the redactor knows is planted (secret_hash via the hash file)
    assert set(FAMILIES) == set(FAMILY_SAMPLES) | {"secret_hash"}
    engine = Mnemosyne(vault.root)
    outputs = []
    for query in ["zebra planted samples", "sample", "zebra office wifi", *FAMILY_SAMPLES]:
        response = engine.search_response(query[:200])
        response.pop("query")
        outputs.append(json.dumps(response, ensure_ascii=False))
    output = "\n".join(outputs)
    cache = cache_text(engine.cache_path)
    for family, secret in {**FAMILY_SECRET, "secret_hash": live}.items():
        assert secret not in output, family
        assert secret not in cache, family
    assert output.count("[REDACTED:") >= 5
