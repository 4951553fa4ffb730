"""Claude Code hooks, driven with payloads shaped as Claude Code's hooks reference
documents them (docs/how-to/claude-code.md lists the fields and their source)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from birkin_mnemosyne.claude import hooks
from birkin_mnemosyne.claude.hooks import TOKEN_BUDGET, project_key_of, run_hook
from birkin_mnemosyne.handoffs import HandoffScope, HandoffStore
from birkin_mnemosyne.markdown import estimate_tokens
from birkin_mnemosyne.memory import VaultMemory
from birkin_mnemosyne.memory_index import MemoryIndex

SESSION = "0b9e4c2a-5f7d-4c1e-9a43-2f6d1e7c8b90"


def payload(event: str, cwd, **fields) -> dict:
    """The fields every hook receives, plus the event's own."""
    return {
        "session_id": SESSION,
        "transcript_path": fields.pop("transcript_path", "/nonexistent/transcript.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


@pytest.fixture
def repo(tmp_path):
    """A git working copy named ``atlas`` (the project key of its sessions)."""
    root = tmp_path / "work" / "atlas"
    (root / ".git").mkdir(parents=True)
    (root / "deploy").mkdir()
    return root


@pytest.fixture
def notes(vault):
    vault.write(
        "runbooks/restore.md",
        """
        # Restore PostgreSQL from last night's dump

        Use pg_restore with --jobs=4 into a scratch database, then rename it.
        The dump lives in /var/backups/postgres on db1.
        """,
    )
    vault.write(
        "lessons/disk-full.md",
        """
        ---
        type: lesson
        ---
        # Disk full during the nightly dump

        Move old dumps to the archive volume before retrying; never delete WAL files.

        ## Reflexes
        - error: No space left on device
        - target: db1.internal
        """,
    )
    vault.write(
        "lessons/deploy-config.md",
        """
        # Deploy config changes need a dry run

        Run `atlas deploy --dry-run` and read the diff before applying a deploy file.

        ## Reflexes
        - file: deploy/*.yaml
        """,
    )
    vault.write("journal/2026-06-01.md", "# 2026-06-01\n\nQuiet day, nothing to report.\n")
    built(vault.root)
    return vault


def built(root):
    """Build the vault's search index, as `mnemosyne reindex` or a SessionStart does."""
    memory = VaultMemory(root)
    try:
        memory.engine.refresh()
    finally:
        memory.close()


def context_of(result, event: str) -> str:
    assert result.output is not None, result.note
    out = result.output["hookSpecificOutput"]
    assert out["hookEventName"] == event
    assert set(out) == {"hookEventName", "additionalContext"}  # never a permission decision
    return out["additionalContext"]


def run(event, body, notes, **options):
    raw = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return run_hook(event, raw, vault=notes.root, **options)


# -- SessionStart ------------------------------------------------------------------------


def test_session_start_loads_the_projects_handoff_the_index_and_the_notes_its_task_routes_to(
    notes, repo
):
    MemoryIndex(notes.root).register("restoring the database", "runbooks/restore.md")
    HandoffStore(notes.root).capture(
        HandoffScope("atlas"),
        {"work_done": "Dump verified.", "next_step": "restore the database on the scratch host"},
    )
    HandoffStore(notes.root).capture(HandoffScope("other-repo"), {"work_done": "Unrelated work."})
    result = run("SessionStart", payload("SessionStart", repo / "deploy", source="startup"), notes)
    text = context_of(result, "SessionStart")
    assert "Dump verified." in text and "Unrelated work." not in text
    assert "Memory INDEX" in text
    assert "runbooks/restore.md (sha256 " in text and "pg_restore" in text
    assert estimate_tokens(text) <= TOKEN_BUDGET["SessionStart"]
    assert result.details["project_key"] == "atlas"


def test_session_start_holds_its_budget_and_says_nothing_when_there_is_nothing(notes, repo):
    HandoffStore(notes.root).capture(HandoffScope("atlas"), {"work_done": "word " * 3000})
    small = run(
        "SessionStart", payload("SessionStart", repo, source="resume"), notes, budget_tokens=150
    )
    assert estimate_tokens(context_of(small, "SessionStart")) <= 150
    assert "(cut)" in context_of(small, "SessionStart")
    empty = run("SessionStart", payload("SessionStart", notes.root.parent, source="clear"), notes)
    assert empty.output is None and "nothing to load" in empty.note


def test_only_session_start_builds_the_index_the_others_have_seconds(vault, repo):
    vault.write(
        "runbooks/restore.md", "# Restore PostgreSQL from last night's dump\n\nUse pg_restore.\n"
    )
    ask = payload(
        "UserPromptSubmit", repo, prompt="How do I restore PostgreSQL from last night's dump?"
    )
    before = run("UserPromptSubmit", ask, vault)
    assert before.output is None and "not built yet" in before.note
    assert not (vault.root / ".mnemosyne" / "cache" / "search-index.blocks").exists()
    run("SessionStart", payload("SessionStart", repo, source="startup"), vault)
    assert (vault.root / ".mnemosyne" / "cache" / "search-index.blocks").exists()
    after = run("UserPromptSubmit", ask, vault)
    assert "runbooks/restore.md" in context_of(after, "UserPromptSubmit")


def test_the_project_key_is_the_repository_folder_or_the_environments(repo, tmp_path):
    assert project_key_of(str(repo / "deploy"), {}) == "atlas"
    assert project_key_of(str(tmp_path / "loose"), {}) == "loose"
    assert project_key_of(str(repo), {"MNEMOSYNE_PROJECT_KEY": "atlas-web"}) == "atlas-web"
    assert project_key_of(None, {}) is None


# -- UserPromptSubmit ----------------------------------------------------------------------


def test_a_confident_prompt_gets_its_notes_and_a_weak_one_gets_nothing(notes, repo):
    good = run(
        "UserPromptSubmit",
        payload(
            "UserPromptSubmit", repo, prompt="How do I restore PostgreSQL from last night's dump?"
        ),
        notes,
    )
    text = context_of(good, "UserPromptSubmit")
    assert "runbooks/restore.md" in text and "confidence high" in text
    assert estimate_tokens(text) <= TOKEN_BUDGET["UserPromptSubmit"]
    weak = run(
        "UserPromptSubmit",
        payload("UserPromptSubmit", repo, prompt="What colour should the new office chairs be?"),
        notes,
    )
    assert weak.output is None and "no confident match" in weak.note
    slash = run("UserPromptSubmit", payload("UserPromptSubmit", repo, prompt="/compact"), notes)
    assert slash.output is None


def test_a_prompt_takes_a_recent_stat_pass_of_another_process_as_its_own(notes, repo):
    # Hooks at the moment of action trust a pass up to ACTION_CHECK_INTERVAL_S old: a
    # note written outside the doors since is not seen until the pass is older.
    from birkin_mnemosyne.cache import cache_dir
    from birkin_mnemosyne.freshness import write_pass_record

    folder = cache_dir(notes.root)
    notes.write(
        "runbooks/ferry.md", "# Zanzibar ferry timetable\n\nThe zanzibar ferry leaves at 07:40.\n"
    )
    body = payload("UserPromptSubmit", repo, prompt="When does the Zanzibar ferry leave?")
    recent = time.time() - hooks.ACTION_CHECK_INTERVAL_S / 2
    write_pass_record(folder, recent, 0.5, 0.5, [], root=notes.root)
    trusted = run("UserPromptSubmit", body, notes)
    assert trusted.output is None or "runbooks/ferry.md" not in context_of(
        trusted, "UserPromptSubmit"
    )
    old = time.time() - hooks.ACTION_CHECK_INTERVAL_S - 30
    write_pass_record(folder, old, 0.5, 0.5, [], root=notes.root)
    passed = run("UserPromptSubmit", body, notes)
    assert "runbooks/ferry.md" in context_of(passed, "UserPromptSubmit")


def test_private_spans_of_a_prompt_are_never_searched(notes, repo):
    prompt = (
        "Please help with this: <private>restore PostgreSQL from last night's dump</private> ok?"
    )
    result = run("UserPromptSubmit", payload("UserPromptSubmit", repo, prompt=prompt), notes)
    assert result.output is None


# -- reflexes ----------------------------------------------------------------------------------


def test_a_tool_failure_naming_a_declared_error_surfaces_its_lesson(notes, repo):
    failure = payload(
        "PostToolUseFailure",
        repo,
        tool_name="Bash",
        tool_input={"command": "pg_dump atlas > /srv/dumps/atlas.sql"},
        tool_use_id="toolu_01",
        error="pg_dump: error: could not write to output file: No space left on device",
        is_interrupt=False,
    )
    text = context_of(run("PostToolUseFailure", failure, notes), "PostToolUseFailure")
    assert "lessons/disk-full.md" in text and "reflex error: No space left on device" in text
    assert "archive volume" in text  # the lesson's own words, not only its title
    unrelated = dict(failure, error="fatal: not a git repository (or any parent)")
    assert run("PostToolUseFailure", unrelated, notes).output is None


def test_a_failed_bash_result_gets_a_reflex_and_a_successful_one_does_not(notes, repo):
    def post(response):
        return payload(
            "PostToolUse",
            repo,
            tool_name="Bash",
            tool_input={"command": "cp big.tar /mnt/"},
            tool_response=response,
            tool_use_id="toolu_02",
        )

    failed = post({"stdout": "", "stderr": "cp: No space left on device", "exit_code": 1})
    assert "lessons/disk-full.md" in context_of(run("PostToolUse", failed, notes), "PostToolUse")
    fine = post({"stdout": "No space left on device (a test string)", "stderr": "", "exit_code": 0})
    assert run("PostToolUse", fine, notes).output is None
    edit = dict(failed, tool_name="Edit")
    assert run("PostToolUse", edit, notes).output is None


def test_pre_tool_use_fires_file_and_target_reflexes_only(notes, repo):
    edit = payload(
        "PreToolUse",
        repo,
        tool_name="Edit",
        tool_input={
            "file_path": str(repo / "deploy" / "prod.yaml"),
            "old_string": "a",
            "new_string": "b",
        },
        tool_use_id="toolu_03",
    )
    text = context_of(run("PreToolUse", edit, notes), "PreToolUse")
    assert "lessons/deploy-config.md" in text and "disk-full" not in text
    other = dict(edit, tool_input={"file_path": str(repo / "src" / "prod.yaml")})
    assert run("PreToolUse", other, notes).output is None

    def bash(command):
        return payload("PreToolUse", repo, tool_name="Bash", tool_input={"command": command})

    assert "lessons/disk-full.md" in context_of(
        run("PreToolUse", bash("ssh db1.internal 'df -h /srv'"), notes), "PreToolUse"
    )
    assert run("PreToolUse", bash("ssh xdb1.internal"), notes).output is None
    # an error trigger never fires before the command has failed
    assert run("PreToolUse", bash("echo 'No space left on device'"), notes).output is None


# -- PreCompact / SessionEnd ----------------------------------------------------------------


def write_transcript(path, lines):
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def transcript_lines():
    return [
        {
            "type": "user",
            "sessionId": SESSION,
            "timestamp": "2026-12-01T10:00:00Z",
            "message": {"role": "user", "content": "Rotate the staging TLS certificate"},
        },
        {
            "type": "assistant",
            "sessionId": SESSION,
            "timestamp": "2026-12-01T10:01:00Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Editing the ingress config."},
                    {
                        "type": "tool_use",
                        "id": "toolu_a",
                        "name": "Edit",
                        "input": {"file_path": "/w/atlas/deploy/ingress.yaml"},
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_b",
                        "name": "Bash",
                        "input": {"command": "kubectl apply -f deploy/ingress.yaml"},
                    },
                ],
            },
        },
        {
            "type": "user",
            "sessionId": SESSION,
            "timestamp": "2026-12-01T10:02:00Z",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_b",
                        "content": "error: the server doesn't have a resource type",
                        "is_error": True,
                    },
                ],
            },
        },
        {
            "type": "assistant",
            "sessionId": SESSION,
            "timestamp": "2026-12-01T10:03:00Z",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": "The certificate secret is updated; kubectl apply failed "
                        "<private>because the admin password hunter2 expired</private>.",
                    }
                ],
            },
        },
    ]


