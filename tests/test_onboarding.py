"""``init``: preview writes nothing, apply is one undoable transaction, frontmatter is only
completed, overlaps are reported, folder imports are lossless and refuse what they must."""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from birkin_mnemosyne.errors import InvalidInputError, VersionConflictError
from birkin_mnemosyne.frontmatter import parse_frontmatter
from birkin_mnemosyne.journal import Journal
from birkin_mnemosyne.markdown import parse_markdown
from birkin_mnemosyne.notes_io import jaccard
from birkin_mnemosyne.onboarding import apply_init, plan_init, similar_pairs, singular
from birkin_mnemosyne.source_files import fence_text, unfence_text

T0 = 1_772_445_600.0  # 2026-03-02T10:00:00Z

needs_symlinks = pytest.mark.skipif(
    not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links need POSIX here"
)


def snapshot(root: Path, *, state: bool = True) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) below ``root``; ``state=False`` leaves out
    ``.mnemosyne/`` (the journal and the lock live there)."""
    if not root.exists():
        return {}
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not state and rel.split("/")[0] == ".mnemosyne":
            continue
        found[rel] = None if path.is_dir() else path.read_bytes()
    return found


@pytest.fixture
def notes(vault):
    vault.write("runbooks/restore.md", "# Restore Postgres\n\nRun pg_restore on the dump.\n")
    vault.write(
        "decisions/db.md",
        "---\ntitle: Database choice\n# keep this comment\ntags: [db]\n---\nWe chose Postgres.\n",
    )
    vault.write("complete.md", "---\ntitle: Done\ntype: note\ntags: []\n---\nNothing to add.\n")
    return vault


@pytest.fixture
def source(tmp_path) -> Path:
    folder = tmp_path / "old-notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "journal.md").write_bytes(b"# Journal\r\n\r\nno frontmatter, CRLF kept\r\n")
    (folder / "todo.txt").write_bytes(b"buy milk\n```\nnot a fence end\n````\n")
    (folder / "sub" / "data.json").write_bytes(b'{"k": "``` and ````"}')
    (folder / "photo.png").write_bytes(b"\x89PNG\r\n")
    (folder / ".hidden.md").write_bytes(b"# hidden\n")
    return folder


# --- preview, apply, undo, re-run ---------------------------------------------------------


def test_the_preview_writes_nothing_anywhere(notes, source):
    before, source_before = snapshot(notes.root), snapshot(source)
    preview = plan_init(notes.root, import_dir=source, now=T0)
    assert snapshot(notes.root) == before and snapshot(source) == source_before
    assert not (notes.root / ".mnemosyne").exists()
    assert preview["mode"] == "preview" and len(preview["plan_id"]) == 64
    assert preview["notes_found"] == 3
    assert {c["path"] for c in preview["changes"]} == {
        "runbooks/restore.md",
        "decisions/db.md",
        "imports/old-notes/journal.md",
        "imports/old-notes/todo.md",
        "imports/old-notes/sub/data.md",
    }
    assert preview["summary"]["skipped_other_files"] == 1
    assert preview["summary"]["hidden_skipped"] == 1
    assert preview["refused"] == [] and preview["summary"]["create_vault"] is False


def test_the_plan_id_is_stable_and_names_the_planned_bytes(notes, source):
    first = plan_init(notes.root, import_dir=source)
    assert plan_init(notes.root, import_dir=source)["plan_id"] == first["plan_id"]
    assert plan_init(notes.root)["plan_id"] != first["plan_id"]
    (source / "todo.txt").write_bytes(b"changed\n")
    assert plan_init(notes.root, import_dir=source)["plan_id"] != first["plan_id"]


def test_apply_writes_the_preview_in_one_transaction_and_undo_is_byte_exact(notes, source):
    before = snapshot(notes.root)
    preview = plan_init(notes.root, import_dir=source)
    applied = apply_init(notes.root, import_dir=source, plan_id=preview["plan_id"], now=T0)
    assert applied["mode"] == "applied" and applied["state"] == "committed"
    assert applied["plan_id"] == preview["plan_id"]
    assert sorted(applied["paths"]) == sorted(c["path"] for c in preview["changes"])
    entry = Journal(notes.root).get(applied["transaction_id"])
    assert entry["operation"] == "init" and entry["created"].startswith("2026-03-02T10:00:00")
    assert entry["meta"]["plan_id"] == preview["plan_id"]
    assert (notes.root / "imports/old-notes/journal.md").read_bytes() == (
        source / "journal.md"
    ).read_bytes()
    Journal(notes.root).undo(applied["transaction_id"])
    assert snapshot(notes.root, state=False) == before


def test_re_running_apply_is_a_no_op(notes, source):
    apply_init(notes.root, import_dir=source, now=T0)
    before = snapshot(notes.root)
    again = apply_init(notes.root, import_dir=source, now=T0)
    assert again["mode"] == "applied" and again["transaction_id"] is None
    assert again["paths"] == [] and again["changes"] == []
    assert again["summary"]["already_imported"] == 3
    assert snapshot(notes.root) == before
    assert len(Journal(notes.root).list()) == 1
    # The imported Markdown stays byte for byte: init does not complete what it imported.
    assert plan_init(notes.root, import_dir=source)["changes"] == []


def test_a_stale_plan_id_is_refused_and_nothing_is_written(notes):
    preview = plan_init(notes.root)
    notes.write("runbooks/restore.md", "# Restore Postgres\n\nEdited meanwhile.\n")
    before = snapshot(notes.root)
    with pytest.raises(VersionConflictError, match="preview again"):
        apply_init(notes.root, plan_id=preview["plan_id"])
    assert snapshot(notes.root) == before
    with pytest.raises(InvalidInputError, match="64 hex digits"):
        apply_init(notes.root, plan_id="abc")


def test_a_missing_vault_folder_is_announced_then_created(tmp_path, source):
    target = tmp_path / "new" / "vault"
    preview = plan_init(target, import_dir=source)
    assert preview["summary"]["create_vault"] is True
    assert any("does not exist" in warning for warning in preview["warnings"])
    assert not (tmp_path / "new").exists()
    with pytest.raises(VersionConflictError):
        apply_init(target, import_dir=source, plan_id="0" * 64)
    assert not (tmp_path / "new").exists()
    applied = apply_init(target, import_dir=source, plan_id=preview["plan_id"], now=T0)
    assert applied["created_vault"] is True and target.is_dir()
    assert (target / "imports/old-notes/todo.md").is_file()


def test_init_on_an_empty_new_folder_creates_it_and_writes_nothing_else(tmp_path):
    target = tmp_path / "fresh"
    applied = apply_init(target)
    assert applied["transaction_id"] is None and applied["created_vault"] is True
    assert snapshot(target) == {}


def test_bad_vault_and_import_folders_are_refused(notes, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(InvalidInputError, match="not a folder"):
        plan_init(afile)
    with pytest.raises(InvalidInputError, match="not found"):
        plan_init(notes.root, import_dir=tmp_path / "nowhere")
    with pytest.raises(InvalidInputError, match="overlaps the vault"):
        plan_init(notes.root, import_dir=notes.root / "runbooks")
    with pytest.raises(InvalidInputError, match="overlaps the vault"):
        plan_init(notes.root, import_dir=notes.root.parent)


# --- frontmatter completion ---------------------------------------------------------------


def _applied_bytes(vault, rel: str) -> bytes:
    apply_init(vault.root, now=T0)
    return (vault.root / rel).read_bytes()


def test_only_missing_keys_are_added_and_existing_bytes_are_kept(notes):
    preview = plan_init(notes.root)
    additions = {a["path"]: a["add"] for a in preview["frontmatter_additions"]}
    assert additions == {
        "runbooks/restore.md": {"title": "Restore Postgres", "type": "runbook", "tags": []},
        "decisions/db.md": {"type": "decision"},
    }
    apply_init(notes.root, now=T0)
    assert (notes.root / "decisions/db.md").read_bytes() == (
        b"---\ntitle: Database choice\n# keep this comment\ntags: [db]\ntype: decision\n---\n"
        b"We chose Postgres.\n"
    )
    assert (notes.root / "runbooks/restore.md").read_bytes() == (
        b"---\ntitle: Restore Postgres\ntype: runbook\ntags: []\n---\n"
        b"# Restore Postgres\n\nRun pg_restore on the dump.\n"
    )
    assert (notes.root / "complete.md").read_bytes() == (
        b"---\ntitle: Done\ntype: note\ntags: []\n---\nNothing to add.\n"
    )


def test_a_note_without_frontmatter_keeps_its_bom_crlf_and_body_bytes(vault):
    original = "\ufeffplain text, no heading\r\nsecond line\r\n"
    vault.write_bytes("meeting-notes.md", original.encode("utf-8"))
    after = _applied_bytes(vault, "meeting-notes.md")
    assert after == (
        "\ufeff---\r\ntitle: meeting notes\r\ntype: note\r\ntags: []\r\n---\r\n"
        "plain text, no heading\r\nsecond line\r\n"
    ).encode("utf-8")
    assert parse_frontmatter(after.decode("utf-8")).body == original[1:]


def test_keys_that_are_present_even_empty_are_never_rewritten(vault):
    text = "---\ntitle:\ntags:\n  - a\n---\n# Real title\n"
    vault.write("stories/s.md", text, dedent=False)
    preview = plan_init(vault.root)
    assert preview["frontmatter_additions"] == [{"path": "stories/s.md", "add": {"type": "story"}}]
    after = _applied_bytes(vault, "stories/s.md").decode("utf-8")
    assert after == "---\ntitle:\ntags:\n  - a\ntype: story\n---\n# Real title\n"


def test_the_vault_type_rules_choose_the_type_first(vault):
    vault.write_bytes(".mnemosyne/config.json", b'{"type_rules": {"ops/**": "runbook"}}')
    vault.write("ops/x.md", "text\n")
    vault.write("people/y.md", "text\n")
    added = {a["path"]: a["add"]["type"] for a in plan_init(vault.root)["frontmatter_additions"]}
    assert added == {"ops/x.md": "runbook", "people/y.md": "people"}


def test_broken_notes_are_reported_and_left_alone(vault):
    vault.write("bad-yaml.md", "---\ntitle: [unclosed\n---\nbody\n", dedent=False)
    vault.write("unclosed.md", "---\ntitle: x\nbody without a closing line\n", dedent=False)
    vault.write_bytes("latin1.md", b"caf\xe9\n")
    before = snapshot(vault.root)
    preview = plan_init(vault.root)
    skipped = {note["path"] for note in preview["skipped_notes"]}
    assert skipped == {"bad-yaml.md", "unclosed.md", "latin1.md"}
    assert preview["changes"] == [] and preview["summary"]["skipped_notes"] == 3
    assert all(any(path in w for w in preview["warnings"]) for path in skipped)
    apply_init(vault.root)
    assert snapshot(vault.root, state=False) == before


def test_hidden_archived_and_state_folders_are_not_onboarded(vault):
    vault.write(".obsidian/x.md", "x\n")
    vault.write("_archive/old.md", "x\n")
    vault.write(".mnemosyne/y.md", "x\n")
    vault.write("node_modules/z.md", "x\n")
    vault.write("inbox.md", "x\n")
    preview = plan_init(vault.root)
    assert preview["notes_found"] == 1
    assert [c["path"] for c in preview["changes"]] == ["inbox.md"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("runbooks", "runbook"),
        ("stories", "story"),
        ("classes", "class"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("people", "people"),
        ("s", "s"),
    ],
)
def test_folder_names_are_singularised_simply(word, expected):
    assert singular(word) == expected


# --- duplicates ---------------------------------------------------------------------------


def test_overlapping_notes_are_reported_and_never_merged(vault):
    vault.write("a.md", "# Kafka retention\n\nTopics keep seven days of messages on disk.\n")
    vault.write("b.md", "# Kafka retention\n\nTopics keep seven days of messages.\n")
    vault.write("c.md", "# Lunch\n\nSandwiches on Friday.\n")
    preview = plan_init(vault.root)
    assert [(d["a"], d["b"]) for d in preview["duplicates"]] == [("a.md", "b.md")]
    assert 0.5 <= preview["duplicates"][0]["similarity"] <= 1
    assert all(c["kind"] == "frontmatter" for c in preview["changes"])


def test_a_planned_import_is_compared_with_the_vault_notes(vault, tmp_path):
    vault.write("kafka.md", "# Kafka retention\n\nTopics keep seven days of messages on disk.\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "copy.md").write_text(
        "# Kafka retention\n\nTopics keep seven days of messages on disk.\n"
    )
    preview = plan_init(vault.root, import_dir=tmp_path / "src")
    assert preview["duplicates"] == [
        {"a": "imports/src/copy.md", "b": "kafka.md", "similarity": 1.0}
    ]


def test_apply_compares_the_notes_once_after_writing(vault):
    vault.write("a.md", "# Kafka retention\n\nTopics keep seven days of messages on disk.\n")
    vault.write("b.md", "# Kafka retention\n\nTopics keep seven days of messages.\n")
    events = []
    result = apply_init(vault.root, now=T0, on_progress=events.append)
    finished = [event.phase for event in events if event.finished]
    # Built twice (a vault without a lock file is checked before the lock is taken),
    # the notes are tokenized and compared only for the result, after the write.
    assert finished == ["read", "read", "write", "tokenize", "duplicates"]
    assert [(d["a"], d["b"]) for d in result["duplicates"]] == [("a.md", "b.md")]
    assert list(result["summary"])[:4] == [
        "create_vault",
        "notes_found",
        "frontmatter_additions",
        "duplicates",
    ]
    assert result["summary"]["duplicates"] == 1


def test_a_progress_callback_that_raises_mid_write_leaves_every_file_as_it_was(vault):
    for i in range(4):
        vault.write(f"n{i}.md", f"# Note {i}\n\nText {i}.\n")
    before = snapshot(vault.root, state=False)

    def cancel(event):
        if event.phase == "write" and event.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        apply_init(vault.root, now=T0, on_progress=cancel)
    assert snapshot(vault.root, state=False) == before
    assert plan_init(vault.root)["summary"]["changes"] == 4  # still all to do


def test_preview_progress_counts_every_note(vault):
    for i in range(5):
        vault.write(f"n{i}.md", f"# Note {i}\n\nText {i}.\n")
    events = []
    plan_init(vault.root, on_progress=events.append)
    assert [e.phase for e in events if e.finished] == ["read", "tokenize", "duplicates"]
    assert {(e.phase, e.total) for e in events} == {
        ("read", 5),
        ("tokenize", 5),
        ("duplicates", 5),
    }


_term_sets = st.dictionaries(
    st.text("abcdefgh", min_size=1, max_size=3),
    st.sets(st.sampled_from("pqrstuvwxyz"), max_size=8),
    max_size=8,
)


@settings(max_examples=150, deadline=None)
@given(_term_sets, st.sampled_from([0.3, 0.5, 0.75, 1.0]))
def test_the_similarity_join_finds_exactly_the_brute_force_pairs(sets, threshold):
    expected = {
        (a, b)
        for a, b in itertools.combinations(sorted(sets), 2)
        if jaccard(sets[a], sets[b]) >= threshold
    }
    assert {(a, b) for a, b, _ in similar_pairs(sets, threshold)} == expected


# --- importing a folder -------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("`~a \n\r#-é"), max_size=60))
def test_fencing_is_lossless_and_nothing_inside_closes_the_fence(text):
    wrapped = fence_text(text, "text")
    assert unfence_text("---\ntitle: x\n---\n\n" + wrapped) == text
    # Inside the fence nothing is a heading, whatever the text holds.
    assert parse_markdown(wrapped).headings == ()


def test_wrapped_text_and_json_give_back_the_original_bytes(notes, source):
    apply_init(notes.root, import_dir=source, now=T0)
    for original, wrapped, language in (
        ("todo.txt", "todo.md", "text"),
        ("sub/data.json", "sub/data.md", "json"),
    ):
        note = (notes.root / "imports/old-notes" / wrapped).read_text(encoding="utf-8")
        parsed = parse_frontmatter(note)
        assert parsed.data == {
            "title": original.rsplit("/", 1)[-1],
            "type": "import",
            "source": original,
            "tags": [],
        }
        assert f"`````{language}\n" in note  # one longer than the ```` inside
        assert unfence_text(note).encode("utf-8") == (source / original).read_bytes()


@needs_symlinks
def test_links_invalid_utf8_and_collisions_are_refused_but_the_rest_imports(notes, source):
    (source / "link.md").symlink_to(source / "journal.md")
    (source / "linked-dir").symlink_to(source / "sub", target_is_directory=True)
    (source / "latin1.txt").write_bytes(b"caf\xe9\n")
    (source / "nul.txt").write_bytes(b"a\x00b")
    (source / "todo.md").write_bytes(b"# also todo\n")  # todo.txt -> todo.md as well
    mine = "---\ntitle: Mine\ntype: note\ntags: []\n---\nsomeone else's file\n"
    notes.write("imports/old-notes/journal.md", mine)
    preview = plan_init(notes.root, import_dir=source)
    reasons = {r["source"]: r["reason"] for r in preview["refused"]}
    assert set(reasons) == {
        "link.md",
        "linked-dir",
        "latin1.txt",
        "nul.txt",
        "todo.md",
        "todo.txt",
        "journal.md",
    }
    assert "symbolic link" in reasons["link.md"] and "UTF-8" in reasons["latin1.txt"]
    assert "NUL" in reasons["nul.txt"] and "2 sources" in reasons["todo.txt"]
    assert "already exists with different content" in reasons["journal.md"]
    assert [i["path"] for i in preview["imports"]] == ["imports/old-notes/sub/data.md"]
    applied = apply_init(notes.root, import_dir=source, plan_id=preview["plan_id"], now=T0)
    assert "imports/old-notes/sub/data.md" in applied["paths"]
    assert (notes.root / "imports/old-notes/journal.md").read_text() == mine


def test_a_case_variant_of_an_existing_note_is_a_collision(vault, tmp_path):
    vault.write("imports/src/Note.md", "---\ntitle: t\ntype: note\ntags: []\n---\nmine\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "note.md").write_text("theirs\n")
    preview = plan_init(vault.root, import_dir=tmp_path / "src")
    assert preview["imports"] == [] and "differs only by case" in preview["refused"][0]["reason"]


def test_credentials_in_imports_are_reported_by_family_and_copied_losslessly(vault, tmp_path):
    secret = "sk-" + "A" * 40
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "keys.txt").write_text(f"openai {secret}\n")
    preview = plan_init(vault.root, import_dir=tmp_path / "src")
    assert preview["credentials"] == {"sk_api_key": 1}
    assert secret not in json.dumps(preview)
    apply_init(vault.root, import_dir=tmp_path / "src")
    assert secret in unfence_text((vault.root / "imports/src/keys.md").read_text())
