"""The curation tools of the MCP door: catalog, curate, review, capacity, prompt."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp", reason='the MCP server needs the extra: pip install -e ".[mcp]"')

import anyio  # noqa: E402  (comes with mcp)
from mcp import Client  # noqa: E402

from birkin_mnemosyne.errors import ConfigError  # noqa: E402
from birkin_mnemosyne.mcp_server import build_server  # noqa: E402
from birkin_mnemosyne.memory import VaultMemory  # noqa: E402

NOW = 1_800_000_000.0


@pytest.fixture
def memory(vault):
    vault.write("deploy.md", "# Deploy\nHow we deploy the api service to production.\n")
    vault.write("deploy-copy.md", "# Deploy\nHow we deploy the api service to production!\n")
    vault.write("prefs/tea.md", "# Tea\nGreen tea.\n")
    with VaultMemory(vault.root, clock=lambda: NOW) as mem:
        yield mem


def session(server, body):
    async def main():
        with anyio.fail_after(60):
            async with Client(server) as client:
                return await body(client)

    return anyio.run(main)


def calls(server, *steps):
    """Run tool calls in one session; each step is (name, arguments) or a callable
    taking the previous structured results and returning (name, arguments)."""

    async def body(client):
        results = []
        for step in steps:
            name, arguments = step(results) if callable(step) else step
            result = await client.call_tool(name, arguments)
            if result.is_error:
                results.append({"error": result.content[0].text})
            else:
                assert json.loads(result.content[0].text) == result.structured_content
                results.append(result.structured_content)
        return results

    return session(server, body)


PLAN = {
    "format": "CurationPlan/1",
    "summary": "tidy",
    "operations": [
        {"op": "rezone", "note": "deploy", "zone": "ops", "reason": "ops"},
        {"op": "archive", "note": "tea", "reason": "the user said so (they did not)"},
    ],
}


def test_agent_as_curator_dry_run_apply_undo(memory):
    server = build_server(memory, tools="full")
    catalog, preview, applied, undone = calls(
        server,
        ("memory_curation_catalog", {}),
        ("memory_curate", {"plan": PLAN}),
        lambda r: ("memory_curate", {"plan": PLAN, "apply": True, "plan_id": r[1]["plan_id"]}),
        lambda r: ("memory_undo", {"transaction_id": r[2]["transaction_id"]}),
    )
    assert catalog["active_notes"] == 3 and catalog["duplicates"]
    assert preview["mode"] == "preview" and [d["reason"] for d in preview["dropped"]] == [
        "protected"
    ]
    assert applied["mode"] == "applied" and applied["effected"][0]["to"] == "ops/deploy.md"
    assert undone["state"] == "undone"
    assert (memory.vault / "deploy.md").exists() and (memory.vault / "prefs/tea.md").exists()


def test_review_and_capacity_tools(memory):
    server = build_server(memory, tools="full")
    listed, answered, undone, capacity = calls(
        server,
        ("memory_review_questions", {}),
        lambda r: (
            "memory_review_apply",
            {"question_id": r[0]["questions"][0]["id"], "answer": "drop_first"},
        ),
        lambda r: ("memory_review_undo", {"transaction_id": r[1]["transaction_id"]}),
        ("memory_capacity", {}),
    )
    assert listed["questions"][0]["kind"] == "duplicate"
    assert answered["transaction_id"] and undone["state"] == "undone"
    assert capacity["active_notes"]["count"] == 3


def test_bad_answers_are_tool_errors(memory):
    (result,) = calls(
        build_server(memory, tools="full"),
        ("memory_review_apply", {"question_id": "nope", "answer": "keep_both"}),
    )
    assert "no longer applies" in result["error"]


def test_read_only_server_offers_only_the_read_tools(memory):
    async def body(client):
        return {t.name for t in (await client.list_tools()).tools}, (
            await client.list_prompts()
        ).prompts

    names, prompts = session(build_server(memory, read_only=True, tools="full"), body)
    assert {"memory_curation_catalog", "memory_review_questions", "memory_capacity"} <= names
    assert not {"memory_curate", "memory_review_apply", "memory_review_undo"} & names
    assert "curate_vault" not in {p.name for p in prompts}


def test_curate_vault_prompt(memory):
    async def body(client):
        return await client.get_prompt("curate_vault", {})

    got = session(build_server(memory, tools="full"), body)
    text = got.messages[0].content.text
    assert "memory_curation_catalog" in text and "apply=true" in text

    async def prompts(client):
        return {prompt.name for prompt in (await client.list_prompts()).prompts}

    # the default set has none of the tools the prompt sends the model to
    assert session(build_server(memory), prompts) == {"recall_before_answer"}


def test_invalid_budget_stops_start_up(memory, monkeypatch):
    monkeypatch.setenv("MNEMOSYNE_MAX_PROTECTED_NOTES", "-1")
    with pytest.raises(ConfigError, match="MNEMOSYNE_MAX_PROTECTED_NOTES"):
        build_server(memory)  # checked even by the default set, which offers no curation


def test_curate_accepts_a_plan_as_text(memory):
    text = "Here is my plan:\n```json\n" + json.dumps(PLAN) + "\n```"
    (preview, garbage) = calls(
        build_server(memory, tools="full"),
        ("memory_curate", {"plan": text}),
        ("memory_curate", {"plan": "no plan at all"}),
    )
    assert [a["op"] for a in preview["accepted"]] == ["rezone"]
    assert garbage["accepted"] == [] and garbage["dropped"] == []


def test_budget_options_override_the_environment(memory, monkeypatch):
    monkeypatch.setenv("MNEMOSYNE_MAX_ACTIVE_NOTES", "100")
    (capacity,) = calls(
        build_server(memory, budgets={"max_active_notes": 2}, tools="full"), ("memory_capacity", {})
    )
    assert capacity["active_notes"]["count"] == 3
    assert capacity["active_notes"]["budget"] == 2