def test_pre_compact_captures_a_handoff_once_and_only_inside_the_vault(notes, repo, tmp_path):
    transcript = write_transcript(tmp_path / "session.jsonl", transcript_lines())
    before = sorted(p for p in tmp_path.rglob("*") if notes.root not in p.parents)
    body = payload(
        "PreCompact", repo, transcript_path=str(transcript), trigger="auto", custom_instructions=""
    )
    first = run("PreCompact", body, notes)
    assert first.output is None and first.details["replayed"] is False
    again = run("PreCompact", body, notes)
    assert again.details == first.details | {"replayed": True}
    after = sorted(p for p in tmp_path.rglob("*") if notes.root not in p.parents)
    assert after == before  # nothing written outside the vault
    record = HandoffStore(notes.root).latest(HandoffScope("atlas"))
    fields = record["fields"]
    assert "Rotate the staging TLS certificate" in fields["next_step"]
    assert "/w/atlas/deploy/ingress.yaml" in fields["work_done"]
    assert any("kubectl apply" in item for item in fields["open_items"])
    assert "hunter2" not in json.dumps(record)
    ended = run(
        "SessionEnd",
        payload("SessionEnd", repo, transcript_path=str(transcript), reason="exit"),
        notes,
    )
    assert ended.details["capture_id"].startswith(f"claude:{SESSION}:SessionEnd:")


def test_a_capture_with_no_transcript_or_an_empty_one_writes_nothing(notes, repo, tmp_path):
    missing = run("PreCompact", payload("PreCompact", repo, trigger="manual"), notes)
    assert missing.output is None and missing.note
    empty = write_transcript(tmp_path / "empty.jsonl", [])
    result = run("SessionEnd", payload("SessionEnd", repo, transcript_path=str(empty)), notes)
    assert "nothing to hand over" in result.note
    assert HandoffStore(notes.root).latest(HandoffScope("atlas")) is None


# -- failing open --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, said",
    [
        (b"{not json", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (json.dumps({"hook_event_name": "Stop"}).encode(), "is for Stop"),
        (b"\xff\xfe garbage", "not JSON"),
    ],
)
def test_malformed_payloads_inject_nothing(notes, raw, said):
    result = run("UserPromptSubmit", raw, notes)
    assert result.output is None and said in result.note


def test_an_oversized_payload_unknown_event_or_missing_vault_fails_open(
    notes, repo, monkeypatch, tmp_path
):
    monkeypatch.setattr(hooks, "MAX_PAYLOAD_BYTES", 100)
    big = json.dumps(payload("UserPromptSubmit", repo, prompt="restore " * 50))
    assert "over 100 bytes" in run("UserPromptSubmit", big, notes).note
    monkeypatch.undo()
    assert "unknown hook event" in run("Stop", "{}", notes).note
    gone = run_hook(
        "UserPromptSubmit",
        json.dumps(payload("UserPromptSubmit", repo, prompt="restore PostgreSQL from the dump")),
        vault=tmp_path / "no-vault",
    )
    assert gone.output is None and "VaultNotFoundError" in gone.note


def test_the_time_budget_stops_a_slow_hook_and_injects_nothing(notes, repo, monkeypatch):
    def slow(ctx):
        time.sleep(30)

    monkeypatch.setitem(hooks._HANDLERS, "UserPromptSubmit", slow)
    body = json.dumps(payload("UserPromptSubmit", repo, prompt="anything at all"))
    result = run_hook("UserPromptSubmit", body, vault=notes.root, time_budget=0.2)
    assert result.output is None and "out of time after 0.2 s" in result.note


def test_a_budget_of_zero_injects_nothing(notes, repo):
    body = payload(
        "UserPromptSubmit", repo, prompt="How do I restore PostgreSQL from last night's dump?"
    )
    assert run("UserPromptSubmit", body, notes, budget_tokens=0).output is None


def test_the_hook_command_is_a_process_that_always_exits_zero(notes, repo):
    def hook(event, data, *extra):
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "birkin_mnemosyne",
                "--vault",
                str(notes.root),
                "hook",
                event,
                *extra,
            ],
            input=data,
            capture_output=True,
            timeout=120,
            env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        )

    prompt = json.dumps(
        payload(
            "UserPromptSubmit", repo, prompt="How do I restore PostgreSQL from last night's dump?"
        )
    ).encode()
    done = hook("UserPromptSubmit", prompt)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert "runbooks/restore.md" in shown["hookSpecificOutput"]["additionalContext"]
    for event, data, extra in [
        ("UserPromptSubmit", b"{broken", ()),
        ("NoSuchEvent", b"{}", ()),
        ("UserPromptSubmit", prompt, ("--budget-tokens", "lots")),
    ]:
        done = hook(event, data, *extra)
        assert done.returncode == 0
        if event == "UserPromptSubmit" and extra:
            assert json.loads(done.stdout)  # a bad budget falls back to the default
        else:
            assert done.stdout == b"" and done.stderr.startswith(b"mnemosyne hook ")
